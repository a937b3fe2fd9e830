"""Tic-tac-toe (examples/tic_tac_toe) played move for move against OpenSpiel's
`tic_tac_toe`: seeded random games in lockstep (at every step the same player, the same
legal actions with the same strings; at the end the same returns), and a broken rule that
the comparison catches."""

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import GAMES, assert_mutation_caught, mutant, play_in_lockstep

SPEC = ROOT / "examples" / "tic_tac_toe" / "tic_tac_toe.yaml"


@pytest.fixture(scope="module")
def theirs():
    return pyspiel.load_game("tic_tac_toe")


def test_random_games_play_as_openspiel(theirs):
    outcomes = play_in_lockstep(load_game(SPEC), theirs, range(GAMES))
    assert outcomes == {(1, -1), (-1, 1), (0, 0)}    # wins, losses and draws were compared


def test_a_broken_rule_is_caught(theirs, tmp_path):
    """Diagonals forgotten: the lockstep comparison must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            three_in_a_row:
              params: [p]
              value: any(all(holds(k, p) for k in line) for line in lines where line[0] + 4 != line[1])
        """)  # noqa: E501  spec text, kept as written
    assert_mutation_caught(broken, theirs, range(GAMES))
