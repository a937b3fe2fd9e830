"""Expression AST to Python closures, with name, attribute, arity and type checks.

Input: an expression AST (interpreter/ast.py), a Scope naming the locals, and the
Compiler's tables. Output: a closure fn(state, locals) -> value and the value's static
type. Every name goes through `Compiler.resolve`, which can refuse it; nothing of the
spec's text is ever evaluated by Python.
"""

from __future__ import annotations

import operator

from . import ast
from . import types as T
from .errors import RuleError, SpecError, did_you_mean

MAX_LIST = 100_000

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}


class Scope:
    """Local names of one procedure (and the blocks and generators inside it)."""

    def __init__(self, names: dict | None = None, counter: list | None = None):
        self.names = dict(names or {})      # name -> (slot, type)
        self.counter = counter if counter is not None else [0]

    def child(self) -> "Scope":
        return Scope(self.names, self.counter)

    def alias(self, name: str, fn, typ: tuple) -> None:
        """A name that stands for an expression (an inlined function's parameter)."""
        self.names[name] = (None, typ, fn)

    def add(self, name: str, typ: tuple) -> int:
        slot = self.counter[0]
        self.counter[0] += 1
        self.names[name] = (slot, typ)
        return slot

    @property
    def size(self) -> int:
        return self.counter[0]


def _div(a, b):
    return a // b


def _mod(a, b):
    return a % b


