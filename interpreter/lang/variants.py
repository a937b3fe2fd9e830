"""Variants: a spec that `extends` another and overrides, adds and removes by id.

Input: a located spec document with `extends:` (and `override:`, `add:`, `remove:`).
Output: one located document, the base with the variant's changes applied, in which
every entry keeps the position of the file it came from. Overriding or removing an id
the base does not have, or adding one it already has, is a located error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import Pos, SpecError, check_input, did_you_mean, excerpt, fail
from . import catalog
from .loader import LList, LMap, load_yaml

MAX_EXTENDS = 16

ACTIONS = ("remove", "override", "add")          # in this order, in a variant and a reading

# what a variant can name by id: a section of the spec (a mapping of ids), or "steps"
MAPPED = ("options", "enums", "data", "components", "zones", "variables", "functions",
          "rules", "invariants", "rulings")
SCORING = ("points", "tiebreak")
KINDS = MAPPED + SCORING + ("steps",)


def resolve(doc: LMap, path: Path, chain: tuple = ()) -> LMap:
    """The document with its `extends` chain applied (a document without one as is)."""
    if "extends" not in doc:
        for key in ("override", "add", "remove", "settle"):
            if key in doc:
                fail(f"'{key}:' needs 'extends:' (the spec it changes)", doc.where_key(key))
        return doc
    if len(chain) >= MAX_EXTENDS:
        fail(f"more than {MAX_EXTENDS} specs extend one another", doc.where("extends"))
    base_path = base_of(doc, path)
    if base_path in chain or base_path == _resolved(path, doc.where("extends")):
        fail("a spec cannot extend itself (directly or through others)", doc.where("extends"))
    base = resolve(load_yaml(base_path, "spec", doc.where("extends")), base_path,
                   chain + (_resolved(path, doc.where("extends")),))
    return apply_variant(base, doc)


def base_of(doc: LMap, path: Path) -> Path:
    """The file `extends:` names: a path relative to the variant's file, or the name of a
    game that comes with the package (`tabula:NAME`, or a bare `NAME` when no file of
    that name is beside the variant: the path wins)."""
    ref = str(doc["extends"])
    where = doc.where("extends")
    if not ref.startswith(catalog.PREFIX):
        local = _resolved(path.parent / ref, where)
        if local.is_dir():                 # a game's folder, as on the command line
            try:
                return _resolved(catalog.resolve_spec_path(local), where)
            except SpecError as exc:
                fail(exc.message, where, exc.hint)
        if os.path.lexists(local):         # a file, or a FIFO or device: refused there
            check_input(local, "spec", where)
            return local
        shipped = catalog.find(ref, where) if catalog.is_name(ref) else None
        if shipped is None:
            fail(f"the spec it extends does not exist: {ref}", where,
                 f"give a path relative to {path.name} or the name of a game that comes "
                 f"with tabula; {catalog.unknown_hint(ref)}")
    else:
        shipped = catalog.find(ref, where)
    assert shipped is not None      # a `tabula:NAME` that names none fails in find
    return shipped.path.resolve()


def _resolved(path: Path, where) -> Path:
    """path.resolve(), a symbolic link loop (or a name the system refuses) being a
    located error at `where`."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError, ValueError):
        fail(f"cannot follow the path {excerpt(str(path), 120)}: a symbolic link loop or "
             "a name the system refuses", where)


def _copy(m: LMap) -> LMap:
    out = LMap(m)
    out.pos, out.key_pos, out.val_pos = m.pos, dict(m.key_pos), dict(m.val_pos)
    return out


def _empty(at: LMap, items: dict | None = None) -> LMap:
    """A new mapping (of `items`) placed where `at` is, its keys and values there too."""
    out = LMap(items or {})
    out.pos, out.key_pos, out.val_pos = at.pos, {}, {}
    return out


def _put(m: LMap, key, value, src: LMap, src_key) -> None:
    m[key] = value
    m.key_pos[key] = src.where_key(src_key)
    m.val_pos[key] = src.where(src_key)


def apply_variant(base: LMap, var: LMap) -> LMap:
    out = _copy(base)
    # game: keys given by the variant replace the base's (id, name, players, ...)
    game = _copy(base["game"])
    for k in var.get("game", LMap()):
        _put(game, k, var["game"][k], var["game"], k)
    _put(out, "game", game, var, "game")
    if "settle" in var:
        _settle(out, var)
    for action in ACTIONS:
        if action in var:
            getattr(_Change(out, var), action)(var[action])
    return out


