"""Board geometry as tables: neighbours, directions and rays of a grid or hex board.

Input: a board shape, `geometry(kind, width, height)` with kind "grid" (square cells) or
"hex" (hexagonal cells). Output: a frozen Geometry holding immutable tables indexed by
local cell (0 .. width*height - 1; the caller adds its zone's base slot): `xy`, `step`,
`ray`, `adj4`, `adj8`, `adjacent`, `on_edge`, `corner`, and the lookups `index(x, y)`
and `distance(a, b)`. A shape's tables are built once and shared by every zone and every
game of that shape (the function is cached).

Cells are numbered row by row, as the compiler numbers a zone's slots: cell i is at
x = i % width, y = i // width, and y grows downward (row 0 is the top row). A cell off
the board is -1.

Directions, in the fixed order of `Geometry.directions`:
  grid: n, ne, e, se, s, sw, w, nw (clockwise from n; n is the row above, y - 1).
  hex:  e, ne, nw, w, sw, se (counter-clockwise from e).

Hex layout: pointy-top hexagons in "odd-r" offset rows. Rows are horizontal, each odd
row (1, 3, ...) is shoved half a cell to the right, and the board is the width x height
rectangle of a printed hex map. It was chosen over axial coordinates in a parallelogram
because it keeps everything a grid zone has: the same width/height, the same row-by-row
numbering, the same (x, y) and a rectangular board; the cost, neighbour offsets that
depend on the row's parity, is paid once here, in the tables. Pointy-top has no n and s
(a column of hexes zigzags), hence the six directions above.

Neighbour lists (`adj4`, `adj8`) keep the order the compiler has always produced, the
reading order of the 3 x 3 block around the cell (dy in -1, 0, 1, then dx in -1, 0, 1),
because games iterate over them and their results depend on it. That order is ascending
cell order, so hex lists are ascending too; on a hex board `adj4`, `adj8` and `adjacent`
are the same six (or fewer) neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

KINDS = ("grid", "hex")
NO_LINE = "no such direction here"   # in tables of lines over many zones: not a board's
MAX_CELLS = 100_000
# shapes kept built at once; a spec has a handful, so more only holds memory
CACHE_SIZE = 64

GRID_DIRECTIONS = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
HEX_DIRECTIONS = ("e", "ne", "nw", "w", "sw", "se")
# tuples rather than sets: iterating a frozenset of strings changes order with the
# interpreter's hash seed, and games must not
ORTHOGONAL = ("n", "e", "s", "w")
DIAGONAL = ("ne", "se", "sw", "nw")
# one table serves both kinds: every hex direction's opposite is a hex direction too
OPPOSITE = MappingProxyType({"n": "s", "ne": "sw", "e": "w", "se": "nw",
                             "s": "n", "sw": "ne", "w": "e", "nw": "se"})

GRID_DELTA = MappingProxyType({"n": (0, -1), "ne": (1, -1), "e": (1, 0), "se": (1, 1),
                               "s": (0, 1), "sw": (-1, 1), "w": (-1, 0), "nw": (-1, -1)})
# odd-r offsets per row parity, from https://www.redblobgames.com/grids/hexagons/
# ("Offset coordinates", oddr_direction_differences): [0] for even rows, [1] for odd
HEX_DELTA = (
    MappingProxyType({"e": (1, 0), "ne": (0, -1), "nw": (-1, -1),
                      "w": (-1, 0), "sw": (-1, 1), "se": (0, 1)}),
    MappingProxyType({"e": (1, 0), "ne": (1, -1), "nw": (0, -1),
                      "w": (-1, 0), "sw": (0, 1), "se": (1, 1)}),
)


class RayTable(Sequence[tuple[int, ...]]):
    """ray[d][cell] for one direction: the cells from `cell` (exclusive) to the edge.

    Stored as the board's lines in that direction, each cell knowing its line and its
    place on it, so the table is one entry per cell; tuples of every ray would be
    quadratic (a 1 x 100,000 row has 5 * 10^9 ray entries). A lookup returns a tuple
    slice, which costs what iterating over the ray costs anyway.
    """

    __slots__ = ("_lines", "_line", "_place")

    def __init__(self, lines: tuple[tuple[int, ...], ...], line: tuple[int, ...],
                 place: tuple[int, ...]):
        self._lines, self._line, self._place = lines, line, place

    def __len__(self) -> int:
        return len(self._line)

    def __getitem__(self, cell: int) -> tuple[int, ...]:  # type: ignore[override]  # no slices
        # no negative indices: -1 means off the board, and must not read the last cell
        if not isinstance(cell, int) or not 0 <= cell < len(self._line):
            raise IndexError(f"no cell {cell!r} on this board")
        return self._lines[self._line[cell]][self._place[cell] + 1:]

    def __repr__(self) -> str:
        return f"RayTable({len(self._line)} cells, {len(self._lines)} lines)"


@dataclass(frozen=True, eq=False, repr=False)
class Geometry:
    """The tables of one board shape. Shared between zones and games: never change it."""
    kind: str
    width: int
    height: int
    size: int                      # width * height cells
    directions: tuple[str, ...]    # names, in the order given in the module docstring
    xy: tuple[tuple[int, int], ...]    # xy[cell] -> (x, y)
    # step[d][cell] -> neighbour in direction d, or -1
    step: MappingProxyType[str, tuple[int, ...]]
    ray: MappingProxyType[str, RayTable]   # ray[d][cell] -> tuple of cells to the edge (RayTable)
    adj4: tuple[tuple[int, ...], ...]      # grid: orthogonal neighbours; hex: the six
    adj8: tuple[tuple[int, ...], ...]      # grid: with the diagonal ones; hex: the six
    on_edge: tuple[bool, ...]      # grid: < 4 orthogonal neighbours; hex: < 6 neighbours
    corner: tuple[bool, ...]       # grid: exactly 2 orthogonal neighbours; hex: the ends
                                   # of the first and last rows

    @property
    def adjacent(self) -> tuple[tuple[int, ...], ...]:
        """Neighbours sharing a side: adj4 on a grid, the six on a hex board."""
        return self.adj4

    def index(self, x: int, y: int) -> int:
        """The cell at (x, y), or -1 off the board."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return y * self.width + x
        return -1

    def distance(self, a: int, b: int) -> int:
        """Fewest steps from a to b through adj8: the king's distance on a grid (as the
        language's `distance`), hex steps on a hex board. The offset (x, y) of a hex
        cell cannot be subtracted, so this goes through axial coordinates."""
        (ax, ay), (bx, by) = self.xy[a], self.xy[b]
        if self.kind == "grid":
            return max(abs(ax - bx), abs(ay - by))
        # axial q of an odd-r cell (redblobgames, "Conversions": oddr_to_axial)
        dq = (ax - (ay - (ay & 1)) // 2) - (bx - (by - (by & 1)) // 2)
        dr = ay - by
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def __repr__(self) -> str:
        return f"Geometry({self.kind!r}, {self.width} x {self.height})"


def geometry(kind: str, width: int, height: int) -> Geometry:
    """The Geometry of a kind x width x height board, built once per shape.

    Raises ValueError for an unknown kind, a side that is not a whole number of at
    least 1, or more than MAX_CELLS cells: a spec's numbers must not decide how much
    memory the tables take.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown board kind {kind!r}: one of {', '.join(KINDS)}")
    for name, side in (("width", width), ("height", height)):
        # bool is an int, but true x 3 is a mistake, not a board
        if not isinstance(side, int) or isinstance(side, bool):
            raise ValueError(f"a {kind} board's {name} must be a whole number, not {side!r}")
    if width < 1 or height < 1:
        raise ValueError(f"a {kind} board must be at least 1 x 1, not {width} x {height}")
    if width * height > MAX_CELLS:
        raise ValueError(f"a {kind} board of {width} x {height} = {width * height} cells "
                         f"is more than {MAX_CELLS}")
    return _build(kind, int(width), int(height))


@lru_cache(maxsize=CACHE_SIZE)
def _build(kind: str, w: int, h: int) -> Geometry:
    n = w * h
    # every table holds these int objects, not fresh copies: a 100,000-cell board would
    # otherwise carry a million separate ints
    cells = tuple(range(n))
    xy = tuple((i % w, i // w) for i in cells)
    directions = GRID_DIRECTIONS if kind == "grid" else HEX_DIRECTIONS

    def delta(d: str, y: int) -> tuple[int, int]:
        return GRID_DELTA[d] if kind == "grid" else HEX_DELTA[y & 1][d]

    step = {}
    for d in directions:
        row = []
        for x, y in xy:
            dx, dy = delta(d, y)
            nx, ny = x + dx, y + dy
            row.append(cells[ny * w + nx] if 0 <= nx < w and 0 <= ny < h else -1)
        step[d] = tuple(row)

    ray = {d: _rays(step[d], step[OPPOSITE[d]], cells) for d in directions}

    adj4: Sequence[tuple[int, ...]]
    adj8: Sequence[tuple[int, ...]]
    if kind == "grid":
        adj8, adj4 = [], []
        for x, y in xy:
            near8, near4 = [], []
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    nx, ny = x + dx, y + dy
                    if (dx or dy) and 0 <= nx < w and 0 <= ny < h:
                        near8.append(cells[ny * w + nx])
                        if not (dx and dy):
                            near4.append(cells[ny * w + nx])
            adj8.append(tuple(near8))
            adj4.append(tuple(near4))
        adj4, adj8 = tuple(adj4), tuple(adj8)
        # the compiler's definitions, kept as they are (on a 1-wide board they are odd:
        # every cell is on the edge and the corners are the middle cells)
        on_edge = tuple(len(a) < 4 for a in adj4)
        corner = tuple(len(a) == 2 for a in adj4)
    else:
        adj4 = adj8 = tuple(tuple(sorted(c for c in (step[d][i] for d in directions) if c >= 0))
                            for i in cells)
        on_edge = tuple(len(a) < 6 for a in adj4)
        # counting neighbours does not find a hex rectangle's corners (the ends of the
        # odd rows have 3 or 5, like cells along the sides), so: the ends of the first
        # and last rows
        ends = {0, w - 1, n - w, n - 1}
        corner = tuple(i in ends for i in cells)

    return Geometry(kind, w, h, n, directions, xy, MappingProxyType(step),
                    MappingProxyType(ray), adj4, adj8, on_edge, corner)


def _rays(forward: tuple[int, ...], backward: tuple[int, ...],
          cells: tuple[int, ...]) -> RayTable:
    """Cut the board into lines along `forward`; a line starts where `backward` leaves
    the board. Every cell is on exactly one line, since stepping is one-to-one."""
    n = len(cells)
    lines: list[tuple[int, ...]] = []
    line, place = [0] * n, [0] * n
    for start in cells:
        if backward[start] != -1:
            continue
        chain: list[int] = []
        c = start
        while c != -1:
            line[c], place[c] = len(lines), len(chain)
            chain.append(c)
            c = forward[c]
        lines.append(tuple(chain))
    return RayTable(tuple(lines), tuple(line), tuple(place))