class ExprCompiler:
    """Compiles expressions against a Compiler's tables (see compiler.py)."""

    def __init__(self, comp):
        self.c = comp

    # -- entry ------------------------------------------------------------------------
    def compile(self, node, scope: Scope):
        method = getattr(self, "x_" + type(node).__name__)
        return method(node, scope)

    def expect(self, node, scope, want: tuple, what: str):
        fn, typ = self.compile(node, scope)
        if not self._fits(typ, want):
            raise SpecError(f"{what} must be {T.describe(want)}, not {T.describe(typ)}",
                            node.pos)
        return fn

    @staticmethod
    def _fits(typ, want) -> bool:
        if typ == T.ANY or want == T.ANY:
            return True
        if want in (T.INT, T.PLAYER):
            return typ in (T.INT, T.BOOL, T.PLAYER)
        if want == T.BOOL:
            return True          # any value has a truth value, as in the rulebooks' prose
        if want[0] == "list":
            return typ[0] in ("list", "slot", "zone", "map", "counts")
        if want[0] == "slot":
            return typ[0] == "slot"
        return T.compatible(typ, want)

    # -- leaves -----------------------------------------------------------------------
    def x_Const(self, node, scope):
        v = node.value
        typ = {bool: T.BOOL, int: T.INT, str: T.STR, type(None): T.NONE}[type(v)]
        return (lambda st, L: v), typ

    def x_Name(self, node, scope):
        entry = scope.names.get(node.id)
        if entry is not None:
            if entry[0] is None:
                return entry[2], entry[1]
            slot, typ = entry
            return (lambda st, L: L[slot]), typ
        return self.c.resolve_name(node)

    def x_Attr(self, node, scope):
        if isinstance(node.obj, ast.Name) and node.obj.id == "option" \
                and "option" not in scope.names:
            return self.c.resolve_option(node)
        obj, typ = self.compile(node.obj, scope)
        local = scope.names.get(node.obj.id) if isinstance(node.obj, ast.Name) else None
        return self.c.resolve_attr(node, obj, typ, local[0] if local else None)

    def x_Index(self, node, scope):
        ref = self.c.table_ref(node.obj, scope)
        if ref is not None:                     # a table variable's entry: read it directly
            key = self.compile(node.key, scope)[0]
            locate = self.c.table_index(ref, key, node.pos)

            def entry(st, L):
                box, i = locate(st, L)
                return box[i]
            return entry, ref[4]
        obj, otyp = self.compile(node.obj, scope)
        key, ktyp = self.compile(node.key, scope)
        pos = node.pos
        if otyp[0] == "zone":
            zinfo = otyp[1]
            n = zinfo.nslots

            def slot_of(st, L):
                i = key(st, L)
                if not 0 <= i < n:
                    raise RuleError(f"zone '{zinfo.name}' has slots 0..{n - 1}, not {i}", pos)
                return obj(st, L) + i
            return slot_of, T.slot(zinfo)
        if otyp[0] == "counts":
            return (lambda st, L: obj(st, L).get(key(st, L), 0)), otyp[2]
        if otyp[0] == "map":
            def get(st, L):
                m = obj(st, L)
                k = key(st, L)
                if k not in m:
                    raise RuleError(f"no entry {k!r} in the table", pos)
                return m[k]
            return get, otyp[2]
        if otyp[0] == "list":
            return (lambda st, L: obj(st, L)[key(st, L)]), otyp[1]
        if otyp == T.ANY:
            return (lambda st, L: obj(st, L)[key(st, L)]), T.ANY
        raise SpecError(f"{T.describe(otyp)} cannot be indexed with [...]", node.pos,
                        "index a data table, a list, or a zone of several slots")

    def x_Index2(self, node, scope):
        obj, otyp = self.compile(node.obj, scope)
        if otyp[0] != "zone" or otyp[1].kind != "grid":
            raise SpecError(f"[x, y] picks a cell of a grid, not of {T.describe(otyp)}",
                            node.pos, "declare the zone with kind: grid, width: and height:")
        x = self.expect(node.x, scope, T.INT, "a column")
        y = self.expect(node.y, scope, T.INT, "a row")
        zinfo = otyp[1]
        w, h = zinfo.width, zinfo.height
        pos = node.pos

        def cell(st, L):
            cx, cy = x(st, L), y(st, L)
            if not (0 <= cx < w and 0 <= cy < h):
                raise RuleError(f"({cx}, {cy}) is off the {w}x{h} grid '{zinfo.name}'", pos)
            return obj(st, L) + cy * w + cx
        return cell, T.slot(zinfo)

    def x_Region(self, node, scope):
        return self.c.region(node, scope)

    # -- operators ----------------------------------------------------------------------
    def x_Cond(self, node, scope):
        test = self.expect(node.test, scope, T.BOOL, "a condition")
        a, ta = self.compile(node.body, scope)
        b, tb = self.compile(node.orelse, scope)
        typ = ta if ta != T.NONE else tb
        return (lambda st, L: a(st, L) if test(st, L) else b(st, L)), typ

    def x_BoolOp(self, node, scope):
        # a chain (a and b and c ...) becomes one loop: fewer nested calls in hot filters
        parts = []
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.BoolOp) and n.op == node.op:
                stack.append(n.right)
                stack.append(n.left)
            else:
                parts.append(n)
        compiled = [self.compile(p, scope) for p in parts]
        fns = tuple(f if t == T.BOOL else (lambda st, L, g=f: bool(g(st, L)))
                    for f, t in compiled)
        if node.op == "and":
            if len(fns) == 2:
                a, b = fns
                return (lambda st, L: a(st, L) and b(st, L)), T.BOOL

            def all_of(st, L):
                for f in fns:
                    if not f(st, L):
                        return False
                return True
            return all_of, T.BOOL
        if len(fns) == 2:
            a, b = fns
            return (lambda st, L: a(st, L) or b(st, L)), T.BOOL

        def any_of(st, L):
            for f in fns:
                if f(st, L):
                    return True
            return False
        return any_of, T.BOOL

    def _size_compare(self, node, scope, ta):
        """`size(x) == 0`, `size(x) > 0` and the like, with x a slot (a cell, a one-slot
        zone), as one closure: grid games ask whether cells are empty in every legality
        test, so the three closures of the plain path are fused into one."""
        left, right, op = node.left, node.right, node.op
        if not (isinstance(left, ast.Func) and left.name == "size" and len(left.args) == 1
                and isinstance(right, ast.Const) and type(right.value) is int
                and op in _COMPARE and op not in ("in", "not in") and ta == T.INT):
            return None
        arg = left.args[0]
        fn, typ = self.compile(arg, scope)
        if typ[0] != "slot":
            return None
        v = right.value
        f = _COMPARE[op]
        entry = scope.names.get(arg.id) if isinstance(arg, ast.Name) else None
        if entry is not None and entry[0] is not None:       # a local: read it in place
            i = entry[0]
            if op == "==" and v == 0:
                return lambda st, L: not st.slots[L[i]]
            if op in ("!=", ">") and v == 0:
                return lambda st, L: len(st.slots[L[i]]) > 0
            return lambda st, L: f(len(st.slots[L[i]]), v)
        if op == "==" and v == 0:
            return lambda st, L: not st.slots[fn(st, L)]
        return lambda st, L: f(len(st.slots[fn(st, L)]), v)

    def x_Not(self, node, scope):
        a = self.expect(node.operand, scope, T.BOOL, "the operand of not")
        return (lambda st, L: not a(st, L)), T.BOOL

    def x_Compare(self, node, scope):
        a, ta = self.compile(node.left, scope)
        b, tb = self.compile(node.right, scope)
        op = node.op
        if op in ("in", "not in"):
            if not T.iterable(tb):
                raise SpecError(f"'{op}' needs a list, a zone or a table on its right, "
                                f"not {T.describe(tb)}", node.right.pos)
            self._check_enum_literal(node.left, ta, T.elem(tb) if tb[0] != "zone" else T.PIECE)
            contains = self.c.contains_fn(tb)
            if op == "in":
                return (lambda st, L: contains(st, a(st, L), b(st, L))), T.BOOL
            return (lambda st, L: not contains(st, a(st, L), b(st, L))), T.BOOL
        if not T.compatible(ta, tb):
            raise SpecError(f"cannot compare {T.describe(ta)} with {T.describe(tb)}",
                            node.pos)
        fused = self._size_compare(node, scope, ta)
        if fused is not None:
            return fused, T.BOOL
        self._check_enum_literal(node.right, tb, ta)
        self._check_enum_literal(node.left, ta, tb)
        if op in ("<", "<=", ">", ">=") and not (T.is_numeric(ta) or ta == T.PLAYER):
            raise SpecError(f"'{op}' compares numbers, not {T.describe(ta)}", node.pos)
        f = _COMPARE[op]
        if isinstance(node.right, ast.Const):       # the common case: x.value <= 3
            v = node.right.value
            if op == "==":
                return (lambda st, L: a(st, L) == v), T.BOOL
            if op == "!=":
                return (lambda st, L: a(st, L) != v), T.BOOL
            if op == "<=":
                return (lambda st, L: a(st, L) <= v), T.BOOL
            if op == ">":
                return (lambda st, L: a(st, L) > v), T.BOOL
            if op == "<":
                return (lambda st, L: a(st, L) < v), T.BOOL
            return (lambda st, L: a(st, L) >= v), T.BOOL
        if op == "==":
            return (lambda st, L: a(st, L) == b(st, L)), T.BOOL
        if op == "!=":
            return (lambda st, L: a(st, L) != b(st, L)), T.BOOL
        return (lambda st, L: f(a(st, L), b(st, L))), T.BOOL

    def _check_enum_literal(self, node, typ, other):
        """'leader' compared with a trade: the literal must be one of the enum's values."""
        if isinstance(node, ast.Const) and isinstance(node.value, str) and other[0] == "enum":
            members = self.c.enums[other[1]]
            if node.value not in members:
                raise SpecError(f"'{node.value}' is not a {other[1]}", node.pos,
                                did_you_mean(node.value, members) or
                                f"one of: {', '.join(members)}")

    def x_Arith(self, node, scope):
        a = self.expect(node.left, scope, T.INT, f"an operand of '{node.op}'")
        b = self.expect(node.right, scope, T.INT, f"an operand of '{node.op}'")
        pos = node.pos
        if node.op in ("//", "%"):
            f = _div if node.op == "//" else _mod

            def div(st, L):
                d = b(st, L)
                if d == 0:
                    raise RuleError("division by zero", pos)
                return f(a(st, L), d)
            return div, T.INT
        f = _ARITH[node.op]
        if node.op == "+":
            return (lambda st, L: a(st, L) + b(st, L)), T.INT
        if node.op == "-":
            return (lambda st, L: a(st, L) - b(st, L)), T.INT
        return (lambda st, L: f(a(st, L), b(st, L))), T.INT

    def x_Neg(self, node, scope):
        a = self.expect(node.operand, scope, T.INT, "the operand of '-'")
        return (lambda st, L: -a(st, L)), T.INT

    # -- collections ----------------------------------------------------------------------
    def x_ListExpr(self, node, scope):
        items = [self.compile(i, scope) for i in node.items]
        fns = tuple(f for f, _ in items)
        typ = next((t for _, t in items if t != T.NONE), T.ANY)
        if any(t == T.NONE for _, t in items) and typ == T.PIECE:
            typ = T.PIECE
        return (lambda st, L: [f(st, L) for f in fns]), T.list_of(typ)

    def generator(self, gen: ast.Generator, scope: Scope):
        """-> (iterate(st, L) yielding nothing but setting locals, elt fn, elt type)."""
        inner = scope.child()
        src, styp = self.compile(gen.source, scope)
        if not T.iterable(styp):
            raise SpecError(f"cannot iterate over {T.describe(styp)}", gen.source.pos,
                            "iterate over a list, a zone or a table")
        items = self.c.items_fn(styp, src)
        var = inner.add(gen.var, T.elem(styp))
        lets = []
        cond = None
        if gen.cond is not None:
            cond = self.expect(gen.cond, inner, T.BOOL, "a where condition")
        for name, value in gen.lets:
            fn, typ = self.compile(value, inner)
            lets.append((inner.add(name, typ), fn))
        elt, etyp = self.compile(gen.elt, inner)
        lets = tuple(lets)
        pos = gen.pos

        def lazy(st, L):
            """The values one at a time (any, all and first stop early)."""
            for v in items(st, L):
                L[var] = v
                if cond is not None and not cond(st, L):
                    continue
                for slot, fn in lets:
                    L[slot] = fn(st, L)
                yield elt(st, L)

        def run(st, L):
            out = []
            for value in lazy(st, L):
                out.append(value)
                if len(out) > MAX_LIST:
                    raise RuleError(f"a list grew past {MAX_LIST} items", pos)
            return out
        run.lazy = lazy
        run.any_of, run.all_of, run.count_of, run.first_of = _loops(items, var, cond, lets, elt,
                                                                      lazy)
        return run, etyp

    def x_ListComp(self, node, scope):
        run, etyp = self.generator(node.gen, scope)
        return run, T.list_of(etyp)

    def x_Aggregate(self, node, scope):
        run, etyp = self.generator(node.gen, scope)
        dflt = None
        if node.default is not None:
            dflt, _ = self.compile(node.default, scope)
        return self.c.aggregate(node, run, etyp, dflt)

    def x_Func(self, node, scope):
        args = [self.compile(a, scope) for a in node.args]
        return self.c.call_function(node, args, scope)


