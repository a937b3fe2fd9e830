"""The action graph (networkx) that the compiler builds beside the code.

Input: calls from the compiler's stages as they compile phases, rules, steps, decisions
and scoring rules. Output: a DiGraph whose nodes are the phases (setup, play, scoring),
rules, steps with an id, decisions, scoring rules, tie-breakers and components. Its edges
are of two sorts: the structure (`contains`: a phase, rule, step or decision holds a node
in its body; `calls`: a body calls a rule) and the flow (`next`: B may run right after A
in the same body, and phase after phase; `loop`: a loop's body ends and starts again, or
an up_to decision is asked again; `within` names the node whose body the flow is in). A
structural edge that leads to a body's first nodes has `entry: True`. The flow is drawn
by `tabula graph` and compared by `tabula diff`; running a game never reads the graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from ..errors import Pos, fail

STRUCTURE = ("contains", "calls")      # the action graph's edges that are not flow


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


@dataclass
class Flow:
    """How control passes through a body, as the action graph sees it: the graph nodes
    (steps with an id, decisions, called rules) the body may reach first (`entries`),
    those it may leave from (`exits`), and whether it may run reaching none (`through`)."""
    entries: list[str] = field(default_factory=list)
    exits: list[str] = field(default_factory=list)
    through: bool = True

    @classmethod
    def node(cls, name: str) -> Flow:
        return cls([name], [name], False)

    @classmethod
    def either(cls, parts: Iterable[Flow]) -> Flow:
        """One of several branches runs (if/else, match cases, a decision's options)."""
        parts = list(parts)
        return cls(_unique(e for p in parts for e in p.entries),
                   _unique(x for p in parts for x in p.exits),
                   not parts or any(p.through for p in parts))

    def maybe(self) -> Flow:
        """The same, possibly not run at all (a loop that runs no time)."""
        return Flow(list(self.entries), list(self.exits), True)

    def then(self, part: Flow, link: Callable[[str, str], None]) -> None:
        """Append `part`, run after what came before; link(a, b) for each way from
        this flow's exits into part."""
        for a in self.exits:
            for b in part.entries:
                link(a, b)
        if self.through:
            self.entries = _unique(self.entries + part.entries)
        self.exits = _unique(self.exits + part.exits) if part.through else list(part.exits)
        self.through = self.through and part.through


class FlowGraph:
    """The graph of one Compiler, with the bookkeeping of the bodies being compiled."""

    def __init__(self) -> None:
        self.graph = nx.DiGraph()
        self.current = "setup"          # the node whose body is being compiled
        self.stack: list[Flow] = []     # the Flow of each body being compiled
        self.step_ids: dict[str, Pos] = {}     # step id -> its position

    def node(self, name: str, **attrs: object) -> None:
        self.graph.add_node(name, **attrs)

    def contains(self, parent: str, child: str) -> None:
        self.graph.add_edge(parent, child, kind="contains")

    def calls(self, rule: str) -> None:
        self.graph.add_edge(self.current, f"rule:{rule}", kind="calls")
        self.then(Flow.node(f"rule:{rule}"))

    def edge(self, a: str, b: str, kind: str, within: str = "") -> None:
        """A flow edge a -> b (`within`: the node whose body it is in), unless an edge
        joins them already (a structural one: contains, calls; or the same flow in
        another body: a rule called in several places)."""
        if not self.graph.has_edge(a, b):
            self.graph.add_edge(a, b, kind=kind, **({"within": within} if within else {}))

    def then(self, part: Flow) -> None:
        """The body being compiled goes on with `part`."""
        if self.stack:
            within = self.current
            self.stack[-1].then(part, lambda a, b: self.edge(a, b, "next", within))

    def mark_entries(self, owner: str, flow: Flow) -> None:
        """Mark owner's edges to the first nodes its body may reach: entry=True."""
        for node in flow.entries:
            if self.graph.has_edge(owner, node):
                self.graph.edges[owner, node]["entry"] = True

    def loop(self, flow: Flow, runs_once: bool = False) -> None:
        """A loop: its body's ends lead back to its start; it may run no time."""
        for a in flow.exits:
            for b in flow.entries:
                self.edge(a, b, "loop", self.current)
        self.then(flow if runs_once else flow.maybe())

    # step: its LMap (lang/loader.py), not imported here so that no import chain grows
    def register_id(self, step: Any, parent: str) -> str:
        """A step (or option) with an id becomes a node of the action graph."""
        sid = str(step["id"])
        if sid in self.step_ids:
            fail(f"step id '{sid}' is used twice", step.where("id"),
                 f"it was first used at line {self.step_ids[sid].line}")
        self.step_ids[sid] = step.where("id")
        name = f"step:{sid}"
        self.node(name, kind="step", source=str(step.get("source", "")),
                  ruling=str(step.get("ruling", "")))
        self.contains(parent, name)
        return name

    def decision(self, dnode: str, option_nodes: list[str | None], bodies: list[Flow],
                 upto: bool) -> None:
        """A decision leads to each option (its node if it has an id, then its body's
        first nodes); it is one node of the enclosing body; up_to asks it again."""
        def link(a: str, b: str) -> None:
            self.edge(a, b, "next", dnode)
        branches = []
        for node, body in zip(option_nodes, bodies):
            branch = Flow()
            if node is not None:
                branch.then(Flow.node(node), link)
            branch.then(body, link)
            branches.append(branch)
        self.mark_entries(dnode, Flow.either(branches))
        self.then(Flow.node(dnode))
        if upto:
            self.edge(dnode, dnode, "loop", dnode)

    def unreachable_rules(self, rules: Iterable[str]) -> list[str]:
        """The rules (names) that setup and play never reach through the structure."""
        graph = self.graph
        structure = nx.subgraph_view(
            graph, filter_edge=lambda a, b: graph.edges[a, b]["kind"] in STRUCTURE)
        reach: set[str] = set()
        for root in ("setup", "play"):
            reach |= {root} | nx.descendants(structure, root)
        return [name for name in rules if f"rule:{name}" not in reach]
