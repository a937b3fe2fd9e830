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

__all__ = ["HEADLINE", "Toggle", "format_by_change", "result", "row_of", "toggles",
           "toggles_of", "variant_text", "write_toggles"]

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


def _atoms(doc_a, doc_b, d: dict) -> list:
    ea, eb = entries(doc_a), entries(doc_b)
    words = dict(summary_rows(d))
    atoms = []

    def atom(what: str, ops: dict, new=None, old=None, adds=(), removes=(), error=""):
        atoms.append(_Atom(what, words.get(what, ""), ops, _names(new), _names(old),
                           set(adds), set(removes), error, _written(ops)))

    for item in d.get("settled", []):
        rid, reading = _short(item["id"]), item["b"]["reading"]
        what = f"settled ruling {rid}: reading {reading}"
        atom(what, {"settle": {rid: reading}})
        changes = doc_a.get("rulings", {}).get(rid, {}).get("readings", {}).get(reading, {})
        atoms[-1].writes = _written(changes)
    for item in d.get("renamed", []):
        what = f"renamed {item['was']} -> {item['id']}"
        ops: dict = {}
        if _unnamed(atom, what, item["id"], item["was"]):
            continue
        _op(ops, "remove", item["was"])
        if item["kind"] == "steps":
            place = _placement(doc_a, doc_b, _short(item["id"]))
            if place is None:
                atom(what, {}, error="no step of the base to place it next to")
                continue
            _step_added(ops, _short(item["id"]), eb[item["id"]], place)
        else:
            _op(ops, "add", item["id"], eb[item["id"]])
        atom(what, ops, new=eb[item["id"]], old=ea[item["was"]], adds=[_short(item["id"])],
             removes=[_short(item["was"])])
    for item in d["changed"]:
        eid = item["id"]
        if eid in IDENTITY:
            continue
        what = f"changed {eid}"
        if _unnamed(atom, what, eid):
            continue
        kind, key = _kind_key(eid)
        if kind == "game":
            atom(what, {"game": {key: eb[eid]}}, new=eb[eid], old=ea[eid])
            continue
        if kind in VALUED:
            # the values an enum or an option gains are names other entries may use (a
            # data table keyed by them); those it loses, names their readers lose
            va, vb = _names(ea[eid]), _names(eb[eid])
            atom(what, {"override": {kind: {key: eb[eid]}}}, new=eb[eid], old=ea[eid],
                 adds=vb - va, removes=va - vb)
            atoms[-1].narrows = True
            continue
        if kind == "steps":
            atom(what, {"override": {"steps": {key: eb[eid]}}}, new=eb[eid], old=ea[eid])
            continue
        inner, rest = _inner_steps(item)
        kept = copy.deepcopy(eb[eid])
        old_rest = copy.deepcopy(ea[eid])
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
                atom(line, ops, new=plain(raw))
                found = find_step(kept, sid) if not (isinstance(kept, dict) and
                                                       kept.get("id") == sid) else None
                if found is not None:
                    del found[0][found[1]]
            else:
                path = next(f["path"] for f in item["fields"]
                            if f["b"] is None and isinstance(f["a"], dict)
                            and str(f["a"].get("id", "")) == sid)
                raw = _step_of(doc_a, sid)
                if not _restore(kept, path, copy.deepcopy(plain(raw))):
                    rest.append(None)
                    continue
                atom(line, {"remove": [f"steps.{sid}"]}, old=plain(raw))
                found = find_step(old_rest, sid)
                if found is not None:
                    del found[0][found[1]]
        if rest and _canonical(kept) != _canonical(ea[eid]):
            atom(what, {"override": {kind: {key: kept}}}, new=kept, old=old_rest)
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
        atom(what, ops, new=eb[eid], adds=[_short(eid)])
    for item in d["removed"]:
        eid = item["id"]
        what = f"removed {eid}"
        if _unnamed(atom, what, eid):
            continue
        atom(what, {"remove": [eid]}, old=ea[eid], removes=[_short(eid)])
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


