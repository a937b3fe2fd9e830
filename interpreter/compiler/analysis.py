"""What the compiler records for later stages and tools: randomness, binding domains, reads
and writes.

Input: the checked rule AST, as the stages compile it (the hooks below are called by
expressions.py for every expression node compiled, by steps.py for every statement, by
decisions.py for every binding, by builtins.py and the driver around every unit), with the
compiler's tables (zones, variables, data, options, enums, piece attributes). Output:
a Facts on Program.facts (docs/compiler.md, "What the compiler records"):

- randomness: every place the game draws from the state's generator or leaves a choice
  to chance: Draw(kind, unit, pos, step), kind one of "shuffle", "shuffled move",
  "chance decision";
- binding domains: the BindingDomain of every binding of every decision alternative
  (Alt.domains), the values the binding can take, bounded from the AST alone (constant
  evaluation here, never an eval of Python text);
- a read/write summary per unit: "function:NAME" (a spec function), "group:KEY" (a
  group(...) flood), "decision:N" (the decision's legal actions: guards, bindings,
  where), "rule:NAME", "setup", "play", "score:ID", "tiebreak:ID", "invariant:ID"; and
  per statement (Statement: unit, kind, pos, reads, writes). Reads and writes are facts,
  tuples of plain values (FACT KINDS below); a unit's reads and writes are transitive
  through the units it calls (Facts.reads, Facts.writes); Facts.stale(writes), the kept
  facts a change makes stale (what reads what it writes: touches), is what the generated
  code drops after each change (steps.stale_lines).

The same records serve dead data (deadcode.py): Usage.whole, .keys, .attrs and .own are
what the rules read of data entries, data tables' keys and piece attributes, and what
each component's own expressions read.
"""

from __future__ import annotations

import operator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import NOWHERE, Pos
from ..lang import ast
from ..lang import types as T
from ..runtime.values import MAX_BITS, B_num

MISSING = object()
MAX_RANGE = 1_000_000        # a constant range longer than this is not listed (kept as ends)
ANY_ZONE = "*"               # a zone fact's name when the zone is not known statically

# FACT KINDS (the first item of a fact tuple):
#   ("zone", zone, slot)     the pieces of a zone (slot: the index of one of its slots
#                            where static, else None; zone "*": some zone, unknown which)
#   ("var", name)            a global variable
#   ("pvar", name)           a per-player variable (any player's)
#   ("table", name, key)     a table variable's entry (key None: any or all of them)
#   ("attr", name)           a changeable piece attribute (fixed ones are constants)
#   ("current",)             whose turn it is
#   ("option", name)         an option of the game (constant for one compiled game)
#   ("data", name)           a data entry (constant)
#   ("random",)              the state's generator (written: a draw)
#   ("end",)                 the game's end (written: `end game`)
ZONE, VAR, PVAR, TABLE, ATTR, CURRENT, OPTION, DATA, RANDOM, END = (
    "zone", "var", "pvar", "table", "attr", "current", "option", "data", "random", "end")



def touches(write: tuple, read: tuple) -> bool:
    """Does writing fact `write` change what reading fact `read` sees? A zone written or
    read as "*" touches every zone, a slot None every slot of its zone; a table entry at
    key None every entry of its table; other facts touch themselves only."""
    kind = write[0]
    if kind != read[0]:
        return False
    if kind == ZONE:
        return write[1] == ANY_ZONE or read[1] == ANY_ZONE or (
            write[1] == read[1] and (write[2] is None or read[2] is None
                                     or write[2] == read[2]))
    if kind == TABLE:
        return write[1] == read[1] and (write[2] is None or read[2] is None
                                        or write[2] == read[2])
    return write == read


@dataclass(frozen=True)
class Draw:
    """One place the game draws randomness."""
    kind: str            # "shuffle", "shuffled move", "chance decision"
    unit: str            # the unit it is in (rule:NAME, setup, play, decision:N...)
    pos: Pos = NOWHERE
    step: str = ""       # the action graph's node around it (step:ID, rule:NAME, a phase)


