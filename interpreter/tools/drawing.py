"""The action graph drawn as SVG with matplotlib: `tabula graph --format svg`, for a
machine without Graphviz.

Input: a compiled Game (graph.py's Layout: clusters and the edges drawn). Output: SVG
text, the same for the same spec, players and options (no date, fixed ids).

The drawing is a flowchart in columns: set-up, play, the rules (one under the other),
scoring. Within a column the nodes stand in the order graph.py's DOT lists them, each
cluster (a phase, a rule, a step holding steps) a framed block, nested blocks indented.
Edges: `next` grey, `loop` dashed blue, `call` green, the way into a body dashed grey;
an edge between two nodes that are not one under the other bends to the right. Node
colours and labels are DOT's (graph.label_lines). Graphviz (`--format dot | dot -Tsvg`)
lays out the same graph more compactly; this drawing needs only what Tabula installs.
"""

from __future__ import annotations

import io

from .graphview import (
    CLUSTER_ORDER,
    Layout,
    graph_of,
    graph_title,
    home_source,
    label_lines,
)

FILL = {"phase": "#dde4ee", "rule": "#e8f0e0", "step": "#ffffff", "decision": "#fff4cc",
        "score": "#f4e8f4", "tiebreak": "#f4e8f4"}
EDGE = {"next": ("#555555", "solid", 1.0), "loop": ("#1f5fbf", "dashed", 1.0),
        "calls": ("#2e7d32", "solid", 1.6), "contains": ("#888888", "dashed", 0.9)}
LINE = 0.16            # inches per label line
PAD = 0.10             # inches above and below a label inside its box
GAP = 0.22             # inches between two boxes of a column
WIDTH = 3.0            # inches: a top-level box; nested ones are INDENT narrower per level
INDENT = 0.18
COLUMN_GAP = 0.9
FONT = 7.0             # points


def _unit(lay: Layout, node, cluster):
    """The node, or the sub-cluster of `cluster` that holds it (None: outside it)."""
    c = lay.cluster_of.get(node)
    if node in lay.owners:
        c = node
    while c is not None:
        if lay.parent_cluster.get(c) == cluster:
            return c
        if c == cluster:
            return node
        c = lay.parent_cluster.get(c)
    return node if cluster is None else None


def _in_flow(lay: Layout, cluster, units: list) -> list:
    """A cluster's nodes and sub-clusters in the order the flow (next, entry) visits them;
    by name where it says nothing, or where it loops."""
    import networkx as nx

    from .graphview import natural
    flow = nx.DiGraph()
    flow.add_nodes_from(units)
    for a, b, d in lay.edges:
        if d.get("kind") == "next" or d.get("entry"):
            ua, ub = _unit(lay, a, cluster), _unit(lay, b, cluster)
            if ua in flow and ub in flow and ua != ub:
                flow.add_edge(ua, ub)
    try:
        return list(nx.lexicographical_topological_sort(flow, key=lambda u: natural(u)))
    except nx.NetworkXUnfeasible:
        return units


def _columns(lay: Layout) -> list:
    """[(title, [(node, depth, cluster chain)])]: set-up, play, rules, scoring, and the
    nodes outside every cluster; in a cluster its own node first, then its nodes and
    sub-clusters in the order of the flow."""
    def walk(cluster, depth, chain, out):
        subs, nodes = lay.children(cluster)
        if nodes and nodes[0] == cluster:
            out.append((cluster, depth, chain))
            nodes = nodes[1:]
        for u in _in_flow(lay, cluster, nodes + subs):
            if u in subs:
                walk(u, depth + 1, chain + (u,), out)
            else:
                out.append((u, depth, chain))

    tops, _ = lay.children(None)
    groups: dict = {}
    for c in tops:
        key = c if c in CLUSTER_ORDER else "rules"
        groups.setdefault(key, []).append(c)
    columns = []
    for key in sorted(groups, key=lambda k: CLUSTER_ORDER.get(k, 2)):
        out: list = []
        for c in groups[key]:
            walk(c, 0, (c,), out)
        columns.append((key, out))
    _, loose = lay.children(None)
    if loose:
        columns.append(("other", [(n, 0, ()) for n in loose]))
    return columns


