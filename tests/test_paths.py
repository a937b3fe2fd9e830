"""Path searches (docs/language.md 10b, "Paths"): reaches(c from s to GOAL where COND),
distance_to(...), path_to(...), their _around forms and the step form `a -> b`, on mazes
drawn here and on random ones, against a plain breadth-first search written in this
file: blocked cells, blocked edges, unreachable goals (none), a start that is a goal (0),
a hex board, the early exit (the work a search counts), the work budget, the views (a
condition that asks for a path is never one) and the errors of misuse."""

from __future__ import annotations

import io
import random
import re
import textwrap
import tokenize
from collections import deque

import pytest

from tabula_rules.compiler import boards as boards_stage
from tabula_rules.compiler import builtins as builtins_stage
from tabula_rules.errors import RuleError, SpecError
from tabula_rules.lang.parser import parse
from tabula_rules.spec import Spec

from helpers import GENERATED, raised

# A board of W x H cells; the player puts rocks on cells and cuts edges (vcut[x, y]: between
# columns x and x + 1 of row y; hcut[x, y]: between rows y and y + 1 of column x), then
# stops. The tests read the searches on the state while the player is still building.
MAZE = """\
game: {{id: maze, name: Maze, source: a test, players: {{min: 1, max: 1}}, max_steps: 100000}}
components:
  rock: {{name: rock, count: {cells}, zone: box}}
zones:
  box: {{kind: set, visibility: public}}
  board: {{kind: {kind}, width: {w}, height: {h}, visibility: public}}
  vcut: {{kind: grid, width: {w1}, height: {h}, visibility: public}}
  hcut: {{kind: grid, width: {w}, height: {h1}, visibility: public}}
variables:
  done: {{value: false, type: bool}}
functions:
  open: {{params: [c], value: size(c) == 0}}
  cut:
    params: [a, b]
    value: >-
      if y(a) == y(b) then size(vcut[min(x(a), x(b)), y(a)]) > 0
      else size(hcut[x(a), min(y(a), y(b))]) > 0
  far:
    params: [s]
    value: distance_to(a -> b from s to y(b) == {h1} where open(b) and not cut(a, b))
play:
  - turns: {{first: 0, until: done}}
    do:
      - choose_one:
          - choose: c in cells(board) where size(c) == 0 and size(box) > 0
            label: "rock {{x(c)}},{{y(c)}}"
            do:
              - move top(box) to c
          - choose: e in cells(vcut) where size(e) == 0 and size(box) > 0
            label: "vcut {{x(e)}},{{y(e)}}"
            do:
              - move top(box) to e
          - choose: e in cells(hcut) where size(e) == 0 and size(box) > 0
            label: "hcut {{x(e)}},{{y(e)}}"
            do:
              - move top(box) to e
          - label: stop
            do:
              - done = true
"""

_games: dict = {}


def maze_game(tmp_path, w: int, h: int, kind: str = "grid", views: bool = False):
    key = (w, h, kind, views)
    if key not in _games:
        path = tmp_path / f"maze_{w}x{h}_{kind}.yaml"
        path.write_text(MAZE.format(w=w, h=h, w1=w - 1, h1=h - 1, kind=kind,
                                    cells=w * h + (w - 1) * h + w * (h - 1)))
        _games[key] = Spec(path).game(1, views=views)
    return _games[key]


def build(game, rocks=(), vcuts=(), hcuts=()):
    """A state of the maze with rocks on the cells `rocks` ((x, y) pairs) and the edges
    cut, built by the game's own actions."""
    st = game.new_state(seed=0)
    for kind, cells in (("rock", rocks), ("vcut", vcuts), ("hcut", hcuts)):
        for x, y in cells:
            st.apply_string(f"{kind} {x},{y}")
    return st


