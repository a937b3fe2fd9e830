"""The rule language's builtin functions and aggregates, as source emitters and helpers.

Input: a Func, Aggregate or Region node with its arguments compiled to (source, type)
pairs, and the game's layout. Output: (Python source, type) of the call. As Jinja keeps
its filters apart from its compiler, each builtin is one `f_<name>` method here (a
builtin of boards: in boards.py; the driver's catalogue holds both); the
small run-time helpers the generated source calls are the `B_` functions of readers.py
(they take plain values, never spec text). Aggregates and groups become generated
functions with plain loops. Spec functions (the spec's `functions:`) are inlined where
they are light and otherwise compiled once: a spec function is pure over the state, so
a heavy one's results are kept in `state.facts` until the state changes.
"""

from __future__ import annotations

import re

from ..errors import did_you_mean, fail
from ..lang import ast
from ..lang import types as T
from ..lang.ast import name_uses
from ..runtime.readers import MAX_RANGE, UNORDERED_HINT
from .codegen import MISSING, Src, fresh_list, is_unique, iterable, paren
from .common import (
    Scope,
    call_params,
    check_arity,
    piece_arg,
    reads_names,
    reads_place,
    slot_arg,
    width_of,
)
from .narrowing import required_near
from .stencil import stencil

MAX_PIECES = 100_000
MAX_CALL_DEPTH = 32     # spec functions calling spec functions, compiled inline or not
# a source read more than once in place (Builtins.lookup): a name or literal, and its
# entries at names or literals
_READ_IN_PLACE = re.compile(r"(?:v[0-9]+|L\[[0-9]+\]|K[0-9]+|-?[0-9]+)"
                            r"(?:\[(?:v[0-9]+|L\[[0-9]+\]|K[0-9]+|-?[0-9]+)\])*")
AGGREGATES = ("sum", "count", "max", "min", "any", "all", "tally", "list", "first")


def _aggregate_type(name: str, etyp):
    """The type of aggregate `name` over items of type etyp (tally aside)."""
    return (T.BOOL if name in ("any", "all") else T.INT if name == "count"
            else T.list_of(etyp) if name == "list"
            else T.NUM if name == "sum" and etyp == T.NUM
            else T.INT if name == "sum" else etyp)
# generator sources of a few cells: a function looping over them only is not kept
LOCAL_SOURCES = frozenset(("adjacent", "around", "top", "bottom", "under", "directions",
                           "orthogonal", "diagonal", "ray"))




def _local(src: str) -> re.Pattern:
    """The source of a local (`v3`, `L[2]`) where generated code reads it, not as a part
    of a longer name or index (`v31`, `L[2][0]`'s L[2] yes, `xL[2]` no)."""
    return re.compile(rf"(?<![\w\]]){re.escape(src)}(?![\w\[])")


