"""can_choose(id, p): a decision asked from elsewhere (an `until`, a condition) lists as
it would on p's turn, and the decision, reached in the same state, takes that listing
instead of listing again. The same games as the condition written out by hand, with facts
on and off; errors located at the call."""

from __future__ import annotations

import pytest

from tabula_rules.errors import RuleError, SpecError
from tabula_rules.spec import Spec

from helpers import random_trail, write

FENCE = """\
game: {id: fence, name: Fence, source: none, players: {min: 2, max: 3}, max_steps: 5000}
components:
  stone:
    name: "s{seat}"
    for_each: {seat: "[0, 1, 2]"}
    count: 6
    attributes: {seat: seat}
    zone: supply
zones:
  supply: {kind: set, visibility: public}
  board: {kind: grid, width: 4, height: 4, visibility: public}
functions:
  # reads whose turn it is, and walks the board: a kept fact, stale at a new turn
  mine:
    params: []
    value: count(t for t in board where t.seat == current)
  open_for:
    params: [c, p]
    value: >-
      size(c) == 0 and not any(size(n) > 0 and top(n).seat == p for n in adjacent(c))
  WRITTEN_OUT
play:
  - id: turn
    turns:
      first: 0
      until: UNTIL
    do:
      - id: turn.place
        choose: c in cells(board) where open_for(c, current) and mine() < 6
        do:
          - move first(s for s in supply where s.seat == current) to c
        else: []
scoring:
  points:
    stones: {value: "count(t for t in board where t.seat == player)"}
"""
ASKED = "not can_choose('turn.place', next_player(current))"
BY_HAND = "not can_place(next_player(current))"
CAN_PLACE = """can_place:
    params: [p]
    value: >-
      any(open_for(c, p) and count(t for t in board where t.seat == p) < 6
          for c in cells(board))"""


def fence(until: str = ASKED, written_out: str = CAN_PLACE) -> str:
    return FENCE.replace("UNTIL", until).replace("WRITTEN_OUT", written_out)


def game(tmp_path, text, players=2, cache=True, name="fence.yaml"):
    return Spec(write(tmp_path, text, name)).game(players, cache=cache)


@pytest.mark.parametrize("players", [2, 3])
def test_the_same_games_as_the_condition_written_out(tmp_path, players):
    """Every decision, its player and legal actions, and the scores: can_choose against
    the same condition written as any(...), with facts on and off."""
    trails = [random_trail(game(tmp_path, fence(until), players, cache, f"{i}.yaml"), seed)
              for seed in range(12)
              for i, (until, cache) in enumerate([(ASKED, True), (ASKED, False),
                                                  (BY_HAND, True)])]
    for seed in range(12):
        asked, off, by_hand = trails[3 * seed:3 * seed + 3]
        assert asked == off == by_hand
    assert len({len(t) for t in trails}) > 1          # the games differ between seeds


def test_the_decision_takes_the_listing_the_until_made(tmp_path):
    """After a move the until lists turn.place for the next player; the decision, on that
    player's turn in the same state, takes those very actions (the same objects)."""
    g = game(tmp_path, fence())
    st = g.new_state(seed=0)
    key = next(k for k in g.prog.facts.kept if k.startswith("listing:"))
    assert key not in g.prog.turn_facts               # kept across the turn's change
    st.apply(st.legal_actions()[0])
    kept = st.facts[key][st.current]
    assert len(kept) == len(st.pending.actions) > 0
    assert all(a is b for a, b in zip(kept, st.pending.actions))


def test_a_listing_for_another_player_leaves_no_fact_of_the_wrong_turn(tmp_path):
    """mine() reads whose turn it is, and is kept: listed for the next player inside the
    until, its value must not stay kept for the player whose turn it still is."""
    g = game(tmp_path, fence(ASKED + " and mine() >= 0"))
    direct = g.prog.compile_expression("count(t for t in board where t.seat == current)")
    after = g.prog.compile_expression(
        "[can_choose('turn.place', next_player(current)), mine()][1]")
    st = g.new_state(seed=0)
    for _ in range(5):
        st.apply(st.legal_actions()[0])
        assert after(st) == direct(st)


@pytest.mark.parametrize("until, message", [
    ("not can_choose('turn.plaec', current)", "no decision step has the id 'turn.plaec'"),
    ("not can_choose(turn, current)", "names a decision by its id, as a text"),
    ("not can_choose('turn.place')", "takes 2 arguments"),
    ("not can_choose('turn.place', 'x')", "asks for a player"),
])
def test_a_wrong_can_choose_is_a_located_error(tmp_path, until, message):
    text = fence(until)
    with pytest.raises(SpecError) as err:
        game(tmp_path, text)
    assert message in err.value.message
    assert err.value.pos.line == text.splitlines().index(f"      until: {until}") + 1


def test_a_decision_that_reads_the_rule_s_values_cannot_be_asked(tmp_path):
    text = fence().replace("      - id: turn.place\n        choose: c in cells(board) where",
                           "      - let k = 1\n      - id: turn.place\n"
                           "        choose: c in cells(board) where k == 1 and")
    with pytest.raises(SpecError, match="reads the rule's own values"):
        game(tmp_path, text)


def test_a_player_outside_the_game_is_a_rule_error(tmp_path):
    g = game(tmp_path, fence("not can_choose('turn.place', current + 5)"))
    st = g.new_state(seed=0)
    with pytest.raises(RuleError, match="asks for player 5"):
        st.apply(st.legal_actions()[0])