def drawn(picture: str):
    """A maze drawn as text: a line per row of cells, '#' a rock, '.' (or a letter) a
    free cell, between two cells of a row '|' a cut edge and ' ' none; under a row, a
    line of '-' (the edge below the cell above is cut) and '+' (it is not), one per
    column. -> (w, h, rocks, vcuts, hcuts, letters: letter -> (x, y))."""
    lines = textwrap.dedent(picture).strip("\n").split("\n")
    rows, unders = [], {}
    for line in lines:
        if set(line) <= set("-+ "):
            unders[len(rows) - 1] = line
        else:
            rows.append(line)
    w, h = (len(rows[0]) + 1) // 2, len(rows)
    rocks, vcuts, hcuts, letters = [], [], [], {}
    for y, row in enumerate(rows):
        under = unders.get(y, "")
        for x in range(w):
            ch = row[2 * x]
            if ch == "#":
                rocks.append((x, y))
            elif ch.isalpha():
                letters[ch] = (x, y)
            if x < w - 1 and row[2 * x + 1] == "|":
                vcuts.append((x, y))
            if 2 * x < len(under) and under[2 * x] == "-":
                hcuts.append((x, y))
    return w, h, rocks, vcuts, hcuts, letters


# ---- the plain search the interpreter is checked against ---------------------------------

def square_steps(w: int, h: int, diagonal: bool):
    def steps(x, y):
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if (dx or dy) and (diagonal or not (dx and dy)) \
                        and 0 <= x + dx < w and 0 <= y + dy < h:
                    yield x + dx, y + dy
    return steps


def hex_steps(w: int, h: int):
    """The six neighbours of an "odd-r" hex board (odd rows shifted right), by hand."""
    def steps(x, y):
        shift = y % 2
        for dx, dy in ((1, 0), (-1, 0), (shift - 1, -1), (shift, -1), (shift - 1, 1),
                       (shift, 1)):
            if 0 <= x + dx < w and 0 <= y + dy < h:
                yield x + dx, y + dy
    return steps


def bfs(steps, start, goal, open_step):
    """Steps of a shortest path from start to a cell where goal holds, taking only steps
    (a, b) where open_step holds; None if there is none."""
    if goal(start):
        return 0
    dist, todo = {start: 0}, deque([start])
    while todo:
        a = todo.popleft()
        for b in steps(*a):
            if b not in dist and open_step(a, b):
                dist[b] = dist[a] + 1
                if goal(b):
                    return dist[b]
                todo.append(b)
    return None


def cut_between(vcuts, hcuts):
    vc, hc = set(vcuts), set(hcuts)

    def cut(a, b):
        (ax, ay), (bx, by) = a, b
        if ay == by:
            return (min(ax, bx), ay) in vc
        return (ax, min(ay, by)) in hc
    return cut


def ask(st, text: str):
    return st.prog.compile_expression(text)(st)


# ---- mazes drawn by hand ------------------------------------------------------------------

SPIRAL = """
    S . . . . .
    # # # # # .
    . . . . # .
    . # G . # .
    . # # # # .
    . . . . . .
"""


def test_a_drawn_maze_distances_and_reachability(tmp_path):
    w, h, rocks, _, _, at = drawn(SPIRAL)
    st = build(maze_game(tmp_path, w, h), rocks)
    (sx, sy), (gx, gy) = at["S"], at["G"]
    d = ask(st, f"distance_to(c from board[{sx}, {sy}] to c == board[{gx}, {gy}] "
                "where size(c) == 0)")
    assert d == 5 + 5 + 5 + 6 == bfs(square_steps(w, h, False), at["S"],
                                         lambda c: c == at["G"], lambda a, b: b not in rocks)
    # the goal as a cell (to t), and reaches
    assert ask(st, f"distance_to(c from board[{sx}, {sy}] to board[{gx}, {gy}] "
                   "where size(c) == 0)") == d
    assert ask(st, f"reaches(c from board[{sx}, {sy}] to board[{gx}, {gy}] where size(c) == 0)")
    # the start is the goal: 0, whatever the condition says of it (it is never tested)
    assert ask(st, f"distance_to(c from board[{sx}, {sy}] to c == board[{sx}, {sy}] "
                   "where false)") == 0
    assert ask(st, f"reaches(c from board[{sx}, {sy}] to c == board[{sx}, {sy}] where false)")
    # the goal cell must be entered: a goal on a rock is never reached
    assert ask(st, f"distance_to(c from board[{sx}, {sy}] to c == board[1, 1] "
                   "where size(c) == 0)") is None
    # diagonal steps cut the spiral's corners short
    diag = bfs(square_steps(w, h, True), at["S"], lambda c: c == at["G"],
               lambda a, b: b not in rocks)
    assert ask(st, f"distance_to_around(c from board[{sx}, {sy}] to c == board[{gx}, {gy}] "
                   "where size(c) == 0)") == diag < d
    # the way itself: along the top row, down the right column, along the bottom row,
    # up the left one and in
    way = ask(st, f"[[x(c), y(c)] for c in path_to(c from board[{sx}, {sy}] to "
                  f"board[{gx}, {gy}] where size(c) == 0)]")
    assert len(way) == d + 1 and way[:2] == [[0, 0], [1, 0]] and way[-1] == [gx, gy]
    assert [5, 5] in way and [0, 5] in way and [2, 2] in way
    assert ask(st, f"path_to(c from board[{sx}, {sy}] to c == board[1, 1] "
                   "where size(c) == 0)") == []
    assert ask(st, f"[x(c) for c in path_to(c from board[{sx}, {sy}] to true where false)]") == [0]
    # none from nowhere
    assert ask(st, "distance_to(c from none to true where true)") is None
    assert ask(st, "reaches(c from none to true where true)") is False
    assert ask(st, "path_to(c from none to true where true)") == []


