"""The action graph drawn and compared: `tabula graph`, and the graph part of `tabula diff`.

Input: a compiled Game (its Program's networkx action graph: interpreter/compiler.py
describes its nodes and edges). Output: the graph as Graphviz DOT, a Mermaid flowchart or
node-link JSON, every node with its id and rulebook citation, and the differences
between two games' graphs, node by node and transition by transition.

Drawings show the flow. Phases (setup, play, scoring) and rules are clusters; a step
whose body holds other nodes is a cluster inside its phase or rule. Edges: `next` (B may
run right after A), `loop` (a loop's body starts again), `call` (a body calls a rule) and
the dashed way into a body (a `contains` edge marked `entry`). Other `contains` edges are
shown by the clusters; components (no flow) appear in the JSON only. Output is sorted:
the same spec, players and options give the same text.

Nodes are compared by a stable key: the node's name (`step:ID`, `rule:NAME`, `setup`,
`score:ID`, ...), except a decision, named after the step, rule or decision that asks it
(`rule:take_tile/decision`; `#2`, `#3` for the second and third asked by the same one),
so that a decision added elsewhere does not renumber the others.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import networkx as nx

from .cmdutil import EXIT_INPUT, EXIT_OK, parse_options as _options
from .errors import TabulaError

FORMATS = ("dot", "mermaid", "json", "svg")
SUFFIXES = {".svg": "svg", ".mmd": "mermaid", ".mermaid": "mermaid", ".json": "json"}
FLOW = ("next", "loop", "calls")        # edges always drawn; `contains` only when `entry`
LABEL_WIDTH = 34                        # characters per line of a label's citation
CLUSTER_ORDER = {"setup": 0, "play": 1, "scoring": 3}     # rules come between play and scoring
SUMMARY = ("source", "ruling", "player", "options", "optional", "up_to")


# ---- names ------------------------------------------------------------------------------

def graph_of(game) -> nx.DiGraph:
    """The action graph of a Game (or a Program, or the graph itself)."""
    prog = getattr(game, "prog", game)
    return getattr(prog, "graph", prog)


def natural(text: str) -> list:
    """Sort key: digits compare as numbers (decision:2 before decision:10)."""
    return [int(t) if i % 2 else t for i, t in enumerate(re.split(r"(\d+)", str(text)))]


def node_keys(graph: nx.DiGraph) -> dict:
    """{node: stable key}: the node's name, or for a decision its asker's key + /decision."""
    keys: dict = {}
    decisions = sorted((n for n, d in graph.nodes(data=True) if d.get("kind") == "decision"),
                       key=natural)
    asked: dict = {}

    def key(node: str) -> str:
        if node not in keys:
            if graph.nodes[node].get("kind") != "decision":
                keys[node] = node
            else:
                asker = graph.nodes[node].get("rule", "")
                base = f"{key(asker) if asker in graph else asker}/decision"
                asked[base] = asked.get(base, 0) + 1
                keys[node] = base if asked[base] == 1 else f"{base}#{asked[base]}"
        return keys[node]

    for node in decisions:                # in the order they were compiled
        key(node)
    for node in graph:
        key(node)
    return keys


def display_name(graph: nx.DiGraph, node: str) -> str:
    """A node's name for a reader: `setup.deal`, `rule take_tile`, `decision of turn`."""
    kind = graph.nodes[node].get("kind")
    if kind == "decision":
        asker = graph.nodes[node].get("rule", "")
        return "decision of " + (display_name(graph, asker) if asker in graph else asker)
    prefix, _, name = node.partition(":")
    return {"step": name, "rule": f"rule {name}", "score": f"points {name}",
            "tiebreak": f"tie-break {name}", "component": f"component {name}"}.get(
        prefix, node) if name else node


def who_decides(player: str) -> str:
    return {"chance": "chance", "current": "current player"}.get(player, f"player {player}")


