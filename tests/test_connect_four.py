"""Connect Four (examples/connect_four) played move for move against OpenSpiel's C++
`connect_four`: 200 seeded random games in lockstep (at every step the same player, the
same legal actions as strings and the same board; at the end the same returns), and a
drawn game move by move."""

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import (
    GAMES,
    assert_mutation_caught,
    mutant,
    play_in_lockstep,
    play_moves_in_lockstep,
)

SPEC = ROOT / "examples" / "connect_four" / "connect_four.yaml"

# a game that fills the board without four in a row (OpenSpiel's actions: columns)
DRAW = [3, 6, 1, 3, 1, 3, 6, 4, 5, 5, 3, 4, 3, 1, 1, 0, 4, 3, 0, 4, 6, 6, 2, 6, 1, 0, 5,
        5, 2, 4, 5, 1, 5, 6, 0, 0, 2, 2, 4, 2, 2, 0]


@pytest.fixture(scope="module")
def games():
    return load_game(ROOT / "examples" / "connect_four"), pyspiel.load_game("connect_four")


def same_board(st, os_st) -> None:
    """Tabula's board, row y = 0 first, drawn as OpenSpiel draws its own (top row first)."""
    cells = st.observation(0)["zones"]["board"]
    rows = ["".join(c[0] if c else "." for c in cells[y * 7:(y + 1) * 7]) for y in range(6)]
    assert "\n".join(rows) + "\n" == str(os_st)


def test_random_games_play_as_openspiel(games):
    outcomes = play_in_lockstep(*games, range(GAMES), check=same_board)
    assert {(1, -1), (-1, 1)} <= outcomes    # wins of both players were compared


def test_a_full_board_is_a_draw_as_in_openspiel(games):
    assert play_moves_in_lockstep(*games, DRAW, check=same_board) == (0, 0)


def test_a_full_column_is_not_offered(games):
    game, _ = games
    st = game.new_state(seed=0)
    for label in ["x3", "o3"] * 3:
        st.apply_string(label)
    assert st.legal_action_strings() == ["x0", "x1", "x2", "x4", "x5", "x6"]


def test_a_broken_rule_is_caught(games, tmp_path):
    """Three in a row wins instead of four: the lockstep comparison must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            four_through:
              params: [c, p]
              value: any(run(c, d, p) + run(c, opposite(d), p) >= 2 for d in directions(board))
        """)
    assert_mutation_caught(broken, games[1], range(GAMES))