def _loops(items, var, cond, lets, elt, values) -> tuple:
    """any, all, count and first over a generator as plain loops (no generator frames:
    these run in every legality test of a board game, so they are the hottest code).
    count counts the values a generator yields; first returns the first (or None).
    values(st, L) yields the generator's values (used when it binds lets)."""
    if lets:                     # rare: the generator of values serves
        def any_of(st, L):
            return any(values(st, L))

        def all_of(st, L):
            return all(values(st, L))

        def count_of(st, L):
            return sum(1 for _ in values(st, L))

        def first_of(st, L):
            return next(values(st, L), None)
        return any_of, all_of, count_of, first_of
    if cond is None:
        def any_of(st, L):
            for v in items(st, L):
                L[var] = v
                if elt(st, L):
                    return True
            return False

        def all_of(st, L):
            for v in items(st, L):
                L[var] = v
                if not elt(st, L):
                    return False
            return True

        def count_of(st, L):
            return sum(1 for _ in items(st, L))

        def first_of(st, L):
            for v in items(st, L):
                L[var] = v
                return elt(st, L)
            return None
        return any_of, all_of, count_of, first_of

    def any_of(st, L):
        for v in items(st, L):
            L[var] = v
            if cond(st, L) and elt(st, L):
                return True
        return False

    def all_of(st, L):
        for v in items(st, L):
            L[var] = v
            if cond(st, L) and not elt(st, L):
                return False
        return True

    def count_of(st, L):
        n = 0
        for v in items(st, L):
            L[var] = v
            if cond(st, L):
                n += 1
        return n

    def first_of(st, L):
        for v in items(st, L):
            L[var] = v
            if cond(st, L):
                return elt(st, L)
        return None
    return any_of, all_of, count_of, first_of


def check_arity(node, n: int, lo: int, hi: int | None = None):
    hi = lo if hi is None else hi
    if not lo <= n <= hi:
        want = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise SpecError(f"{node.name}() takes {want} argument{'s' if hi != 1 else ''}, "
                        f"not {n}", node.pos)
