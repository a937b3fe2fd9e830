"""Rule-by-rule differences between two specs (typically a game and its variant).

Input: two Specs (variants already resolved). Output: the entries added, removed and
changed, id by id (game settings, options, enums, data, components, zones, variables,
functions, rules, scoring points and tie-breakers, and the top-level steps of setup and
play), each with its normalised text. Rule text is compared by its syntax tree, so a
reformatting (spacing, line breaks, YAML quoting) is not a difference. Then, apart from
those entries, the two action graphs (named as interpreter/tools/graphview.py names them):
steps, decisions and transitions added, removed or changed, each spec compiled for its least
player count with its default options.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache

import networkx as nx
import yaml

from ..errors import SpecError, TabulaError
from ..lang.loader import plain
from ..lang.parser import parse
from ..lang.variants import all_steps
from .graphview import SUMMARY, graph_of, natural, node_keys

SECTIONS = ("options", "enums", "data", "components", "zones", "variables", "functions",
            "rules", "invariants", "rulings", "settled")


def _canonical(value):
    """A comparison key: strings by their syntax tree when they are rule text, otherwise
    with runs of whitespace collapsed."""
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if type(value) is str:
        return _canonical_text(value)
    if isinstance(value, str):
        return _canonical_text.__wrapped__(value)
    return value


@lru_cache(maxsize=1 << 14)
def _canonical_text(value: str) -> str:
    """_canonical of one string (kept: a diff compares each entry's texts several times,
    --by-change every toggle's against both specs, and parsing is most of its cost)."""
    for what in ("statement", "expression", "bindings"):
        try:
            return f"{what}:{parse(value, what)!r}"
        except SpecError:
            continue
    return " ".join(value.split())


def _normalised(value):
    """What a reader sees: the entry with each text's whitespace collapsed."""
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    if isinstance(value, str):
        return " ".join(value.split())
    return value


def entries(doc) -> dict:
    """{id: plain entry} for everything a variant can change."""
    out = {}
    for key, value in doc.get("game", {}).items():
        out[f"game.{key}"] = plain(value)
    for section in SECTIONS:
        for key, value in doc.get(section, {}).items():
            out[f"{section}.{key}"] = plain(value)
    scoring = doc.get("scoring", {})
    for key, value in scoring.get("points", {}).items():
        out[f"points.{key}"] = plain(value)
    for i, tb in enumerate(scoring.get("tiebreak", [])):
        out[f"tiebreak.{tb.get('id', i + 1)}"] = plain(tb)
    for phase in ("setup", "play"):
        for i, step in enumerate(doc.get(phase, [])):
            sid = step.get("id") if isinstance(step, dict) else None
            out[f"steps.{sid}" if sid else f"{phase}[{i + 1}]"] = plain(step)
    return out


def _aligned(eb: dict, doc_a, doc_b) -> dict:
    """The variant's entries with each top-level step that has no id keyed as the base's
    step it is (difflib over the phase's steps: the same text, or in a run that differs
    the same place among the steps without an id), so that a step that only moved is not
    a difference; a step of its own keeps its place in the variant ("setup[2]"), or
    "setup[2] (new)" where the base has a step of that name."""
    out = dict(eb)
    for phase in ("setup", "play"):
        xs, ys = list(doc_a.get(phase, [])), list(doc_b.get(phase, []))
        keys_a = [json.dumps(_canonical(plain(x)), sort_keys=True) for x in xs]
        keys_b = [json.dumps(_canonical(plain(y)), sort_keys=True) for y in ys]
        names = {}
        matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
        for _op, i1, i2, j1, j2 in matcher.get_opcodes():
            plain_a = [i for i in range(i1, i2) if not _step_id(xs[i])]
            plain_b = [j for j in range(j1, j2) if not _step_id(ys[j])]
            names.update({j: f"{phase}[{i + 1}]" for i, j in zip(plain_a, plain_b)})
        taken = {f"{phase}[{i + 1}]" for i in range(len(xs))}
        unnamed = [(j, out.pop(f"{phase}[{j + 1}]")) for j, y in enumerate(ys)
                   if not _step_id(y)]
        for j, value in unnamed:
            own = f"{phase}[{j + 1}]"
            out[names.get(j, own if own not in taken else f"{own} (new)")] = value
    return out


def diff_specs(a, b, docs: tuple | None = None) -> dict:
    """docs: the two documents to compare instead of a.doc and b.doc (the readings of
    switchable rulings chosen by options: rulings.doc_with)."""
    doc_a, doc_b = (docs[0], docs[1]) if docs else (a.doc, b.doc)
    ea, eb = entries(doc_a), _aligned(entries(doc_b), doc_a, doc_b)
    added = [{"id": k, "kind": k.split(".")[0].split("[")[0], "b": _normalised(eb[k])}
             for k in eb if k not in ea]
    removed = [{"id": k, "kind": k.split(".")[0].split("[")[0], "a": _normalised(ea[k])}
               for k in ea if k not in eb]
    changed = [{"id": k, "kind": k.split(".")[0].split("[")[0], "a": _normalised(ea[k]),
                "b": _normalised(eb[k]), "fields": _fields(ea[k], eb[k])}
               for k in ea if k in eb and _canonical(ea[k]) != _canonical(eb[k])]
    # a switchable ruling the variant settles (settle:) is one difference, not a removal
    settled = [item for item in added if item["kind"] == "settled"]
    gone = {"rulings." + item["id"].split(".", 1)[1] for item in settled}
    removed = [item for item in removed if item["id"] not in gone]
    added = [item for item in added if item["kind"] != "settled"]
    renamed = _renamed(removed, added, ea, eb)
    return {"a": {"path": str(a.path), "id": a.id}, "b": {"path": str(b.path), "id": b.id},
            "settled": settled, "renamed": renamed, "added": added, "removed": removed,
            "changed": changed, "graph": diff_action_graphs(a, b)}


# the fields that name or cite an entry rather than say what it does
NAMING = ("id", "source", "ruling", "label", "description", "name")
SAME_ENTRY = 0.75      # at least this share of its rule text in common: the same entry
SAME_ENTRY_SIZE = 80   # and at least this much of it (canonical characters): two tiny
                       # entries alike by chance (a variable starting at 0) are not one


def _body(value):
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in NAMING}
    return json.dumps(_canonical(value), sort_keys=True)


