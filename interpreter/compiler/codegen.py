"""Python source generated from the checked rule AST, compiled once per game.

Input: Python source text written by the compiler's stages (expressions.py, builtins.py,
steps.py, decisions.py), never text of the spec: every name in it is mangled (locals are
`L[3]` or `v3`, constants `K7`, spec functions `F2`), every string and table of the spec
is a constant bound in the namespace, and only integers are written as literals. Output:
Python functions, and the whole program as one readable module (`tabula compile`).

As in Jinja's code generator, the functions share one namespace: the constants, the
helpers of builtins.py and runtime.py, and a short list of Python builtins (nothing
else: no import, no open, no getattr). A failure inside generated code is traced back to
the spec's line and column through the line table kept for each function.
"""

from __future__ import annotations

import builtins as _py
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import FunctionType, TracebackType
from typing import Any

from ..errors import NOWHERE, Pos, fail

FILENAME = "<tabula>"
# the Python builtins generated code may call; everything else is out of its reach
SAFE_BUILTINS = ("len", "sum", "min", "max", "any", "all", "sorted", "list", "set", "tuple",
                 "dict", "range", "abs", "iter", "next", "enumerate", "zip", "reversed",
                 "isinstance", "int", "str", "bool", "None", "True", "False")
_COMMENT_SAFE = re.compile(r"[^A-Za-z0-9_.:,=()\[\]{}<>'\"/+*\- ]")
MISSING = object()


def comment(text: str) -> str:
    """A comment for the generated source: only letters, digits and a few signs survive,
    so that no text of the spec can end the comment and become code."""
    return "# " + _COMMENT_SAFE.sub("?", str(text))[:80]


def plain_arithmetic(src: str) -> bool:
    """Is the source short arithmetic over names and numbers (no call, no subscript
    but a local's)?"""
    return len(src) < 40 and re.fullmatch(r"[\w\s+\-*%/()\[\]]*", src) is not None \
        and re.search(r"[A-Za-z_]\w*\s*\(", src) is None \
        and all(m in ("L",) for m in re.findall(r"([A-Za-z_]\w*)\[", src))


