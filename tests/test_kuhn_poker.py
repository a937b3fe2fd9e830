"""Kuhn poker (examples/kuhn_poker) played move for move against OpenSpiel's C++
`kuhn_poker`: the whole game tree and seeded random games in lockstep (at every step the
same player, the same chance outcomes with the same probabilities, the same legal actions
with the same ids and strings; at the end the same returns), information states that
partition states exactly as OpenSpiel's information_state_string does, fixed games, the
other player's card never in sight, and broken rules that the comparison catches: one by
the play, two (a private card shown to both players) by the information states alone."""

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

SPEC = ROOT / "examples" / "kuhn_poker" / "kuhn_poker.yaml"

# OpenSpiel's actions: deal 2 (K) to player 0, 0 (J) to player 1; Pass, Bet, Bet (call)
CALLED = [2, 0, 0, 1, 1]
# deal 0 (J) to player 0, 1 (Q) to player 1; Pass, Bet, Pass (player 0 folds)
FOLDED = [0, 1, 0, 1, 0]


@pytest.fixture(scope="module")
def theirs():
    return pyspiel.load_game("kuhn_poker")


@pytest.fixture(scope="module")
def game():
    return load_game(SPEC, recall=True)


def test_the_whole_game_tree_is_openspiels(game, theirs):
    """Every one of the 30 terminal histories (6 deals x 5 betting sequences) and every
    node before them: the same moves, the same returns, and information states that
    partition the nodes as OpenSpiel's do, all 12 of the acting player's among them
    (OpenSpiel's kNumInfoStatesP0 + kNumInfoStatesP1)."""
    partitions, acting, ends = walk_in_lockstep(game, theirs)
    assert ends == {(1, -1): 9, (-1, 1): 9, (2, -2): 6, (-2, 2): 6}
    assert len(acting) == 12 and partitions.classes() == 24


def test_random_games_play_as_openspiel(game, theirs):
    """Every outcome of Kuhn poker is compared (a showdown without a bet, +-1; a called
    bet, +-2; a fold, +-1; either player winning), and every information state of both
    players is met: 3 cards x 4 betting histories ("", p, b, pb) each, 24 in all."""
    partitions = Partitions(2)
    outcomes = play_in_lockstep(game, theirs, range(GAMES), partitions=partitions)
    assert outcomes == {(1, -1), (-1, 1), (2, -2), (-2, 2)}
    print(f"{partitions.classes()} information states met, {partitions.seen} compared")
    assert partitions.classes() == 24


def test_fixed_games_are_openspiels(game, theirs):
    assert play_moves_in_lockstep(game, theirs, CALLED) == (2, -2)
    assert play_moves_in_lockstep(game, theirs, FOLDED) == (-1, 1)


def test_the_deal_and_the_first_decision(game, theirs):
    st, os_st = game.new_state(seed=0), theirs.new_initial_state()
    assert st.is_chance_node() and os_st.is_chance_node()
    assert [(a[-1], p) for a, p in st.chance_outcomes()] == os_st.chance_outcomes()
    assert st.legal_action_strings() == [os_st.action_to_string(-1, a)
                                         for a in os_st.legal_actions()] == \
        ["Deal:0", "Deal:1", "Deal:2"]
    st.apply_string("Deal:1")
    assert [a[-1] for a, _ in st.chance_outcomes()] == [0, 2]
    st.apply_string("Deal:2")
    assert st.current_player() == 0
    assert st.legal_action_strings() == ["Pass", "Bet"]
    assert [a[-1] for a in st.legal_actions()] == [0, 1]


def test_the_other_private_card_is_never_seen(game):
    """At every state of every game, a player's observation shows the other player's hand
    as a count, and neither the other's card nor its deal ("Deal:n") appears in the
    player's information state string; the player's own card does, once dealt."""
    names = game.prog.piece_names
    for seed in range(GAMES):
        rng, st = random.Random(seed), game.new_state(seed=seed)
        while True:
            for p in (0, 1):
                other = 1 - p
                obs = st.observation(p)
                assert obs["zones"]["deck"] is None
                assert isinstance(obs["zones"]["hand"][str(other)], dict)
                text = st.information_state_string(p)
                for card in st.slots[st.prog.zones["hand"].base + other]:
                    assert f'"{names[card]}"' not in text and f"Deal:{card}" not in text
                    assert f'"{names[card]}"' not in json.dumps(obs)
                for card in st.slots[st.prog.zones["hand"].base + p]:
                    assert f'"{names[card]}"' in text and f"Deal:{card}" in text
            if st.is_terminal():
                break
            acts = st.legal_actions()
            st.apply(acts[int(rng.random() * len(acts))])


def test_a_broken_rule_is_caught(theirs, tmp_path):
    """Passing after a bet does not fold (the bettor no longer wins by it): the lockstep
    comparison of the returns must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            wins:
              params: [p]
              value: card_of(p) == max(card_of(q) for q in players)
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
              label: "Deal:{c.number}"
              do:
                - move c to p.hand
        """, recall=True)
    assert_leak_caught(broken, theirs, range(GAMES))


def test_a_hand_shown_to_both_is_caught(theirs, tmp_path):
    """The hands made public (the deal itself still hidden): caught by the partition
    check alone too."""
    broken = mutant(tmp_path, SPEC, """
        override:
          zones:
            hand: {kind: set, per_player: true, visibility: public}
        """, recall=True)
    assert_leak_caught(broken, theirs, range(GAMES))