def _renamed(removed: list, added: list, ea: dict, eb: dict) -> list:
    """Entries of one kind that the base and the variant name differently (another id,
    or another place for a step without one), matched by content: the same rule text
    (the naming fields apart), or failing that at least SAME_ENTRY of it in common
    (difflib's ratio), best pairs first; entries with less than SAME_ENTRY_SIZE of
    rule text are matched by id only. A step without an id that only moved (its
    place in the list changed, its text did not) is no difference at all: it is dropped
    from both lists. The others are taken out of `removed` and `added` and returned as
    [{id (the variant's), was (the base's), kind, a, b, fields}]."""
    pairs = []
    for r in removed:
        for x in added:
            if r["kind"] != x["kind"]:
                continue
            ka, kb = _body(ea[r["id"]]), _body(eb[x["id"]])
            if min(len(ka), len(kb)) < SAME_ENTRY_SIZE:
                continue
            ratio = 1.0 if ka == kb else \
                difflib.SequenceMatcher(None, ka, kb, autojunk=False).ratio()
            if ratio >= SAME_ENTRY:
                pairs.append((-ratio, r["id"], x["id"]))
    out: list = []
    used_a: set = set()
    used_b: set = set()
    for _ratio, ia, ib in sorted(pairs):
        if ia in used_a or ib in used_b:
            continue
        used_a.add(ia)
        used_b.add(ib)
        moved = "[" in ia and "[" in ib and _canonical(ea[ia]) == _canonical(eb[ib])
        if not moved:
            out.append({"id": ib, "was": ia, "kind": ia.split(".")[0].split("[")[0],
                        "a": _normalised(ea[ia]), "b": _normalised(eb[ib]),
                        "fields": [f for f in _fields(ea[ia], eb[ib]) if f["path"] != "id"]})
    removed[:] = [r for r in removed if r["id"] not in used_a]
    added[:] = [x for x in added if x["id"] not in used_b]
    return out


