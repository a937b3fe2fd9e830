"""A loop's shared parts (compiler/expressions.py, ExprCompiler.shared_parts): a part of
a generator's condition, element or lets that reads none of the generator's own names
is computed once for the loop, the first time an item needs it; a part written twice
that reads them is computed once an item. The values are those of the plain loop, an
error is raised where the plain loop would first meet it (and not where it never
would), and every spec plays the same games either way."""

import textwrap
from contextlib import contextmanager

import pytest

from tabula_rules.compiler import expressions
from tabula_rules.errors import RuleError
from tabula_rules.spec import Spec

from conftest import EXAMPLES, SPEC_FILES
from helpers import random_trail

SPEC = """\
game: {id: s, name: S, source: a test, players: {min: 2, max: 2}, max_steps: 100}
enums:
  colour: [red, blue]
components:
  token:
    name: "{colour} token"
    for_each: {colour: values(colour)}
    count: 9
    zone: bag
zones:
  bag: {kind: row, visibility: public}
  table: {kind: row, visibility: public}
  board: {kind: grid, width: 4, height: 4, visibility: public}
variables:
  zero: {value: 0}
functions:
  reds: {params: [], value: "count(t for t in bag where t.colour == red)"}
  tally_of: {params: [k], value: "count(t for t in bag where t.colour == k)"}
  beyond: {params: [n, k], value: "n > tally_of(k)"}
  ratio: {params: [], value: "reds() // zero"}
  # an argument used inside the function's own loop (inlined without the cache)
  within: {params: [n, m], value: "any(n <= m and t.colour == blue for t in bag)"}
play:
  - choose: t in bag
    label: "{t}"
    do:
      - move t to table
"""


@contextmanager
def sharing(on: bool):
    old = expressions.SHARED_PARTS
    expressions.SHARED_PARTS = on
    try:
        yield
    finally:
        expressions.SHARED_PARTS = old


def game(tmp_path, shared: bool = True, cache: bool = True):
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(SPEC))
    with sharing(shared):
        return Spec(path).game(2, cache=cache)


def evaluate(tmp_path, text: str, shared: bool = True, cache: bool = True):
    """The expression's value on a new state (compiled with shared parts or without),
    and the items its loops counted."""
    g = game(tmp_path, shared, cache)
    st = g.new_state(seed=0)
    with sharing(shared):
        fn = g.prog.compile_expression(text)
    value = fn(st)            # an evaluation starts the budget afresh (State._computed)
    return value, g.prog.work[0]


EXPRESSIONS = [
    "count(n for n in [1, 2, 3, 4, 5, 6, 7, 8] where n <= reds())",
    "[n for n in [1, 2, 3, 4, 5, 6, 7, 8] where n <= count(t for t in bag where t.colour == blue)]",
    "sum(n * reds() for n in [1, 2, 3])",
    "any(n > 3 and beyond(n, red) for n in [1, 2, 3, 4])",
    "first(n for n in [9, 8, 7] where n > reds() + tally_of(blue) - 10, 0)",
    "max(tally_of(k) for k in values(colour))",
    "count(n for n in [1, 2, 3, 4] where tally_of(red) > n and tally_of(red) < 20)",
    "count(n for n in [1, 5, 9, 12] where within(n, reds()))",
    "distance_to(c from board[0, 0] to c == board[3, 3] where size(c) == 0 and reds() > 0)",
]


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("text", EXPRESSIONS)
def test_the_same_values_as_the_plain_loop(tmp_path, text, cache):
    shared, _ = evaluate(tmp_path, text, True, cache)
    plain, _ = evaluate(tmp_path, text, False, cache)
    assert shared == plain


def test_an_invariant_part_is_computed_once(tmp_path):
    """8 numbers, each compared with the count of 18 pieces: 8 + 18 items counted, not
    8 + 8 x 18."""
    text = "count(n for n in [1, 2, 3, 4, 5, 6, 7, 8] where n <= count(t for t in bag))"
    value, work = evaluate(tmp_path, text)
    plain, plain_work = evaluate(tmp_path, text, False)
    assert value == plain == 8
    assert (work, plain_work) == (8 + 18, 8 + 8 * 18)


def test_a_path_search_computes_its_invariant_parts_once(tmp_path):
    """The count of the 18 pieces: once for the search, not once for every cell it tests
    (the search's own items, the cells' neighbours, are the same both ways)."""
    text = "distance_to(c from board[0, 0] to c == board[3, 3] where count(t for t in bag) > 0)"
    value, work = evaluate(tmp_path, text)
    plain, plain_work = evaluate(tmp_path, text, False)
    assert value == plain == 6
    tested = (plain_work - work) // 18 + 1
    assert plain_work - work == 18 * (tested - 1) and tested >= 10


def test_a_repeated_part_is_computed_once_an_item(tmp_path):
    text = "count(n for n in [1, 2, 3, 4] where count(t for t in bag where n > 2) > 0 " \
           "and count(t for t in bag where n > 2) < 99)"
    value, work = evaluate(tmp_path, text)
    plain, plain_work = evaluate(tmp_path, text, False)
    assert value == plain == 2
    assert (work, plain_work) == (4 + 4 * 18, 4 + 6 * 18)


def test_a_part_no_item_needs_is_never_computed(tmp_path):
    """ratio() divides by zero: the plain loop never reaches it, nor does the shared one;
    where an item reaches it, both raise the same error."""
    for shared in (True, False):
        never = "any(n > 5 and ratio() > 0 for n in [1, 2, 3])"
        assert evaluate(tmp_path, never, shared)[0] is False
        with pytest.raises(RuleError, match="division by zero"):
            evaluate(tmp_path, "any(n > 2 and ratio() > 0 for n in [1, 2, 3])", shared)


@pytest.mark.parametrize("path", SPEC_FILES + EXAMPLES, ids=lambda p: p.stem)
def test_every_spec_plays_the_same_games(path):
    lo, _ = Spec(path).player_range
    after = Spec(path).game(lo)
    if "B_once(" not in after.prog.module.source():
        return                           # no shared part: the plain loops, as before
    with sharing(False):
        before = Spec(path).game(lo)
    assert "B_once(" not in before.prog.module.source()
    assert random_trail(after, 0) == random_trail(before, 0)
