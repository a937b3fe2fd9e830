"""Dots and Boxes (examples/dots_and_boxes) played move for move against OpenSpiel's C++
`dots_and_boxes`, and refereed in plain Python.

Lockstep (tests/openspiel_util.py): seeded random games through both engines at once, on
OpenSpiel's default board (2 by 2 boxes) with win/loss returns and with utility_margin,
and on boards of 3 by 2 and 1 by 3 boxes: at every step the same player to move (a box
completed gives another move), the same legal lines with the same ids (horizontal lines
first) and strings ("P1(h,0,1)"), and at the end the same returns; on the default board
the information states are partitioned as OpenSpiel's (its history string). One game
from a fixed list of OpenSpiel's actions, and broken rules that the comparison catches.

Referee: seeded random games of several boards and both returns, played through the
public API only, with the game kept on the side from rules.txt alone: the lines drawn
(read back from the actions' strings), who took which box (recomputed from the lines:
the player who draws a box's fourth side), whose move it is. At every step the engine
must offer exactly the lines not drawn, in OpenSpiel's order, to the player the rules
say; the board every player sees must hold exactly those lines, in the colour of the
player who drew each, and those boxes; no piece is lost or made. At the end every line
is drawn, and the returns (the scores) and winners are recomputed from the boxes. A
broken rule or a broken scorer in a copy of the spec makes the referee fail."""

import os
import random
import re

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from helpers import random_trail
from openspiel_util import (
    GAMES,
    Partitions,
    assert_mutation_caught,
    mutant,
    play_in_lockstep,
    play_moves_in_lockstep,
)

SPEC = ROOT / "examples" / "dots_and_boxes" / "dots_and_boxes.yaml"
REFEREE_GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "200"))
DEFAULTS = {"num_rows": 2, "num_cols": 2, "utility_margin": False}


def load(options=None, recall=False, spec=SPEC):
    return load_game(spec, options=options or {}, recall=recall)


def theirs(options=None):
    return pyspiel.load_game("dots_and_boxes", options or {})


# ---- lockstep -------------------------------------------------------------------------------

def test_default_board_plays_as_openspiel():
    """GAMES games on 2 by 2 boxes: wins of both players and draws, and the information
    states (OpenSpiel's: the history of moves) partitioned the same way."""
    parts = Partitions(2)
    outcomes = play_in_lockstep(load(recall=True), theirs(), range(GAMES), partitions=parts)
    if GAMES >= 100:
        assert outcomes == {(1, -1), (-1, 1), (0, 0)}
    assert parts.classes() > GAMES


@pytest.mark.parametrize("options", [
    {"utility_margin": True},
    {"num_rows": 3, "num_cols": 2},
    {"num_rows": 1, "num_cols": 3, "utility_margin": True},
], ids=["margin", "3x2", "1x3_margin"])
def test_other_settings_play_as_openspiel(options):
    outcomes = play_in_lockstep(load(options), theirs(options), range(GAMES))
    if GAMES >= 100:
        assert len(outcomes) >= 3
        if options.get("utility_margin"):
            assert any(abs(r[0]) > 1 for r in outcomes), "margins beyond one box"


def test_a_game_from_openspiels_actions():
    """On 2 by 2: P1 draws h(0,0), P2 h(1,0), P1 v(0,0), P2 v(0,1) and takes the top
    left box, so moves again: h(2,1); then P1 and P2 share out the rest, P1 closing the
    last three boxes in a chain."""
    moves = [0, 2, 6, 7,         # P1(h,0,0) P2(h,1,0) P1(v,0,0) P2(v,0,1): P2's box
             5,                  # P2 again: P2(h,2,1)
             1, 11, 9,           # P1(h,0,1) P2(v,1,2) P1(v,1,0)
             8,                  # P2(v,0,2)
             3,                  # P1(h,1,1): closes box (0,1) -> P1 again
             4,                  # P1(h,2,0)
             10]                 # P2(v,1,1) closes the two bottom boxes
    returns = play_moves_in_lockstep(load(), theirs(), moves)
    assert returns in {(1, -1), (-1, 1), (0, 0)}


