"""Lines read in place: `neighbour(c, d)` and `ray(c, d)` compile to a table read
(`K[c]` for a direction written in the rule, `K[d][c]` for one known only when it runs),
not a helper's call; `at(board, x, y)` to arithmetic. The same values as the geometry's
own tables on a grid and a hex board, the same failures (located, in the same words),
and the helper's call where a board is too large to hold its lines twice."""

from __future__ import annotations

import pytest

from tabula_rules.compiler import layout
from tabula_rules.errors import RuleError
from tabula_rules.runtime.geometry import geometry
from tabula_rules.spec import Spec

from helpers import BOARDS, write


def game_of(tmp_path, text=BOARDS):
    return Spec(write(tmp_path, text)).game(2)


def value(game, expression: str):
    return game.prog.compile_expression(expression)(game.new_state(seed=0))


@pytest.mark.parametrize("zone, kind, w, h", [("board", "grid", 4, 3), ("hexes", "hex", 3, 3)])
def test_every_step_and_ray_is_the_geometry_s(tmp_path, zone, kind, w, h):
    """Every cell, every direction of its board: the step and the ray read in place are
    the board shape's own (runtime/geometry.py), off the board none and []."""
    game = game_of(tmp_path)
    g = geometry(kind, w, h)
    base = value(game, f"cells({zone})")[0]
    steps = value(game, f"[[neighbour(c, d) for d in directions({zone})] for c in cells({zone})]")
    rays = value(game, f"[[ray(c, d) for d in directions({zone})] for c in cells({zone})]")
    for i in range(w * h):
        for j, d in enumerate(g.directions):
            n = g.step[d][i]
            assert steps[i][j] == (None if n < 0 else base + n)
            assert rays[i][j] == [base + k for k in g.ray[d][i]]
    # a direction written in the rule: the same as one known only when it runs
    for d in g.directions:
        assert value(game, f"[neighbour(c, '{d}') for c in cells({zone})]") == \
            [row[g.directions.index(d)] for row in steps]


def test_the_reads_are_in_place(tmp_path):
    game = game_of(tmp_path, BOARDS.replace("play: []", """\
functions:
  around_sum:
    params: [c]
    value: count(d for d in directions(board) where neighbour(c, d) != none)
  east: {params: [c], value: "size(ray(c, 'e')) + size(ray(neighbour(c, 'w'), 'e'))"}
  spot: {params: [x, y], value: "at(board, x, y)"}
play:
  - id: t
    choose: c in cells(board) where around_sum(c) > 4 and east(c) > 0 and spot(1, 1) != c
    do: []
"""))
    src = game.prog.module.source()
    assert "B_step(" not in src and "B_ray(" not in src and "B_at(" not in src
    assert game.new_state(seed=0).legal_actions()      # and it plays


def test_none_has_no_neighbour_and_no_ray(tmp_path):
    game = game_of(tmp_path)
    assert value(game, "neighbour(neighbour(board[0, 0], 'n'), 'e') == none")
    assert value(game, "ray(neighbour(board[0, 0], 'n'), 'e')") == []
    assert value(game, "[neighbour(at(board, 9, 9), d) for d in orthogonal(board)]") == \
        [None] * 4


FAILING = BOARDS.replace("play: []", """\
data:
  ways: {source: none, value: [e, WAY]}
play:
  - id: t
    choose: k in [0, 1]
    do:
      - let c = READ
      - move top(bowl) to board[0, 0]
""")


@pytest.mark.parametrize("way, read, message", [
    ("north", "neighbour(board[1, 1], ways[k])", "'north' is not a direction"),
    ("n", "neighbour(hexes[1, 1], ways[k])", "'n' is not a direction of a hex board"),
    ("n", "ray(hexes[1, 1], ways[k])", "'n' is not a direction of a hex board"),
    ("n", "neighbour(bowl, ways[k])", "a zone of one slot has no directions"),
])
def test_a_line_a_cell_does_not_have_is_a_located_rule_error(tmp_path, way, read, message):
    """A direction known only when the rule runs, which the cell's board lacks (or no
    board has): the rule's error at the rule's line, in B_step's words, no KeyError."""
    text = FAILING.replace("WAY", way).replace("READ", read)
    path = write(tmp_path, text)
    st = Spec(path).game(2).new_state(seed=0)
    with pytest.raises(RuleError) as err:
        st.apply(st.legal_actions()[1])
    assert message in err.value.message and "KeyError" not in err.value.message
    assert err.value.pos.file == str(path)
    assert text.splitlines()[err.value.pos.line - 1].strip() == f"- let c = {read}"


def test_a_board_too_large_to_hold_its_lines_twice_calls_the_helper(tmp_path, monkeypatch):
    """Past MAX_LINES_IN_PLACE the lines are not laid out again: B_step and B_ray's
    calls, with the same values."""
    expression = ("[[[neighbour(c, d), ray(c, d), neighbour(c, 'se')] for d in "
                  "directions(hexes)] for c in cells(hexes)]")
    game = game_of(tmp_path)
    in_place = value(game, expression)
    monkeypatch.setattr(layout, "MAX_LINES_IN_PLACE", 0)
    game = game_of(tmp_path)
    assert value(game, expression) == in_place
    assert "B_step(" in game.prog.module.source()
