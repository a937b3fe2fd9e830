"""Breakthrough (examples/breakthrough) played move for move against OpenSpiel's C++
`breakthrough`: seeded random games in lockstep (at every step the same player, the same
legal actions, as OpenSpiel's action ids and as strings, and the same board; at the end
the same returns); games steered to end by capturing every pawn of a colour, which random
play never does; such a game from a fixed list of OpenSpiel's moves; and two broken rules
that the comparison must catch."""

import random

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import (
    GAMES,
    assert_mutation_caught,
    check_end,
    check_step,
    mutant,
    play_in_lockstep,
    play_moves_in_lockstep,
)

SPEC = ROOT / "examples" / "breakthrough" / "breakthrough.yaml"

# OpenSpiel's actions for a game in which Black captures all sixteen white pawns (an
# odd action is a capture) and so wins without reaching the far row: random play never
# ends so (2,000 random games: every one ended on the far row).
WIPEOUT = [120, 586, 170, 598, 268, 666, 132, 500, 74, 680, 216, 654, 38, 764, 168, 550,
           373, 702, 144, 620, 16, 402, 205, 632, 180, 562, 266, 646, 365, 738, 469, 668,
           461, 538, 112, 584, 232, 488, 301, 454, 257, 752, 565, 510, 293, 524, 337, 730,
           553, 606, 389, 598, 401, 692, 505, 632, 425, 716, 529]


@pytest.fixture(scope="module")
def games():
    return load_game(ROOT / "examples" / "breakthrough"), pyspiel.load_game("breakthrough")


def board_string(st) -> str:
    """Tabula's board drawn as OpenSpiel's str(state): a line per row, row y = 0 (rank 8)
    first, each led by its rank; "b" (black), "w" (white) or "." per cell; the files
    under it."""
    cells = st.observation(0)["zones"]["board"]
    rows = [f"{8 - y}" + "".join(c[0][0] if c else "." for c in cells[y * 8:(y + 1) * 8])
            for y in range(8)]
    return "\n".join(rows) + "\n abcdefgh\n"


def same_board(st, os_st) -> None:
    assert board_string(st) == str(os_st)


def wiped_out(os_st) -> bool:
    """A colour has no pawn left on OpenSpiel's board."""
    board = str(os_st).rsplit("\n", 2)[0]
    return "b" not in board or "w" not in board


def capturer_index(os_st, capturer, rng) -> int:
    """The index of a legal action for a game that ends by captures: nobody steps onto
    the far row while they have another move; the capturer captures whenever it can, the
    other player never captures while it can help it. Random among the candidates."""
    player = os_st.current_player()
    strings = [os_st.action_to_string(player, a) for a in os_st.legal_actions()]
    far = "1" if player == 0 else "8"
    short = [i for i, s in enumerate(strings) if s[3] != far] or list(range(len(strings)))
    takes = [i for i in short if strings[i].endswith("*")]
    gives = [i for i in short if not strings[i].endswith("*")]
    pool = (takes if player == capturer else gives) or short
    return pool[int(rng.random() * len(pool))]


def test_random_games_play_as_openspiel(games):
    """GAMES random games, board compared at every step: wins of both players."""
    outcomes = play_in_lockstep(*games, range(GAMES), check=same_board)
    assert outcomes == {(1, -1), (-1, 1)}    # wins of both players were compared


def test_games_won_by_capturing_every_pawn_play_as_openspiel(games):
    """Random play never takes every pawn of a colour: 20 games steered to it (the
    capturer always captures, nobody reaches the far row while it can help it), 10 with
    each colour capturing, compared at every step as above; 17 of them end with a colour
    wiped out."""
    game, theirs = games
    wipeouts = set()
    for seed in range(20):
        capturer, rng = seed % 2, random.Random(seed)
        st, os_st = game.new_state(seed=seed), theirs.new_initial_state()
        while not os_st.is_terminal():
            check_step(st, os_st, f"seed {seed}")
            same_board(st, os_st)
            k = capturer_index(os_st, capturer, rng)
            st.apply(st.legal_actions()[k])
            os_st.apply_action(os_st.legal_actions()[k])
        same_board(st, os_st)
        returns = check_end(st, os_st, f"seed {seed}")
        if wiped_out(os_st):
            wipeouts.add(returns)
    assert wipeouts == {(1, -1), (-1, 1)}    # each colour wiped out at least once


def test_the_opening_is_openspiels(games):
    game, theirs = games
    st, os_st = game.new_state(seed=0), theirs.new_initial_state()
    same_board(st, os_st)
    assert st.current_player() == os_st.current_player() == 0
    assert [a[-1] for a in st.legal_actions()] == os_st.legal_actions()
    assert os_st.legal_actions()[:3] == [98, 100, 108]
    assert st.legal_action_strings()[:3] == ["a7a6", "a7b6", "b7a6"]


def test_a_game_won_by_captures_move_by_move(games):
    """WIPEOUT, OpenSpiel's moves one by one: Black's sixteenth capture takes White's last
    pawn, and Black wins with no pawn on the far row."""
    last = []

    def check(st, os_st):
        same_board(st, os_st)
        last[:] = [os_st]

    assert sum(move % 2 for move in WIPEOUT) == 16
    assert play_moves_in_lockstep(*games, WIPEOUT, check=check) == (1, -1)
    assert wiped_out(last[0]) and "b" not in str(last[0]).splitlines()[7]


def test_a_broken_rule_is_caught(games, tmp_path):
    """A pawn may capture straight ahead too: the lockstep comparison must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            can_step:
              params: [d, e, p]
              value: size(e) == 0 or holds(e, next_player(p))
        """)
    assert_mutation_caught(broken, games[1], range(GAMES))


def test_a_forgotten_end_is_caught(games, tmp_path):
    """The game no longer ends when a colour has no pawn left: WIPEOUT must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            won:
              params: [p]
              value: broke_through(p)
        """)
    with pytest.raises(AssertionError):
        play_moves_in_lockstep(broken, games[1], WIPEOUT, check=same_board)