def toggles(doc_a, doc_b, d: dict) -> list:
    """The changes of the diff `d` (of the documents doc_a and doc_b) as toggles, in the
    summary's order. Changes that name one another's entries are one toggle: a change
    whose new text uses an entry another adds, whose old text uses an entry another
    removes, or that writes an entry another writes. A change that narrows an entry (an
    enum that loses values) needs the changes whose old text uses what it takes away:
    its toggle makes them too, and they stay a toggle of their own."""
    atoms = _atoms(doc_a, doc_b, d)
    parent = list(range(len(atoms)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    edges = []          # (i, j, names shared)
    needs = []          # (i, j, names): i needs j's changes (i narrows what j reads)
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
    groups: dict = {}
    for i in range(len(atoms)):
        groups.setdefault(find(i), []).append(i)
    out = []
    for root, members in sorted(groups.items()):
        names = sorted(set().union(*(n for i, j, n in edges if find(i) == root)))
        extra = sorted({find(j) for i, j, _ in needs if find(i) == root} - {root})
        ops: dict = {}
        for k in members + [k for g in extra for k in groups[g]]:
            ops = _merge(ops, atoms[k].ops)
        grouped = "" if len(members) == 1 else (
            "they name each other's entries (" + ", ".join(names[:8]) +
            (", ..." if len(names) > 8 else "") + "): one cannot be applied without the other")
        if extra:
            taken = sorted(set().union(*(n for i, j, n in needs if find(i) == root)))
            grouped += ("; " if grouped else "") + (
                f"it takes away {', '.join(taken)}, which the old rules of "
                + ", ".join(f"'{_group_name(atoms, groups[g])}'" for g in extra)
                + " use: their changes are made with it")
        out.append(Toggle(
            name=_group_name(atoms, members),
            changes=[atoms[k].what for k in members], words=[atoms[k].words for k in members],
            variant=ops, grouped=grouped,
            also=[atoms[k].what for g in extra for k in groups[g]],
            error="; ".join(atoms[k].error for k in members if atoms[k].error)))
    return out


def toggles_of(d: dict, docs: tuple) -> list:
    """toggles() of the diff `d` of the two (located) documents `docs`."""
    return toggles(plain(docs[0]), plain(docs[1]), d)


def variant_text(base_path: Path, toggle: Toggle, index: int) -> str:
    doc = {"extends": str(base_path),
           "game": {"id": f"by_change_{index}", "name": f"by change {index}: {toggle.name}",
                    **toggle.variant.get("game", {})}}
    for action in ("settle", "remove", "override", "add"):
        if action in toggle.variant:
            doc[action] = toggle.variant[action]
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def write_toggles(base_path, items: list, folder: Path) -> list:
    """The path of each toggle's variant file, written in `folder` (None for a toggle
    with an error)."""
    out = []
    for i, t in enumerate(items):
        if t.error:
            out.append(None)
            continue
        path = folder / f"change-{i + 1}.yaml"
        path.write_text(variant_text(Path(base_path).resolve(), t, i + 1))
        out.append(path)
    return out


def row_of(t: Toggle, error: str = "", run=None, run_a=None) -> dict:
    """A toggle's row of the table: its changes, and with its run (a Summary) compared
    with A's (`run_a`) its HEADLINE metrics (Metrics, corrected by result())."""
    row: dict = {**t.to_dict(), "metrics": []}
    if error:
        row["error"] = error
    if run is not None:
        metrics, _, _, pairs = compare_records(run_a.records, run.records, [], [])
        row["pairs"] = pairs
        row["failed"] = run.failed
        row["_metrics"] = [m for m in metrics if m.name in HEADLINE]
        row["_records"] = run.records
    return row


def _values(records: list) -> dict:
    """{game index: {headline metric: value}} of a run's finished games."""
    out = {}
    for rec in records:
        if "error" not in rec:
            ms = _game_metrics(rec)
            out[rec["index"]] = {n: v[0] if isinstance(v, tuple) else v
                                 for n, v in ms.items() if n in HEADLINE}
    return out


def _interaction(name: str, whole, a: dict, b: dict, toggles: list) -> dict:
    """The interaction of a headline metric, game by game (a, b and each of `toggles`:
    a run's _values): in each game i that A, B and every measured toggle finished,
    (B_i - A_i) - sum over the toggles of (T_i - A_i); its mean with Student's t
    interval over those games (the same seeds throughout)."""
    values = []
    for i, row_a in a.items():
        rows = [b.get(i)] + [t.get(i) for t in toggles]
        if name not in row_a or any(r is None or name not in r for r in rows):
            continue
        va = row_a[name]
        values.append((rows[0][name] - va) - sum(r[name] - va for r in rows[1:]))
    m = paired(name, [0.0] * len(values), values)
    total = None if whole is None or m.diff is None else whole - m.diff
    return {"metric": name, "whole": whole, "sum_of_changes": total,
            "interaction": m.diff, "low": m.low, "high": m.high, "games": m.n}


def result(rows: list, whole: list, run_a=None, run_b=None) -> dict:
    """The rows (row_of) with Holm's correction over every toggle and metric, and the
    interaction line against the whole variant's metrics `whole` (compare_records of A
    against B), game by game with an interval when the two runs are given (Summaries with
    records): {by_change, interaction, correction}."""
    family = [m for row in rows for m in row.get("_metrics", [])]
    correct(family, "by_change")
    for row in rows:
        row["metrics"] = [m.to_dict() for m in row.pop("_metrics", [])]
    whole_by = {m.name: m for m in whole}
    measured = [_values(row.pop("_records")) for row in rows if "_records" in row]
    by_game = None if run_a is None or run_b is None else \
        (_values(run_a.records), _values(run_b.records))
    interaction = []
    for name in HEADLINE:
        if name not in whole_by:
            continue
        w = whole_by[name].diff
        if by_game is not None:
            interaction.append(_interaction(name, w, *by_game, measured))
            continue
        singles = [m["diff"] for row in rows for m in row["metrics"]
                   if m["name"] == name and m["diff"] is not None]
        total = sum(singles)
        interaction.append({"metric": name, "whole": w, "sum_of_changes": total,
                            "interaction": None if w is None else w - total})
    return {"by_change": rows, "interaction": interaction,
            "correction": {"method": "holm", "family": len(family)}}


def format_by_change(result: dict) -> str:
    """The by-change table as text: each toggle, its changes, and its effect on each
    headline metric (B - A with a 95% interval; * where significant after Holm)."""
    if not result["by_change"]:
        return "by change: the rule diff has no change to measure"
    lines = ["by change (each change applied alone to A, paired games; * significant "
             f"after Holm over {result['correction']['family']} tests):"]
    for i, row in enumerate(result["by_change"], 1):
        lines.append(f"  {i}. {row['name']}")
        if row["grouped"]:
            lines.append(f"     one toggle: {row['grouped']}")
            lines += [f"       - {c}" for c in row["changes"]]
            lines += [f"       + {c} (needed)" for c in row["also"]]
        if row.get("error"):
            lines.append(f"     not measured: {row['error']}")
            continue
        for m in row["metrics"]:
            if m["diff"] is None:
                continue
            lo, hi = m["low"], m["high"]
            ci = f" [{lo:+.3f}, {hi:+.3f}]" if lo is not None and hi is not None else ""
            star = " *" if m["significant"] else ""
            lines.append(f"     {m['name']:<32} {m['diff']:+.3f}{ci}{star}")
    if result["interaction"]:
        lines.append("  interaction (the whole variant's effect - the sum of the single "
                     "effects):")
        for x in result["interaction"]:
            if x["whole"] is None or x["interaction"] is None:
                continue
            ci = (f" [{x['low']:+.3f}, {x['high']:+.3f}]" if x.get("low") is not None
                  else "")
            lines.append(f"     {x['metric']:<32} whole {x['whole']:+.3f}, sum "
                         f"{x['sum_of_changes']:+.3f}, interaction {x['interaction']:+.3f}{ci}")
    return "\n".join(lines)