def _fireable(doc) -> dict:
    """What can fire in a game, by its trace id, as a diff entry: every step with an id
    (set-up, play, rules, wherever it is), each rule of `rules:` (`rule:NAME`) and each
    scoring rule (`points:ID`)."""
    out = {f"steps.{step['id']}": plain(step) for step, _, _ in all_steps(doc)}
    for name, body in doc.get("rules", {}).items():
        out[f"rule.{name}"] = plain(body)
    for rid, body in doc.get("scoring", {}).get("points", {}).items():
        out[f"points.{rid}"] = plain(body)
    return out


def same_rules(doc_a, doc_b) -> dict:
    """{trace id in B: trace id in A} for what fires under another id in B than in A (a
    step, rule or scoring rule renamed), matched by content as the diff matches renamed
    entries: so that `diff --simulate` compares how often the same rule fires, not two
    ids."""
    fa, fb = _fireable(doc_a), _fireable(doc_b)
    kind = lambda k: k.split(".")[0]                                  # noqa: E731
    removed = [{"id": k, "kind": kind(k)} for k in fa if k not in fb]
    added = [{"id": k, "kind": kind(k)} for k in fb if k not in fa]
    trace = {"steps": "", "rule": "rule:", "points": "points:"}
    return {trace[r["kind"]] + r["id"].split(".", 1)[1]:
            trace[r["kind"]] + r["was"].split(".", 1)[1]
            for r in _renamed(removed, added, fa, fb)
            if "[" not in r["id"] and "[" not in r["was"]}


def diff_action_graphs(a, b) -> dict:
    """The two specs' action graphs compared, each compiled for its least player count
    with its default options: {players: {a, b}, added, removed, changed}; {error: text}
    if a spec does not compile (its rules can still be compared)."""
    try:
        game_a, game_b = a.game(), b.game()
    except TabulaError as e:
        return {"error": str(e)}
    return {"players": {"a": game_a.players, "b": game_b.players},
            **graph_diff_json(diff_graphs(game_a, game_b))}


def _fields(a, b, path: str = "") -> list:
    """The parts of two versions of an entry that differ: [{path, a, b}], where a part
    missing on one side is None. Two lists of steps are compared step by step (difflib
    over their syntax trees): a step added, removed or changed is its own part
    (`do[4]`, counted from 1 on the variant's side for an added or changed step, on the
    base's for a removed one), and the steps both keep are not listed."""
    if isinstance(a, list) and isinstance(b, list) and _steps(a) and _steps(b):
        return _step_fields(a, b, path or "(value)")
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in list(a) + [k for k in b if k not in a]:
            sub = f"{path}.{k}" if path else str(k)
            if k not in b:
                out.append({"path": sub, "a": _normalised(a[k]), "b": None})
            elif k not in a:
                out.append({"path": sub, "a": None, "b": _normalised(b[k])})
            elif _canonical(a[k]) != _canonical(b[k]):
                out.extend(_fields(a[k], b[k], sub))
        return out
    return [{"path": path or "(value)", "a": _normalised(a), "b": _normalised(b)}]


def _steps(items: list) -> bool:
    """Is the list a list of steps (mappings, or statements as text)?"""
    return bool(items) and any(isinstance(x, dict) for x in items) \
        and all(isinstance(x, (dict, str)) for x in items)


