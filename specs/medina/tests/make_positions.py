#!/usr/bin/env python3
"""Write the Medina scenario files (the *.yaml beside this script) from compact maps.

    python3 specs/medina/tests/make_positions.py        # rewrites every scenario file

A position is drawn as an ASCII map in the notation of ANALYSIS.md section 5, one line per
board row, each line `y=N  <row>` with the row as wide as the grid (W + 2 cells, x from 0):

    T tower (the four corners always hold towers 1..4, clockwise from the top left)
    = wall          - empty wall space        . empty city square
    , empty square on the well's ring (a reading aid; the script checks it)
    W the well      m merchant
    O B G P         an orange / brown / grey / purple building
    o b g p s       a stable (the letter only tells the reader which palace it belongs to)

Rows left out are empty. Rooftops are given apart, as (x, y, "blue rooftop") on a building
of the palace. Everything else of the position (supplies, tiles, tea tiles, the merchants
still on the tower tiles, variables) is a keyword argument of `position()`; what a scenario
does not give is filled in the usual way (tiles nobody holds at the board edge, a tower
tile still at the edge keeps its set-up merchants, the tea tiles nobody holds on the
stack, every player past the first turn).

The board goes into the YAML as a flow list with one line per grid row (the row-major
cell list the scenario format wants), each line commented with its map row.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent

SEAT_COLOURS = ["red", "yellow", "blue", "green"]
PALACE_COLOURS = ["orange", "brown", "grey", "purple"]
TOWER_MERCHANTS = {1: 3, 2: 2, 3: 1, 4: 0}
PIECE_TOTALS = {
    **{c: 20 for c in PALACE_COLOURS},
    **{f"{c} rooftop": 4 for c in SEAT_COLOURS},
    "stable": 12, "merchant": 31, "wall": 36, "well": 1, "tea tile": 6,
    **{f"tower {n}": 1 for n in range(1, 5)},
    **{f"tower tile {n}": 1 for n in range(1, 5)},
    **{f"{c} palace tile": 1 for c in PALACE_COLOURS},
}
CHAR_PIECE = {
    "=": "wall", "W": "well", "m": "merchant",
    "O": "orange", "B": "brown", "G": "grey", "P": "purple",
    "o": "stable", "b": "stable", "g": "stable", "p": "stable", "s": "stable",
}
WALL_CHARS = "=-T"
CITY_CHARS = ".,WmOBGPobgps"


def dims(players: int) -> tuple:
    """(grid width, grid height): the city plus the ring of wall spaces (R1)."""
    w, h = (14, 10) if players == 2 else (16, 11)
    return w + 2, h + 2


# A `cell` variable (well_cell) is given as rule text, `board[x, y]`: the scenario runner
# evaluates it in the position.


class Board:
    """A parsed map: one list of piece names (bottom to top) per cell."""

    def __init__(self, players: int, text: str, roofs=()):
        self.players = players
        self.width, self.height = width, height = dims(players)
        self.chars = [["." if 0 < x < width - 1 and 0 < y < height - 1 else "-"
                       for x in range(width)] for y in range(height)]
        for line in text.strip("\n").splitlines():
            m = re.match(r"\s*y=(\d+)\s+(\S+)", line)
            if not m:
                continue                      # a header line (column numbers) or a note
            y, row = int(m.group(1)), m.group(2)
            if len(row) != width:
                sys.exit(f"row y={y} is {len(row)} wide, the grid is {width}: {row!r}")
            self.chars[y] = list(row)
        corners = {(0, 0): 1, (width - 1, 0): 2, (width - 1, height - 1): 3, (0, height - 1): 4}
        self.cells = [[] for _ in range(width * height)]
        self.well = None
        for y in range(height):
            for x in range(width):
                ch = self.chars[y][x]
                ring = x in (0, width - 1) or y in (0, height - 1)
                if (x, y) in corners:
                    self.chars[y][x] = "T"
                    self.cells[y * width + x] = [f"tower {corners[x, y]}"]
                    continue
                if ring and ch not in WALL_CHARS or not ring and ch not in CITY_CHARS:
                    sys.exit(f"'{ch}' cannot stand at {x},{y}")
                if ch in CHAR_PIECE:
                    self.cells[y * width + x] = [CHAR_PIECE[ch]]
                if ch == "W":
                    self.well = (x, y)
        if self.well is None:
            sys.exit("the map has no well (W)")
        wx, wy = self.well
        for y in range(height):
            for x in range(width):
                on_ring = max(abs(x - wx), abs(y - wy)) == 1
                if self.chars[y][x] == "," and not on_ring:
                    sys.exit(f"',' at {x},{y} is not on the well's ring")
                if on_ring and self.chars[y][x] in "OBGPobgps":
                    sys.exit(f"a building or stable on the well's ring at {x},{y}")
        for x, y, roof in roofs:
            c = self.cells[y * width + x]
            if len(c) != 1 or c[0] not in PALACE_COLOURS:
                sys.exit(f"the rooftop {roof} at {x},{y} is not on a building")
            c.append(roof)

    @property
    def well_cell(self) -> str:
        return f"board[{self.well[0]}, {self.well[1]}]"

    def pieces(self) -> list:
        return [n for c in self.cells for n in c]

    def flow(self, indent: str) -> str:
        """The board as a YAML flow list, one grid row per line, commented with its map row."""
        last = max(i for i, c in enumerate(self.cells) if c)
        lines = ["["]
        for y in range(self.height):
            start = y * self.width
            if start > last:
                break
            row = self.cells[start:min(start + self.width, last + 1)]
            items = ", ".join("[" + ", ".join(c) + "]" for c in row)
            sep = "," if start + self.width <= last else ""
            lines.append(f"{indent}  {items}{sep}  # y={y:<2} {''.join(self.chars[y])}")
        lines.append(f"{indent}]")
        return "\n".join(lines)


def n(name: str, k: int) -> list:
    return [name] * k


def position(players: int, board_map: str, roofs=(), screen=None, roof_supply=None,
             tiles=None, teas=None, tea_box=0, tower_merchants=None, start=0,
             purple_claims=0, turns_taken=None, passes=0):
    """The `given` of a scenario, with the board kept as a Board (written out at the end)."""
    board = Board(players, board_map, roofs)
    seats = range(players)
    screen = {p: list((screen or {}).get(p, [])) for p in seats}
    roof_supply = {p: list((roof_supply or {}).get(p, [])) for p in seats}
    tiles = {p: list((tiles or {}).get(p, [])) for p in seats}
    teas = {p: int((teas or {}).get(p, 0)) for p in seats}
    held = [t for p in seats for t in tiles[p]]
    edge = [f"tower tile {k}" for k in range(1, 5) if f"tower tile {k}" not in held]
    edge += [f"{c} palace tile" for c in PALACE_COLOURS if f"{c} palace tile" not in held]
    if tower_merchants is None:
        tower_merchants = {k: TOWER_MERCHANTS[k] if f"tower tile {k}" in edge else 0
                           for k in range(1, 5)}
    stack = 6 - sum(teas.values()) - tea_box
    if stack < 0:
        sys.exit("more than 6 tea tiles")
    zones = {
        "board": board,
        "edge": edge,
        "tower_merchants": [n("merchant", tower_merchants.get(k, 0)) for k in range(1, 5)],
        "tea_stack": n("tea tile", stack),
        "screen": screen,
        "roofs": roof_supply,
        "tiles": tiles,
        "teas": {p: n("tea tile", teas[p]) for p in seats},
    }
    used = board.pieces() + edge + [m for s in zones["tower_merchants"] for m in s]
    used += zones["tea_stack"] + [t for p in seats for t in
                                  screen[p] + roof_supply[p] + tiles[p] + zones["teas"][p]]
    for name in set(used):
        if name not in PIECE_TOTALS:
            sys.exit(f"no piece is named {name!r}")
        if used.count(name) > PIECE_TOTALS[name]:
            sys.exit(f"{used.count(name)} pieces named {name!r}, the game has "
                     f"{PIECE_TOTALS[name]}")
    if turns_taken is None:
        turns_taken = {p: 1 for p in seats}
    variables = {
        "start_player": start,
        "well_cell": board.well_cell,       # rule text: the cell board[x, y]
        "purple_claims": purple_claims,
        "turns_taken": turns_taken,
        "passes": passes,
    }
    return {"zones": zones, "variables": variables}


def scenario(id, source, description, players, given, do=(), expect=None):
    sc = {"id": id, "source": source, "description": description, "players": players,
          "given": given}
    if do:
        sc["do"] = list(do)
    if expect:
        sc["expect"] = expect
    return sc


# ---- writing ----------------------------------------------------------------------------

class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s):
    style = ">" if len(s) > 80 else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


def _list(dumper, items):
    """Short lists of names on one line; longer ones one name a line (never a name split)."""
    flat = all(isinstance(i, (str, int)) for i in items)
    short = flat and len(", ".join(map(str, items))) <= 72
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=short)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)


def write(filename: str, header: str, scenarios: list) -> None:
    boards = {}

    def strip_boards(obj):
        if isinstance(obj, Board):
            key = f"@@BOARD{len(boards)}@@"
            boards[key] = obj
            return key
        if isinstance(obj, dict):
            return {k: strip_boards(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [strip_boards(v) for v in obj]
        return obj

    ids = [s["id"] for s in scenarios]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"{filename}: duplicate ids {sorted(dup)}")
    doc = {"spec": "../medina.yaml", "scenarios": strip_boards(scenarios)}
    text = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=None,
                     width=96, allow_unicode=True)
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\s*)board: '?(@@BOARD\d+@@)'?$", line)
        if m:
            out.append(f"{m.group(1)}board: " + boards[m.group(2)].flow(m.group(1)))
        else:
            out.append(line)
    head = ["# yaml-language-server: $schema=../../../schemas/scenario.schema.json", "#",
            "# GENERATED by make_positions.py from the maps in it: edit the script, not this file.",
            "# Boards: one line per grid row (x 0..W+1), the row's map at its end.", "#"]
    head += ["#" + (" " + l if l else "") for l in header.strip().splitlines()]
    (HERE / filename).write_text("\n".join(head + out) + "\n", encoding="utf-8")
    print(f"wrote {filename}: {len(scenarios)} scenarios")


# ---- the scenarios ----------------------------------------------------------------------

def src(*phrases: str) -> str:
    """A source field: medina.txt and its phrases, joined by ' ... '."""
    return "medina.txt " + " ... ".join(f'"{p}"' for p in phrases)


# 5.1: the scoring example (4 players). Blue orange, Yellow grey, Red purple, Green brown.
MAP_5_1 = """
     012345678901234567