@dataclass(frozen=True)
class BindingDomain:
    """The values one binding of a decision alternative can take.

    kind:
      "piece"      a piece number, 0 .. pieces - 1
      "player"     a player, 0 .. players - 1
      "enum"       a value of enum `name` (values: the enum's values, in order)
      "container"  a slot of zone `name`: slots lo .. hi of the state
      "any container"  any slot of any zone: 0 .. hi
      "values"     a constant list (values: its values, sorted, once each), computed by
                   constant evaluation of the source
      "value"      a one-value list written with a constant: `x in [64]`
      "interval"   a whole number lo .. hi (either end None: not bounded statically)
      "condition"  false or true
      "dependent"  a one-value list that reads earlier bindings: no choice of its own
      "unbounded"  something else (a text, a list...): no numbering
    """
    kind: str
    lo: int | None = None
    hi: int | None = None
    values: tuple | None = None
    name: str = ""

    def describe(self) -> str:
        if self.values is not None:
            return f"{self.kind} {list(self.values)}"
        if self.kind in ("interval", "container", "any container", "piece", "player"):
            return f"{self.kind}{' ' + self.name if self.name else ''} {self.lo}..{self.hi}"
        return self.kind


@dataclass
class Summary:
    """What one unit reads and writes itself, and the units it calls."""
    reads: set = field(default_factory=set)
    writes: set = field(default_factory=set)
    calls: set = field(default_factory=set)


@dataclass(frozen=True)
class Statement:
    """One statement of the rules as compiled: what it reads and writes itself, and the
    units it calls (the spec functions and groups its expressions use, the rule a `call`
    runs): Facts.statement_reads and statement_writes add what those read and write."""
    unit: str
    kind: str            # the AST node's class: Move, Swap, Shuffle, Refill, Assign...
    pos: Pos
    reads: frozenset
    writes: frozenset
    calls: frozenset = frozenset()


class Facts:
    """The compiler's records of one program (Program.facts). Plain data:

    randomness  tuple of Draw
    units       {unit name: Summary}, the unit's own reads, writes and calls
    statements  tuple of Statement, in the order they were compiled
    kept        {key of State.facts: unit name}, the unit whose results each kept fact
                holds
    tracked     the keys of kept facts kept up to date by the changes of pieces (views,
                runtime/views.py): changes of pieces do not make them stale
    """

    def __init__(self, units: dict, statements: list, randomness: list, kept: dict,
                 tracked=(), by_player=()):
        self.units = units
        self.statements = tuple(statements)
        self.randomness = tuple(randomness)
        self.kept = dict(kept)
        # the kept facts kept up to date by the changes of pieces at run time (views:
        # runtime/views.py): only their other reads make them stale here
        self.tracked = frozenset(tracked)
        # the kept facts held by the player they were computed for (a decision's listings
        # for can_choose): whose turn it is does not make them stale
        self.by_player = frozenset(by_player)
        self._closed: dict = {}

    @property
    def random(self) -> bool:
        """Does the game draw randomness anywhere?"""
        return bool(self.randomness)

    def _close(self, name: str) -> tuple:
        """(reads, writes) of a unit and of every unit it calls, however deep."""
        found = self._closed.get(name)
        if found is None:
            reads: set = set()
            writes: set = set()
            todo, seen = [name], {name}
            while todo:
                s = self.units.get(todo.pop())
                if s is None:
                    continue
                reads |= s.reads
                writes |= s.writes
                for callee in s.calls:
                    if callee not in seen:
                        seen.add(callee)
                        todo.append(callee)
            found = self._closed[name] = (frozenset(reads), frozenset(writes))
        return found

    def reads(self, name: str) -> frozenset:
        """The facts a unit reads, transitively through what it calls."""
        return self._close(name)[0]

    def writes(self, name: str) -> frozenset:
        """The facts a unit writes, transitively through what it calls."""
        return self._close(name)[1]

    def statement_reads(self, s: Statement) -> frozenset:
        """What a statement reads, with what the units it calls read."""
        return s.reads.union(*[self.reads(u) for u in s.calls])

    def statement_writes(self, s: Statement) -> frozenset:
        """What a statement writes, with what the units it calls write (a `call`: all
        that the rule writes)."""
        return s.writes.union(*[self.writes(u) for u in s.calls])

    def as_data(self) -> dict:
        """The records as plain, sorted data (lists and strings: for JSON and the docs):
        {"randomness": [[kind, unit, "line:col"]], "units": {unit: {"reads": [...],
        "writes": [...], "calls": [...], "all_reads": [...], "all_writes": [...]}},
        "statements": [[unit, kind, "line:col", reads, writes, calls]], "kept": {...}}."""
        def facts(items) -> list:
            return sorted([list(f) for f in items], key=repr)

        def at(pos) -> str:
            return f"{pos.line}:{pos.col}"
        return {
            "randomness": [[d.kind, d.unit, at(d.pos)] for d in self.randomness],
            "units": {name: {"reads": facts(s.reads), "writes": facts(s.writes),
                             "calls": sorted(s.calls), "all_reads": facts(self.reads(name)),
                             "all_writes": facts(self.writes(name))}
                      for name, s in self.units.items()},
            "statements": [[s.unit, s.kind, at(s.pos), facts(s.reads), facts(s.writes),
                            sorted(s.calls)] for s in self.statements],
            "kept": dict(self.kept)}

    def stale(self, writes) -> tuple:
        """The keys of the kept facts that a statement writing `writes` makes stale: those
        whose unit reads (transitively) something written, in the order they were kept
        (the generated code drops only these: Program.stale)."""
        out = []
        untracked = [w for w in writes if w[0] not in (ZONE, ATTR)]
        for key, unit in self.kept.items():
            reads = self.reads(unit)
            for w in (untracked if key in self.tracked else writes):
                if w in reads or (w[0] in (ZONE, TABLE) and any(touches(w, r) for r in reads)):
                    out.append(key)
                    break
        return tuple(out)

    def reads_current(self, name: str) -> bool:
        return (CURRENT,) in self.reads(name)

    def turn_facts(self) -> tuple:
        """The keys of the kept facts that read whose turn it is: only these are stale
        at a new turn (Program.turn_facts)."""
        return tuple(k for k, unit in self.kept.items()
                     if k not in self.by_player and self.reads_current(unit))


