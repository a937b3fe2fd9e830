"""Each change of a variant measured on its own (`tabula diff A B --simulate N --by-change`).

Input: two Specs, A (the base) and B (the variant), and their rule diff (diff.diff_specs).
Output: toggles, one per change of the diff's summary, each a small variant of A that makes
that change alone (a settled ruling, an entry renamed, changed, added or removed, a step
added to or removed from a rule); and, played on the same seeds and bots as A, what each
toggle does to the game metrics, with paired intervals and Holm's correction over every
toggle and metric, and an interaction line: the whole variant's effect against the sum of
the single effects.

A toggle is written as a variant file of A (`extends:` A, with `settle:`, `override:`,
`add:` and `remove:`, docs/language.md 12) and loaded like any spec, so that it is checked
as the user's own variants are. Changes that cannot be applied one without the other are
one toggle: a change whose new text names an entry another change adds (a rule that calls
a new function), or whose old text names an entry another removes (a step that reads a
removed zone), goes with it, transitively; a toggle that still does not load or compile is
reported with its error and not played. A step of the variant added to a rule of A is its
own change when it has a neighbour with an id in A to be placed by (`after:`/`before:`);
otherwise it stays in its rule's change. A top-level step without an id cannot be named by
a variant and is reported, not measured.

Each toggle also has a mirror: a variant of B (`extends:` B) that undoes its changes, each
change's inverse (_Atom.undo: B's entry overridden with A's text, an added entry removed,
a removed one added back, a step put back next to a neighbour B has), played on B's seeds
and compared with B's run (B - mirror: what the change does, seen from B). The inverses
are grouped as the changes are (_link), from B's side: changes that name each other's
entries there are undone together (mirror_also, mirror_grouped). Toggles whose mirrors
undo the same changes share one (mirror_key). A row whose two effects disagree (result:
`disagree`) shows an interaction of that change with the others.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..lang.loader import plain
from ..lang.variants import all_steps, find_step, locate_step
from .compare import _game_metrics, compare_records, correct, paired
from .diff import IDENTITY, NAMING, _canonical, _inner_steps, entries, summary_rows

__all__ = ["HEADLINE", "MIRROR_COST", "Toggle", "format_by_change", "mirror_of", "result",
           "row_of", "toggles", "toggles_of", "variant_text", "write_toggles"]

# the game metrics a change is measured on (compare._game_metrics' names)
HEADLINE = ("first-player advantage", "win rate, seat 0", "score, mean of seats",
            "winning margin (best - second)", "decisions per game")

_NAME = re.compile(r"[A-Za-z_]\w*")
VALUED = ("enums", "options")      # entries whose values are names (enum values, choices)


@dataclass
class _Atom:
    what: str                       # the summary line's change ("changed rules.claimed")
    words: str
    ops: dict                       # {settle, override, add, remove} in a variant's form
    mentions_new: set = field(default_factory=set)
    mentions_old: set = field(default_factory=set)
    adds: set = field(default_factory=set)
    removes: set = field(default_factory=set)
    error: str = ""                 # why it cannot be a toggle ("" if it can)
    writes: set = field(default_factory=set)     # the entries it changes (KIND.ID)
    narrows: bool = False           # its `removes` are values taken from an entry it keeps
    undo: dict = field(default_factory=dict)     # its inverse, ops on B (the mirror's)
    undo_error: str = ""            # why it cannot be undone alone on B ("" if it can)

    def inverse(self) -> _Atom:
        """The change as B undoes it: what it names and takes, seen from B's side (its
        new text is A's, what it adds is what it removed), for the mirror's grouping."""
        return _Atom(self.what, self.words, self.undo, self.mentions_old, self.mentions_new,
                     self.removes, self.adds, self.error or self.undo_error,
                     self.writes | _written(self.undo), self.narrows)


@dataclass
class Toggle:
    """One change (or a group of changes that go together) as a variant of A."""
    name: str                       # the first change's line; "+ N more" for a group
    changes: list                   # the summary lines it makes
    words: list
    variant: dict                   # the variant document (without extends: and game:)
    grouped: str = ""               # why the changes are one toggle ("" for one change)
    error: str = ""                 # why it could not be played
    also: list = field(default_factory=list)   # changes of other toggles it needs
    # its mirror: a variant of B that undoes its changes (with mirror_also, the changes of
    # other toggles that must be undone with them, and why: mirror_grouped)
    mirror: dict = field(default_factory=dict)
    mirror_also: list = field(default_factory=list)
    mirror_grouped: str = ""
    mirror_error: str = ""          # why the mirror could not be played
    mirror_key: tuple = ()          # the changes it undoes (toggles with one key share it)

    def to_dict(self) -> dict:
        return {"name": self.name, "changes": self.changes, "also": self.also,
                "grouped": self.grouped, "error": self.error}


def _names(value) -> set:
    """The names a text uses: identifiers in its strings and the keys of its tables (a
    data table keyed by an enum's values names them), naming fields (source, ruling,
    label, ...) apart."""
    out: set = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in NAMING:
                out |= _names(v)
            if isinstance(k, str) and k not in NAMING:
                out |= set(_NAME.findall(k))
    elif isinstance(value, list):
        for v in value:
            out |= _names(v)
    elif isinstance(value, str):
        out |= set(_NAME.findall(value))
    return out


def _short(eid: str) -> str:
    return eid.split(".", 1)[1] if "." in eid else eid


def _kind_key(eid: str) -> tuple:
    kind, _, key = eid.partition(".")
    return kind, key


def _placement(doc_a, doc_b, sid: str) -> dict | None:
    """Where step `sid` of B goes in A: {after: ID} (its nearest earlier sibling with an
    id that A has too), else {before: ID} (the nearest later one), else None."""
    ids_a = {str(s["id"]) for s, _, _ in all_steps(doc_a)}
    found = locate_step(doc_b, sid)
    if found is None:
        return None
    container, index = found
    for j in range(index - 1, -1, -1):
        x = container[j]
        if isinstance(x, dict) and str(x.get("id", "")) in ids_a:
            return {"after": str(x["id"])}
    for j in range(index + 1, len(container)):
        x = container[j]
        if isinstance(x, dict) and str(x.get("id", "")) in ids_a:
            return {"before": str(x["id"])}
    return None


def _step_of(doc, sid: str):
    """The step `sid` of a spec document (one the diff found there)."""
    return next(s for s, _, _ in all_steps(doc) if str(s.get("id")) == sid)


def _op(ops: dict, action: str, eid: str, value=None) -> None:
    kind, key = _kind_key(eid)
    if action == "remove":
        ops.setdefault("remove", []).append(eid)
    else:
        ops.setdefault(action, {}).setdefault(kind, {})[key] = value


def _step_added(ops: dict, sid: str, value: dict, place: dict) -> None:
    body = {k: v for k, v in value.items() if k != "id"}
    ops.setdefault("add", {}).setdefault("steps", {})[sid] = {**place, **body}


_PART = re.compile(r"(\w+)\[(\d+)\]$")


def _restore(entry, path: str, step) -> bool:
    """Put a step of A's rule back into (a copy of) B's rule at its place: `path` is
    where the diff found it ("choose_one[3]", the last index in A's numbering, the
    others in B's). False if the path does not lead to a list."""
    node = entry
    parts = path.split(".")
    for part in parts[:-1]:
        m = _PART.match(part)
        if m:
            node = node.get(m.group(1)) if isinstance(node, dict) else None
            if not isinstance(node, list) or int(m.group(2)) > len(node):
                return False
            node = node[int(m.group(2)) - 1]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    m = _PART.match(parts[-1])
    if not m or not isinstance(node, dict) or not isinstance(node.get(m.group(1)), list):
        return False
    container = node[m.group(1)]
    container.insert(min(int(m.group(2)) - 1, len(container)), step)
    return True


def _unnamed(atom, what: str, *ids: str) -> bool:
    """Is one of the entries a top-level step without an id (named by its place, which a
    variant cannot name)? Then the change is an atom with that error."""
    if any("[" in i for i in ids):
        atom(what, {}, error="a step without an id cannot be named by a variant")
        return True
    return False


def _put_back(entry, sid: str, step, place: dict, anchors: dict) -> bool:
    """Insert `step` (B's step `sid`, with its id) into (a copy of) A's rule `entry` next
    to the step `place` names ({after: ID} or {before: ID}, _placement's), as a variant's
    `add:` would; steps put after the same one keep their order (`anchors`). False if the
    rule has no such step."""
    where, target = next(iter(place.items()))
    found = find_step(entry, anchors.get(target, target) if where == "after" else target)
    if found is None:
        return False
    container, index = found
    container.insert(index + 1 if where == "after" else index, step)
    if where == "after":
        anchors[target] = sid
    return True


def _tiebreak_undo(doc_a, doc_b, eid: str, value) -> dict:
    """B's ops that put A's tie-breaker `eid` back at its place: `add:` appends, so the
    tie-breakers B has after it in A's order are taken out and added again after it."""
    ids_a = [str(t.get("id", "")) for t in doc_a.get("scoring", {}).get("tiebreak", [])]
    later = set(ids_a[ids_a.index(_short(eid)) + 1:]) if _short(eid) in ids_a else set()
    after = [t for t in doc_b.get("scoring", {}).get("tiebreak", [])
             if str(t.get("id", "")) in later]
    ops: dict = {"remove": [f"tiebreak.{t['id']}" for t in after]} if after else {}
    _op(ops, "add", eid, value)
    for t in after:
        _op(ops, "add", f"tiebreak.{t['id']}", plain(t))
    return ops


def _atoms(doc_a, doc_b, d: dict) -> list:
    """The diff's changes, each with its ops on A (a toggle's) and its inverse on B (the
    mirror's: B with that change taken back to A's text)."""
    ea, eb = entries(doc_a), entries(doc_b)
    words = dict(summary_rows(d))
    atoms = []

    def atom(what: str, ops: dict, new=None, old=None, adds=(), removes=(), error="",
             undo=None, undo_error=""):
        atoms.append(_Atom(what, words.get(what, ""), ops, _names(new), _names(old),
                           set(adds), set(removes), error, _written(ops),
                           undo=undo or {}, undo_error=undo_error))

    def step_back(ops: dict, sid: str, value) -> str:
        """A's step `sid` added to B next to its neighbour there; the error if none."""
        place = _placement(doc_b, doc_a, sid)
        if place is None:
            return (f"step {sid} cannot be put back alone: no step beside it in A has an "
                    "id B has too, to put it after or before")
        _step_added(ops, sid, value, place)
        return ""

    for item in d.get("settled", []):
        rid, reading = _short(item["id"]), item["b"]["reading"]
        what = f"settled ruling {rid}: reading {reading}"
        # undone by the entries its reading wrote, each a change of the diff that goes
        # with it (they write the same entries): B keeps the ruling settled, on A's text
        atom(what, {"settle": {rid: reading}})
        changes = doc_a.get("rulings", {}).get(rid, {}).get("readings", {}).get(reading, {})
        atoms[-1].writes = _written(changes)
    for item in d.get("renamed", []):
        what = f"renamed {item['was']} -> {item['id']}"
        ops: dict = {}
        undo: dict = {}
        if _unnamed(atom, what, item["id"], item["was"]):
            continue
        _op(ops, "remove", item["was"])
        _op(undo, "remove", item["id"])
        undo_error = ""
        if item["kind"] == "steps":
            place = _placement(doc_a, doc_b, _short(item["id"]))
            if place is None:
                atom(what, {}, error="no step of the base to place it next to")
                continue
            _step_added(ops, _short(item["id"]), eb[item["id"]], place)
            undo_error = step_back(undo, _short(item["was"]), ea[item["was"]])
        else:
            _op(ops, "add", item["id"], eb[item["id"]])
            _op(undo, "add", item["was"], ea[item["was"]])
        atom(what, ops, new=eb[item["id"]], old=ea[item["was"]], adds=[_short(item["id"])],
             removes=[_short(item["was"])], undo=undo, undo_error=undo_error)
    for item in d["changed"]:
        eid = item["id"]
        if eid in IDENTITY:
            continue
        what = f"changed {eid}"
        if _unnamed(atom, what, eid):
            continue
        kind, key = _kind_key(eid)
        if kind == "game":
            atom(what, {"game": {key: eb[eid]}}, new=eb[eid], old=ea[eid],
                 undo={"game": {key: ea[eid]}})
            continue
        back = {"override": {kind: {key: ea[eid]}}}
        if kind in VALUED:
            # the values an enum or an option gains are names other entries may use (a
            # data table keyed by them); those it loses, names their readers lose
            va, vb = _names(ea[eid]), _names(eb[eid])
            atom(what, {"override": {kind: {key: eb[eid]}}}, new=eb[eid], old=ea[eid],
                 adds=vb - va, removes=va - vb, undo=back)
            atoms[-1].narrows = True
            continue
        if kind == "steps":
            atom(what, {"override": {"steps": {key: eb[eid]}}}, new=eb[eid], old=ea[eid],
                 undo=back)
            continue
        inner, rest = _inner_steps(item)
        kept = copy.deepcopy(eb[eid])
        old_rest = copy.deepcopy(ea[eid])
        # the mirror of the rule's other changes: A's rule with the steps that are changes
        # of their own as B has them
        kept_a = copy.deepcopy(ea[eid])
        anchors: dict = {}
        rest_error = ""
        for side, sid, _step in inner:
            line = f"{side} step {sid} ({'in' if side == 'added' else 'from'} {eid})"
            if side == "added":
                place = _placement(doc_a, doc_b, sid)
                if place is None:
                    rest.append(None)          # it stays in the rule's own change
                    continue
                raw = _step_of(doc_b, sid)
                ops = {}
                _step_added(ops, sid, plain(raw), place)
                atom(line, ops, new=plain(raw), undo={"remove": [f"steps.{sid}"]})
                found = find_step(kept, sid) if not (isinstance(kept, dict) and
                                                       kept.get("id") == sid) else None
                if found is not None:
                    del found[0][found[1]]
                if not _put_back(kept_a, sid, copy.deepcopy(plain(raw)), place, anchors):
                    rest_error = f"step {sid} cannot be put back in A's {eid} alone"
            else:
                path = next(f["path"] for f in item["fields"]
                            if f["b"] is None and isinstance(f["a"], dict)
                            and str(f["a"].get("id", "")) == sid)
                raw = _step_of(doc_a, sid)
                if not _restore(kept, path, copy.deepcopy(plain(raw))):
                    rest.append(None)
                    continue
                undo = {}
                undo_error = step_back(undo, sid, plain(raw))
                atom(line, {"remove": [f"steps.{sid}"]}, old=plain(raw), undo=undo,
                     undo_error=undo_error)
                found = find_step(old_rest, sid)
                if found is not None:
                    del found[0][found[1]]
                found = find_step(kept_a, sid)
                if found is not None:
                    del found[0][found[1]]
        if rest and _canonical(kept) != _canonical(ea[eid]):
            atom(what, {"override": {kind: {key: kept}}}, new=kept, old=old_rest,
                 undo={"override": {kind: {key: kept_a}}}, undo_error=rest_error)
    for item in d["added"]:
        eid = item["id"]
        what = f"added {eid}"
        if _unnamed(atom, what, eid):
            continue
        ops = {}
        if item["kind"] == "steps":
            place = _placement(doc_a, doc_b, _short(eid))
            if place is None:
                atom(what, {}, error="no step of the base to place it next to")
                continue
            _step_added(ops, _short(eid), eb[eid], place)
        else:
            _op(ops, "add", eid, eb[eid])
        atom(what, ops, new=eb[eid], adds=[_short(eid)], undo={"remove": [eid]})
    for item in d["removed"]:
        eid = item["id"]
        what = f"removed {eid}"
        if _unnamed(atom, what, eid):
            continue
        undo = {}
        undo_error = ""
        if item["kind"] == "steps":
            undo_error = step_back(undo, _short(eid), ea[eid])
        elif item["kind"] == "tiebreak":
            undo = _tiebreak_undo(doc_a, doc_b, eid, ea[eid])
        else:
            _op(undo, "add", eid, ea[eid])
        atom(what, {"remove": [eid]}, old=ea[eid], removes=[_short(eid)], undo=undo,
             undo_error=undo_error)
    return atoms


def _written(changes) -> set:
    """The entries (KIND.ID) a block of changes (a reading's, a variant's) writes."""
    out = set()
    for action in ("override", "add"):
        for kind, items in (changes.get(action) or {}).items():
            out |= {f"{kind}.{k}" for k in items or {}}
    out |= {str(x) for x in changes.get("remove") or []}
    return out


def _merge(a: dict, b: dict) -> dict:
    out = copy.deepcopy(a)
    for action, value in b.items():
        if isinstance(value, list):
            out.setdefault(action, []).extend(value)
        else:
            for kind, items in value.items():
                if action in ("settle", "game"):
                    out.setdefault(action, {})[kind] = items
                else:
                    out.setdefault(action, {}).setdefault(kind, {}).update(items)
    return out


def _group_name(atoms: list, members: list) -> str:
    first = atoms[members[0]].what
    return first if len(members) == 1 else f"{first} + {len(members) - 1} more"


def _link(atoms: list) -> tuple:
    """The changes that go together: (root, edges, needs), root[i] the first change of
    i's group. Changes are one group when one's new text uses an entry another adds, its
    old text uses an entry another removes, or it writes an entry another writes; a
    change that narrows an entry (an enum that loses values) is not grouped with those
    whose old text uses what it takes away, but needs them (needs: (i, j, names), i
    needs j's changes). edges: (i, j, names shared)."""
    parent = list(range(len(atoms)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    edges = []
    needs = []
    for i, x in enumerate(atoms):
        for j, y in enumerate(atoms):
            if i == j or x.error or y.error:
                continue
            if y.narrows and x.mentions_old & y.removes:
                needs.append((j, i, x.mentions_old & y.removes))
            shared = (x.mentions_new & y.adds) or \
                (x.mentions_old & y.removes if not y.narrows else set()) or \
                {_short(e) for e in x.writes & y.writes}
            if shared:
                edges.append((i, j, shared))
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)
    return [find(i) for i in range(len(atoms))], edges, needs


def _shared(edges: list, root: list, roots: set) -> str:
    names = sorted(set().union(*(n for i, _, n in edges if root[i] in roots)))
    return ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")


def toggles(doc_a, doc_b, d: dict) -> list:
    """The changes of the diff `d` (of the documents doc_a and doc_b) as toggles, in the
    summary's order (_link: the changes that go together are one toggle). A change that
    narrows an entry needs the changes whose old text uses what it takes away: its toggle
    makes them too, and they stay a toggle of their own. Each toggle has its mirror
    (_mirror): B with the toggle's changes undone."""
    atoms = _atoms(doc_a, doc_b, d)
    root, edges, needs = _link(atoms)
    groups: dict = {}
    for i in range(len(atoms)):
        groups.setdefault(root[i], []).append(i)
    # the mirror's groups: the inverses linked the same way, without the exception for a
    # narrowing (undoing a change that took values away gives them back; undoing one
    # that added values takes them from what B's rules read: either way together)
    inverse = [a.inverse() for a in atoms]
    for a in inverse:
        a.narrows = False
    mirror_links = _link(inverse)
    out = []
    for r, members in sorted(groups.items()):
        extra = sorted({root[j] for i, j, _ in needs if root[i] == r} - {r})
        ops: dict = {}
        for k in members + [k for g in extra for k in groups[g]]:
            ops = _merge(ops, atoms[k].ops)
        grouped = "" if len(members) == 1 else (
            f"they name each other's entries ({_shared(edges, root, {r})}): one cannot be "
            "applied without the other")
        if extra:
            taken = sorted(set().union(*(n for i, j, n in needs if root[i] == r)))
            grouped += ("; " if grouped else "") + (
                f"it takes away {', '.join(taken)}, which the old rules of "
                + ", ".join(f"'{_group_name(atoms, groups[g])}'" for g in extra)
                + " use: their changes are made with it")
        t = Toggle(
            name=_group_name(atoms, members),
            changes=[atoms[k].what for k in members], words=[atoms[k].words for k in members],
            variant=ops, grouped=grouped,
            also=[atoms[k].what for g in extra for k in groups[g]],
            error="; ".join(atoms[k].error for k in members if atoms[k].error))
        _mirror(t, members, inverse, mirror_links)
        out.append(t)
    return out


def _mirror(t: Toggle, members: list, inverse: list, links: tuple) -> None:
    """Toggle t's mirror: B with t's changes (`members`, atoms) taken back to A's text,
    and with them the changes they go together with on B's side (`links`: _link of the
    `inverse` atoms), named in mirror_also and said in mirror_grouped."""
    root, edges, _ = links
    roots = {root[k] for k in members}
    keep = [k for k in range(len(inverse)) if root[k] in roots]
    ops: dict = {}
    for k in keep:
        ops = _merge(ops, inverse[k].ops)
    t.mirror = ops
    t.mirror_key = tuple(keep)
    t.mirror_also = [inverse[k].what for k in keep if k not in members]
    if t.mirror_also:
        t.mirror_grouped = (f"on B they name each other's entries ({_shared(edges, root, roots)})"
                            ": they are undone together")
    t.mirror_error = "; ".join(dict.fromkeys(inverse[k].error for k in keep
                                             if inverse[k].error))


def toggles_of(d: dict, docs: tuple) -> list:
    """toggles() of the diff `d` of the two (located) documents `docs`."""
    return toggles(plain(docs[0]), plain(docs[1]), d)


def variant_text(base_path: Path, toggle: Toggle, index: int, mirror: bool = False) -> str:
    """The toggle as a variant file of `base_path` (A's), or with mirror its mirror (a
    variant of B's path)."""
    ops = toggle.mirror if mirror else toggle.variant
    gid, what = (f"by_change_undo_{index}", "undone on B") if mirror else \
        (f"by_change_{index}", "on A")
    doc = {"extends": str(base_path),
           "game": {"id": gid, "name": f"by change {index} ({what}): {toggle.name}",
                    **ops.get("game", {})}}
    for action in ("settle", "remove", "override", "add"):
        if action in ops:
            doc[action] = ops[action]
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def write_toggles(base_path, items: list, folder: Path, mirror: bool = False) -> list:
    """The path of each toggle's variant file of `base_path`, written in `folder` (None
    for a toggle with an error); with mirror, of each toggle's mirror (base_path: B's).
    Toggles that share a mirror (mirror_key) share its file."""
    out = []
    written: dict = {}
    for i, t in enumerate(items):
        if t.mirror_error if mirror else t.error:
            out.append(None)
            continue
        if mirror and t.mirror_key in written:
            out.append(written[t.mirror_key])
            continue
        path = folder / (f"undo-{i + 1}.yaml" if mirror else f"change-{i + 1}.yaml")
        path.write_text(variant_text(Path(base_path).resolve(), t, i + 1, mirror))
        out.append(path)
        if mirror:
            written[t.mirror_key] = path
    return out


def row_of(t: Toggle, error: str = "", run=None, run_a=None) -> dict:
    """A toggle's row of the table: its changes, and with its run (a Summary) compared
    with A's (`run_a`) its HEADLINE metrics (Metrics, corrected by result())."""
    row: dict = {**t.to_dict(), "metrics": []}
    if error:
        row["error"] = error
    if run is not None:
        row.update(_measured(run_a, run, run.failed))
    return row


def mirror_of(t: Toggle, error: str = "", run=None, run_b=None, same_as: int = 0) -> dict:
    """A toggle's mirror, its row's `mirror`: the changes of other toggles it undoes too
    (`also`) and why (`grouped`), and with its run compared with B's (`run_b`) the
    HEADLINE metrics of B - mirror: what the change does, seen from B (the removal's
    effect negated). same_as: the row (from 1) whose mirror this is too, measured there."""
    out: dict = {"also": t.mirror_also, "grouped": t.mirror_grouped,
                 "error": error or t.mirror_error, "same_as": same_as, "metrics": []}
    if run is not None:
        out.update(_measured(run, run_b, run.failed))
    return out


def _measured(run_x, run_y, failed: int) -> dict:
    """A pair of runs compared on the headline metrics, y - x; `failed`: the games of the
    toggle's (or mirror's) run that failed."""
    metrics, _, _, pairs = compare_records(run_x.records, run_y.records, [], [])
    return {"pairs": pairs, "failed": failed,
            "_metrics": [m for m in metrics if m.name in HEADLINE],
            "_records": (run_x.records, run_y.records)}


def _values(records: list) -> dict:
    """{game index: {headline metric: value}} of a run's finished games."""
    out = {}
    for rec in records:
        if "error" not in rec:
            ms = _game_metrics(rec)
            out[rec["index"]] = {n: v[0] if isinstance(v, tuple) else v
                                 for n, v in ms.items() if n in HEADLINE}
    return out


def _interaction(name: str, whole, a: dict, b: dict, effects: list) -> dict:
    """The interaction of a headline metric, game by game (a, b: A's and B's run's
    _values; `effects`: pairs (x, y) of them, a change's effect being y - x): in each game
    i that A, B and every run of `effects` finished, (B_i - A_i) - sum of (y_i - x_i); its
    mean with Student's t interval over those games (the same seeds throughout)."""
    values = []
    for i, row_a in a.items():
        rows = [b.get(i)] + [r.get(i) for pair in effects for r in pair]
        if name not in row_a or any(r is None or name not in r for r in rows):
            continue
        va = row_a[name]
        values.append((b[i][name] - va) - sum(y[i][name] - x[i][name] for x, y in effects))
    m = paired(name, [0.0] * len(values), values)
    total = None if whole is None or m.diff is None else whole - m.diff
    return {"metric": name, "whole": whole, "sum_of_changes": total,
            "interaction": m.diff, "low": m.low, "high": m.high, "games": m.n}


def _disagree(on_a: list, from_b: list) -> list:
    """The metrics on which a change's two effects disagree: their 95% intervals do not
    overlap, or both are significant (after Holm) with opposite signs."""
    out = []
    by = {m["name"]: m for m in from_b}
    for m in on_a:
        n = by.get(m["name"])
        if n is None or m["diff"] is None or n["diff"] is None:
            continue
        apart = None not in (m["low"], m["high"], n["low"], n["high"]) and \
            (m["high"] < n["low"] or n["high"] < m["low"])
        opposite = m["significant"] and n["significant"] and m["diff"] * n["diff"] < 0
        if apart or opposite:
            out.append(m["name"])
    return out


def result(rows: list, whole: list, run_a=None, run_b=None) -> dict:
    """The rows (row_of, each with its `mirror`: mirror_of, unless the mirrors were not
    played) with Holm's correction over every test of the table (each toggle's and each
    mirror's, a mirror shared by rows once), the metrics on which a row's two effects
    disagree, and the interaction lines against the whole variant's metrics `whole`
    (compare_records of A against B): from A's side (the toggles' effects) and from B's
    (the mirrors'), game by game with an interval when the two runs are given (Summaries
    with records): {by_change, interaction, interaction_mirror, correction}."""
    mirrors = [row["mirror"] for row in rows if "mirror" in row]
    family = [m for x in rows + mirrors for m in x.get("_metrics", [])]
    correct(family, "by_change")
    for x in rows + mirrors:
        x["metrics"] = [m.to_dict() for m in x.pop("_metrics", [])]
    for row in rows:
        mirror = row.get("mirror")
        if mirror is None:
            continue
        if mirror["same_as"]:
            first = rows[mirror["same_as"] - 1]["mirror"]
            mirror.update({k: first[k] for k in ("metrics", "pairs", "failed") if k in first})
        row["disagree"] = _disagree(row["metrics"], mirror["metrics"])
    whole_by = {m.name: m for m in whole}
    forward = [x.pop("_records") for x in rows if "_records" in x]
    backward = [x.pop("_records") for x in mirrors if "_records" in x]
    by_game = None if run_a is None or run_b is None else \
        (_values(run_a.records), _values(run_b.records))
    sides = [("interaction", [(by_game[0], _values(t)) for _, t in forward]
              if by_game else [])]
    if mirrors:
        sides.append(("interaction_mirror",
                      [(_values(m), by_game[1]) for m, _ in backward] if by_game else []))
    out: dict = {"by_change": rows}
    for key, effects in sides:
        lines = []
        for name in HEADLINE:
            if name not in whole_by:
                continue
            w = whole_by[name].diff
            if by_game is not None:
                lines.append(_interaction(name, w, *by_game, effects))
                continue
            measured = rows if key == "interaction" else \
                [x for x in mirrors if not x["same_as"]]
            singles = [m["diff"] for x in measured for m in x["metrics"]
                       if m["name"] == name and m["diff"] is not None]
            total = sum(singles)
            lines.append({"metric": name, "whole": w, "sum_of_changes": total,
                          "interaction": None if w is None else w - total})
        out[key] = lines
    out["correction"] = {"method": "holm", "family": len(family)}
    return out


def _effect(m: dict | None) -> str:
    """A difference with its interval and Holm's mark, as the table shows it."""
    if m is None or m["diff"] is None:
        return "-"
    lo, hi = m["low"], m["high"]
    ci = f" [{lo:+.3f}, {hi:+.3f}]" if lo is not None and hi is not None else ""
    return f"{m['diff']:+.3f}{ci}" + (" *" if m["significant"] else "")


def _interaction_lines(lines: list, title: str) -> list:
    out = [f"  {title}:"]
    for x in lines:
        if x["whole"] is None or x["interaction"] is None:
            continue
        ci = f" [{x['low']:+.3f}, {x['high']:+.3f}]" if x.get("low") is not None else ""
        out.append(f"     {x['metric']:<32} whole {x['whole']:+.3f}, sum "
                   f"{x['sum_of_changes']:+.3f}, interaction {x['interaction']:+.3f}{ci}")
    return out if len(out) > 1 else []


MIRROR_COST = ("each change is also removed alone from B, which doubles the toggles' "
               "games; --no-mirror plays the toggles on A only")


def format_by_change(result: dict) -> str:
    """The by-change table as text: each toggle, its changes, and its effect on each
    headline metric (B - A with a 95% interval; * where significant after Holm), alone on
    A and, where the mirrors were played, removed alone from B (B - mirror), with the
    metrics on which the two disagree."""
    if not result["by_change"]:
        return "by change: the rule diff has no change to measure"
    both = any("mirror" in row for row in result["by_change"])
    family = result["correction"]["family"]
    if both:
        lines = ["by change (each change applied alone to A, and removed alone from B: "
                 f"paired games; * significant after Holm over {family} tests)",
                 "  'removed alone from B' is B - (B with the change undone): what the "
                 "change does, seen from B;",
                 "  'disagree': the two effects' intervals do not overlap, or both are "
                 "significant with opposite signs: the change interacts with the others",
                 f"  ({MIRROR_COST})",
                 f"     {'':<32} {'alone on A':<28} removed alone from B"]
    else:
        lines = ["by change (each change applied alone to A, paired games; * significant "
                 f"after Holm over {family} tests):"]
    for i, row in enumerate(result["by_change"], 1):
        lines.append(f"  {i}. {row['name']}")
        if row["grouped"]:
            lines.append(f"     one toggle: {row['grouped']}")
            lines += [f"       - {c}" for c in row["changes"]]
            lines += [f"       + {c} (needed)" for c in row["also"]]
        mirror = row.get("mirror")
        if mirror is not None:
            if mirror["same_as"]:
                lines.append(f"     removed from B together with change {mirror['same_as']}"
                             f" ({mirror['grouped']})")
            elif mirror["also"]:
                lines.append(f"     removed from B with {len(mirror['also'])} more: "
                             f"{mirror['grouped']}")
                lines += [f"       + {c} (undone too)" for c in mirror["also"]]
            if mirror["error"]:
                lines.append(f"     removed from B: not measured: {mirror['error']}")
        if row.get("error"):
            lines.append(f"     not measured: {row['error']}")
            if mirror is None or mirror["error"]:
                continue
        by_b = {m["name"]: m for m in (mirror or {}).get("metrics", [])}
        names = list(dict.fromkeys([m["name"] for m in row["metrics"]] + list(by_b)))
        by_a = {m["name"]: m for m in row["metrics"]}
        for name in names:
            a, b = by_a.get(name), by_b.get(name)
            if (a is None or a["diff"] is None) and (b is None or b["diff"] is None):
                continue
            if not both:
                lines.append(f"     {name:<32} {_effect(a)}")
                continue
            flag = "  disagree" if name in row.get("disagree", ()) else ""
            lines.append(f"     {name:<32} {_effect(a):<28} {_effect(b):<28}{flag}".rstrip())
    if result.get("interaction"):
        lines += _interaction_lines(result["interaction"], "interaction (the whole "
                                    "variant's effect - the sum of the single effects)")
    if result.get("interaction_mirror"):
        lines += _interaction_lines(result["interaction_mirror"], "interaction from B "
                                    "(the whole variant's effect - the sum of the removals'"
                                    " effects)")
    return "\n".join(lines)
