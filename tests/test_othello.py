"""Othello (examples/othello) played move for move against OpenSpiel's C++ `othello`:
seeded random games in lockstep (at every step the same player, the same legal actions as
strings, pass included, and the same board; at the end the same returns), and the opening's
action ids: a cell's action is row * 8 + column, a pass is 64."""

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import GAMES, assert_mutation_caught, mutant, play_in_lockstep

# Seeded random games compared with OpenSpiel, board checked at every step: about 5.5 ms
# a game on the development machine (Tabula's part is most of it). GAMES is 200 in the
# default suite, 1,000 in the longer run (docs/classic-games.md); 2,000 pass too.
SPEC = ROOT / "examples" / "othello" / "othello.yaml"
SIGN = {"black": "x", "white": "o"}


@pytest.fixture(scope="module")
def games():
    return load_game(ROOT / "examples" / "othello"), pyspiel.load_game("othello")


def same_board(st, os_st) -> None:
    """Tabula's board, row y = 0 first, as OpenSpiel draws its own ("x", "o", "-")."""
    cells = st.observation(0)["zones"]["board"]
    ours = [[SIGN[c[0]] if c else "-" for c in cells[y * 8:(y + 1) * 8]] for y in range(8)]
    theirs = [line.split()[1:9] for line in str(os_st).splitlines()[2:10]]
    assert ours == theirs, str(os_st)


def test_random_games_play_as_openspiel(games):
    """GAMES games: wins, losses and ties all compared, and many passes among the steps."""
    passes = []

    def check(st, os_st):
        same_board(st, os_st)
        if not os_st.is_terminal() and os_st.legal_actions() == [64]:
            passes.append(st.legal_action_strings())

    outcomes = play_in_lockstep(*games, range(GAMES), check=check)
    assert outcomes == {(1, -1), (-1, 1), (0, 0)}
    assert len(passes) > GAMES // 10 and all(p == ["pass"] for p in passes)


def test_the_opening_is_openspiels(games):
    game, theirs = games
    st, os_st = game.new_state(seed=0), theirs.new_initial_state()
    same_board(st, os_st)
    assert st.current_player() == os_st.current_player() == 0
    assert [a[-1] for a in st.legal_actions()] == os_st.legal_actions() == [19, 26, 37, 44]
    assert st.legal_action_strings() == ["d3", "c4", "f5", "e6"]


def test_a_broken_rule_is_caught(games, tmp_path):
    """Outflanking along the diagonals forgotten: the lockstep comparison must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            outflanks:
              params: [c, d, p]
              value: >-
                d in orthogonal(board) and holds(neighbour(c, d), next_player(p))
                and holds(line_end(c, d, p), p)
        """)
    assert_mutation_caught(broken, games[1], range(50))
