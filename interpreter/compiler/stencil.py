"""Which cells a condition on a cell reads, as steps from that cell: the stencil of a view.

Input: the AST of a generator's parts (its condition, lets and element) over a board's
cells, the name of its variable, and the compiler's tables (spec functions and their
ASTs, zones, variables, data, enums). Output: a Stencil, or None where the parts read
what a stencil cannot say (docs/compiler.md, "Views").

A stencil is the set of paths the parts read the pieces of, each a tuple of steps from
the generator's cell: () the cell itself, ("adj4",) an orthogonal neighbour of it,
("adj8",) any neighbour (`around`, and `neighbour(c, d)` in any direction), ("adj4",
"adj4") a neighbour of a neighbour...; and the slots of other zones read whole (a stack
of tiles, a player's hand). Reading pieces through anything else (a flood, every cell
of the board, a ray, a cell held in a variable, where a piece from elsewhere is) gives
None: that generator is not a view. What the parts read besides pieces (variables,
whose turn it is, tables, options) is not the stencil's business: the compiler's read
summary drops the view when a statement writes it.

Only the AST is read, with spec functions looked into at their calls (their parameters
standing for what they are given); nothing is evaluated. The nodes are told apart by
their class's name (as ExprCompiler's x_<Node> methods): this module imports nothing of
the package, so the stages that ask it stay on their floor (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

NEAR = {"adjacent": "adj4", "around": "adj8"}
# builtins that read nothing of the state (geometry, arithmetic, names)
PURE = frozenset(("x", "y", "on_edge", "corner", "distance", "orthogonal_distance", "abs",
                  "capacity",
                  "range", "row", "column", "directions", "orthogonal", "diagonal",
                  "opposite", "next_player", "players_after", "combinations", "sorted", "values",
                  "keys", "min", "max"))
# builtins that read the pieces of the slot they are given
OF_SLOT = frozenset(("size", "top", "bottom", "full", "count", "first", "levels"))
MAX_DEPTH = 16
MAX_STEPS = 3          # paths longer than this: not a view (the stencil would be large)


class NotAStencil(Exception):
    """The parts read pieces in a way a stencil cannot say."""


@dataclass
class Stencil:
    paths: set = field(default_factory=set)       # paths from the cell, read
    zones: set = field(default_factory=set)       # other zones read whole (by name)
    steps: bool = False                           # neighbour(c, d) was read as adj8
    groups: bool = False                          # a kept group's cells are read (GROUP)


GROUP = ("*",)      # the path of a kept group's cells: what its flood read is reported
                    # as it runs (runtime/views.py), not known from the cell


def reads_its_cell(region, c) -> bool:
    """Does a group's condition read the pieces of the cell it tests and nothing else of
    the pieces (no other cell, no zone, no group)? Such a group is kept across moves."""
    found = stencil([region.cond], region.var, c)
    return found is not None and found.paths <= {()} and not found.zones \
        and not found.groups


# the kinds of what an expression gives: ("cell", paths), ("cells", paths), ("piece",
# paths), ("pieces", paths): cells (and pieces on cells) at those paths from the
# generator's cell; FAR: a cell found by its coordinates (board[x, y]), whose pieces a
# stencil cannot say; VALUE: anything else (numbers, names, a cell held in a variable)
VALUE: tuple = ("value", frozenset())
FAR: tuple = ("far", frozenset())


def stencil(parts, var: str, c) -> Stencil | None:
    """The stencil of a generator's parts (ASTs) over cells bound to `var`; c is the
    Compiler (its functions, zones, variables, data). None: not a stencil."""
    out = Stencil()
    walker = _Walker(c, out)
    try:
        env = {var: ("cell", frozenset([()]))}
        for node in parts:
            if node is not None:
                walker.kind(node, env, 0)
    except NotAStencil:
        return None
    return out


class _Walker:
    def __init__(self, comp, out: Stencil):
        self.c = comp
        self.out = out
        self._cells: frozenset | None = None

    def read(self, kind) -> None:
        """The pieces of what `kind` names are read."""
        if kind[0] in ("cell", "cells", "piece", "pieces"):
            for p in kind[1]:
                if p == GROUP:
                    continue                # a kept group's cells: reported as it runs
                if len(p) > MAX_STEPS or GROUP[0] in p:
                    raise NotAStencil       # (the neighbours of a group's cells: no)
                self.out.paths.add(p)
        elif kind[0] == "zone":
            self.out.zones.add(kind[1])
        else:
            raise NotAStencil       # the pieces of a cell that is not at a path

    def kind(self, node, env: dict, depth: int):
        """What `node` gives (a kind), noting the pieces it reads."""
        method = getattr(self, "k_" + type(node).__name__, None)
        if method is None:
            raise NotAStencil           # a node this module does not follow
        return method(node, env, depth)

    def k_Const(self, node, env, depth):
        return VALUE

    def k_Name(self, node, env, depth):
        return self.name(node.id, env)

    def k_Attr(self, node, env, depth):
        obj = self.kind(node.obj, env, depth)
        if obj[0] in ("piece", "pieces"):
            return VALUE                # its attributes: the slot it is in is read
        if obj == VALUE and node.name in self.c.prog.changeable:
            raise NotAStencil           # a piece from elsewhere whose attribute changes
        if obj == VALUE:
            zones = self.c.prog.zones
            if node.name in zones and zones[node.name].per_player:
                return ("zone", node.name)   # p.hand: a player's zone
            if node.name in self.cell_variables():
                return FAR                  # p.home: a player's variable holding a cell
            return VALUE
        raise NotAStencil

    def k_Compare(self, node, env, depth):
        left = self.kind(node.left, env, depth)
        right = self.kind(node.right, env, depth)
        if node.op not in ("in", "not in"):
            return VALUE
        if right[0] in ("cell", "zone"):
            self.read(right)            # a piece in a cell: what the cell holds
        elif right == FAR and left[0] not in ("cell", "cells"):
            self.read(right)            # (a cell among far cells reads no pieces)
        return VALUE

    def k_BoolOp(self, node, env, depth):
        self.kind(node.left, env, depth)
        self.kind(node.right, env, depth)
        return VALUE

    k_Arith = k_BoolOp

    def k_Not(self, node, env, depth):
        self.kind(node.operand, env, depth)
        return VALUE

    k_Neg = k_Not

    def k_Cond(self, node, env, depth):
        self.kind(node.test, env, depth)
        return _merge(self.kind(node.body, env, depth), self.kind(node.orelse, env, depth))

    def k_LetIn(self, node, env, depth):
        inner = dict(env)
        for name, value in node.lets:
            inner[name] = self.kind(value, inner, depth)
        return self.kind(node.body, inner, depth)

    def k_ListExpr(self, node, env, depth):
        out = VALUE
        for i, item in enumerate(node.items):
            plural = _plural(self.kind(item, env, depth))
            out = plural if i == 0 else _merge(out, plural)
        return out

    def k_Aggregate(self, node, env, depth):
        elt = self.generator(node.gen, env, depth)
        if node.default is not None:
            self.kind(node.default, env, depth)
        if node.name in ("first", "max", "min"):
            return elt
        if node.name == "list":
            return _plural(elt)
        return VALUE

    def k_ListComp(self, node, env, depth):
        return _plural(self.generator(node.gen, env, depth))

    def k_Func(self, node, env, depth):
        return self.call(node, env, depth)

    def k_Region(self, node, env, depth):
        """group(d from start where cond): a kept group's cells (what its flood read is
        reported as it runs); another group: not a stencil."""
        if node.name not in ("group", "group_around"):
            raise NotAStencil
        self.kind(node.start, env, depth)
        if not reads_its_cell(node, self.c):
            raise NotAStencil
        self.out.groups = True
        return ("cells", frozenset([GROUP]))

    def k_Index(self, node, env, depth):
        obj = self.kind(node.obj, env, depth)
        self.kind(node.key, env, depth)
        if obj == VALUE:
            return VALUE                # data, a table, a list in hand
        if obj[0] == "zone":
            self.read(obj)              # a slot of a zone: the zone, whole
            return VALUE
        raise NotAStencil

    def k_Index2(self, node, env, depth):
        """board[x, y]: a cell, not at a path from the generator's: reading its pieces
        makes the parts not a stencil (FAR)."""
        for part in (node.obj, node.x, node.y):
            self.kind(part, env, depth)
        return FAR

    def name(self, name: str, env: dict):
        if name in env:
            return env[name]
        c = self.c
        if name in c.prog.zones:
            return ("zone", name)
        if name in self.cell_variables():
            return FAR                      # a cell held in a variable (or a list of them)
        return VALUE                        # a variable, data, an enum value, players...

    def cell_variables(self) -> frozenset:
        """The variables (global or per player) whose values are or hold cells."""
        if self._cells is None:
            c = self.c
            typed = zip(c.prog.gvar_names + c.prog.pvar_names, c.gvar_types + c.pvar_types)
            self._cells = frozenset(n for n, t in typed if _holds_cells(t))
        return self._cells

    def generator(self, gen, env: dict, depth: int):
        src = self.kind(gen.source, env, depth)
        inner = dict(env)
        if src[0] == "cells":
            inner[gen.var] = ("cell", src[1])
        elif src[0] in ("cell", "pieces"):
            self.read(src)
            inner[gen.var] = ("piece", src[1])
        elif src[0] == "zone":
            self.read(src)
            inner[gen.var] = VALUE
        elif src == FAR:
            raise NotAStencil           # the pieces of a far cell, or far cells
            inner[gen.var] = VALUE
        for part in (gen.take, gen.cond):
            if part is not None:
                self.kind(part, inner, depth)
        for name, value in gen.lets:
            inner[name] = self.kind(value, inner, depth)
        return self.kind(gen.elt, inner, depth)

    def call(self, node, env: dict, depth: int):
        name = node.name
        c = self.c
        args = [self.kind(a, env, depth) for a in node.args]
        if name in c.functions:
            if depth >= MAX_DEPTH:
                raise NotAStencil
            params = [str(p) for p in c.functions[name].get("params", [])]
            if len(params) != len(args):
                raise NotAStencil
            return self.kind(c.builtins.function_ast(name), dict(zip(params, args)),
                             depth + 1)
        if name in NEAR and len(args) == 1:
            a = args[0]
            if a[0] == "cell":
                return ("cells", frozenset(p + (NEAR[name],) for p in a[1]))
            if a in (VALUE, FAR):
                return a                    # the neighbours of a cell not at a path
            raise NotAStencil
        if name == "neighbour" and len(args) == 2:
            a = args[0]
            if a[0] == "cell":
                self.out.steps = True
                return ("cell", frozenset(p + ("adj8",) for p in a[1]))
            if a in (VALUE, FAR):
                return a
            raise NotAStencil
        if name in OF_SLOT and len(args) >= 1:
            a = args[0]
            if a[0] in ("cell", "zone"):
                self.read(a)
                return ("piece", a[1]) if name in ("top", "bottom", "first") \
                    and a[0] == "cell" else VALUE
            if a[0] in ("cells", "pieces") and name in ("first",):
                return ("cell" if a[0] == "cells" else "piece", a[1])
            if a == FAR:
                raise NotAStencil           # what a far cell holds
            return VALUE                    # the size of a list, ...
        if name in PURE:
            return VALUE
        raise NotAStencil                   # cells(...), group, ray, at, cell(piece)...


def _holds_cells(t) -> bool:
    """Is a value of type `t` (lang/types.py: a tuple) a cell, or made of cells?"""
    return t[0] == "slot" or any(isinstance(part, tuple) and _holds_cells(part)
                                 for part in t[1:])


def _plural(kind):
    if kind[0] == "cell":
        return ("cells", kind[1])
    if kind[0] == "piece":
        return ("pieces", kind[1])
    if kind == VALUE:
        return VALUE
    raise NotAStencil


def _merge(a, b):
    if a == VALUE and b == VALUE:
        return VALUE
    if a[0] == b[0] and a[0] in ("cell", "cells", "piece", "pieces"):
        return (a[0], a[1] | b[1])
    if VALUE in (a, b):
        other = b if a == VALUE else a
        if other[0] in ("cell", "cells", "piece", "pieces"):
            return other                    # `if t then c else none`: the cell's paths
    raise NotAStencil