def _step_fields(a: list, b: list, path: str) -> list:
    keys_a = [json.dumps(_canonical(x), sort_keys=True) for x in a]
    keys_b = [json.dumps(_canonical(x), sort_keys=True) for x in b]
    out: list = []
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        # in a run that differs, a step of the base and one of the variant are the same
        # step changed when they have the same id, or, without ids, the same place
        pairs = {}
        ids = {_step_id(a[i]): i for i in range(i1, i2) if _step_id(a[i])}
        for j in range(j1, j2):
            if _step_id(b[j]) in ids:
                pairs[j] = ids[_step_id(b[j])]
        plain_a = [i for i in range(i1, i2) if not _step_id(a[i])]
        plain_b = [j for j in range(j1, j2) if not _step_id(b[j])]
        pairs.update(zip(plain_b, plain_a))
        for j in range(j1, j2):
            sub = f"{path}[{j + 1}]"
            if j not in pairs:
                out.append({"path": sub, "a": None, "b": _normalised(b[j]),
                            "context": _context(b, j, path)})
                continue
            x, y = a[pairs[j]], b[j]
            out.extend(_fields(x, y, sub) if isinstance(x, dict) and isinstance(y, dict)
                       else [{"path": sub, "a": _normalised(x), "b": _normalised(y),
                              "context": _context(b, j, path)}])
        kept = set(pairs.values())
        out += [{"path": f"{path}[{i + 1}]", "a": _normalised(a[i]), "b": None,
                 "context": _context(a, i, path)}
                for i in range(i1, i2) if i not in kept]
    return out


CONTEXT_WIDTH = 72


def _step_label(step) -> str:
    """A step in a few words: its id, else its text (a statement, or its first field)."""
    if isinstance(step, dict):
        if "id" in step:
            return str(step["id"])
        key = next((k for k in step if k not in NAMING), None)
        text = f"{key}: {step[key]}" if key is not None else ""
    else:
        text = str(step)
    text = " ".join(text.split())
    return text if len(text) <= CONTEXT_WIDTH else text[:CONTEXT_WIDTH - 3] + "..."


def _context(steps: list, i: int, path: str) -> dict:
    """The neighbours of step i of a list, as a reader needs them to place a change:
    {before, after}: "PATH[k] label" of the step before and after it (on the same side
    of the diff), absent at an end of the list."""
    out = {}
    if i > 0:
        out["before"] = f"{path}[{i}] {_step_label(steps[i - 1])}"
    if i + 1 < len(steps):
        out["after"] = f"{path}[{i + 2}] {_step_label(steps[i + 1])}"
    return out


def _step_id(step) -> str:
    return str(step["id"]) if isinstance(step, dict) and "id" in step else ""


def _text(value) -> list:
    if not isinstance(value, (dict, list)):
        return [json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)]
    dumped = yaml.safe_dump(value, default_flow_style=None, sort_keys=False,
                            allow_unicode=True, width=88).rstrip("\n")
    return dumped.splitlines() or [""]


def entry_lines(value, text=None) -> list:
    """An entry as lines: each field `key: value`, or `key:` and its value's lines below
    when it has several. text(value) -> lines (default: YAML-like)."""
    text = text or _text
    if not isinstance(value, dict):
        return text(value)
    out = []
    for k, v in value.items():
        sub = text(v)
        if len(sub) == 1:
            out.append(f"{k}: {sub[0]}")
        else:
            out.append(f"{k}:")
            out += [f"  {x}" for x in sub]
    return out


def field_lines(name: str, a, b, text=None, context: dict | None = None) -> list:
    """A changed field as text: its name, then the lines of its old value (-) and of its
    new one (+); an absent side (None) is left out. text(value) -> lines. A step added or
    removed in a list shows its neighbours (context: {before, after}) around it."""
    text = text or _text
    lines = [f"    {name}:"]
    context = context or {}
    if "before" in context:
        lines.append(f"        (after {context['before']})")
    if a is not None:
        lines += [f"      - {x}" for x in text(a)]
    if b is not None:
        lines += [f"      + {x}" for x in text(b)]
    if "after" in context:
        lines.append(f"        (before {context['after']})")
    return lines


