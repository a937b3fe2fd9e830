"""Board geometry tables (interpreter/runtime/geometry.py) against hand-written boards and a
direct reimplementation of the compiler's neighbour loop."""

import pytest

from tabula_rules.runtime.geometry import (
    DIAGONAL,
    GRID_DIRECTIONS,
    HEX_DIRECTIONS,
    MAX_CELLS,
    OPPOSITE,
    ORTHOGONAL,
    Geometry,
    geometry,
)

SHAPES = [(1, 1), (1, 5), (5, 1), (2, 2), (3, 3), (4, 3), (3, 4), (7, 5)]


def loop_neighbours(w, h):
    """The compiler's loop, written out plainly: what adj4/adj8 must equal."""
    adj4, adj8 = [], []
    for i in range(w * h):
        x, y = i % w, i // w
        near4, near8 = [], []
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                nx, ny = x + dx, y + dy
                if (dx, dy) != (0, 0) and 0 <= nx < w and 0 <= ny < h:
                    near8.append(ny * w + nx)
                    if dx == 0 or dy == 0:
                        near4.append(ny * w + nx)
        adj4.append(tuple(near4))
        adj8.append(tuple(near8))
    return tuple(adj4), tuple(adj8)


# --- square grids -------------------------------------------------------------------
#   3 x 3        4 x 3
#   0 1 2        0  1  2  3
#   3 4 5        4  5  6  7
#   6 7 8        8  9 10 11

def test_grid_3x3_steps():
    g = geometry("grid", 3, 3)
    assert g.directions == ("n", "ne", "e", "se", "s", "sw", "w", "nw")
    assert {d: g.step[d][4] for d in g.directions} == {
        "n": 1, "ne": 2, "e": 5, "se": 8, "s": 7, "sw": 6, "w": 3, "nw": 0}
    assert {d: g.step[d][0] for d in g.directions} == {
        "n": -1, "ne": -1, "e": 1, "se": 4, "s": 3, "sw": -1, "w": -1, "nw": -1}
    assert g.step["n"] == (-1, -1, -1, 0, 1, 2, 3, 4, 5)
    assert g.step["e"] == (1, 2, -1, 4, 5, -1, 7, 8, -1)
    assert g.step["sw"] == (-1, 3, 4, -1, 6, 7, -1, -1, -1)


def test_grid_3x3_rays():
    g = geometry("grid", 3, 3)
    assert {d: g.ray[d][4] for d in g.directions} == {
        "n": (1,), "ne": (2,), "e": (5,), "se": (8,), "s": (7,), "sw": (6,), "w": (3,),
        "nw": (0,)}
    assert {d: g.ray[d][0] for d in g.directions} == {
        "n": (), "ne": (), "e": (1, 2), "se": (4, 8), "s": (3, 6), "sw": (), "w": (),
        "nw": ()}
    assert {d: g.ray[d][8] for d in g.directions} == {
        "n": (5, 2), "ne": (), "e": (), "se": (), "s": (), "sw": (), "w": (7, 6),
        "nw": (4, 0)}


def test_grid_4x3_steps_and_rays():
    g = geometry("grid", 4, 3)
    assert g.size == 12
    # centre-ish cell 5 = (1, 1)
    assert {d: g.step[d][5] for d in g.directions} == {
        "n": 1, "ne": 2, "e": 6, "se": 10, "s": 9, "sw": 8, "w": 4, "nw": 0}
    assert {d: g.ray[d][5] for d in g.directions} == {
        "n": (1,), "ne": (2,), "e": (6, 7), "se": (10,), "s": (9,), "sw": (8,),
        "w": (4,), "nw": (0,)}
    # top-right corner 3 = (3, 0)
    assert {d: g.ray[d][3] for d in g.directions} == {
        "n": (), "ne": (), "e": (), "se": (), "s": (7, 11), "sw": (6, 9), "w": (2, 1, 0),
        "nw": ()}
    # bottom-left corner 8 = (0, 2)
    assert {d: g.ray[d][8] for d in g.directions} == {
        "n": (4, 0), "ne": (5, 2), "e": (9, 10, 11), "se": (), "s": (), "sw": (), "w": (),
        "nw": ()}
    assert g.step["se"][7] == -1 and g.step["ne"][8] == 5 and g.step["ne"][3] == -1


def test_grid_xy_and_index():
    g = geometry("grid", 4, 3)
    assert g.xy[0] == (0, 0) and g.xy[3] == (3, 0) and g.xy[6] == (2, 1) and g.xy[11] == (3, 2)
    assert [g.index(*g.xy[i]) for i in range(12)] == list(range(12))
    assert g.index(2, 1) == 6
    for x, y in [(-1, 0), (4, 0), (0, -1), (0, 3), (4, 2), (-1, -1)]:
        assert g.index(x, y) == -1


@pytest.mark.parametrize("w,h", SHAPES)
def test_grid_neighbour_order_is_the_compilers(w, h):
    g = geometry("grid", w, h)
    adj4, adj8 = loop_neighbours(w, h)
    assert g.adj4 == adj4
    assert g.adj8 == adj8
    assert g.adjacent == adj4