WALLED = """
    S . . . .
    - + + + +
    . .|. . .
    + - - - -
    . . . .|.
    - - - + +
    . . .|G .
"""


def test_blocked_edges(tmp_path):
    """Walls between cells, no rock: the step form forbids the steps across them."""
    w, h, rocks, vcuts, hcuts, at = drawn(WALLED)
    assert not rocks and (1, 1) in vcuts and (0, 0) in hcuts and (2, 3) in vcuts
    st = build(maze_game(tmp_path, w, h), rocks, vcuts, hcuts)
    cut = cut_between(vcuts, hcuts)
    (sx, sy), (gx, gy) = at["S"], at["G"]
    want = bfs(square_steps(w, h, False), at["S"], lambda c: c == at["G"],
               lambda a, b: not cut(a, b))
    assert want is not None and want > abs(gx - sx) + abs(gy - sy)
    assert ask(st, f"distance_to(a -> b from board[{sx}, {sy}] to b == board[{gx}, {gy}] "
                   "where not cut(a, b))") == want
    # the cell form cannot see the walls: the straight distance
    assert ask(st, f"distance_to(c from board[{sx}, {sy}] to c == board[{gx}, {gy}] "
                   "where true)") == abs(gx - sx) + abs(gy - sy)
    # the bottom row, as a spec function of the start cell (far(s)): the goal is a row
    assert ask(st, f"far(board[{sx}, {sy}])") == bfs(
        square_steps(w, h, False), at["S"], lambda c: c[1] == h - 1,
        lambda a, b: not cut(a, b))


def test_a_goal_cut_off_is_none(tmp_path):
    """A wall all along row 1's bottom edge: the bottom rows cannot be reached from the top."""
    w, h = 4, 4
    hcuts = [(x, 1) for x in range(w)]
    st = build(maze_game(tmp_path, w, h), (), (), hcuts)
    assert ask(st, "distance_to(a -> b from board[0, 0] to y(b) == 3 where not cut(a, b))") is None
    assert ask(st, "reaches(a -> b from board[0, 0] to y(b) == 3 where not cut(a, b))") is False
    assert ask(st, "reaches(a -> b from board[0, 0] to y(b) == 1 where not cut(a, b))") is True
    # a step condition that reads both ends as cells (not only the cut): never up
    assert ask(st, "distance_to(a -> b from board[0, 3] to y(b) == 2 where y(b) >= y(a))") is None
    assert ask(st, "distance_to(a -> b from board[0, 3] to y(b) == 2 where true)") == 1