# what differs only because the variant is another game: told last
IDENTITY = ("game.id", "game.name", "game.source")
SUMMARY_WIDTH = 100


def _words(entry) -> str:
    """The rulebook's words for an entry: its source quote, else its ruling, label or
    description ("" if it has none), on one line."""
    if isinstance(entry, dict):
        for key in ("source", "ruling", "label", "description"):
            value = entry.get(key)
            if isinstance(value, str) and value.strip():
                text = " ".join(value.split())
                return text if len(text) <= SUMMARY_WIDTH else text[:SUMMARY_WIDTH - 3] + "..."
    return ""


def _inner_steps(item: dict) -> tuple:
    """A changed entry's fields split: ([(added or removed, step id, step)] for the steps
    with an id added to or removed from one of its lists, [the other fields])."""
    steps, rest = [], []
    for f in item["fields"]:
        side = "added" if f["a"] is None else "removed" if f["b"] is None else None
        step = f["b"] if side == "added" else f["a"]
        if side and isinstance(step, dict) and "id" in step:
            steps.append((side, str(step["id"]), step))
        else:
            rest.append(f)
    return steps, rest


def summary_lines(d: dict) -> list:
    """The summary as text lines: "  WHAT: WORDS" (summary_rows)."""
    return [f"  {what}" + (f": {words}" if words else "") for what, words in summary_rows(d)]


def summary_rows(d: dict) -> list:
    """What changed, [(what, words)], a line each in the rulebook's words (the
    variant's, for a change or an addition; the base's, for a removal): the settled
    rulings first, then the renamed, changed, added and removed entries; a step with an
    id added to or removed from an entry (a rule's step) is a line of its own, and the
    entry is listed as changed only if something else in it changed; the variant's own
    id, name and source are not listed."""
    rows = []
    for item in d.get("settled", []):
        s = item["b"]
        rows.append((f"settled ruling {item['id'].split('.', 1)[1]}: reading {s['reading']}",
                     _words({"source": s.get("reading_source")})))
    rows += [(f"renamed {i['was']} -> {i['id']}", _words(i["b"]))
             for i in d.get("renamed", [])]
    inner = []
    for i in d["changed"]:
        if i["id"] in IDENTITY:
            continue
        steps, rest = _inner_steps(i)
        if rest or not steps:
            rows.append((f"changed {i['id']}", _words(i["b"]) or _words(i["a"])))
        inner += [(f"{side} step {sid} ({'in' if side == 'added' else 'from'} {i['id']})",
                   _words(step)) for side, sid, step in steps]
    rows += inner
    rows += [(f"added {i['id']}", _words(i["b"])) for i in d["added"]]
    rows += [(f"removed {i['id']}", _words(i["a"])) for i in d["removed"]]
    return rows