y=0  T=====--------===T
y=1  -...OOOOommmmmGGG=
y=2  -....o...m...mm..-
y=3  -...,,mmmm....m..-
y=4  -PPP,Wm.......m..-
y=5  -.PPmmm.......m..-
y=6  -.............m..-
y=7  -.............m..-
y=8  -.............m..-
y=9  -.............mmm-
y=10 -.............bBB-
y=11 -.............BBB-
y=12 T-------------===T
"""
ROOFS_5_1 = [(4, 1, "blue rooftop"), (14, 1, "yellow rooftop"), (1, 4, "red rooftop"),
             (15, 10, "green rooftop")]


def scoring_file():
    header = """
Scoring (medina.txt "Scoring"): the rulebook's scoring example (ANALYSIS.md 5.1) and the
readings R18 (the well), R19/R20 (walls and merchants next to a palace), R27 (shared win).
Every supply is empty, so the game is over at once and the final scores can be checked.
"""
    example_phrase = src(
        "The orange palace is worth 9 points (4 buildings + 2 stables + 2 wall sections + 1 "
        "merchant). The grey palace is worth 9 points (3 buildings + 4 wall sections + 2 "
        "merchants). The purple palace is worth 6 points (5 buildings + 1 merchant). The "
        "brown palace is worth 12 points (5 buildings + 1 stable + 3 merchants + 3 wall "
        "sections).",
        "the person who owns the orange palace receives 4 points because there is one space "
        "between the stable and the well. The owner of the purple palace earns 8 points "
        "because there are 2 buildings that are one space apart from the well.")
    sc = []
    sc.append(scenario(
        "scoring-example-palaces-and-well", example_phrase,
        "ANALYSIS.md 5.1. Blue (2) owns the orange palace, Yellow (1) the grey, Red (0) the "
        "purple, Green (3) the brown. Palace points 6 (Red), 9 (Yellow), 9 (Blue), 12 (Green); "
        "well points: Red 8 (purple buildings at (-2,0) and (-2,+1) from the well), Blue 4 "
        "(the orange stable at (0,-2)). No tiles are held.",
        4, position(4, MAP_5_1, ROOFS_5_1, start=0),
        expect={"terminal": True,
                "points": {"palaces": [6, 9, 9, 12], "well": [8, 0, 4, 0],
                           "palace_tiles": [0, 0, 0, 0], "tower_tiles": [0, 0, 0, 0]}}))
    sc.append(scenario(
        "scoring-example-with-tiles",
        example_phrase + " ... " + '"For each tower and palace tile you have, you can earn 1 '
        'to 4 points, depending on the tile." ... "At the end of the game, the player with the '
        'highest total points is declared the winner."',
        "ANALYSIS.md 5.1 with the tiles the claims would have given: each owner holds the "
        "palace tile of its colour (R3: grey 1, purple 2, brown 3, orange 4) and towers 1, 2, "
        "3 went to Blue, Yellow, Green. Totals: Red 6+8+2 = 16, Yellow 9+1+2 = 12, Blue "
        "9+4+4+1 = 18, Green 12+3+3 = 18: Blue and Green share the win (R27).",
        4, position(4, MAP_5_1, ROOFS_5_1, start=0,
                    tiles={0: ["purple palace tile"],
                           1: ["grey palace tile", "tower tile 2"],
                           2: ["orange palace tile", "tower tile 1"],
                           3: ["brown palace tile", "tower tile 3"]}),
        expect={"terminal": True,
                "points": {"palaces": [6, 9, 9, 12], "well": [8, 0, 4, 0],
                           "palace_tiles": [2, 1, 4, 3], "tower_tiles": [0, 2, 1, 3]},
                "scores": [16, 12, 18, 18], "winners": [2, 3]}))
    well_map = """
     012345678901234567
y=3  -................-
y=4  -...B............-
y=5  -...B,,,.........-
y=6  -...B,W,.........-
y=7  -...B,,,.........-
y=10 -.........m......-
"""
    sc.append(scenario(
        "well-points-not-at-the-far-corner",
        src("If a building or stable is separated by just one space from the well, you get a "
            "whopping 4 points.",
            "If I place buildings or stables on the yellow spaces, I’ll earn extra points at "
            "the end of the game."),
        "R18 (ANALYSIS.md 5.6, the well picture): Red's brown palace (4,4)..(4,7), well at "
        "(6,6). (4,5), (4,6), (4,7) are one square from the ring: 3 x 4 = 12; (4,4) is the "
        "far corner (-2,-2) and does not count. Palace points 4 (no walls, no merchants).",
        4, position(4, well_map, [(4, 4, "red rooftop")]),
        expect={"points": {"palaces": [4, 0, 0, 0], "well": [12, 0, 0, 0]}}))
    merchant_map = """
     012345678901234567
y=3  -..OOmGG.........-
y=4  -..Omm...........-
y=8  -............W...-
"""
    sc.append(scenario(
        "merchants-count-once-per-palace-and-for-each-palace",
        src("Every merchant directly adjacent to a building or stable also earns you 1 point.",
            "Each palace gets one extra point for every merchant adjacent to it."),
        "R20. Red's orange palace (3,3) (4,3) (3,4), Yellow's grey palace (6,3) (7,3), a "
        "street (4,4) (5,4) (5,3). The merchant (4,4) touches two orange buildings and counts "
        "once; (5,3) touches both palaces and counts for each; (5,4) touches no palace piece. "
        "Orange 3 + 2 = 5, grey 2 + 1 = 3.",
        4, position(4, merchant_map, [(3, 3, "red rooftop"), (6, 3, "yellow rooftop")]),
        expect={"points": {"palaces": [5, 3, 0, 0], "well": [0, 0, 0, 0]}}))
    return "scoring.yaml", header, sc


# 5.2: the palace-tile example. Blue (2) holds the orange tile with a size-5 palace.
MAP_5_2 = """
     012345678901234567
y=3  -..OOO....OOO....-
y=4  -..o.o....O......-
y=7  -...........,,,..-
y=8  -...........,W,..-
y=9  -.......m...,,,..-
"""


def palace_tiles_file():
    header = """