# ---- random mazes: every start, every goal -------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_random_mazes_match_a_plain_search(tmp_path, seed):
    rng = random.Random(seed)
    w, h = 6, 5
    cells = [(x, y) for y in range(h) for x in range(w)]
    rocks = [c for c in cells if rng.random() < 0.25]
    vcuts = [(x, y) for y in range(h) for x in range(w - 1) if rng.random() < 0.2]
    hcuts = [(x, y) for y in range(h - 1) for x in range(w) if rng.random() < 0.2]
    st = build(maze_game(tmp_path, w, h), rocks, vcuts, hcuts)
    cut = cut_between(vcuts, hcuts)
    free = [c for c in cells if c not in rocks]
    # every distance from every free cell to every cell, in the board's order
    forms = {
        "distance_to(c from s to c == g where size(c) == 0)":
            (square_steps(w, h, False), lambda a, b: b not in rocks),
        "distance_to_around(c from s to c == g where size(c) == 0)":
            (square_steps(w, h, True), lambda a, b: b not in rocks),
        "distance_to(a -> b from s to b == g where size(b) == 0 and not cut(a, b))":
            (square_steps(w, h, False), lambda a, b: b not in rocks and not cut(a, b)),
    }
    for form, (steps, open_step) in forms.items():
        got = ask(st, f"[[{form} for g in cells(board)] for s in cells(board) "
                      "where size(s) == 0]")
        want = [[bfs(steps, s, lambda c, g=g: c == g, open_step) for g in cells]
                for s in free]
        assert got == want, form
    # the ways themselves: from s to g, each step one the condition allows, as short as
    # the distance says; [] where there is none
    form = "path_to(a -> b from s to b == g where size(b) == 0 and not cut(a, b))"
    steps, open_step = forms[form.replace("path_to", "distance_to")]
    ways = ask(st, f"[[[[x(c), y(c)] for c in {form}] for g in cells(board)] "
                   "for s in cells(board) where size(s) == 0]")
    for s, row in zip(free, ways):
        for g, way in zip(cells, row):
            d = bfs(steps, s, lambda c, g=g: c == g, open_step)
            way = [tuple(c) for c in way]
            assert len(way) == (0 if d is None else d + 1), (s, g, way)
            if way:
                assert way[0] == s and way[-1] == g
                assert all(b in steps(*a) and open_step(a, b) for a, b in zip(way, way[1:]))
    reach = ask(st, "[reaches(a -> b from s to y(b) == 0 where size(b) == 0 and not cut(a, b)) "
                    "for s in cells(board) where size(s) == 0]")
    assert reach == [bfs(square_steps(w, h, False), s, lambda c: c[1] == 0,
                         lambda a, b: b not in rocks and not cut(a, b)) is not None
                     for s in free]


def test_hex_board(tmp_path):
    """On a hex board a step crosses a side: the six neighbours of geometry.py's tables,
    checked against the odd-r rule written here."""
    w, h = 5, 4
    rocks = [(1, 1), (2, 1), (3, 2), (1, 2), (2, 3)]
    st = build(maze_game(tmp_path, w, h, kind="hex"), rocks)
    cells = [(x, y) for y in range(h) for x in range(w)]
    got = ask(st, "[[distance_to(c from s to c == g where size(c) == 0) for g in cells(board)] "
                  "for s in cells(board) where size(s) == 0]")
    want = [[bfs(hex_steps(w, h), s, lambda c, g=g: c == g, lambda a, b: b not in rocks)
             for g in cells] for s in cells if s not in rocks]
    assert got == want
    assert any(d is None for row in got for d in row)       # (1,1)..: a cell walled in?
    # the _around form is the same on a hex board (every step crosses a side)
    assert ask(st, "[distance_to_around(c from board[0, 0] to c == g where size(c) == 0) "
                   "for g in cells(board)]") == got[0]


# ---- cost: the search stops at the first goal, and counts its work -------------------------

def spent(st, text: str) -> tuple:
    """(the value of text, the work it counted: readers.B_work's items)."""
    st.prog.work[0] = 0
    value = ask(st, text)
    return value, st.prog.work[0]


def test_the_search_stops_at_the_first_goal(tmp_path):
    """On an open 30 x 30 board a goal next to the start costs the start's neighbours
    only; a goal that cannot be reached costs every cell's (the whole board)."""
    st = build(maze_game(tmp_path, 30, 30))
    near, work = spent(st, "distance_to(c from board[0, 0] to c == board[1, 0] where true)")
    assert near == 1 and work == 2            # the corner's two neighbours, nothing else
    near, work = spent(st, "distance_to(c from board[5, 5] to y(c) == 3 where true)")
    assert near == 2 and work <= 4 * 13       # the cells within 1 step, their neighbours
    whole = sum(len(list(square_steps(30, 30, False)(x, y))) for x in range(30)
                for y in range(30))
    nowhere, work = spent(st, "distance_to(c from board[0, 0] to false where true)")
    assert nowhere is None and work == whole
    far_corner, work = spent(st, "distance_to(c from board[0, 0] to c == board[29, 29] "
                                 "where true)")
    assert far_corner == 58 and work < whole


