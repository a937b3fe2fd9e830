"""Scenario positions drawn as maps: `map:` and `legend:` for zones of several slots."""

import textwrap

import pytest

from tabula_rules.tools.scenario import run_file

# Claims (docs/language.md, 10b): stones of two colours on a 5 x 5 grid; a stone may not
# go next to the other colour; the largest connected group scores.
CLAIMS = """\
game: {id: claims, name: Claims, source: claims.txt, players: {min: 2, max: 2}}
enums:
  colour: [black, white]
components:
  stone:
    name: "{colour}"
    for_each: {colour: values(colour)}
    count: 6
    zone: bowl
zones:
  bowl: {kind: set, visibility: public}
  board: {kind: grid, width: 5, height: 5, capacity: 2, visibility: public}
  rack: {kind: columns, capacities: "[1, 1, 1]", visibility: public}
  tray: {kind: columns, capacities: "[2, 2]", visibility: public, per_player: true}
functions:
  mine:
    params: [p]
    value: "[black, white][p]"
  free:
    params: [c]
    value: size(c) == 0
play:
  - turns: {first: 0, until: "size(bowl) == 0"}
    do:
      - choose: c in cells(board) where free(c) and not any(size(n) > 0 and top(n).colour != mine(current) for n in around(c))
        label: "stone at {x(c)},{y(c)}"
        do:
          - move first(s for s in bowl where s.colour == mine(current)) to c
        else:
          - end game
scoring:
  points:
    largest:
      value: max(size(group(c from k where size(c) > 0 and top(c).colour == mine(player))) for k in cells(board), 0)
"""  # noqa: E501  spec text, kept as written

ROWS = """\
      - X X . . .
      - X . . . .
      - . . . . O
      - . . . O O
      - . . . . O
"""


def scenario_file(tmp_path, body: str):
    (tmp_path / "claims.yaml").write_text(CLAIMS)
    path = tmp_path / "claims.test.yaml"
    path.write_text("spec: claims.yaml\nscenarios:\n" + textwrap.dedent(body))
    return path


def outcomes(path):
    return [(r.passed, "" if r.passed else str(r)) for r in run_file(path)]


def test_a_map_gives_and_expects_a_grid(tmp_path):
    path = scenario_file(tmp_path, """
      - id: map
        given:
          zones:
            board:
              map: |
                X X . . .
                X . . . .
                . . . . O
                . . . O O
                . . . . O
              legend: {X: black, O: white}
        do:
          - stone at 0,4
        expect:
          zones:
            board:
              map: |
                XX...
                X....
                ....O
                ...OO
                X...O
              legend: {X: black, O: white}
          points: {largest: [3, 4]}
          legal_excludes: ["stone at 2,1", "stone at 1,3"]     # next to black
          legal_includes: ["stone at 3,1", "stone at 2,3"]
    """)
    assert outcomes(path) == [(True, "")]


def test_a_legend_stacks_pieces_and_dot_is_empty(tmp_path):
    path = scenario_file(tmp_path, """
      - id: stacks
        given:
          zones:
            board:
              map: |
                B . . . .
                . . . . .
                . . . . .
                . . . . .
                . . . . .
              legend: {B: [white, black]}
            rack: {map: "W.W", legend: {W: white}}
            tray: {1: {map: "- K", legend: {"-": [], K: [black, black]}}}
        expect:
          zones:
            board: [[white, black]]
            rack: [[white], [], [white]]
            tray: {0: [[], []], 1: [[], [black, black]]}
          sizes: {bowl: 6}
    """)
    assert outcomes(path) == [(True, "")]


def test_a_map_that_differs_is_reported_at_the_cell(tmp_path):
    path = scenario_file(tmp_path, """
      - id: differs
        given:
          zones:
            rack: {map: "W..", legend: {W: white}}
        expect:
          zones:
            rack: {map: ".W.", legend: {W: white}}
    """)
    (passed, text), = outcomes(path)
    assert not passed
    assert "rack: expected [], found ['white']" in text
    lines = path.read_text().splitlines()
    line = next(i for i, x in enumerate(lines, 1) if '{map: ".W."' in x)
    col = lines[line - 1].index('".W."') + 2          # the first cell, inside the quotes
    assert f"{path}:{line}:{col}:" in text


@pytest.mark.parametrize("board, message", [
    ('{map: "X....\\n.....", legend: {X: black}}', "the map of 'board' has 2 rows; the zone has 5"),
    ('{map: "X...\\n.....\\n.....\\n.....\\n.....", legend: {X: black}}',
     "row 0 of the map of 'board' has 4 slots; the zone is 5 wide"),
    ('{map: "Z....\\n.....\\n.....\\n.....\\n.....", legend: {X: black}}',
     "'Z' is not in the map's legend"),
    ('{map: "X....\\n.....\\n.....\\n.....\\n.....", legend: {X: blak}}',
     "no piece is named 'blak'"),
])
def test_bad_maps_are_located(tmp_path, board, message):
    path = scenario_file(tmp_path, f"""
      - id: bad
        given:
          zones:
            board: {board}
    """)
    (passed, text), = outcomes(path)
    assert not passed and message in text, text
    assert f"{path}:" in text


def test_a_one_slot_zone_takes_no_map(tmp_path):
    path = scenario_file(tmp_path, """
      - id: one
        given:
          zones:
            bowl: {map: "X", legend: {X: black}}
    """)
    (passed, text), = outcomes(path)
    assert not passed and "'bowl' has one slot: give a list of piece names" in text


def test_the_player_to_act_is_given_and_survives_the_turns(tmp_path):
    """Claims' turns start with player 0; a position can say player 1 is to act."""
    path = scenario_file(tmp_path, """\
      - id: white_to_move
        given:
          current: 1
        do:
          - {action: "stone at 0,0", player: 1}
        expect:
          current: 0
      - id: no_such_player
        given:
          current: 2
        expect:
          current: 0
    """)
    (ok1, why1), (ok2, why2) = outcomes(path)
    assert ok1, why1
    assert not ok2 and "a player of this game is 0 to 1, not 2" in why2