Palace tiles (medina.txt "Building a Palace"): the rulebook's example (ANALYSIS.md 5.2) and
ruling R22 (strictly larger takes the tile; the palace's owner gets it, whoever placed the
piece). Blue (2) owns an orange palace of 3 buildings and 2 stables and holds the orange
palace tile; Green (3) has an unroofed orange palace of 4 buildings. Red, Yellow and Blue
have empty supplies unless said otherwise, so turns come back to Green.
"""
    phrase = src(
        "Blue has already claimed an orange palace and has ownership of the orange palace "
        "tile. His palace consists of three buildings and two stables, making it a total size "
        "of five. Now, Green comes along and adds a rooftop to a new orange palace.",
        "The size of this new palace is four, which means it’s not bigger than Blue’s palace. "
        "Because of this, Green doesn’t get the palace tile from Blue. However, if Green were "
        "to expand his palace by adding two stables, he would then be entitled to claim the "
        "orange palace tile from Blue.")

    def given(**kw):
        args = dict(roofs=[(3, 3, "blue rooftop")], start=3,
                    tiles={2: ["orange palace tile"]},
                    roof_supply={3: n("green rooftop", 4)}, screen={3: n("stable", 3)})
        args.update(kw)
        roofs = args.pop("roofs")
        return position(4, MAP_5_2, roofs, **args)

    roof = [{"action": "place green rooftop", "player": 3},
            {"action": "green rooftop on the orange palace at 10,3", "player": 3}]
    stable1 = [{"action": "place stable", "player": 3},
               {"action": "stable at 11,4", "player": 3}]
    stable2 = [{"action": "place stable", "player": 3},
               {"action": "stable at 13,3", "player": 3}]
    sc = []
    sc.append(scenario(
        "palace-tile-smaller-palace-does-not-take", phrase,
        "Green roofs the size-4 palace: 4 is not bigger than 5, the tile stays with Blue.",
        4, given(), roof,
        {"zones": {"tiles": {2: ["orange palace tile"], 3: []}}}))
    sc.append(scenario(
        "palace-tile-equal-size-does-not-take", phrase,
        "Then Green adds a stable at (11,4) (next to (11,3) and (10,4)): size 5, equal to "
        "Blue's; a tie is not bigger, the tile stays with Blue.",
        4, given(), roof + stable1,
        {"zones": {"tiles": {2: ["orange palace tile"], 3: []}}}))
    sc.append(scenario(
        "palace-tile-larger-palace-takes", phrase,
        "Green's next turn: a second stable at (13,3) (next to (12,3), not next to the stable "
        "(11,4)): size 6 > 5, Green takes the orange palace tile.",
        4, given(), roof + stable1 + stable2,
        {"zones": {"tiles": {2: [], 3: ["orange palace tile"]}}}))
    sc.append(scenario(
        "palace-tile-goes-to-the-owner-whoever-adds-the-stable",
        src("This tile stays with them until someone else claims a bigger palace or expands a "
            "palace with a stable to create a larger one in the same color. Then, that person "
            "gets the palace tile.",
            "Stables can be added to any palace, even if it belongs to someone else."),
        "R22: after Green's rooftop and stable (size 5), Red (0) adds the stable at (13,3) to "
        "Green's palace: size 6 > 5, the tile goes to Green, the palace's owner, not to Red.",
        4, given(screen={0: ["stable"], 3: ["stable"]}),
        roof + stable1 + [{"action": "place stable", "player": 0},
                          {"action": "stable at 13,3", "player": 0}],
        {"zones": {"tiles": {0: [], 2: [], 3: ["orange palace tile"]}}}))
    sc.append(scenario(
        "palace-tile-equal-size-does-not-take-it-back",
        src("This tile stays with them until someone else claims a bigger palace or expands a "
            "palace with a stable to create a larger one in the same color."),
        "R22, continued: Blue (2) then adds a stable at (2,3) to his own palace: size 6, equal "
        "to Green's 6, so Green keeps the tile.",
        4, given(screen={0: ["stable"], 2: ["stable"], 3: ["stable"]}),
        roof + stable1 + [{"action": "place stable", "player": 0},
                          {"action": "stable at 13,3", "player": 0},
                          {"action": "place stable", "player": 2},
                          {"action": "stable at 2,3", "player": 2}],
        {"zones": {"tiles": {0: [], 2: [], 3: ["orange palace tile"]}}}))
    map_sf = """
     012345678901234567
y=2  -...b............-
y=3  -..OOO....OOO....-
y=4  -..o......O......-
y=7  -...........,,,..-
y=8  -...........,W,..-
y=9  -.......m...,,,..-
"""
    sc.append(scenario(
        "palace-tile-holder-palace-whose-first-square-is-a-stable", phrase,
        "As palace-tile-smaller-palace-does-not-take, but Blue's size-5 palace has its "
        "stables at (4,2) and (3,4), so its first square in reading order is a stable. "
        "Green's size-4 claim still does not take the tile.",
        4, position(4, map_sf, [(3, 3, "blue rooftop")], start=3,
                    tiles={2: ["orange palace tile"]},
                    roof_supply={3: n("green rooftop", 4)}, screen={3: n("stable", 3)}),
        roof,
        {"zones": {"tiles": {2: ["orange palace tile"], 3: []}}}))
    first_map = """
     012345678901234567
y=3  -..OOO...........-
y=8  -.............W..-
"""
    sc.append(scenario(
        "palace-tile-first-claim-takes-it",
        src("The first person to claim a palace in a particular color gets the corresponding "
            "palace tile and puts it in front of their player screen."),
        "No orange palace is claimed and the tile lies at the board edge. Yellow (1) roofs the "
        "palace at (3,3), size 3: Yellow takes the orange palace tile from the edge.",
        4, position(4, first_map, start=1,
                    roof_supply={1: ["yellow rooftop"]}),
        [{"action": "place yellow rooftop", "player": 1},
         {"action": "yellow rooftop on the orange palace at 3,3", "player": 1}],
        {"zones": {"tiles": {1: ["orange palace tile"]},
                   "edge": ["tower tile 1", "tower tile 2", "tower tile 3", "tower tile 4",
                            "brown palace tile", "grey palace tile", "purple palace tile"]}}))
    map_neutral = """
     012345678901234567
y=3  -..OOO....OOO....-
y=4  -.........O......-
y=8  -.............W..-
"""
    neutral_phrase = src(
        "In a game with 2 or 3 players: you can also win a palace tile by finishing a neutral "
        "palace. If that happens, the tile stays at the edge of the board or goes back to the "
        "edge if it was held by a player.",
        "This tile stays with them until someone else claims a bigger palace")
    sc.append(scenario(
        "palace-tile-larger-player-palace-takes-it-from-the-neutral", neutral_phrase,
        "3 players, green neutral. The orange palace (3,3)-(5,3) took a neutral rooftop: the "
        "orange tile lies at the edge for it. Red (0) roofs the orange palace (10,3)(11,3) "
        "(12,3)(10,4), size 4 > 3: Red takes the tile from the edge.",
        3, position(3, map_neutral, [(3, 3, "green rooftop")], start=0,
                    roof_supply={0: ["red rooftop"]}),
        [{"action": "place red rooftop", "player": 0},
         {"action": "red rooftop on the orange palace at 10,3", "player": 0}],
        {"zones": {"tiles": {0: ["orange palace tile"]}}}))
    sc.append(scenario(
        "palace-tile-neutral-holder-equal-size-keeps-it", neutral_phrase,
        "3 players. The neutral orange palace (3,3)-(5,3) (size 3) holds the tile at the "
        "edge; Red (0) roofs an orange palace of size 3: not bigger, the tile stays at the "
        "edge.",
        3, position(3, map_neutral.replace("y=4  -.........O......-", "y=4  -................-"),
                    [(3, 3, "green rooftop")], start=0, roof_supply={0: ["red rooftop"]}),
        [{"action": "place red rooftop", "player": 0},
         {"action": "red rooftop on the orange palace at 10,3", "player": 0}],
        {"zones": {"tiles": {0: []},
                   "edge": ["tower tile 1", "tower tile 2", "tower tile 3", "tower tile 4",
                            "orange palace tile", "brown palace tile", "grey palace tile",
                            "purple palace tile"]}}))
    sc.append(scenario(
        "palace-tile-neutral-palace-takes-it-back-to-the-edge", neutral_phrase,
        "3 players. Yellow (1) holds the orange tile with the palace (3,3)-(5,3), size 3; Red "
        "(0) puts a neutral rooftop on the orange palace of size 4: the tile goes back to "
        "the edge.",
        3, position(3, map_neutral, [(3, 3, "yellow rooftop")], start=0,
                    tiles={1: ["orange palace tile"]}, roof_supply={0: ["green rooftop"]}),
        [{"action": "place green rooftop", "player": 0},
         {"action": "green rooftop on the orange palace at 10,3", "player": 0}],
        {"zones": {"tiles": {0: [], 1: []},
                   "edge": ["tower tile 1", "tower tile 2", "tower tile 3", "tower tile 4",
                            "orange palace tile", "brown palace tile", "grey palace tile",
                            "purple palace tile"]}}))
    return "palace_tiles.yaml", header, sc


# 5.3: the tea example, 3 players: A = Red (0), B = Yellow (1), C = Blue (2); green is the
# neutral colour (one neutral rooftop each).
MAP_5_3 = """
     012345678901234567
y=3  -..PP............-
y=7  -..........,,,...-
y=8  -.......m..,W,...-
y=9  -..........,,,...-
"""


def tea_file():
    header = """
Tea tiles (medina.txt "Tea Tiles"): the rulebook's example (ANALYSIS.md 5.3), 3 players,
A = Red (0), B = Yellow (1), C = Blue (2), green the neutral colour. Purple palaces appear
one after the other (a new one may start only once the previous one is roofed):
P1 (3,3)(4,3) given; P2 (8,3); P3 (12,3)(12,4); P4 (3,8). Turns:
1 A: red rooftop on P1 (first claim: 3 tea tiles), purple building (8,3) starts P2.
2 B: neutral rooftop on P2 (second claim: 2 tea tiles to the box), purple (12,3) starts P3.
3 C: purple (12,4), merchant (7,8).
4 A: merchants (9,8), (10,8).
5 B: yellow rooftop on P3 (third claim: 1 tea tile), purple (3,8) starts P4.
6 C: blue rooftop on P4 (fourth claim: none; every player now owns a purple palace, so the
  purple buildings behind the screens go to the box), merchant (6,8).
