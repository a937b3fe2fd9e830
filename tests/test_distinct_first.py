"""A `distinct` choice whose `where` reads the bindings only through their distinct key
(a piece's attributes, a value itself) is thinned first and tests the condition once per
key (decisions.py, Decisions._key_only); any other condition is tested on every
candidate. Either way the legal actions are those of the old listing, in its order."""

import re
import textwrap

import pytest

from tabula_rules.compiler import decisions
from tabula_rules.spec import Spec

from conftest import EXAMPLES, SPEC_FILES
from helpers import random_trail

SPEC = """\
game: {id: d, name: D, source: none, players: {min: 2, max: 2}, max_steps: 100}
enums:
  colour: [red, blue]
components:
  token:
    name: "{colour} token"
    for_each: {colour: values(colour)}
    count: 3
    zone: hand
zones:
  hand: {kind: row, visibility: public}
  table: {kind: row, visibility: public}
functions:
  fits:
    params: [t]
    value: t.colour == red or any(u.colour == t.colour for u in table)
  late:
    params: [t]
    value: level(t) > 0 or any(u.colour == t.colour for u in table)
play:
  - choose: t in hand where %s
    distinct: true
    label: "{t}"
    do:
      - move t to table
"""


def game(tmp_path, cond: str, thin_first: bool = True):
    path = tmp_path / "d.yaml"
    path.write_text(textwrap.dedent(SPEC % cond))
    old = decisions._THIN_FIRST
    decisions._THIN_FIRST = thin_first
    try:
        return Spec(path).game(2)
    finally:
        decisions._THIN_FIRST = old


def counted(g, function: str) -> list:
    """Wraps the generated function of a spec function to count its calls."""
    ns = g.prog.module.ns
    name = re.search(rf"def (\w+)\(st.*# function {function}\n", g.prog.module.source())[1]
    calls = []
    inner = ns[name]

    def wrapper(*args):
        calls.append(args)
        return inner(*args)
    ns[name] = wrapper
    return calls


def test_a_condition_on_the_kind_is_tested_once_per_kind(tmp_path):
    for thin_first, expected in ((True, 2), (False, 6)):
        g = game(tmp_path, "fits(t)", thin_first)
        calls = counted(g, "fits")
        st = g.new_state(seed=0)
        assert st.legal_action_strings() == ["red token"]
        assert len(calls) == expected


def test_a_condition_on_the_place_is_tested_on_every_piece(tmp_path):
    """level(t) reads where the piece lies: the first red token (level 0) fails, the
    second passes and stands for its kind, as it always did."""
    g = game(tmp_path, "late(t)")
    assert "seen = set()" in g.prog.module.source()
    calls = counted(g, "late")
    st = g.new_state(seed=0)
    old = game(tmp_path, "late(t)", False).new_state(seed=0)
    assert st.legal_actions() == old.legal_actions()
    assert len(st.legal_actions()) == 2 and len(calls) == 6


@pytest.mark.parametrize("path", SPEC_FILES + EXAMPLES, ids=lambda p: p.stem)
def test_every_spec_lists_the_same_actions_as_before(path):
    lo, _ = Spec(path).player_range
    old = decisions._THIN_FIRST
    try:
        decisions._THIN_FIRST = False
        before = Spec(path).game(lo)
    finally:
        decisions._THIN_FIRST = old
    after = Spec(path).game(lo)
    for seed in (0, 1):
        assert random_trail(after, seed) == random_trail(before, seed)