def apply_reading(doc: LMap, reading, var: LMap | None, what: str) -> None:
    """A switchable ruling's reading applied to doc in place (its remove, override and
    add, as a variant's), a failure told as `what`'s (ruling NAME, reading VALUE)."""
    if not isinstance(reading, dict):
        return
    change = _Change(doc, var)
    for action in ACTIONS:
        if action in reading:
            try:
                getattr(change, action)(reading[action])
            except SpecError as e:
                e.message = f"{what}: {e.message}"
                raise


def _settle(doc: LMap, var: LMap) -> None:
    """settle: {ruling: reading}: the variant decides a switchable ruling of its base. The
    reading's changes are applied (before the variant's own remove, override and add),
    the ruling is no longer switchable, and it is kept under `settled:` with the reading
    chosen (what `tabula diff` and `tabula rulings` show)."""
    block = var["settle"]
    if not isinstance(block, LMap):
        fail("settle: maps a ruling of the base to the reading the variant plays",
             var.where("settle"), "settle: {R2_ties: shared}")
    rulings = _copy(doc["rulings"]) if isinstance(doc.get("rulings"), LMap) \
        else _empty(block)
    settled = _copy(doc["settled"]) if isinstance(doc.get("settled"), LMap) \
        else _empty(block)
    for rid in block:
        if rid not in rulings:
            fail(f"settle: the base has no switchable ruling '{rid}'", block.where_key(rid),
                 did_you_mean(str(rid), [str(r) for r in rulings]) or
                 "settle names a ruling of the base's rulings: section")
        ruling, name = rulings[rid], str(block[rid])
        readings = ruling.get("readings") or LMap()
        if name not in readings:
            fail(f"settle: ruling {rid} has no reading '{name}'", block.where(rid),
                 did_you_mean(name, [str(r) for r in readings]) or
                 f"its readings: {', '.join(str(r) for r in readings)}")
        reading = readings[name]
        apply_reading(doc, reading, var, f"settle: ruling {rid}, reading {name}")
        record = _empty(block, {
            "ruling": ruling.get("ruling", ""), "source": ruling.get("source", ""),
            "reading": name,
            "reading_source": reading.get("source", "") if isinstance(reading, LMap) else ""})
        _put(settled, rid, record, block, rid)
        del rulings[rid]
    doc["rulings"] = rulings
    _put(doc, "settled", settled, var, "settle")


