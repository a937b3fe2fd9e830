"""The action graph drawn: `tabula graph` as Graphviz DOT, a Mermaid flowchart, node-link
JSON or an SVG drawing.

Input: a compiled Game (its Program's networkx action graph). Output: the graph as text,
every node with its id and rulebook citation.

Drawings show the flow. Phases (setup, play, scoring) and rules are clusters; a step
whose body holds other nodes is a cluster inside its phase or rule. Edges: `next` (B may
run right after A), `loop` (a loop's body starts again), `call` (a body calls a rule) and
the dashed way into a body (a `contains` edge marked `entry`). Other `contains` edges are
shown by the clusters; components (no flow) appear in the JSON only. Output is sorted:
the same spec, players and options give the same text.
"""

from __future__ import annotations

import json
import re

import networkx as nx

from ..errors import TabulaError
from .graphview import (
    Layout,
    display_name,
    graph_of,
    graph_title,
    home_source,
    label_lines,
    natural,
    node_keys,
    tooltip,
)

FORMATS = ("dot", "mermaid", "json", "svg")
SUFFIXES = {".svg": "svg", ".mmd": "mermaid", ".mermaid": "mermaid", ".json": "json"}


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
    home = home_source(game)
    out = [f"digraph {_dot_string(getattr(getattr(game, 'prog', game), 'spec_id', 'game'))} {{",
           (f"  graph [label={_dot_string(graph_title(game))}, labelloc=t, fontname=Helvetica, "
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
    home = home_source(game)
    ids = {n: f"n{i}" for i, n in enumerate(lay.nodes)}
    title = re.sub(r'["\\]', "", graph_title(game))      # a YAML string in double quotes
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
