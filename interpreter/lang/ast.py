"""The rule language's abstract syntax tree.

Input: nothing (definitions only). Output: small frozen dataclasses, one per grammar rule
alias of grammar/tabula.lark, each with the source position of its first character.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..errors import NOWHERE, Pos


@dataclass(frozen=True)
class Node:
    """Base of every AST node: it knows where it was written."""

    pos: Pos = field(default=NOWHERE, compare=False, repr=False, kw_only=True)


# ---- expressions --------------------------------------------------------------------

@dataclass(frozen=True)
class Name(Node):
    """A name: a local, a parameter, a variable, a zone, a data table or an enum value."""
    id: str


@dataclass(frozen=True)
class Const(Node):
    """A literal: an integer, a string, true, false or none."""
    value: object


@dataclass(frozen=True)
class Attr(Node):
    """obj.name: a piece's attribute, a player's zone or variable."""
    obj: Node
    name: str


@dataclass(frozen=True)
class Index(Node):
    """obj[key]: a data table's entry, a slot of a multi-slot zone, a list item."""
    obj: Node
    key: Node


@dataclass(frozen=True)
class Slice(Node):
    """items[lo:hi]: the items of a list from lo up to hi (either may be left out)."""
    obj: Node
    lo: Node | None
    hi: Node | None


@dataclass(frozen=True)
class Index2(Node):
    """grid[x, y]: the cell of a grid zone at column x, row y."""
    obj: Node
    x: Node
    y: Node


@dataclass(frozen=True)
class Region(Node):
    """group(c from start where cond): the cells connected to start through cells that
    satisfy cond (orthogonally; group_around: diagonals too)."""
    name: str
    var: str
    start: Node
    cond: Node


@dataclass(frozen=True)
class Path(Node):
    """reaches(c from start to goal where cond), distance_to(...), path_to(...): a
    breadth-first search from start through the cells that satisfy cond (orthogonally;
    the _around forms: diagonals too), stopping at the first cell that satisfies goal.
    With `prev -> var`, cond is a condition on a step, from the cell prev to its
    neighbour var."""
    name: str
    var: str
    start: Node
    goal: Node
    cond: Node
    prev: str | None = None      # the cell a step leaves (`a -> b`), or None


@dataclass(frozen=True)
class Func(Node):
    """name(args): a builtin or a spec function."""
    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Generator(Node):
    """elt for var in source while take where cond let name = value, ..."""
    elt: Node
    var: str
    source: Node
    cond: Node | None
    lets: tuple[tuple[str, Node], ...]
    take: Node | None = None    # the items are taken while it holds


@dataclass(frozen=True)
class Aggregate(Node):
    """name(generator[, default]): sum, count, max, min, any, all, tally, list, first."""
    name: str
    gen: Generator
    default: Node | None


@dataclass(frozen=True)
class ListExpr(Node):
    """[a, b, c]"""
    items: tuple[Node, ...]


@dataclass(frozen=True)
class ListComp(Node):
    """[elt for var in source where cond]"""
    gen: Generator


@dataclass(frozen=True)
class Cond(Node):
    """if test then body else orelse"""
    test: Node
    body: Node
    orelse: Node


@dataclass(frozen=True)
class After(Node):
    """`after s1; s2 then body`: body on a copy of the state the statements changed."""
    effects: tuple[Node, ...]
    body: Node


@dataclass(frozen=True)
class LetIn(Node):
    """`let a = x, b = y in body`: body with the names bound, each after the one before."""
    lets: tuple[tuple[str, Node], ...]
    body: Node


@dataclass(frozen=True)
class BoolOp(Node):
    """a and b / a or b"""
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Not(Node):
    """not a"""
    operand: Node


@dataclass(frozen=True)
class Compare(Node):
    """a OP b, OP one of == != < <= > >= in, not in"""
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Arith(Node):
    """a OP b, OP one of + - * / // %"""
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Neg(Node):
    """-a"""
    operand: Node


# ---- statements ----------------------------------------------------------------------
# A statement says here what it changes, as class data the compiler's analysis reads
# (compiler/analysis.py, Program.facts): PLACES, the fields naming containers whose
# pieces it changes; TAKES, the fields whose pieces leave their places; DRAW, (kind,
# field) when it draws from the state's generator (field "" always, else when that field
# is true); ENDS, whether it ends the game. So a new statement is its grammar rule, this
# node, its parser method and its compilation (steps.py): the analysis needs no case.