BROKEN = {
    "no extra move after a box": """
        override:
          steps:
            take.again: {if: "size(closed_now) > 2", then: [next turn to current]}
        """,
    "a box closes on three sides": """
        override:
          functions:
            closed:
              params: [b]
              value: >-
                size(hlines[x(b), y(b)]) > 0 and size(hlines[x(b), y(b) + 1]) > 0
                and size(vlines[x(b), y(b)]) > 0
        """,
    "vertical lines numbered from 0": """
        override:
          functions:
            h_lines: {value: "0"}
        """,
    "the margin counted in wins": """
        override:
          points:
            result:
              value: "if margin(player) > 0 then 1 else if margin(player) < 0 then -1 else 0"
        """,
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_rule_fails_the_comparison(name, tmp_path):
    options = {"utility_margin": True}
    game = mutant(tmp_path, SPEC, BROKEN[name], options=options)
    assert_mutation_caught(game, theirs(options), range(GAMES))


# ---- referee --------------------------------------------------------------------------------

SETTINGS = [
    {},
    {"utility_margin": True},
    {"num_rows": 3, "num_cols": 2},
    {"num_rows": 1, "num_cols": 3, "utility_margin": True},
    {"num_rows": 3, "num_cols": 3},
]

MOVE = re.compile(r"P([12])\(([hv]),(\d+),(\d+)\)$")


class Broken(AssertionError):
    """The engine did something the rules do not allow."""


def check(cond, what):
    if not cond:
        raise Broken(what)


def lines_of(rows, cols):
    """Every line in OpenSpiel's order (rules.txt 5.1): (kind, row, col)."""
    return ([("h", r, c) for r in range(rows + 1) for c in range(cols)]
            + [("v", r, c) for r in range(rows) for c in range(cols + 1)])


def sides(r, c):
    """The four sides of the box in row r, column c (rules.txt 1.3)."""
    return {("h", r, c), ("h", r + 1, c), ("v", r, c), ("v", r, c + 1)}


def board_seen(obs, rows, cols):
    """The lines and boxes an observation shows: {(kind, row, col): 1 or 2} and
    {(row, col): 1 or 2} (P1 or P2), from the grids' cells (row by row)."""
    z = obs["zones"]

    def cells(name, width):
        return {(k // width, k % width): cell for k, cell in enumerate(z[name])}

    lines, boxes = {}, {}
    for kind, name, width in (("h", "hlines", cols), ("v", "vlines", cols + 1)):
        for (r, c), cell in cells(name, width).items():
            check(len(cell) <= 1, f"two pieces on line {kind}{r},{c}")
            if cell:
                check(cell[0] in ("line P1", "line P2"), f"{cell[0]} on a line")
                lines[(kind, r, c)] = int(cell[0][-1])
    for (r, c), cell in cells("boxes", cols).items():
        check(len(cell) <= 1, f"two pieces on box {r},{c}")
        if cell:
            check(cell[0] in ("box P1", "box P2"), f"{cell[0]} on a box")
            boxes[(r, c)] = int(cell[0][-1])
    n_lines, n_boxes = len(lines_of(rows, cols)), rows * cols
    supply = z["supply"]
    check(supply.count("line P1") + supply.count("line P2") + len(lines) == 2 * n_lines,
          "line pieces lost or made")
    check(supply.count("box P1") + supply.count("box P2") + len(boxes) == 2 * n_boxes,
          "box pieces lost or made")
    return lines, boxes


def referee(game, options, seed):
    """One random game, checked against rules.txt at every step; its returns."""
    o = dict(DEFAULTS, **options)
    rows, cols, margin = o["num_rows"], o["num_cols"], o["utility_margin"]
    every = lines_of(rows, cols)
    drawn, taken, player = {}, {}, 0
    rng = random.Random(seed)
    st = game.new_state(seed=seed)
    while True:
        seer = rng.randrange(2)                          # rules.txt 4.1: all see all
        lines, boxes = board_seen(st.observation(seer), rows, cols)
        check(lines == drawn, f"seed {seed}: lines {lines} for {drawn}")
        check(boxes == taken, f"seed {seed}: boxes {boxes} for {taken}")
        over = len(drawn) == len(every)                  # rules.txt 3.1
        check(st.is_terminal() == over, f"seed {seed}: the end after {len(drawn)} lines")
        if over:
            break
        check(st.current_player() == player, f"seed {seed}: player {player} to move")
        expected = [f"P{player + 1}({k},{r},{c})" for k, r, c in every
                    if (k, r, c) not in drawn]           # rules.txt 2.2, 5.1, 5.2
        acts = st.legal_actions()
        check(st.legal_action_strings() == expected, f"seed {seed}: legal lines")
        check([a[-1] for a in acts] == [every.index(x) for x in every if x not in drawn],
              f"seed {seed}: OpenSpiel's ids")
        a = acts[rng.randrange(len(acts))]
        m = MOVE.match(st.action_to_string(a))
        line = (m.group(2), int(m.group(3)), int(m.group(4)))
        st.apply(a)
        drawn[line] = player + 1
        closed = [(r, c) for r in range(rows) for c in range(cols)
                  if (r, c) not in taken and sides(r, c) <= drawn.keys()]
        check(len(closed) <= 2, f"seed {seed}: one line closed {closed}")
        for box in closed:                               # rules.txt 2.3
            taken[box] = player + 1
        if not closed:                                   # rules.txt 2.4
            player = 1 - player
    check(len(taken) == rows * cols, f"seed {seed}: every box taken")
    mine = [sum(1 for v in taken.values() if v == p + 1) for p in range(2)]
    diff = mine[0] - mine[1]
    if margin:                                           # rules.txt 3.3
        expected = [diff, -diff]
    else:                                                # rules.txt 3.2
        expected = [(diff > 0) - (diff < 0), (diff < 0) - (diff > 0)]
    check(st.returns() == expected, f"seed {seed}: returns {st.returns()} for {mine}")
    check(st.scores() == expected, f"seed {seed}: scores {st.scores()} for {mine}")
    winners = [p for p in range(2) if expected[p] == max(expected)]
    check(sorted(st.winners()) == winners, f"seed {seed}: winners {st.winners()}")
    return tuple(expected)


def play_games(spec, count):
    """`count` games, the settings in turn; the returns seen in each setting."""
    games = {}
    outcomes = [set() for _ in SETTINGS]
    for i in range(count):
        key = i % len(SETTINGS)
        if key not in games:
            games[key] = load(SETTINGS[key], spec=spec)
        outcomes[key].add(referee(games[key], SETTINGS[key], seed=i))
    return outcomes


def test_random_games_keep_the_rules():
    outcomes = play_games(SPEC, REFEREE_GAMES)
    if REFEREE_GAMES >= 100:
        # both players win in every setting; a draw wherever the boxes are even
        for seen, options in zip(outcomes, SETTINGS):
            board = dict(DEFAULTS, **options)
            even = board["num_rows"] * board["num_cols"] % 2 == 0
            signs = {(r[0] > 0) - (r[0] < 0) for r in seen}
            assert signs == ({1, -1, 0} if even else {1, -1}), (options, outcomes)


def test_the_same_seed_gives_the_same_game():
    game = load({"num_rows": 3, "num_cols": 3})
    assert random_trail(game, 5) == random_trail(game, 5)


MUTANTS = {
    "no extra move after a box": ("if: size(closed_now) > 0", "if: size(closed_now) > 1"),
    "a box closes on three sides": ("\n      and size(vlines[x(b), y(b)]) > 0", ""),
    "a horizontal line closes only the box below":
        ("call take([at(boxes, x(c), y(c) - 1), at(boxes, x(c), y(c))])",
         "call take([at(boxes, x(c), y(c))])"),
    "a vertical line drawn in the other's colour":
        ("move pen(current) to c\n              - call take([at(boxes, x(c) - 1",
         "move pen(next_player(current)) to c\n              - call take([at(boxes, x(c) - 1"),
    "a draw won by both (a broken scorer)": ("else if margin(player) > 0 then 1",
                                             "else if margin(player) >= 0 then 1"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_broken_rule_is_caught(name, tmp_path):
    old, new = MUTANTS[name]
    text = SPEC.read_text()
    assert text.count(old) == 1, old
    spec = tmp_path / "dots_and_boxes.yaml"
    spec.write_text(text.replace(old, new))
    with pytest.raises(Broken):
        play_games(spec, 40)