class Usage:
    """The records kept while one program compiles; `facts()` gives them as Facts.

    Dead data's part (deadcode.py): data entries read whole, data tables' keys read at a
    constant key, piece attributes read (fixed or changeable), the names each component's
    own expressions (count, attributes) read."""

    def __init__(self, comp=None):
        self.c = comp
        self.whole: set = set()
        self.keys: dict = {}
        self.attrs: set = set()
        self.own: dict = {}            # component -> names its own expressions read (layout.py)
        self.units: dict = {}
        self.stack: list = []
        self.types: dict = {}          # id(node) -> (node, type): the types compiled
        self.statements: list = []
        self.randomness: list = []
        self.kept: dict = {}
        self.tracked: set = set()
        self.by_player: set = set()
        self.reaching: set = set()     # the units that call a kept group, however deep
        self.inlined: dict = {}        # id(call node) -> (node, the call was inlined?)
        self.groups = 0
        self._stmt: list = []          # (reads, calls) of the statements being compiled
        self._new_whole: dict = {}     # id(zone name node) -> its read of the whole zone
        self._imagining = 0            # inside `after`: statements change a copy
        self.warnings: list = []       # SpecErrors of kind 'warning' (tabula validate)

    # -- units ---------------------------------------------------------------------------
    @contextmanager
    def unit(self, name: str):
        """Compile inside a unit: what is read is its own; the unit around calls it."""
        self.call(name)
        self._summary(name)
        self.stack.append(name)
        outer, self._stmt = self._stmt, []   # the statements around: they call the unit
        try:
            yield
        finally:
            self.stack.pop()
            self._stmt = outer

    def _summary(self, name: str) -> Summary:
        s = self.units.get(name)
        if s is None:
            s = self.units[name] = Summary()
        return s

    def current_unit(self) -> str:
        return self.stack[-1] if self.stack else ""

    def call(self, name: str) -> None:
        """The current unit (and the statements being compiled) call unit `name`."""
        if self.stack:
            self._summary(self.stack[-1]).calls.add(name)
            if name in self.reaching:
                self.reaching.update(self.stack)
        for _, calls in self._stmt:
            calls.add(name)

    def keep(self, key: str, unit: str = "") -> None:
        """The kept fact `key` (a key of State.facts) holds a unit's results (default:
        the current unit's)."""
        self.kept[key] = unit or self.current_unit()

    def keep_listing(self, key: str, unit: str) -> None:
        """A decision's listings (unit `unit`), kept in State.facts[key] by the player
        each was listed for: stale when what they read changes, not at a new turn."""
        self.kept[key] = unit
        self.by_player.add(key)

    def keep_view(self, key: str, unit: str) -> None:
        """The view `key` holds what unit `unit` (its generator) reads."""
        self.kept[key] = unit
        self.tracked.add(key)

    def keep_group(self, key: str, unit: str) -> None:
        """The group of unit `unit`, kept in State.facts[key], is kept across moves
        (boards.py): it and every unit that calls it, however deep, reach a kept group
        (Usage.reaching)."""
        self.tracked.add(key)
        self.reaching.add(unit)
        self.reaching.update(self.stack)

    def new_group(self) -> str:
        """The unit name of the next group(...) compiled: group:1, group:2..."""
        self.groups += 1
        return f"group:{self.groups}"

    def inline(self, node, inlined: bool) -> None:
        """A spec function's call was compiled inline (its body at the call) or not."""
        self.inlined[id(node)] = (node, inlined)

    def was_inlined(self, node) -> bool:
        found = self.inlined.get(id(node))
        return found is not None and found[0] is node and found[1]

    def read(self, fact: tuple) -> list:
        """Record a read; -> the sets it was new in (the unit's, the statements')."""
        new = []
        sets = ([self._summary(self.stack[-1]).reads] if self.stack else []) + [
            reads for reads, _ in self._stmt]
        for reads in sets:
            if fact not in reads:
                reads.add(fact)
                new.append(reads)
        return new

    def write(self, fact: tuple) -> None:
        if self.stack:
            self._summary(self.stack[-1]).writes.add(fact)

    def draw(self, kind: str, pos: Pos, unit: str = "") -> None:
        unit = unit or self.current_unit()
        flow = getattr(self.c, "flow", None)
        self.randomness.append(Draw(kind, unit, pos, getattr(flow, "current", "") or ""))
        if unit:
            self._summary(unit).writes.add((RANDOM,))

    def facts(self) -> Facts:
        """The records, once the program is compiled (the compile-time tables go)."""
        self.types.clear()
        self.inlined.clear()
        self._new_whole.clear()
        return Facts(self.units, self.statements, self.randomness, self.kept, self.tracked,
                     self.by_player)

    # -- expressions (ExprCompiler.compile calls this for every node it compiled) --------
    def expr(self, node, scope, typ) -> None:
        self.types[id(node)] = (node, typ)
        c = self.c
        if c is None:
            return
        kind = type(node)
        if kind is ast.Name and node.id not in scope.names:
            new = self._name(node.id)
            if new and node.id in c.prog.zones:
                self._new_whole[id(node)] = (node, new)
            return
        if typ[0] in ("slot", "zone") and kind is not ast.Index and kind is not ast.Index2:
            # a container in hand (a local cell, a parameter, p.hand, neighbour(c, d)...):
            # what is done with it may read its pieces
            z = typ[1]
            self.read((ZONE, z.name if z.name in c.prog.zones else ANY_ZONE, None))
        if kind is ast.Attr:
            if isinstance(node.obj, ast.Name) and node.obj.id == "option" \
                    and "option" not in scope.names:
                self.read((OPTION, node.name))
                return
            otyp = self.type_of(node.obj)
            p = c.prog
            if otyp == T.PIECE and node.name in p.changeable:
                self.read((ATTR, node.name))
            elif otyp == T.PLAYER:
                if node.name in p.zones and p.zones[node.name].per_player:
                    self.read((ZONE, node.name, None))
                elif node.name in c.tables:
                    self.read((TABLE, node.name, None))
                elif node.name in p.pvar_names:
                    self.read((PVAR, node.name))
        elif kind is ast.Index:
            self._index(node, scope)
        elif kind is ast.Index2:
            z = typ[1]
            x, y = (self.constant(n, scope) for n in (node.x, node.y))
            if type(x) is int and type(y) is int and isinstance(node.obj, ast.Name) \
                    and 0 <= x < z.width and 0 <= y < z.height:
                self._narrow(node.obj, (ZONE, z.name, y * z.width + x))
            else:
                self.read((ZONE, z.name, None))
        elif kind is ast.Func:
            if node.name in c.place_readers:     # as the builtin declares it
                self.read((ZONE, ANY_ZONE, None))
            if node.name in c.name_readers and c.prog.piece_namer:
                for a in c.prog.changeable:      # a name may show any of them
                    self.read((ATTR, a))

    def _name(self, name: str) -> list:
        c = self.c
        p = c.prog
        if name == "current":
            return self.read((CURRENT,))
        if name in c.tables and not c.tables[name][0]:
            return self.read((TABLE, name, None))
        if name in p.gvar_names:
            return self.read((VAR, name))
        if name in p.zones:
            return self.read((ZONE, name, None))
        if name in c.data:
            return self.read((DATA, name))
        return []

    def _index(self, node, scope) -> None:
        c = self.c
        obj = node.obj
        table = None
        if isinstance(obj, ast.Name) and obj.id in c.tables and obj.id not in scope.names \
                and not c.tables[obj.id][0]:
            table = obj.id
        elif isinstance(obj, ast.Attr) and obj.name in c.tables and c.tables[obj.name][0] \
                and self.type_of(obj.obj) == T.PLAYER:
            table = obj.name
        if table is not None:
            key = self.constant(node.key, scope)
            self.read((TABLE, table, None if key is MISSING else key))
            return
        otyp = self.type_of(obj)
        if otyp is not None and otyp[0] == "zone":
            key = self.constant(node.key, scope)
            if isinstance(obj, ast.Name) and type(key) is int and 0 <= key < otyp[1].nslots:
                self._narrow(obj, (ZONE, otyp[1].name, key))
            else:       # a slot of a zone in hand (p.piles[i]): its pieces may be read
                self.read((ZONE, otyp[1].name if otyp[1].name in c.prog.zones else ANY_ZONE,
                           None))

    def _narrow(self, zone_node, fact: tuple) -> None:
        """zone[k] at a constant k reads one slot: the read of the whole zone its name
        made is taken back (unless something else read the whole zone)."""
        found = self._new_whole.pop(id(zone_node), None)
        if found is not None and found[0] is zone_node:
            for reads in found[1]:
                reads.discard((ZONE, fact[1], None))
        self.read(fact)

    def type_of(self, node):
        found = self.types.get(id(node))
        return found[1] if found is not None and found[0] is node else None

    # -- statements (Steps.statement calls these around each one) -----------------------
    @contextmanager
    def statement(self, node, scope):
        reads: set = set()
        calls: set = set()
        self._stmt.append((reads, calls))
        try:
            yield
            if isinstance(node, ast.Call):     # (compiled at its first call: then too)
                self.call(f"rule:{node.name}")
        finally:
            self._stmt.pop()
        writes = self._writes(node, scope)
        for w in writes:
            if self._imagining:
                self.read(w)
                continue
            self.write(w)
            if isinstance(node, ast.Assign) and node.op != "=":   # x += 1 reads x
                self.read(w)
                reads.add(w)
        draw, when = node.DRAW if isinstance(node, ast.Stmt) and node.DRAW else ("", "")
        if draw and (not when or getattr(node, when)):
            self.draw(draw, node.pos)
            writes = writes | {(RANDOM,)}
        self.statements.append(Statement(self.current_unit(), type(node).__name__, node.pos,
                                         frozenset(reads), frozenset(writes),
                                         frozenset(calls)))

    @contextmanager
    def imagined(self):
        """Statements of an `after` (ExprCompiler.x_After): they change a copy of the
        state, so what they change is what the value around them reads (its value
        depends on what was there before), never a write of the unit."""
        self._imagining += 1
        try:
            yield
        finally:
            self._imagining -= 1

    def turns(self) -> None:
        """A `turns:` step: it sets whose turn it is."""
        self.write((CURRENT,))

    def _writes(self, node, scope) -> set:
        c = self.c
        p = c.prog
        out: set = set()
        if isinstance(node, ast.Stmt):         # what it changes, as its node declares
            for f in node.PLACES:
                out |= self._container(getattr(node, f), scope)
            for f in node.TAKES:
                out |= self._from(getattr(node, f), scope)
            if node.ENDS:
                out.add((END,))
        elif isinstance(node, ast.Assign):
            t = node.target
            if isinstance(t, ast.Index):
                name = t.obj.id if isinstance(t.obj, ast.Name) else getattr(t.obj, "name", "")
                key = self.constant(t.key, scope)
                out.add((TABLE, name, None if key is MISSING else key))
            elif isinstance(t, ast.Name):
                var = scope.names.get(t.id)
                if (var is None or var.slot is None) and t.id in p.gvar_names:
                    out.add((VAR, t.id))
            elif isinstance(t, ast.Attr):
                otyp = self.type_of(t.obj)
                if otyp == T.PIECE:
                    out.add((ATTR, t.name))
                elif t.name in p.pvar_names:
                    out.add((PVAR, t.name))
        return out

    def _container(self, node, scope) -> set:
        """The zone (and slot where static) a destination names."""
        typ = self.type_of(node)
        if typ is None or typ[0] not in ("slot", "zone") or not typ[1].name \
                or typ[1].name not in self.c.prog.zones:
            return {(ZONE, ANY_ZONE, None)}
        z = typ[1]
        slot = None
        if isinstance(node, ast.Index) and isinstance(node.obj, ast.Name):
            key = self.constant(node.key, scope)
            if type(key) is int:
                slot = key
        elif isinstance(node, ast.Index2) and isinstance(node.obj, ast.Name):
            x, y = self.constant(node.x, scope), self.constant(node.y, scope)
            if type(x) is int and type(y) is int:
                slot = y * z.width + x
        return {(ZONE, z.name, slot)}

    def _from(self, node, scope) -> set:
        """The zones the pieces of a moved expression leave: the zone it names if it is
        a container; else the zones it reads, when it reads no local that may hold any
        piece; else some zone (unknown which)."""
        typ = self.type_of(node)
        if typ is not None and typ[0] in ("slot", "zone"):
            return self._container(node, scope)
        zones: set = set()
        inner = _bound_inside(node)          # generator variables and lets: read here
        todo = [node]
        while todo:
            n = todo.pop()
            t = self.type_of(n)
            if isinstance(n, ast.Name) and n.id not in inner and t is not None and (
                    t in (T.PIECE, T.ANY) or t[0] == "list"):
                return {(ZONE, ANY_ZONE, None)}      # a piece from anywhere
            if isinstance(n, ast.Func) and n.name in self.c.functions:
                return {(ZONE, ANY_ZONE, None)}      # what the function reads: not here
            if t is not None and t[0] in ("slot", "zone") and t[1].name in self.c.prog.zones:
                zones.add((ZONE, t[1].name, None))
            if isinstance(n, ast.Node):
                todo.extend(vars(n).values())
            elif isinstance(n, tuple):
                todo.extend(n)
        return zones or {(ZONE, ANY_ZONE, None)}

    # -- constant evaluation over the AST ------------------------------------------------
    def constant(self, node, scope):
        """The value of an expression that reads no state and no local, computed when
        compiled (data, options, enum values, players, literals, range with constant
        ends, arithmetic and comparisons of these, an entry of a constant table), else
        MISSING. No Python text is evaluated."""
        return _Const(self.c, scope).value(node)

    # -- binding domains -----------------------------------------------------------------
    def domain(self, source, scope, etyp) -> BindingDomain:
        """The domain of a binding `var in source` (just compiled in `scope`, where the
        bindings before it are locals), its items of type etyp."""
        c = self.c
        p = c.prog
        kind = etyp[0]
        if kind == "piece":
            return BindingDomain("piece", 0, len(p.piece_names) - 1)
        if kind == "player":
            return BindingDomain("player", 0, p.players - 1)
        if kind == "enum":
            values = tuple(c.enums[etyp[1]])
            return BindingDomain("enum", 0, len(values) - 1, values, etyp[1])
        if kind == "slot" and getattr(etyp[1], "nslots", 0) and getattr(etyp[1], "name", "") \
                and etyp[1].name in p.zones:
            z = etyp[1]
            count = z.nslots * (p.players if z.per_player else 1)
            return BindingDomain("container", z.base, z.base + count - 1, name=z.name)
        const = _Const(c, scope)
        if isinstance(source, ast.ListExpr) and len(source.items) == 1:
            found = const.value(source)
            if found is not MISSING:          # [64]: one id, its value known
                return BindingDomain("value", values=tuple(found))
            return BindingDomain("dependent")  # one value: found from the bindings before
        if kind in ("slot", "zone"):
            return BindingDomain("any container", 0, p.nslots - 1)
        found = const.value(source)
        if found is not MISSING and _listable(found):
            items = list(found)
            try:
                listed = sorted(set(items))
            except TypeError:      # values of several kinds: in their order, once each
                listed = list(dict.fromkeys(items))
            return BindingDomain("values", values=tuple(listed))
        if kind == "bool":
            return BindingDomain("condition", 0, 1, (False, True))
        if kind not in ("int", "any"):
            return BindingDomain("unbounded")
        lo, hi = _Bounds(c, scope).elements(source, {})
        return BindingDomain("interval", lo, hi)