class _Change:
    def __init__(self, doc: LMap, var: LMap | None):
        self.doc = doc
        self.var = var
        self._anchors: dict = {}       # step id -> the last step added after it

    # -- containers ---------------------------------------------------------------------
    # Any: a mapped kind's LMap, the tiebreak LList, or None; each caller knows which
    def _section(self, kind: str, create: bool = False) -> Any:
        if kind in MAPPED:
            if kind not in self.doc and create:
                empty = LMap()
                empty.pos, empty.key_pos, empty.val_pos = self.doc.pos, {}, {}
                self.doc[kind] = empty
            sec = self.doc.get(kind)
            if sec is not None and not isinstance(sec, LMap):
                return sec
            if sec is not None:
                sec = _copy(sec)
                self.doc[kind] = sec
            return sec
        scoring = self.doc.get("scoring")
        if scoring is None and create:
            scoring = LMap()
            scoring.pos, scoring.key_pos, scoring.val_pos = self.doc.pos, {}, {}
        if scoring is None:
            return None
        scoring = _copy(scoring)
        self.doc["scoring"] = scoring
        if kind == "points":
            pts = scoring.get("points")
            if pts is None and create:
                pts = LMap()
                pts.pos, pts.key_pos, pts.val_pos = scoring.pos, {}, {}
            if pts is not None:
                pts = _copy(pts)
                scoring["points"] = pts
            return pts
        tb = scoring.get("tiebreak")
        if tb is None and create:
            tb = LList()
            tb.pos, tb.item_pos = scoring.pos, []
        if tb is not None:
            new = LList(tb)
            new.pos, new.item_pos = tb.pos, list(tb.item_pos)
            scoring["tiebreak"] = new
            tb = new
        return tb

    def _kinds(self, block, what: str):
        if not isinstance(block, LMap):
            fail(f"{what}: give a mapping from kinds ({', '.join(KINDS)}) to entries",
                 getattr(block, "pos", Pos()))
        for kind in block:
            if kind not in KINDS:
                fail(f"{what}: '{kind}' is not something a variant can change by id",
                     block.where_key(kind), did_you_mean(str(kind), KINDS) or
                     f"one of: {', '.join(KINDS)}")
            yield str(kind), block[kind]

    # -- the three actions ----------------------------------------------------------------
    def override(self, block) -> None:
        for kind, entries in self._kinds(block, "override"):
            for key in entries:
                self._replace(kind, str(key), entries, key, must_exist=True)

    def add(self, block) -> None:
        for kind, entries in self._kinds(block, "add"):
            for key in entries:
                if kind == "steps":
                    self._add_step(str(key), entries, key)
                else:
                    self._replace(kind, str(key), entries, key, must_exist=False)

    def _add_step(self, sid: str, entries, src_key) -> None:
        """A new step beside one the base has: `after: ID` or `before: ID` names it; steps
        added after the same step keep the variant's order."""
        value, pos = entries[src_key], entries.where_key(src_key)
        if not isinstance(value, LMap):
            fail(f"add of step '{sid}': give the step as a mapping with after: or before: "
                 "the id of a step of the base", pos)
        places = [k for k in ("after", "before") if k in value]
        if len(places) != 1:
            fail(f"add of step '{sid}': say where it goes with one of after: or before: "
                 "(the id of a step it goes next to)", value.where_key(places[1])
                 if len(places) > 1 else pos)
        if "id" in value:
            fail(f"add of step '{sid}': its id is its key; leave out id:",
                 value.where_key("id"))
        where = places[0]
        target, tpos = str(value[where]), value.where(where)
        ids = self._step_ids()
        if sid in ids:
            fail(f"add of step '{sid}', which the base already has", pos,
                 "use override: to replace it")
        found = locate_step(self.doc, target)
        if found is None:
            fail(f"add of step '{sid}' {where} '{target}', a step the base does not have",
                 tpos, "a whole rule is not a step: name a step of it by its id"
                 if target in self.doc.get("rules", {}) else
                 did_you_mean(target, ids) or "steps are named by their id:")
        container, index = found
        if where == "after":
            anchor = self._anchors.get(target, target)
            index = next(i for i, x in enumerate(container)
                         if isinstance(x, dict) and str(x.get("id", "")) == anchor) + 1
            self._anchors[target] = sid
        item = LMap({"id": sid, **{k: v for k, v in value.items() if k != where}})
        item.pos, item.val_pos = value.pos, dict(value.val_pos)
        item.key_pos = {**value.key_pos, "id": pos}
        container.insert(index, item)
        container.item_pos.insert(index, pos)

    def remove(self, items) -> None:
        if not isinstance(items, LList):
            fail("remove: give a list of KIND.ID (rules.leader, steps.setup.market, ...)",
                 getattr(items, "pos", Pos()))
        for i, item in enumerate(items):
            text = str(item)
            kind, _, key = text.partition(".")
            pos = items.where(i)
            if kind not in KINDS or not key:
                fail(f"remove: '{text}' is not KIND.ID", pos,
                     f"KIND is one of: {', '.join(KINDS)}")
            self._drop(kind, key, pos)

    # -- helpers --------------------------------------------------------------------------
    def _replace(self, kind, key, entries, src_key, must_exist: bool) -> None:
        value = entries[src_key]
        pos = entries.where_key(src_key)
        if kind == "steps":
            if not self._replace_step(key, value):
                fail(f"override of step '{key}', which the base does not have",
                     pos, did_you_mean(key, self._step_ids()) or
                     "steps are named by their id:")
            return
        sec = self._section(kind, create=not must_exist)
        if kind == "tiebreak":
            idx = next((i for i, t in enumerate(sec or []) if str(t.get("id")) == key), None)
            if must_exist and idx is None:
                fail(f"override of tiebreak '{key}', which the base does not have",
                     pos, did_you_mean(key, [str(t.get("id")) for t in sec or []]))
            if not must_exist and idx is not None:
                fail(f"add of tiebreak '{key}', which the base already has", pos,
                     "use override:")
            item = _copy(value) if isinstance(value, LMap) else value
            if isinstance(item, LMap) and "id" not in item:
                item["id"] = key
            if idx is None:
                sec.append(item)
                sec.item_pos.append(entries.where(src_key))
            else:
                sec[idx] = item
                sec.item_pos[idx] = entries.where(src_key)
            return
        exists = sec is not None and key in sec
        if must_exist and not exists:
            fail(f"override of {kind} '{key}', which the base does not have", pos,
                 did_you_mean(key, sec or ()) or "use add: for a new entry")
        if not must_exist and exists:
            fail(f"add of {kind} '{key}', which the base already has", pos,
                 "use override: to replace it")
        _put(sec, key, value, entries, src_key)

    def _drop(self, kind, key, pos) -> None:
        if kind == "steps":
            if not self._replace_step(key, None):
                fail(f"remove of step '{key}', which the base does not have", pos,
                     did_you_mean(key, self._step_ids()))
            return
        sec = self._section(kind)
        if kind == "tiebreak":
            idx = next((i for i, t in enumerate(sec or []) if str(t.get("id")) == key), None)
            if idx is None:
                fail(f"remove of tiebreak '{key}', which the base does not have", pos)
            del sec[idx]
            del sec.item_pos[idx]
            return
        if sec is None or key not in sec:
            fail(f"remove of {kind} '{key}', which the base does not have", pos,
                 did_you_mean(key, sec or ()))
        del sec[key]

    def _step_ids(self) -> list:
        return [str(step["id"]) for step, _, _ in all_steps(self.doc)]

    def _step_roots(self):
        yield from _roots(self.doc)

    def _replace_step(self, sid: str, value) -> bool:
        """Replace (or with None remove) the step with id `sid`, wherever it is."""
        for parent, key in list(self._step_roots()):
            node = parent[key]
            if isinstance(node, dict) and str(node.get("id", "")) == sid:
                self._set_in(parent, key, value, sid)
                return True
            found = find_step(node, sid)
            if found is not None:
                container, index = found
                if value is None:
                    del container[index]
                    del container.item_pos[index]
                else:
                    item = _with_id(value, sid)
                    container[index] = item
                    container.item_pos[index] = getattr(value, "pos", container.item_pos[index])
                return True
        return False

    def _set_in(self, parent, key, value, sid) -> None:
        if value is None:
            del parent[key]
        else:
            parent[key] = _with_id(value, sid)


