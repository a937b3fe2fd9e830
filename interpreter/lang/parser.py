"""Rule text to AST.

Input: a string scalar from a spec (an LStr that knows its file position) and what it
should be (a statement, an expression or bindings). Output: an AST (interpreter/lang/ast.py)
whose every node carries its file, line and column. Syntax errors become SpecErrors at
the offending character with the tokens that were expected there.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from ..errors import Pos, SpecError, fail
from . import ast
from .loader import LStr

# bounds on one rule text, checked before the recursive stages (transformer, checker,
# compiler) walk it: a deeper text is refused with its position, not a RecursionError
MAX_RULE_DEPTH = 100         # nesting of operators, calls, attributes, indexing
MAX_INT_DIGITS = 18          # digits of a number written in a rule (below 10**18)
MAX_RULE_CHARS = 10_000      # characters of one rule text
MAX_SPEC_RULE_CHARS = 200_000    # characters of rule text parsed to compile one spec
PARSED_CHARS = 100_000       # characters of the rule texts whose parse trees are kept
                             # (_Trees: some 45 MB at the most)

# .left: characters left to parse in this thread's compile under way (parse_budget), or
# None outside one: per thread, so two specs compiled at once in two threads each have
# their own
_budget = threading.local()


@contextmanager
def parse_budget(limit: int = MAX_SPEC_RULE_CHARS):
    """Bound the rule text parsed inside the block (one compile of a spec): parsing costs
    about 20 microseconds a word, so a spec of nothing but rule text would take half a
    minute to compile without it."""
    old, _budget.left = getattr(_budget, "left", None), limit
    try:
        yield
    finally:
        _budget.left = old

# words of the language: never names, even where the lexer would let them be one
KEYWORDS = frozenset("""move to bottom of shuffled swap with shuffle refill from end game call let
    in where while for if then else and or not none true false after next""".split())

START = {"statement": "start_statement", "expression": "start_expression",
         "bindings": "start_bindings"}

# readable names for the grammar's anonymous terminals, in expected-token hints
_TOKEN_TEXT = {
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','",
    "DOT": "'.'", "NAME": "a name", "INT": "a number", "STRING": "a string",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/', '//' or '%'",
    "ASSIGN_OP": "'=', '+=' or '-='", "EQUAL": "'='", "MINUS": "'-'", "$END": "the end",
    "STEP": "'->'",
}


def grammar_path() -> Path:
    here = Path(__file__).resolve().parent.parent     # the package (lang/ is one of its rooms)
    for candidate in (here / "grammar", here.parent / "grammar"):
        if (candidate / "tabula.lark").is_file():
            return candidate / "tabula.lark"
    raise FileNotFoundError("grammar/tabula.lark is missing from the installation")


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(grammar_path().read_text(encoding="utf-8"), parser="lalr",
                start=list(START.values()), propagate_positions=True,
                maybe_placeholders=True)


class _Trees:
    """Lark's trees of the rule texts parsed last, by text (and start rule), within a
    budget of their texts' characters (a tree takes up to some 450 bytes a character),
    of texts of at most `longest` characters:
    a spec's variants, the specs a run compiles again in its workers and the specs a tool
    compiles over and over share most of their rule texts, and the LALR parse is most of
    compiling them. A tree is never changed (the AST is built from it, with the
    positions of the text at hand); a text that fails is parsed again, to report where.
    Safe across threads (a lock)."""

    def __init__(self, chars: int, longest: int):
        self.chars, self.longest, self.held = chars, longest, 0
        self.trees: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def parse(self, source: str, start: str) -> Tree:
        key = (source, start)
        with self.lock:
            tree = self.trees.get(key)
            if tree is not None:
                self.trees.move_to_end(key)
                return tree
        tree = _parser().parse(source, start=start)
        if len(source) <= self.longest:
            with self.lock:
                if key not in self.trees:
                    self.trees[key] = tree
                    self.held += len(source)
                    while self.held > self.chars:
                        (old, _), _ = self.trees.popitem(last=False)
                        self.held -= len(old)
        return tree


_TREES = _Trees(PARSED_CHARS, PARSED_CHARS // 100)


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

    def _local(self, token) -> str:
        """A name the rule text defines (a let, a binding, a generator's variable): never
        a word of the language, which could then not be read."""
        name = str(token)
        if name in KEYWORDS:
            fail(f"'{name}' is a word of the language and cannot name a local",
                 self._pos(token), "choose another name")
        return name

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
        (name, name_pos), args = c[0], (c[1] if len(c) > 1 else None)
        return ast.Call(name, tuple(args or ()), name_pos, pos=self._pos(meta))

    def rule_name(self, c):
        return ".".join(str(t) for t in c), self._pos(c[0])

    @v_args(meta=True)
    def next_turn(self, meta, c):
        return ast.NextTurn(c[0], pos=self._pos(meta))

    @v_args(meta=True)
    def let(self, meta, c):
        return ast.Let(self._local(c[0]), c[1], pos=self._pos(meta))

    @v_args(meta=True)
    def assign(self, meta, c):
        target, op, value = c
        if not isinstance(target, (ast.Name, ast.Attr, ast.Index)):
            fail("only a variable or a player's variable can be assigned to",
                 target.pos, "write NAME = value, p.NAME = value or p.NAME[k] = value")
        return ast.Assign(target, str(op), value, pos=self._pos(meta))

    # -- bindings
    @v_args(meta=True)
    def bindings(self, meta, c):
        *items, take, cond = c
        return ast.Bindings(tuple(items), cond, take, pos=self._pos(meta))

    @v_args(meta=True)
    def binding(self, meta, c):
        return ast.Binding(self._local(c[0]), c[1], pos=self._pos(meta))

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
    def slice(self, meta, c):
        return ast.Slice(c[0], c[1], c[2], pos=self._pos(meta))

    @v_args(meta=True)
    def index2(self, meta, c):
        return ast.Index2(c[0], c[1], c[2], pos=self._pos(meta))

    @v_args(meta=True)
    def region(self, meta, c):
        return ast.Region(str(c[0]), self._local(c[1]), c[2], c[3], pos=self._pos(meta))

    @v_args(meta=True)
    def path(self, meta, c):
        name, *names, start, goal, cond = c
        prev = self._local(names[0]) if len(names) == 3 else None
        var = self._local(names[-1])
        if var == prev:
            fail(f"a step goes from one cell to another: '{prev} -> {var}' names both "
                 "the same", self._pos(names[-1]), f"write {prev} -> b")
        return ast.Path(str(name), var, start, goal, cond, prev, pos=self._pos(meta))

    @v_args(meta=True)
    def func(self, meta, c):
        return ast.Func(str(c[0]), tuple(c[1] or ()), pos=self._pos(meta))

    @v_args(meta=True)
    def aggregate(self, meta, c):
        return ast.Aggregate(str(c[0]), c[1], c[2], pos=self._pos(meta))

    @v_args(meta=True)
    def generator(self, meta, c):
        elt, var, source, take, cond, lets = c
        return ast.Generator(elt, self._local(var), source, cond, tuple(lets or ()), take,
                             pos=self._pos(meta))

    def lets(self, c):
        return tuple(c)

    def let_values(self, c):
        return tuple(c)

    def let_value(self, c):
        return (self._local(c[0]), c[1])

    @v_args(meta=True)
    def let_in(self, meta, c):
        return ast.LetIn(c[0], c[1], pos=self._pos(meta))

    def effects(self, c):
        return tuple(c)

    @v_args(meta=True)
    def after(self, meta, c):
        return ast.After(c[0], c[1], pos=self._pos(meta))

    def let_binding(self, c):
        return (self._local(c[0]), c[1])

    @v_args(meta=True)
    def name(self, meta, c):
        if str(c[0]) in KEYWORDS:
            fail(f"unexpected '{c[0]}'", self._pos(meta),
                 f"'{c[0]}' is a word of the language, not a name: is it written "
                 "twice, or is something missing before it?")
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
        fail(f"expected {what} text here, found {type(text).__name__}", pos)
    source = str(text)
    if len(source) > MAX_RULE_CHARS:
        fail(f"a rule text of {len(source)} characters; one may hold at most "
             f"{MAX_RULE_CHARS}", _pos_in(text, 0),
             "split it with functions, rules or let (docs/language.md 9)")
    left = getattr(_budget, "left", None)
    if left is not None:
        _budget.left = left = left - len(source)
        if left < 0:
            fail(f"the spec's rule texts add up to more than "
                 f"{MAX_SPEC_RULE_CHARS} characters", _pos_in(text, 0),
                 "a spec this large is refused, to keep compiling bounded")
    try:
        tree = _TREES.parse(source, START[what])
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, what) from None
    _check_bounds(tree, text, what)
    try:
        return _ToAst(text).transform(tree)
    except VisitError as exc:      # a check inside the transformer: report it, not Lark
        if isinstance(exc.orig_exc, SpecError):
            raise exc.orig_exc from None
        raise
    except RecursionError:         # pragma: no cover - _check_bounds keeps trees shallow
        fail(f"the {what} nests too deeply", _pos_in(text, 0))


def _pos_in(text, offset: int) -> Pos:
    return text.pos_at(offset) if isinstance(text, LStr) else Pos("", 1, offset + 1)


def _check_bounds(tree, text, what: str) -> None:
    """Refuse a tree nesting deeper than MAX_RULE_DEPTH and a number longer than
    MAX_INT_DIGITS, walking it without recursion, before anything recursive sees it."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Token):
            if node.type == "INT" and len(node) > MAX_INT_DIGITS:
                fail(f"a number of {len(node)} digits in the {what}",
                     _pos_in(text, node.start_pos or 0),
                     f"a number in a rule has at most {MAX_INT_DIGITS} digits")
            continue
        if not isinstance(node, Tree):
            continue
        if depth > MAX_RULE_DEPTH:
            offset = getattr(node.meta, "start_pos", None) if not node.meta.empty else None
            fail(f"the {what} nests deeper than {MAX_RULE_DEPTH} levels",
                 _pos_in(text, offset or 0),
                 "split it with functions or let, or write a long sum with "
                 "sum() over a list")
        stack.extend((child, depth + 1) for child in node.children)


def _syntax_error(exc: UnexpectedInput, text, what: str) -> SpecError:
    source = str(text)
    offset = getattr(exc, "pos_in_stream", None)
    at_end = isinstance(exc, UnexpectedEOF) or offset is None or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END")
    if at_end or offset is None:     # (at_end holds when offset is None: said for mypy)
        offset = len(source.rstrip())
        found = "unexpected end of the text"
    elif isinstance(exc, UnexpectedCharacters):
        found = f"unexpected character {source[offset]!r}"
    else:
        assert isinstance(exc, UnexpectedToken)     # lark's third kind of UnexpectedInput
        found = f"unexpected '{exc.token}'"
        # a keyword read as a name just before ("to to", "and and"): point at it
        m = re.search(r"([A-Za-z][A-Za-z0-9_]*)\s*$", source[:offset])
        if m and m.group(1) in KEYWORDS and str(exc.token) not in KEYWORDS:
            prev = source[:m.start(1)].split()
            if prev and prev[-1] == m.group(1):
                offset, found = m.start(1), f"unexpected '{m.group(1)}'"
    pos = text.pos_at(offset) if isinstance(text, LStr) else Pos("", 1, offset + 1)
    expected = getattr(exc, "expected", None) or getattr(exc, "allowed", ()) or ()
    words = sorted({t.strip('"').lower() for t in expected
                    if t.strip('"').lower() in KEYWORDS or t in _KEYWORD_TERMINALS})
    symbols = sorted({_TOKEN_TEXT.get(t, t) for t in expected
                      if t not in _KEYWORD_TERMINALS and t.strip('"').lower() not in KEYWORDS})
    listed = [f"'{w}'" for w in words] + symbols
    hint = f"expected {', '.join(listed[:14])}" if listed else ""
    return SpecError(f"syntax error in {what}: {found}", pos, hint)


_KEYWORD_TERMINALS = frozenset(k.upper() for k in KEYWORDS) | {"SHUFFLED"}


__all__ = ["parse", "Token"]
