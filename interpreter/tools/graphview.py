"""The action graph as the tools name and lay it out: node keys, display names, labels,
tooltips and clusters (the vocabulary of `tabula graph`, the drawing and the graph diff).

Input: a compiled Game (its Program's networkx action graph: interpreter/compiler/driver.py
describes its nodes and edges). Output: names and labels of nodes, and a Layout of
clusters (phases and rules; a step whose body holds other nodes inside its phase or rule)
and of the edges drawn.

Nodes are compared by a stable key: the node's name (`step:ID`, `rule:NAME`, `setup`,
`score:ID`, ...), except a decision, named after the step, rule or decision that asks it
(`rule:take_tile/decision`; `#2`, `#3` for the second and third asked by the same one),
so that a decision added elsewhere does not renumber the others.
"""

from __future__ import annotations

import re

import networkx as nx

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
    """Sort key: digits compare as numbers (decision:2 before decision:10); a run of more
    digits than int() reads (4,300) after every number, by its text."""
    return [((0, int(t)) if len(t) <= 4000 else (1, t)) if i % 2 else t
            for i, t in enumerate(re.split(r"(\d+)", str(text)))]


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


def clip(text: str, width: int = LABEL_WIDTH + 6) -> str:
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
            lines.append(clip(text if len(options) == 1 else f"{i + 1}. {text}"))
        if len(options) > 4:
            lines.append(f"… {len(options) - 4} more options")
        if d.get("up_to"):
            lines.append(clip(f"up to {d['up_to']} times"))
        if d.get("optional"):
            lines.append(clip(f"or: {d['optional']}"))
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


def home_source(game) -> str:
    """The game's own rulebook (game.source): labels cite it without naming it."""
    try:
        return str(game.spec.doc["game"].get("source", ""))
    except (AttributeError, KeyError, TypeError):
        return ""


def graph_title(game) -> str:
    prog = getattr(game, "prog", game)
    opts = ", ".join(f"{k}={v}" for k, v in sorted(getattr(prog, "options", {}).items()))
    return (f"{getattr(prog, 'spec_id', 'game')}: action graph, "
            f"{getattr(prog, 'players', '?')} players" + (f", {opts}" if opts else ""))
