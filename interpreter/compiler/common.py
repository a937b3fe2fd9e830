"""What the compiler's stages share: the locals of generated code, a compiled step, the
work budget's inline count, and the checks of a builtin call's arguments.

Input: nothing (definitions only; the stages use them). Output: Scope and Var (the names
of rule text and the Python that reads them), Part (a compiled step), counted_lines,
call_params, merged (registries joined, a name defined twice refused), and the argument
checks of builtins.py and boards.py. A leaf: it imports
only level-1 modules (errors, lang/types), so that no stage imports another stage
(docs/architecture.md); the stages reach one another through the Compiler.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import fail
from ..lang import types as T


class Var:
    """A name of the rule text: the Python source that reads it, its type, and its slot
    in the frame's locals (None for a Python local or an inlined argument)."""

    __slots__ = ("src", "typ", "slot")

    def __init__(self, src: str, typ: T.Type, slot: int | None = None):
        self.src, self.typ, self.slot = src, typ, slot


class Scope:
    """Local names of one procedure (and the blocks and generators inside it)."""

    def __init__(self, names: dict[str, Var] | None = None, counter: list[int] | None = None):
        self.names = dict(names or {})      # name -> Var
        self.counter = counter if counter is not None else [0]

    def child(self) -> Scope:
        return Scope(self.names, self.counter)

    def alias(self, name: str, src: str, typ: T.Type) -> None:
        """A name that stands for an expression (an inlined function's argument)."""
        self.names[name] = Var(src, typ)

    def add(self, name: str, typ: T.Type) -> int:
        """A local kept in the frame (it lives across decisions): L[slot]."""
        slot = self.counter[0]
        self.counter[0] += 1
        self.names[name] = Var(f"L[{slot}]", typ, slot)
        return slot

    def local(self, name: str, typ: T.Type) -> str:
        """A local of one generated function (a generator's variable): a Python name."""
        n = self.counter[0]
        self.counter[0] += 1
        src = f"v{n}"
        self.names[name] = Var(src, typ)
        return src

    @property
    def size(self) -> int:
        return self.counter[0]


class Shared:
    """The locals of a loop's shared parts (ExprCompiler.sharing): `shared` those of its
    invariant parts, set before the loop; `each` those of its repeated parts, set at the
    start of every item."""

    def __init__(self) -> None:
        self.shared: list[str] = []
        self.each: list[str] = []


@dataclass
class Part:
    """A compiled step: Python lines (native) or engine instructions (stack)."""
    lines: list[tuple[int, str, Any]] = field(default_factory=list)   # (indent, line, pos)
    items: list[tuple[Any, Any]] = field(default_factory=list)      # (instruction, pos)
    native: bool = True
    ends_game: bool = False
    tail: bool = False      # lines that end a generated function (they push a frame)


def counted_lines(name: str, src: str, pos: str, limit: int,
                  depth: int = 0) -> list[tuple[int, str, None]]:
    """Statements that bind `name` to a source's items and count them against the work
    budget before any is taken (readers.B_work, inline: a loop written as statements
    spends no call on it). `pos`: the source's position, as a constant; `limit`: the
    budget (readers.WORK_LIMIT), written as a literal."""
    return [(depth, f"{name} = {src}", None),
            (depth, f"B_spent[0] += len({name})", None),
            (depth, f"if B_spent[0] > {limit}:", None),
            (depth + 1, f"B_work_over({pos})", None)]


def call_params(scope: Scope, text: str) -> list[str]:
    """The parameters of a generated function whose body is `text`, called where
    `scope`'s names are: the state, the frame's locals if it reads them, and the
    Python locals of the call site that it reads."""
    outer: set[str] = set()     # the Python locals the call site has: those the names read
    for var in scope.names.values():
        bound = set(re.findall(r"\b(?:lambda|for) (v[0-9]+)\b", var.src))
        outer |= set(re.findall(r"\bv[0-9]+\b", var.src)) - bound
    return ["st"] + (["L"] if reads_frame(text) else []) + sorted(
        v for v in outer if re.search(rf"\b{v}\b", text))


def reads_frame(text: str) -> bool:
    """Does generated code read the frame's locals (`L`: a rule's lets, for-variables
    and parameters)?"""
    return re.search(r"\bL\b", text) is not None


Emitter = TypeVar("Emitter", bound=Callable[..., Any])


def reads_place(emitter: Emitter) -> Emitter:
    """Marks a builtin's emitter (f_<name>) as reading where a piece is (its cell, level or
    neighbours in its slot), for the read summary (compiler/analysis.py): a builtin says
    what it reads where it is defined."""
    emitter.reads_place = True  # type: ignore[attr-defined]  # a mark on the function
    return emitter


def reads_names(emitter: Emitter) -> Emitter:
    """Marks a builtin's emitter as reading pieces' names, which may show attributes that
    change in play (a name template with a changeable attribute): the read summary counts
    those attributes read."""
    emitter.reads_names = True  # type: ignore[attr-defined]  # a mark on the function
    return emitter


def merged(what: str, *tables: dict[str, Any]) -> dict[str, Any]:
    """The tables (name -> value) as one. A name two of them define is refused at once,
    an internal error (ValueError) when the package is imported: merged silently, one
    would overwrite the other and generated code would call the wrong one."""
    out: dict[str, Any] = {}
    for table in tables:
        for name, value in table.items():
            if name in out:
                raise ValueError(f"internal error: the {what} '{name}' is defined twice "
                                 f"({_where(out[name])} and {_where(value)})")
            out[name] = value
    return out


def _where(value: object) -> str:
    module = getattr(value, "__module__", None) or type(value).__module__
    return f"{module}.{getattr(value, '__qualname__', type(value).__name__)}"


# -- a builtin call's arguments: node is the call (ast.Func: Any, so that this module, which
# most of the compiler imports, imports no more), args its (source, type) pairs
Args = list[tuple[str, T.Type]]


def check_arity(node: Any, n: int, lo: int, hi: int | None = None) -> None:
    hi = lo if hi is None else hi
    if not lo <= n <= hi:
        want = f"{lo}" if lo == hi else f"{lo} to {hi}"
        fail(f"{node.name}() takes {want} argument{'s' if hi != 1 else ''}, "
             f"not {n}", node.pos)


def slot_arg(node: Any, args: Args, i: int = 0, zone_ok: bool = False) -> tuple[str, T.Type]:
    src, typ = args[i]
    if typ[0] == "slot" or (zone_ok and typ[0] == "zone"):
        return src, typ
    want = "a zone or one of its slots" if zone_ok else "a zone of one slot (or zone[i])"
    fail(f"{node.name}() needs {want} here, not {T.describe(typ)}",
         node.args[i].pos)


def piece_arg(node: Any, args: Args, i: int = 0) -> str:
    src, typ = args[i]
    if typ not in (T.PIECE, T.ANY, T.NONE):
        fail(f"{node.name}() needs a piece, not {T.describe(typ)}",
             node.args[i].pos)
    return src


def width_of(typ: T.Type) -> int:
    """The slots of a zone's type (a slot's: 1)."""
    n: int = typ[1].nslots if typ[0] == "zone" else 1
    return n