7 A: merchant (11,8) (on the well's ring), then a tea break.
Each scenario plays a prefix of these turns and checks the tea tiles.
"""
    phrase = src(
        "If you are the first one to have a purple palace, you get three tea tiles. If you "
        "are the second one, you get two tea tiles, and if you are the third one, you get one "
        "tea tile. But if you are the fourth one, you don’t get any tea tiles.",
        "As I triumphantly take possession, three tea tiles are bestowed upon me. To ensure "
        "fairness, a neutral rooftop is placed on the second purple palace, keeping it out "
        "of my grasp. Unfortunately, two tea tiles are banished from the game, never to be "
        "seen again. Undeterred, Player B seizes the opportunity and secures the third purple "
        "palace, gaining one precious tea tile of their own.")
    given = position(3, MAP_5_3, start=0,
                     screen={0: n("purple", 2) + n("merchant", 4),
                             1: n("purple", 3),
                             2: n("purple", 2) + n("merchant", 2)},
                     roof_supply={0: ["red rooftop", "green rooftop"],
                                  1: ["yellow rooftop", "green rooftop"],
                                  2: ["blue rooftop", "green rooftop"]})

    def act(p, *actions):
        return [{"action": a, "player": p} for a in actions]

    t1a = act(0, "place red rooftop", "red rooftop on the purple palace at 3,3")
    t1b = act(0, "place purple", "purple building at 8,3")
    t2a = act(1, "place green rooftop", "green rooftop on the purple palace at 8,3")
    t2b = act(1, "place purple", "purple building at 12,3")
    t3 = act(2, "place purple", "purple building at 12,4",
             "place merchant", "merchant at 7,8")
    t4 = act(0, "place merchant", "merchant at 9,8", "place merchant", "merchant at 10,8")
    t5a = act(1, "place yellow rooftop", "yellow rooftop on the purple palace at 12,3")
    t5b = act(1, "place purple", "purple building at 3,8")
    t6a = act(2, "place blue rooftop", "blue rooftop on the purple palace at 3,8")
    t6b = act(2, "place merchant", "merchant at 6,8")
    t7 = act(0, "place merchant", "merchant at 11,8")
    sc = []
    sc.append(scenario(
        "tea-first-purple-claim-takes-three", phrase,
        "Turn 1, first placement: A claims P1, the first purple claim: 3 tea tiles.",
        3, given, t1a,
        {"sizes": {"tea_stack": 3, "teas": {0: 3, 1: 0, 2: 0}},
         "variables": {"purple_claims": 1}}))
    sc.append(scenario(
        "tea-neutral-claim-sends-two-to-the-box",
        phrase + ' ... "For a game with two or three players: If a neutral rooftop is put on a '
        'purple palace, it’s the same as someone getting a palace, but the tea tiles are taken '
        'out of the game and you don’t get any."',
        "Turn 2: B's neutral rooftop on P2 is the second purple claim: 2 tea tiles leave the "
        "stack for the box, nobody gets them (6 = 1 on the stack + 3 with A + 2 in the box).",
        3, given, t1a + t1b + t2a,
        {"sizes": {"tea_stack": 1, "teas": {0: 3, 1: 0, 2: 0}},
         "variables": {"purple_claims": 2}}))
    sc.append(scenario(
        "tea-third-claim-takes-one-and-purple-stays", phrase,
        "Turn 5: B claims P3, the third purple claim: 1 tea tile. Purple is not retired yet: "
        "C owns no purple palace (the neutral rooftop does not count), so the purple "
        "buildings stay behind the screens.",
        3, given, t1a + t1b + t2a + t2b + t3 + t4 + t5a,
        {"sizes": {"tea_stack": 0, "teas": {0: 3, 1: 1, 2: 0}},
         "variables": {"purple_claims": 3},
         "zones": {"screen": {0: ["purple", "merchant", "merchant"],
                              1: ["purple", "purple"],
                              2: ["purple", "merchant"]}}}))
    sc.append(scenario(
        "tea-fourth-claim-takes-none-and-retires-purple",
        phrase + ' ... "once all the players have claimed a palace with a rooftop in their own '
        'color, all the buildings of that color behind their screens are taken out of the '
        'game. This happens regardless of whether a palace has been claimed with a neutral '
        'rooftop or not."',
        "Turn 6: C claims P4, the fourth purple claim: no tea tile. A, B and C now each own a "
        "purple palace: every purple building behind a screen goes to the box (R26).",
        3, given, t1a + t1b + t2a + t2b + t3 + t4 + t5a + t5b + t6a,
        {"sizes": {"tea_stack": 0, "teas": {0: 3, 1: 1, 2: 0}},
         "variables": {"purple_claims": 4},
         "zones": {"screen": {0: ["merchant", "merchant"], 1: [], 2: ["merchant"]}}}))
    tea_break = src(
        "Instead of playing both wooden components, I savor the privilege of only placing one "
        "while gracefully returning a tea tile back to the box. Please note that I cannot play "
        "two tea tiles in a single turn. A minimum of one wooden component must always be "
        "placed.")
    sc.append(scenario(
        "tea-break-offered-after-the-first-piece", tea_break,
        "Turn 7: A has placed one piece; the tea break is offered in place of the second "
        "(R7). It was not offered before the first piece.",
        3, given, t1a + t1b + t2a + t2b + t3 + t4 + t5a + t5b + t6a + t6b + t7,
        {"current": 0, "legal_includes": ["tea break", "place merchant"]}))
    sc.append(scenario(
        "tea-break-returns-one-tile-and-ends-the-turn", tea_break,
        "Turn 7: A takes the tea break: one tea tile back to the box (A keeps 2) and the turn "
        "ends. B and C can place nothing (B has no pieces; C only a neutral rooftop and no "
        "unroofed palace), so it is A's turn again.",
        3, given, t1a + t1b + t2a + t2b + t3 + t4 + t5a + t5b + t6a + t6b + t7 +
        act(0, "tea break"),
        {"sizes": {"tea_stack": 0, "teas": {0: 2, 1: 1, 2: 0}}, "current": 0,
         "legal": ["place merchant"]}))
    sc.append(scenario(
        "tea-break-with-a-tile-won-this-turn", tea_break,
        "R7: turn 1, A's first placement wins 3 tea tiles; the tea break may take the place "
        "of the second piece at once.",
        3, given, t1a,
        {"current": 0, "legal_includes": ["tea break", "place purple"]}))
    small = """
     012345678901234567
y=8  -.......m..,W,...-
"""
    sc.append(scenario(
        "tea-break-not-before-the-first-piece", tea_break,
        "A holds two tea tiles: at the start of a two-piece turn the tea break is not "
        "offered (a piece must be placed first).",
        3, position(3, small, start=0, teas={0: 2},
                    screen={0: n("merchant", 2)}),
        expect={"current": 0, "legal": ["place merchant"]}))
    sc.append(scenario(
        "tea-break-not-on-a-one-piece-turn", tea_break,
        "A holds two tea tiles but only one piece: after placing it the turn is over, no tea "
        "break is offered; Yellow (1) is next.",
        3, position(3, small, start=0, teas={0: 2}, screen={0: ["merchant"], 1: ["merchant"]}),
        act(0, "place merchant", "merchant at 9,8"),
        {"current": 1, "sizes": {"teas": {0: 2}}}))
    return "tea.yaml", header, sc


# 5.4: the tower-tile example, 4 players. Walls of tower 1 along the top: (1,0) .. (9,0).
MAP_5_4 = """
     012345678901234567
y=0  T=========-------T
y=1  -.BB.OO..........-
y=2  -........GG......-
y=6  -.......m..,,,...-
y=7  -..........,W,...-
y=8  -..........,,,...-
"""


def tower_tiles_file():
    header = """
Tower tiles (medina.txt "The Power of Tower Tiles"): the rulebook's example (ANALYSIS.md
5.4), the "rebuild that wall" sentence, the position where medina.txt and the BSW variant
part (ANALYSIS.md 5.5, medina.txt side: R23) and a neutral winner (R24). Tower 1 is the
top-left tower (R2). Each step is its own scenario, its given position being the one the
previous step leaves.
"""
    blue_phrase = src(
        "Blue is the first person to build a palace beside the wall connecting to tower 1. "
        "That means Blue gets the tower tile for that wall and owns the corresponding tower.",
        "If there are merchants on the tower tile, I place them behind my player screen. And "
        "the tower tile itself goes face up in front of my player screen.",
        "If a player builds a palace that’s adjacent to a specific wall section—being the "
        "first player to do so—they not only get the tower tile, but also the palace tile!")
    red_phrase = src(
        "But, if someone else builds the orange palace, they’ll snatch the tower tile from "
        "Blue.",
        "If another player comes along later and takes control of a palace, regardless of how "
        "big it is, and it’s also right next to a wall connected to that same tower, they "
        "become the new watcher. They get the corresponding tower tile, but they don’t get any "
        "of the merchants on it.")
    yellow_phrase = src(
        "Also, if Yellow puts a stable between their grey palace and the wall, they’ll claim "
        "the tower tile for tower 1.",
        "If you have a palace that’s right next to the wall, you’ll get a tower tile when you "
        "extend your palace with a stable that’s also right next to the wall.")
    wall_phrase = src(
        "If, at some point, another player decides to rebuild that wall so that it also "
        "borders my palace, guess what? I get the matching tower tile for my palace.")
    grey = (9, 2, "yellow rooftop")
    sc = []
    sc.append(scenario(
        "tower-tile-first-connection-takes-tile-and-merchants", blue_phrase,
        "Brown (2,1)(3,1) and orange (5,1)(6,1) are unroofed, both next to tower 1's walls; "
        "Yellow's grey palace (9,2)(10,2) touches no wall. Blue (2) roofs the brown palace: "
        "it borders (2,0) and (3,0), so Blue takes tower tile 1 with its 3 merchants (into "
        "Blue's supply) and, as the first brown claim, the brown palace tile.",
        4, position(4, MAP_5_4, [grey], start=2, tiles={1: ["grey palace tile"]},
                    roof_supply={2: ["blue rooftop"]}),
        [{"action": "place blue rooftop", "player": 2},
         {"action": "blue rooftop on the brown palace at 2,1", "player": 2}],
        {"zones": {"tiles": {1: ["grey palace tile"],
                             2: ["tower tile 1", "brown palace tile"]},
                   "screen": {2: n("merchant", 3)},
                   "tower_merchants": [[], n("merchant", 2), ["merchant"], []]}}))
    sc.append(scenario(
        "tower-tile-later-connection-takes-tile-without-merchants", red_phrase,
        "Blue holds tower tile 1 (its merchants already taken). Red (0) roofs the orange "
        "palace, next to (5,0) and (6,0): Red takes tower tile 1, and no merchants; also the "
        "orange palace tile (first orange claim).",
        4, position(4, MAP_5_4, [grey, (2, 1, "blue rooftop")], start=0,
                    tiles={1: ["grey palace tile"], 2: ["tower tile 1", "brown palace tile"]},
                    screen={2: n("merchant", 3)}, roof_supply={0: ["red rooftop"]}),
        [{"action": "place red rooftop", "player": 0},
         {"action": "red rooftop on the orange palace at 5,1", "player": 0}],
        {"zones": {"tiles": {0: ["tower tile 1", "orange palace tile"],
                             2: ["brown palace tile"]},
                   "screen": {0: []},
                   "tower_merchants": [[], n("merchant", 2), ["merchant"], []]}}))
    sc.append(scenario(
        "tower-tile-by-a-stable", yellow_phrase,
        "Red holds tower tile 1. Yellow (1) puts a stable at (9,1), between the grey palace "
        "(9,2) and the wall (9,0): the grey palace is newly next to tower 1's wall, Yellow "
        "takes tower tile 1.",
        4, position(4, MAP_5_4, [grey, (2, 1, "blue rooftop"), (5, 1, "red rooftop")],
                    start=1,
                    tiles={0: ["tower tile 1", "orange palace tile"],
                           1: ["grey palace tile"], 2: ["brown palace tile"]},
                    screen={1: ["stable"]}),
        [{"action": "place stable", "player": 1},
         {"action": "stable at 9,1", "player": 1}],
        {"zones": {"tiles": {0: ["orange palace tile"],
                             1: ["grey palace tile", "tower tile 1"],
                             2: ["brown palace tile"]}}}))
    map_wall = """
     012345678901234567