@pytest.mark.parametrize("w,h", SHAPES)
def test_grid_steps_agree_with_neighbours(w, h):
    g = geometry("grid", w, h)
    for i in range(w * h):
        assert sorted(c for c in (g.step[d][i] for d in ORTHOGONAL) if c >= 0) == list(g.adj4[i])
        assert sorted(c for c in (g.step[d][i] for d in g.directions) if c >= 0) == list(g.adj8[i])


@pytest.mark.parametrize("w,h", SHAPES)
def test_grid_rays_follow_steps_to_the_edge(w, h):
    g = geometry("grid", w, h)
    for d in g.directions:
        dx = {"e": 1, "w": -1}.get(d[-1], 0)
        dy = {"n": -1, "s": 1}.get(d[0], 0)
        for i in range(w * h):
            x, y = g.xy[i]
            expected = []
            while 0 <= x + dx < w and 0 <= y + dy < h:
                x, y = x + dx, y + dy
                expected.append(y * w + x)
            assert g.ray[d][i] == tuple(expected), (d, i)


@pytest.mark.parametrize("w,h", [(2, 2), (3, 3), (4, 3), (7, 5), (10, 2)])
def test_grid_edges_and_corners(w, h):
    g = geometry("grid", w, h)
    assert sum(g.corner) == 4
    assert sum(g.on_edge) == 2 * w + 2 * h - 4
    assert [i for i in range(w * h) if g.corner[i]] == [0, w - 1, w * (h - 1), w * h - 1]
    for i, (x, y) in enumerate(g.xy):
        assert g.on_edge[i] == (x in (0, w - 1) or y in (0, h - 1))


def test_grid_one_wide_keeps_the_compilers_definitions():
    # every cell of a 1-wide board has fewer than 4 orthogonal neighbours; the middle
    # ones have exactly 2, which the compiler has always called corners
    g = geometry("grid", 1, 4)
    assert g.on_edge == (True,) * 4
    assert g.corner == (False, True, True, False)
    one = geometry("grid", 1, 1)
    assert one.adj8 == ((),) and one.on_edge == (True,) and one.corner == (False,)
    assert all(one.step[d] == (-1,) and one.ray[d][0] == () for d in one.directions)


def test_direction_sets():
    assert set(ORTHOGONAL) | set(DIAGONAL) == set(GRID_DIRECTIONS)
    assert not set(ORTHOGONAL) & set(DIAGONAL)
    for d in GRID_DIRECTIONS:
        assert OPPOSITE[OPPOSITE[d]] == d != OPPOSITE[d]
    assert all(OPPOSITE[d] in HEX_DIRECTIONS for d in HEX_DIRECTIONS)


@pytest.mark.parametrize("w,h", [(3, 3), (4, 3), (5, 6)])
def test_grid_distance_is_kings_steps(w, h):
    g = geometry("grid", w, h)
    for a in range(w * h):
        far = breadth_first(g.adj8, a)
        assert [g.distance(a, b) for b in range(w * h)] == far


# --- hex boards ---------------------------------------------------------------------
# odd-r, pointy-top; odd rows shoved right:
#   4 x 3:   0   1   2   3
#              4   5   6   7
#            8   9  10  11

def test_hex_4x3_by_hand():
    g = geometry("hex", 4, 3)
    assert g.directions == ("e", "ne", "nw", "w", "sw", "se")
    assert {d: g.step[d][5] for d in g.directions} == {
        "e": 6, "ne": 2, "nw": 1, "w": 4, "sw": 9, "se": 10}
    assert {d: g.step[d][0] for d in g.directions} == {
        "e": 1, "ne": -1, "nw": -1, "w": -1, "sw": -1, "se": 4}
    # odd row, right end: nothing to the east or the north-east
    assert {d: g.step[d][7] for d in g.directions} == {
        "e": -1, "ne": -1, "nw": 3, "w": 6, "sw": 11, "se": -1}
    assert g.adj4[5] == g.adj8[5] == g.adjacent[5] == (1, 2, 4, 6, 9, 10)
    assert g.adjacent[0] == (1, 4)
    assert g.adjacent[4] == (0, 1, 5, 8, 9)
    assert g.ray["ne"][8] == (4, 1)
    assert g.ray["se"][0] == (4, 9)
    assert g.ray["sw"][3] == (6, 10)
    assert g.ray["e"][4] == (5, 6, 7)
    assert g.ray["nw"][11] == (6, 2)
    assert "n" not in g.step and "s" not in g.step


def test_hex_edges_and_corners():
    g = geometry("hex", 4, 3)
    # only 5 and 6 have all six neighbours
    assert [i for i in range(12) if not g.on_edge[i]] == [5, 6]
    assert [i for i in range(12) if g.corner[i]] == [0, 3, 8, 11]


