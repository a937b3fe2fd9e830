"""Leduc poker (examples/leduc_poker) played move for move against OpenSpiel's C++
`leduc_poker`: the whole game tree and seeded random games in lockstep (at every step the
same player, the same chance outcomes with the same probabilities, the same legal actions
with the same ids and strings; at the end the same returns), information states that
partition states exactly as OpenSpiel's information_state_string does, fixed games (a
fold, a tie, a pair against a higher card), and broken rules that the comparison catches:
the raise limit by the play, a private card shown to both by the information states."""

import json
import random

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
    walk_in_lockstep,
)

SPEC = ROOT / "examples" / "leduc_poker" / "leduc_poker.yaml"

# OpenSpiel's actions (cards: 0 J1, 1 J2, 2 Q1, 3 Q2, 4 K1, 5 K2; Fold 0, Call 1, Raise 2)
# K1 to player 0, J2 to player 1; Raise, Raise, Call; K2 turned up; Call, Call: 0 has a pair
RAISED = [4, 1, 2, 2, 1, 5, 1, 1]
# J1 and J2; Call, Call; Q1 turned up; Raise, Call: both hold jack and queen, a tie
TIED = [0, 1, 1, 1, 2, 2, 1]
# K2 and Q1; Call, Call; J1 turned up; Raise, Raise, Fold: player 0 folds in round 2
FOLDED = [5, 2, 1, 1, 0, 2, 2, 0]
# K1 and J1; Call, Call; J2 turned up; Call, Call: player 1's pair of jacks beats a king
PAIR = [4, 0, 1, 1, 1, 1, 1]


@pytest.fixture(scope="module")
def theirs():
    return pyspiel.load_game("leduc_poker")


@pytest.fixture(scope="module")
def game():
    return load_game(SPEC, recall=True)


@pytest.mark.parametrize("starting_player", [0, 1])
def test_the_whole_game_tree_is_openspiels(starting_player):
    """All 5,520 terminal histories and every node before them (9,457 in all), with
    player 0 betting first (OpenSpiel's default) or player 1: the same moves, the same
    returns, and information states that partition the nodes as OpenSpiel's do, all 936
    of the acting player's among them (OpenSpiel's kNumInfoStates)."""
    ours = load_game(SPEC, recall=True, options={"starting_player": starting_player})
    theirs = pyspiel.load_game("leduc_poker", {"starting_player": starting_player})
    partitions, acting, ends = walk_in_lockstep(ours, theirs)
    assert sum(ends.values()) == 5520 and ends[(0, 0)] == 600
    assert set(ends) == {(x, -x) for x in range(-13, 14, 2)} | {(0, 0)}
    assert len(acting) == 936 and partitions.classes() == 1872


def test_random_games_play_as_openspiel(game, theirs):
    """Every return from -13 to 13 (a fold in either round, a showdown won, lost or tied),
    and the information states met along the way."""
    partitions = Partitions(2)
    outcomes = play_in_lockstep(game, theirs, range(GAMES), partitions=partitions)
    assert {(0, 0), (1, -1), (-1, 1), (13, -13), (-13, 13)} <= outcomes
    assert len(outcomes) >= 12
    print(f"{partitions.classes()} information states met, {partitions.seen} compared")
    assert partitions.classes() > 300


def test_fixed_games_are_openspiels(game, theirs):
    assert play_moves_in_lockstep(game, theirs, RAISED) == (5, -5)
    assert play_moves_in_lockstep(game, theirs, TIED) == (0, 0)
    assert play_moves_in_lockstep(game, theirs, FOLDED) == (-5, 5)
    assert play_moves_in_lockstep(game, theirs, PAIR) == (-1, 1)


def test_fold_only_under_pressure_and_two_raises_at_most(game):
    st = game.new_state(seed=0)
    for label in ["Chance outcome:4", "Chance outcome:1"]:
        st.apply_string(label)
    assert st.legal_action_strings() == ["Call", "Raise"]
    assert [a[-1] for a in st.legal_actions()] == [1, 2]
    st.apply_string("Raise")
    assert st.legal_action_strings() == ["Fold", "Call", "Raise"]
    st.apply_string("Raise")
    assert st.legal_action_strings() == ["Fold", "Call"]
    assert [a[-1] for a in st.legal_actions()] == [0, 1]


def test_the_other_private_card_is_never_seen(game):
    """At every state of every game, a player's observation shows the other player's hand
    as a count, and neither the other's card nor its deal ("Chance outcome:n") appears in
    the player's information state string; the player's own card does, once dealt, and
    so does the public card."""
    names = game.prog.piece_names
    hand = game.prog.zones["hand"].base
    for seed in range(GAMES):
        rng, st = random.Random(seed), game.new_state(seed=seed)
        while True:
            for p in (0, 1):
                obs = st.observation(p)
                assert obs["zones"]["deck"] is None
                assert isinstance(obs["zones"]["hand"][str(1 - p)], dict)
                text = st.information_state_string(p)
                for card in st.slots[hand + 1 - p]:
                    assert f'"{names[card]}"' not in text
                    assert f"Chance outcome:{card}" not in text
                    assert f'"{names[card]}"' not in json.dumps(obs)
                for card in st.slots[hand + p] + st.slots[game.prog.zones["board"].base]:
                    assert f'"{names[card]}"' in text and f"Chance outcome:{card}" in text
            if st.is_terminal():
                break
            acts = st.legal_actions()
            st.apply(acts[int(rng.random() * len(acts))])


def test_a_broken_raise_limit_is_caught(theirs, tmp_path):
    """Three raises a round instead of two: the lockstep comparison must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          data:
            max_raises: {value: 3}
        """, recall=True)
    assert_mutation_caught(broken, theirs, range(GAMES))


def test_a_card_shown_to_both_is_caught(theirs, tmp_path):
    """The private deal made visible to both players (visible_to: removed): the play is
    unchanged, so the lockstep comparison of moves passes, but player 1 now tells apart
    states that OpenSpiel's player 1 cannot, and the partition check fails."""
    broken = mutant(tmp_path, SPEC, """
        override:
          steps:
            deal:
              choose: c in deck
              player: chance
              label: "Chance outcome:{c.number}"
              do:
                - move c to p.hand
        """, recall=True)
    assert_leak_caught(broken, theirs, range(GAMES))


def test_a_deck_shown_to_both_is_caught(theirs, tmp_path):
    """The deck made public: the cards left give away the other's private card. Caught
    by the partition check alone."""
    broken = mutant(tmp_path, SPEC, """
        override:
          zones:
            deck: {kind: stack, visibility: public}
        """, recall=True)
    assert_leak_caught(broken, theirs, range(GAMES))