def format_diff(d: dict) -> str:
    lines = [f"--- {d['a']['id']} ({d['a']['path']})", f"+++ {d['b']['id']} ({d['b']['path']})"]
    summary = summary_lines(d)
    if summary:
        lines += ["summary:"] + summary + [""]
    for item in d.get("settled", []):
        rid, s = item["id"].split(".", 1)[1], item["b"]
        lines.append(f"settled ruling {rid}: reading {s['reading']}")
        lines += [f"    {k}: {_text(s[k])[0]}" for k in ("ruling", "reading_source") if s.get(k)]
    ordered = [i for i in d["changed"] if i["id"] not in IDENTITY] + \
        [i for i in d["changed"] if i["id"] in IDENTITY]
    for item in d.get("renamed", []):
        lines.append(f"renamed {item['was']} -> {item['id']}")
        for f in item["fields"]:
            lines += field_lines(f["path"], f["a"], f["b"], context=f.get("context"))
    for item in ordered:
        lines.append(f"changed {item['id']}")
        for f in item["fields"]:
            lines += field_lines(f["path"], f["a"], f["b"], context=f.get("context"))
    for item in d["added"]:
        lines.append(f"added {item['id']}")
        lines += [f"  + {x}" for x in entry_lines(item["b"])]
    for item in d["removed"]:
        lines.append(f"removed {item['id']}")
        lines += [f"  - {x}" for x in entry_lines(item["a"])]
    n_settled = len(d.get("settled", []))
    n_renamed = len(d.get("renamed", []))
    n = len(d["added"]) + len(d["removed"]) + len(d["changed"]) + n_settled + n_renamed
    lines.append(f"{n} difference{'s' if n != 1 else ''}: {len(d['changed'])} changed, "
                 f"{len(d['added'])} added, {len(d['removed'])} removed"
                 + (f", {n_renamed} renamed" if n_renamed else "")
                 + (f", {n_settled} ruling{'s' if n_settled != 1 else ''} settled"
                    if n_settled else ""))
    graph = d.get("graph")
    if graph is not None:
        lines.append("")
        if "error" in graph:
            lines.append(f"action graph: not compared, a spec does not compile:\n{graph['error']}")
        else:
            lines.append(f"action graph ({graph['players']['a']} and {graph['players']['b']} "
                         "players, default options):")
            lines.append(format_graph_diff(graph))
    return "\n".join(lines)


def to_json(d: dict) -> str:
    return json.dumps(d, ensure_ascii=False)


# ---- a changed line, word by word -------------------------------------------------------

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
SIMILAR = 0.4          # below this share of common words, a line was rewritten


def word_diff(a: str, b: str) -> tuple:
    """Two versions of a line compared word by word (difflib over words, spaces and
    punctuation): ([(text, changed)] of a, [(text, changed)] of b), where `changed`
    marks the words removed from a or added in b; adjacent pieces of the same kind are
    joined. Lines that share less than SIMILAR of their words (difflib's ratio) were
    rewritten, not edited: each is one changed piece."""
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    out_a: list = []
    out_b: list = []

    def put(out: list, text: str, changed: bool) -> None:
        if not text:
            return
        if out and out[-1][1] == changed:
            out[-1] = (out[-1][0] + text, changed)
        else:
            out.append((text, changed))
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    if matcher.ratio() < SIMILAR:          # rewritten rather than edited: whole lines
        return [(a, True)] if a else [], [(b, True)] if b else []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        put(out_a, "".join(ta[i1:i2]), op != "equal")
        put(out_b, "".join(tb[j1:j2]), op != "equal")
    return out_a, out_b


# ---- the action graphs compared, node by node and transition by transition ---------------------

def _comparable(graph: nx.DiGraph, node: str) -> dict:
    """A node's attributes as compared: not its asker (in its key), none left empty."""
    return {k: v for k, v in sorted(graph.nodes[node].items())
            if k not in ("rule", "kind") and v not in ("", None, [], {})}


def _keyed(game) -> tuple:
    """({key: (kind, attributes)}, {(key, key): attributes}) of a game's graph."""
    g = graph_of(game)
    keys = node_keys(g)
    nodes = {keys[n]: (g.nodes[n].get("kind", ""), _comparable(g, n)) for n in g}
    edges = {(keys[a], keys[b]): {k: keys.get(v, v) if k == "within" else v
                                  for k, v in sorted(d.items())}
             for a, b, d in g.edges(data=True)}
    return nodes, edges