y=0  T===========-----T
y=1  -.BB.OO..g...PP..-
y=2  -........GG......-
y=6  -.......m..,,,...-
y=7  -..........,W,...-
y=8  -..........,,,...-
"""
    wall_given = dict(
        start=0,
        tiles={0: ["orange palace tile"], 1: ["grey palace tile", "tower tile 1"],
               2: ["brown palace tile"], 3: ["purple palace tile"]},
        screen={0: n("wall", 2)})
    wall_roofs = [grey, (2, 1, "blue rooftop"), (5, 1, "red rooftop"),
                  (13, 1, "green rooftop")]
    sc.append(scenario(
        "tower-tile-wall-bordering-no-palace-changes-nothing", wall_phrase,
        "Yellow holds tower tile 1. Green's purple palace (13,1)(14,1) was roofed while no "
        "wall bordered it. Tower 1's walls reach (11,0); Red (0) adds (12,0), which borders "
        "the empty square (12,1): nothing changes.",
        4, position(4, map_wall,
                    wall_roofs, **wall_given),
        [{"action": "place wall", "player": 0}, {"action": "wall at 12,0", "player": 0}],
        {"zones": {"tiles": {1: ["grey palace tile", "tower tile 1"],
                             3: ["purple palace tile"]}}}))
    sc.append(scenario(
        "tower-tile-by-a-wall-anyone-builds", wall_phrase,
        "Then Red (0) adds (13,0), next to Green's purple palace: Green's palace is newly next "
        "to tower 1's wall, so Green takes tower tile 1, although Red built the wall.",
        4, position(4, map_wall,
                    wall_roofs, **wall_given),
        [{"action": "place wall", "player": 0}, {"action": "wall at 12,0", "player": 0},
         {"action": "place wall", "player": 0}, {"action": "wall at 13,0", "player": 0}],
        {"zones": {"tiles": {0: ["orange palace tile"], 1: ["grey palace tile"],
                             3: ["purple palace tile", "tower tile 1"]}}}))
    map_5_5 = """
     012345678901234567
y=0  T==--------------T
y=1  =.BBB............-
y=2  =................-
y=3  =................-
y=4  -G...............-
y=5  -G...............-
y=6  -.......m..,,,...-
y=7  -..........,W,...-
y=8  -..........,,,...-
"""
    given_5_5 = position(4, map_5_5, [(2, 1, "blue rooftop"), (1, 4, "red rooftop")],
                         start=0,
                         tiles={0: ["grey palace tile"],
                                2: ["brown palace tile", "tower tile 1"]},
                         screen={0: ["wall"], 2: ["wall"]})
    sc.append(scenario(
        "tower-tile-wall-connects-a-roofed-palace", wall_phrase,
        "ANALYSIS.md 5.5. Tower 1's walls: top (1,0) (2,0), left (0,1) (0,2) (0,3). Blue's "
        "brown palace (2,1)-(4,1) borders (2,0), Blue holds tower tile 1. Red's grey palace "
        "(1,4)(1,5) borders no wall ((0,3) is diagonal to (1,4)). Red (0) builds (0,4): the "
        "grey palace is newly connected, Red takes tower tile 1.",
        4, given_5_5,
        [{"action": "place wall", "player": 0}, {"action": "wall at 0,4", "player": 0}],
        {"zones": {"tiles": {0: ["grey palace tile", "tower tile 1"],
                             2: ["brown palace tile"]}}}))
    sc.append(scenario(
        "tower-tile-no-reconnection-of-a-connected-palace",
        src("When I take control of a palace that’s right next to a wall connected to a "
            "tower, I become the watcher of that tower.",
            "If, at some point, another player decides to rebuild that wall so that it also "
            "borders my palace, guess what? I get the matching tower tile for my palace."),
        "R23 (ANALYSIS.md 5.5, medina.txt side): then Blue (2) builds (3,0), next to his "
        "brown palace, which already bordered tower 1's wall at (2,0): no new connection, Red "
        "keeps tower tile 1 (under the BSW variant Blue would take it).",
        4, given_5_5,
        [{"action": "place wall", "player": 0}, {"action": "wall at 0,4", "player": 0},
         {"action": "place wall", "player": 2}, {"action": "wall at 3,0", "player": 2}],
        {"zones": {"tiles": {0: ["grey palace tile", "tower tile 1"],
                             2: ["brown palace tile"]}}}))
    map_neutral = """
     012345678901234567
y=0  T===-------------T
y=1  -.GG.............-
y=6  -.......m..,,,...-
y=7  -..........,W,...-
y=8  -..........,,,...-
"""
    sc.append(scenario(
        "tower-tile-neutral-palace-sends-merchants-to-the-box",
        src("When playing with 2 or 3 players: A neutral palace can also win a tower tile. If "
            "this happens, the tile stays on the edge of the board or goes back to the edge "
            "if another player had it. If a neutral palace wins a tower tile with merchants "
            "on top, the merchants are taken out of the game."),
        "3 players, green neutral. The unroofed grey palace (2,1)(3,1) borders tower 1's "
        "walls; Red (0) puts a neutral rooftop on it: tower tile 1 (and the grey palace tile) "
        "stay at the edge, tower tile 1's 3 merchants go to the box, not to Red.",
        3, position(3, map_neutral, start=0, roof_supply={0: ["green rooftop", "red rooftop"]}),
        [{"action": "place green rooftop", "player": 0},
         {"action": "green rooftop on the grey palace at 2,1", "player": 0}],
        {"zones": {"tiles": {0: [], 1: [], 2: []},
                   "edge": ["tower tile 1", "tower tile 2", "tower tile 3", "tower tile 4",
                            "orange palace tile", "brown palace tile", "grey palace tile",
                            "purple palace tile"],
                   "screen": {0: []},
                   "tower_merchants": [[], n("merchant", 2), ["merchant"], []]}}))
    sc.append(scenario(
        "tower-tile-neutral-palace-takes-it-back-to-the-edge",
        src("A neutral palace can also win a tower tile. If this happens, the tile stays on "
            "the edge of the board or goes back to the edge if another player had it."),
        "3 players. Yellow (1) holds tower tile 1 (its merchants taken). Red (0) puts a "
        "neutral rooftop on the grey palace next to tower 1's walls: tile 1 goes back to the "
        "edge.",
        3, position(3, map_neutral, start=0, tiles={1: ["tower tile 1"]},
                    roof_supply={0: ["green rooftop", "red rooftop"]}),
        [{"action": "place green rooftop", "player": 0},
         {"action": "green rooftop on the grey palace at 2,1", "player": 0}],
        {"zones": {"tiles": {0: [], 1: [], 2: []},
                   "edge": ["tower tile 1", "tower tile 2", "tower tile 3", "tower tile 4",
                            "orange palace tile", "brown palace tile", "grey palace tile",
                            "purple palace tile"]}}))
    map_reenter = """
     012345678901234567
