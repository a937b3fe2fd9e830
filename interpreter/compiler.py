"""Checked spec to executable program.

Input: a located spec document (interpreter/loader.py), already schema-checked, the
number of players and the option values. Output: a Program (interpreter/model.py):
static tables of pieces, zones and variables; rules compiled to blocks of closures; the
action graph (networkx) of rules, steps, decisions and calls. Every name, attribute,
arity and type is checked here; problems are SpecErrors at the spec's line and column.

The action graph's nodes are the phases (setup, play, scoring), rules, steps with an id,
decisions, scoring rules, tie-breakers and components. Its edges are of two sorts: the
structure (`contains`: a phase, rule, step or decision holds a node in its body; `calls`:
a body calls a rule) and the flow (`next`: B may run right after A in the same body, and
phase after phase; `loop`: a loop's body ends and starts again, or an up_to decision is
asked again; `within` names the node whose body the flow is in). A structural edge that
leads to a body's first nodes has `entry: True`.
The flow is drawn by `tabula graph`; running a game never reads the graph.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import networkx as nx

from . import ast
from . import types as T
from .errors import NOWHERE, Pos, RuleError, SpecError, did_you_mean
from .expressions import ExprCompiler, Scope, check_arity
from .loader import LList, LMap, LStr
from .model import CHANCE, DONE, SKIP, Alt, Block, Decision, Loop, Proc, Program, ZoneInfo
from .parser import parse
from .runtime import move_one, move_pieces, pieces_of_zone, shuffle_list, swap_pieces

MAX_PIECES = 100_000
ANY_ZONE = ZoneInfo("any zone", "any", False, 1, 0, "public", [None])
MAX_SLOTS = 100_000
STEP_SHAPES = ("choose_one", "choose", "turns", "match", "repeat", "while", "for", "if", "do")
SPECIAL_NAMES = ("current", "players", "option")
VAR_TYPES = {"int": T.INT, "bool": T.BOOL, "text": T.STR, "player": T.PLAYER,
             "piece": T.PIECE}     # and "cell", added once ANY_ZONE exists (below)
AGGREGATES = ("sum", "count", "max", "min", "any", "all", "tally", "list", "first")
STRUCTURE = ("contains", "calls")      # the action graph's edges that are not flow


def _name_uses(node, out=None, weight: int = 1) -> dict:
    """How many times each name is read when an expression is evaluated once; a read
    inside a generator or a group counts as many (it runs once per item)."""
    out = {} if out is None else out
    if isinstance(node, ast.Name):
        out[node.id] = out.get(node.id, 0) + weight
    elif isinstance(node, ast.Generator):
        _name_uses(node.source, out, weight)
        for part in (node.elt, node.cond, node.lets):
            _name_uses(part, out, 2)
    elif isinstance(node, ast.Region):
        _name_uses(node.start, out, weight)
        _name_uses(node.cond, out, 2)
    elif isinstance(node, ast.Node):
        for value in vars(node).values():
            _name_uses(value, out, weight)
    elif isinstance(node, tuple):
        for value in node:
            _name_uses(value, out, weight)
    return out


def tally_of(values) -> dict:
    """How many times each value occurs, in order of first occurrence."""
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def plain(v):
    """Located YAML data -> plain Python data (for data tables and option values)."""
    if isinstance(v, dict):
        return {plain(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, LStr):
        return str(v)
    return v


def type_of_value(v) -> tuple:
    if isinstance(v, bool):
        return T.BOOL
    if isinstance(v, int):
        return T.INT
    if isinstance(v, str):
        return T.STR
    if isinstance(v, list):
        return T.list_of(_common_type(v))
    if isinstance(v, dict):
        if not v:
            return T.map_of(T.ANY, T.ANY)
        return T.map_of(_common_type(list(v)), _common_type(list(v.values())))
    return T.ANY


def _common_type(values) -> tuple:
    """The type of a list's or a table's items: ANY when they differ (a data record)."""
    if not values:
        return T.ANY
    types = {type_of_value(x) for x in values}
    return types.pop() if len(types) == 1 else T.ANY


VAR_TYPES["cell"] = T.slot(ANY_ZONE)


def _count_fired(st, key: str) -> None:
    """A traced game's count: `key` fired once more."""
    st.fired[key] = st.fired.get(key, 0) + 1


def _unique(items) -> list:
    return list(dict.fromkeys(items))


@dataclass
class Flow:
    """How control passes through a block, as the action graph sees it: the graph nodes
    (steps with an id, decisions, called rules) the block may reach first (`entries`),
    those it may leave from (`exits`), and whether it may run reaching none (`through`)."""
    entries: list = field(default_factory=list)
    exits: list = field(default_factory=list)
    through: bool = True

    @classmethod
    def node(cls, name: str) -> "Flow":
        return cls([name], [name], False)

    @classmethod
    def either(cls, parts) -> "Flow":
        """One of several branches runs (if/else, match cases, a decision's options)."""
        parts = list(parts)
        return cls(_unique(e for p in parts for e in p.entries),
                   _unique(x for p in parts for x in p.exits),
                   not parts or any(p.through for p in parts))

    def maybe(self) -> "Flow":
        """The same, possibly not run at all (a loop that runs no time)."""
        return Flow(list(self.entries), list(self.exits), True)

    def then(self, part: "Flow", link) -> None:
        """Append `part`, run after what came before; link(a, b) for each way from
        this flow's exits into part."""
        for a in self.exits:
            for b in part.entries:
                link(a, b)
        if self.through:
            self.entries = _unique(self.entries + part.entries)
        self.exits = _unique(self.exits + part.exits) if part.through else list(part.exits)
        self.through = self.through and part.through


