"""The layout of a game's state: zones and their slots, variables, pieces.

Input: the checked spec document, the player count and options (through the Compiler).
Output: the Program's static tables (interpreter/runtime/model.py): every zone's slots with their
capacities and owners, the board geometry of each slot (neighbours from geometry.py,
computed once per board shape), the global and per-player variables with their types,
and every piece with its attributes and home slot. Values the layout needs from rule
text (capacities, counts, attributes) are computed from data, enums and options only.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import NoReturn

from ..errors import NOWHERE, SpecError, did_you_mean, fail
from ..lang import ast
from ..lang import types as T
from ..lang.ast import name_uses
from ..lang.loader import LList, LMap, LStr, plain
from ..runtime.geometry import NO_LINE, geometry
from ..runtime.model import Namer, ZoneInfo
from ..runtime.readers import MAX_NUMBER, WORK_LIMIT, lines_in_place
from ..runtime.templates import (
    TemplateError,
    render_template,
    template_fields,
    template_parts,
    value_text,
)
from ..runtime.values import explain
from .common import Scope

MAX_PIECES = 100_000
MAX_SLOTS = 100_000
MAX_PLAYERS = 100            # the most players a spec may allow (game.players.max)
# pieces x attributes (every attribute of every component is on every piece), and a
# component's for_each combinations x its attributes: counted before any is computed
MAX_ATTRIBUTE_VALUES = 2_000_000
ATTRIBUTE_IS = ("a piece's attribute holds a number, a text, a condition (true, false), "
                "none, an enum's value, or a list of these")
MAX_STEPS = 100_000_000      # the largest game.max_steps
MAX_DECISIONS = 1_000_000    # the largest game.max_decisions (a game's history)
MAX_LIST_BOUND = 10_000      # the largest max_length of a list variable
BOARDS = ("grid", "hex")     # zones of width x height cells
MAX_RAY_CELLS = 2_000_000    # rays laid out in advance for boards up to this many cells
MAX_LINES_IN_PLACE = 500_000  # slots x directions of the lines read in place (readers.Line)
# the lines read in place: the table each repeats, and its value for none
IN_PLACE = {"step_lines": ("steps", None), "ray_lines": ("rays", ())}
VAR_TYPES = {"int": T.INT, "bool": T.BOOL, "text": T.STR, "player": T.PLAYER, "number": T.NUM,
             "piece": T.PIECE}     # and "cell", added by the Compiler (any zone's slot)


def _fits(value, typ, enums: dict) -> bool:
    """Can a variable of type `typ` start as `value` (as the spec gives it)?"""
    if value is None:
        return True
    whole = isinstance(value, int) and not isinstance(value, bool)
    kind = typ[0]
    if kind == "list":
        return isinstance(value, list) and all(_fits(v, typ[1], enums) for v in value)
    if kind in ("int", "piece", "player", "slot"):
        return whole
    if kind == "num":
        return whole or isinstance(value, Fraction)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "enum":
        return isinstance(value, str) and value in enums.get(typ[1], ())
    return True


def _names_in(node: object) -> list:
    """The Name nodes of an expression, in the order written."""
    out = []
    if isinstance(node, ast.Name):
        out.append(node)
    elif isinstance(node, ast.Node):
        for value in vars(node).values():
            out += _names_in(value)
    elif isinstance(node, (tuple, list)):
        for item in node:
            out += _names_in(item)
    return out


class Layout:
    """Builds the Program's tables of zones, variables and pieces for one Compiler."""

    def __init__(self, comp):
        self.c = comp
        self._tables: dict = {}

    def build(self) -> None:
        game = self.c.doc.get("game", LMap())
        if self.c.prog.players > MAX_PLAYERS:     # a spec the schema did not check
            players = game.get("players") if isinstance(game, LMap) else None
            fail(f"a game is for at most {MAX_PLAYERS} players, not {self.c.prog.players}",
                 game.where("players") if isinstance(game, LMap) and players is not None
                 else NOWHERE)
        self.c.prog.work[0] = 0      # the one budget of the values computed (const_fn)
        if self.c.prog.max_steps > MAX_STEPS:
            fail(f"max_steps is at most {MAX_STEPS}",
                 game.where("max_steps") if isinstance(game, LMap) else NOWHERE)
        if not 1 <= self.c.prog.max_decisions <= MAX_DECISIONS:
            fail(f"max_decisions is from 1 to {MAX_DECISIONS}",
                 game.where("max_decisions") if isinstance(game, LMap) else NOWHERE)
        self.zones()
        self.variables()
        self.components()

    # -- values computed from data, enums and options --------------------------------------
    def const_fn(self, text, scope, uses: set | None = None):
        """Compile text that depends only on data, enums, options and the scope's names:
        fn(locals, context="") -> value. `uses`, if given, gathers the names the text
        reads. Every failure of the computation is a located SpecError (const_failed),
        never a Python exception: the text is evaluated when the spec compiles."""
        if not isinstance(text, str):
            value = plain(text)
            return lambda L, context="": value
        node = self.c.parse(text, "expression")
        if uses is not None:
            uses.update(name_uses(node))
        x = self.c.x
        was, x.explained = x.explained, True     # items read through B_item (its words)
        try:
            fn, _ = x.function(node, scope)
        finally:
            x.explained = was
        pos = getattr(text, "pos", NOWHERE)
        work = self.c.prog.work

        def const(L, context=""):
            # one work budget for every value computed when the spec compiles (build():
            # readers.work_budget), not one each: a component's count is computed for
            # each of 100,000 combinations of its for_each
            try:
                return fn(None, L)
            except SpecError as exc:        # a helper's located error (B_item, B_div, ...)
                message = exc.message
                if work[0] > WORK_LIMIT:
                    message = (f"more than {WORK_LIMIT} items taken by generators and "
                               "comprehensions in all")
                self.const_failed(message, exc.pos if exc.pos.line else pos,
                                  exc.hint, context)
            except CONST_FAILURES as exc:
                found = self.c.mod.position(exc.__traceback__)
                self.const_failed(explain(exc, compiling=True), found or pos, "", context)
        return const

    @staticmethod
    def const_failed(message: str, pos, hint: str, context: str) -> NoReturn:
        """A value computed when the spec compiles cannot be: a located SpecError (not a
        rule error: no game runs), saying for which `for_each` combination, if any."""
        fail(message + (f" (for {context})" if context else ""), pos,
             (hint + "; " if hint else "") + "the value is computed from data, enums and "
             "options when the spec compiles")

    def const_value(self, text, scope=None):
        return self.const_fn(text, scope or Scope())([None] * 16)

    # -- zones ------------------------------------------------------------------------------
    def zones(self) -> None:
        """Every zone's slots. Their number (per owner, times the players of a per-player
        zone) is counted before any slot is made, and bounded by MAX_SLOTS."""
        p = self.c.prog
        base = 0
        zones = self.c.doc.get("zones", LMap())
        for name, z in zones.items():
            kind = str(z["kind"])
            w = h = 1
            if kind in BOARDS:
                w, h = self.zone_number(z, "width", 1, 1), self.zone_number(z, "height", 1, 1)
            if "capacities" in z:
                caps = self.const_value(z["capacities"])
                if not isinstance(caps, list) or not caps \
                        or not all(type(c) is int and c >= 0 for c in caps):
                    fail("capacities must be a list of whole numbers of 0 or more, one a "
                         "slot", z.where("capacities"))
                n = len(caps)
                if kind in BOARDS and n != w * h:
                    fail(f"a {kind} of {w} x {h} cells has {w * h} capacities, one a cell, "
                         f"not {n}", z.where("capacities"))
            elif kind in BOARDS:
                cap = self.zone_number(z, "capacity", 1, 0)
                n = w * h
            else:
                n = self.zone_number(z, "size", 1, 1)
                cap = self.zone_number(z, "capacity", None, 0)
            per = bool(z.get("per_player", False))
            if str(z.get("visibility", "public")) == "others" and not per:
                fail("a zone seen by every player but its owner needs an owner: "
                     "per_player: true", z.where("visibility"),
                     "a shared zone is public, count or hidden")
            owners = p.players if per else 1
            # counted before any slot is made: this zone's, then all zones' so far
            if n > MAX_SLOTS or base + owners * n > MAX_SLOTS:
                shape = f"{w} x {h} cells" if kind in BOARDS else f"{n} slots"
                fail(f"more than {MAX_SLOTS} zone slots: this zone has {shape}"
                     + (f" for each of {owners} players" if per else "")
                     + (f", after {base} in the zones before it" if base else ""), z.pos)
            if "capacities" not in z:
                caps = [cap] * n
            if kind in ("stack", "set", "row") and n != 1:
                fail(f"a {kind} zone has one slot", z.pos)
            info = ZoneInfo(str(name), kind, per, n, base,
                            str(z.get("visibility", "public")), caps,
                            pos=zones.where_key(name),
                            ordered=bool(z.get("ordered", True)))
            info.width, info.height = (w, h) if kind in BOARDS else (n, 1)
            zi = len(p.zones)
            p.zones[str(name)] = info
            p.zone_list.append(info)
            for o in range(owners):
                for i, c in enumerate(caps):
                    p.slot_zone.append(zi)
                    p.slot_owner.append(o if per else -1)
                    p.slot_index.append(i)
                    p.slot_cap.append(c)
            base += owners * n
        p.nslots = base
        # the slots of unordered zones: their pieces are kept sorted (runtime.py)
        p.heaps = frozenset(s for s in range(base) if not p.zone_list[p.slot_zone[s]].ordered)
        self.neighbours()

    def zone_number(self, z, key: str, default, least: int):
        """A zone's size, width, height or capacity (rule text computed when the spec
        compiles, or a number): a whole number of at least `least`, or `default`."""
        if key not in z:
            return default
        value = self.const_value(z[key])
        if type(value) is not int:
            fail(f"a zone's {key} must be a whole number, not {_shown(value)}",
                 z.where(key))
        if value < least:
            fail(f"a zone's {key} must be at least {least}, not {value}",
                 z.where(key), "a zone has one slot at least" if least else "")
        return value

    def neighbours(self) -> None:
        """Each slot's orthogonal and all-round neighbours within its zone (and owner),
        from the geometry tables of its board shape (a zone of several slots that is not
        a grid is one row)."""
        p = self.c.prog
        p.adj4 = [()] * p.nslots
        p.adj8 = [()] * p.nslots
        for z in p.zone_list:
            if z.nslots == 1:
                continue
            g = self.geometry_of(z)
            for owner in range(p.players if z.per_player else 1):
                base = z.slot(owner, 0)
                for i in range(z.nslots):
                    p.adj4[base + i] = tuple(base + c for c in g.adj4[i])
                    p.adj8[base + i] = tuple(base + c for c in g.adj8[i])

    @staticmethod
    def geometry_of(z):
        """The board shape of a zone of several slots (one that is not a board is a grid
        of one row)."""
        return geometry(z.kind if z.kind in BOARDS else "grid", z.width, z.height)

    def lines(self, name: str) -> dict:
        """Direction -> a table over every slot: its neighbour that way (steps: a slot,
        or None off the board) or its ray (rays: a tuple of slots), in global slots; NO_LINE
        where the slot's zone has no such direction (one slot, or a hex board's 'n').
        Rays are laid out only for boards of moderate size (MAX_RAY_CELLS in all)."""
        p = self.c.prog
        zones = [p.zone_list[z] for z in p.slot_zone]
        boards = {z.name: self.geometry_of(z) for z in p.zone_list if z.nslots > 1}
        if name == "rays" and sum(g.size * (g.width + g.height) for g in boards.values()) \
                * 8 > MAX_RAY_CELLS:
            return {}
        out = {}
        for d in dict.fromkeys(x for g in boards.values() for x in g.directions):
            row: list = []
            for s, z, i in zip(range(p.nslots), zones, p.slot_index):
                g = boards.get(z.name) if z.nslots > 1 else None
                if g is None or d not in g.step:
                    row.append(NO_LINE)
                    continue
                base = s - i
                if name == "steps":
                    n = g.step[d][i]
                    row.append(None if n < 0 else base + n)
                else:
                    row.append(tuple(base + n for n in g.ray[d][i]))
            out[d] = tuple(row)
        return out

    def table(self, name: str) -> tuple | dict:
        """A per-slot table the builtins read: capacity (unbounded as MAX_PIECES),
        index, width, x, y, xy, adj4, adj8, on_edge, corner, board; the lines of the
        directions, steps and rays (lines()), and the same as step_lines and ray_lines,
        read in place ({} for boards too large to hold them twice)."""
        found = self._tables.get(name)
        if found is not None:
            return found
        p = self.c.prog
        zone = [p.zone_list[z] for z in p.slot_zone]
        if name == "capacity":
            found = tuple(c if c is not None else MAX_PIECES for c in p.slot_cap)
        elif name == "index":
            found = tuple(p.slot_index)
        elif name == "width":
            found = tuple(z.width for z in zone)
        elif name == "xy":
            found = tuple((i % z.width, i // z.width) for i, z in zip(p.slot_index, zone))
        elif name in ("x", "y"):
            found = tuple(xy[name == "y"] for xy in self.table("xy"))
        elif name in ("adj4", "adj8"):
            found = tuple(getattr(p, name))
        elif name in ("on_edge", "corner"):
            found = tuple(zone[s].kind in BOARDS and getattr(
                self.geometry_of(zone[s]), name)[p.slot_index[s]] for s in range(p.nslots))
        elif name in ("steps", "rays"):
            found = self.lines(name)
        elif name in IN_PLACE:
            # the same lines as dictionaries generated code reads in place (readers.Line)
            of, empty = IN_PLACE[name]
            whole, board = self.table(of), self.table("board")
            assert isinstance(whole, dict) and isinstance(board, tuple)
            found = lines_in_place(whole, board, empty) \
                if sum(len(row) for row in whole.values()) <= MAX_LINES_IN_PLACE else {}
        elif name == "board":
            # per slot: (its board's geometry, the slot of the board's cell 0), or None
            found = tuple((self.geometry_of(z), s - i) if z.nslots > 1 else None
                          for s, z, i in zip(range(p.nslots), zone, p.slot_index))
        else:
            raise KeyError(name)
        self._tables[name] = found
        return found

    # -- variables --------------------------------------------------------------------------
    def variables(self) -> None:
        c = self.c
        p = c.prog
        c.gvar_types, c.pvar_types = [], []
        for name, v in c.doc.get("variables", LMap()).items():
            init = self.initial_value(v)
            given = "initial" if "initial" in v else "value"
            if isinstance(init, dict):
                self.table_variable(str(name), v, init)
                continue
            tname = " ".join(str(v.get("type", "")).split())
            listed = tname.startswith("list of ")
            if listed:          # a list of values: replaced whole by assignment
                tname = tname[len("list of "):]
                init = init if given in v else []
                if not isinstance(init, list):
                    fail("a list variable starts as a list ([] or [1, 2])",
                         v.where(given) if given in v else v.pos)
            typ = VAR_TYPES.get(tname, None) or T.type_of_value(init)
            if tname in c.enums:
                typ = T.enum(tname)
            elif "type" in v and tname not in VAR_TYPES:
                fail(f"unknown variable type '{v['type']}'", v.where("type"),
                     did_you_mean(tname, list(VAR_TYPES) + list(c.enums))
                     or f"one of: {', '.join(VAR_TYPES)}, or an enum, or "
                        "'list of' one of them")
            if listed:
                typ = T.list_of(typ)
            # a list variable: declared `list of T`, or untyped and starting as a list
            a_list = listed or ("type" not in v and isinstance(init, list))
            if "max_length" in v:
                self.list_bound(str(name), v, init, a_list)
            elif a_list and v.get("visibility", "public") != "hidden":
                c.usage.warnings.append(SpecError(
                    f"list variable '{name}' has no max_length: observation tensors carry "
                    "its length only, not its items",
                    v.where_key("type" if "type" in v else given),
                    "bound it: max_length: N (the most items it ever holds)", kind="warning"))
            if "type" in v and not _fits(init, typ, c.enums):
                shown = f"'{init}'" if isinstance(init, str) else value_text(init)
                held = typ[0] in ("piece", "slot", "player")
                fail(f"variable '{name}' is declared {T.describe(typ)} but starts as {shown}",
                     v.where(given) if given in v else v.pos,
                     "a piece, cell or player variable starts as null (or a number: its "
                     "index) and is set in the set-up" if held
                     else f"give it {T.describe(typ)}, or change its type")
            seen = str(v.get("visibility", "public"))
            if seen in ("owner", "others") and not v.get("per_player"):
                fail("only a per-player variable can be seen by its owner alone"
                     if seen == "owner" else "only a per-player variable can be seen by "
                     "every player but its owner", v.where("visibility"),
                     "use per_player: true, or hidden")
            if v.get("per_player"):
                p.pvar_names.append(str(name))
                p.pvar_init.append(init)
                p.pvar_vis.append(str(v.get("visibility", "public")))
                c.pvar_types.append(typ)
            else:
                p.gvar_names.append(str(name))
                p.gvar_init.append(init)
                p.gvar_vis.append(str(v.get("visibility", "public")))
                c.gvar_types.append(typ)

    def list_bound(self, name: str, v, init: list, listed: bool) -> None:
        """`max_length: N` of a list variable (a number, or rule text computed from data,
        enums and options, as `initial`): Program.list_bounds[name]."""
        where = v.where("max_length")
        if not listed:
            fail(f"max_length bounds a list variable, and '{name}' is not one", where,
                 "declare its type as a list: type: list of T")
        n = v["max_length"]
        if isinstance(n, str):
            n = self.const_value(n)
        if type(n) is not int or not 0 < n <= MAX_LIST_BOUND:
            fail(f"max_length must be a whole number from 1 to {MAX_LIST_BOUND:,}, "
                 f"not {_shown(n)}", where)
        if len(init) > n:
            fail(f"list variable '{name}' starts with {len(init)} items, beyond its "
                 f"max_length {n}", v.where("value") if "value" in v else where)
        self.c.prog.list_bounds[name] = n

    def initial_value(self, v):
        """A variable's initial value: its `value` as written, or its `initial`, rule text
        computed when the game is compiled from data, enums and options (`initial:
        option.coins`, `initial: 2 * option.cards`): it cannot read the state."""
        if "initial" not in v:
            return plain(v.get("value", 0))
        text = v["initial"]
        if "value" in v:
            fail("a variable's initial value is given once: value (as written) or initial "
                 "(computed from data, enums and options), not both", v.where_key("initial"))
        if isinstance(text, str):
            c = self.c
            node = c.parse(text, "expression")
            state = {**{z: "a zone" for z in c.prog.zones},
                     **{str(n): "a variable" for n in c.doc.get("variables", LMap())},
                     "current": "the current player"}
            for found in _names_in(node):
                if found.id in state and found.id in name_uses(node):
                    fail(f"an initial value is computed before the game starts, from data, "
                         f"enums and options: it cannot read {state[found.id]} "
                         f"('{found.id}')", found.pos if found.pos.line else v.where("initial"),
                         "set it in setup instead (setup: [NAME = ...])")
        value = self.const_value(text)
        if isinstance(value, tuple):
            value = list(value)
        wrong = _not_held(value, tables=True)
        if wrong:
            fail(f"a variable's initial value is {wrong}", v.where("initial"),
                 "numbers in a game stay below 10^100" if wrong.startswith("a number")
                 else "")
        return value

    def table_variable(self, name: str, v, init: dict) -> None:
        """A variable holding a table (resources by kind): one stored value per key, so
        that states copy as flat lists; read as NAME[k] (p.NAME[k]) or NAME whole."""
        c = self.c
        p = c.prog
        if not init:
            fail("a table variable needs at least one key",
                 v.where("initial" if "initial" in v else "value"))
        per = bool(v.get("per_player"))
        names, inits, vis, types = ((p.pvar_names, p.pvar_init, p.pvar_vis, c.pvar_types)
                                    if per else
                                    (p.gvar_names, p.gvar_init, p.gvar_vis, c.gvar_types))
        if "max_length" in v:
            fail(f"max_length bounds a list variable, and '{name}' is a table",
                 v.where("max_length"), "remove it: a table's keys are fixed")
        keys = list(init)
        c.tables[name] = (per, len(names), keys)
        vtyp = T.type_of_value(next(iter(init.values())))
        tname = " ".join(str(v.get("type", "")).split())
        if tname in c.enums:                            # its entries' declared type
            vtyp = T.enum(tname)
        elif tname in VAR_TYPES:
            vtyp = VAR_TYPES[tname]
        elif "type" in v:
            fail(f"unknown type '{v['type']}' of the entries of table variable '{name}'",
                 v.where("type"), did_you_mean(tname, list(VAR_TYPES) + list(c.enums))
                 or f"one of: {', '.join(VAR_TYPES)}, or an enum")
        bad = next((k for k, x in init.items() if "type" in v and not _fits(x, vtyp, c.enums)),
                   None)
        if bad is not None:
            fail(f"table variable '{name}' is declared {T.describe(vtyp)}, but its entry "
                 f"{value_text(bad)} starts as {value_text(init[bad])}",
                 v.where("initial" if "initial" in v else "value"))
        for k in keys:
            names.append(f"{name}[{value_text(k)}]")
            inits.append(init[k])
            vis.append(str(v.get("visibility", "public")))
            types.append(vtyp)

    # -- pieces -----------------------------------------------------------------------------
    def components(self) -> None:
        c = self.c
        p = c.prog
        c.attr_types = {}
        comps = c.doc.get("components", LMap())
        rows: list = []  # (component, attrs dict, label, its changeable attributes)
        for cname, comp in comps.items():
            for_each = comp.get("for_each", LMap())
            scope = Scope()
            axes = []
            for attr in for_each:
                values = self.const_value(for_each[attr])
                if not isinstance(values, list):
                    fail(f"for_each.{attr} must give a list, not {_shown(values)}",
                         for_each.where(attr))
                wrong = next((w for w in map(_not_held, values) if w), "")
                if wrong:
                    fail(f"for_each.{attr} gives {wrong} among its values: {ATTRIBUTE_IS}",
                         for_each.where(attr))
                axes.append((str(attr), values))
                scope.add(str(attr), T.NUM if any(type(v) is Fraction for v in values)
                          else T.type_of_value(values[0]) if values else T.ANY)
            zname = str(comp.get("zone", ""))
            if zname not in p.zones:
                fail(f"unknown zone '{zname}'",
                     comp.where("zone") if "zone" in comp else comp.pos,
                     did_you_mean(zname, p.zones))
            z = p.zones[zname]
            if z.per_player or z.nslots != 1:
                fail("components start in a zone of one slot, not per player",
                     comp.where("zone"))
            names = [a for a, _ in axes]
            # attribute and count expressions: compiled once, evaluated per combination
            extra = comp.get("attributes", LMap())
            changing = self.changeable_of(comp, names + [str(a) for a in extra])
            ascope = scope.child()
            # what they read (deadcode.py: a for_each name they use is read)
            own = c.usage.own.setdefault(str(cname), set())
            computed = [(an, self.const_fn(extra[an], ascope, own)) for an in extra]
            count_fn = self.const_fn(comp.get("count", 1), ascope, own)
            size = max(ascope.size, len(names)) + 1
            combos = 1
            for _, v in axes:                  # counted before any is made
                combos *= len(v)
                if combos > MAX_PIECES:
                    fail(f"more than {MAX_PIECES} combinations of for_each",
                         comp.where("for_each"))
            if combos * (len(names) + len(extra)) > MAX_ATTRIBUTE_VALUES:
                fail(f"more than {MAX_ATTRIBUTE_VALUES} attribute values: {combos} "
                     f"combinations of for_each, {len(names) + len(extra)} attributes each",
                     comp.pos)
            for combo in itertools.product(*(v for _, v in axes)):
                L = list(combo) + [None] * (size - len(combo))
                attrs = dict(zip(names, combo))
                context = ", ".join(f"{an} = {_shown(av)}" for an, av in attrs.items())
                for (an, _), av in zip(axes, combo):
                    c.attr_types.setdefault(an, self.value_type(av))
                for an, fn in computed:
                    val = fn(L, context)
                    wrong = _not_held(val)
                    if wrong:
                        fail(f"attribute '{an}' is {wrong}"
                             + (f" (for {context})" if context else "") + f": {ATTRIBUTE_IS}",
                             extra.where(an))
                    attrs[str(an)] = val
                    c.attr_types.setdefault(str(an), self.value_type(val))
                for an in changing:
                    if isinstance(attrs[an], (list, dict)):
                        fail(f"'{an}' holds a list or a table here: a changeable "
                             "attribute holds a number, a text, a condition or "
                             "none", comp.where("changeable"))
                count = count_fn(L, context)
                if type(count) is not int or count < 0:
                    fail(f"count must be a number of pieces, not {_shown(count)}"
                         + (f" (for {context})" if context else ""),
                         comp.where("count"))
                if len(rows) + count > MAX_PIECES:
                    fail(f"more than {MAX_PIECES} pieces", comp.pos)
                label = self.name_of(comp, attrs, cname)
                for _ in range(count):
                    rows.append((str(cname), attrs, label, changing))
            c.graph.add_node(f"component:{cname}", kind="component")
        all_attrs = sorted({a for _, attrs, _, _ in rows for a in attrs})
        if len(rows) * len(all_attrs) > MAX_ATTRIBUTE_VALUES:    # before the table is made
            fail(f"more than {MAX_ATTRIBUTE_VALUES} attribute values: {len(rows)} pieces, "
                 f"{len(all_attrs)} attributes each (every attribute of every component "
                 "exists on every piece)", comps.pos)
        p.piece_attrs = {a: tuple(attrs.get(a) for _, attrs, _, _ in rows) for a in all_attrs}
        p.changeable = list(dict.fromkeys(str(a) for comp in comps.values()
                                          for a in comp.get("changeable", ())))
        p.changeable_by = {a: tuple(a in changing for _, _, _, changing in rows)
                           for a in p.changeable}
        for a, values in p.piece_attrs.items():     # whole on the first piece, not on all
            if c.attr_types.get(a) == T.INT and any(type(v) is Fraction for v in values):
                c.attr_types[a] = T.NUM
        kinds: dict = {}
        namers: dict = {}
        named = []
        for cname, attrs, label, changing in rows:
            # a kind: the component and the attributes that stay; what may change is
            # compared in the running state (decisions.py)
            key = (cname, tuple(sorted((a, _frozen(v)) for a, v in attrs.items()
                                       if a not in changing)))
            p.piece_kind.append(kinds.setdefault(key, len(kinds)))
            p.piece_names.append(label)
            p.piece_component.append(cname)
            p.piece_home.append(p.zones[str(comps[cname]["zone"])].base)
            shown = [a for a in self.template_fields(comps[cname], cname) if a in changing]
            named.append(namers.setdefault(key, Namer(
                str(comps[cname].get("name", cname)),
                {a: v for a, v in attrs.items() if a not in changing},
                tuple((a, p.changeable.index(a)) for a in shown))) if shown else None)
        p.piece_namer = tuple(named) if any(named) else ()

    def changeable_of(self, comp, attrs: list) -> frozenset:
        """The attributes a component declares changeable: each one of its own."""
        declared = comp.get("changeable", LList())
        for i, a in enumerate(declared):
            if str(a) not in attrs:
                fail(f"'{a}' is not an attribute of this component, so it cannot "
                     "be changeable", declared.where(i),
                     did_you_mean(str(a), attrs) or
                     f"give it an initial value first: attributes: {{{a}: ...}}")
            if list(map(str, declared)).count(str(a)) > 1:
                fail(f"'{a}' is listed twice", declared.where(i))
        return frozenset(str(a) for a in declared)

    @staticmethod
    def template_fields(comp, cname) -> list:
        """The attributes a component's name template shows."""
        return template_fields(str(comp.get("name", cname)))

    def value_type(self, v):
        if isinstance(v, str) and v in self.c.member_of:
            return T.enum(self.c.member_of[v])
        return T.type_of_value(v)

    @staticmethod
    def name_of(comp, attrs, cname) -> str:
        """A piece's name: its template filled with the component's own attributes (plain
        names only, checked here; filled by substitution, never by str.format)."""
        template = comp.get("name", cname)

        def at(offset):
            return template.pos_at(offset) if isinstance(template, LStr) \
                else comp.where("name") if "name" in comp else comp.pos
        try:
            parts = template_parts(str(template))
        except TemplateError as exc:
            fail(str(exc), at(exc.offset))
        for _lit, field in parts:
            if field is not None and field not in attrs:
                where = str(template).find("{" + field + "}")
                fail(f"the name template refers to '{field}', which is not an "
                     "attribute", at(where + 1 if where >= 0 else 0),
                     did_you_mean(field, attrs) or
                     f"attributes: {', '.join(attrs)}")
        return render_template(parts, attrs)


# what generated code raises when a value cannot be computed (as the engine's
# RULE_FAILURES: a value computed when the spec compiles is told as a located SpecError)
CONST_FAILURES = (TypeError, IndexError, KeyError, ValueError, AttributeError,
                  ZeroDivisionError, RecursionError, OverflowError)


def _not_held(value, tables: bool = False) -> str:
    """'' if a piece's attribute may hold `value` (a for_each item, an attribute: a
    number, a text, a condition, none, or a list of these; a variable, with `tables`,
    also a table), else what it is: "a table", "a number beyond 10^100" (MAX_NUMBER,
    the bound of a number stored in a game)."""
    todo = [value]
    while todo:
        v = todo.pop()
        t = type(v)
        if t is list or t is tuple:
            todo.extend(v)
        elif t is dict and tables:
            todo.extend(v)
            todo.extend(v.values())
        elif t is int or t is Fraction:
            if not (-MAX_NUMBER <= v.numerator <= MAX_NUMBER and v.denominator <= MAX_NUMBER):
                return "a number beyond 10^100"
        elif t is dict:
            return "a table" if v is value else "a list holding a table"
        elif not (v is None or t is bool or t is str):
            return "a value of no kind of the language"
    return ""


def _shown(value) -> str:
    """A value as an error shows it: a number or a short text as itself, anything else
    (a list of a million items) by its kind."""
    if type(value) in (int, Fraction) and abs(value.numerator) < 10 ** 40 \
            and value.denominator < 10 ** 40:
        return str(value)
    if isinstance(value, str) and len(value) <= 40:
        return f"'{value}'"
    if value is None or isinstance(value, bool):
        return value_text(value)
    return T.describe(T.type_of_value(value))



def _frozen(v):
    """A value as part of a kind's key: a list (an attribute may hold one) as a tuple."""
    return tuple(_frozen(x) for x in v) if isinstance(v, list) else v