def short_source(source: str, home: str = "", width: int = LABEL_WIDTH, lines: int = 2) -> list:
    """A citation shortened for a label: the quoted phrase (without its file when that is
    the game's own rulebook), wrapped to `lines` lines of `width`, cut with an ellipsis."""
    text = " ".join(str(source).split())
    if not text:
        return []
    m = re.match(r"^(\S+\.\w+)\s+(.*)$", text)
    if m:
        cited, text = m.groups()
        if home and cited != home:
            text = f"{cited} {text}"
    text = re.sub(r'"([^"]*)"', r"“\1”", text)       # typographic quotes: none to escape
    out: list = []
    words = text.split(" ")
    while words and len(out) < lines:
        line = words.pop(0)
        while words and len(line) + 1 + len(words[0]) <= width:
            line += " " + words.pop(0)
        out.append(line if len(line) <= width else line[:width - 1] + "…")
    if words:                     # more to say: end on a whole word and an ellipsis
        last = out[-1]
        if len(last) >= width and " " in last:
            last = last.rsplit(" ", 1)[0]
        out[-1] = last[:width - 1].rstrip("”,;:. ") + "…"
    return out


def _clip(text: str, width: int = LABEL_WIDTH + 6) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width - 1] + "…"


def label_lines(graph: nx.DiGraph, node: str, home: str = "") -> list:
    """The lines of a node's label: its name, then its citation (a decision: who
    decides, who asks, its options)."""
    d = graph.nodes[node]
    kind = d.get("kind")
    if kind == "decision":
        asker = d.get("rule", "")
        lines = [f"decision: {who_decides(d.get('player', 'current'))}",
                 "asked by " + (display_name(graph, asker) if asker in graph else asker)]
        options = d.get("options", [])
        for i, opt in enumerate(options[:4]):
            text = opt.get("label") or opt.get("id") or opt.get("choose") or f"option {i + 1}"
            lines.append(_clip(text if len(options) == 1 else f"{i + 1}. {text}"))
        if len(options) > 4:
            lines.append(f"… {len(options) - 4} more options")
        if d.get("up_to"):
            lines.append(_clip(f"up to {d['up_to']} times"))
        if d.get("optional"):
            lines.append(_clip(f"or: {d['optional']}"))
        return lines
    return [display_name(graph, node)] + short_source(d.get("source", ""), home)


def tooltip(graph: nx.DiGraph, node: str) -> str:
    """Everything the graph knows of a node, in full (for DOT tooltips)."""
    d = graph.nodes[node]
    lines = [node]
    if d.get("kind") == "decision":
        lines.append(f"asked by {d.get('rule', '')}; decided by "
                     f"{who_decides(d.get('player', 'current'))}")
        for i, opt in enumerate(d.get("options", [])):
            lines.append(f"option {i + 1}: " + "; ".join(f"{k} {v}" for k, v in opt.items()))
        for k in ("up_to", "optional"):
            if d.get(k):
                lines.append(f"{k}: {d[k]}")
    for k in ("source", "ruling"):
        if d.get(k):
            lines.append(f"{k}: {' '.join(str(d[k]).split())}")
    return "\n".join(lines)


# ---- layout: clusters and drawn edges ------------------------------------------------------

class Layout:
    """Where each drawn node goes: clusters (phases, rules, steps holding nodes), nested
    as the `contains` edges nest; and the edges drawn, sorted."""

    def __init__(self, graph: nx.DiGraph):
        self.graph = graph
        parent = {b: a for a, b, d in graph.edges(data=True) if d.get("kind") == "contains"}
        self.nodes = sorted((n for n, d in graph.nodes(data=True)
                             if d.get("kind") != "component"), key=natural)
        drawn = set(self.nodes)
        has_child = {parent[n] for n in self.nodes if n in parent}
        self.owners = {n for n in self.nodes if graph.nodes[n].get("kind") in ("phase", "rule")
                       or (graph.nodes[n].get("kind") == "step" and n in has_child)}

        def home(node):
            seen = set()
            while node is not None and node not in self.owners and node not in seen:
                seen.add(node)
                node = parent.get(node)
            return node

        self.cluster_of = {n: home(n) for n in self.nodes}      # an owner is in its own
        self.parent_cluster = {c: home(parent.get(c)) for c in self.owners}
        self.edges = sorted(((a, b, d) for a, b, d in graph.edges(data=True)
                             if a in drawn and b in drawn and
                             (d.get("kind") in FLOW or d.get("entry"))),
                            key=lambda e: (natural(e[0]), natural(e[1])))

    def children(self, cluster) -> tuple:
        """(sub-clusters, nodes) directly in a cluster (None: the top level), sorted."""
        subs = [c for c in self.owners if self.parent_cluster[c] == cluster]
        subs.sort(key=lambda c: (CLUSTER_ORDER.get(c, 2), natural(c)))
        nodes = [n for n in self.nodes if self.cluster_of[n] == cluster and n not in self.owners]
        if cluster is not None:
            nodes.insert(0, cluster)
        return subs, nodes