def test_a_search_nested_in_a_generator_is_bounded_by_the_work_budget(tmp_path, monkeypatch):
    """Searches from every cell of a large board each cost the board: the budget stops
    them with a located error (the budget lowered here, to keep the test cheap)."""
    monkeypatch.setattr(boards_stage, "WORK_LIMIT", 50_000)
    _games.clear()
    game = maze_game(tmp_path, 40, 40)
    _games.clear()
    st = build(game)
    text = "count(s for s in cells(board) where reaches(c from s to false where true))"
    err = raised(lambda: ask(st, text), RuleError)
    assert "items taken by generators" in err.message
    assert err.pos.col == text.index("reaches(") + 1


# ---- views: a condition over cells that asks for a path is tested on every cell -------------

VIEWED = """\
scoring:
  points:
    free: {value: "count(s for s in cells(board) where size(s) == 0)"}
    out:
      value: count(s for s in cells(board) where reaches(c from s to y(c) == 0 where size(c) == 0))
"""


def test_a_path_is_never_part_of_a_view(tmp_path, monkeypatch):
    """The stencil of a condition that asks for a path is None (compiler/stencil.py has
    no case for a Path: a search reads unboundedly far), so its generator is a plain
    loop; the generator beside it, over the same cells, is a view."""
    asked = []
    real = builtins_stage.Builtins.stencil_of

    def spy(self, parts, name):
        found = real(self, parts, name)
        asked.append((parts, found))
        return found
    monkeypatch.setattr(builtins_stage.Builtins, "stencil_of", spy)
    path = tmp_path / "viewed.yaml"
    path.write_text(MAZE.format(w=4, h=4, w1=3, h1=3, kind="grid", cells=40) + VIEWED)
    game = Spec(path).game(1, views=True)
    paths = [found for parts, found in asked
             if any("Path(" in repr(p) for p in parts)]
    others = [found for parts, found in asked if not any("Path(" in repr(p) for p in parts)]
    assert paths and all(found is None for found in paths)
    assert others and all(found is not None for found in others)
    code = "".join(game.prog.module.chunks)
    assert "B_view(" in code
    views = re.findall(r"def (V[0-9]+)\(.*\n(?:    .*\n)+", code)
    assert views and not any(re.search(r"\bG[0-9]+\(", v) for v in views)
    st = build(game, [(x, 1) for x in range(4)])
    # 12 free cells; from the 4 of row 0 (goals) and the 4 rocks of row 1 (a start is
    # never tested) the top row is reached, from the 8 below not
    assert st.scores() == [12 + 8]


GAME = """\
game: {id: climb, name: Climb, source: a test, players: {min: 2, max: 2}, max_steps: 100000}
components:
  rock: {name: rock, count: 14, zone: box}
zones:
  box: {kind: set, visibility: public}
  board: {kind: grid, width: 5, height: 5, visibility: public}
functions:
  # a rock may go where the bottom row can still reach the top row around it
  ok:
    params: [c]
    value: >-
      size(c) == 0 and y(c) > 0 and y(c) < 4 and
      reaches(d -> e from board[x(c), 4] to y(e) == 0 where e != c and size(e) == 0)
  nearby:
    params: [c]
    value: size(c) == 0 and distance_to(d from c to size(d) > 0 where true) == 2
play:
  - turns: {first: 0, until: "size(box) == 0"}
    do:
      - choose_one:
          - choose: c in cells(board) where ok(c)
            label: "rock {x(c)},{y(c)}"
            do:
              - move top(box) to c
          - choose: c in cells(board) where nearby(c) and size(box) > 1
            label: "near {x(c)},{y(c)}"
            do:
              - move top(box) to c
        else:
          - end game
scoring:
  points:
    open:
      value: count(c for c in cells(board) where reaches(d from c to y(d) == 0 where size(d) == 0))
"""


def test_conditions_with_a_path_play_the_same_with_views_and_without(tmp_path):
    """The choices' conditions ask for paths that read cells far from the cell chosen:
    had they been views, kept up to date from the cells near each move, the legal actions
    would go stale (a rock far away cuts a path)."""
    path = tmp_path / "climb.yaml"
    path.write_text(GAME)
    spec = Spec(path)
    with_views, without = spec.game(2, views=True), spec.game(2, views=False)
    assert "B_view(" not in "".join(with_views.prog.module.chunks)
    decisions = 0
    for seed in range(6):
        a, b = with_views.new_state(seed=seed), without.new_state(seed=seed)
        rng = random.Random(seed)
        while not a.terminal:
            acts = a.legal_actions()
            assert acts == b.legal_actions()
            act = acts[int(rng.random() * len(acts))]
            a.apply(act)
            b.apply(act)
            decisions += 1
        assert a.scores() == b.scores()
    assert decisions > 30


