"""Expression AST to Python source, with name, attribute, arity and type checks.

Input: an expression AST (interpreter/lang/ast.py), a Scope naming the locals, and the
Compiler's tables. Output: (source, type): a Python expression over `st` (the state) and
the scope's locals, and the value's static type; `function()` compiles one into
fn(st, L). Every name goes through the compiler's resolver (names.py), which can refuse
it; no text of the spec reaches the source (see codegen.py).
"""

from __future__ import annotations

import re
from contextlib import contextmanager, nullcontext

from ..errors import did_you_mean, fail
from ..lang import ast
from ..lang import types as T
from ..runtime.readers import WORK_LIMIT
from ..runtime.values import B_frac
from .codegen import MISSING, fresh_list, paren, plain_arithmetic
from .common import Scope, Shared, call_params, counted_lines

_COMPARE = ("==", "!=", "<", "<=", ">", ">=")
# a loop computes its invariant parts once, its repeated ones once an item
# (ExprCompiler.parts_sharing; tests turn it off to compare)
SHARED_PARTS = True
# invariant parts worth computing once in a loop, besides calls of spec functions
_COSTLY = (ast.Aggregate, ast.ListComp, ast.Region, ast.Path, ast.After)
# parts compiled into Python functions of their own: an invariant inside one stays there
_OWN_FUNCTIONS = (ast.Generator, ast.Aggregate, ast.ListComp, ast.Region, ast.Path,
                  ast.LetIn, ast.After)
WHOLE_HINT = "'/' gives exact fractions; x // 1 is x rounded down (or divide with //)"


class Gen(Shared):
    """A generator compiled: its variable, the source of its items, its condition and
    lets (Python locals), its element and the element's type."""

    def __init__(self, var: str, items: str, counted: tuple | None = None):
        """counted: (a fresh local, the raw source, its position constant) when the
        items are counted: `items` is then the counting call, for comprehensions."""
        super().__init__()
        self.var, self.items, self.counted = var, items, counted
        self.cond: str | None = None
        self.take: str | None = None  # items are taken while it holds (then the loop ends)
        self.lets: list = []          # (local, source)
        self.elt, self.etyp = "", T.ANY
        self.view = ""                # the unit of its view, if it may be one
        self.view_zone = ""           # (and the zone whose cells it goes over)
        self.key: tuple | None = None  # `j in keys(t) where j == e`: ExprCompiler._one_key

    @property
    def clauses(self) -> str:
        """As the clauses of a comprehension: `for v in ... if ... for w in (...,)`."""
        out = f"for {self.var} in {self.items}"
        if self.cond is not None:
            out += f" if {self.cond}"
        return out + "".join(f" for {v} in ({src},)" for v, src in self.lets)

    def loop(self, on_item: list) -> list:
        """As a loop (lines at indent 0): on_item runs for every item that passes; its
        shared parts' locals set before it (shared) and at every item (each)."""
        lines = [(0, f"{h} = [MISSING]", None) for h in self.shared]
        if self.counted is not None:
            tmp, src, pos = self.counted
            lines += counted_lines(tmp, src, pos, WORK_LIMIT) + [
                (0, f"for {self.var} in {tmp}:", None)]
        else:
            lines.append((0, f"for {self.var} in {self.items}:", None))
        lines += [(1, f"{h} = [MISSING]", None) for h in self.each]
        if self.take is not None:
            lines += [(1, f"if not {paren(self.take)}:", None), (2, "break", None)]
        if self.cond is not None:
            lines += [(1, f"if not {paren(self.cond)}:", None), (2, "continue", None)]
        lines += [(1, f"{v} = {src}", None) for v, src in self.lets]
        return lines + [(i + 1, text, p) for i, text, p in on_item]

    def sources(self) -> str:
        return " ".join([self.items, self.cond or "", self.take or "", self.elt]
                        + [s for _, s in self.lets])


class _Part:
    """A loop's shared part (ExprCompiler.shared_parts) while its parts compile: the scope
    it is compiled in, the loop's locals (a Gen, a path search's Shared), the local
    holding its value, whether that is kept for one item only, and its source once
    compiled."""
    __slots__ = ("scope", "gen", "cell", "each", "done")

    def __init__(self, scope: Scope, gen: Shared, cell: str, each: bool):
        self.scope, self.gen, self.cell, self.each = scope, gen, cell, each
        self.done: tuple | None = None


