"""Checked spec to executable program: the stage that chains the compiler's parts.

Input: a located spec document (interpreter/lang/loader.py), already schema-checked, the
number of players and the option values. Output: a Program (interpreter/runtime/model.py): the
state's layout (layout.py), rules compiled to generated Python (expressions.py,
builtins.py, steps.py, decisions.py; the source is kept in Program.module, printed by
`tabula compile`), and the action graph (flowgraph.py). Every name, attribute, arity
and type is checked on the way; problems are SpecErrors at the spec's line and column.
"""

from __future__ import annotations

from ..errors import NOWHERE, fail
from ..lang import types as T
from ..lang.loader import LList, LMap, plain
from ..lang.parser import KEYWORDS, parse, parse_budget
from ..lang.types import type_of_value
from ..runtime import effects, readers, values, views
from ..runtime.model import Block, Proc, Program, ZoneInfo
from . import steps
from .analysis import Usage
from .boards import Boards
from .builtins import AGGREGATES, Builtins
from .codegen import Module
from .common import Part, Scope, merged
from .decisions import Decisions
from .expressions import ExprCompiler
from .flowgraph import FlowGraph
from .layout import VAR_TYPES, Layout
from .names import SPECIAL_NAMES, Names
from .steps import Steps, stale_lines

ANY_ZONE = ZoneInfo("any zone", "any", False, 1, 0, "public", [None])
VAR_TYPES.setdefault("cell", T.slot(ANY_ZONE))
__all__ = ["Compiler", "plain", "type_of_value"]

# the namespace of generated code: every helper it calls, each name defined once
HELPERS = merged("generated-code helper", readers.HELPERS, steps.HELPERS, effects.HELPERS,
                 values.HELPERS, views.HELPERS)


def catalogue(*emitters) -> dict:
    """The builtin functions of the rule language: name -> the emitter's f_<name> method,
    over the stages that emit builtins (builtins.py, boards.py), each name defined once."""
    return merged("builtin function", *({n[2:]: getattr(e, n) for n in dir(e)
                                         if n.startswith("f_")} for e in emitters))


def _no_decimals(node, pos) -> None:
    """A spec's numbers are whole (or exact fractions, computed with '/'): a decimal in its
    YAML would bring a float, inexact and machine-dependent, into the game's state."""
    if isinstance(node, float):
        fail(f"{node} is a decimal number, and a game's numbers are exact", pos,
             "write a whole number, or compute the fraction in rule text: 1/2")
    if isinstance(node, dict):
        for k, v in node.items():
            _no_decimals(v, node.where(k) if isinstance(node, LMap) else pos)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _no_decimals(v, node.where(i) if isinstance(node, LList) else pos)


def _stop_mark(sid: str):
    """An instruction after a set-up step: a game started to stop there (its root frame's
    data names the step: Game.new_state(until=...)) stops, with no decision pending."""
    def stop(st, fr):
        if fr.data == sid:
            fr.data = None
            return True
        return False
    return stop