def _changes(a: dict, b: dict) -> list:
    return [{"name": k, "a": a.get(k), "b": b.get(k)}
            for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def diff_graphs(game_a, game_b) -> list:
    """The differences between two games' action graphs, by stable key: nodes (phases,
    rules, steps, decisions, scoring rules, tie-breakers, components) and transitions
    (edges) added, removed or changed. Each entry: {change: added|removed|changed, what:
    the node's kind or "transition", id, and a / b (attributes on each side; for a
    transition also from, to), fields ([{name, a, b}], for a change)}. Sorted: changed,
    added, removed; nodes before transitions; by id."""
    na, ea = _keyed(game_a)
    nb, eb = _keyed(game_b)
    out = []
    for change in ("changed", "added", "removed"):
        for key in sorted(set(na) | set(nb), key=natural):
            if change == "added" and key not in na:
                out.append({"change": change, "what": nb[key][0], "id": key, "b": nb[key][1]})
            elif change == "removed" and key not in nb:
                out.append({"change": change, "what": na[key][0], "id": key, "a": na[key][1]})
            elif change == "changed" and key in na and key in nb and na[key] != nb[key]:
                (ka, a), (kb, b) = na[key], nb[key]
                fields = _changes(a, b)
                if ka != kb:
                    fields.insert(0, {"name": "kind", "a": ka, "b": kb})
                out.append({"change": change, "what": kb, "id": key, "a": a, "b": b,
                            "fields": fields})
        for pair in sorted(set(ea) | set(eb), key=lambda p: (natural(p[0]), natural(p[1]))):
            item = {"change": change, "what": "transition", "id": f"{pair[0]} -> {pair[1]}",
                    "from": pair[0], "to": pair[1]}
            if change == "added" and pair not in ea:
                out.append({**item, "b": eb[pair]})
            elif change == "removed" and pair not in eb:
                out.append({**item, "a": ea[pair]})
            elif change == "changed" and pair in ea and pair in eb and ea[pair] != eb[pair]:
                out.append({**item, "a": ea[pair], "b": eb[pair],
                            "fields": _changes(ea[pair], eb[pair])})
    return out


def graph_diff_json(entries: list) -> dict:
    """The JSON-ready form: {added, removed, changed}, each a list of entries (as
    diff_graphs gives them, without the `change` key)."""
    out: dict = {"added": [], "removed": [], "changed": []}
    for e in entries:
        out[e["change"]].append({k: v for k, v in e.items() if k != "change"})
    return out


def _value_text(value) -> str:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, list) and all(isinstance(x, dict) for x in value):
        return "; ".join(", ".join(f"{k}: {v}" for k, v in x.items()) for x in value)
    return json.dumps(value, ensure_ascii=False)


def _value_lines(value) -> list:
    """A value as lines: a decision's options one a line, anything else on one."""
    if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        return [f"{i + 1}. " + ", ".join(f"{k}: {' '.join(str(v).split())}" for k, v in x.items())
                for i, x in enumerate(value)]
    return [_value_text(value)]


def format_graph_diff(entries) -> str:
    """The differences as text, one entry after the other, and a count. `entries`: as
    diff_graphs gives them, or their JSON-ready form (graph_diff_json)."""
    if isinstance(entries, dict):
        entries = [{"change": c, **e} for c in ("changed", "added", "removed")
                   for e in entries.get(c, [])]
    lines = []
    for e in entries:
        if e["change"] == "changed":
            lines.append(f"changed {'transition ' if e['what'] == 'transition' else ''}{e['id']}")
            for f in e["fields"]:
                lines += field_lines(f["name"], f["a"], f["b"], _value_lines)
        elif e["what"] == "transition":
            attrs = e.get("a") if e["change"] == "removed" else e.get("b")
            lines.append(f"{e['change']} transition {e['id']} ({_value_text(attrs.get('kind', ''))}"
                         + (", entry" if attrs.get("entry") else "") + ")")
        else:
            sign = "+" if e["change"] == "added" else "-"
            lines.append(f"{e['change']} {e['id']}")
            attrs = e.get("b") if e["change"] == "added" else e.get("a")
            shown = {k: v for k, v in attrs.items() if k in SUMMARY}
            lines += [f"  {sign} {x}" for x in entry_lines(shown, _value_lines)]
    counts = {c: sum(1 for e in entries if e["change"] == c)
              for c in ("changed", "added", "removed")}
    n = len(entries)
    lines.append(f"{n} graph difference{'s' if n != 1 else ''}: {counts['changed']} changed, "
                 f"{counts['added']} added, {counts['removed']} removed")
    return "\n".join(lines)