y=0  T----------------T
y=1  -GG..............-
y=6  -.......m..,,,...-
y=7  -..........,W,...-
y=8  -..........,,,...-
"""
    sc.append(scenario(
        "tower-tile-merchants-bring-a-player-back",
        src("If there are merchants on the tower tile, I place them behind my player screen.",
            "If, at some point, another player decides to rebuild that wall so that it also "
            "borders my palace, guess what? I get the matching tower tile for my palace.",
            "capture additional merchants from the tower tiles."),
        "R24: Red (0) has no pieces left; its grey palace (1,1)(2,1) borders no wall yet. "
        "Yellow (1) builds the wall (1,0) from tower 1: Red's palace is connected, Red takes "
        "tower tile 1 with its 3 merchants and, no longer out of pieces, takes turns again "
        "(Blue and Green have nothing).",
        4, position(4, map_reenter, [(1, 1, "red rooftop")], start=1,
                    tiles={0: ["grey palace tile"]}, screen={1: ["wall"]}),
        [{"action": "place wall", "player": 1}, {"action": "wall at 1,0", "player": 1}],
        {"zones": {"tiles": {0: ["grey palace tile", "tower tile 1"]},
                   "screen": {0: n("merchant", 3)}},
         "current": 0, "legal": ["place merchant"]}))
    return "tower_tiles.yaml", header, sc


def at(kind: str, *cells) -> list:
    return [f"{kind} at {x},{y}" for x, y in cells]


def placement_file():
    header = """