def _bound_inside(node) -> set:
    """The names an expression binds for its own parts: generator variables, lets, a
    group's cell variable, a path's cell (and step) variables."""
    out: set = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Generator):
            out.add(n.var)
            out.update(name for name, _ in n.lets)
        elif isinstance(n, ast.LetIn):
            out.update(name for name, _ in n.lets)
        elif isinstance(n, ast.Region):
            out.add(n.var)
        elif isinstance(n, ast.Path):
            out.update(name for name in (n.var, n.prev) if name is not None)
        if isinstance(n, ast.Node):
            todo.extend(vars(n).values())
        elif isinstance(n, tuple):
            todo.extend(n)
    return out


def _listable(v) -> bool:
    return isinstance(v, (list, tuple, range, dict))


class _Const:
    """Constant evaluation of an expression's AST (Usage.constant)."""

    def __init__(self, comp, scope, depth: int = 0):
        self.c, self.scope, self.depth = comp, scope, depth
        self.env: dict = {}         # names bound to constants (an inlined function's params)

    def local(self, name: str) -> bool:
        return self.scope is not None and name in self.scope.names

    def value(self, node):
        try:
            return self._value(node)
        except (TypeError, ValueError, ZeroDivisionError, KeyError, IndexError,
                AttributeError, RecursionError, OverflowError):
            return MISSING

    def _value(self, node):
        c = self.c
        if isinstance(node, ast.Const):
            return node.value
        if isinstance(node, ast.ListExpr):
            items = [self._value(i) for i in node.items]
            return MISSING if any(i is MISSING for i in items) else items
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            if self.local(node.id):
                return MISSING
            if node.id == "players":
                return list(range(c.prog.players))
            if node.id in c.tables or node.id in c.prog.gvar_names or node.id in c.prog.zones:
                return MISSING
            if node.id in c.data:
                return c.data[node.id]
            if node.id in c.enums:
                return list(c.enums[node.id])
            if node.id in c.member_of:
                return node.id
            return MISSING
        if isinstance(node, ast.Attr):
            if isinstance(node.obj, ast.Name) and node.obj.id == "option" \
                    and not self.local("option"):
                return c.prog.options.get(node.name, MISSING)
            return MISSING
        if isinstance(node, ast.Index):
            obj = self._value(node.obj)
            if obj is MISSING:
                return MISSING
            key = self._value(node.key)
            if key is MISSING:
                return MISSING
            if isinstance(obj, list) and (type(key) is not int or not 0 <= key < len(obj)):
                return MISSING
            return obj[key]
        if isinstance(node, ast.Neg):
            v = self._value(node.operand)
            return MISSING if v is MISSING or not _number(v) else -v
        if isinstance(node, ast.Arith):
            a, b = self._value(node.left), self._value(node.right)
            if a is MISSING or b is MISSING or not (_number(a) and _number(b)):
                return MISSING
            return _arith(node.op, a, b)
        if isinstance(node, ast.Compare):
            a, b = self._value(node.left), self._value(node.right)
            if a is MISSING or b is MISSING:
                return MISSING
            return _compare(node.op, a, b)
        if isinstance(node, ast.BoolOp):
            a = self._value(node.left)
            if a is MISSING:
                return MISSING
            if (node.op == "and") != bool(a):
                return bool(a)
            b = self._value(node.right)
            return MISSING if b is MISSING else bool(b)
        if isinstance(node, ast.Not):
            a = self._value(node.operand)
            return MISSING if a is MISSING else not a
        if isinstance(node, ast.Cond):
            test, a, b = (self._value(n) for n in (node.test, node.body, node.orelse))
            if MISSING in (test, a, b):
                return MISSING
            return a if test else b
        if isinstance(node, ast.Func):
            return self._call(node)
        return MISSING

    def _call(self, node):
        c = self.c
        if node.name == "slots" and len(node.args) == 1:       # a zone's slot numbers
            typ = c.usage.type_of(node.args[0])
            if typ is not None and typ[0] in ("slot", "zone"):
                return list(range(typ[1].nslots if typ[0] == "zone" else 1))
            return MISSING
        args = [self._value(a) for a in node.args]
        if any(a is MISSING for a in args):
            return MISSING
        if node.name == "range" and len(args) == 2 and all(type(a) is int for a in args):
            if args[1] - args[0] > MAX_RANGE:
                return MISSING
            return list(range(args[0], args[1] + 1))
        if node.name in ("count", "size") and len(args) == 1 and _listable(args[0]):
            return len(args[0])
        if node.name == "values" and len(args) == 1 and isinstance(args[0], dict):
            return list(args[0].values())
        if node.name == "keys" and len(args) == 1 and isinstance(args[0], dict):
            return list(args[0])
        if node.name in c.functions and self.depth < 32:
            return self._function(node, args)
        return MISSING

    def _function(self, node, args: list):
        """A spec function of constant arguments, inlined by the compiler: its value."""
        name = node.name
        fdef = self.c.functions[name]
        params = [str(p) for p in fdef.get("params", [])]
        if len(params) != len(args) or not self.c.usage.was_inlined(node):
            return MISSING
        inner = _Const(self.c, None, self.depth + 1)
        inner.env = dict(zip(params, args))
        return inner._value(self.c.builtins.function_ast(name))