class ExprCompiler:
    """Compiles expressions against a Compiler's tables (see compiler.py)."""

    def __init__(self, comp):
        self.c = comp
        # id of a loop's shared part -> its _Part, while the loop's parts are compiled
        # (generator(hoist=True))
        self._hoisted: dict = {}
        # while a value computed when the spec compiles is compiled (layout.py): an item
        # of a list or a table is read through B_item, whose failure says the index and
        # the list's length, not Python's "list index out of range"
        self.explained = False

    # -- entry ------------------------------------------------------------------------
    def compile(self, node, scope: Scope):
        """-> (Python source, type)."""
        if self._hoisted and id(node) in self._hoisted:
            return self._shared(node)
        out = getattr(self, "x_" + type(node).__name__)(node, scope)
        self.c.usage.expr(node, scope, out[1])      # what it reads (analysis.py)
        return out

    # -- a loop's shared parts: invariant ones once, repeated ones once an item ---------
    def shared_parts(self, gen: ast.Generator) -> tuple[list, list]:
        """The parts of a generator's condition, element and lets worth computing once
        (calls of spec functions, aggregates, lists built by a generator, groups, path
        searches): (invariant, repeated). An invariant part reads none of the generator's
        own names (its variable, its lets): it has the same value for every item, so the
        loop computes it once, the first time an item needs it. A repeated part is
        written more than once (the same expression, positions aside) and reads its own
        names: computed once an item."""
        return self.parts_sharing([gen.take, gen.cond, gen.elt] + [v for _, v in gen.lets],
                                  {gen.var} | {n for n, _ in gen.lets})

    def parts_sharing(self, parts: list, own: set) -> tuple[list, list]:
        """(invariant, repeated) among the ASTs `parts` of a loop whose own names are
        `own` (shared_parts). Nested generators, groups, path searches and `let ... in`
        are not looked into (their parts are Python functions of their own)."""
        invariant: list = []
        seen: dict = {}                  # a part that reads own names -> its writings
        todo: list = list(parts) if SHARED_PARTS else []
        while todo:
            node = todo.pop()
            if isinstance(node, tuple):
                todo.extend(node)
            if not isinstance(node, ast.Node):
                continue
            costly = isinstance(node, _COSTLY) or (isinstance(node, ast.Func)
                                                   and node.name in self.c.functions)
            if costly and not set(ast.name_uses(node)) & own:
                invariant.append(node)
                continue
            if costly:
                seen.setdefault(node, []).append(node)
            if not isinstance(node, _OWN_FUNCTIONS):
                todo.extend(vars(node).values())
        return invariant, [same for same in seen.values() if len(same) > 1]

    @contextmanager
    def sharing(self, holder, invariant: list, repeated: list, outer: Scope, inner: Scope):
        """While a loop's parts compile: its invariant parts (compiled in `outer`, the
        scope around the loop) and repeated ones (in `inner`) are read through locals
        listed in holder.shared and holder.each, which the loop's function writes (the
        first before the loop, the second at the start of every item)."""
        found = [(outer, False, [n]) for n in invariant] + [(inner, True, r) for r in repeated]
        for i, (where, each, nodes) in enumerate(found):   # (locals no spec can name: #0)
            part = _Part(where, holder, inner.local(f"#{i}", T.ANY), each)
            for n in nodes:
                self._hoisted[id(n)] = part
        try:
            yield
        finally:
            for _, _, nodes in found:
                for n in nodes:
                    self._hoisted.pop(id(n), None)

    def _shared(self, node):
        """A shared part met in its loop (generator(hoist=True)): compiled once, and read
        through a local of the loop (Gen.shared, Gen.each) that holds it once computed: a
        list of one item, so that a function written inside the loop (an inlined spec
        function's aggregate, say) shares it as a parameter."""
        part = self._hoisted.pop(id(node))
        if part.done is None:
            src, typ = self.compile(node, part.scope)
            if re.search(r"\b[A-Z]\w*\(", src) is None:
                part.done = src, typ     # no call in it: as cheap as a local's test
            else:
                (part.gen.each if part.each else part.gen.shared).append(part.cell)
                c = part.cell
                part.done = f"({c}[0] if {c}[0] is not MISSING else B_once({c}, {src}))", typ
        return part.done

    def expect(self, node, scope, want: tuple, what: str) -> str:
        src, typ = self.compile(node, scope)
        if not self.fits(typ, want):
            self.whole(typ, node, what)
            fail(f"{what} must be "
                 f"{'a number' if want == T.NUM else T.describe(want)}, "
                 f"not {T.describe(typ)}", node.pos)
        return src

    @staticmethod
    def whole(typ, node, what: str) -> None:
        """Refuse a number that may be a fraction where a whole number is needed."""
        if typ == T.NUM:
            fail(f"{what} must be a whole number, not a number that may be a "
                 "fraction", node.pos, WHOLE_HINT)

    def function(self, node, scope, want: tuple | None = None, what: str = ""):
        """The expression as fn(st, L), and its type."""
        if want is not None:
            src, typ = self.expect(node, scope, want, what), want
        else:
            src, typ = self.compile(node, scope)
        return self.c.mod.expression(src, node.pos), typ

    @staticmethod
    def fits(typ, want) -> bool:
        if typ == T.ANY or want == T.ANY:
            return True
        if want in (T.INT, T.PLAYER):
            return typ in (T.INT, T.BOOL, T.PLAYER)
        if want == T.NUM:
            return typ in (T.INT, T.BOOL, T.PLAYER, T.NUM)
        if want == T.BOOL:
            return True          # any value has a truth value, as in the rulebooks' prose
        if want[0] == "list":
            return typ[0] in ("list", "slot", "zone", "map", "counts")
        if want[0] == "slot":
            return typ[0] == "slot"
        return T.compatible(typ, want)

    def constant(self, src: str):
        """The value of a source that is a literal or a bound constant, else MISSING."""
        if src in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}[src]
        if src.lstrip("-").isdigit():
            return int(src)
        if src.startswith("K") and src[1:].isdigit():
            return self.c.mod.ns.get(src, MISSING)
        return MISSING

    def truth(self, node, scope, what: str) -> str:
        """A condition's source, as a strict bool."""
        src, typ = self.compile(node, scope)
        return src if typ == T.BOOL else f"bool({src})"

    # -- leaves -----------------------------------------------------------------------
    def x_Const(self, node, scope):
        v = node.value
        typ = {bool: T.BOOL, int: T.INT, str: T.STR, type(None): T.NONE}[type(v)]
        return self.c.mod.literal(v), typ

    def x_Name(self, node, scope):
        var = scope.names.get(node.id)
        if var is not None:
            return var.src, var.typ
        return self.c.names.resolve_name(node)

    def x_Attr(self, node, scope):
        if isinstance(node.obj, ast.Name) and node.obj.id == "option" \
                and "option" not in scope.names:
            return self.c.names.resolve_option(node)
        obj, typ = self.compile(node.obj, scope)
        return self.c.names.resolve_attr(node, obj, typ)

    def x_Index(self, node, scope):
        names = self.c.names
        ref = names.table_ref(node.obj, scope)
        if ref is not None:                     # a table variable's entry: read it directly
            key, _ = self.compile(node.key, scope)
            return names.table_entry(ref, key, node.pos), ref.vtyp
        # a data table read at a constant key reads that key alone (deadcode.py)
        use = self.c.usage
        dn = (node.obj.id if isinstance(node.obj, ast.Name) and node.obj.id in self.c.data
              and node.obj.id not in scope.names and node.obj.id not in use.whole else None)
        obj, otyp = self.compile(node.obj, scope)
        if dn is not None:
            use.whole.discard(dn)
        key, ktyp = self.compile(node.key, scope)
        if dn is not None:
            kv = self.constant(key)
            if kv is MISSING:
                use.whole.add(dn)
            else:
                use.keys.setdefault(dn, set()).add(str(kv))
        mod = self.c.mod
        if otyp[0] in ("zone", "list"):
            self.whole(ktyp, node.key, "a slot number" if otyp[0] == "zone" else "an index")
        if otyp[0] == "zone":
            zinfo = otyp[1]
            n = zinfo.nslots
            if isinstance(node.key, ast.Const) and type(node.key.value) is int \
                    and 0 <= node.key.value < n:
                return f"({obj} + {node.key.value})", T.slot(zinfo)
            if paren(key) == key and paren(obj) == obj:     # plain names: checked in place
                return (f"({obj} + {key} if 0 <= {key} < {n} else B_zone_slot({obj}, {key}, "
                        f"{n}, {mod.const(zinfo.name)}, {mod.const(node.pos)}))"), T.slot(zinfo)
            return (f"B_zone_slot({obj}, {key}, {n}, {mod.const(zinfo.name)}, "
                    f"{mod.const(node.pos)})"), T.slot(zinfo)
        if otyp[0] == "counts":
            return f"{paren(obj)}.get({key}, 0)", otyp[2]
        if otyp[0] == "map":
            if paren(key) == key and paren(obj) == obj:     # plain names: read in place
                return (f"({obj}[{key}] if {key} in {obj} else "
                        f"B_entry({obj}, {key}, {mod.const(node.pos)}))"), otyp[2]
            return f"B_entry({obj}, {key}, {mod.const(node.pos)})", otyp[2]
        if otyp[0] == "list" or otyp == T.ANY:
            typ = otyp[1] if otyp[0] == "list" else T.ANY
            if self.explained:
                return f"B_item({obj}, {key}, {mod.const(node.pos)})", typ
            return f"{paren(obj)}[{key}]", typ
        fail(f"{T.describe(otyp)} cannot be indexed with [...]", node.pos,
             "index a data table, a list, or a zone of several slots")

    def x_Slice(self, node, scope):
        """items[lo:hi] as in Python: from item lo up to (not including) item hi, a bound
        left out the list's end, a negative bound counted from the end; a text likewise."""
        obj, otyp = self.compile(node.obj, scope)
        if otyp[0] != "list" and otyp not in (T.STR, T.ANY):
            fail(f"[a:b] takes a part of a list or a text, not of {T.describe(otyp)}",
                 node.pos, "a container's pieces: top(C, n), bottom(C, n) or "
                 "list(x for x in C)[a:b]")
        bounds = [self.expect(n, scope, T.INT, "a bound of [a:b]") if n is not None else ""
                  for n in (node.lo, node.hi)]
        src = f"{paren(obj)}[{bounds[0]}:{bounds[1]}]"
        return (fresh_list(src) if otyp[0] == "list" else src), otyp

    def x_Index2(self, node, scope):
        obj, otyp = self.compile(node.obj, scope)
        if otyp[0] != "zone" or otyp[1].kind not in ("grid", "hex"):
            fail(f"[x, y] picks a cell of a grid, not of {T.describe(otyp)}",
                 node.pos, "declare the zone with kind: grid (or hex), width: "
                 "and height:")
        x = self.expect(node.x, scope, T.INT, "a column")
        y = self.expect(node.y, scope, T.INT, "a row")
        z = otyp[1]
        mod = self.c.mod
        call = (f"B_grid_cell({obj}, {x}, {y}, {z.width}, {z.height}, {mod.const(z.name)}, "
                f"{mod.const(node.pos)})")
        if all(plain_arithmetic(v) for v in (obj, x, y)):
            # no call in x and y: computing them twice costs less than a call
            return (f"({paren(obj)} + {paren(y)} * {z.width} + {paren(x)} if 0 <= {x} < "
                    f"{z.width} and 0 <= {y} < {z.height} else {call})"), T.slot(z)
        return call, T.slot(z)

    def x_Region(self, node, scope):
        return self.c.boards.region(node, scope)

    def x_Path(self, node, scope):
        return self.c.boards.path(node, scope)

    # -- operators ----------------------------------------------------------------------
    def x_Cond(self, node, scope):
        test = self.expect(node.test, scope, T.BOOL, "a condition")
        a, ta = self.compile(node.body, scope)
        b, tb = self.compile(node.orelse, scope)
        typ = ta if ta != T.NONE else tb
        if T.NUM in (ta, tb) and T.is_numeric(ta) and T.is_numeric(tb):
            typ = T.NUM
        return f"({a} if {test} else {b})", typ

    def x_LetIn(self, node, scope):
        """let a = x, b = y in body: each value is computed once, the names are Python
        locals of the body (a lambda's parameters, one level per name)."""
        inner = scope.child()
        heads = []
        for name, value in node.lets:
            vsrc, vtyp = self.compile(value, inner)
            heads.append((inner.local(name, vtyp), vsrc))
        body, typ = self.compile(node.body, inner)
        for var, vsrc in reversed(heads):
            body = f"(lambda {var}: {body})({vsrc})"
        return body, typ

    def x_After(self, node, scope):
        """after s1; s2 then body: a function of its own that runs the statements on a
        copy of the state (State.imagine) and gives the body's value there; the frame's
        locals are copied too. A called rule runs to its end on the copy (B_settle).
        What the statements change is read, not written (Usage.imagined)."""
        inner = scope.child()
        pos = self.c.mod.const(node.pos)
        lines: list = [(0, "st = B_imagine(st)", None)]
        usage = self.c.usage
        for s in node.effects:
            self._imaginable(s)
            known = len(usage.statements)
            with usage.imagined():
                part = self.c.steps.statement(s, inner)
            del usage.statements[known:]          # the game's own statements only
            lines += part.lines
            if part.tail:                         # a call: its rule runs on the copy
                lines.append((0, f"B_settle(st, {pos})", s.pos))
        body, typ = self.compile(node.body, inner)
        lines.append((0, f"return {body}", node.pos))
        text = " ".join(t for _, t, _ in lines if isinstance(t, str))
        params = call_params(scope, text)
        if "L" in params:                         # an assignment to a local: the copy's
            lines.insert(1, (0, "L = L[:]", None))
        fn = self.c.mod.function("H", ", ".join(params), lines, node.pos, "after")
        return f"{fn.__name__}({', '.join(params)})", typ

    @staticmethod
    def _imaginable(s) -> None:
        """A statement `after` can try: no new local, no end, no chance."""
        if isinstance(s, ast.Let):
            fail("`after` takes no let", s.pos,
                 f"name the value around it: let {s.name} = ... in after ...")
        if isinstance(s, ast.Stmt) and s.ENDS:
            fail("`after` cannot end the game", s.pos,
                 "ask what the game would end on with a condition instead")
        if isinstance(s, ast.Stmt) and s.DRAW and (not s.DRAW[1] or getattr(s, s.DRAW[1])):
            fail(f"`after` cannot try a {s.DRAW[0]}: its outcome is chance", s.pos,
                 "`after` tries statements whose outcome is known")

    def x_BoolOp(self, node, scope):
        parts = []
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.BoolOp) and n.op == node.op:
                stack.append(n.right)
                stack.append(n.left)
            else:
                parts.append(n)
        srcs = [self.truth(p, scope, "a condition") for p in parts]
        return "(" + f" {node.op} ".join(paren(s) for s in srcs) + ")", T.BOOL

    def x_Not(self, node, scope):
        a = self.expect(node.operand, scope, T.BOOL, "the operand of not")
        return f"(not {paren(a)})", T.BOOL

    def x_Compare(self, node, scope):
        a, ta = self.compile(node.left, scope)
        b, tb = self.compile(node.right, scope)
        op = node.op
        if op in ("in", "not in"):
            if not T.iterable(tb):
                fail(f"'{op}' needs a list, a zone or a table on its right, "
                     f"not {T.describe(tb)}", node.right.pos)
            self._check_enum_literal(node.left, ta, T.elem(tb) if tb[0] != "zone" else T.PIECE)
            test = self.c.builtins.contains(tb, a, b)
            return (test if op == "in" else f"(not {test})"), T.BOOL
        if not T.compatible(ta, tb):
            fail(f"cannot compare {T.describe(ta)} with {T.describe(tb)}",
                 node.pos)
        self._check_enum_literal(node.right, tb, ta)
        self._check_enum_literal(node.left, ta, tb)
        if op in ("<", "<=", ">", ">="):
            enum = ta[1] if ta[0] == "enum" else tb[1] if tb[0] == "enum" else None
            if enum is not None:
                # enum values compare by their order in the enum's declaration
                order = self.c.mod.const({v: i for i, v in enumerate(self.c.enums[enum])})
                return (f"(B_order({order}, {a}, {self.c.mod.const(node.left.pos)}) {op} "
                        f"B_order({order}, {b}, {self.c.mod.const(node.right.pos)}))"), T.BOOL
            if not (T.is_numeric(ta) or ta == T.PLAYER):
                fail(f"'{op}' compares numbers or the values of an enum, not "
                     f"{T.describe(ta)}", node.pos)
        if op in ("==", "!=") and (b == "None" or a == "None"):
            op = "is" if op == "==" else "is not"
        sized = getattr(a, "sized", "")
        if sized and b == "0" and op in ("==", "!=", ">"):     # empty or not: its truth
            return (f"(not {paren(sized)})" if op == "==" else f"(not not {paren(sized)})"), T.BOOL
        return f"({paren(a)} {op} {paren(b)})", T.BOOL

    def _check_enum_literal(self, node, typ, other):
        """'leader' compared with a trade: the literal must be one of the enum's values."""
        if isinstance(node, ast.Const) and isinstance(node.value, str) and other[0] == "enum":
            members = self.c.enums[other[1]]
            if node.value not in members:
                fail(f"'{node.value}' is not a {other[1]}", node.pos,
                     did_you_mean(node.value, members) or
                     f"one of: {', '.join(members)}")

    def x_Arith(self, node, scope):
        """Integers stay plain Python arithmetic; '/' is exact (B_frac), and an operation
        on a number that may be a fraction gives a whole result back as an int (B_num)."""
        op = node.op
        a, ta = self.compile(node.left, scope)
        b, tb = self.compile(node.right, scope)
        if op == "+" and T.STR in (ta, tb):
            for n, t in ((node.left, ta), (node.right, tb)):
                if t not in (T.STR, T.ANY):
                    fail(f"'+' joins two texts, not a text and {T.describe(t)}", n.pos,
                         "make a value a text with text(x): 'round ' + text(n)")
            if self.constant(a) is not MISSING or self.constant(b) is not MISSING:
                return f"({paren(a)} + {paren(b)})", T.STR      # grows by the constant
            # two computed texts: bounded in length (readers.B_concat), as a let can
            # double a text
            return f"B_concat({a}, {b}, {self.c.mod.const(node.pos)})", T.STR
        if op == "+" and ta[0] == "list" and tb[0] == "list":
            ea, eb = ta[1], tb[1]
            if not T.compatible(ea, eb):
                fail(f"'+' joins two lists of one kind, not {T.describe(ta)} and "
                     f"{T.describe(tb)}", node.pos)
            item = (T.NUM if T.NUM in (ea, eb) else eb if ea in (T.ANY, T.NONE) else ea)
            # the items copied count against the work budget (readers.B_work), as a
            # comprehension's do: a let can double a list
            pos = self.c.mod.const(node.pos)
            return fresh_list(f"(B_work({a}, {pos}) + B_work({b}, {pos}))"), T.list_of(item)
        for n, t in ((node.left, ta), (node.right, tb)):
            if not self.fits(t, T.NUM):
                fail(f"an operand of '{op}' must be a number, not {T.describe(t)}",
                     n.pos, "'+' joins texts: 'round ' + text(n)" if T.STR in (ta, tb)
                     else "")
        if op == "/":
            x, y = self.constant(a), self.constant(b)
            if type(x) is int and type(y) is int and y != 0:     # known when compiled
                # its type is still a number that may be a fraction: '/' gives one
                return self.c.mod.literal(B_frac(x, y, node.pos)), T.NUM
            return f"B_frac({a}, {b}, {self.c.mod.const(node.pos)})", T.NUM
        exact = T.NUM in (ta, tb)
        if op in ("//", "%"):
            divisor = self.constant(b)
            if type(divisor) is int and divisor != 0:       # no zero to check for
                src = f"({paren(a)} {op} {b})"
            else:
                helper = "B_div" if op == "//" else "B_mod"
                src = f"{helper}({a}, {b}, {self.c.mod.const(node.pos)})"
            if op == "%" and exact:      # the remainder of a fraction may be one
                return f"B_num({src})", T.NUM
            return src, T.INT            # a floor division is whole, of fractions too
        if exact:
            return f"B_num({paren(a)} {op} {paren(b)})", T.NUM
        if op == "*" and self.constant(a) is MISSING and self.constant(b) is MISSING:
            # two computed numbers: the product is bounded before it is made (B_mul)
            return f"B_mul({a}, {b}, {self.c.mod.const(node.pos)})", T.INT
        return f"({paren(a)} {op} {paren(b)})", T.INT

    def x_Neg(self, node, scope):
        a, typ = self.compile(node.operand, scope)
        if not self.fits(typ, T.NUM):
            fail(f"the operand of '-' must be a number, not {T.describe(typ)}",
                 node.operand.pos)
        return f"(-{paren(a)})", T.NUM if typ == T.NUM else T.INT

    # -- collections ----------------------------------------------------------------------
    def x_ListExpr(self, node, scope):
        items = [self.compile(i, scope) for i in node.items]
        typ = next((t for _, t in items if t != T.NONE), T.ANY)
        if typ == T.INT and any(t == T.NUM for _, t in items):
            typ = T.NUM
        return "[" + ", ".join(s for s, _ in items) + "]", T.list_of(typ)

    def generator(self, gen: ast.Generator, scope: Scope, hoist: bool = False) -> Gen:
        """A generator's parts as Python source; its variable (and lets) are Python
        locals of the comprehension or loop written from them. hoist: its invariant
        parts are computed once, its repeated ones once an item (shared_parts: the caller
        writes it as a loop)."""
        src, styp = self.compile(gen.source, scope)
        if not T.iterable(styp):
            fail(f"cannot iterate over {T.describe(styp)}", gen.source.pos,
                 "iterate over a list, a zone or a table")
        inner = scope.child()
        var = inner.local(gen.var, T.elem(styp))
        # every generator's items are counted before it takes any (readers.B_work)
        items = self.c.builtins.items(styp, src)
        key = self._one_key(gen, scope)
        if key is not None and not key[2]:   # `j in keys(t) where j == k`: k, if a key
            items = f"B_one_key({key[0]}, {key[1]})"
        if ast.uncounted(gen.source):
            out = Gen(var, items)
        else:
            pos = self.c.mod.const(gen.source.pos)
            out = Gen(var, f"B_work({items}, {pos})", (self.c.mod.fresh("w"), items, pos))
        out.key = key
        # a generator over a board's cells may become a view (runtime/views.py): what
        # its parts read is then a unit of its own, the view's
        out.view, out.view_zone = self.c.builtins.view_unit(gen.source, scope)
        invariant, repeated = self.shared_parts(gen) if hoist else ([], [])
        with self.sharing(out, invariant, repeated, scope, inner):
            self._parts(gen, out, inner)
        return out

    def _parts(self, gen: ast.Generator, out: Gen, inner: Scope) -> None:
        with self.c.usage.unit(out.view) if out.view else nullcontext():
            if gen.take is not None:
                out.take = self.expect(gen.take, inner, T.BOOL, "a while condition")
            if gen.cond is not None:
                out.cond = self.expect(gen.cond, inner, T.BOOL, "a where condition")
            for name, value in gen.lets:
                vsrc, vtyp = self.compile(value, inner)
                out.lets.append((inner.local(name, vtyp), vsrc))
            out.elt, out.etyp = self.compile(gen.elt, inner)

    def _one_key(self, gen: ast.Generator, scope: Scope) -> tuple | None:
        """For `j in keys(t) where j == e and ...` (e not reading j: one_key): (t's
        source, e's, whether t is known only when it runs: a data record's entry). Its
        items are e alone if it is a key of t, else none (the same items: a table's keys
        are unique), instead of every key tested (a table's: B_one_key; builtins.lookup
        writes a sum or count of them as a lookup). None for any other generator."""
        found = ast.one_key(gen)
        if found is None:
            return None
        table, ttyp = self.compile(found[0], scope)
        if ttyp != T.ANY and ttyp[0] not in ("map", "counts"):
            return None
        value, _ = self.compile(found[1], scope)
        return table, value, ttyp == T.ANY

    def x_ListComp(self, node, scope):
        gen = self.c.builtins.loop_generator(node.gen, scope)
        viewed = self.c.builtins.as_view(gen, node.gen, scope, "list", node.pos)
        if viewed is not None:
            return viewed, T.list_of(gen.etyp)
        gen = self.c.builtins.as_loop(gen, node.gen, scope)
        # a comprehension cannot stop, nor hold what its items share: a loop can
        if gen.take is not None or gen.shared or gen.each:
            return self.c.builtins.list_loop(gen, scope, node.pos), T.list_of(gen.etyp)
        # as long as its source at most: every source (a zone, a range, a table, a list
        # built so) is bounded, so a list needs no check of its own
        return f"[{gen.elt} {gen.clauses}]", T.list_of(gen.etyp)

    def x_Aggregate(self, node, scope):
        return self.c.builtins.aggregate(node, scope)

    def x_Func(self, node, scope):
        return self.c.builtins.call(node, scope)