def _home_source(game) -> str:
    """The game's own rulebook (game.source): labels cite it without naming it."""
    try:
        return str(game.spec.doc["game"].get("source", ""))
    except (AttributeError, KeyError, TypeError):
        return ""


def _title(game) -> str:
    prog = getattr(game, "prog", game)
    opts = ", ".join(f"{k}={v}" for k, v in sorted(getattr(prog, "options", {}).items()))
    return (f"{getattr(prog, 'spec_id', 'game')}: action graph, "
            f"{getattr(prog, 'players', '?')} players" + (f", {opts}" if opts else ""))


# ---- DOT ------------------------------------------------------------------------------------

def _dot_string(text: str) -> str:
    """A DOT quoted string; line breaks become \\n (centred lines)."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


DOT_NODE = {
    "phase": 'shape=box, style="rounded,filled,bold", fillcolor="#dde4ee", fontsize=12',
    "rule": 'shape=box, style="rounded,filled", fillcolor="#e8f0e0"',
    "step": 'shape=box, style="rounded"',
    "decision": 'shape=box, style="filled,diagonals", fillcolor="#fff4cc"',
    "score": 'shape=box, style="filled", fillcolor="#f4e8f4"',
    "tiebreak": 'shape=box, style="filled,dashed", fillcolor="#f4e8f4"',
}
DOT_EDGE = {
    "next": "",
    "loop": 'color="#1f5fbf", fontcolor="#1f5fbf", style=dashed, label="loop", constraint=false',
    "calls": 'color="#2e7d32", fontcolor="#2e7d32", penwidth=1.6, label="call"',
    "contains": 'color="#888888", style=dashed, arrowhead=empty',
}


def to_dot(game) -> str:
    """The action graph as Graphviz DOT (render: dot -Tsvg)."""
    g = graph_of(game)
    lay = Layout(g)
    home = _home_source(game)
    out = [f"digraph {_dot_string(getattr(getattr(game, 'prog', game), 'spec_id', 'game'))} {{",
           (f"  graph [label={_dot_string(_title(game))}, labelloc=t, fontname=Helvetica, "
            "fontsize=14, rankdir=TB, newrank=true, nodesep=0.25, ranksep=0.3];"),
           "  node [fontname=Helvetica, fontsize=10, margin=\"0.12,0.04\"];",
           "  edge [fontname=Helvetica, fontsize=9, arrowsize=0.7];"]

    def node_line(n: str, indent: str) -> str:
        d = g.nodes[n]
        style = DOT_NODE.get(d.get("kind"), "shape=box")
        if d.get("ruling"):
            style += ', color="#c25e00", penwidth=1.5'
        label = "\n".join(label_lines(g, n, home))
        return (f"{indent}{_dot_string(n)} [label={_dot_string(label)}, "
                f"tooltip={_dot_string(tooltip(g, n))}, {style}];")

    def cluster(c, indent: str) -> None:
        subs, nodes = lay.children(c)
        if c is not None:
            # no title: the cluster's first node (the phase, rule or step) names it
            fill = {"phase": "#f7f9fc", "rule": "#fbfdf8"}.get(g.nodes[c].get("kind"), "#ffffff")
            out.append(f"{indent}subgraph {_dot_string('cluster_' + c)} {{")
            out.append(f'{indent}  label=""; style="rounded,filled"; color="#9aa5b1"; '
                       f'fillcolor="{fill}";')
            inner = indent + "  "
        else:
            inner = indent
        for n in nodes:
            out.append(node_line(n, inner))
        for s in subs:
            cluster(s, inner)
        if c is not None:
            out.append(f"{indent}}}")

    cluster(None, "  ")
    entered = {b for _, b, _ in lay.edges}
    for n in lay.nodes:          # keep a cluster's first node on top: invisible edges
        head = lay.cluster_of[n]
        if head is not None and head != n and n not in entered:
            out.append(f"  {_dot_string(head)} -> {_dot_string(n)} [style=invis];")
    for a, b, d in lay.edges:
        kind = d.get("kind")
        style = DOT_EDGE.get(kind, "")
        if kind == "next" and g.nodes[a].get("kind") == "phase" == g.nodes[b].get("kind"):
            style = "penwidth=2.2"
        tip = _dot_string(f"{a} -> {b}: {kind}"
                          + (f" (first in {a}'s body)" if d.get("entry") else "")
                          + (f", within {d['within']}" if d.get("within") else ""))
        style = f"{style}, tooltip={tip}" if style else f"tooltip={tip}"
        out.append(f"  {_dot_string(a)} -> {_dot_string(b)} [{style}];")
    out.append("}")
    return "\n".join(out) + "\n"


# ---- Mermaid ----------------------------------------------------------------------------------

MERMAID_ESCAPES = {"#": "#35;", '"': "#quot;", "&": "#amp;", "<": "#lt;", ">": "#gt;",
                   "[": "#91;", "]": "#93;", "(": "#40;", ")": "#41;", "{": "#123;",
                   "}": "#125;", "|": "#124;", "`": "#96;"}
MERMAID_SHAPES = {"phase": ('(["', '"])'), "rule": ('[["', '"]]'), "decision": ('{{"', '"}}')}
MERMAID_EDGE = {"next": "-->", "loop": "-.->|loop|", "calls": "==>|call|", "contains": "-.->"}


def mermaid_text(text: str) -> str:
    """A label for Mermaid: the characters its syntax uses written as entity codes."""
    return "".join(MERMAID_ESCAPES.get(ch, ch) for ch in str(text))


def to_mermaid(game) -> str:
    """The action graph as a Mermaid flowchart."""
    g = graph_of(game)
    lay = Layout(g)
    home = _home_source(game)
    ids = {n: f"n{i}" for i, n in enumerate(lay.nodes)}
    title = re.sub(r'["\\]', "", _title(game))      # a YAML string in double quotes
    out = ["---", f'title: "{title}"', "---", "flowchart TB"]
    counter = iter(range(len(lay.owners)))
    classes: dict = {}

    def cluster(c, indent: str) -> None:
        subs, nodes = lay.children(c)
        inner = indent
        if c is not None:
            kind = g.nodes[c].get("kind")
            title = c if kind == "phase" else display_name(g, c)
            out.append(f'{indent}subgraph s{next(counter)}["{mermaid_text(title)}"]')
            inner = indent + "  "
        for n in nodes:
            d = g.nodes[n]
            left, right = MERMAID_SHAPES.get(d.get("kind"), ('["', '"]'))
            text = "<br/>".join(mermaid_text(x) for x in label_lines(g, n, home))
            out.append(f"{inner}{ids[n]}{left}{text}{right}")
            classes.setdefault(d.get("kind"), []).append(ids[n])
            if d.get("ruling"):
                classes.setdefault("ruling", []).append(ids[n])
        for s in subs:
            cluster(s, inner)
        if c is not None:
            out.append(f"{indent}end")

    cluster(None, "  ")
    for a, b, d in lay.edges:
        out.append(f"  {ids[a]} {MERMAID_EDGE.get(d.get('kind'), '-->')} {ids[b]}")
    out += ["  classDef phase fill:#dde4ee,stroke:#5a6b80,font-weight:bold",
            "  classDef rule fill:#e8f0e0,stroke:#5b7f45",
            "  classDef decision fill:#fff4cc,stroke:#b8860b",
            "  classDef score fill:#f4e8f4,stroke:#8a5a8a",
            "  classDef tiebreak fill:#f4e8f4,stroke:#8a5a8a,stroke-dasharray:3 3",
            "  classDef ruling stroke:#c25e00,stroke-width:2px"]
    for kind in ("phase", "rule", "decision", "score", "tiebreak", "ruling"):
        if classes.get(kind):
            out.append(f"  class {','.join(classes[kind])} {kind}")
    return "\n".join(out) + "\n"


# ---- JSON -------------------------------------------------------------------------------------

def graph_data(game) -> dict:
    """Node-link data (networkx.node_link_data, edges under "edges"), nodes and edges
    sorted; each node also has `key` (its stable key), `label` (its display name) and
    `cluster` (the phase, rule or step it is drawn in; null for components)."""
    g = graph_of(game)
    lay = Layout(g)
    keys = node_keys(g)
    prog = getattr(game, "prog", game)
    h = nx.DiGraph(spec=getattr(prog, "spec_id", ""), players=getattr(prog, "players", None),
                   options=dict(sorted(getattr(prog, "options", {}).items())))
    for n in sorted(g, key=natural):
        h.add_node(n, **{**g.nodes[n], "key": keys[n], "label": display_name(g, n),
                         "cluster": lay.cluster_of.get(n)})
    for a, b in sorted(g.edges, key=lambda e: (natural(e[0]), natural(e[1]))):
        h.add_edge(a, b, **g.edges[a, b])
    try:
        return nx.node_link_data(h, edges="edges")
    except TypeError:            # networkx < 3.4 names them "links"
        data = nx.node_link_data(h)
        data["edges"] = data.pop("links")
        return data


def to_json(game) -> str:
    return json.dumps(graph_data(game), ensure_ascii=False, indent=1) + "\n"


def to_svg(game) -> str:
    """The graph drawn as SVG by matplotlib (drawing.py): no Graphviz needed."""
    try:
        from .drawing import to_svg as draw
    except ImportError as e:
        raise TabulaError(f"--format svg draws with matplotlib, which does not import ({e}): "
                          "pip install matplotlib; or use --format dot and Graphviz "
                          "(dot -Tsvg)") from None
    return draw(game)


RENDER = {"dot": to_dot, "mermaid": to_mermaid, "json": to_json, "svg": to_svg}


def render(game, fmt: str = "dot") -> str:
    if fmt not in RENDER:
        raise TabulaError(f"unknown graph format '{fmt}' (one of: {', '.join(FORMATS)})")
    return RENDER[fmt](game)


# ---- differences --------------------------------------------------------------------------------

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
    from .diff import entry_lines, field_lines   # diff imports this module: import late
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


# ---- the command ---------------------------------------------------------------------------------

def _write(text: str, out: str | None) -> None:
    if not out:
        sys.stdout.write(text)
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as e:
        raise TabulaError(f"cannot write {out}: {e.strerror or e}") from None


def cmd_graph(args) -> int:
    from .spec import load_spec
    try:
        if args.out and not Path(args.out).resolve().parent.is_dir():
            raise TabulaError(f"cannot write {args.out}: no such folder")
        game = load_spec(args.spec).game(args.players, _options(args.option))
        fmt = args.format or SUFFIXES.get(Path(args.out or "").suffix.lower(), "dot")
        _write(render(game, fmt), args.out)
    except TabulaError as e:
        print(str(e), file=sys.stderr)
        return EXIT_INPUT
    return EXIT_OK


def add_command(subparsers) -> argparse.ArgumentParser:
    """Register `tabula graph` on the `tabula` command line's subparsers."""
    p = subparsers.add_parser(
        "graph", help="draw the action graph: DOT, Mermaid, JSON or SVG",
        description="The action graph of a spec (for a player count and options): phases "
                    "and rules as clusters, steps and decisions with their ids and "
                    "citations, the flow between them. Drawn without Graphviz: "
                    "tabula graph SPEC --out graph.svg (matplotlib); with Graphviz, more "
                    "compact: tabula graph SPEC | dot -Tsvg > graph.svg")
    p.add_argument("spec", metavar="SPEC",
                   help="a spec file, a game's folder, or a shipped game's name")
    p.add_argument("--players", type=int, default=None, metavar="N",
                   help="the player count to compile for (default: the least)")
    p.add_argument("--option", action="append", metavar="K=V", default=[],
                   help="a game option, KEY=VALUE (repeatable; default: the spec's defaults)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="dot (Graphviz), mermaid (a flowchart), json (node-link) or svg (a "
                        "drawing, by matplotlib: no Graphviz needed) (default: from the "
                        "suffix of --out, .svg .mmd .json, else dot)")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(fn=cmd_graph)
    return p