def _number(v) -> bool:
    return type(v) in (int, Fraction, bool)


# the rule language's operators on constants, with its meaning of `/` (exact, a whole
# result an int: values.B_num); an operator not here is not evaluated (MISSING)
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul,
          "/": lambda a, b: B_num(Fraction(a) / b), "//": operator.floordiv,
          "%": operator.mod}
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge, "in": lambda a, b: a in b,
            "not in": lambda a, b: a not in b}


def _arith(op: str, a, b):
    """a op b, or MISSING for an operator not folded or a number too large to fold (the
    generated code then computes it, and refuses it: values.MAX_BITS)."""
    f = _ARITH.get(op)
    if f is None or _too_big(a, b):
        return MISSING
    return f(a, b)


def _too_big(*numbers) -> bool:
    """Would an operation on these numbers go beyond values.MAX_BITS (their sizes together,
    a fraction's numerator and denominator both counted)?"""
    bits = 0
    for x in numbers:
        if type(x) is Fraction:
            bits += x.numerator.bit_length() + x.denominator.bit_length()
        elif type(x) in (int, bool):
            bits += x.bit_length()
    return bits > MAX_BITS


def _compare(op: str, a, b):
    f = _COMPARE.get(op)
    return MISSING if f is None else f(a, b)


class _Bounds:
    """(lo, hi) bounds of whole numbers from an expression's AST, each None where the
    compiler cannot bound it: constants, whose turn it is, a fixed piece attribute or a
    constant list's item (their least and greatest values), + - * of these."""

    def __init__(self, comp, scope, depth: int = 0):
        self.c, self.scope, self.depth = comp, scope, depth
        self.usage = comp.usage

    def elements(self, node, env: dict) -> tuple:
        """(lo, hi) of the items of a number source."""
        if isinstance(node, ast.Func):
            if node.name == "range" and len(node.args) == 2:
                return self.bound(node.args[0], env)[0], self.bound(node.args[1], env)[1]
            if node.name == "open_slots" and len(node.args) == 1:
                typ = self.usage.type_of(node.args[0])
                width = typ[1].nslots if typ is not None and typ[0] == "zone" else 1
                return 0, width - 1
            if node.name in self.c.functions and self.depth < 8:
                # a spec function: the bounds of its value; its parameters bounded as
                # its arguments are where its body was inlined, else unbounded
                params = [str(p) for p in self.c.functions[node.name].get("params", [])]
                inlined = self.usage.was_inlined(node)
                inner = _Bounds(self.c, None, self.depth + 1)
                return inner.elements(self.c.builtins.function_ast(node.name), {
                    p: self.bound(a, env) if inlined else (None, None)
                    for p, a in zip(params, node.args)})
            return None, None
        if isinstance(node, ast.ListExpr) and node.items:
            return _union([self.bound(e, env) for e in node.items])
        if isinstance(node, ast.Cond):
            return _union([self.elements(node.body, env), self.elements(node.orelse, env)])
        if isinstance(node, ast.LetIn):
            names = dict(env)
            for name, value in node.lets:
                names[name] = self.bound(value, names)
            return self.elements(node.body, names)
        return None, None

    def bound(self, node, env: dict) -> tuple:
        """(lo, hi) of a whole number's value."""
        if isinstance(node, ast.Name) and node.id in env:
            return env[node.id]
        const = _Const(self.c, self.scope)
        if not _reads_names(node, env):
            v = const.value(node)
            if type(v) is int:
                return v, v
        if isinstance(node, ast.Name):
            if node.id == "current" and not const.local("current"):
                return 0, self.c.prog.players - 1
            return None, None
        if isinstance(node, ast.Attr):
            typ = self.usage.type_of(node.obj)
            p = self.c.prog
            if typ == T.PIECE and node.name in p.piece_attrs and node.name not in p.changeable:
                return _range_of(p.piece_attrs[node.name])
            return None, None
        if isinstance(node, ast.Index):
            table = const.value(node.obj)
            typ = self.usage.type_of(node.obj)
            if isinstance(table, list) and typ is not None and typ[0] == "list":
                return _range_of(table)
            return None, None
        if isinstance(node, ast.Neg):
            lo, hi = self.bound(node.operand, env)
            return (None if hi is None else -hi), (None if lo is None else -lo)
        if isinstance(node, ast.Arith):
            if self.usage.type_of(node) == T.NUM:
                return None, None
            a, b = self.bound(node.left, env), self.bound(node.right, env)
            if node.op == "+":
                return _add(a[0], b[0]), _add(a[1], b[1])
            if node.op == "-":
                return _add(a[0], None if b[1] is None else -b[1]), \
                    _add(a[1], None if b[0] is None else -b[0])
            if node.op == "*" and None not in a + b and not _too_big(a[0], b[0]) \
                    and not _too_big(a[1], b[1]) and not _too_big(a[0], b[1]) \
                    and not _too_big(a[1], b[0]):
                products = [x * y for x in a for y in b]
                return min(products), max(products)
        return None, None


def _reads_names(node, env: dict) -> bool:
    return any(n in env for n in ast.name_uses(node))


def _range_of(values) -> tuple:
    values = list(values)
    if values and all(type(v) is int for v in values):
        return min(values), max(values)
    return None, None


def _union(bounds) -> tuple:
    los, his = [b[0] for b in bounds], [b[1] for b in bounds]
    return (None if None in los else min(los)), (None if None in his else max(his))


def _add(x, y):
    return None if x is None or y is None else x + y