def paren(src: str) -> str:
    """`src` as an operand: parenthesised unless it is plainly one atom."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\[[A-Za-z0-9_]+\])?|-?[0-9]+", src):
        return src
    return f"({src})"


class Src(str):
    """Source of an expression giving a list, with what the compiler knows of it: `iter`,
    the source of something to iterate over instead (the table a fresh list copies), and
    `unique`: its items are distinct and none of them is none."""

    iter: str = ""
    unique: bool = False
    sized: str = ""         # for len(X): X, whose truth says whether it is empty


def fresh_list(src: str, iterable: str = "", unique: bool = False) -> Src:
    out = Src(src)
    out.iter = iterable
    out.unique = unique
    return out


def is_unique(src: str) -> bool:
    return getattr(src, "unique", False)


def iterable(src: str) -> str:
    """What a loop over `src` may iterate over (the uncopied table, if there is one)."""
    it = getattr(src, "iter", "")
    if it:
        return fresh_list(it, unique=getattr(src, "unique", False))
    return src


class Stale(str):
    """A generated line that drops the facts a statement made stale, written (and the
    function holding it compiled) by Module.refine once every kept fact and what it reads
    are known: none, pops, or the clear. `writes`: what the statement writes (analysis.py's
    facts), set once the statement is compiled."""

    writes: frozenset[tuple[Any, ...]] = frozenset()


def _unrefined(*args: object) -> None:
    """What a function with Stale lines runs until Module.refine compiles it."""
    raise RuntimeError("generated code ran before its program was compiled (Module.refine)")


Body = list[tuple[int, str, "Pos | None"]]
LinesFor = Callable[[frozenset[tuple[Any, ...]]], list[tuple[int, str]]]


class Module:
    """The generated program of one game: constants, functions, and their source."""

    def __init__(self, helpers: dict[str, Any]):
        self.ns: dict[str, Any] = {"__builtins__": {n: getattr(_py, n) for n in SAFE_BUILTINS
                                          if hasattr(_py, n)}}
        self.ns.update(helpers)
        self.ns["MISSING"] = MISSING
        self._consts: dict[tuple[Any, ...], str] = {}     # id or value key -> name
        self._names: dict[str, int] = {}       # prefix -> next number
        self.chunks: list[str] = []            # the source of every function, in order
        self.lines: dict[tuple[str, int], Pos] = {}    # (function name, line) -> Pos
        # functions with Stale lines, compiled by refine(): (function, chunk, params, body,
        # pos, note)
        self._stale: list[tuple[Callable[..., Any], int, str, Body, Pos, str]] = []
        # what each function comes from in the spec, in words (Program.origin); within()
        # says what is being compiled ("rule turn"; the driver sets it)
        self.origins: dict[str, str] = {}
        self.within: Callable[[], str] = lambda: ""

    # -- names --------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        n = self._names.get(prefix, 0)
        self._names[prefix] = n + 1
        return f"{prefix}{n}"

    def const(self, value: object) -> str:
        """A name bound to `value` in the namespace (the same value, the same name)."""
        try:
            key: tuple[Any, ...] = ("v", type(value), value)
            hash(key)
        except TypeError:
            key = ("id", id(value))
        name = self._consts.get(key)
        if name is None:
            name = self._consts[key] = self.fresh("K")
            self.ns[name] = value
        return name

    def literal(self, value: object) -> str:
        """Source for a constant: integers, booleans and none as literals, the rest bound."""
        if value is None or isinstance(value, bool):
            return repr(value)
        if type(value) is int and -10**18 < value < 10**18:
            return repr(value)
        return self.const(value)

    # -- functions ------------------------------------------------------------------------
    def function(self, prefix: str, params: str, body: Body,
                 pos: Pos = NOWHERE, note: str = "", name: str = "") -> Callable[..., Any]:
        """Compile `def NAME(params): body` and return the function (NAME: a fresh one of
        the prefix, unless given). `body` is a list of (indent, line, position or None);
        the positions locate failures. A body with Stale lines is compiled by refine(),
        once: until then the function is a stand-in that may not run."""
        name = name or self.fresh(prefix)
        self.origins[name] = self._origin(prefix, note, pos)
        if any(isinstance(line, Stale) for _, line, _ in body):
            stand_in = FunctionType(_unrefined.__code__, self.ns, name)
            self.ns[name] = stand_in
            self.chunks.append("")                  # its text: written by refine()
            self._stale.append((stand_in, len(self.chunks) - 1, params, body, pos, note))
            return stand_in
        text = self._render(name, params, body, pos, note)
        self.chunks.append(text)
        return self._compile(name, text, pos)

    # what a function of each prefix is, and how it relates to the unit around it
    KINDS = {"F": ("", ""), "D": ("decision", "of"), "I": ("statements", "of"),
             "A": ("aggregate", "in"), "G": ("group", "in"), "E": ("expression", "in"),
             "H": ("after", "in")}

    def _origin(self, prefix: str, note: str, pos: Pos) -> str:
        """A generated function in the spec's words: "function best (game.yaml:120)",
        "decision of rule turn (game.yaml:300)", "label in rule bid (...)"."""
        kind, rel = self.KINDS.get(prefix, ("code", "in"))
        within = self.within()
        if prefix == "F" or not within:     # a spec function is its own unit
            what = note or within or kind
        else:
            what = f"{note if prefix in 'EG' and note else kind} {rel} {within}"
        if pos is NOWHERE or not pos.line:
            return what
        return f"{what} ({Path(pos.file).name or '<input>'}:{pos.line})"

    def _render(self, name: str, params: str, body: Body, pos: Pos, note: str) -> str:
        """The text of `def NAME(params): body`; its lines' positions go to self.lines."""
        src = [f"def {name}({params}):" + (f"  {comment(note)}" if note else "")]
        self.lines[(name, 1)] = pos
        last = pos
        for indent, line, where in body:
            src.append("    " * (indent + 1) + line)
            if where is not None and where is not NOWHERE:
                last = where
            self.lines[(name, len(src))] = last
        return "\n".join(src) + "\n"

    def _compile(self, name: str, text: str, pos: Pos) -> Callable[..., Any]:
        try:
            code = compile(text, FILENAME, "exec")
        except (RecursionError, MemoryError, SyntaxError, ValueError):
            # only nesting too deep for Python's own compiler gets here: the source is
            # built from the checked AST
            fail("this rule nests too deeply to be compiled", pos,
                 "split it with a function or a let")
        exec(code, self.ns)  # noqa: S102  generated from the checked AST only (see the docstring)
        fn: Callable[..., Any] = self.ns[name]
        return fn

    def refine(self, lines_for: LinesFor) -> None:
        """Write every Stale line as `lines_for(its writes)` (a list of (indent, text),
        maybe empty, indented from the Stale line's) and compile the functions holding
        them. The function objects stay the same (the stand-ins get the compiled code),
        so every instruction and closure that holds one runs it; generated functions
        have no closures of their own."""
        for fn, chunk, params, body, pos, note in self._stale:
            new: Body = []
            for indent, line, where in body:
                if isinstance(line, Stale):
                    new.extend((indent + more, text, where)
                               for more, text in lines_for(line.writes))
                else:
                    new.append((indent, line, where))
            name = fn.__name__
            self.chunks[chunk] = text = self._render(name, params, new, pos, note)
            fn.__code__ = self._compile(name, text, pos).__code__
            self.ns[name] = fn
        self._stale.clear()

    def expression(self, src: str, pos: Pos = NOWHERE, note: str = "") -> Callable[..., Any]:
        """fn(st, L) -> the value of the expression source `src`."""
        return self.function("E", "st, L", [(0, f"return {src}", pos)], pos, note)

    def source(self, title: str = "") -> str:
        """The whole generated program, as `tabula compile` prints it: the constants
        (shown, not bound: a printed program is read, not run), then every function."""
        consts = [comment(title)] if title else []
        for _key, name in sorted(self._consts.items(), key=lambda kv: int(kv[1][1:])):
            value = self.ns[name]
            shown = repr(value) if isinstance(value, (int, str, tuple, list, dict, bool,
                                                      type(None))) else f"<{type(value).__name__}>"
            if isinstance(value, Fraction):
                shown = str(value)
            if len(shown) > 100:
                shown = shown[:97] + "..."
            # repr() escapes every character that could end a line
            consts.append(f"# {name} = " + shown.replace("\n", " ").replace("\r", " "))
        return "\n".join(consts) + "\n\n" + "\n".join(self.chunks)

    def position(self, tb: TracebackType | None) -> Pos | None:
        """The spec position of the innermost generated line in a traceback."""
        found = None
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_filename == FILENAME:
                where = self.lines.get((code.co_name, tb.tb_lineno))
                if where is not None and where is not NOWHERE:
                    found = where
            tb = tb.tb_next
        return found