class Compiler:
    """One spec, one player count, one set of options -> one Program."""

    def __init__(self, doc: LMap, players: int, options: dict, file: str = "",
                 trace: bool = False, cache: bool = True, strict: bool = False,
                 views: bool = True):
        self.doc = doc
        self.file = file
        self.trace = trace
        self.strict = strict
        self.usage = Usage(self)  # what the rules read and write (analysis.py, deadcode.py)
        self.compiling: list = []  # rules being compiled, each at its first call
        game = doc["game"]
        self.prog = Program(spec_id=str(game["id"]), players=players, options=options,
                            traced=trace, cache=cache, views=cache and views)
        self.prog.max_steps = int(game.get("max_steps", self.prog.max_steps))
        self.prog.max_decisions = int(game.get("max_decisions", self.prog.max_decisions))
        self.prog.returns = str(game.get("returns", self.prog.returns))
        self.any_zone = ANY_ZONE
        self.plain = plain
        self.mod = Module(HELPERS)
        self.mod.within = self._within    # names each generated function's origin
        self.mod.ns.update(readers.work_budget(self.prog.work))    # this game's own budget
        self.enums = {k: [str(m) for m in v] for k, v in doc.get("enums", {}).items()}
        self.member_of: dict = {}
        for e, members in self.enums.items():
            for m in members:
                self.member_of.setdefault(m, e)
        self.data = {k: plain(v["value"]) for k, v in doc.get("data", {}).items()}
        self.functions = doc.get("functions", LMap())
        self.rules = doc.get("rules", LMap())
        self.tables: dict = {}          # table variable -> (per player, first index, keys)
        self.gvar_types: list = []
        self.pvar_types: list = []
        self.attr_types: dict = {}
        self.flow = FlowGraph()
        # the stages: each reaches the others through this object (self.c.x, ...)
        self.x = ExprCompiler(self)
        self.names = Names(self)
        self.builtins = Builtins(self)
        self.boards = Boards(self)
        self.decisions = Decisions(self)
        self.catalogue = catalogue(self.builtins, self.boards, self.decisions)
        # the builtins that read where a piece is, as their emitters say (@reads_place)
        self.place_readers = frozenset(n for n, f in self.catalogue.items()
                                       if getattr(f, "reads_place", False))
        # and those that read pieces' names (@reads_names)
        self.name_readers = frozenset(n for n, f in self.catalogue.items()
                                      if getattr(f, "reads_names", False))
        self.layout = Layout(self)
        self.steps = Steps(self)

    @property
    def graph(self):
        return self.flow.graph

    @property
    def step_ids(self) -> dict:
        return self.flow.step_ids

    # ---- entry ------------------------------------------------------------------------
    def compile(self) -> Program:
        try:
            with parse_budget():
                return self._compile()
        except RecursionError:
            # the bounds on nesting (rule text, function calls, rule chains) keep Python's
            # stack within its limit; together they may still exceed it: located, at the
            # rule being compiled when it ran out
            where = self.rules.where_key(self.compiling[-1]) if self.compiling else \
                getattr(self.doc, "pos", NOWHERE)
            fail("the spec nests too deeply to compile (rules, functions and "
                 "expressions taken together)", where,
                 "split long chains of calls or deeply nested expressions")

    def _compile(self) -> Program:
        _no_decimals(self.doc, getattr(self.doc, "pos", NOWHERE))
        self._check_namespaces()
        self._check_words()
        self.layout.build()
        self._procs()
        p = self.prog
        g = self.flow
        root = Scope()
        steps = self.steps
        bodies = {}
        for phase in ("setup", "play"):
            g.current = phase
            g.node(phase, kind="phase", label=phase)
            with self.usage.unit(phase):
                bodies[phase] = steps.body(self.doc.get(phase, LList()), root, phase)
            g.mark_entries(phase, bodies[phase].flow)
        setup, play = bodies["setup"], bodies["play"]
        p.root_play = steps.block(play)
        p.root_full = steps.block(type(setup)(self._paused(setup) + play.parts, setup.flow,
                                              "game"))
        p.root_nlocals = root.size
        for name, proc in p.procs.items():
            if proc.block is None:
                self.compile_proc(name, proc)
        self._scoring()
        g.edge("setup", "play", "next")
        g.edge("play", "scoring", "next")
        self._invariants()
        self.decisions.check_asked()
        self.decisions.check_private()
        unreached = g.unreachable_rules(p.procs)
        if unreached:
            fail(f"rule '{unreached[0]}' is never called", p.procs[unreached[0]].pos,
                 "call it from setup, play or another rule, or remove it")
        p.facts = self.usage.facts()
        p.turn_facts = p.facts.turn_facts()
        # every kept fact and what it reads are known now: each change drops only the
        # facts it makes stale; a function compiled after this keeps no facts
        self.mod.refine(stale_lines(p.facts, self.mod))
        self.builtins.sealed = True
        p.graph = g.graph
        p.module = self.mod
        self._tell(p)
        return p

    def _tell(self, p: Program) -> None:
        """What the tools may ask of the program (model.Program's last fields)."""
        p.attr_types = self.attr_types
        p.var_types = {**dict(zip(p.gvar_names, self.gvar_types)),
                       **dict(zip(p.pvar_names, self.pvar_types))}
        p.enums = {k: tuple(v) for k, v in self.enums.items()}
        p.step_ids = self.flow.step_ids
        p.origins = self.mod.origins
        p.usage = self.usage
        p.compile_expression = lambda text: self.expression(text)[0]

    def _within(self) -> str:
        """What is being compiled, for a generated function's origin (Program.origin): the
        innermost rule, function, phase or scoring expression ("rule turn")."""
        for unit in reversed(self.usage.stack):
            kind, _, name = unit.partition(":")
            if kind not in ("group", "decision"):    # parts of the unit around them
                return f"{kind} {name}" if name else kind
        return ""

    def parse(self, text, start: str = "expression"):
        """Rule text to its AST (lang/parser.py): the stages parse through the driver."""
        return parse(text, start)

    def expression(self, text):
        """Compile rule text against this program, after the fact: (fn(state) -> value,
        its static type). A rule failure while it runs is a located RuleError, as in
        a game (State.evaluate)."""
        scope = Scope()
        node = parse(text, "expression")
        fn, typ = self.x.function(node, scope)
        size = max(scope.size, 1)
        return (lambda st: st.evaluate(fn, size, node.pos)), typ

    def scratch(self) -> str:
        """A fresh Python local for generated code (never a name of the spec)."""
        return self.mod.fresh("t")

    # ---- names ------------------------------------------------------------------------
    def _check_namespaces(self):
        seen: dict = {}
        sections = [("zone", "zones"), ("variable", "variables"), ("data table", "data"),
                    ("enum", "enums"), ("function", "functions")]
        builtin = set(self.catalogue) | set(AGGREGATES)
        for what, section in sections:
            block = self.doc.get(section, LMap())
            for name in block:
                self._claim(seen, str(name), what, block.where_key(name))
                if section == "functions" and str(name) in builtin:
                    fail(f"'{name}' is a builtin function: a function of the spec "
                         "of that name could never be called",
                         block.where_key(name), "choose another name")
        for members in self.doc.get("enums", LMap()).values():
            for i, m in enumerate(members):
                if str(m) in seen and seen[str(m)][0] != "enum value":
                    self._claim(seen, str(m), "enum value", members.where(i))
                seen.setdefault(str(m), ("enum value", members.where(i)))

    def _check_words(self):
        """Rules, their parameters, functions' parameters and pieces' attributes are
        names too: none may be a word of the language (it could not be read)."""
        places = [("rule", self.rules)]
        places += [("parameter", body.get("params", []))
                   for body in list(self.rules.values()) + list(self.functions.values())
                   if isinstance(body, dict)]
        for comp in self.doc.get("components", LMap()).values():
            places += [("attribute", comp.get(k, LMap())) for k in ("for_each", "attributes")]
        for what, names in places:
            items = list(names)
            for i, name in enumerate(items):
                if str(name) in KEYWORDS:
                    pos = names.where_key(name) if isinstance(names, LMap) else names.where(i)
                    fail(f"'{name}' is a word of the language and cannot name a "
                         f"{what}", pos, "choose another name")

    @staticmethod
    def _claim(seen, name, what, pos):
        if name in KEYWORDS:
            fail(f"'{name}' is a word of the language and cannot name a {what}",
                 pos, "choose another name")
        if name in SPECIAL_NAMES or name.startswith("_"):
            fail(f"'{name}' is reserved and cannot name a {what}", pos)
        if name in seen:
            other, opos = seen[name]
            fail(f"'{name}' names both a {other} (line {opos.line}) and a {what}",
                 pos, "give each thing its own name")
        seen[name] = (what, pos)

    # ---- rules ---------------------------------------------------------------------------
    def _procs(self):
        for name, r in self.rules.items():
            params = tuple(str(x) for x in r.get("params", ()))
            self.prog.procs[str(name)] = Proc(str(name), params, pos=self.rules.where_key(name),
                                              source=str(r.get("source", "")),
                                              param_types=[T.ANY] * len(params))
            self.flow.node(f"rule:{name}", kind="rule", source=str(r.get("source", "")),
                           ruling=str(r.get("ruling", "")))

    def _paused(self, setup) -> list:
        """The set-up's parts, each top-level step with an id followed by a mark where a
        game started with Game.new_state(until=ID) stops (and `setup` after the last):
        a scenario sets its differences there (tools/scenario.py, `given: after:`)."""
        doc = self.doc.get("setup", LList())
        out = []
        for i, part in enumerate(setup.parts):
            out.append(part)
            step = doc[i] if i < len(doc) else None
            if isinstance(step, LMap) and "id" in step:
                out.append(Part(items=[(_stop_mark(str(step["id"])), step.pos)], native=False))
        self.prog.stops = tuple(str(s["id"]) for s in doc if isinstance(s, LMap) and "id" in s)
        out.append(Part(items=[(_stop_mark("setup"), NOWHERE)], native=False))
        return out

    def compile_proc(self, name, proc, types=None):
        """Compile a rule's body; its parameters take the types of its first call."""
        scope = Scope()
        for i, param in enumerate(proc.params):
            scope.add(param, types[i] if types else T.ANY)
        g = self.flow
        outer, g.current = g.current, f"rule:{name}"
        proc.block = Block(-1, (), (), name)     # a placeholder while compiling (recursion)
        step = self.rules[name]
        self.compiling.append(name)
        try:
            with self.usage.unit(f"rule:{name}"):
                block, flow = self.steps.compile_block(
                    LList([step]) if not isinstance(step, list) else step, scope, name,
                    positions=[self.rules.where(name)], trace_id=f"rule:{name}",
                    trace_pos=self.rules.where(name))
        finally:
            g.current = outer
            self.compiling.pop()
        g.mark_entries(f"rule:{name}", flow)
        proc.block.ins, proc.block.pos, proc.block.id = block.ins, block.pos, block.id
        self.prog.blocks[block.id] = proc.block
        proc.nlocals = scope.size
        proc.pad = (None,) * (scope.size - len(proc.params))

    # ---- scoring and checks -----------------------------------------------------------------
    def _scoring(self):
        scoring = self.doc.get("scoring", LMap())
        p = self.prog
        g = self.flow
        size = 1
        g.node("scoring", kind="phase", label="scoring")
        for rid, rule in scoring.get("points", LMap()).items():
            scope = Scope()
            scope.add("player", T.PLAYER)      # slot 0: the player being scored
            with self.usage.unit(f"score:{rid}"):
                fn = self.steps.expr_fn(rule["value"], scope, "a score", T.NUM, rule.pos)
            p.points.append((str(rid), fn))
            g.node(f"score:{rid}", kind="score", source=str(rule.get("source", "")),
                   ruling=str(rule.get("ruling", "")))
            g.contains("scoring", f"score:{rid}")
            size = max(size, scope.size)
        previous = None
        for tb in scoring.get("tiebreak", LList()):
            scope = Scope()
            scope.add("player", T.PLAYER)
            tid = str(tb.get("id", f"tiebreak{len(p.tiebreaks) + 1}"))
            with self.usage.unit(f"tiebreak:{tid}"):
                fn = self.steps.expr_fn(tb["value"], scope, "a tie-breaker", T.NUM, tb.pos)
            p.tiebreaks.append((tid, fn))
            node = f"tiebreak:{p.tiebreaks[-1][0]}"
            g.node(node, kind="tiebreak", source=str(tb.get("source", "")),
                   ruling=str(tb.get("ruling", "")))
            g.contains("scoring", node)
            if previous:                # the next tie-breaker counts if the tie persists
                g.edge(previous, node, "next", "scoring")
            previous = node
            size = max(size, scope.size)
        p.score_nlocals = size

    def _invariants(self):
        for iid, inv in self.doc.get("invariants", LMap()).items():
            scope = Scope()
            with self.usage.unit(f"invariant:{iid}"):
                fn = self.steps.expr_fn(inv["value"], scope, "an invariant", T.BOOL, inv.pos)
            self.prog.invariants.append((str(iid), fn, max(scope.size, 1)))
