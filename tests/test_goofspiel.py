"""Goofspiel (examples/goofspiel) played move for move against OpenSpiel's C++ `goofspiel`
(default parameters: two players, 13 cards, random point order, win/loss returns,
imp_info false; and the options num_cards and imp_info): seeded random games in lockstep
(at every chance node the same point cards with the same probabilities, at every
simultaneous node each player's legal bids with the same ids and strings, a random joint
bid applied to both; at the end the same returns), information states partitioned as
OpenSpiel's, one game from a fixed list of OpenSpiel's actions, a broken rule and
visibility mistakes that the comparison catches, and bids that nobody sees before they
are revealed (or, with imp_info, ever).

OpenSpiel's information state of the imp_info false game forgets the order of the bids
(it holds the point cards dealt, both hands, who won each round and the points); Tabula's
has perfect recall. The two partitions are the same once the order of the bids is
forgotten (OrderForgotten), and the same outright in the random games of 13 cards, where
two games that differ only in that order do not meet; test_openspiel_forgets_the_order
shows such a pair."""

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

SPEC = ROOT / "examples" / "goofspiel" / "goofspiel.yaml"
ALL = {(1, -1), (-1, 1), (0, 0)}


def load(options=None, recall=True):
    return load_game(SPEC, options=options, recall=recall)


def theirs(options=None):
    return pyspiel.load_game("goofspiel", options or {})


class _OrderForgotten:
    """A state whose information state strings forget the order of the bids: the bids
    leave the history, and every list of cards on the table is sorted."""

    def __init__(self, st):
        self.st = st

    def information_state_string(self, p) -> str:
        info = self.st.information_state(p)
        info["history"] = [e for e in info["history"] if e["rule"] != "step:round.bid"]
        info["observation"]["zones"] = {name: _sorted(z) for name, z in
                                        info["observation"]["zones"].items()}
        return json.dumps(info, sort_keys=True)


def _sorted(view):
    if isinstance(view, list):
        return sorted(view)
    if isinstance(view, dict):
        return {k: _sorted(v) for k, v in view.items()}
    return view


class OrderForgotten(Partitions):
    """Partitions (openspiel_util) of Tabula's information states with the order of the
    bids forgotten, as OpenSpiel's information state of the imp_info false game forgets
    it."""

    def see(self, st, os_st) -> None:
        super().see(_OrderForgotten(st), os_st)


# ---- lockstep -------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{}, {"imp_info": True}], ids=["default", "imp_info"])
def test_random_games_play_as_openspiel(options):
    """GAMES games of 13 cards: wins, losses and draws compared, and the information
    states partitioned as OpenSpiel's at every decision."""
    parts = Partitions(2)
    outcomes = play_in_lockstep(load(options), theirs(options), range(GAMES),
                                partitions=parts)
    assert outcomes == ALL
    print(f"goofspiel {options}: {GAMES} games, {parts.seen} information states "
          f"compared, {parts.classes()} distinct")
    assert parts.classes() > 10 * GAMES


@pytest.mark.parametrize("num_cards", [2, 3, 4, 6])
@pytest.mark.parametrize("imp_info", [False, True])
def test_fewer_cards_play_as_openspiel(num_cards, imp_info):
    """Small games meet the same information states again and again: a sharper test of
    the partitions (with imp_info false, of the partitions with the order of the bids
    forgotten, as OpenSpiel's forget it)."""
    options = {"num_cards": num_cards, "imp_info": imp_info}
    parts = Partitions(2) if imp_info else OrderForgotten(2)
    outcomes = play_in_lockstep(load(options), theirs(options), range(GAMES),
                                partitions=parts)
    assert outcomes == ALL
    assert parts.seen > parts.classes()       # states met more than once


def test_openspiel_forgets_the_order_of_the_bids():
    """Bids 1 v 2 then 3 v 4, or 3 v 4 then 1 v 2, on the same point cards: one
    information state in OpenSpiel's imp_info false game (the same hands, winners and
    points), two in Tabula's (a player remembers the order), one again once the order is
    forgotten. With imp_info both tell them apart (OpenSpiel's then holds the player's
    own bids in order)."""
    def play(game, rounds):
        st = game.new_state(seed=0)
        for deal, bids in rounds:
            st.apply(next(a for a in st.legal_actions() if a[-1] == deal))
            st.apply_actions([next(a for a in st.legal_actions(p) if a[-1] == b)
                              for p, b in enumerate(bids)])
        return st

    def play_theirs(game, rounds):
        st = game.new_initial_state()
        for deal, bids in rounds:
            st.apply_action(deal)
            st.apply_actions(list(bids))
        return st

    one = [(3, (0, 1)), (7, (2, 3)), (5, (4, 5))]
    other = [(3, (2, 3)), (7, (0, 1)), (5, (4, 5))]
    for p in range(2):
        assert (play_theirs(theirs(), one).information_state_string(p)
                == play_theirs(theirs(), other).information_state_string(p))
        a, b = play(load(), one), play(load(), other)
        assert a.information_state_string(p) != b.information_state_string(p)
        assert (_OrderForgotten(a).information_state_string(p)
                == _OrderForgotten(b).information_state_string(p))
        imp = {"imp_info": True}
        assert (play_theirs(theirs(imp), one).information_state_string(p)
                != play_theirs(theirs(imp), other).information_state_string(p))
        assert (play(load(imp), one).information_state_string(p)
                != play(load(imp), other).information_state_string(p))
    # and the exact partition check notices such a pair in small games
    with pytest.raises(AssertionError, match="tells apart in Tabula"):
        play_in_lockstep(load({"num_cards": 4}), theirs({"num_cards": 4}), range(GAMES),
                         partitions=Partitions(2))


