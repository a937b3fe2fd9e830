"""Quoridor (examples/quoridor) played move for move against OpenSpiel's C++ `quoridor`
on 5 by 5 and 7 by 7 boards: seeded random games in lockstep (at every step the same
player, the same legal actions as OpenSpiel's action ids, each with OpenSpiel's string,
the same walls left; at the end the same returns), and two broken rules that the
comparison must catch (a wall allowed to cut a pawn off; walls allowed to cross).

OpenSpiel sorts its actions by number and Tabula offers the pawn's moves first, then
the walls: the actions are compared as sets (each with its string), and both engines
take the same action, OpenSpiel's chosen at random."""

import random
import re

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import GAMES, mutant

SPEC = ROOT / "examples" / "quoridor" / "quoridor.yaml"
# random games per board: the default suite's share of GAMES (200) is 40 on 5 by 5 and 10
# on 7 by 7 (a game there costs some twenty of 5 by 5's: longer, with more walls to try)
def quoridor_games(theirs) -> range:
    return range(max(GAMES // (5 if theirs.get_parameters()["board_size"] == 5 else 20), 5))


@pytest.fixture(scope="module", params=[5, 7], ids=["5x5", "7x7"])
def games(request):
    size = request.param
    return (load_game(SPEC, players=2, options={"board_size": size}),
            pyspiel.load_game("quoridor", {"board_size": size}))


def walls_left(os_st) -> list:
    """The walls each player has left, from OpenSpiel's board's first line."""
    found = re.search(r"walls: (\d+), (\d+)", str(os_st))
    assert found, str(os_st)
    return [int(found.group(1)), int(found.group(2))]


def check_step(st, os_st, where: str) -> None:
    player = os_st.current_player()
    assert st.current_player() == player, where
    ours = {a[-1]: s for a, s in zip(st.legal_actions(), st.legal_action_strings())}
    theirs = {a: os_st.action_to_string(player, a) for a in os_st.legal_actions()}
    assert ours == theirs, (where, str(os_st))
    assert [len(st.observation(0)["zones"]["stock"][str(p)]) for p in (0, 1)] == \
        walls_left(os_st), where


def play(game, theirs, seeds) -> set:
    """One seeded random game per seed through both, checked at every step; the set of
    final returns."""
    outcomes = set()
    for seed in seeds:
        rng = random.Random(seed)
        st, os_st = game.new_state(seed=seed), theirs.new_initial_state()
        while not os_st.is_terminal():
            check_step(st, os_st, f"seed {seed}")
            legal = os_st.legal_actions()
            move = legal[int(rng.random() * len(legal))]
            [act] = [a for a in st.legal_actions() if a[-1] == move]
            st.apply(act)
            os_st.apply_action(move)
        assert st.terminal, f"seed {seed}"
        assert st.returns() == [int(x) for x in os_st.returns()], f"seed {seed}"
        outcomes.add(tuple(st.returns()))
    return outcomes


def test_random_games_play_as_openspiel(games):
    outcomes = play(*games, quoridor_games(games[1]))
    assert {(1, -1), (-1, 1)} <= outcomes      # wins of both players were compared


def test_the_opening_is_openspiels(games):
    game, theirs = games
    st, os_st = game.new_state(seed=0), theirs.new_initial_state()
    check_step(st, os_st, "the opening")
    size = theirs.get_parameters()["board_size"]
    middle = "abcdefghi"[(size - size % 2) // 2]
    # player 0's pawn, in the middle of the bottom row, steps north first (OpenSpiel's
    # relative action 2: the point (2, 0) of its board, north of (2, 2)), east, west
    d = 2 * size - 1
    assert st.legal_action_strings()[:3] == [f"{middle}{size - 1}",
                                            f"{'abcdefghi'[(size - size % 2) // 2 + 1]}{size}",
                                            f"{'abcdefghi'[(size - size % 2) // 2 - 1]}{size}"]
    assert [a[-1] for a in st.legal_actions()[:3]] == [2, 4 + 2 * d, 0 + 2 * d]
    assert walls_left(os_st) == [size * size // 8] * 2


# rules broken on purpose, each of which the lockstep comparison must catch
BROKEN = {
    # walls may cut a pawn off from its goal row
    "a_wall_may_cut_a_pawn_off": """
        override:
          functions:
            wall_ok:
              params: [w, h]
              value: fits(w, h)
        """,
    # a wall may cross another at its middle
    "walls_may_cross": """
        override:
          functions:
            fits:
              params: [w, h]
              value: >-
                if h then
                  size(w) == 0
                  and (x(w) == 0 or size(hwalls[x(w) - 1, y(w)]) == 0)
                  and (x(w) == side() - 2 or size(hwalls[x(w) + 1, y(w)]) == 0)
                else
                  size(w) == 0
                  and (y(w) == 0 or size(vwalls[x(w), y(w) - 1]) == 0)
                  and (y(w) == side() - 2 or size(vwalls[x(w), y(w) + 1]) == 0)
        """,
}


@pytest.mark.parametrize("rule", BROKEN)
def test_a_broken_rule_is_caught(games, tmp_path, rule):
    _, theirs = games
    broken = mutant(tmp_path, SPEC, BROKEN[rule], players=2,
                    options=dict(board_size=theirs.get_parameters()["board_size"]))
    with pytest.raises(AssertionError):
        play(broken, theirs, quoridor_games(theirs))


def test_bench_gives_openspiel_the_board_size():
    """`tabula bench` measures OpenSpiel's game with the spec's options that are its
    parameters too (board_size), not with OpenSpiel's default board of 9: one game on
    both sides. An option OpenSpiel's game does not have is not given to it."""
    from tabula_rules.tools import bench
    theirs = bench.openspiel_game(pyspiel, "quoridor", 2, {"board_size": 5, "no_such": 1})
    assert theirs.get_parameters()["board_size"] == 5
    assert bench.openspiel_game(pyspiel, "quoridor", 2).get_parameters()["board_size"] == 9
