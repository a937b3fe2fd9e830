"""Rule text to AST.

Input: a string scalar from a spec (an LStr that knows its file position) and what it
should be (a statement, an expression or bindings). Output: an AST (interpreter/ast.py)
whose every node carries its file, line and column. Syntax errors become SpecErrors at
the offending character with the tokens that were expected there.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                             UnexpectedToken, VisitError)

from . import ast
from .errors import Pos, SpecError
from .loader import LStr

START = {"statement": "start_statement", "expression": "start_expression",
         "bindings": "start_bindings"}

# readable names for the grammar's anonymous terminals, in expected-token hints
_TOKEN_TEXT = {
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','",
    "DOT": "'.'", "NAME": "a name", "INT": "a number", "STRING": "a string",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '//' or '%'",
    "ASSIGN_OP": "'=', '+=' or '-='", "EQUAL": "'='", "MINUS": "'-'", "$END": "the end",
}


def grammar_path() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "grammar", here.parent / "grammar"):
        if (candidate / "tabula.lark").is_file():
            return candidate / "tabula.lark"
    raise FileNotFoundError("grammar/tabula.lark is missing from the installation")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(grammar_path().read_text(encoding="utf-8"), parser="lalr",
                start=list(START.values()), propagate_positions=True,
                maybe_placeholders=True)


class _ToAst(Transformer):
    """Lark tree -> AST; one method per grammar alias, named after it."""

    def __init__(self, text: LStr | str):
        super().__init__()
        self.text = text

    def _pos(self, meta_or_token) -> Pos:
        offset = getattr(meta_or_token, "start_pos", None)
        if offset is None:
            return getattr(self.text, "pos", Pos())
        if isinstance(self.text, LStr):
            return self.text.pos_at(offset)
        return Pos("", 1, offset + 1)

    # -- start symbols
    def start_statement(self, children):
        return children[0]

    start_expression = start_bindings = start_statement

    # -- statements
    @v_args(meta=True)
    def move(self, meta, c):
        what, (bottom, dest), shuffled = c
        return ast.Move(what, dest, bottom, shuffled is not None, pos=self._pos(meta))

    def dest_bottom(self, c):
        return (True, c[0])

    def dest_top(self, c):
        return (False, c[0])

    @v_args(meta=True)
    def swap(self, meta, c):
        return ast.Swap(c[0], c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def shuffle(self, meta, c):
        return ast.Shuffle(c[0], pos=self._pos(meta))

    @v_args(meta=True)
    def refill(self, meta, c):
        return ast.Refill(c[0], c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def end_game(self, meta, c):
        return ast.EndGame(pos=self._pos(meta))

    @v_args(meta=True)
    def call(self, meta, c):
        return ast.Call(str(c[0]), tuple((c[1] if len(c) > 1 else None) or ()),
                        pos=self._pos(meta))

    @v_args(meta=True)
    def let(self, meta, c):
        return ast.Let(str(c[0]), c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def assign(self, meta, c):
        target, op, value = c
        if not isinstance(target, (ast.Name, ast.Attr)):
            raise SpecError("only a variable or a player's variable can be assigned to",
                            target.pos, "write NAME = value or p.NAME = value")
        return ast.Assign(target, str(op), value, pos=self._pos(meta))

    # -- bindings
    @v_args(meta=True)
    def bindings(self, meta, c):
        *items, cond = c
        return ast.Bindings(tuple(items), cond, pos=self._pos(meta))

    @v_args(meta=True)
    def binding(self, meta, c):
        return ast.Binding(str(c[0]), c[1], pos=self._pos(meta))

    # -- expressions
    @v_args(meta=True)
    def cond(self, meta, c):
        return ast.Cond(c[0], c[1], c[2], pos=self._pos(meta))

    @v_args(meta=True)
    def or_(self, meta, c):
        return ast.BoolOp("or", c[0], c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def and_(self, meta, c):
        return ast.BoolOp("and", c[0], c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def not_(self, meta, c):
        return ast.Not(c[0], pos=self._pos(meta))

    @v_args(meta=True)
    def compare(self, meta, c):
        return ast.Compare(str(c[1]), c[0], c[2], pos=self._pos(meta))

    @v_args(meta=True)
    def in_(self, meta, c):
        return ast.Compare("in", c[0], c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def not_in(self, meta, c):
        return ast.Compare("not in", c[0], c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def arith(self, meta, c):
        return ast.Arith(str(c[1]), c[0], c[2], pos=self._pos(meta))

    @v_args(meta=True)
    def neg(self, meta, c):
        return ast.Neg(c[0], pos=self._pos(meta))

    @v_args(meta=True)
    def attr(self, meta, c):
        return ast.Attr(c[0], str(c[1]), pos=self._pos(c[1]))

    @v_args(meta=True)
    def index(self, meta, c):
        return ast.Index(c[0], c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def func(self, meta, c):
        return ast.Func(str(c[0]), tuple(c[1] or ()), pos=self._pos(meta))

    @v_args(meta=True)
    def aggregate(self, meta, c):
        return ast.Aggregate(str(c[0]), c[1], c[2], pos=self._pos(meta))

    @v_args(meta=True)
    def generator(self, meta, c):
        elt, var, source, cond, lets = c
        return ast.Generator(elt, str(var), source, cond, tuple(lets or ()),
                             pos=self._pos(meta))

    def lets(self, c):
        return tuple(c)

    def let_binding(self, c):
        return (str(c[0]), c[1])

    @v_args(meta=True)
    def name(self, meta, c):
        return ast.Name(str(c[0]), pos=self._pos(meta))

    @v_args(meta=True)
    def int_(self, meta, c):
        return ast.Const(int(c[0]), pos=self._pos(meta))

    @v_args(meta=True)
    def string(self, meta, c):
        return ast.Const(str(c[0])[1:-1], pos=self._pos(meta))

    @v_args(meta=True)
    def none(self, meta, c):
        return ast.Const(None, pos=self._pos(meta))

    @v_args(meta=True)
    def true(self, meta, c):
        return ast.Const(True, pos=self._pos(meta))

    @v_args(meta=True)
    def false(self, meta, c):
        return ast.Const(False, pos=self._pos(meta))

    @v_args(meta=True)
    def list_(self, meta, c):
        return ast.ListExpr(tuple(c[0] or ()), pos=self._pos(meta))

    @v_args(meta=True)
    def listcomp(self, meta, c):
        return ast.ListComp(c[0], pos=self._pos(meta))

    def args(self, c):
        return tuple(c)


def parse(text, what: str = "expression"):
    """Parse rule text (a statement, an expression or bindings) into an AST."""
    if not isinstance(text, str):
        pos = getattr(text, "pos", Pos())
        raise SpecError(f"expected {what} text here, found {type(text).__name__}", pos)
    source = str(text)
    try:
        tree = _parser().parse(source, start=START[what])
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, what) from None
    try:
        return _ToAst(text).transform(tree)
    except VisitError as exc:      # a check inside the transformer: report it, not Lark
        if isinstance(exc.orig_exc, SpecError):
            raise exc.orig_exc from None
        raise


def _syntax_error(exc: UnexpectedInput, text, what: str) -> SpecError:
    offset = getattr(exc, "pos_in_stream", None)
    if isinstance(exc, UnexpectedEOF) or offset is None:
        offset = len(str(text))
    pos = text.pos_at(offset) if isinstance(text, LStr) else Pos("", 1, offset + 1)
    if isinstance(exc, UnexpectedCharacters):
        found = f"character {str(text)[offset]!r}"
    elif isinstance(exc, UnexpectedToken):
        found = "the end of the text" if exc.token.type == "$END" else f"'{exc.token}'"
    else:
        found = "the end of the text"
    expected = sorted({_TOKEN_TEXT.get(t, f"'{t.lower()}'" if t.isupper() else t)
                       for t in (getattr(exc, "expected", None) or getattr(exc, "allowed", ()) or ())})
    hint = f"expected {', '.join(expected[:8])}" if expected else ""
    return SpecError(f"syntax error in {what}: unexpected {found}", pos, hint)


__all__ = ["parse", "Token"]