def test_a_game_from_openspiels_actions():
    """Point cards 7, 13, 1, ... (8 comes last, with no decision); player 0 bids each
    point card's value, player 1 a card near it; two ties (the 1 and the 11) are
    discarded. Player 1 wins, 40 to 39."""
    deals = [7, 13, 1, 4, 10, 2, 12, 5, 9, 3, 11, 6]
    bids1 = [8, 12, 1, 5, 9, 3, 13, 4, 10, 2, 11, 7]
    moves = []
    for d, b in zip(deals, bids1):
        moves += [d - 1, (d - 1, b - 1)]
    dealt = []

    def check(st, os_st):
        info = os_st.information_state_string(0)
        ours = [e["action"] for e in st.information_state(0)["history"]
                if e["player"] == "chance"]
        sequence = [f"Deal {v}" for v in info.split("\n")[0].split()[3:]]
        dealt.append(len(ours))
        if not os_st.is_terminal():
            assert ours == sequence
        else:
            # the 13th point card came with no decision: in OpenSpiel's sequence only
            assert ours == sequence[:-1] and sequence[-1] == "Deal 8"
            assert st.scores() == [39, 40] and "Points: 39 40" in str(os_st)
            assert st.observation(0)["zones"]["discarded"] == ["point-1", "point-11"]

    assert play_moves_in_lockstep(load(), theirs(), moves, check=check) == (-1, 1)
    assert dealt[-1] == 12                   # the 13th point card was no chance decision


# ---- mutations ------------------------------------------------------------------------------

def test_a_broken_rule_is_caught(tmp_path):
    """A tie won by player 0 instead of discarded: the lockstep comparison must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            best_bid:
              value: max(bid_of(p) for p in players)
        """)
    assert_mutation_caught(broken, theirs(), range(GAMES))


@pytest.mark.parametrize("change", [
    # with imp_info, the bids shown to both in the information state's history
    """
    override:
      steps:
        round.bid:
          choose: c in p.hand, k in [c.value - 1]
          simultaneous: p in players
          label: "[P{p}]Bid: {c.value}"
          do:
            - move c to p.bid
    """,
    # with imp_info, the spent bids face up
    """
    override:
      zones:
        kept: {kind: set, per_player: true, visibility: public}
    """,
], ids=["bids-seen-by-both", "spent-bids-face-up"])
def test_a_visibility_mistake_is_caught(tmp_path, change):
    """With imp_info, bids seen by both players: the games still play as OpenSpiel's,
    but the information states tell apart what OpenSpiel's do not."""
    imp = {"imp_info": True}
    leaky = mutant(tmp_path, SPEC, change, options=imp, recall=True)
    assert_leak_caught(leaky, theirs(imp), range(GAMES), play_seeds=range(20))


# ---- what nobody sees -----------------------------------------------------------------------

@pytest.mark.parametrize("imp_info", [False, True])
def test_a_bid_is_not_seen_before_both_are_made(imp_info):
    """Player 0 has bid (the state asks player 1 now): whatever player 0 bid, player 1's
    observation and information state are the same; player 0's own shows the bid,
    pending."""
    seen = set()
    for k in range(13):
        st = load({"imp_info": imp_info}).new_state(seed=0)
        st.apply(st.legal_actions()[6])                   # Deal 7
        st.apply(st.legal_actions(0)[k])
        assert st.choosers() == [1]
        view = (json.dumps(st.observation(1), sort_keys=True), st.information_state_string(1))
        assert "P0-" not in view[0] + view[1] and "[P0]" not in view[1]
        seen.add(view)
        mine = st.information_state(0)["history"][-1]
        assert mine == {"player": 0, "rule": "step:round.bid", "action": f"[P0]Bid: {k + 1}",
                        "pending": True}
    assert len(seen) == 1


def test_with_imp_info_a_losing_bid_is_never_seen():
    """With imp_info, player 1 bids 13 and wins the round whatever player 0 bid: player
    1's information state is then the same for each of player 0's twelve bids, through
    two more rounds that player 0 wins with its 13 and its highest card left against
    player 1's 1 and 2; without imp_info it is not."""
    for imp_info, apart in ((True, 1), (False, 12)):
        seen = set()
        for k in range(12):
            st = load({"imp_info": imp_info}).new_state(seed=0)
            st.apply(st.legal_actions()[6])                     # Deal 7
            st.apply_actions([st.legal_actions(0)[k], st.legal_actions(1)[12]])
            views = [st.information_state_string(1)]
            for _ in range(2):
                st.apply(st.legal_actions()[0])                 # the lowest point card
                views.append(st.information_state_string(1))
                st.apply_actions([st.legal_actions(0)[-1], st.legal_actions(1)[0]])
                views.append(st.information_state_string(1))
            assert [len(z) for z in st.observation(1)["zones"]["won"].values()] == [2, 1]
            seen.add(tuple(views))
            if imp_info:
                assert "P0-" not in " ".join(views)         # no card of player 0's, ever
        assert len(seen) == apart, imp_info