class Compiler:
    """One spec, one player count, one set of options -> one Program."""

    def __init__(self, doc: LMap, players: int, options: dict, file: str = "",
                 trace: bool = False):
        self.doc = doc
        self.file = file
        self.trace = trace
        game = doc["game"]
        self.prog = Program(spec_id=str(game["id"]), players=players, options=options,
                            traced=trace)
        self.prog.max_steps = int(game.get("max_steps", self.prog.max_steps))
        self.x = ExprCompiler(self)
        self.enums = {k: [str(m) for m in v] for k, v in doc.get("enums", {}).items()}
        self.member_of = {}
        for e, members in self.enums.items():
            for m in members:
                self.member_of.setdefault(m, e)
        self.data = {k: plain(v["value"]) for k, v in doc.get("data", {}).items()}
        self.functions = doc.get("functions", LMap())
        self._function_asts: dict = {}
        self.tables: dict = {}          # table variable -> (per player, first index, keys)
        self.compiling_functions: list = []
        self.rules = doc.get("rules", LMap())
        self.graph = nx.DiGraph()
        self.current_rule = "setup"
        self.step_ids: dict = {}
        self.flows: dict = {}           # block id -> its Flow (for the graph's flow edges)
        self._flow_stack: list = []     # the Flow of each block being compiled

    # ---- entry ------------------------------------------------------------------------
    def compile(self) -> Program:
        self._check_namespaces()
        self._zones()
        self._variables()
        self._components()
        self._procs()
        p = self.prog
        root = Scope()
        self.current_rule = "setup"
        self.graph.add_node("setup", kind="phase", label="setup")
        setup = self._block(self.doc.get("setup", LList()), root, "setup")
        self._mark_entries("setup", setup)
        self.current_rule = "play"
        self.graph.add_node("play", kind="phase", label="play")
        play = self._block(self.doc.get("play", LList()), root, "play")
        self._mark_entries("play", play)
        p.root_full = self._new_block(setup.ins + play.ins, setup.pos + play.pos, "game")
        p.root_play = play
        p.root_nlocals = root.size
        for name, proc in p.procs.items():
            if proc.block is None:
                self._compile_proc(name, proc)
        self._scoring()
        self._flow_edge("setup", "play", "next")
        self._flow_edge("play", "scoring", "next")
        self._invariants()
        self._check_reachable()
        p.graph = self.graph
        p.compiler = self          # for expressions compiled later (scenarios, tools)
        return p

    def expression(self, text):
        """Compile rule text against this program, after the fact: fn(state) -> value."""
        scope = Scope()
        fn, typ = self.x.compile(parse(text, "expression"), scope)
        size = max(scope.size, 1)
        return (lambda st: fn(st, [None] * size)), typ

    # ---- names ------------------------------------------------------------------------
    def _check_namespaces(self):
        seen: dict = {}
        sections = [("zone", "zones"), ("variable", "variables"), ("data table", "data"),
                    ("enum", "enums"), ("function", "functions")]
        for what, section in sections:
            block = self.doc.get(section, LMap())
            for name in block:
                self._claim(seen, str(name), what, block.where_key(name))
        for e, members in self.doc.get("enums", LMap()).items():
            for i, m in enumerate(members):
                if str(m) in seen and seen[str(m)][0] != "enum value":
                    self._claim(seen, str(m), "enum value", members.where(i))
                seen.setdefault(str(m), ("enum value", members.where(i)))

    @staticmethod
    def _claim(seen, name, what, pos):
        if name in SPECIAL_NAMES or name.startswith("_"):
            raise SpecError(f"'{name}' is reserved and cannot name a {what}", pos)
        if name in seen:
            other, opos = seen[name]
            raise SpecError(f"'{name}' names both a {other} (line {opos.line}) and a {what}",
                            pos, "give each thing its own name")
        seen[name] = (what, pos)

    def all_names(self):
        d = self.doc
        return (list(SPECIAL_NAMES) + list(d.get("zones", {})) + list(d.get("variables", {}))
                + list(d.get("data", {})) + list(d.get("enums", {})) + list(self.member_of))

    def resolve_name(self, node: ast.Name):
        name = node.id
        p = self.prog
        if name == "current":
            return (lambda st, L: st.current), T.PLAYER
        if name == "players":
            everyone = list(range(p.players))
            return (lambda st, L: list(everyone)), T.list_of(T.PLAYER)
        if name in self.tables and not self.tables[name][0]:
            _, base, keys = self.tables[name]
            pairs = tuple((k, base + i) for i, k in enumerate(keys))
            return (lambda st, L: {k: st.gv[i] for k, i in pairs}), T.map_of(
                type_of_value(keys[0]), self.gvar_types[base])
        if name in p.gvar_names:
            i = p.gvar_names.index(name)
            typ = self.gvar_types[i]
            return (lambda st, L: st.gv[i]), typ
        if name in p.pvar_names:
            raise SpecError(f"'{name}' is a per-player variable", node.pos,
                            f"write p.{name} for a player p (current.{name} for the current player)")
        if name in p.zones:
            z = p.zones[name]
            if z.per_player:
                raise SpecError(f"'{name}' is a per-player zone", node.pos,
                                f"write p.{name} for a player p (current.{name} for the current player)")
            base = z.base
            typ = T.slot(z) if z.nslots == 1 else T.zone(z)
            return (lambda st, L: base), typ
        if name in self.data:
            v = self.data[name]
            if isinstance(v, (list, dict)):
                return (lambda st, L: v), type_of_value(v)
            return (lambda st, L: v), type_of_value(v)
        if name in self.enums:
            members = list(self.enums[name])
            return (lambda st, L: members), ("enumtype", name)
        if name in self.member_of:
            return (lambda st, L: name), T.enum(self.member_of[name])
        if name in self.functions:
            raise SpecError(f"'{name}' is a function; call it", node.pos, f"write {name}(...)")
        raise SpecError(f"unknown name '{name}'", node.pos,
                        did_you_mean(name, self.all_names()))

    def resolve_option(self, node: ast.Attr):
        opts = self.doc.get("options", LMap())
        if node.name not in opts:
            raise SpecError(f"unknown option '{node.name}'", node.pos,
                            did_you_mean(node.name, opts) or
                            "options are declared under options:")
        v = self.prog.options[node.name]
        return (lambda st, L: v), type_of_value(v)

    def resolve_attr(self, node: ast.Attr, obj, typ, slot=None):
        """obj.name; `slot` is set when obj is a local (read it directly: a hot path)."""
        p = self.prog
        name = node.name
        if typ == T.PIECE:
            if name not in p.piece_attrs:
                raise SpecError(f"pieces have no attribute '{name}'", node.pos,
                                did_you_mean(name, p.piece_attrs) or
                                f"attributes: {', '.join(sorted(p.piece_attrs))}")
            table = p.piece_attrs[name]
            atyp = self.attr_types[name]
            # none (no piece) fails as a TypeError, reported by the engine at this step
            if slot is not None:
                return (lambda st, L: table[L[slot]]), atyp
            return (lambda st, L: table[obj(st, L)]), atyp
        if typ == T.PLAYER:
            if name in p.zones and p.zones[name].per_player:
                z = p.zones[name]
                base, n = z.base, z.nslots
                ztyp = T.slot(z) if n == 1 else T.zone(z)
                return (lambda st, L: base + obj(st, L) * n), ztyp
            if name in self.tables and self.tables[name][0]:
                _, base, keys = self.tables[name]
                pairs = tuple((k, base + i) for i, k in enumerate(keys))
                return (lambda st, L: {k: st.pv[obj(st, L)][i] for k, i in pairs}), T.map_of(
                    type_of_value(keys[0]), self.pvar_types[base])
            if name in p.pvar_names:
                i = p.pvar_names.index(name)
                return (lambda st, L: st.pv[obj(st, L)][i]), self.pvar_types[i]
            owned = [z for z, info in p.zones.items() if info.per_player] + list(p.pvar_names)
            raise SpecError(f"players have no zone or variable '{name}'", node.pos,
                            did_you_mean(name, owned) or
                            "per-player zones and variables are declared with per_player: true")
        raise SpecError(f"{T.describe(typ)} has no attribute '{name}'", node.pos,
                        "attributes belong to pieces (t.value) and players (p.hand)")

    # ---- collections at run time --------------------------------------------------------
    def items_fn(self, typ, src):
        """fn(st, L) -> a list to iterate over, for a value of type typ."""
        if typ[0] == "slot":
            return lambda st, L: list(st.slots[src(st, L)])
        if typ[0] == "zone":
            n = typ[1].nslots
            return lambda st, L: pieces_of_zone(st, src(st, L), n)
        if typ[0] in ("map", "counts"):
            return lambda st, L: list(src(st, L))
        return src

    def contains_fn(self, typ):
        if typ[0] == "slot":
            return lambda st, v, s: v is not None and st.where[v] == s
        if typ[0] == "zone":
            n = typ[1].nslots
            return lambda st, v, b: v is not None and b <= st.where[v] < b + n
        return lambda st, v, coll: v in coll

    # ---- aggregates and functions -------------------------------------------------------
    def aggregate(self, node: ast.Aggregate, run, etyp, dflt):
        name = node.name
        pos = node.pos
        if name not in AGGREGATES:
            raise SpecError(f"'{name}' does not take a generator", node.pos,
                            did_you_mean(name, AGGREGATES) or f"one of {', '.join(AGGREGATES)}")
        if dflt is not None and name not in ("max", "min", "first"):
            raise SpecError(f"{name}() takes no default", node.default.pos,
                            "only max, min and first have a default (for nothing to choose from)")
        if name == "sum":
            if etyp not in (T.INT, T.BOOL, T.ANY):
                raise SpecError(f"sum() adds numbers, not {T.describe(etyp)}", node.gen.elt.pos)
            return (lambda st, L: sum(run(st, L))), T.INT
        if name == "count":
            return run.count_of, T.INT
        if name in ("max", "min"):
            f = max if name == "max" else min

            def best(st, L):
                vals = run(st, L)
                if vals:
                    return f(vals)
                if dflt is None:
                    raise RuleError(f"{name}() of nothing, and no default given", pos,
                                    f"write {name}(... , 0) to give a default")
                return dflt(st, L)
            return best, etyp
        if name == "any":
            return run.any_of, T.BOOL
        if name == "all":
            return run.all_of, T.BOOL
        if name == "tally":
            return (lambda st, L: tally_of(run(st, L))), T.map_of(etyp, T.INT, counts=True)
        if name == "list":
            return run, T.list_of(etyp)
        if dflt is None:
            return run.first_of, etyp
        lazy = run.lazy

        def first(st, L):
            for v in lazy(st, L):
                return v
            return dflt(st, L)
        return first, etyp

    def call_function(self, node: ast.Func, args, scope):
        builtin = getattr(self, "f_" + node.name, None)
        if builtin is not None:
            return builtin(node, args)
        if node.name in self.functions:
            return self._spec_function(node, args, scope)
        if node.name in AGGREGATES:
            return self._aggregate_of_list(node, args)
        known = [n[2:] for n in dir(self) if n.startswith("f_")] + list(self.functions)
        raise SpecError(f"unknown function '{node.name}'", node.pos,
                        did_you_mean(node.name, known + list(AGGREGATES)))

    def _aggregate_of_list(self, node, args):
        """sum(list), max(a, b), min(a, b), count(list), any(list), all(list)."""
        name = node.name
        if name in ("max", "min") and len(args) == 2:
            (a, ta), (b, _) = args
            f = max if name == "max" else min
            return (lambda st, L: f(a(st, L), b(st, L))), ta
        check_arity(node, len(args), 1)
        (a, ta), = args
        items = self.items_fn(ta, a)
        et = T.elem(ta)
        if name == "sum":
            if et not in (T.INT, T.BOOL, T.ANY):
                raise SpecError(f"sum() adds numbers, not {T.describe(et)}", node.args[0].pos)
            return (lambda st, L: sum(items(st, L))), T.INT
        if name == "count":
            return (lambda st, L: len(items(st, L))), T.INT
        if name == "tally":
            return (lambda st, L: tally_of(items(st, L))), T.map_of(et, T.INT, counts=True)
        if name in ("max", "min"):
            f = max if name == "max" else min
            pos = node.pos

            def best(st, L):
                vals = items(st, L)
                if not vals:
                    raise RuleError(f"{name}() of nothing", pos)
                return f(vals)
            return best, et
        if name == "first":
            return (lambda st, L: next(iter(items(st, L)), None)), et
        if name == "list":
            return items, T.list_of(et)
        f = any if name == "any" else all
        return (lambda st, L: f(items(st, L))), T.BOOL

    def _spec_function(self, node, args, scope):
        """A spec function: inlined at the call (its parameters replaced by the argument
        expressions) when no argument would be computed twice; otherwise called."""
        name = node.name
        fdef = self.functions[name]
        params = [str(p) for p in fdef.get("params", [])]
        if len(args) != len(params):
            raise SpecError(f"{name}() takes {len(params)} argument"
                            f"{'s' if len(params) != 1 else ''}, not {len(args)}", node.pos)
        if name in self.compiling_functions:
            raise SpecError(f"function '{name}' calls itself", node.pos,
                            "functions may not be recursive; use a rule")
        body_ast = self._function_ast(name)
        uses = _name_uses(body_ast)
        inline = all(uses.get(p, 0) <= 1 or isinstance(a, (ast.Name, ast.Const))
                     for p, a in zip(params, node.args))
        self.compiling_functions.append(name)
        try:
            if inline:
                inner = Scope(counter=scope.counter)    # its locals live in the caller's frame
                for pname, (fn, typ) in zip(params, args):
                    inner.alias(pname, fn, typ)
                body, typ = self.x.compile(body_ast, inner)
                if params:
                    return body, typ
                key = ("function", name)

                def constant_while_listing(st, L):
                    memo = st.memo
                    if memo is None:
                        return body(st, L)
                    found = memo.get(key, memo)
                    if found is memo:
                        found = memo[key] = body(st, L)
                    return found
                return constant_while_listing, typ
            own = Scope()
            for pname, (_, typ) in zip(params, args):
                own.add(pname, typ)
            body, typ = self.x.compile(body_ast, own)
        finally:
            self.compiling_functions.pop()
        fns = tuple(f for f, _ in args)
        size = own.size
        pad = [None] * (size - len(fns))
        if len(fns) == 1:
            a0 = fns[0]
            return (lambda st, L: body(st, [a0(st, L)] + pad)), typ
        return (lambda st, L: body(st, [f(st, L) for f in fns] + pad)), typ

    def _function_ast(self, name):
        cached = self._function_asts.get(name)
        if cached is None:
            cached = self._function_asts[name] = parse(self.functions[name]["value"],
                                                       "expression")
        return cached

    # builtins: one method each, f_<name>(node, args) -> (fn, type)
    def _slot_arg(self, node, args, i=0, zone_ok=False):
        fn, typ = args[i]
        if typ[0] == "slot" or (zone_ok and typ[0] == "zone"):
            return fn, typ
        want = "a zone or one of its slots" if zone_ok else "a zone of one slot (or zone[i])"
        raise SpecError(f"{node.name}() needs {want} here, not {T.describe(typ)}",
                        node.args[i].pos)

    def _piece_arg(self, node, args, i=0):
        fn, typ = args[i]
        if typ not in (T.PIECE, T.ANY, T.NONE):
            raise SpecError(f"{node.name}() needs a piece, not {T.describe(typ)}",
                            node.args[i].pos)
        return fn

    def f_size(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = args[0]
        if typ[0] == "slot":
            return (lambda st, L: len(st.slots[fn(st, L)])), T.INT
        if typ[0] == "zone":
            n = typ[1].nslots
            return (lambda st, L: sum(len(s) for s in st.slots[fn(st, L):fn(st, L) + n])), T.INT
        return (lambda st, L: len(fn(st, L))), T.INT

    def f_capacity(self, node, args):
        check_arity(node, len(args), 1)
        fn, _ = self._slot_arg(node, args)
        cap = self.prog.slot_cap
        big = MAX_PIECES
        return (lambda st, L: cap[fn(st, L)] if cap[fn(st, L)] is not None else big), T.INT

    def f_full(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = self._slot_arg(node, args, zone_ok=True)
        cap = self.prog.slot_cap
        n = typ[1].nslots if typ[0] == "zone" else 1
        if any(cap[s] is None for s in range(typ[1].base, typ[1].base + n)):
            raise SpecError(f"zone '{typ[1].name}' has no capacity, so it is never full",
                            node.pos, "give the zone a capacity or capacities")

        def full(st, L):
            b = fn(st, L)
            slots = st.slots
            for s in range(b, b + n):
                if len(slots[s]) < cap[s]:
                    return False
            return True
        return full, T.BOOL

    def f_top(self, node, args):
        check_arity(node, len(args), 1, 2)
        fn, _ = self._slot_arg(node, args)
        if len(args) == 1:
            def top(st, L):
                s = st.slots[fn(st, L)]
                return s[-1] if s else None
            return top, T.PIECE
        n, _ = args[1]

        def top_n(st, L):
            s = st.slots[fn(st, L)]
            k = n(st, L)
            return s[:-k - 1:-1] if k > 0 else []
        return top_n, T.list_of(T.PIECE)

    def f_bottom(self, node, args):
        check_arity(node, len(args), 1, 2)
        fn, _ = self._slot_arg(node, args)
        if len(args) == 1:
            def bottom(st, L):
                s = st.slots[fn(st, L)]
                return s[0] if s else None
            return bottom, T.PIECE
        n, _ = args[1]
        return (lambda st, L: st.slots[fn(st, L)][:max(n(st, L), 0)]), T.list_of(T.PIECE)

    def f_first(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = args[0]
        if typ[0] == "slot":
            def first(st, L):
                s = st.slots[fn(st, L)]
                return s[0] if s else None
            return first, T.PIECE
        return self._aggregate_of_list(node, args)

    def f_slots(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = self._slot_arg(node, args, zone_ok=True)
        idx = list(range(typ[1].nslots))
        return (lambda st, L: list(idx)), T.list_of(T.INT)

    def f_open_slots(self, node, args):
        """The slot numbers of a zone that still have room (all of them if unbounded)."""
        check_arity(node, len(args), 1)
        fn, typ = self._slot_arg(node, args, zone_ok=True)
        n = typ[1].nslots if typ[0] == "zone" else 1
        cap = self.prog.slot_cap
        big = MAX_PIECES

        def open_slots(st, L):
            b = fn(st, L)
            slots = st.slots
            return [i for i in range(n)
                    if len(slots[b + i]) < (cap[b + i] if cap[b + i] is not None else big)]
        return open_slots, T.list_of(T.INT)

    def f_levels(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = self._slot_arg(node, args, zone_ok=True)
        n = typ[1].nslots if typ[0] == "zone" else 1

        def levels(st, L):
            b = fn(st, L)
            return list(range(1, max(len(s) for s in st.slots[b:b + n]) + 1))
        return levels, T.list_of(T.INT)

    def f_row(self, node, args):
        check_arity(node, len(args), 2)
        fn, typ = self._slot_arg(node, args, zone_ok=True)
        n = typ[1].nslots if typ[0] == "zone" else 1
        h, _ = args[1]

        def row(st, L):
            b = fn(st, L)
            i = h(st, L) - 1
            return [s[i] for s in st.slots[b:b + n] if 0 <= i < len(s)]
        return row, T.list_of(T.PIECE)

    def f_column(self, node, args):
        check_arity(node, len(args), 1)
        fn = self._piece_arg(node, args)
        idx = self.prog.slot_index
        return (lambda st, L: idx[st.where[fn(st, L)]]), T.INT

    def f_level(self, node, args):
        check_arity(node, len(args), 1)
        fn = self._piece_arg(node, args)

        def level(st, L):
            p = fn(st, L)
            return st.slots[st.where[p]].index(p) + 1
        return level, T.INT

    def f_under(self, node, args):
        check_arity(node, len(args), 1)
        fn = self._piece_arg(node, args)

        def under(st, L):
            p = fn(st, L)
            s = st.slots[st.where[p]]
            return s[:s.index(p)]
        return under, T.list_of(T.PIECE)

    def _neighbour(self, node, args, dslot, dlevel):
        check_arity(node, len(args), 1)
        fn = self._piece_arg(node, args)
        prog = self.prog
        zone_of, index_of = prog.slot_zone, prog.slot_index
        zones = prog.zone_list

        def neighbour(st, L):
            p = fn(st, L)
            if p is None:
                return None
            s = st.where[p]
            col = st.slots[s]
            i = col.index(p) + dlevel
            if dslot:
                # the next slot in the same row: a grid's rows do not wrap
                j = index_of[s] % zones[zone_of[s]].width + dslot
                if not 0 <= j < zones[zone_of[s]].width:
                    return None
                col = st.slots[s + dslot]
            return col[i] if 0 <= i < len(col) else None
        return neighbour, T.PIECE

    def f_below(self, node, args):
        return self._neighbour(node, args, 0, -1)

    def f_above(self, node, args):
        return self._neighbour(node, args, 0, 1)

    def f_left(self, node, args):
        return self._neighbour(node, args, -1, 0)

    def f_right(self, node, args):
        return self._neighbour(node, args, 1, 0)

    # grids (and any zone of several slots, read as one row): cells and their geometry
    def _cell_arg(self, node, args, i=0):
        fn, typ = args[i]
        if typ[0] != "slot" and typ != T.ANY:
            raise SpecError(f"{node.name}() needs a cell (a slot of a zone), not "
                            f"{T.describe(typ)}", node.args[i].pos,
                            "a cell is grid[x, y], an item of cells(grid), or cell(piece)")
        return fn

    def f_cells(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = self._slot_arg(node, args, zone_ok=True)
        n = typ[1].nslots if typ[0] == "zone" else 1
        return (lambda st, L: list(range(fn(st, L), fn(st, L) + n))), T.list_of(
            T.slot(typ[1]))

    def _coordinate(self, node, args, horizontal: bool):
        check_arity(node, len(args), 1)
        fn = self._cell_arg(node, args)
        axis = 0 if horizontal else 1
        table = tuple(c[axis] for c in self._xy())
        return (lambda st, L: table[fn(st, L)]), T.INT

    def f_x(self, node, args):
        return self._coordinate(node, args, True)

    def f_y(self, node, args):
        return self._coordinate(node, args, False)

    def f_cell(self, node, args):
        """The slot (cell) a piece is in."""
        check_arity(node, len(args), 1)
        fn = self._piece_arg(node, args)
        return (lambda st, L: st.where[fn(st, L)]), T.slot(ANY_ZONE)

    def f_adjacent(self, node, args):
        check_arity(node, len(args), 1)
        fn = self._cell_arg(node, args)
        table = self.prog.adj4
        return (lambda st, L: list(table[fn(st, L)])), T.list_of(T.slot(ANY_ZONE))

    def f_around(self, node, args):
        check_arity(node, len(args), 1)
        fn = self._cell_arg(node, args)
        table = self.prog.adj8
        return (lambda st, L: list(table[fn(st, L)])), T.list_of(T.slot(ANY_ZONE))

    def _xy(self):
        p = self.prog
        return tuple((p.slot_index[s] % p.zone_list[p.slot_zone[s]].width,
                      p.slot_index[s] // p.zone_list[p.slot_zone[s]].width)
                     for s in range(p.nslots))

    def _distance(self, node, args, combine):
        check_arity(node, len(args), 2)
        a, b = self._cell_arg(node, args, 0), self._cell_arg(node, args, 1)
        xy = self._xy()

        def distance(st, L):
            (ax, ay), (bx, by) = xy[a(st, L)], xy[b(st, L)]
            return combine(abs(ax - bx), abs(ay - by))
        return distance, T.INT

    def f_distance(self, node, args):
        """Steps between two cells, diagonal steps allowed (the king's distance)."""
        return self._distance(node, args, max)

    def f_orthogonal_distance(self, node, args):
        """Steps between two cells moving orthogonally only."""
        return self._distance(node, args, lambda dx, dy: dx + dy)

    def f_on_edge(self, node, args):
        check_arity(node, len(args), 1)
        fn = self._cell_arg(node, args)
        p = self.prog
        edge = tuple(len(p.adj4[s]) < 4 and p.zone_list[p.slot_zone[s]].kind == "grid"
                     for s in range(p.nslots))
        return (lambda st, L: edge[fn(st, L)]), T.BOOL

    def f_corner(self, node, args):
        check_arity(node, len(args), 1)
        fn = self._cell_arg(node, args)
        p = self.prog
        corner = tuple(len(p.adj4[s]) == 2 and p.zone_list[p.slot_zone[s]].kind == "grid"
                       for s in range(p.nslots))
        return (lambda st, L: corner[fn(st, L)]), T.BOOL

    def region(self, node, scope):
        """group(c from start where cond): flood fill through cells satisfying cond."""
        if node.name not in ("group", "group_around"):
            raise SpecError(f"'{node.name}(... from ...)' is not a function", node.pos,
                            did_you_mean(node.name, ["group", "group_around"]) or
                            "group(c from start where ...) or group_around(...)")
        start, styp = self.x.compile(node.start, scope)
        if styp[0] != "slot" and styp != T.ANY:
            raise SpecError(f"a group starts from a cell, not {T.describe(styp)}",
                            node.start.pos)
        inner = scope.child()
        var = inner.add(node.var, T.slot(ANY_ZONE))
        cond = self.x.expect(node.cond, inner, T.BOOL, "a group's condition")
        table = self.prog.adj4 if node.name == "group" else self.prog.adj8
        frees = self._free_readers(node.cond, {node.var}, scope)
        gid = id(node)

        def flood(st, L, first):
            L[var] = first
            if first is None or not cond(st, L):
                return []
            seen = {first}
            todo = [first]
            while todo:
                c = todo.pop()
                for n in table[c]:
                    if n not in seen:
                        L[var] = n
                        if cond(st, L):
                            seen.add(n)
                            todo.append(n)
            return sorted(seen)

        def group(st, L):
            first = start(st, L)
            memo = st.memo
            if memo is None:
                return flood(st, L, first)
            # while a decision's actions are listed the state cannot change: reuse floods
            key = (gid, first) + tuple(f(st, L) for f in frees)
            found = memo.get(key)
            if found is None:
                found = memo[key] = flood(st, L, first)
            return found
        return group, T.list_of(T.slot(ANY_ZONE))

    def _free_readers(self, node, bound: set, scope) -> tuple:
        """Closures reading the locals an expression uses besides `bound` (for memo keys)."""
        out = []
        for name in _name_uses(node):
            entry = scope.names.get(name)
            if name in bound or entry is None:
                continue
            if entry[0] is None:
                out.append(entry[2])
            else:
                out.append(lambda st, L, slot=entry[0]: L[slot])
        return tuple(out)

    def f_values(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = args[0]
        if typ[0] == "enumtype":
            return fn, T.list_of(T.enum(typ[1]))
        if typ[0] in ("map", "counts"):
            return (lambda st, L: list(fn(st, L).values())), T.list_of(typ[2])
        if typ == T.ANY:            # an entry of a data record: checked when it runs
            return (lambda st, L: list(fn(st, L).values())), T.list_of(T.ANY)
        raise SpecError(f"values() needs an enum or a table, not {T.describe(typ)}", node.pos)

    def f_keys(self, node, args):
        check_arity(node, len(args), 1)
        fn, typ = args[0]
        if typ == T.ANY:            # an entry of a data record: checked when it runs
            return (lambda st, L: list(fn(st, L))), T.list_of(T.ANY)
        if typ[0] not in ("map", "counts"):
            raise SpecError(f"keys() needs a table, not {T.describe(typ)}", node.pos)
        return (lambda st, L: list(fn(st, L))), T.list_of(typ[1])

    def f_leaders(self, node, args):
        """The keys of a table holding its greatest value (sorted), [] if empty."""
        check_arity(node, len(args), 1)
        fn, typ = args[0]
        if typ[0] not in ("map", "counts"):
            raise SpecError(f"leaders() needs a table, not {T.describe(typ)}", node.pos)

        def leaders(st, L):
            m = fn(st, L)
            if not m:
                return []
            top = max(m.values())
            return sorted(k for k, v in m.items() if v == top)
        return leaders, T.list_of(typ[1])

    def f_rank(self, node, args):
        """rank(x, values): 1 + how many values beat x (ties share a rank; 1, 1, 3)."""
        check_arity(node, len(args), 2)
        (x, _), (vals, vt) = args
        return (lambda st, L: 1 + sum(1 for v in vals(st, L) if v > x(st, L))), T.INT

    def f_dense_rank(self, node, args):
        """dense_rank(x, values): 1 + how many distinct values beat x (1, 1, 2)."""
        check_arity(node, len(args), 2)
        (x, _), (vals, vt) = args
        return (lambda st, L: 1 + len({v for v in vals(st, L) if v > x(st, L)})), T.INT

    def f_next_player(self, node, args):
        check_arity(node, len(args), 1)
        fn, _ = args[0]
        n = self.prog.players
        return (lambda st, L: (fn(st, L) + 1) % n), T.PLAYER

    def f_abs(self, node, args):
        check_arity(node, len(args), 1)
        fn, _ = args[0]
        return (lambda st, L: abs(fn(st, L))), T.INT

    def f_range(self, node, args):
        check_arity(node, len(args), 2)
        (a, _), (b, _) = args
        pos = node.pos

        def rng(st, L):
            lo, hi = a(st, L), b(st, L)
            if hi - lo > 100_000:
                raise RuleError("range() of more than 100000 numbers", pos)
            return list(range(lo, hi + 1))
        return rng, T.list_of(T.INT)

    # ---- tables: zones, variables, components ----------------------------------------------
    def const(self, text, scope=None, what="expression"):
        """Evaluate rule text that depends only on data, enums and options."""
        if isinstance(text, (int, bool)) or text is None:
            return text
        if isinstance(text, list):
            return plain(text)
        node = parse(text, what)
        fn, typ = self.x.compile(node, scope or Scope())
        return fn(None, [None] * 16), typ

    def _const_fn(self, text, scope):
        """Compile text that depends only on data, enums, options and the scope's
        names: fn(locals) -> value."""
        if not isinstance(text, str):
            value = plain(text)
            return lambda L: value
        fn, _ = self.x.compile(parse(text, "expression"), scope)
        pos = getattr(text, "pos", NOWHERE)

        def const(L):
            try:
                return fn(None, L)
            except (AttributeError, TypeError) as exc:
                raise SpecError("this must be computed from data, enums and options only",
                                pos) from exc
        return const

    def _const_value(self, text, scope=None, L=None):
        if not isinstance(text, str):
            return plain(text)
        node = parse(text, "expression")
        fn, _ = self.x.compile(node, scope or Scope())
        try:
            return fn(None, L if L is not None else [None] * 16)
        except (AttributeError, TypeError) as exc:
            raise SpecError("this must be computed from data, enums and options only",
                            getattr(text, "pos", NOWHERE)) from exc

    def _zones(self):
        p = self.prog
        base = 0
        for name, z in self.doc.get("zones", LMap()).items():
            kind = str(z["kind"])
            caps: list
            if "capacities" in z:
                caps = self._const_value(z["capacities"])
                if not isinstance(caps, list) or not all(isinstance(c, int) and c >= 0 for c in caps):
                    raise SpecError("capacities must be a list of numbers", z.where("capacities"))
            elif kind == "grid":
                w, h = self._const_value(z.get("width", 1)), self._const_value(z.get("height", 1))
                cap = self._const_value(z["capacity"]) if "capacity" in z else 1
                caps = [cap] * (w * h)
            else:
                n = self._const_value(z.get("size", 1))
                cap = self._const_value(z["capacity"]) if "capacity" in z else None
                caps = [cap] * n
            if kind in ("stack", "set", "row") and len(caps) != 1:
                raise SpecError(f"a {kind} zone has one slot", z.pos)
            per = bool(z.get("per_player", False))
            info = ZoneInfo(str(name), kind, per, len(caps), base, str(z.get("visibility", "public")),
                            caps, pos=self.doc["zones"].where_key(name))
            if kind == "grid":
                info.width, info.height = w, h
            else:
                info.width, info.height = len(caps), 1
            owners = p.players if per else 1
            zi = len(p.zones)
            p.zones[str(name)] = info
            p.zone_list.append(info)
            for o in range(owners):
                for i, c in enumerate(caps):
                    p.slot_zone.append(zi)
                    p.slot_owner.append(o if per else -1)
                    p.slot_index.append(i)
                    p.slot_cap.append(c)
            base += owners * len(caps)
            if base > MAX_SLOTS:
                raise SpecError(f"more than {MAX_SLOTS} zone slots", info.pos)
        p.nslots = base
        self._neighbours()

    def _neighbours(self):
        """Each slot's orthogonal and all-round neighbours within its zone (and owner)."""
        p = self.prog
        p.adj4 = [()] * p.nslots
        p.adj8 = [()] * p.nslots
        for z in p.zone_list:
            if z.nslots == 1:
                continue
            w, h = z.width, z.height
            for owner in range(p.players if z.per_player else 1):
                base = z.slot(owner, 0)
                for i in range(z.nslots):
                    x, y = i % w, i // w
                    near4, near8 = [], []
                    for dy in (-1, 0, 1):
                        for dx in (-1, 0, 1):
                            nx, ny = x + dx, y + dy
                            if (dx or dy) and 0 <= nx < w and 0 <= ny < h:
                                near8.append(base + ny * w + nx)
                                if not (dx and dy):
                                    near4.append(base + ny * w + nx)
                    p.adj4[base + i] = tuple(near4)
                    p.adj8[base + i] = tuple(near8)

    def _variables(self):
        p = self.prog
        self.gvar_types, self.pvar_types = [], []
        for name, v in self.doc.get("variables", LMap()).items():
            init = plain(v.get("value", 0))
            if isinstance(init, dict):
                self._table_variable(str(name), v, init)
                continue
            typ = VAR_TYPES.get(str(v.get("type", "")), None) or type_of_value(init)
            if "type" in v and str(v["type"]) in self.enums:
                typ = T.enum(str(v["type"]))
            elif "type" in v and str(v["type"]) not in VAR_TYPES:
                raise SpecError(f"unknown variable type '{v['type']}'", v.where("type"),
                                did_you_mean(str(v["type"]), list(VAR_TYPES) + list(self.enums))
                                or f"one of: {', '.join(VAR_TYPES)}, or an enum")
            if str(v.get("visibility", "public")) == "owner" and not v.get("per_player"):
                raise SpecError("only a per-player variable can be seen by its owner alone",
                                v.where("visibility"), "use per_player: true, or hidden")
            if v.get("per_player"):
                p.pvar_names.append(str(name))
                p.pvar_init.append(init)
                p.pvar_vis.append(str(v.get("visibility", "public")))
                self.pvar_types.append(typ)
            else:
                p.gvar_names.append(str(name))
                p.gvar_init.append(init)
                p.gvar_vis.append(str(v.get("visibility", "public")))
                self.gvar_types.append(typ)

    def _table_variable(self, name: str, v, init: dict) -> None:
        """A variable holding a table (resources by kind): one stored value per key, so
        that states copy as flat lists; read as NAME[k] (p.NAME[k]) or NAME whole."""
        p = self.prog
        if not init:
            raise SpecError("a table variable needs at least one key", v.where("value"))
        per = bool(v.get("per_player"))
        names, inits, vis, types = ((p.pvar_names, p.pvar_init, p.pvar_vis, self.pvar_types)
                                    if per else
                                    (p.gvar_names, p.gvar_init, p.gvar_vis, self.gvar_types))
        keys = list(init)
        self.tables[name] = (per, len(names), keys)
        vtyp = type_of_value(next(iter(init.values())))
        for k in keys:
            names.append(f"{name}[{k}]")
            inits.append(init[k])
            vis.append(str(v.get("visibility", "public")))
            types.append(vtyp)

    def table_ref(self, node, scope):
        """If node names a table variable (NAME or p.NAME): (per player, first index, keys,
        player closure or None, value type); else None."""
        if isinstance(node, ast.Name) and node.id in self.tables and node.id not in scope.names:
            per, base, keys = self.tables[node.id]
            if not per:
                return per, base, keys, None, self.gvar_types[base]
        if isinstance(node, ast.Attr) and node.name in self.tables:
            per, base, keys = self.tables[node.name]
            if per:
                obj, otyp = self.x.compile(node.obj, scope)
                if otyp == T.PLAYER:
                    return per, base, keys, obj, self.pvar_types[base]
        return None

    def table_index(self, ref, key, pos):
        """fn(st, L) -> (container list, index) of NAME[key]."""
        per, base, keys, obj, _ = ref
        where = {k: base + i for i, k in enumerate(keys)}

        def locate(st, L):
            k = key(st, L)
            i = where.get(k)
            if i is None:
                raise RuleError(f"the table has no key {k!r} (keys: {', '.join(map(str, keys))})",
                                pos)
            return (st.pv[obj(st, L)] if per else st.gv), i
        return locate

    def _components(self):
        p = self.prog
        self.attr_types: dict = {}
        comps = self.doc.get("components", LMap())
        rows = []      # (component, attrs dict, home slot)
        for cname, c in comps.items():
            for_each = c.get("for_each", LMap())
            scope = Scope()
            axes = []
            for attr in for_each:
                values = self._const_value(for_each[attr])
                if not isinstance(values, list):
                    raise SpecError(f"for_each.{attr} must give a list", for_each.where(attr))
                axes.append((str(attr), values))
                scope.add(str(attr), type_of_value(values[0]) if values else T.ANY)
            zname = str(c.get("zone", ""))
            if zname not in p.zones:
                raise SpecError(f"unknown zone '{zname}'", c.where("zone") if "zone" in c else c.pos,
                                did_you_mean(zname, p.zones))
            z = p.zones[zname]
            if z.per_player or z.nslots != 1:
                raise SpecError("components start in a zone of one slot, not per player",
                                c.where("zone"))
            names = [a for a, _ in axes]
            # attribute and count expressions: compiled once, evaluated per combination
            extra = c.get("attributes", LMap())
            ascope = scope.child()
            computed = [(str(an), self._const_fn(extra[an], ascope)) for an in extra]
            count_fn = self._const_fn(c.get("count", 1), ascope)
            size = max(ascope.size, len(names)) + 1
            for combo in itertools.product(*(v for _, v in axes)):
                L = list(combo) + [None] * (size - len(combo))
                attrs = dict(zip(names, combo))
                for an, av in self._enum_typed(axes, combo):
                    self.attr_types.setdefault(an, av)
                for an, fn in computed:
                    val = fn(L)
                    attrs[an] = val
                    self.attr_types.setdefault(an, self._value_type(val))
                count = count_fn(L)
                if not isinstance(count, int) or count < 0:
                    raise SpecError("count must be a number of pieces", c.where("count"))
                label = self._name_of(c, attrs, cname)
                for _ in range(count):
                    rows.append((str(cname), attrs, label))
                if len(rows) > MAX_PIECES:
                    raise SpecError(f"more than {MAX_PIECES} pieces", c.pos)
            self.graph.add_node(f"component:{cname}", kind="component")
        all_attrs = sorted({a for _, attrs, _ in rows for a in attrs})
        p.piece_attrs = {a: tuple(attrs.get(a) for _, attrs, _ in rows) for a in all_attrs}
        kinds: dict = {}
        for i, (cname, attrs, label) in enumerate(rows):
            key = (cname, tuple(sorted(attrs.items())))
            p.piece_kind.append(kinds.setdefault(key, len(kinds)))
            p.piece_names.append(label)
            p.piece_component.append(cname)
            p.piece_home.append(p.zones[str(comps[cname]["zone"])].base)

    def _enum_typed(self, axes, combo):
        for (name, values), v in zip(axes, combo):
            yield name, self._value_type(v)

    def _value_type(self, v):
        if isinstance(v, str) and v in self.member_of:
            return T.enum(self.member_of[v])
        return type_of_value(v)

    def _name_of(self, c, attrs, cname) -> str:
        template = c.get("name", cname)
        try:
            return str(template).format(**attrs)
        except (KeyError, IndexError, ValueError) as exc:
            field = str(exc).strip("'")
            at = str(template).find("{" + field)
            pos = template.pos_at(at + 1) if isinstance(template, LStr) and at >= 0 \
                else c.where("name")
            raise SpecError(f"the name template refers to '{field}', which is not an "
                            "attribute", pos, did_you_mean(field, attrs) or
                            f"attributes: {', '.join(attrs)}") from None

    # ---- rules ---------------------------------------------------------------------------
    def _procs(self):
        for name, r in self.rules.items():
            params = tuple(str(x) for x in r.get("params", ()))
            self.prog.procs[str(name)] = Proc(str(name), params, pos=self.rules.where_key(name),
                                              source=str(r.get("source", "")),
                                              param_types=[T.ANY] * len(params))
            self.graph.add_node(f"rule:{name}", kind="rule", source=str(r.get("source", "")),
                                ruling=str(r.get("ruling", "")))

    def _compile_proc(self, name, proc: Proc, types=None):
        """Compile a rule's body; its parameters take the types of its first call."""
        scope = Scope()
        for i, param in enumerate(proc.params):
            scope.add(param, types[i] if types else T.ANY)
        outer, self.current_rule = self.current_rule, f"rule:{name}"
        proc.block = self._new_block((), (), name)   # a placeholder while compiling
        step = self.rules[name]
        try:
            block = self._block(LList([step]) if not isinstance(step, list) else step, scope,
                                name, positions=[self.rules.where(name)])
        finally:
            self.current_rule = outer
        self._mark_entries(f"rule:{name}", block)
        proc.block.ins, proc.block.pos = block.ins, block.pos
        self._traced(proc.block, f"rule:{name}", self.rules.where(name))   # when called
        proc.nlocals = scope.size

    def _new_block(self, ins, pos, name) -> Block:
        b = Block(len(self.prog.blocks), tuple(ins), tuple(pos), name)
        self.prog.blocks.append(b)
        return b

    def _block(self, steps, scope: Scope, name: str, positions=None) -> Block:
        ins, pos = [], []
        if not isinstance(steps, list):
            raise SpecError("expected a list of steps", getattr(steps, "pos", NOWHERE))
        seq: list = []
        self._flow_stack.append(Flow())
        try:
            for i, step in enumerate(steps):
                where = positions[i] if positions else (steps.where(i) if isinstance(steps, LList) else NOWHERE)
                self._extend(seq, self._step(step, scope, where), where)
        finally:
            flow = self._flow_stack.pop()
        for fn, p in seq:
            ins.append(fn)
            pos.append(p)
        block = self._new_block(ins, pos, name)
        self.flows[block.id] = flow
        return block

    # ---- the action graph's flow edges (they change nothing in the game) ------------------
    def _flow_edge(self, a: str, b: str, kind: str, within: str = "") -> None:
        """A flow edge a -> b (`within`: the node whose body it is in), unless an edge
        joins them already (a structural one: contains, calls; or the same flow in
        another body: a rule called in several places)."""
        if not self.graph.has_edge(a, b):
            self.graph.add_edge(a, b, kind=kind, **({"within": within} if within else {}))

    def _flow_then(self, part: Flow) -> None:
        """The block being compiled goes on with `part`."""
        if self._flow_stack:
            within = self.current_rule
            self._flow_stack[-1].then(part, lambda a, b: self._flow_edge(a, b, "next", within))

    def _mark_entries(self, owner: str, flow: Flow | Block) -> None:
        """Mark owner's edges to the first nodes its body may reach: entry=True."""
        if isinstance(flow, Block):
            flow = self.flows[flow.id]
        for node in flow.entries:
            if self.graph.has_edge(owner, node):
                self.graph.edges[owner, node]["entry"] = True

    def _flow_loop(self, body: Block, runs_once: bool = False) -> None:
        """A loop: its body's ends lead back to its start; it may run no time."""
        flow = self.flows[body.id]
        for a in flow.exits:
            for b in flow.entries:
                self._flow_edge(a, b, "loop", self.current_rule)
        self._flow_then(flow if runs_once else flow.maybe())

    @staticmethod
    def _extend(seq: list, items: list, where: Pos) -> None:
        """Append a step's instructions; nothing may follow an `end game` in a block."""
        if items and seq and getattr(seq[-1][0], "ends_game", False):
            raise SpecError("unreachable step: the game has already ended here",
                            items[0][1] if items[0][1] is not NOWHERE else where,
                            "remove it, or move it before `end game`")
        seq.extend(items)

    def _step(self, step, scope: Scope, where: Pos):
        """-> list of (instruction, position)."""
        if isinstance(step, str):
            node = parse(step, "statement")
            return [(self._statement(node, scope), node.pos)]
        if not isinstance(step, dict):
            raise SpecError("a step is a statement or a mapping", where)
        node_name = self._register_id(step, self.current_rule) if "id" in step else None
        shape = next((s for s in STEP_SHAPES if s in step), None)
        if shape is None:
            raise SpecError("this step has nothing to do", step.pos,
                            f"give it one of: {', '.join(STEP_SHAPES)}")
        outer = self.current_rule
        if node_name:
            self.current_rule = node_name
            self._flow_stack.append(Flow())     # its body: the step is one node outside
        try:
            items = getattr(self, "_step_" + shape)(step, scope, step.pos)
        finally:
            self.current_rule = outer
            if node_name:
                self._mark_entries(node_name, self._flow_stack.pop())
        if node_name:
            self._flow_then(Flow.node(node_name))
        if self.trace and node_name and shape != "if":     # an if step: see _step_if
            items = [(self._mark(str(step["id"])), step.pos)] + items
        return items

    @staticmethod
    def _mark(rid: str):
        """A traced game's instruction: count that the game reached `rid`."""
        def mark(st, fr):
            _count_fired(st, rid)
        return mark

    def _traced(self, block: Block, rid: str, pos: Pos) -> None:
        """In a traced game, `block` counts `rid` when it starts."""
        if self.trace:
            block.ins = (self._mark(rid),) + block.ins
            block.pos = (pos,) + block.pos

    def _register_id(self, step, parent: str) -> str:
        """A step (or option) with an id becomes a node of the action graph."""
        sid = str(step["id"])
        if sid in self.step_ids:
            raise SpecError(f"step id '{sid}' is used twice", step.where("id"),
                            f"it was first used at line {self.step_ids[sid].line}")
        self.step_ids[sid] = step.where("id")
        node_name = f"step:{sid}"
        self.graph.add_node(node_name, kind="step", source=str(step.get("source", "")),
                            ruling=str(step.get("ruling", "")))
        self.graph.add_edge(parent, node_name, kind="contains")
        return node_name

    def _step_do(self, step, scope, pos):
        out: list = []
        body = step["do"]
        for i, s in enumerate(body):
            where = body.where(i) if isinstance(body, LList) else pos
            self._extend(out, self._step(s, scope, where), where)
        return out

    def _expr(self, text, scope, what="a condition", want=None):
        if isinstance(text, (bool, int)):       # a YAML number or boolean: a constant
            return lambda st, L, v=text: v
        node = parse(text, "expression")
        if want is not None:
            return self.x.expect(node, scope, want, what)
        fn, _ = self.x.compile(node, scope)
        return fn

    def _push(self, block: Block, loop=None):
        ins = block.ins

        def push(st, L):
            st.stack.append([ins, 0, L, loop, None, None, block])
        return push

    def _step_if(self, step, scope, pos):
        test = self._expr(step["if"], scope, "an if condition", T.BOOL)
        then = self._block(step.get("then", LList()), scope.child(), "then")
        orelse = self._block(step.get("else", LList()), scope.child(), "else")
        self._flow_then(Flow.either([self.flows[then.id], self.flows[orelse.id]]))
        if "id" in step:                 # an if step fires when its condition holds
            self._traced(then, str(step["id"]), step.pos)
        ti, ei = then.ins, orelse.ins

        def if_(st, fr):
            code = ti if test(st, fr[2]) else ei
            if code:
                st.stack.append([code, 0, fr[2], None, None, None, then if code is ti else orelse])
        return [(if_, pos)]

    def _bindings(self, text, scope):
        node = parse(text, "bindings")
        return node

    def _step_for(self, step, scope, pos):
        node = self._bindings(step["for"], scope)
        if len(node.items) != 1:
            raise SpecError("for takes one binding (x in ...)", node.pos)
        b = node.items[0]
        src, styp = self.x.compile(b.source, scope)
        if not T.iterable(styp):
            raise SpecError(f"cannot iterate over {T.describe(styp)}", b.source.pos,
                            "iterate over a list, a zone, a table or an enum")
        items = self.items_fn(styp, src)
        inner = scope.child()
        var = inner.add(b.var, T.elem(styp))
        cond = self.x.expect(node.cond, inner, T.BOOL, "a where condition") if node.cond else None
        body = self._block(step["do"], inner, "for")
        self._flow_loop(body)
        loop = self._new_loop("for", pos, None)

        def again(st, fr):
            todo, i = fr[4], fr[5]
            L = fr[2]
            while i < len(todo):
                L[var] = todo[i]
                i += 1
                if cond is None or cond(st, L):
                    fr[5] = i
                    fr[1] = 0
                    return True
            return False
        loop.again = again
        ins = body.ins

        def for_(st, fr):
            frame = [ins, 0, fr[2], loop, items(st, fr[2]), 0, body]
            if again(st, frame):
                st.stack.append(frame)
        return [(for_, pos)]

    def _new_loop(self, kind: str, pos: Pos, again) -> Loop:
        loop = Loop(len(self.prog.loops), again, kind, pos)
        self.prog.loops.append(loop)
        return loop

    @staticmethod
    def _count_down(st, fr) -> bool:
        """`again` of a counted loop: fr[4] runs left."""
        fr[4] -= 1
        if fr[4] > 0:
            fr[1] = 0
            return True
        return False

    def _counted(self, count, body: Block, kind: str, pos: Pos):
        """An instruction running `body` count(...) times (repeat, up_to)."""
        loop = self._new_loop(kind, pos, self._count_down)
        ins = body.ins

        def counted(st, fr):
            n = count(st, fr[2])
            if n > 0:
                st.stack.append([ins, 0, fr[2], loop, n, None, body])
        return counted

    def _step_repeat(self, step, scope, pos):
        count = self._expr(step["repeat"], scope, "a repeat count", T.INT)
        body = self._block(step["do"], scope.child(), "repeat")
        self._flow_loop(body)
        return [(self._counted(count, body, "repeat", pos), pos)]

    def _step_while(self, step, scope, pos):
        test = self._expr(step["while"], scope, "a while condition", T.BOOL)
        limit = int(step.get("max", 10_000))
        body = self._block(step["do"], scope.child(), "while")
        self._flow_loop(body)
        loop = self._new_loop("while", pos, None)

        def again(st, fr):
            if not test(st, fr[2]):
                return False
            fr[4] += 1
            if fr[4] > limit:
                raise RuleError(f"this loop ran more than {limit} times", pos,
                                "raise its max: or check its condition")
            fr[1] = 0
            return True
        loop.again = again
        ins = body.ins

        def while_(st, fr):
            if test(st, fr[2]):
                st.stack.append([ins, 0, fr[2], loop, 1, None, body])
        return [(while_, pos)]

    def _step_turns(self, step, scope, pos):
        spec = step["turns"] if isinstance(step["turns"], dict) else LMap()
        first = self._expr(spec.get("first", "0"), scope, "the first player", T.INT)
        until = self._expr(spec["until"], scope, "an until condition", T.BOOL) \
            if "until" in spec else None
        body = self._block(step["do"], scope.child(), "turn")
        self._flow_loop(body, runs_once=True)
        n = self.prog.players
        loop = self._new_loop("turns", pos, None)

        def again(st, fr):
            if until is not None and until(st, fr[2]):
                return False
            st.current = (st.current + 1) % n
            st.turn += 1
            fr[1] = 0
            return True
        loop.again = again
        ins = body.ins

        def turns(st, fr):
            st.current = first(st, fr[2]) % n
            st.turn += 1
            st.stack.append([ins, 0, fr[2], loop, None, None, body])
        return [(turns, pos)]

    def _step_match(self, step, scope, pos):
        subject, styp = self.x.compile(parse(step["match"], "expression"), scope)
        cases = {}
        blocks = {}
        for key, body in step["cases"].items():
            k = plain(key)
            if styp[0] == "enum" and k not in self.enums[styp[1]]:
                raise SpecError(f"'{k}' is not a {styp[1]}", step["cases"].where_key(key),
                                did_you_mean(str(k), self.enums[styp[1]]) or
                                f"one of: {', '.join(self.enums[styp[1]])}")
            blocks[k] = self._block(body, scope.child(), f"case {k}")
            cases[k] = blocks[k].ins
        orelse = self._block(step.get("else", LList()), scope.child(), "else")
        self._flow_then(Flow.either([self.flows[b.id] for b in blocks.values()]
                                    + [self.flows[orelse.id]]))

        def match(st, fr):
            k = subject(st, fr[2])
            code = cases.get(k)
            if code is None:
                code = orelse.ins
                if not code:
                    return None
                b = orelse
            else:
                b = blocks[k]
            if code:
                st.stack.append([code, 0, fr[2], None, None, None, b])
        return [(match, pos)]

    # ---- decisions ------------------------------------------------------------------------
    def _step_choose(self, step, scope, pos):
        return self._decision(step, [step], scope, pos)

    def _step_choose_one(self, step, scope, pos):
        options = step["choose_one"]
        if not isinstance(options, list) or not options:
            raise SpecError("choose_one needs a list of options", step.where("choose_one"))
        return self._decision(step, list(options), scope, pos)

    def _decision(self, step, options, scope: Scope, pos):
        p = self.prog
        did = len(p.decisions)
        p.decisions.append(None)          # reserve the id: nested decisions come first
        dnode = f"decision:{did}"
        self.graph.add_node(dnode, kind="decision", rule=self.current_rule,
                            **self._decision_attributes(step, options))
        self.graph.add_edge(self.current_rule, dnode, kind="contains")
        outer = self.current_rule
        self.current_rule = dnode
        alts = []
        option_nodes = []                # each option's graph node (None: it has no id)
        try:
            for i, opt in enumerate(options):
                oid = node = None
                if opt is not step and isinstance(opt, dict) and "id" in opt:
                    node = self._register_id(opt, dnode)
                    oid = str(opt["id"])
                alts.append(self._alternative(did, i, opt, scope, pos, oid))
                option_nodes.append(node)
        finally:
            self.current_rule = outer
        self._flow_decision(dnode, option_nodes, alts, "up_to" in step)
        player = None
        if "player" in step:
            if str(step["player"]).strip() == "chance":
                player = lambda st, L: CHANCE  # noqa: E731
            else:
                player = self._expr(step["player"], scope, "the deciding player", T.INT)
        upto = "up_to" in step
        if upto and "optional" in step:
            raise SpecError("an up_to decision ends with its `done` action; it cannot also be "
                            "optional", step.where_key("optional"), "remove optional:, "
                            "and name the done action with done:")
        if str(step.get("player", "")).strip() == "chance" and any(
                isinstance(o, dict) and o.get("distinct") for o in options):
            raise SpecError("a chance decision cannot be distinct: merging outcomes would "
                            "change their odds", step.pos, "remove distinct:")
        dec = Decision(did, self.current_rule, alts, player,
                       optional=str(step.get("optional", "")),
                       done=str(step.get("done", "done")) if upto else "", upto=upto, pos=pos)
        p.decisions[did] = dec
        orelse = self._block(step.get("else", LList()), scope.child(), "else")
        self._flow_then(self.flows[orelse.id].maybe())
        ask = self._ask(dec, orelse, "else" in step)
        if not upto:
            return [(ask, pos)]
        count = self._expr(step["up_to"], scope, "up_to", T.INT)
        inner = self._new_block([ask], [pos], "up_to")
        return [(self._counted(count, inner, "up_to", pos), pos)]

    @staticmethod
    def _decision_attributes(step, options) -> dict:
        """What the action graph says of a decision: who decides (`chance`, `current` or
        the player expression), its options (label, and id, bindings, source if given),
        its skip action and its up_to count."""
        def text(value) -> str:
            return " ".join(str(value).split())
        described = []
        for opt in options:
            if not isinstance(opt, dict):
                continue
            keys = ("label", "choose") if opt is step else ("id", "label", "choose", "source")
            described.append({k: text(opt[k]) for k in keys if k in opt})
        return {"player": text(step.get("player", "current")),
                "shape": "choose" if "choose" in step else "choose_one",
                "options": described, "optional": text(step.get("optional", "")),
                "up_to": text(step.get("up_to", ""))}

    def _flow_decision(self, dnode: str, option_nodes: list, alts: list, upto: bool) -> None:
        """A decision leads to each option (its node if it has an id, then its body's
        first nodes); it is one node of the enclosing block; up_to asks it again."""
        link = lambda a, b: self._flow_edge(a, b, "next", dnode)  # noqa: E731
        branches = []
        for node, alt in zip(option_nodes, alts):
            branch = Flow()
            if node is not None:
                branch.then(Flow.node(node), link)
            branch.then(self.flows[alt.body.id], link)
            branches.append(branch)
        self._mark_entries(dnode, Flow.either(branches))
        self._flow_then(Flow.node(dnode))
        if upto:
            self._flow_edge(dnode, dnode, "loop", dnode)

    def _alternative(self, did, i, opt, scope: Scope, pos, oid: str | None = None) -> Alt:
        if not isinstance(opt, dict):
            raise SpecError("an option is a mapping with a label and what it does", pos)
        inner = scope.child()
        guard = self._expr(opt["if"], scope, "an option's condition", T.BOOL) if "if" in opt else None
        enum = None
        slots: tuple = ()
        if "choose" in opt:
            enum, slots = self._enumerator(opt, inner)
        body = self._block(opt.get("do", LList()), inner, "option")
        if oid is not None:                      # an option fires when it is chosen
            self._traced(body, oid, opt.pos)
        label = self._label(opt.get("label"), inner, slots, opt, i)
        alt = Alt(i, label, guard, enum, slots, body, str(opt.get("source", "")))
        alt.prefix = (did, i)
        return alt

    def _enumerator(self, opt, scope: Scope):
        node = self._bindings(opt["choose"], scope)
        sources, slots, piece_vars = [], [], []
        for b in node.items:
            src, styp = self.x.compile(b.source, scope)
            if not T.iterable(styp):
                raise SpecError(f"cannot choose from {T.describe(styp)}", b.source.pos,
                                "choose from a zone, a list or a player list")
            sources.append(self.items_fn(styp, src))
            et = T.elem(styp)
            slots.append(scope.add(b.var, et))
            piece_vars.append(et == T.PIECE)
        cond = self.x.expect(node.cond, scope, T.BOOL, "a where condition") if node.cond else None
        distinct = bool(opt.get("distinct", False))
        kind = self.prog.piece_kind
        slots_t = tuple(slots)
        pos = node.pos

        def key_of(vals):
            return tuple(kind[v] if pv and v is not None else v for v, pv in zip(vals, piece_vars))

        # enumerators return whole action tuples: prefix (decision, alternative) + values
        if len(sources) == 1:
            return self._enum1(sources[0], slots_t[0], cond, distinct and piece_vars[0]), slots_t

        if len(sources) == 2 and cond is None:
            s0, s1 = sources
            dedupe0 = distinct and piece_vars[0]
            dedupe1 = distinct and piece_vars[1]

            def unique(vals):
                seen = set()
                return [v for v in vals if not (kind[v] in seen or seen.add(kind[v]))]

            def enum2(st, L, prefix):
                a = [v for v in s0(st, L) if v is not None]
                b = [v for v in s1(st, L) if v is not None]
                if dedupe0:
                    a = unique(a)
                if dedupe1:
                    b = unique(b)
                d, k = prefix
                return [(d, k, x, y) for x in a for y in b]
            return enum2, slots_t

        def enum(st, L, prefix):
            out = []
            seen = set()
            for vals in itertools.product(*(s(st, L) for s in sources)):
                if None in vals:
                    continue
                if distinct:
                    k = key_of(vals)
                    if k in seen:          # identical pieces are in already: no need
                        continue           # to ask the condition
                for slot, v in zip(slots_t, vals):
                    L[slot] = v
                if cond is not None and not cond(st, L):
                    continue
                if distinct:
                    seen.add(k)
                out.append(prefix + vals)
                if len(out) > 100_000:
                    raise RuleError("a decision with more than 100000 actions", pos)
            return out
        return enum, slots_t

    def _enum1(self, src, slot, cond, dedupe):
        """Actions of a one-binding decision, specialised: this is the hottest loop."""
        kind = self.prog.piece_kind
        if cond is None and not dedupe:
            def all1(st, L, prefix):
                d, a = prefix
                return [(d, a, v) for v in src(st, L) if v is not None]
            return all1
        if cond is None:
            def distinct1(st, L, prefix):
                d, a = prefix
                seen = set()
                return [(d, a, v) for v in src(st, L)
                        if v is not None and not (kind[v] in seen or seen.add(kind[v]))]
            return distinct1

        def where1(st, L, prefix):
            out = []
            seen = set()
            for v in src(st, L):
                if v is None:
                    continue
                if dedupe and kind[v] in seen:    # an identical piece is in already:
                    continue                       # its condition need not be asked
                L[slot] = v
                if not cond(st, L):
                    continue
                if dedupe:
                    seen.add(kind[v])
                out.append(prefix + (v,))
            return out
        return where1

    _FIELD = re.compile(r"\{([^{}]*)\}")

    def _label(self, template, scope: Scope, slots, opt, opt_index=0):
        """'play {t} on column {c + 1}' -> fn(st, L) -> str; pieces print as their names."""
        if template is None:
            names = [n for n, v in scope.names.items() if v[0] in slots]
            template = LStr.at(" ".join(f"{{{n}}}" for n in names) or
                               str(opt.get("id", f"option {opt_index + 1}")),
                               getattr(opt, "pos", NOWHERE))
        parts = []
        text = str(template)
        last = 0
        names = self.prog.piece_names
        for m in self._FIELD.finditer(text):
            if m.start() > last:
                parts.append(text[last:m.start()])
            base = template.pos_at(m.start(1)) if isinstance(template, LStr) else NOWHERE
            sub = LStr.at(m.group(1), base)
            fn, typ = self.x.compile(parse(sub, "expression"), scope)
            if typ == T.PIECE:
                parts.append(lambda st, L, f=fn: names[f(st, L)] if f(st, L) is not None else "none")
            else:
                parts.append(lambda st, L, f=fn: str(f(st, L)))
            last = m.end()
        if last < len(text):
            parts.append(text[last:])
        parts = tuple(parts)
        return lambda st, L: "".join(x if isinstance(x, str) else x(st, L) for x in parts)

    def _ask(self, dec: Decision, orelse: Block, has_else: bool = False):
        alts = tuple(dec.alts)
        did = dec.id
        player = dec.player
        optional = bool(dec.optional)
        upto = dec.upto
        skip = (did, SKIP)
        done = (did, DONE)
        else_ins = orelse.ins
        # traced games count a choice that must be made but came up empty, with no else:
        # to say what then (skipped silently: by design, or a spec's bug). An optional
        # choice that is empty is no different from one skipped by its player; `else: []`
        # says "nothing then" on purpose.
        empty_key = ("empty:" + dec.rule.removeprefix("step:")
                     if self.trace and not has_else and not upto and not optional else None)

        def ask(st, fr):
            L = fr[2]
            actions = []
            st.memo = {}
            try:
                for alt in alts:
                    if alt.guard is not None and not alt.guard(st, L):
                        continue
                    if alt.enum is None:
                        actions.append(alt.prefix)
                    else:
                        actions.extend(alt.enum(st, L, alt.prefix))
            finally:
                st.memo = None
            if not actions:
                if empty_key is not None:
                    _count_fired(st, empty_key)
                if upto:
                    st.stack.pop()              # nothing (more) to pick: the loop ends
                if else_ins:
                    st.stack.append([else_ins, 0, L, None, None, None, orelse])
                return None
            if optional:
                actions.insert(0, skip)
            elif upto:
                actions.append(done)
            who = st.current if player is None else player(st, L)
            fr[1] -= 1
            st.pause(dec, who, actions, fr)
            return True
        return ask

    # ---- statements ------------------------------------------------------------------------
    def _statement(self, node, scope: Scope):
        return getattr(self, "s_" + type(node).__name__)(node, scope)

    def _dest(self, node, scope):
        fn, typ = self.x.compile(node, scope)
        if typ[0] != "slot":
            hint = ("name one of its slots, e.g. zone[i]" if typ[0] == "zone"
                    else "pieces go to a zone (a pile, a hand, zone[i], p.hand)")
            raise SpecError(f"cannot move pieces to {T.describe(typ)}", node.pos, hint)
        return fn

    def s_Move(self, node: ast.Move, scope):
        what, wtyp = self.x.compile(node.what, scope)
        dest = self._dest(node.dest, scope)
        pos = node.pos
        if wtyp in (T.PIECE, T.NONE) and not node.bottom:
            def move1(st, fr):
                L = fr[2]
                move_one(st, what(st, L), dest(st, L), pos)
            return move1
        if wtyp in (T.PIECE, T.NONE):
            get = lambda st, L: [what(st, L)]  # noqa: E731
        elif wtyp[0] == "slot":
            get = lambda st, L: list(st.slots[what(st, L)])  # noqa: E731
        elif wtyp[0] == "zone":
            n = wtyp[1].nslots
            get = lambda st, L: pieces_of_zone(st, what(st, L), n)  # noqa: E731
        elif wtyp[0] == "list" and wtyp[1] in (T.PIECE, T.ANY):
            get = what
        else:
            raise SpecError(f"cannot move {T.describe(wtyp)}", node.what.pos,
                            "move a piece, a list of pieces or a zone's contents")
        bottom, shuffled = node.bottom, node.shuffled

        def move(st, fr):
            L = fr[2]
            move_pieces(st, get(st, L), dest(st, L), bottom, shuffled, pos)
        return move

    def s_Swap(self, node, scope):
        a = self.x.expect(node.a, scope, T.PIECE, "what is swapped")
        b = self.x.expect(node.b, scope, T.PIECE, "what is swapped")
        pos = node.pos

        def swap(st, fr):
            L = fr[2]
            swap_pieces(st, a(st, L), b(st, L), pos)
        return swap

    def s_Shuffle(self, node, scope):
        z = self._dest(node.zone, scope)

        def shuffle(st, fr):
            shuffle_list(st.slots[z(st, fr[2])], st.rng.random)
        return shuffle

    def s_Refill(self, node, scope):
        z = self._dest(node.zone, scope)
        src = self._dest(node.source, scope)
        pos = node.pos
        caps = self.prog.slot_cap

        def refill(st, fr):
            L = fr[2]
            d, s = z(st, L), src(st, L)
            cap = caps[d]
            if cap is None:
                raise RuleError("refill needs a zone with a capacity", pos)
            target, pile = st.slots[d], st.slots[s]
            while len(target) < cap and pile:
                move_one(st, pile[-1], d, pos)
        return refill

    def s_EndGame(self, node, scope):
        def end(st, fr):
            st.finish()
            return True
        end.ends_game = True
        return end

    def s_Call(self, node: ast.Call, scope):
        proc = self.prog.procs.get(node.name)
        if proc is None:
            raise SpecError(f"call of an undefined rule '{node.name}'", node.name_pos,
                            did_you_mean(node.name, self.prog.procs) or "rules are declared under rules:")
        if len(node.args) != len(proc.params):
            raise SpecError(f"rule '{node.name}' takes {len(proc.params)} argument"
                            f"{'s' if len(proc.params) != 1 else ''}, not {len(node.args)}",
                            node.name_pos, f"its parameters: {', '.join(proc.params) or 'none'}")
        self.graph.add_edge(self.current_rule, f"rule:{node.name}", kind="calls")
        self._flow_then(Flow.node(f"rule:{node.name}"))
        compiled = [self.x.compile(a, scope) for a in node.args]
        args = tuple(f for f, _ in compiled)
        types = [t for _, t in compiled]
        if proc.block is None:
            proc.param_types = types
            self._compile_proc(node.name, proc, types)
        else:
            for pname, want, got, a in zip(proc.params, proc.param_types, types, node.args):
                if not T.compatible(want, got) and T.NONE not in (want, got):
                    raise SpecError(f"rule '{node.name}' takes {T.describe(want)} as {pname} "
                                    f"(from its first call), not {T.describe(got)}", a.pos)
        pos = node.pos
        limit = self.prog.max_depth

        def call(st, fr):
            L = fr[2]
            new = [f(st, L) for f in args] if args else []
            new.extend([None] * (proc.nlocals - len(new)))
            if len(st.stack) > limit:
                raise RuleError(f"rules nest deeper than {limit} calls", pos,
                                "a rule that calls itself needs a way to stop")
            block = proc.block
            st.stack.append([block.ins, 0, new, None, None, None, block])
        # the body's locals are known once it is compiled (recursion: at the end)
        return call

    def s_Let(self, node: ast.Let, scope):
        fn, typ = self.x.compile(node.value, scope)
        slot = scope.add(node.name, typ)

        def let(st, fr):
            fr[2][slot] = fn(st, fr[2])
        return let

    def s_Assign(self, node: ast.Assign, scope):
        value = self.x.expect(node.value, scope, T.INT if node.op != "=" else T.ANY, "the value")
        _, vtyp = self.x.compile(node.value, scope)
        p = self.prog
        op = node.op
        t = node.target
        if isinstance(t, ast.Index):
            ref = self.table_ref(t.obj, scope)
            if ref is None:
                raise SpecError("only a table variable's entry can be assigned to", t.pos,
                                "declare it with a mapping as its value (prey: {value: {hare: 0}})")
            self._check_assign(node, ref[4], vtyp)
            key = self.x.compile(t.key, scope)[0]
            locate = self.table_index(ref, key, t.pos)
            return self._assign_at(op, locate, value)
        if isinstance(t, ast.Name):
            if t.id in scope.names:
                slot, _ = scope.names[t.id]
                return self._assign_to(op, lambda st, fr: fr[2], slot, value)
            if t.id in p.gvar_names:
                i = p.gvar_names.index(t.id)
                self._check_assign(node, self.gvar_types[i], vtyp)
                return self._assign_to(op, lambda st, fr: st.gv, i, value)
            raise SpecError(f"'{t.id}' is not a variable", t.pos,
                            did_you_mean(t.id, p.gvar_names + list(scope.names)) or
                            "declare it under variables:")
        obj, otyp = self.x.compile(t.obj, scope)
        if otyp != T.PLAYER or t.name not in p.pvar_names:
            raise SpecError(f"cannot assign to '{t.name}' here", t.pos,
                            did_you_mean(t.name, p.pvar_names) or
                            "assign to a player's variable: p.NAME")
        i = p.pvar_names.index(t.name)
        self._check_assign(node, self.pvar_types[i], vtyp)
        return self._assign_to(op, lambda st, fr: st.pv[obj(st, fr[2])], i, value)

    @staticmethod
    def _check_assign(node, want, got):
        if not T.compatible(want, got) and T.NONE not in (want, got):
            raise SpecError(f"this variable holds {T.describe(want)}, not {T.describe(got)}",
                            node.value.pos, "declare its type: (type: player, piece, ...)")

    @staticmethod
    def _assign_at(op, locate, value):
        if op == "=":
            def assign(st, fr):
                box, i = locate(st, fr[2])
                box[i] = value(st, fr[2])
        elif op == "+=":
            def assign(st, fr):
                box, i = locate(st, fr[2])
                box[i] += value(st, fr[2])
        else:
            def assign(st, fr):
                box, i = locate(st, fr[2])
                box[i] -= value(st, fr[2])
        return assign

    @staticmethod
    def _assign_to(op, container, i, value):
        if op == "=":
            def assign(st, fr):
                container(st, fr)[i] = value(st, fr[2])
        elif op == "+=":
            def assign(st, fr):
                container(st, fr)[i] += value(st, fr[2])
        else:
            def assign(st, fr):
                container(st, fr)[i] -= value(st, fr[2])
        return assign

    # ---- scoring and checks -----------------------------------------------------------------
    def _scoring(self):
        scoring = self.doc.get("scoring", LMap())
        p = self.prog
        size = 1
        self.graph.add_node("scoring", kind="phase", label="scoring")
        for rid, rule in scoring.get("points", LMap()).items():
            scope = Scope()
            scope.add("player", T.PLAYER)      # slot 0: the player being scored
            fn = self._expr(rule["value"], scope, "a score", T.INT)
            p.points.append((str(rid), fn))
            self.graph.add_node(f"score:{rid}", kind="score", source=str(rule.get("source", "")),
                                ruling=str(rule.get("ruling", "")))
            self.graph.add_edge("scoring", f"score:{rid}", kind="contains")
            size = max(size, scope.size)
        previous = None
        for tb in scoring.get("tiebreak", LList()):
            scope = Scope()
            scope.add("player", T.PLAYER)
            fn = self._expr(tb["value"], scope, "a tie-breaker", T.INT)
            p.tiebreaks.append((str(tb.get("id", f"tiebreak{len(p.tiebreaks) + 1}")), fn))
            node = f"tiebreak:{p.tiebreaks[-1][0]}"
            self.graph.add_node(node, kind="tiebreak", source=str(tb.get("source", "")),
                                ruling=str(tb.get("ruling", "")))
            self.graph.add_edge("scoring", node, kind="contains")
            if previous:                # the next tie-breaker counts if the tie persists
                self._flow_edge(previous, node, "next", "scoring")
            previous = node
            size = max(size, scope.size)
        p.score_nlocals = size

    def _invariants(self):
        for iid, inv in self.doc.get("invariants", LMap()).items():
            scope = Scope()
            fn = self._expr(inv["value"], scope, "an invariant", T.BOOL)
            self.prog.invariants.append((str(iid), fn, max(scope.size, 1)))

    def _check_reachable(self):
        roots = ["setup", "play"]
        graph = self.graph
        structure = nx.subgraph_view(
            graph, filter_edge=lambda a, b: graph.edges[a, b]["kind"] in STRUCTURE)
        reach = set()
        for r in roots:
            reach |= {r} | nx.descendants(structure, r)
        for name, proc in self.prog.procs.items():
            if f"rule:{name}" not in reach:
                raise SpecError(f"rule '{name}' is never called", proc.pos,
                                "call it from setup, play or another rule, or remove it")