Where a piece may go (medina.txt "Buildings", "The Rooftop Dilemma", "Check out the
Stables!", "Let’s talk about merchants.", "Walls", "The Well"): the placement pictures of
the rulebook rebuilt as positions (ANALYSIS.md 5.6) and the rules they illustrate. 4 players
unless said otherwise; Red (0) is to play and holds only the pieces named, so its first
decision is the kind of piece and the second the square.
"""
    sc = []

    def red(board_map, roofs=(), pieces=(), players=4, **kw):
        return position(players, board_map, roofs, start=0, screen={0: list(pieces)}, **kw)

    # -- buildings --------------------------------------------------------------------------
    map_b = """
     012345678901234567
y=0  T----------------T
y=1  -....OO..........-
y=2  -.....O.G........-
y=3  -.......G........-
y=6  -...........O....-
y=8  -..........,,,...-
y=9  -.........m,W,...-
y=10 -..........,,,...-
"""
    roofs_b = [(8, 2, "red rooftop"), (12, 6, "yellow rooftop")]
    sc.append(scenario(
        "building-must-extend-the-open-palace",
        src("If there’s already a palace of the same color without a rooftop, and you have a "
            "building of that color, you have to build next to that palace.",
            "Imagine you have an orange building in your hands. You have three green spots "
            "you can choose from to place your building."),
        "ANALYSIS.md 5.6. The open orange palace (5,1)(6,1)(6,2); Red's grey palace (8,2)(8,3); "
        "Yellow's orange palace (12,6). An orange building may only extend the open palace: "
        "exactly (4,1), (5,2), (6,3) (the three green spots).",
        4, red(map_b, roofs_b, ["orange"]), ["place orange"],
        {"legal": at("orange building", (4, 1), (5, 2), (6, 3))}))
    sc.append(scenario(
        "building-separation-diagonals-too",
        src("When it comes to two palaces, they must always be separated, with at least one "
            "empty space between them in any direction – horizontally, vertically, or "
            "diagonally.",
            "Unfortunately, the red spots are a no-go. Those areas are too close to another "
            "building, just like yours, and that’s against the rules."),
        "ANALYSIS.md 5.6, the red spots: (7,1) and (7,2) are next to the open orange palace, "
        "but (7,1) touches the grey palace diagonally and (7,2) orthogonally. The wall spaces "
        "(5,0) and (6,0) are never legal; nor is a square next to Yellow's orange palace.",
        4, red(map_b, roofs_b, ["orange"]), ["place orange"],
        {"legal_excludes": at("orange building", (7, 1), (7, 2), (5, 0), (6, 0), (11, 6),
                              (12, 5))}))
    roofs_b2 = roofs_b + [(5, 1, "blue rooftop")]
    sc.append(scenario(
        "building-new-palace-when-none-is-open",
        src("The first building of a palace can go anywhere on the board that is empty. But "
            "you can only start a new palace if there isn’t already a palace of that color "
            "starting to form on the board.",
            "However, if you play another building of the same color, a brand new palace will "
            "be established."),
        "The same position with the orange palace (5,1)(6,1)(6,2) roofed by Blue: no orange "
        "palace is open, so an orange building starts a new palace on any empty city square "
        "off the well's ring with no palace piece among its eight neighbours (edge squares "
        "included).",
        4, red(map_b, roofs_b2, ["orange"]), ["place orange"],
        {"legal_includes": at("orange building", (1, 1), (16, 11), (3, 5), (10, 5), (16, 1)),
         "legal_excludes": at("orange building", (4, 1), (7, 1), (5, 3), (11, 5), (13, 7),
                              (11, 8), (12, 10), (10, 9), (12, 9), (5, 0), (0, 5))}))
    map_blocked = """
     012345678901234567
y=0  T----------------T
y=1  -O.G.............-
y=2  -..G.............-
y=3  -.GG.............-
y=7  -..........,,,...-
y=8  -.......m..,W,...-
y=9  -..........,,,...-
"""
    sc.append(scenario(
        "building-new-palace-when-the-open-one-is-blocked",
        src("Sometimes, due to space limitations, it might not be possible to build a new "
            "building adjacent to an existing palace. In such cases, you have the option to "
            "start a new palace by using that building.",
            "Also, if all the palaces of that color already have a rooftop or can’t expand "
            "anymore, then you can start a new palace."),
        "The unroofed orange palace (1,1) cannot grow: (2,1) and (1,2) both touch the grey "
        "palace (3,1)(3,2)(3,3)(2,3). An orange building starts a new palace anywhere legal.",
        4, red(map_blocked, (), ["orange"]), ["place orange"],
        {"legal_includes": at("orange building", (8, 4), (16, 11), (6, 1)),
         "legal_excludes": at("orange building", (2, 1), (1, 2), (2, 2), (4, 2))}))
    map_well = """
     012345678901234567
y=4  -................-
y=5  -...B,,,.........-
y=6  -...B,W,.........-
y=7  -....,,,.........-
y=10 -.........m......-
"""
    well_phrase = src(
        "you can’t construct any buildings or stables on the eight spaces around the well. "
        "Those spaces are exclusively for merchants.",
        "Hint: If you want to make the brown palace bigger, you can only build more "
        "structures or stables on the green spaces. Be careful not to place anything on the "
        "red spaces next to the well!")
    sc.append(scenario(
        "building-not-on-the-well-ring", well_phrase,
        "ANALYSIS.md 5.6, the well picture: the open brown palace (4,5)(4,6) next to the well "
        "(6,6). A brown building: exactly (3,5), (3,6), (4,4), (4,7); not (5,5) or (5,6), on "
        "the ring.",
        4, red(map_well, (), ["brown"]), ["place brown"],
        {"legal": at("brown building", (3, 5), (3, 6), (4, 4), (4, 7))}))
    sc.append(scenario(
        "stable-not-on-the-well-ring", well_phrase,
        "The same position, a stable: exactly (3,5), (3,6), (4,4), (4,7).",
        4, red(map_well, (), ["stable"]), ["place stable"],
        {"legal": at("stable", (3, 5), (3, 6), (4, 4), (4, 7))}))
    map_well_m = """
     012345678901234567
y=4  -................-
y=5  -...B,,,.........-
y=6  -...B,W,m........-
y=7  -....,,,.........-
"""
    sc.append(scenario(
        "merchant-allowed-on-the-well-ring",
        src("I can’t build any buildings or stables on the red spaces around the well, but "
            "merchants are allowed on those spaces."),
        "The well (6,6), a lone merchant at (8,6): a merchant may go on (7,6), on the ring, as "
        "well as on (9,6), (8,5), (8,7).",
        4, red(map_well_m, (), ["merchant"]), ["place merchant"],
        {"legal": at("merchant", (7, 6), (8, 5), (8, 7), (9, 6))}))

    # -- stables ----------------------------------------------------------------------------
    map_s = """
     012345678901234567
y=0  T----------------T
y=1  -..BBB...........-
y=2  -...bB...........-
y=7  -..........,,,...-
y=8  -..........,W,...-
y=9  -.........m,,,...-
"""
    sc.append(scenario(
        "stable-four-spaces",
        src("You have four spaces to choose from, but there are some rules. You can’t place a "
            "stable next to another stable, and you can’t place it on a wall space.",
            "You can only build a stable right next to a building."),
        "ANALYSIS.md 5.6, the stable picture: brown palace (3,1)(4,1)(5,1)(5,2) with a stable "
        "(4,2). Exactly (2,1), (6,1), (6,2), (5,3); not (3,2) (next to the stable, R13), not "
        "(4,3) (next to a stable only, no building), not the wall spaces above.",
        4, red(map_s, (), ["stable"]), ["place stable"],
        {"legal": at("stable", (2, 1), (5, 3), (6, 1), (6, 2))}))
    map_s2 = """
     012345678901234567
y=0  T----------------T
y=1  -..BB............-
y=2  -.....GG.........-
y=7  -..........,,,...-
y=8  -..........,W,...-
y=9  -.........m,,,...-
"""
    sc.append(scenario(
        "stable-keeps-palaces-apart",
        src("When you build a stable, you have to leave at least one empty space between the "
            "stable and any neighboring palaces.",
            "It can be attached to a palace, whether it has a rooftop or not."),
        "Brown palace (3,1)(4,1), Yellow's roofed grey palace (6,2)(7,2). (5,1) is next to "
        "brown (4,1) but diagonal to grey (6,2); (5,2) is next to grey (6,2) but diagonal to "
        "brown (4,1): both refused. Every other square next to a building is legal, the "
        "roofed palace's too.",
        4, red(map_s2, [(6, 2, "yellow rooftop")], ["stable"]), ["place stable"],
        {"legal": at("stable", (2, 1), (3, 2), (4, 2), (6, 1), (7, 1), (8, 2), (6, 3),
                     (7, 3))}))

    # -- merchants --------------------------------------------------------------------------
    map_m = """
     012345678901234567
y=5  -....mmm.........-
y=6  -......m.........-
y=7  -..........,,,...-
y=8  -..........,W,...-
y=9  -..........,,,...-
"""
    sc.append(scenario(
        "merchant-at-an-end-next-to-one-merchant",
        src("Each new merchant can only be placed next to one merchant, either at the "
            "beginning or the end of the market street. They can never be placed next to two "
            "merchants.",
            "One of those rules is that a merchant can’t be next to two other merchants."),
        "ANALYSIS.md 5.6, the merchant picture: the street (5,5)(6,5)(7,5)(7,6). Exactly "
        "(4,5), (5,4), (5,6) at the end (5,5) and (8,6), (7,7) at the end (7,6); not (6,6) "
        "(next to two merchants), not (6,4) or (8,5) (next to a middle merchant).",
        4, red(map_m, (), ["merchant"]), ["place merchant"],
        {"legal": at("merchant", (4, 5), (5, 4), (5, 6), (7, 7), (8, 6))}))
    map_m1 = """
     012345678901234567
y=1  -mm..............-
y=2  -G...............-
y=3  -G...............-
y=7  -..........,,,...-
y=8  -..........,W,...-
y=9  -..........,,,...-
"""
    sc.append(scenario(
        "merchant-dead-end-on-one-side",
        src("When the market street reaches a dead end on one side, we can only add merchants "
            "on the other side."),
        "The street (1,1)(2,1): the end (1,1) is boxed in by the wall spaces and the grey "
        "palace (1,2); only the end (2,1) takes a merchant: (3,1) or (2,2).",
        4, red(map_m1, (), ["merchant"]), ["place merchant"],
        {"legal": at("merchant", (2, 2), (3, 1))}))
    map_m2 = """
     012345678901234567
y=1  -mmmO............-
y=2  -G.OO............-
y=3  -G...............-
y=7  -..........,,,...-
y=8  -..........,W,...-
y=9  -..........,,,...-
"""
    sc.append(scenario(
        "merchant-new-street-when-both-ends-are-blocked",
        src("But if we can’t add merchants on both sides, the active player gets to place a "
            "new merchant on any free space on the board. And with that, a new market street "
            "is born!"),
        "The street (1,1)(2,1)(3,1): the end (1,1) is boxed in by the grey palace (1,2), the "
        "end (3,1) by the orange palace (4,1)(3,2)(4,2); (2,2) touches only the middle "
        "merchant. A new street may start on any empty city square with no merchant next to "
        "it (R14): edge squares and the well's ring included, not (2,2).",
        4, red(map_m2, (), ["merchant"]), ["place merchant"],
        {"legal_includes": at("merchant", (16, 11), (1, 11), (5, 1), (11, 8), (8, 5)),
         "legal_excludes": at("merchant", (2, 2), (12, 8), (0, 5))}))

    # -- walls ------------------------------------------------------------------------------
    def walls_map(top: str) -> str:
        return f"""
     012345678901234567
y=0  {top}
y=7  -..........,,,...-
y=8  -.......m..,W,...-
y=9  -..........,,,...-
"""
    corners_free = at("wall", (0, 1), (17, 1), (17, 11), (16, 12), (1, 12), (0, 11))
    sc.append(scenario(
        "wall-from-a-tower-or-a-wall",
        src("The walls are built on the sections surrounding the city. And here’s the thing – "
            "they have to start next to a tower. If you want to add a wall, you have to "
            "connect it to one of the four towers or connect it to an existing wall."),
        "Tower 1's walls (1,0)..(5,0), tower 2's (14,0)..(16,0). A wall may go next to a "
        "tower or at the end of a wall: exactly (6,0), (13,0) and the six wall spaces next to "
        "a tower that are still free; not (7,0) (touches nothing).",
        4, red(walls_map("T=====--------===T"), (), ["wall"]), ["place wall"],
        {"legal": at("wall", (6, 0), (13, 0)) + corners_free}))
    sc.append(scenario(
        "wall-never-closes-the-gate",
        src("if you have walls coming from two different towers, they always need to have a "
            "space between them. This space is called a gate, and it needs to be empty.",
            "It’s important to have a way to enter the city, so there will always be a space "
            "for a gate in the wall."),
        "Tower 1's walls (1,0)..(12,0), tower 2's (14,0)..(16,0): (13,0) would join them; it "
        "is the gate and stays empty. Only the six spaces next to the other towers remain.",
        4, red(walls_map("T============-===T"), (), ["wall"]), ["place wall"],
        {"legal": corners_free}))
    sc.append(scenario(
        "wall-not-next-to-another-tower",
        src("if you have walls coming from two different towers, they always need to have a "
            "space between them. This space is called a gate, and it needs to be empty."),
        "R16: tower 1's walls (1,0)..(15,0); (16,0) would touch tower 2 and close the top "
        "side: refused.",
        4, red(walls_map("T===============-T"), (), ["wall"]), ["place wall"],
        {"legal": corners_free}))

    # -- rooftops ---------------------------------------------------------------------------
    map_r = """
     012345678901234567
y=1  -.OO...GG........-
y=4  -.O..............-
y=7  -..........,,,...-
y=8  -.......m..,W,...-
y=9  -..........,,,...-
"""
    roof_phrase = src(
        "In the game, each player has four rooftops in their color and can claim four "
        "palaces, one in each of the four colors.",
        "I’ve already placed one of my rooftops on an orange palace, so now I need to choose "
        "a brown palace.")
    sc.append(scenario(
        "rooftop-one-palace-per-colour", roof_phrase,
        "3 players. Red owns the orange palace (2,1)(3,1); the orange palace (2,4) and the "
        "grey palace (7,1)(8,1) are unroofed. A red rooftop may only go on the grey palace.",
        3, position(3, map_r, [(2, 1, "red rooftop")], start=0,
                    roof_supply={0: ["red rooftop", "green rooftop"]}),
        ["place red rooftop"],
        {"legal": ["red rooftop on the grey palace at 7,1"]}))
    sc.append(scenario(
        "rooftop-neutral-on-any-palace",
        src("Did you know that you can put rooftops in any color on any palace? Yep, that’s "
            "right! Even if there’s already a rooftop of the same color on another palace, you "
            "can still add another.",
            "If a neutral rooftop is placed on a palace, the palace doesn’t belong to any "
            "player, and neither player scores points for it."),
        "The same position: Red's neutral (green) rooftop may go on either unroofed palace, "
        "the orange one included (R17).",
        3, position(3, map_r, [(2, 1, "red rooftop")], start=0,
                    roof_supply={0: ["red rooftop", "green rooftop"]}),
        ["place green rooftop"],
        {"legal": ["green rooftop on the orange palace at 2,4",
                   "green rooftop on the grey palace at 7,1"]}))
    sc.append(scenario(
        "rooftop-neutral-palace-scores-for-nobody",
        src("If a neutral rooftop is placed on a palace, the palace doesn’t belong to any "
            "player, and neither player scores points for it."),
        "Red puts the neutral rooftop on the grey palace (7,1)(8,1): nobody scores it; Red "
        "still scores the orange palace (2,1)(3,1), 2 points.",
        3, position(3, map_r, [(2, 1, "red rooftop")], start=0,
                    roof_supply={0: ["red rooftop", "green rooftop"]}),
        ["place green rooftop", "green rooftop on the grey palace at 7,1"],
        {"points": {"palaces": [2, 0, 0]}}))

    # -- a palace whose first square (top-most row, then left-most) is a stable -------------
    map_sf = """
     012345678901234567
y=2  -...bB...........-
y=3  -....B...........-
y=7  -..........,,,...-
y=8  -.......m..,W,...-
y=9  -..........,,,...-
"""
    stable_part = src("A palace is made up of several buildings that are all the same color, "
                      "and there are also stables.", "A stable is a part of a palace.")
    sc.append(scenario(
        "building-extends-an-open-palace-whose-first-square-is-a-stable",
        stable_part + ' ... "If there’s already a palace of the same color without a rooftop, '
        'and you have a building of that color, you have to build next to that palace."',
        "The open brown palace (5,2)(5,3) with a stable (4,2), which comes first in reading "
        "order. A brown building must extend it: exactly (4,3), (5,1), (5,4), (6,2), (6,3).",
        4, red(map_sf, (), ["brown"]), ["place brown"],
        {"legal": at("brown building", (4, 3), (5, 1), (5, 4), (6, 2), (6, 3))}))
    sc.append(scenario(
        "rooftop-on-a-palace-whose-first-square-is-a-stable",
        stable_part + ' ... "By placing a rooftop on top of a palace, the palace reaches its '
        'maximum size and cannot accommodate any more buildings."',
        "The same unroofed brown palace can be claimed.",
        4, position(4, map_sf, start=0, roof_supply={0: ["red rooftop"]}),
        expect={"legal": ["place red rooftop"]}))
    map_sf2 = """
     012345678901234567
y=2  -...bB....B......-
y=3  -....B...........-
y=6  -.........G......-
y=7  -..........,,,...-
y=8  -.......m..,W,...-
y=9  -..........,,,...-
"""
    sc.append(scenario(
        "rooftop-one-per-colour-counts-a-palace-whose-first-square-is-a-stable",
        stable_part + " ... " + roof_phrase[len("medina.txt "):],
        "Red owns the brown palace (4,2)s (5,2) (5,3); the brown palace (10,2) and the grey "
        "palace (10,6) are unroofed. A red rooftop may only go on the grey palace.",
        4, position(4, map_sf2, [(5, 2, "red rooftop")], start=0,
                    roof_supply={0: ["red rooftop"]}),
        ["place red rooftop"],
        {"legal": ["red rooftop on the grey palace at 10,6"]}))
    return "placement.yaml", header, sc


def end_file():
    header = """
The turn and the end of the game (medina.txt "Now let’s talk about how the game is played",
"The Game’s End"): the first turns, the last piece, players out of pieces, and rulings R8
(a player who can place nothing passes) and R9 (the game ends when nobody can place).
"""
    sc = []
    map_e = """
     012345678901234567
y=5  -................-
y=6  -.......m........-
y=8  -...........W....-
"""

    def act(p, *actions):
        return [{"action": a, "player": p} for a in actions]

    sc.append(scenario(
        "game-ends-when-all-supplies-are-empty",
        src("The game ends when all players have used up all their components."),
        "4 players, every supply (screens and rooftops) empty: nobody takes a turn, the game "
        "is over.",
        4, position(4, map_e),
        expect={"terminal": True, "current": "terminal"}))
    sc.append(scenario(
        "player-without-pieces-is-skipped",
        src("If you run out of components, you’ll have to put away your player screen and stop "
            "taking turns. The other players can keep going until they run out too."),
        "3 players, Red (0) starts with nothing: Yellow (1) is the first to act.",
        3, position(3, map_e, start=0, screen={1: ["merchant"], 2: n("merchant", 2)}),
        expect={"current": 1, "legal": ["place merchant"]}))
    sc.append(scenario(
        "game-goes-on-until-everybody-is-out",
        src("If you run out of components, you’ll have to put away your player screen and stop "
            "taking turns. The other players can keep going until they run out too.",
            "If you have only one component left, you can only build one component instead of "
            "two.",
            "The game ends when all players have used up all their components."),
        "The same position: Yellow places its only merchant (one piece, then the turn ends), "
        "Blue (2) its two, Red and Yellow are skipped, Blue is out too: the game is over.",
        3, position(3, map_e, start=0, screen={1: ["merchant"], 2: n("merchant", 2)}),
        act(1, "place merchant", "merchant at 9,6") +
        act(2, "place merchant", "merchant at 10,6", "place merchant", "merchant at 11,6"),
        {"terminal": True}))
    sc.append(scenario(
        "one-piece-left-places-one",
        src("If you have only one component left, you can only build one component instead of "
            "two."),
        "4 players, Red (0) has one merchant left: after placing it the turn passes to "
        "Yellow (1).",
        4, position(4, map_e, start=0, screen={0: ["merchant"], 1: n("merchant", 2)}),
        act(0, "place merchant", "merchant at 9,6"),
        {"current": 1, "legal": ["place merchant"]}))
    sc.append(scenario(
        "game-ends-when-nobody-can-place",
        src("The game ends when all players have used up all their components."),
        "R9: 3 players each hold only a stable, and no building stands on the board: no stable "
        "can be placed, every player passes, the game ends with pieces left.",
        3, position(3, map_e, start=0, screen={0: ["stable"], 1: ["stable"], 2: ["stable"]}),
        expect={"terminal": True}))
    sc.append(scenario(
        "player-who-cannot-place-passes-and-stays-in",
        src("If you run out of components, you’ll have to put away your player screen and stop "
            "taking turns."),
        "R8: Red (0) holds only a stable and there is no building: Red passes. Yellow (1) "
        "places an orange building; Blue (2) has nothing; Red, still in the game, may now "
        "place the stable.",
        3, position(3, map_e, start=0, screen={0: ["stable"], 1: ["orange"]}),
        act(1, "place orange", "orange building at 4,3"),
        {"current": 0, "legal": ["place stable"]}))
    first4 = position(4, map_e, start=0, turns_taken={0: 0, 1: 0, 2: 0, 3: 0},
                      screen={p: n("merchant", 3) for p in range(4)})
    first_phrase = src(
        "During my turn, I get to place two of my wooden pieces",
        "3 or 4 Player Game: In a game with three or four players, the first two players only "
        "place one wooden piece during their first turn.")
    sc.append(scenario(
        "first-turns-single-piece-4-players", first_phrase,
        "R6, 4 players, start player Red (0): Red and Yellow place one piece on their first "
        "turn, Blue and Green two.",
        4, first4,
        act(0, "place merchant", "merchant at 9,6") +
        act(1, "place merchant", "merchant at 10,6") +
        act(2, "place merchant", "merchant at 11,6", "place merchant", "merchant at 12,6") +
        act(3, "place merchant", "merchant at 13,6", "place merchant", "merchant at 14,6"),
        {"current": 0}))
    sc.append(scenario(
        "first-turns-counted-from-the-start-player", first_phrase,
        "R6, 4 players, start player Blue (2): Blue and Green place one piece, Red and Yellow "
        "two.",
        4, position(4, map_e, start=2, turns_taken={0: 0, 1: 0, 2: 0, 3: 0},
                    screen={p: n("merchant", 3) for p in range(4)}),
        act(2, "place merchant", "merchant at 9,6") +
        act(3, "place merchant", "merchant at 10,6") +
        act(0, "place merchant", "merchant at 11,6", "place merchant", "merchant at 12,6") +
        act(1, "place merchant", "merchant at 13,6", "place merchant", "merchant at 14,6"),
        {"current": 2}))
    map_2 = """
     0123456789012345
y=6  -.......m......-
y=8  -..........W...-
"""
    sc.append(scenario(
        "first-turn-single-piece-2-players",
        src("2 Player Game: In a game with only two players, I only place one wooden piece "
            "during my first turn.",
            "When we start playing the game, it’s my turn first."),
        "R6, 2 players (the 14 x 10 city): the start player Red (0) places one piece on the "
        "first turn, Yellow (1) two.",
        2, position(2, map_2, start=0, turns_taken={0: 0, 1: 0},
                    screen={p: n("merchant", 3) for p in range(2)}),
        act(0, "place merchant", "merchant at 9,6") +
        act(1, "place merchant", "merchant at 10,6", "place merchant", "merchant at 11,6"),
        {"current": 0}))
    sc.append(scenario(
        "two-pieces-of-any-kind",
        src("The two pieces I place can be any type, whether they’re the same or different."),
        "Red (0) places a merchant and then a wall in one turn; then it is Yellow's turn.",
        4, position(4, map_e, start=0, screen={0: ["merchant", "wall"], 1: ["merchant"]}),
        act(0, "place merchant", "merchant at 9,6", "place wall", "wall at 1,0"),
        {"current": 1}))
    return "end.yaml", header, sc


def FILES():
    return [scoring_file(), palace_tiles_file(), tea_file(), tower_tiles_file(),
            placement_file(), end_file()]


def main() -> None:
    for filename, header, scenarios in FILES():
        write(filename, header, scenarios)


if __name__ == "__main__":
    main()