def _with_id(value, sid):
    if isinstance(value, LMap) and "id" not in value:
        value = _copy(value)
        value["id"] = sid
    return value


_NESTED = ("do", "then", "else")


def walk_steps(node, depth: int = 0):
    """(step, container, index) for every step with an id under node."""
    if depth > 64:
        return
    if isinstance(node, list):
        for i, item in enumerate(node):
            if isinstance(item, dict) and "id" in item:
                yield item, node, i
            yield from walk_steps(item, depth + 1)
    elif isinstance(node, dict):
        if "id" in node and depth == 0:
            yield node, None, None
        for k in _NESTED:
            if k in node:
                yield from walk_steps(node[k], depth + 1)
        if isinstance(node.get("cases"), dict):
            for body in node["cases"].values():
                yield from walk_steps(body, depth + 1)
        if isinstance(node.get("choose_one"), list):
            yield from walk_steps(node["choose_one"], depth + 1)


def find_step(node, sid):
    for step, container, index in walk_steps(node):
        if str(step.get("id")) == sid and container is not None:
            return container, index
    return None


def _roots(doc):
    """(parent, key) of every place steps live in a spec: setup, play, each rule."""
    for key in ("setup", "play"):
        if key in doc:
            yield doc, key
    for name in doc.get("rules", {}):
        yield doc["rules"], name


def all_steps(doc):
    """(step, container, index) for every step with an id of a spec document, wherever
    it is (set-up, play, rules), as walk_steps gives them."""
    for parent, key in _roots(doc):
        yield from walk_steps(parent[key])


def locate_step(doc, sid):
    """(container, index) of the step `sid` in a spec document, or None."""
    for parent, key in _roots(doc):
        found = find_step(parent[key], sid)
        if found is not None:
            return found
    return None