@dataclass(frozen=True)
class Stmt(Node):
    """A statement that changes the state (what it changes: the class data below)."""
    PLACES: ClassVar[tuple[str, ...]] = ()
    TAKES: ClassVar[tuple[str, ...]] = ()
    DRAW: ClassVar[tuple[str, str] | None] = None
    ENDS: ClassVar[bool] = False


@dataclass(frozen=True)
class Move(Stmt):
    """move what to dest (at its top, or its bottom), optionally in random order."""
    what: Node
    dest: Node
    bottom: bool
    shuffled: bool
    PLACES = ("dest",)
    TAKES = ("what",)
    DRAW = ("shuffled move", "shuffled")


@dataclass(frozen=True)
class Swap(Stmt):
    """swap a with b: the two pieces exchange places."""
    a: Node
    b: Node
    TAKES = ("a", "b")


@dataclass(frozen=True)
class Shuffle(Stmt):
    """shuffle zone"""
    zone: Node
    PLACES = ("zone",)
    DRAW = ("shuffle", "")


@dataclass(frozen=True)
class Refill(Stmt):
    """refill zone from source: move source's top pieces until zone is at capacity."""
    zone: Node
    source: Node
    PLACES = ("zone", "source")


@dataclass(frozen=True)
class EndGame(Stmt):
    """end game: the game ends at once."""
    ENDS = True


@dataclass(frozen=True)
class Call(Node):
    """call rule(args); pos is the statement's, name_pos the rule name's."""
    name: str
    args: tuple[Node, ...]
    name_pos: Pos = field(default=NOWHERE, compare=False, repr=False)


@dataclass(frozen=True)
class NextTurn(Stmt):
    """next turn to player: the turns step around gives its next turn to that player."""
    player: Node


@dataclass(frozen=True)
class Let(Node):
    """let name = value: a new local."""
    name: str
    value: Node


@dataclass(frozen=True)
class Assign(Node):
    """target = value, target += value, target -= value"""
    target: Node
    op: str
    value: Node


# ---- bindings -----------------------------------------------------------------------

@dataclass(frozen=True)
class Binding(Node):
    """var in source"""
    var: str
    source: Node


@dataclass(frozen=True)
class Bindings(Node):
    """var in source, var2 in source2 while take where cond"""
    items: tuple[Binding, ...]
    cond: Node | None
    take: Node | None = None    # a `for` goes on while it holds


def name_uses(node: object, out: dict[str, int] | None = None, weight: int = 1) -> dict[str, int]:
    """How many times each name is read when an expression is evaluated once; a read
    inside a generator, a group or a path counts as many (it runs once per item)."""
    out = {} if out is None else out
    if isinstance(node, Name):
        out[node.id] = out.get(node.id, 0) + weight
    elif isinstance(node, Generator):
        name_uses(node.source, out, weight)
        for part in (node.elt, node.cond, node.lets, node.take):
            name_uses(part, out, 2)
    elif isinstance(node, Region):
        name_uses(node.start, out, weight)
        name_uses(node.cond, out, 2)
    elif isinstance(node, Path):
        name_uses(node.start, out, weight)
        name_uses(node.goal, out, 2)
        name_uses(node.cond, out, 2)
    elif isinstance(node, Node):
        for value in vars(node).values():
            name_uses(value, out, weight)
    elif isinstance(node, tuple):
        for value in node:
            name_uses(value, out, weight)
    return out


def one_key(gen: Generator) -> tuple[Node, Node] | None:
    """(t, e) for a generator `j in keys(t) where j == e and ...` whose e reads neither j
    nor the lets, else None: its items are at most e, so it walks nothing (the compiler
    writes it as a lookup: compiler/expressions.py, _one_key; builtins.py, _heavy)."""
    src = gen.source
    if gen.cond is None or not (isinstance(src, Func) and src.name == "keys"
                                and len(src.args) == 1):
        return None
    inner = {gen.var} | {n for n, _ in gen.lets}
    part = gen.cond
    while isinstance(part, BoolOp) and part.op == "and":
        part = part.left                 # the first of the parts joined by and
    if not (isinstance(part, Compare) and part.op == "=="):
        return None
    sides = [part.left, part.right]
    for this, other in (sides, sides[::-1]):
        if isinstance(this, Name) and this.id == gen.var \
                and not set(name_uses(other)) & inner:
            return src.args[0], other
    return None


def uncounted(source: object) -> bool:
    """A generator or binding source whose items need not be counted: a list written
    with at most one item ([neighbour(c, d)], the idiom that names one value). However
    deep such sources nest, they take at most one item for each item of a counted source
    around them, so the work stays within a small multiple of the budget."""
    return isinstance(source, ListExpr) and len(source.items) <= 1