class Builtins:
    """Emits the source of builtin calls, aggregates, groups and spec-function calls."""

    def __init__(self, comp):
        self.c = comp
        self.compiling: list = []        # spec functions being compiled (no recursion)
        self._asts: dict = {}
        self._compiled: dict = {}        # (name, argument types) -> function name
        self.kept: list = []             # (key in State.facts, generated function's name)
        # set once the program is compiled: its statements drop only the facts they know,
        # so a function first compiled after that (an expression of a tool) keeps none
        self.sealed = False
        self._tables: dict = {}
        self._views = 0                  # view units made (view:1, view:2...)
        self._view_keys: dict = {}       # (zone, its parts' ASTs) -> (name, tables)
        self._symmetry: dict = {}        # (zone, adj4 or adj8) -> is it symmetric?
        self._constants: dict = {}       # function of no parameter -> (value, type)

    @property
    def mod(self):
        return self.c.mod

    # -- collections ----------------------------------------------------------------------
    def items(self, typ, src: str) -> str:
        """Source of something to iterate over, for a value of type typ (not a copy)."""
        if typ[0] == "slot":
            return f"st.slots[{src}]"
        if typ[0] == "zone":
            return f"B_pieces(st.slots, {src}, {typ[1].nslots})"
        return iterable(src)

    def contains(self, typ, a: str, b: str) -> str:
        if typ[0] == "slot":
            return f"B_in_slot(st.where, {a}, {b})"
        if typ[0] == "zone":
            return f"B_in_zone(st.where, {a}, {b}, {typ[1].nslots})"
        return f"({paren(a)} in {paren(iterable(b))})"

    def keep(self, key: str, fname: str) -> None:
        """Results of the generated function `fname` are kept in State.facts[key]."""
        self.kept.append((key, fname))

    def table(self, name: str):
        """A per-slot table of the layout, bound once as a constant."""
        found = self._tables.get(name)
        if found is None:
            found = self._tables[name] = self.mod.const(self.c.layout.table(name))
        return found

    # -- aggregates -----------------------------------------------------------------------
    def aggregate(self, node: ast.Aggregate, scope: Scope):
        name = node.name
        if name not in AGGREGATES:
            fail(f"'{name}' does not take a generator", node.pos,
                 did_you_mean(name, AGGREGATES) or f"one of {', '.join(AGGREGATES)}")
        gen = self.loop_generator(node.gen, scope)
        etyp = gen.etyp
        dflt = None
        if node.default is not None:
            dflt, _ = self.c.x.compile(node.default, scope)
        if node.default is not None and dflt is not None and name not in ("max", "min", "first"):
            fail(f"{name}() takes no default", node.default.pos,
                 "only max, min and first have a default (for nothing to choose from)")
        if name == "sum" and etyp not in (T.INT, T.BOOL, T.ANY, T.NUM):
            fail(f"sum() adds numbers, not {T.describe(etyp)}", node.gen.elt.pos)
        viewed = self.as_view(gen, node.gen, scope, name, node.pos, dflt)
        if viewed is not None:
            return viewed, _aggregate_type(name, etyp)
        gen = self.as_loop(gen, node.gen, scope)
        found = self.lookup(gen, name)
        if found is None:
            return self._plain(gen, scope, name, node.pos, dflt)
        looked, unknown = found
        if unknown is None:
            return looked, _aggregate_type(name, etyp)
        # a table known only when it runs: the loop where it is not one (keys() of a list)
        loop, typ = self._plain(gen, scope, name, node.pos, dflt)
        return f"({looked} if isinstance({unknown}, dict) else {loop})", typ

    def _plain(self, gen, scope: Scope, name: str, pos, dflt):
        """Aggregate `name` over generator `gen` as a loop: (source, type)."""
        elt, etyp = gen.elt, gen.etyp
        if name == "sum":
            if etyp == T.NUM:            # a sum of fractions may be whole; bounded (B_num)
                return self._loop(gen, scope, pos, [(0, f"n = B_num(n + {paren(elt)})", None)],
                                  "n = 0", "n"), T.NUM
            return self._loop(gen, scope, pos, [(0, f"n += {elt}", None)],
                              "n = 0", "n"), T.INT
        if name == "count":
            return self._loop(gen, scope, pos, [(0, "n += 1", None)], "n = 0", "n"), T.INT
        if name in ("max", "min"):
            # the first of the best, as Python's max and min; the default only if empty
            empty = dflt if dflt is not None else (
                f"B_best({name}, [], {self.mod.const(name)}, {self.mod.const(pos)}, "
                "', and no default given')")
            better = ">" if name == "max" else "<"
            return self._loop(gen, scope, pos, [
                (0, f"x = {elt}", None),
                (0, f"if n is MISSING or x {better} n:", None), (1, "n = x", None)],
                "n = MISSING", f"(n if n is not MISSING else {empty})"), etyp
        if name == "any":
            return self._loop(gen, scope, pos, [(0, f"if {elt}:", None),
                                                     (1, "return True", None)],
                              "", "False"), T.BOOL
        if name == "all":
            return self._loop(gen, scope, pos, [(0, f"if not {paren(elt)}:", None),
                                                     (1, "return False", None)],
                              "", "True"), T.BOOL
        if name == "tally":
            return self._loop(gen, scope, pos, [(0, f"x = {elt}", None),
                                                     (0, "n[x] = n.get(x, 0) + 1", None)],
                              "n = {}", "n"), T.map_of(etyp, T.INT, counts=True)
        if name == "list":
            if gen.take is not None or gen.shared or gen.each:
                return self.list_loop(gen, scope, pos), T.list_of(etyp)
            return f"[{elt} {gen.clauses}]", T.list_of(etyp)
        # the default is computed only when nothing comes: after the loop
        return self._loop(gen, scope, pos, [(0, f"return {elt}", None)], "",
                          dflt or "None"), etyp

    # -- a filtered sum that is a lookup -------------------------------------------------
    def lookup(self, gen, name: str) -> tuple | None:
        """`sum(E for j in keys(t) where j == k ...)`, and its count and any, as a lookup:
        E with k for j if k is a key of t (and the rest of the condition holds), else 0
        (False), with no loop and no call. -> (its source, None), or, where t is known only
        when it runs (a data record's entry), (its source, t's source): the caller loops
        where t is not a table. Only for t and k that are names, literals or their entries
        at such keys (each is read more than once: read in place, they cost less than a
        call); None otherwise."""
        if gen.key is None or gen.lets or gen.take is not None or \
                name not in ("sum", "count", "any"):
            return None
        table, value, unknown = gen.key
        if not all(_READ_IN_PLACE.fullmatch(t) for t in (table, value)):
            return None
        var = re.compile(rf"\b{gen.var}\b")
        test = f"{value} in {table}"
        if gen.cond is not None:
            test += f" and {paren(var.sub(value, gen.cond))}"
        elt = var.sub(value, gen.elt)
        hit, miss = {"sum": (f"B_num({elt})" if gen.etyp == T.NUM else paren(elt), "0"),
                     "count": ("1", "0"), "any": (f"bool({elt})", "False")}[name]
        return f"({hit} if {test} else {miss})", table if unknown else None

    # -- loops: a generator's shared parts computed once ---------------------------------
    def loop_generator(self, node: ast.Generator, scope: Scope):
        """A generator compiled for a loop: its invariant parts computed once, its
        repeated ones once an item (ExprCompiler.shared_parts), unless it may become a
        view, whose cells' function reads them itself (as_loop shares them if it does not
        become one)."""
        return self.c.x.generator(node, scope, hoist=not self._viewable(node.source, scope))

    def as_loop(self, gen, node: ast.Generator, scope: Scope):
        """A generator that did not become a view, as a loop: compiled again with its
        shared parts if it has any, and narrowed (narrow)."""
        if gen.view and any(self.c.x.shared_parts(node)):
            gen = self.c.x.generator(node, scope, hoist=True)
        self.narrow(gen, node, scope)
        return gen

    # -- views: generators over a board's cells kept up to date (runtime/views.py) --------
    def _viewable(self, source, scope: Scope) -> bool:
        """Is `source` a board's cells, `cells(zone)` of a zone that is not per player,
        in a game compiled with views?"""
        zones = self.c.prog.zones
        return (self.c.prog.views and not self.sealed and isinstance(source, ast.Func)
                and source.name == "cells" and len(source.args) == 1
                and isinstance(source.args[0], ast.Name)
                and source.args[0].id in zones and source.args[0].id not in scope.names
                and not zones[source.args[0].id].per_player)

    def view_unit(self, source, scope: Scope) -> tuple[str, str]:
        """(the unit name, the zone) for a generator over `source` that may become a
        view (_viewable); else ("", "")."""
        if not self._viewable(source, scope):
            return "", ""
        self._views += 1
        return f"view:{self._views}", source.args[0].id

    def as_view(self, gen, node: ast.Generator, scope: Scope, name: str, pos,
                dflt=None) -> str | None:
        """The source of aggregate `name` (or "list") over generator `gen` (compiled from
        `node`) as a view, or None where it cannot be one: no view unit, a `while`, a
        tally, parts that read a local besides the generator's own (a view's cells are
        the same for every caller), or pieces read other than at fixed steps from the
        cell (compiler/stencil.py)."""
        if not gen.view or gen.take is not None or name == "tally":
            return None
        body = " ".join([gen.cond or "", gen.elt] + [src for _, src in gen.lets])
        given = self._view_args(scope, body)
        if given is None:
            return None
        tests = [gen.cond] if gen.cond is not None else []
        value = gen.elt
        if name == "any":
            tests.append(gen.elt)
        elif name == "all":
            tests.append(f"not {paren(gen.elt)}")
        # the item function takes the locals read as parameters of its own (a frame's
        # local L[i] too: the view is kept per value, not per frame)
        own = {src: f"a{i}" for i, (_, src) in enumerate(given)}

        def mine(text: str) -> str:
            for src, param in own.items():
                text = _local(src).sub(param, text)
            return text
        tests = [mine(t) for t in tests]
        lets = [(v, mine(src)) for v, src in gen.lets]
        if name in ("any", "all", "count") or (name == "list" and gen.elt == gen.var):
            value = "True"           # the passing cells are all that is asked for
        value = mine(value)
        # what the view is, as the spec says it (the AST: positions aside), for sharing
        said = ([node.cond] if node.cond is not None else []) + (
            [node.elt] if name == "any" else [ast.Not(node.elt)] if name == "all" else [])
        same = (node.var, tuple(said), node.lets, None if value == "True" else node.elt,
                tuple(n for n, _ in given))
        parts = [node.cond, node.elt] + [v for _, v in node.lets]
        zone = gen.view_zone
        view = self.view(gen.var, zone, tests, lets, value, gen.view, pos, parts, node.var,
                         same, list(own.values()), [src for _, src in given])
        if view is None:
            return None
        if name == "any":
            return f"bool({view}.vals)"
        if name == "all":
            return f"(not {view}.vals)"
        if name == "count":
            return f"len({view}.vals)"
        if name == "sum":
            if gen.etyp == T.NUM:       # a sum of fractions, bounded item by item
                return f"B_sum({view}.vals.values())"
            return f"sum({view}.vals.values())"
        if name == "list":
            return f"list({view}.order())" if value == "True" else f"list({view}.values())"
        # first, max, min: over the passing values in order; the default only if none
        params = call_params(scope, f"{dflt or ''} {view}")
        if name == "first":
            lines = [(0, f"n = {view}.values()", None), (0, "if n:", None),
                     (1, "return n[0]", None), (0, f"return {dflt or 'None'}", None)]
        else:
            empty = dflt if dflt is not None else (
                f"B_best({name}, [], {self.mod.const(name)}, {self.mod.const(pos)}, "
                "', and no default given')")
            better = ">" if name == "max" else "<"
            lines = [(0, f"n = {view}.values()", None), (0, "if not n:", None),
                     (1, f"return {empty}", None), (0, "best = n[0]", None),
                     (0, "for x in n:", None), (1, f"if x {better} best:", None),
                     (2, "best = x", None), (0, "return best", None)]
        fn = self.mod.function("A", ", ".join(params), [(i, t, pos) for i, t, _ in lines], pos,
                               "aggregate")
        return f"{fn.__name__}({', '.join(params)})"

    @staticmethod
    def _view_args(scope: Scope, body: str) -> list | None:
        """[(name, source)] of the locals of the rule text a view's parts read (a Python
        local, or a frame's local L[i]); None if one is not a player or an enum value (a
        view is kept per value of them, so they must have few) or the parts read the
        frame's locals otherwise."""
        out = []
        rest = body
        for n, v in scope.names.items():
            if _local(v.src).search(body):
                if v.typ[0] not in ("player", "enum") or not re.fullmatch(
                        r"v[0-9]+|L\[[0-9]+\]", v.src):
                    return None
                out.append((n, v.src))
                rest = rest.replace(v.src, "")
        if call_params(scope, rest) != ["st"]:
            return None                        # another local, or the frame's locals
        return sorted(out)

    def narrow(self, gen, node: ast.Generator, scope: Scope) -> None:
        """A generator over a board's cells that is not a view, whose condition holds only
        for the neighbours of a list in hand (compiler/narrowing.py), goes over those
        instead of every cell, in the cells' order (the same items pass: the board's
        adjacency is symmetric)."""
        if not gen.view_zone or gen.take is not None or node.cond is None:
            return
        found = required_near(node.cond, node.var, self.c, name_uses)
        if found is None:
            return
        whole, rel = found
        src, typ = self.c.x.compile(whole, scope)
        if not (T.is_list(typ) and T.elem(typ)[0] == "slot") or \
                not self._symmetric(gen.view_zone, rel):
            return
        z = self.c.prog.zones[gen.view_zone]
        items = f"B_near({src}, {self.table(rel)}, {z.base}, {z.base + z.nslots})"
        if gen.counted is not None:
            tmp, _, pos = gen.counted
            gen.counted = (tmp, items, pos)
            gen.items = f"B_work({items}, {pos})"
        else:
            gen.items = items

    def _symmetric(self, zone: str, rel: str) -> bool:
        """Is a cell of `zone` a neighbour (by table rel) of each of its neighbours?"""
        found = self._symmetry.get((zone, rel))
        if found is None:
            z = self.c.prog.zones[zone]
            adj = getattr(self.c.prog, rel)
            found = self._symmetry[(zone, rel)] = all(
                s in adj[n] for s in range(z.base, z.base + z.nslots) for n in adj[s])
        return found

    def view(self, var: str, zone: str, tests: list, lets: list, value: str, unit: str,
             pos, parts: list, name: str, same: tuple, given: list | None = None,
             args: list | None = None) -> str | None:
        """The source of a view (runtime/views.py) over the cells of `zone`: a cell passes
        if every test holds (the lets bound after the first), its value `value`; `parts`
        are the ASTs the tests and value come from, over the cell named `name`. None if
        they read pieces other than at fixed steps from the cell. Views of the same parts
        are one (`any(p(c) for c in cells(b))` and a choice `c in cells(b) where p(c)`
        share theirs): `same` is what the view is, as the spec's AST says it."""
        key = (zone, same)
        found = self._view_keys.get(key)
        if found is None:
            tables = self._stencil_tables(zone, parts, name)
            if tables is None:
                return None
            lines = []
            for i, test in enumerate(tests):
                if i == 1 or (i == 0 and len(tests) == 1):
                    lines += [(0, f"{v} = {src}", None) for v, src in lets]
                lines += [(0, f"if not {paren(test)}:", None),
                          (1, "return B_VIEW_SKIP", None)]
            if not tests:
                lines += [(0, f"{v} = {src}", None) for v, src in lets]
            lines.append((0, f"return {value}", None))
            fn = self.mod.function("V", ", ".join(["st", var] + (given or [])),
                                   [(i, t, pos) for i, t, _ in lines], pos, "view item")
            found = self._view_keys[key] = (fn.__name__, tables)
            self.keep(fn.__name__, fn.__name__)
            self.c.usage.keep_view(fn.__name__, unit)
        else:                              # its reads: the first's (the same parts)
            self.c.usage.call(self.c.usage.kept[found[0]])
        fname, (items, near, whole, groups) = found
        values = f", ({''.join(a + ', ' for a in args)})" if args else ""
        return (f"B_view(st, {self.mod.const(fname)}, {fname}, {items}, {near}, {whole}, "
                f"{groups}{values})")

    def stencil_of(self, parts: list, name: str):
        """The stencil of a generator's parts over the cell named `name`, or None
        (compiler/stencil.py)."""
        return stencil(parts, name, self.c)

    def _stencil_tables(self, zone: str, parts: list, name: str):
        """(cells, near, whole) as constants' names: the zone's cells; for each slot a
        cell's parts read the pieces of, the cells reading it; the slots of the zones read
        whole. None if the parts have no stencil."""
        found = self.stencil_of(parts, name)
        if found is None:
            return None
        p = self.c.prog
        z = p.zones[zone]
        items = tuple(range(z.base, z.base + z.nslots))
        steps = {"adj4": p.adj4, "adj8": p.adj8}
        if found.steps and not self._steps_are_near(z):
            return None
        near: dict = {}
        for c in items:
            for path in found.paths:
                here = {c}
                for step in path:
                    here = {n for x in here for n in steps[step][x]}
                for x in here:
                    near.setdefault(x, set()).add(c)
        whole: set = set()
        for zname in found.zones:
            if zname == zone:
                whole.update(items)
                continue
            other = p.zones[zname]
            whole.update(range(other.base, other.base + other.nslots *
                               (p.players if other.per_player else 1)))
        near_t = {x: tuple(sorted(cs)) for x, cs in sorted(near.items()) if x not in whole}
        return (self.mod.const(items), self.mod.const(near_t),
                self.mod.const(frozenset(whole)), found.groups)

    def _steps_are_near(self, z) -> bool:
        """Is every step `neighbour(c, d)` can take on zone z to a cell of `around(c)`?"""
        steps = self.c.layout.table("steps")
        adj8 = self.c.prog.adj8
        return all(n is None or n in adj8[s] for row in steps.values()
                   for s, n in enumerate(row) if z.base <= s < z.base + z.nslots)

    def list_loop(self, gen, scope: Scope, pos) -> str:
        """A list built by a loop (a generator with `while` cannot be a comprehension)."""
        return self._loop(gen, scope, pos, [(0, f"n.append({gen.elt})", None)], "n = []", "n")

    def _loop(self, gen, scope: Scope, pos, on_item: list, start: str, result: str) -> str:
        """An aggregate as a function of its own with a plain loop (no generator to
        resume at every item): the call's source. The function takes the state, the
        frame's locals if the generator reads them, and the Python locals it reads."""
        params = call_params(scope, " ".join([gen.sources(), result]
                                             + [t for _, t, _ in on_item]))
        lines = ([(0, start, None)] if start else []) + gen.loop(on_item) + [
            (0, f"return {result}", None)]
        fn = self.mod.function("A", ", ".join(params), [(i, t, p or pos) for i, t, p in lines],
                               pos, "aggregate")
        return f"{fn.__name__}({', '.join(params)})"


    def _aggregate_of_list(self, node, args):
        """sum(list), max(a, b), min(a, b), count(list), any(list), all(list)."""
        name = node.name
        if name in ("max", "min") and len(args) == 2:
            (a, ta), (b, tb) = args
            return f"{name}({a}, {b})", T.number(ta, tb) if T.is_numeric(tb) else ta
        check_arity(node, len(args), 1)
        (a, ta), = args
        items = self.items(ta, a)
        et = T.elem(ta)
        if name == "sum":
            if et not in (T.INT, T.BOOL, T.ANY, T.NUM):
                fail(f"sum() adds numbers, not {T.describe(et)}", node.args[0].pos)
            if et == T.NUM:             # a sum of fractions, bounded item by item
                return f"B_sum({items})", T.NUM
            return f"sum({items})", T.INT
        if name == "count":
            return f"len({items})", T.INT
        if name == "tally":
            return f"B_tally({items})", T.map_of(et, T.INT, counts=True)
        if name in ("max", "min"):
            return (f"B_best({name}, {items}, {self.mod.const(name)}, "
                    f"{self.mod.const(node.pos)}, '')"), et
        if name == "first":
            return f"next(iter({items}), None)", et
        if name == "list":
            return f"list({items})", T.list_of(et)
        return f"{name}({items})", T.BOOL

    # -- calls ----------------------------------------------------------------------------
    def call(self, node: ast.Func, scope: Scope):
        if node.name == "can_choose" and node.args and not isinstance(node.args[0], ast.Const):
            fail("can_choose() names a decision by its id, as a text: "   # not `turn.place`
                 "can_choose('turn.place', p)", node.args[0].pos)
        args = [self.c.x.compile(a, scope) for a in node.args]
        builtin = self.c.catalogue.get(node.name)
        if builtin is not None:
            return builtin(node, args)
        if node.name in self.c.functions:
            return self._spec_function(node, args, scope)
        if node.name in AGGREGATES:
            return self._aggregate_of_list(node, args)
        form = self.c.boards.form_of(node.name)
        if form:                             # group(...) or a path written as a call
            fail(f"{node.name}() is not called with arguments: it is written {form}",
                 node.pos)
        known = list(self.c.catalogue) + list(self.c.functions)
        fail(f"unknown function '{node.name}'", node.pos,
             did_you_mean(node.name, known + list(AGGREGATES)))

    def function_ast(self, name):
        found = self._asts.get(name)
        if found is None:
            found = self._asts[name] = self.c.parse(self.c.functions[name]["value"],
                                                    "expression")
        return found

    def _heavy(self, node) -> bool:
        """Does evaluating the expression walk a whole zone, board or list (a group, a
        path search, or a generator over more than a cell's neighbours)? Only such a
        function's results are worth keeping: looking a result up costs about what a
        light body costs.
        The walk goes into the spec functions it calls, each once, with a stack of its
        own (a long chain of calls is no Python recursion)."""
        todo, seen = [node], set(self.compiling)
        while todo:
            node = todo.pop()
            if isinstance(node, (ast.Region, ast.Path)):
                return True
            if isinstance(node, ast.Generator):
                src = node.source
                local = (isinstance(src, ast.Func) and src.name in LOCAL_SOURCES
                         # a parameter or a let: a list already made (its making is
                         # counted where it is made); a zone, a table or data is walked
                         or isinstance(src, ast.Name) and not self._global_name(src.id)
                         # a table's keys filtered by one key: a lookup
                         or ast.one_key(node) is not None)
                if not local:
                    return True
            if isinstance(node, ast.Func) and node.name in self.c.functions \
                    and node.name not in seen:
                seen.add(node.name)
                todo.append(self.function_ast(node.name))
            if isinstance(node, ast.Node):
                todo.extend(vars(node).values())
            elif isinstance(node, tuple):
                todo.extend(node)
        return False

    def _global_name(self, name: str) -> bool:
        c = self.c
        return (name in c.prog.zones or name in c.data or name in c.enums
                or name in c.prog.gvar_names or name in c.tables or name == "players")

    def _spec_function(self, node, args, scope):
        """A spec function: inlined at the call (its parameters replaced by the argument
        sources) when it is light (see _heavy) and no argument would be computed twice;
        otherwise a compiled function, its results kept in the state's facts."""
        name = node.name
        fdef = self.c.functions[name]
        params = [str(p) for p in fdef.get("params", [])]
        if len(args) != len(params):
            fail(f"{name}() takes {len(params)} argument"
                 f"{'s' if len(params) != 1 else ''}, not {len(args)}", node.pos)
        if name in self.compiling:
            fail(f"function '{name}' calls itself", node.pos,
                 "functions may not be recursive; use a rule")
        if len(self.compiling) >= MAX_CALL_DEPTH:
            chain = " -> ".join(self.compiling[:3] + ["..."] + self.compiling[-2:] + [name])
            fail(f"functions call one another more than {MAX_CALL_DEPTH} deep "
                 f"({chain})", node.pos,
                 "a chain of calls this long is refused (docs/language.md 9)")
        if not self.compiling:
            try:
                return self._spec_function_in(node, name, args, scope)
            except RecursionError:
                fail(f"the call of '{name}' nests too deeply to compile (its "
                     "functions' expressions, taken together, are too deep)",
                     node.pos, "split the expressions with let or a rule")
        return self._spec_function_in(node, name, args, scope)

    def _spec_function_in(self, node, name, args, scope):
        fdef = self.c.functions[name]
        params = [str(p) for p in fdef.get("params", [])]
        body = self.function_ast(name)
        uses = name_uses(body)
        simple = all(uses.get(p, 0) <= 1 or isinstance(a, (ast.Name, ast.Const))
                     for p, a in zip(params, node.args))
        cache = self.c.prog.cache
        inline = simple and (not cache or (params and not self._heavy(body)))
        self.c.usage.inline(node, bool(inline))
        self.compiling.append(name)
        try:
            with self.c.usage.unit(f"function:{name}"):   # its reads (analysis.py)
                if inline:
                    inner = Scope(counter=scope.counter)    # it sees its parameters only
                    for pname, (src, typ) in zip(params, args):
                        inner.alias(pname, src, typ)
                    return self.c.x.compile(body, inner)
                if not params:   # a function of the game's data alone: its value, written in
                    found = self._constants.get(name)
                    if found is None:
                        value = self.c.usage.constant(body, None)
                        found = self._constants[name] = (value, self.c.x.compile(
                            body, Scope(counter=scope.counter))[1]) if type(value) in (
                            int, str, bool) else (MISSING, None)
                    if found[0] is not MISSING:
                        return self.mod.literal(found[0]), found[1]
                key = (name, tuple(t for _, t in args))
                found = self._compiled.get(key)
                if found is None:
                    found = self._compiled[key] = self._compile_function(name, params, args, body)
        finally:
            self.compiling.pop()
        fname, typ, unique = found
        return fresh_list(f"{fname}(st{''.join(', ' + src for src, _ in args)})",
                          unique=unique), typ

    def _compile_function(self, name, params, args, body):
        own = Scope()
        srcs = [own.local(p, typ) for p, (_, typ) in zip(params, args)]
        src, typ = self.c.x.compile(body, own)
        fname = self.mod.fresh("F")
        cached = self.c.prog.cache and not self.sealed and all(
            t[0] in T.HASHABLE for _, t in args) and (not args or self._heavy(body))
        if cached:
            # the function's own table of results in the facts, keyed by its arguments
            fid = self.mod.const(fname)
            self.keep(fname, fname)
            self.c.usage.keep(fname)
            key = srcs[0] if len(srcs) == 1 else "(" + "".join(f"{v}, " for v in srcs) + ")"
            # a function that asks a group kept across moves is computed again while a
            # view's cell is (runtime/views.py): the group says what it read
            again = " or st.gather is not None" \
                if f"function:{name}" in self.c.usage.reaching else ""
            lines = [(0, "if st is None:", None), (1, f"return {src}", None),
                     (0, f"known = st.facts.get({fid})", None),
                     (0, "if known is None:", None),
                     (1, f"known = st.facts[{fid}] = {{}}", None),
                     (0, f"found = known.get({key}, MISSING)", None),
                     (0, f"if found is MISSING{again}:", None),
                     (1, f"found = known[{key}] = {src}", None),
                     (0, "return found", None)]
        else:
            if src == f"{src.split('(')[0]}({', '.join(['st'] + srcs)})" \
                    and src.startswith("A"):
                # the body is one aggregate taking the same parameters: call it directly
                return src.split("(")[0], typ, is_unique(src)
            lines = [(0, f"return {src}", None)]
        pos = self.c.functions[name].pos if hasattr(self.c.functions[name], "pos") else None
        self.mod.function("F", ", ".join(["st"] + srcs), lines, pos or body.pos,
                          f"function {name}", name=fname)
        return fname, typ, is_unique(src)

    # -- unordered zones: what needs an order is refused on them --------------------------
    def may_be_unordered(self, typ) -> bool:
        """Can a container or zone of this type be an unordered zone's?"""
        z = typ[1]
        return not z.ordered or (z is self.c.any_zone and bool(self.c.prog.heaps))

    def ordered(self, node, src: str, typ, what: str) -> str:
        """The source of a container or zone on which `what` needs an order: an unordered
        zone is refused when compiled, or when it runs if only then is the zone known (a
        cell of any zone); checked only in a game that has unordered zones."""
        z = typ[1]
        if not z.ordered:
            one = (f"; any one of its pieces is first(x for x in {z.name}) (the first in "
                   "piece order)" if what in ("top()", "bottom()", "first()") else "")
            fail(f"{what} needs an order, and zone '{z.name}' is unordered",
                 node.pos, UNORDERED_HINT + one)
        if z is self.c.any_zone and self.c.prog.heaps:
            return (f"B_ordered(st, {src}, {self.mod.const(what)}, "
                    f"{self.mod.const(node.pos)})")
        return src

    def _ordered_piece(self, node, src: str) -> str:
        """A piece whose place in its slot is read (level, under, the piece beside it): in
        a game with unordered zones, checked when it runs (a piece may be anywhere)."""
        if self.c.prog.heaps:
            return (f"B_ordered_piece(st, {src}, {self.mod.const(node.name + '()')}, "
                    f"{self.mod.const(node.pos)})")
        return src

    # -- builtins: one method each, f_<name>(node, args) -> (source, type) ----------------
    def f_size(self, node, args):
        check_arity(node, len(args), 1)
        src, typ = args[0]
        if typ[0] == "zone":
            return f"B_zone_size(st.slots, {src}, {typ[1].nslots})", T.INT
        inner = f"st.slots[{src}]" if typ[0] == "slot" else src
        out = Src(f"len({inner})")
        out.sized = inner
        return out, T.INT

    def f_capacity(self, node, args):
        check_arity(node, len(args), 1)
        src, _ = slot_arg(node, args)
        return f"{self.table('capacity')}[{src}]", T.INT

    def f_full(self, node, args):
        check_arity(node, len(args), 1)
        src, typ = slot_arg(node, args, zone_ok=True)
        cap = self.c.prog.slot_cap
        n = width_of(typ)
        if any(cap[s] is None for s in range(typ[1].base, typ[1].base + n)):
            fail(f"zone '{typ[1].name}' has no capacity, so it is never full",
                 node.pos, "give the zone a capacity or capacities")
        return f"B_full(st.slots, {src}, {n}, {self.table('capacity')})", T.BOOL

    def _whole_arg(self, node, args, i: int, what: str) -> str:
        """An argument that must be a whole number (a count, a level, a bound)."""
        self.c.x.whole(args[i][1], node.args[i], f"{what} of {node.name}()")
        return args[i][0]

    def f_top(self, node, args):
        check_arity(node, len(args), 1, 2)
        src, typ = slot_arg(node, args)
        src = self.ordered(node.args[0], src, typ, "top()")
        if len(args) == 2:
            self._whole_arg(node, args, 1, "the count")
        if len(args) == 1:
            return self._end_of(src, -1), T.PIECE
        return f"B_top_n(st.slots[{src}], {args[1][0]})", T.list_of(T.PIECE)

    def f_bottom(self, node, args):
        check_arity(node, len(args), 1, 2)
        src, typ = slot_arg(node, args)
        src = self.ordered(node.args[0], src, typ, "bottom()")
        if len(args) == 2:
            self._whole_arg(node, args, 1, "the count")
        if len(args) == 1:
            return self._end_of(src, 0), T.PIECE
        return f"st.slots[{src}][:max({args[1][0]}, 0)]", T.list_of(T.PIECE)

    def f_first(self, node, args):
        check_arity(node, len(args), 1)
        src, typ = args[0]
        if typ[0] == "slot":
            return self._end_of(self.ordered(node.args[0], src, typ, "first()"), 0), T.PIECE
        return self._aggregate_of_list(node, args)

    @staticmethod
    def _end_of(slot: str, i: int) -> str:
        """The top (-1) or bottom (0) piece of a slot, none if it is empty; read in place
        when the slot is a plain name or number (no call in the hottest conditions)."""
        if paren(slot) == slot:
            return f"(st.slots[{slot}][{i}] if st.slots[{slot}] else None)"
        return f"{'B_top' if i else 'B_bottom'}(st.slots[{slot}])"

    def f_slots(self, node, args):
        check_arity(node, len(args), 1)
        _, typ = slot_arg(node, args, zone_ok=True)
        n = typ[1].nslots
        return fresh_list(f"list(range({n}))", f"range({n})", True), T.list_of(T.INT)

    def f_open_slots(self, node, args):
        """The slot numbers of a zone that still have room (all of them if unbounded)."""
        check_arity(node, len(args), 1)
        src, typ = slot_arg(node, args, zone_ok=True)
        return fresh_list(f"B_open_slots(st.slots, {src}, {width_of(typ)}, "
                          f"{self.table('capacity')})", unique=True), T.list_of(T.INT)

    def f_levels(self, node, args):
        check_arity(node, len(args), 1)
        src, typ = slot_arg(node, args, zone_ok=True)
        src = self.ordered(node.args[0], src, typ, "levels()")
        return f"B_levels(st.slots, {src}, {width_of(typ)})", T.list_of(T.INT)

    def f_row(self, node, args):
        check_arity(node, len(args), 2)
        src, typ = slot_arg(node, args, zone_ok=True)
        src = self.ordered(node.args[0], src, typ, "row()")
        self._whole_arg(node, args, 1, "the level")
        return f"B_row(st.slots, {src}, {width_of(typ)}, {args[1][0]})", T.list_of(T.PIECE)

    @reads_place
    def f_column(self, node, args):
        check_arity(node, len(args), 1)
        return f"{self.table('index')}[st.where[{piece_arg(node, args)}]]", T.INT

    @reads_place
    def f_level(self, node, args):
        check_arity(node, len(args), 1)
        return f"B_level(st, {self._ordered_piece(node, piece_arg(node, args))})", T.INT

    @reads_place
    def f_under(self, node, args):
        check_arity(node, len(args), 1)
        return (f"B_under(st, {self._ordered_piece(node, piece_arg(node, args))})",
                T.list_of(T.PIECE))

    def _neighbour(self, node, args, dslot, dlevel):
        check_arity(node, len(args), 1)
        piece = self._ordered_piece(node, piece_arg(node, args))
        return (f"B_neighbour(st, {piece}, {dslot}, {dlevel}, "
                f"{self.table('index')}, {self.table('width')})"), T.PIECE

    @reads_place
    def f_below(self, node, args):
        return self._neighbour(node, args, 0, -1)

    @reads_place
    def f_above(self, node, args):
        return self._neighbour(node, args, 0, 1)

    @reads_place
    def f_left(self, node, args):
        return self._neighbour(node, args, -1, 0)

    @reads_place
    def f_right(self, node, args):
        return self._neighbour(node, args, 1, 0)

    def f_values(self, node, args):
        check_arity(node, len(args), 1)
        src, typ = args[0]
        if typ[0] == "enumtype":
            return src, T.list_of(T.enum(typ[1]))
        if typ[0] in ("map", "counts"):
            return f"list({paren(src)}.values())", T.list_of(typ[2])
        if typ == T.ANY:            # an entry of a data record: checked when it runs
            return f"list({paren(src)}.values())", T.list_of(T.ANY)
        fail(f"values() needs an enum or a table, not {T.describe(typ)}", node.pos)

    def f_keys(self, node, args):
        check_arity(node, len(args), 1)
        src, typ = args[0]
        if typ != T.ANY and typ[0] not in ("map", "counts"):
            fail(f"keys() needs a table, not {T.describe(typ)}", node.pos)
        # an entry of a data record (ANY) is checked when it runs
        return fresh_list(f"list({src})", src, True), T.list_of(
            T.ANY if typ == T.ANY else typ[1])

    def f_leaders(self, node, args):
        """The keys of a table holding its greatest value (sorted), [] if empty."""
        check_arity(node, len(args), 1)
        src, typ = args[0]
        if typ[0] not in ("map", "counts"):
            fail(f"leaders() needs a table, not {T.describe(typ)}", node.pos)
        return f"B_leaders({src})", T.list_of(typ[1])

    def f_rank(self, node, args):
        """rank(x, values): 1 + how many values beat x (ties share a rank; 1, 1, 3)."""
        check_arity(node, len(args), 2)
        (x, _), (vals, _) = args
        v = self.c.scratch()
        return f"(1 + len([{v} for {v} in {vals} if {v} > {paren(x)}]))", T.INT

    def f_dense_rank(self, node, args):
        """dense_rank(x, values): 1 + how many distinct values beat x (1, 1, 2)."""
        check_arity(node, len(args), 2)
        (x, _), (vals, _) = args
        v = self.c.scratch()
        return f"(1 + len({{{v} for {v} in {vals} if {v} > {paren(x)}}}))", T.INT

    def _seat_arg(self, node, args, what: str) -> str:
        """The source of a player argument: checked to be a seat when it is a number that
        may not be one (a value typed player is one)."""
        self._whole_arg(node, args, 0, "the player")
        src, typ = args[0]
        if typ == T.PLAYER:
            return paren(src)
        return (f"B_seat({src}, {self.c.prog.players}, {self.mod.const(what)}, "
                f"{self.mod.const(node.pos)})")

    def f_next_player(self, node, args):
        check_arity(node, len(args), 1)
        p = self._seat_arg(node, args, "next_player()")
        return f"(({p} + 1) % {self.c.prog.players})", T.PLAYER

    def f_players_after(self, node, args):
        """The other players in turn order, from the one after p: [p+1, ..., p-1]."""
        check_arity(node, len(args), 1)
        p = self._seat_arg(node, args, "players_after()")
        n = self.c.prog.players
        v = self.c.scratch()
        return (fresh_list(f"[({p} + {v}) % {n} for {v} in range(1, {n})]"),
                T.list_of(T.PLAYER))

    def f_combinations(self, node, args):
        """combinations(items, k): every list of k of the items, in their order."""
        check_arity(node, len(args), 2)
        src, typ = args[0]
        if typ[0] != "list" and typ != T.ANY:
            fail(f"combinations() takes a list, not {T.describe(typ)}", node.pos,
                 "a container's pieces: combinations(list(x for x in C), k)")
        k = self._whole_arg(node, args, 1, "the count")
        item = typ[1] if typ[0] == "list" else T.ANY
        return (fresh_list(f"B_combinations({src}, {k}, {self.mod.const(node.pos)})"),
                T.list_of(T.list_of(item)))

    def f_sorted(self, node, args):
        """sorted(items): the items in increasing order: numbers, players and texts as
        such, an enum's values in their declared order, pieces in their order of creation,
        lists item by item (the first that differs decides)."""
        check_arity(node, len(args), 1)
        src, typ = args[0]
        if typ[0] != "list" and typ != T.ANY:
            fail(f"sorted() takes a list, not {T.describe(typ)}", node.pos,
                 "a container's pieces: sorted(list(x for x in C))")
        item = typ[1] if typ[0] == "list" else T.ANY
        inner: tuple = item
        while inner[0] == "list":
            inner = inner[1]
        order = ({v: i for i, v in enumerate(self.c.enums[inner[1]])}
                 if inner[0] == "enum" else None)
        return (fresh_list(f"B_sorted({src}, {self.mod.const(order)}, "
                           f"{self.mod.const(node.pos)})"), T.list_of(item))

    def _text_of(self, src: str, typ, pos) -> str:
        """Source of the text of a value of type typ: a piece by its name (as it is now,
        if names show changeable attributes), the rest as B_text writes it."""
        if typ == T.PIECE:
            if self.c.prog.piece_namer:
                return f"B_piece_name_now(st, {src})"
            return f"B_piece_name({self.mod.const(tuple(self.c.prog.piece_names))}, {src})"
        if typ == T.STR:
            return src
        return f"B_text({src}, {self.mod.const(pos)})"

    @reads_names
    def f_text(self, node, args):
        """text(x): x as a label shows it; a list's items separated by ', '."""
        check_arity(node, len(args), 1)
        src, typ = args[0]
        if typ[0] == "list" and typ[1] == T.PIECE:
            return self.f_join(node, [args[0], (self.mod.const(", "), T.STR)])
        if typ[0] in ("slot", "zone"):
            fail(f"text() of {T.describe(typ)}: a container is not a value with a text",
                 node.pos, "its pieces: text(list(c for c in C))")
        return self._text_of(src, typ, node.pos), T.STR

    @reads_names
    def f_join(self, node, args):
        """join(L, sep): the texts of L's items, with sep between them."""
        check_arity(node, len(args), 2)
        (src, typ), (sep, styp) = args
        if typ[0] != "list" and typ != T.ANY:
            fail(f"join() takes a list, not {T.describe(typ)}", node.pos,
                 "a container's pieces: join(list(c for c in C), ', ')")
        if styp not in (T.STR, T.ANY):
            fail(f"the separator of join() must be a text, not {T.describe(styp)}",
                 node.args[1].pos)
        v = self.c.scratch()
        item = self._text_of(v, typ[1] if typ[0] == "list" else T.ANY, node.pos)
        # the texts taken one by one, their length bounded as they come (B_join)
        return f"B_join({sep}, ({item} for {v} in {src}), {self.mod.const(node.pos)})", \
            T.STR

    def f_abs(self, node, args):
        check_arity(node, len(args), 1)
        return f"abs({args[0][0]})", T.NUM if args[0][1] == T.NUM else T.INT

    def f_range(self, node, args):
        check_arity(node, len(args), 2)
        self._whole_arg(node, args, 0, "the first number")
        self._whole_arg(node, args, 1, "the last number")
        (a, _), (b, _) = args
        lo, hi = self.c.x.constant(a), self.c.x.constant(b)
        if type(lo) is int and type(hi) is int and hi - lo <= MAX_RANGE:
            span = f"range({lo}, {hi + 1})"          # known when compiled: no check to run
            return fresh_list(f"list({span})", span, True), T.list_of(T.INT)
        pos = self.mod.const(node.pos)
        # a loop goes over the numbers without a list made of them (B_span)
        return fresh_list(f"B_range({a}, {b}, {pos})", f"B_span({a}, {b}, {pos})", True), \
            T.list_of(T.INT)