@pytest.mark.parametrize("w,h", SHAPES + [(6, 6)])
def test_hex_steps_are_symmetric(w, h):
    g = geometry("hex", w, h)
    for d in g.directions:
        back = g.step[OPPOSITE[d]]
        for a in range(w * h):
            b = g.step[d][a]
            if b != -1:
                assert back[b] == a, (d, a, b)
    for a in range(w * h):
        assert len(g.adjacent[a]) <= 6
        assert list(g.adjacent[a]) == sorted(g.adjacent[a])
        for b in g.adjacent[a]:
            assert a in g.adjacent[b]


@pytest.mark.parametrize("w,h", [(4, 3), (5, 6), (6, 5)])
def test_hex_rays(w, h):
    g = geometry("hex", w, h)
    for d in g.directions:
        for a in range(w * h):
            ray = g.ray[d][a]
            assert len(ray) == len(set(ray))
            # a ray is the chain of steps, and moves one hex further away each time
            prev = a
            for k, c in enumerate(ray, 1):
                assert g.step[d][prev] == c
                assert g.distance(a, c) == k
                prev = c
            assert g.step[d][prev] == -1
            # and the opposite ray from the far end comes back through the same cells
            if ray:
                assert g.ray[OPPOSITE[d]][ray[-1]][:len(ray)] == tuple(reversed(ray[:-1])) + (a,)
    # the east ray of a row's first cell is the rest of the row
    assert all(len(g.ray["e"][y * w]) == w - 1 for y in range(h))


def test_hex_diagonal_ray_lengths_on_6x6():
    g = geometry("hex", 6, 6)
    # from the bottom-left cell (0, 5), odd row: north-east climbs a slanted line
    # (1,4) (1,3) (2,2) (2,1) (3,0)
    assert g.ray["ne"][30] == (25, 19, 14, 8, 3)
    # from the top-left (0, 0), south-east: (0,1) (1,2) (1,3) (2,4) (2,5)
    assert g.ray["se"][0] == (6, 13, 19, 26, 32)
    assert g.ray["sw"][0] == ()
    # row 5 is shoved right, so (0, 5) has a north-west neighbour, (0, 4); row 4 is not
    assert g.ray["nw"][30] == (24,)
    assert g.ray["se"][24] == (30,) and g.ray["sw"][24] == ()


@pytest.mark.parametrize("w,h", [(4, 3), (5, 6), (7, 7)])
def test_hex_distance_counts_steps(w, h):
    g = geometry("hex", w, h)
    for a in range(w * h):
        far = breadth_first(g.adjacent, a)
        # on a rectangle, walking around the board edge never beats a straight path
        assert [g.distance(a, b) for b in range(w * h)] == far


def breadth_first(adj, start):
    far = [-1] * len(adj)
    far[start], frontier = 0, [start]
    while frontier:
        nxt = []
        for a in frontier:
            for b in adj[a]:
                if far[b] < 0:
                    far[b] = far[a] + 1
                    nxt.append(b)
        frontier = nxt
    return far


# --- sharing and limits -------------------------------------------------------------

def test_cached_and_immutable():
    g = geometry("grid", 4, 3)
    assert geometry("grid", 4, 3) is g
    assert geometry("grid", 3, 4) is not g
    assert geometry("hex", 4, 3) is not g
    assert isinstance(g, Geometry)
    with pytest.raises(AttributeError):
        g.width = 5
    with pytest.raises(TypeError):
        g.step["n"] = ()
    with pytest.raises(TypeError):
        g.adj4[0] = ()
    assert isinstance(g.ray["e"][0], tuple) and isinstance(g.xy, tuple)


def test_off_board_cells_are_not_read_as_the_last_cell():
    g = geometry("grid", 3, 3)
    with pytest.raises(IndexError):
        g.ray["e"][-1]
    with pytest.raises(IndexError):
        g.ray["e"][9]
    assert len(g.ray["e"]) == 9


def test_long_row_rays_are_not_quadratic():
    # 5 * 10^9 ray entries if every ray were its own tuple
    g = geometry("grid", MAX_CELLS, 1)
    assert len(g.ray["e"][0]) == MAX_CELLS - 1
    assert g.ray["w"][MAX_CELLS - 1][:3] == (MAX_CELLS - 2, MAX_CELLS - 3, MAX_CELLS - 4)
    assert g.ray["n"][5] == () and g.step["e"][MAX_CELLS - 1] == -1


@pytest.mark.parametrize("kind,w,h,message", [
    ("grid", 0, 3, "at least 1 x 1"),
    ("grid", 3, 0, "at least 1 x 1"),
    ("hex", -2, 4, "at least 1 x 1"),
    ("grid", MAX_CELLS + 1, 1, "more than 100000"),
    ("hex", 400, 400, "160000 cells"),
    ("grid", 10**9, 10**9, "more than"),
    ("grid", 2.0, 3, "whole number"),
    ("grid", True, 3, "whole number"),
    ("grid", "3", 3, "whole number"),
    ("square", 3, 3, "unknown board kind"),
])
def test_bad_shapes_are_refused(kind, w, h, message):
    with pytest.raises(ValueError, match=message):
        geometry(kind, w, h)
