"""Liar's dice (examples/liars_dice) played move for move against OpenSpiel's C++
`liars_dice` (default parameters: two players, one six-sided die each, "reset-face"):
seeded random games in lockstep (at every chance node the same outcomes with the same
probabilities, at every decision the same player, the same legal actions with the same
ids and strings; at the end the same returns), information states that tell apart exactly
what OpenSpiel's information_state_string tells apart, one game from a fixed list of
OpenSpiel's actions, a broken rule and a visibility mistake that the comparison catches,
and a die that its owner's opponent never sees."""

import json

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import (
    GAMES,
    Partitions,
    assert_leak_caught,
    assert_mutation_caught,
    mutant,
    play_in_lockstep,
    play_moves_in_lockstep,
)

SPEC = ROOT / "examples" / "liars_dice" / "liars_dice.yaml"


@pytest.fixture(scope="module")
def theirs():
    return pyspiel.load_game("liars_dice")


@pytest.fixture(scope="module")
def game():
    return load_game(SPEC, recall=True)


def test_random_games_play_as_openspiel(game, theirs):
    """GAMES games, information states partitioned as OpenSpiel's at every decision;
    both a call won by the caller and one won by the bidder (there are no draws)."""
    parts = Partitions(2)
    callers = set()

    def check(st, os_st):
        if os_st.is_terminal():
            # who called (the player after the last bidder) and whether they won
            callers.add(st.returns()[1 - st.observation(0)["variables"]["bidder"]])

    outcomes = play_in_lockstep(game, theirs, range(GAMES), check=check, partitions=parts)
    assert outcomes == {(1, -1), (-1, 1)}
    assert callers == {1, -1}
    print(f"liars_dice: {GAMES} games, {parts.seen} information states compared, "
          f"{parts.classes()} distinct")
    assert parts.classes() > 400 if GAMES >= 200 else parts.classes() > 0


def test_a_game_from_openspiels_actions(game, theirs):
    """The dice show 3 and 6; player 0 bids one 5, player 1 two 6s, player 0 calls: only
    the 6 matches, so the caller wins. Each player's information state is their die and
    the bids."""
    def check(st, os_st):
        if os_st.is_chance_node():
            return
        for p in range(2):
            info = st.information_state(p)
            mine = info["observation"]["player_variables"]["face"]
            assert list(mine) == [str(p)] and os_st.information_state_string(p).startswith(
                str(mine[str(p)]))
            bids = [e["action"] for e in info["history"] if e["player"] != "chance"]
            assert os_st.information_state_string(p).split()[1:] == bids

    assert play_moves_in_lockstep(game, theirs, [2, 5, 4, 11, 12], check=check) == (1, -1)


def test_a_broken_rule_is_caught(theirs, tmp_path):
    """The 6s not wild: the lockstep comparison must fail (on the returns)."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            matches:
              params: [f]
              value: count(p for p in players where p.face == f)
        """)
    assert_mutation_caught(broken, theirs, range(GAMES))


@pytest.mark.parametrize("change", [
    # the roll shown to both players in the information state's history
    """
    override:
      steps:
        roll.die:
          choose: k in range(0, sides - 1)
          player: chance
          label: "Roll {k + 1}"
          do:
            - p.face = k + 1
    """,
    # the die's face a public variable
    """
    override:
      variables:
        face: {value: 0, per_player: true, visibility: public}
    """,
], ids=["roll-seen-by-both", "face-public"])
def test_a_visibility_mistake_is_caught(theirs, tmp_path, change):
    """A die seen by both players: the games still play as OpenSpiel's, but the
    information states tell apart what OpenSpiel's do not."""
    leaky = mutant(tmp_path, SPEC, change, recall=True)
    assert_leak_caught(leaky, theirs, range(GAMES), play_seeds=range(20))


def test_the_other_players_die_never_shows(game):
    """Whatever player 1 rolled, player 0's observation and information state are the
    same, at every point of the same bidding (and the other way round)."""
    bids = [1, 7, 9, 11, 12]                 # 1-2, 2-2, 2-4, 2-6, then Liar
    for mine in range(6):
        for p in range(2):
            seen = set()
            for other in range(6):
                st = game.new_state(seed=0)
                rolls = [mine, other] if p == 0 else [other, mine]
                views = []
                for roll in rolls:
                    st.apply(st.legal_actions()[roll])
                views.append(st.information_state_string(p))
                for b in bids:
                    [act] = [a for a in st.legal_actions() if a[-1] == b]
                    st.apply(act)
                    views.append(st.information_state_string(p))
                    views.append(json.dumps(st.observation(p), sort_keys=True))
                seen.add(tuple(views[:-2]))     # the end shows who won the call
                text = " ".join(views)
                assert f"Roll {other + 1}" not in text or other == mine
            assert len(seen) == 1, (mine, p)