def to_svg(game) -> str:
    """The action graph as an SVG drawing (matplotlib; no Graphviz)."""
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    g = graph_of(game)
    lay = Layout(g)
    home = home_source(game)
    columns = _columns(lay)
    boxes: dict = {}                      # node -> (x0, y_top, width, height, column)
    frames: dict = {}                     # cluster -> [x0, y_top, x1, y_bottom, depth]
    heights = []
    for ci, (_, items) in enumerate(columns):
        x_col = ci * (WIDTH + COLUMN_GAP)
        y = 0.0
        for node, depth, chain in items:
            lines = label_lines(g, node, home)
            h = len(lines) * LINE + 2 * PAD
            x0 = x_col + depth * INDENT
            boxes[node] = (x0, y, WIDTH - 2 * depth * INDENT, h, ci, lines)
            for level, c in enumerate(chain):
                f = frames.setdefault(c, [x_col + level * INDENT - 0.06, y - 0.06,
                                          x_col + WIDTH - level * INDENT + 0.06, 0, level])
                f[3] = y + h + 0.06
            y += h + GAP
        heights.append(y)
    total_w = max(len(columns), 1) * (WIDTH + COLUMN_GAP)
    total_h = max(heights or [1.0]) + 0.6
    fig = Figure(figsize=(total_w, total_h))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.4, total_w - 0.4)
    ax.set_ylim(total_h - 0.3, -0.5)       # y grows downwards, in inches
    ax.axis("off")
    ax.text(-0.3, -0.3, graph_title(game), fontsize=FONT + 3, va="center", ha="left",
            fontfamily="DejaVu Sans", fontweight="bold")
    for ci, (title, _) in enumerate(columns):
        ax.text(ci * (WIDTH + COLUMN_GAP), -0.05, title, fontsize=FONT + 1, va="bottom",
                ha="left", color="#5a6b80", fontfamily="DejaVu Sans")
    for c in sorted(frames, key=lambda c: frames[c][4]):
        x0, y0, x1, y1, _ = frames[c]
        ax.add_patch(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0,
                                    boxstyle="round,pad=0,rounding_size=0.06",
                                    facecolor="#f7f9fc" if g.nodes[c].get("kind") == "phase"
                                    else "#fbfdf8", edgecolor="#9aa5b1", linewidth=0.6,
                                    zorder=1))
    for node, (x0, y0, w, h, _, lines) in sorted(boxes.items()):
        d = g.nodes[node]
        kind = d.get("kind")
        ax.add_patch(FancyBboxPatch((x0, y0), w, h, boxstyle="round,pad=0,rounding_size=0.05",
                                    facecolor=FILL.get(kind, "#ffffff"),
                                    edgecolor="#c25e00" if d.get("ruling") else "#444444",
                                    linewidth=1.3 if d.get("ruling") else 0.7,
                                    linestyle="--" if kind == "tiebreak" else "-", zorder=2))
        ax.text(x0 + 0.08, y0 + PAD, "\n".join(lines), fontsize=FONT, va="top", ha="left",
                linespacing=1.25, zorder=3, fontfamily="DejaVu Sans",
                fontweight="bold" if kind == "phase" else "normal")
    for a, b, data in lay.edges:
        if a not in boxes or b not in boxes:
            continue
        kind = "contains" if data.get("entry") and data.get("kind") == "contains" \
            else data.get("kind", "next")
        color, style, width = EDGE.get(kind, EDGE["next"])
        ax0, ay0, aw, ah, acol, _ = boxes[a]
        bx0, by0, bw, bh, bcol, _ = boxes[b]
        if acol != bcol:                   # a call into the rules' column, or back
            left = acol < bcol
            start = (ax0 + aw, ay0 + ah / 2) if left else (ax0, ay0 + ah / 2)
            end = (bx0, by0 + bh / 2) if left else (bx0 + bw, by0 + bh / 2)
            conn = "arc3,rad=0.0"
        elif by0 > ay0 and not _between(boxes, acol, ay0, by0, a, b):
            start, end = (ax0 + aw / 2, ay0 + ah), (bx0 + bw / 2, by0)
            conn = "arc3,rad=0.0"
        else:                              # around, on the right of the column
            start, end = (ax0 + aw, ay0 + ah / 2), (bx0 + bw, by0 + bh / 2)
            conn = "arc3,rad=-0.35" if by0 > ay0 else "arc3,rad=0.35"
        ax.add_patch(FancyArrowPatch(start, end, connectionstyle=conn, arrowstyle="-|>",
                                     mutation_scale=7, color=color, linestyle=style,
                                     linewidth=width, zorder=4, shrinkA=0, shrinkB=1))
        if kind in ("loop", "calls"):
            mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
            ax.text(mx + 0.05, my, "loop" if kind == "loop" else "call", fontsize=FONT - 1,
                    color=color, va="center", ha="left", zorder=5, fontfamily="DejaVu Sans")
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "tabula", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "tabula graph"})
    return buf.getvalue()


def _between(boxes: dict, column: int, top: float, bottom: float, a, b) -> bool:
    """Is some other box of the column between y top and bottom (an edge would cross it)?"""
    return any(col == column and top < y0 < bottom and n not in (a, b)
               for n, (_, y0, _, _, col, _) in boxes.items())