# ---- errors ---------------------------------------------------------------------------------

BOARDS = """\
game: {id: err, name: Err, source: a test, players: {min: 1, max: 1}}
zones:
  box: {kind: set, visibility: public}
  board: {kind: grid, width: 3, height: 3, visibility: public}
  other: {kind: grid, width: 3, height: 3, visibility: public}
play:
  - end game
scoring:
  points:
    p: {value: "VALUE"}
"""


@pytest.mark.parametrize("value,message", [
    ("if reaches(c from board[0, 0] to other[1, 1] where true) then 1 else 0",
     "the goal is a cell of zone 'other' and the start one of zone 'board'"),
    ("if reaches(c from board to y(c) == 0 where true) then 1 else 0",
     "a path starts from a cell, not zone 'board'"),
    ("if reaches(c from box to y(c) == 0 where true) then 1 else 0",
     "a path runs on a board, and zone 'box' has one slot"),
    ("if reaches(c from 3 to y(c) == 0 where true) then 1 else 0",
     "a path starts from a cell, not a number"),
    ("if reaches(c from board[0, 0] where true) then 1 else 0",
     "reaches() needs a goal"),
    ("distance_to(a -> b from board[0, 0] to y(a) == 2 where true)",
     "cannot read 'a'"),
    ("distance_to(c from board[0, 0] to other where true)",
     "the goal must be a condition on c or a cell, not zone 'other'"),
    ("distance_to(c from board[0, 0] to neighbour(c, 'e') where true)",
     "the goal cell cannot depend on c"),
    ("size(group(c from board[0, 0] to y(c) == 0 where true))", "group() takes no goal"),
    ("distance(c from board[0, 0] to y(c) == 0 where true)", "did you mean 'distance_to'"),
    ("if reaches(board[0, 0], board[1, 1]) then 1 else 0",
     "reaches() is not called with arguments: it is written reaches(c from start to GOAL"),
    ("distance_to(a -> a from board[0, 0] to y(a) == 2 where true)", "names both the same"),
    ("distance_to(a -> b from board[0, 0] to y(b) == 2)", "expected 'where'"),
])
def test_misuse_is_a_located_error(tmp_path, value, message):
    path = tmp_path / "err.yaml"
    text = BOARDS.replace("VALUE", value)
    path.write_text(text)
    err = raised(lambda: Spec(path).game(1), SpecError)
    assert message in str(err), str(err)
    assert err.pos.line == text.count("\n", 0, text.index(value)) + 1
    line = text.splitlines()[err.pos.line - 1]
    assert line.index(value) < err.pos.col <= line.index(value) + len(value) + 1


def test_the_step_form_needs_no_new_word():
    """`->` is a token of its own: `a - > b` is not a step, and `->` elsewhere is a
    syntax error, not a comparison."""
    with pytest.raises(SpecError, match="syntax error"):
        parse("reaches(a - > b from s to true where true)")
    with pytest.raises(SpecError, match="syntax error"):
        parse("a -> b")
    node = parse("reaches(a -> b from s to y(b) == 0 where not cut(a, b))")
    assert (node.prev, node.var) == ("a", "b")
    assert re.fullmatch(r"Path\(.*\)", repr(node), re.S)


def test_the_generated_search_uses_the_generated_code_s_own_names(tmp_path):
    """A search is a G function of plain loops over names of generated code
    (helpers.GENERATED), and calls no helper the other generated code does not."""
    game = maze_game(tmp_path, 4, 4)
    ask(build(game), "[far(s) for s in cells(board)]")
    code = "".join(game.prog.module.chunks)
    searches = re.findall(r"def G[0-9]+\(.*# distance_to\n(?:    .*\n)+", code)
    assert searches and all("while todo:" in src and "return n" in src for src in searches)
    names = {t.string for t in tokenize.generate_tokens(io.StringIO(code).readline)
             if t.type == tokenize.NAME}
    assert {n for n in names if not GENERATED.fullmatch(n)} == set()
