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

The BrettspielWelt variant (bsw-dm2003.yaml, the bsw_*.yaml files) has no well and no tea
tiles and other colours: its maps have no `W` or `,`, and the building letters are
G K B O (grey / black / brown / orange), stables g k b o s.

Rows left out are empty. Rooftops are given apart, as (x, y, "blue rooftop") on a building
of the palace. Everything else of the position (supplies, tiles, tea tiles, the merchants
still on the tower tiles, variables) is a keyword argument of `position()`; what a scenario
does not give is filled in the usual way (tiles nobody holds at the board edge, a tower
tile still at the edge keeps its set-up merchants, the tea tiles nobody holds on the
stack, every player past the first turn).

The board goes into the YAML as the scenario format's map (docs/scenarios.md): the map's
own rows, with the corner towers as 1-4 and a lowercase glyph of its own for each
building that carries a rooftop, and a legend naming what every glyph holds.
"""

from __future__ import annotations

import json
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


class Rules:
    """What a map and a position may hold under one spec: medina.txt or the BSW variant."""

    def __init__(self, spec, colours, char_piece, city_chars, well, tea):
        self.spec, self.colours, self.char_piece = spec, colours, char_piece
        self.city_chars, self.well, self.tea = city_chars, well, tea
        self.totals = {
            **{c: 20 for c in colours},
            **{f"{c} rooftop": 4 for c in SEAT_COLOURS},
            "stable": 12, "merchant": 31, "wall": 36,
            **({"well": 1} if well else {}), **({"tea tile": 6} if tea else {}),
            **{f"tower {n}": 1 for n in range(1, 5)},
            **{f"tower tile {n}": 1 for n in range(1, 5)},
            **{f"{c} palace tile": 1 for c in colours},
        }
        self.stable_chars = "".join(k for k, v in char_piece.items() if v == "stable")
        self.building_chars = "".join(k for k, v in char_piece.items() if v in colours)


MEDINA = Rules("../medina.yaml", PALACE_COLOURS, CHAR_PIECE, CITY_CHARS, well=True, tea=True)
BSW_COLOURS = ["grey", "black", "brown", "orange"]
BSW = Rules("../bsw-dm2003.yaml", BSW_COLOURS,
            {"=": "wall", "m": "merchant",
             "G": "grey", "K": "black", "B": "brown", "O": "orange",
             "g": "stable", "k": "stable", "b": "stable", "o": "stable", "s": "stable"},
            ".mGKBOgkbos", well=False, tea=False)
assert MEDINA.totals == PIECE_TOTALS


def dims(players: int) -> tuple:
    """(grid width, grid height): the city plus the ring of wall spaces (R1)."""
    w, h = (14, 10) if players == 2 else (16, 11)
    return w + 2, h + 2


# A `cell` variable (well_cell) is given as rule text, `board[x, y]`: the scenario runner
# evaluates it in the position.


class Board:
    """A parsed map: one list of piece names (bottom to top) per cell."""

    def __init__(self, players: int, text: str, roofs=(), rules: Rules = MEDINA):
        self.players = players
        self.rules = rules
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
                if ring and ch not in WALL_CHARS or not ring and ch not in rules.city_chars:
                    sys.exit(f"'{ch}' cannot stand at {x},{y}")
                if ch in rules.char_piece:
                    self.cells[y * width + x] = [rules.char_piece[ch]]
                if ch == "W":
                    self.well = (x, y)
        if rules.well:
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
            if len(c) != 1 or c[0] not in rules.colours:
                sys.exit(f"the rooftop {roof} at {x},{y} is not on a building")
            c.append(roof)

    @property
    def well_cell(self):
        return f"board[{self.well[0]}, {self.well[1]}]" if self.well else None

    def pieces(self) -> list:
        return [n for c in self.cells for n in c]

    def as_map(self, indent: str) -> str:
        """The board as the scenario format's map: the map's own rows, the corner towers
        as 1-4, and a glyph of its own (from ROOF_GLYPHS) for each building with a
        rooftop; the legend names what every glyph holds."""
        legend = {str(k): [f"tower {k}"] for k in range(1, 5)}
        legend.update({ch: [piece] for ch, piece in self.rules.char_piece.items()})
        legend.update({"-": [], ",": []})
        roofed: dict = {}
        rows = []
        for y in range(self.height):
            row = []
            for x in range(self.width):
                cell = self.cells[y * self.width + x]
                ch = self.chars[y][x]
                if ch == "T":
                    ch = cell[0].split()[-1]
                elif len(cell) > 1:                         # a building with its rooftop
                    key = tuple(cell)
                    if key not in roofed:
                        roofed[key] = ROOF_GLYPHS[len(roofed)]
                    ch = roofed[key]
                    legend[ch] = list(cell)
                row.append(ch)
            rows.append("".join(row))
        used = {ch for r in rows for ch in r}
        items = []
        for ch, names in legend.items():
            if ch in used and ch != ".":
                value = json.dumps(names[0]) if len(names) == 1 else json.dumps(names)
                items.append(f"{json.dumps(ch)}: {value}")
        body = "\n".join(f"{indent}    {r}" for r in rows)
        return (f"\n{indent}  map: |\n{body}\n"
                f"{indent}  legend: {{{', '.join(items)}}}")


ROOF_GLYPHS = "acdefhijlnqrtuvwxyz"      # no letter of either notation (b g k m o p s)


def n(name: str, k: int) -> list:
    return [name] * k


def position(players: int, board_map: str, roofs=(), screen=None, roof_supply=None,
             tiles=None, teas=None, tea_box=0, tower_merchants=None, start=0,
             purple_claims=0, turns_taken=None, passes=0, rules: Rules = MEDINA):
    """The `given` of a scenario, with the board kept as a Board (written out at the end)."""
    board = Board(players, board_map, roofs, rules)
    seats = range(players)
    screen = {p: list((screen or {}).get(p, [])) for p in seats}
    roof_supply = {p: list((roof_supply or {}).get(p, [])) for p in seats}
    tiles = {p: list((tiles or {}).get(p, [])) for p in seats}
    teas = {p: int((teas or {}).get(p, 0)) for p in seats}
    held = [t for p in seats for t in tiles[p]]
    edge = [f"tower tile {k}" for k in range(1, 5) if f"tower tile {k}" not in held]
    edge += [f"{c} palace tile" for c in rules.colours if f"{c} palace tile" not in held]
    if tower_merchants is None:
        tower_merchants = {k: TOWER_MERCHANTS[k] if f"tower tile {k}" in edge else 0
                           for k in range(1, 5)}
    if not rules.tea and (any(teas.values()) or tea_box):
        sys.exit("the variant has no tea tiles")
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
    if not rules.tea:
        del zones["tea_stack"], zones["teas"]
    used = board.pieces() + edge + [m for s in zones["tower_merchants"] for m in s]
    used += zones.get("tea_stack", []) + [
        t for p in seats for t in
        screen[p] + roof_supply[p] + tiles[p] + zones.get("teas", {}).get(p, [])]
    for name in set(used):
        if name not in rules.totals:
            sys.exit(f"no piece is named {name!r}")
        if used.count(name) > rules.totals[name]:
            sys.exit(f"{used.count(name)} pieces named {name!r}, the game has "
                     f"{rules.totals[name]}")
    if turns_taken is None:
        turns_taken = {p: 1 for p in seats}
    variables = {
        "start_player": start,
        "well_cell": board.well_cell,       # rule text: the cell board[x, y]
        "purple_claims": purple_claims,
        "turns_taken": turns_taken,
        "passes": passes,
    }
    if not rules.well:
        del variables["well_cell"]
    if not rules.tea:
        del variables["purple_claims"]
    return {"zones": zones, "variables": variables}


def scenario(id, source, description, players, given, do=(), expect=None, seed=None):
    """A scenario; `given` None plays from the set-up (with `seed`)."""
    sc = {"id": id, "source": source, "description": description, "players": players}
    if seed is not None:
        sc["seed"] = seed
    if given is not None:
        sc["given"] = given
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


def write(filename: str, header: str, scenarios: list, spec: str = "../medina.yaml") -> None:
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
    doc = {"spec": spec, "scenarios": strip_boards(scenarios)}
    text = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=None,
                     width=96, allow_unicode=True)
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\s*)board: '?(@@BOARD\d+@@)'?$", line)
        if m:
            out.append(f"{m.group(1)}board:" + boards[m.group(2)].as_map(m.group(1)))
        else:
            out.append(line)
    head = ["# yaml-language-server: $schema=../../../schemas/scenario.schema.json", "#",
            "# GENERATED by make_positions.py from the maps in it: edit the script, not this file.",
            "# Boards are maps (x 0..W+1 left to right, y 0 first): towers 1-4 at the corners,",
            "# a lowercase glyph of its own for each building with a rooftop (see its legend).",
            "#"]
    head += ["#" + (" " + line if line else "") for line in header.strip().splitlines()]
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
    choice = src(
        "You can use these tiles to skip putting something down during your turn (tea break).",
        "Instead of playing both wooden components, I savor the privilege of only placing one "
        "while gracefully returning a tea tile back to the box.")
    sc.append(scenario(
        "tea-break-not-forced-when-the-rooftop-fits-nowhere", choice,
        "R7, R8: A holds two tea tiles, a merchant and a red rooftop, and no palace is on "
        "the board. After the merchant, the rooftop fits nowhere: the tea break is a choice, "
        "not the only move left, so the turn ends, A keeps both tea tiles and Yellow (1) is "
        "next.",
        3, position(3, small, start=0, teas={0: 2}, screen={0: ["merchant"], 1: ["merchant"]},
                    roof_supply={0: ["red rooftop"]}),
        act(0, "place merchant", "merchant at 9,8"),
        {"current": 1, "sizes": {"teas": {0: 2}, "roofs": {0: 1}}}))
    sc.append(scenario(
        "tea-break-not-forced-when-the-stable-fits-nowhere", choice,
        "R7, R8: A holds one tea tile, a merchant and a stable, and no building is on the "
        "board. After the merchant, the stable fits nowhere: the turn ends, A keeps the tea "
        "tile and Yellow (1) is next.",
        3, position(3, small, start=0, teas={0: 1},
                    screen={0: ["merchant", "stable"], 1: ["merchant"]}),
        act(0, "place merchant", "merchant at 9,8"),
        {"current": 1, "sizes": {"teas": {0: 1}, "screen": {0: 1}}}))
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


# ---- the BrettspielWelt DM 2003 variant (bsw-dm2003.yaml) -------------------------------
#
# Maps without a well (no W, no ','), colours G K B O (grey, black, brown, orange); players
# P0 Red, P1 Yellow, P2 Blue, P3 Green as in medina.txt. The files bsw_*.yaml test the
# variant (`spec: ../bsw-dm2003.yaml`); bsw_towers_medina.yaml holds the medina.txt twins of
# the tower positions where the two rulesets part.

def bsw_src(*phrases: str) -> str:
    """A source field: medina-bsw-dm2003.txt and its phrases, joined by ' ... '."""
    return "medina-bsw-dm2003.txt " + " ... ".join(f'"{p}"' for p in phrases)


def bpos(players: int, board_map: str, roofs=(), **kw):
    """A position under the BSW variant (no well, no tea tiles, its colours)."""
    return position(players, board_map, roofs, rules=BSW, **kw)


def bact(p, *actions):
    return [{"action": a, "player": p} for a in actions]


BSW_VALUE = ("Each component in the palace brings a point (colored palace parts and goat's "
             "trunks).",
             "Each market street figure bordering directly (not diagonally) to a palace or "
             "goat's stable brings a point.",
             "Each wall that borders directly to a palace or goat's stable brings a point.")
BSW_NO_TILES = {"palace_tiles": [0, 0, 0, 0], "tower_tiles": [0, 0, 0, 0]}

# ANALYSIS.md 5.7: the four palaces of the BSW picture, each in its own position.
MAP_BSW_GREY = """
     012345678901234567
y=0  T------------====T
y=1  -............GGGG=
y=2  -............mm..-
"""
MAP_BSW_BLACK = """
     012345678901234567
y=10 -mmmm............-
y=11 =KKKK............-
y=12 T====------------T
"""
MAP_BSW_GREY_AND_BLACK = """
     012345678901234567
y=0  T------------====T
y=1  -............GGGG=
y=2  -............mm..-
y=10 -mmmm............-
y=11 =KKKK............-
y=12 T====------------T
"""
MAP_BSW_RED_ORANGE = """
     012345678901234567
y=5  -.....oOOOOo.....-
y=6  -.....mmmm.m.....-
y=7  -........mmm.....-
"""
MAP_BSW_GREEN_ORANGE = """
     012345678901234567
y=8  -.........OOOOO..-
y=9  -.........o...o..-
y=10 -.............m..-
"""


def bsw_scoring_file():
    header = """
BrettspielWelt DM 2003 variant, scoring (medina-bsw-dm2003.txt "Value"): the four example
palaces of the text (ANALYSIS.md 5.7, ruling "BSW examples: column" in RULINGS.md), the bonus
card values (grey 1, black 2, brown 3, orange 4; tower n worth n) and how the palace bonus
card moves. 4 players: Red (0), Yellow (1), Blue (2), Green (3). No well, no tea tiles.
Where every supply is empty the game is over at once and the scores are final.
"""
    sc = []
    sc.append(scenario(
        "bsw-example-grey-palace-11",
        bsw_src("The gray palace with the green roof top right gets 11 points: 4 (colored palace "
                "parts) + 2 (market lane) + 5 (mour)", *BSW_VALUE),
        "ANALYSIS.md 5.7. Green's grey palace (13,1)..(16,1) top right: 4 buildings, the "
        "merchants (13,2) (14,2) below it, the walls (13,0)..(16,0) and (17,1) of tower 2 "
        "around it: 4 + 2 + 5 = 11.",
        4, bpos(4, MAP_BSW_GREY, [(13, 1, "green rooftop")]),
        expect={"terminal": True, "points": {"palaces": [0, 0, 0, 11], **BSW_NO_TILES},
                "scores": [0, 0, 0, 11]}))
    sc.append(scenario(
        "bsw-example-black-palace-13",
        bsw_src("The black palace of blue left below gets 13 points: 4 (colored palace parts) + "
                "(Marktgasse) + 5 (Mauern)", *BSW_VALUE),
        "ANALYSIS.md 5.7. Blue's black palace (1,11)..(4,11) bottom left: 4 buildings, the "
        "merchants (1,10)..(4,10) (the lost number: 13 - 4 - 5 = 4), the walls (0,11) and "
        "(1,12)..(4,12) of tower 4: 4 + 4 + 5 = 13.",
        4, bpos(4, MAP_BSW_BLACK, [(1, 11, "blue rooftop")]),
        expect={"terminal": True, "points": {"palaces": [0, 0, 13, 0], **BSW_NO_TILES},
                "scores": [0, 0, 13, 0]}))
    sc.append(scenario(
        "bsw-example-red-orange-palace-11",
        bsw_src("The orange palace with a red roof gets 11 points: 4 (coloured palace parts) + 2 "
                "(column) + 5 (market lane: 3 at the palace, 2 at the two stables)",
                *BSW_VALUE),
        "ANALYSIS.md 5.7. Red's orange palace (7,5)..(10,5) with the stables (6,5) and (11,5) "
        "(\"column\" = the stables): 4 buildings + 2 stables + 5 merchants, (7,6) (8,6) (9,6) "
        "under the buildings and (6,6), (11,6) under the stables; (9,7) and (10,7) touch no "
        "palace piece: 4 + 2 + 5 = 11.",
        4, bpos(4, MAP_BSW_RED_ORANGE, [(7, 5, "red rooftop")]),
        expect={"terminal": True, "points": {"palaces": [11, 0, 0, 0], **BSW_NO_TILES},
                "scores": [11, 0, 0, 0]}))
    sc.append(scenario(
        "bsw-example-green-orange-palace-8",
        bsw_src("The orange palace with green roof right below gets 8 points: 5 (colored palace "
                "parts) + 2 (column) + 1 (column adjacent to the stable)", *BSW_VALUE),
        "ANALYSIS.md 5.7. Green's orange palace (10,8)..(14,8) with the stables (10,9) and "
        "(14,9), the merchant (14,10) next to the stable (14,9) only: 5 + 2 + 1 = 8.",
        4, bpos(4, MAP_BSW_GREEN_ORANGE, [(10, 8, "green rooftop")]),
        expect={"terminal": True, "points": {"palaces": [0, 0, 0, 8], **BSW_NO_TILES},
                "scores": [0, 0, 0, 8]}))
    bonus_phrase = bsw_src(
        "The player with the greatest gray/black/brown/orange palace gets 1/2/3/4 bonus points.",
        "The player who recently joined a palace to the wall running from the tower in corner "
        "1/2/3/4 gets 1/2/3/4 points.")
    sc.append(scenario(
        "bsw-example-grey-and-black-with-bonus-cards",
        bsw_src("The gray palace with the green roof top right gets 11 points",
                "The black palace of blue left below gets 13 points") + " ... " +
        bonus_phrase[len("medina-bsw-dm2003.txt "):],
        "The grey and the black example palaces on one board, with the cards their claims "
        "gave: Green holds the grey card (1) and tower card 2 (2), Blue the black card (2) "
        "and tower card 4 (4). Green 11 + 1 + 2 = 14, Blue 13 + 2 + 4 = 19.",
        4, bpos(4, MAP_BSW_GREY_AND_BLACK, [(13, 1, "green rooftop"), (1, 11, "blue rooftop")],
                tiles={2: ["black palace tile", "tower tile 4"],
                       3: ["grey palace tile", "tower tile 2"]}),
        expect={"terminal": True,
                "points": {"palaces": [0, 0, 13, 11], "palace_tiles": [0, 0, 2, 1],
                           "tower_tiles": [0, 0, 4, 2]},
                "scores": [0, 0, 19, 14], "winners": [2]}))
    map_cards = """
     012345678901234567
y=2  -..G.....K.......-
y=6  -..B.....O.......-
y=9  -.......m........-
"""
    sc.append(scenario(
        "bsw-palace-bonus-card-values", bonus_phrase,
        "Four one-building palaces: Red owns the grey one and holds the grey card, Yellow "
        "the black, Blue the brown, Green the orange. Cards: grey 1, black 2, brown 3, "
        "orange 4; totals 1 + 1, 1 + 2, 1 + 3, 1 + 4.",
        4, bpos(4, map_cards, [(3, 2, "red rooftop"), (9, 2, "yellow rooftop"),
                               (3, 6, "blue rooftop"), (9, 6, "green rooftop")],
                tiles={0: ["grey palace tile"], 1: ["black palace tile"],
                       2: ["brown palace tile"], 3: ["orange palace tile"]}),
        expect={"terminal": True,
                "points": {"palaces": [1, 1, 1, 1], "palace_tiles": [1, 2, 3, 4],
                           "tower_tiles": [0, 0, 0, 0]},
                "scores": [2, 3, 4, 5], "winners": [3]}))
    sc.append(scenario(
        "bsw-tower-bonus-card-values", bonus_phrase,
        "Red holds all four palace cards and all four tower cards (its grey palace counts "
        "1): 1 + (1 + 2 + 3 + 4) + (1 + 2 + 3 + 4) = 21.",
        4, bpos(4, map_cards.replace("K", ".").replace("B", ".").replace("O", "."),
                [(3, 2, "red rooftop")],
                tiles={0: [f"{c} palace tile" for c in BSW_COLOURS] +
                       [f"tower tile {k}" for k in range(1, 5)]}),
        expect={"terminal": True,
                "points": {"palaces": [1, 0, 0, 0], "palace_tiles": [10, 0, 0, 0],
                           "tower_tiles": [10, 0, 0, 0]},
                "scores": [21, 0, 0, 0]}))
    award = ("The palace bonus cards are awarded at the moment when the first player finishes "
             "a palace of the corresponding color. If another player creates a larger palace "
             "of the same color, the bonus card changes.")
    map_first = """
     012345678901234567
y=3  -..KK............-
y=8  -.......m........-
"""
    sc.append(scenario(
        "bsw-palace-bonus-card-first-claim", bsw_src(award),
        "No black palace is claimed, the black card lies at the board edge. Yellow (1) roofs "
        "the black palace (3,3)(4,3): Yellow takes the black card.",
        4, bpos(4, map_first, start=1, roof_supply={1: ["yellow rooftop"]}),
        bact(1, "place yellow rooftop", "yellow rooftop on the black palace at 3,3"),
        {"zones": {"tiles": {1: ["black palace tile"]},
                   "edge": ["tower tile 1", "tower tile 2", "tower tile 3", "tower tile 4",
                            "grey palace tile", "brown palace tile", "orange palace tile"]}}))
    map_two = """
     012345678901234567
y=3  -..KK.....KK.....-
y=8  -.......m........-
"""

    def two(**kw):
        args = dict(start=1, tiles={2: ["black palace tile"]},
                    roof_supply={1: ["yellow rooftop"]}, screen={1: ["stable"]})
        args.update(kw)
        return bpos(4, map_two, [(3, 3, "blue rooftop")], **args)

    roof = bact(1, "place yellow rooftop", "yellow rooftop on the black palace at 10,3")
    sc.append(scenario(
        "bsw-palace-bonus-card-equal-palace-does-not-take", bsw_src(award),
        "Blue (2) holds the black card with the black palace (3,3)(4,3), size 2. Yellow (1) "
        "roofs the black palace (10,3)(11,3), also size 2: not larger, Blue keeps the card.",
        4, two(), roof,
        {"zones": {"tiles": {1: [], 2: ["black palace tile"]}}}))
    sc.append(scenario(
        "bsw-palace-bonus-card-stable-makes-it-larger",
        bsw_src(award, "Goat trunks naturally count when calculating the palace size."),
        "Then, as the turn's second piece, Yellow adds a stable at (12,3): size 3 > 2, the "
        "black card goes to Yellow.",
        4, two(), roof + bact(1, "place stable", "stable at 12,3"),
        {"zones": {"tiles": {1: ["black palace tile"], 2: []}}}))
    map_three = map_two.replace("y=3  -..KK.....KK.....-", "y=3  -..KK.....KKK....-")
    sc.append(scenario(
        "bsw-palace-bonus-card-larger-palace-takes", bsw_src(award),
        "Blue holds the black card with a palace of size 2; Yellow roofs the black palace "
        "(10,3)..(12,3), size 3: the card goes to Yellow at once.",
        4, bpos(4, map_three, [(3, 3, "blue rooftop")], start=1,
                tiles={2: ["black palace tile"]}, roof_supply={1: ["yellow rooftop"]}),
        roof,
        {"zones": {"tiles": {1: ["black palace tile"], 2: []}}}))
    return "bsw_scoring.yaml", header, sc, BSW.spec


# ANALYSIS.md 5.5, the position where medina.txt and BSW part on towers.
MAP_5_5_BSW = """
     012345678901234567
y=0  T==--------------T
y=1  =.BBB............-
y=2  =................-
y=3  =................-
y=4  -G...............-
y=5  -G...............-
y=6  -.......m........-
"""
MAP_5_5_MEDINA = """
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
MAP_STABLE_BSW = """
     012345678901234567
y=0  T=====-----------T
y=1  =.BBB............-
y=2  =................-
y=3  =................-
y=4  =G...............-
y=5  -G...............-
y=6  -.......m........-
"""
MAP_STABLE_MEDINA = """
     012345678901234567
y=0  T=====-----------T
y=1  =.BBB............-
y=2  =................-
y=3  =................-
y=4  =G...............-
y=5  -G...............-
y=6  -.......m..,,,...-
y=7  -..........,W,...-
y=8  -..........,,,...-
"""
BSW_TOWER_RULE = ("Each edge of the wall counts as a new connection (respect: different from "
                  "the original rule!). A palace is set by a roof on the wall new connected. A "
                  "subsequent insertion of a goat's stable can also lead to a new connection.")
BSW_TOWER_MIGRATE = ("The bonus cards for the corner towers receive the player who first "
                     "closes a palace with a wall part to one of the towers. The bonus card "
                     "continues to migrate to the player who has recently joined a palace with "
                     "a wall piece to a corner tower.")


def _tower_given(board_map, rules, **kw):
    args = dict(start=0, tiles={0: ["grey palace tile"],
                                2: ["brown palace tile", "tower tile 1"]},
                screen={0: ["wall"], 2: ["wall"]})
    args.update(kw)
    return position(4, board_map, [(2, 1, "blue rooftop"), (1, 4, "red rooftop")],
                    rules=rules, **args)


def _stable_given(board_map, rules):
    return position(4, board_map, [(2, 1, "blue rooftop"), (1, 4, "red rooftop")],
                    rules=rules, start=2,
                    tiles={0: ["grey palace tile", "tower tile 1"], 2: ["brown palace tile"]},
                    screen={2: ["stable"]})


RED_WALL = bact(0, "place wall", "wall at 0,4")
BLUE_WALL = bact(2, "place wall", "wall at 3,0")
BLUE_STABLE = bact(2, "place stable", "stable at 5,1")


def bsw_towers_file():
    header = """
BrettspielWelt DM 2003 variant, the corner-tower bonus cards (medina-bsw-dm2003.txt, the
last paragraphs; ruling bsw.tower_bonus, R-B5): every wall piece placed next to an owned
palace, a rooftop on a palace next to a tower's wall, and a stable next to a tower's wall
are each a new connection, even for a palace already connected ("different from the
original rule"). Tower 1 is top left (R2). ANALYSIS.md 5.5 is the position where this
differs from medina.txt; bsw_towers_medina.yaml plays the same moves under medina.txt.
"""
    sc = []
    sc.append(scenario(
        "bsw-tower-wall-connects-a-roofed-palace", bsw_src(BSW_TOWER_MIGRATE),
        "ANALYSIS.md 5.5 without the well. Tower 1's walls: top (1,0) (2,0), left (0,1) (0,2) "
        "(0,3). Blue's brown palace (2,1)..(4,1) borders (2,0), Blue holds tower card 1. "
        "Red's grey palace (1,4)(1,5) borders no wall. Red (0) builds (0,4): the grey palace "
        "is joined to tower 1, Red takes tower card 1 (as under medina.txt).",
        4, _tower_given(MAP_5_5_BSW, BSW), RED_WALL,
        {"zones": {"tiles": {0: ["grey palace tile", "tower tile 1"],
                             2: ["brown palace tile"]}}}))
    sc.append(scenario(
        "bsw-tower-second-wall-reconnects",
        bsw_src(BSW_TOWER_RULE, "The player who recently joined a palace to the wall running "
                "from the tower in corner 1/2/3/4 gets 1/2/3/4 points."),
        "ANALYSIS.md 5.5, BSW side: then Blue (2) builds (3,0), next to his brown palace, "
        "which already bordered tower 1's wall at (2,0). Each wall piece is a new connection: "
        "Blue takes tower card 1 back (under medina.txt Red keeps it: "
        "bsw_towers_medina.yaml).",
        4, _tower_given(MAP_5_5_BSW, BSW), RED_WALL + BLUE_WALL,
        {"zones": {"tiles": {0: ["grey palace tile"],
                             2: ["brown palace tile", "tower tile 1"]}},
         "points": {"tower_tiles": [0, 0, 1, 0]}}))
    sc.append(scenario(
        "bsw-tower-wall-next-to-a-palace-of-another-player", bsw_src(BSW_TOWER_RULE),
        "Whoever builds the wall, the palace's owner is joined: Red (0) builds (3,0), next to "
        "Blue's brown palace; Blue already holds tower card 1 and keeps it, Red gets nothing.",
        4, _tower_given(MAP_5_5_BSW, BSW, tiles={0: ["grey palace tile"],
                                                  2: ["brown palace tile", "tower tile 1"]}),
        bact(0, "place wall", "wall at 3,0"),
        {"zones": {"tiles": {0: ["grey palace tile"],
                             2: ["brown palace tile", "tower tile 1"]}}}))
    sc.append(scenario(
        "bsw-tower-stable-reconnects", bsw_src(BSW_TOWER_RULE),
        "Tower 1's walls: top (1,0)..(5,0), left (0,1)..(0,4). Blue's brown palace "
        "(2,1)..(4,1) borders (2,0)..(4,0); Red's grey palace (1,4)(1,5) borders (0,4) and "
        "Red holds tower card 1 (Red joined last). Blue (2) adds a stable at (5,1), next to "
        "the wall (5,0): a new connection, Blue takes tower card 1 (under medina.txt the "
        "palace was already next to tower 1's wall and Red keeps it).",
        4, _stable_given(MAP_STABLE_BSW, BSW), BLUE_STABLE,
        {"zones": {"tiles": {0: ["grey palace tile"],
                             2: ["brown palace tile", "tower tile 1"]}}}))
    map_roof = """
     012345678901234567
y=0  T=========-------T
y=1  -.BBB..OO........-
y=6  -.......m........-
"""
    sc.append(scenario(
        "bsw-tower-rooftop-connects",
        bsw_src("A palace is set by a roof on the wall new connected.", BSW_TOWER_MIGRATE),
        "Tower 1's walls (1,0)..(9,0). Blue's brown palace (2,1)..(4,1) holds tower card 1; "
        "Yellow (1) roofs the orange palace (7,1)(8,1) under the wall: Yellow takes tower "
        "card 1 and, first orange claim, the orange card.",
        4, bpos(4, map_roof, [(2, 1, "blue rooftop")], start=1,
                tiles={2: ["brown palace tile", "tower tile 1"]},
                roof_supply={1: ["yellow rooftop"]}),
        bact(1, "place yellow rooftop", "yellow rooftop on the orange palace at 7,1"),
        {"zones": {"tiles": {1: ["tower tile 1", "orange palace tile"],
                             2: ["brown palace tile"]}}}))
    map_first = """
     012345678901234567
y=0  T----------------T
y=1  -..............GG-
y=6  -.......m........-
"""
    sc.append(scenario(
        "bsw-tower-first-connection-takes-the-merchants",
        bsw_src("The bonus cards for the corner towers receive the player who first closes a "
                "palace with a wall part to one of the towers."),
        "R-B2 (the merchants on the tower cards are inherited): no wall is built yet; tower "
        "card 2 lies at the edge with its 2 merchants. Green's grey palace (15,1)(16,1) "
        "touches no wall. Green (3) builds (17,1), next to tower 2 and to (16,1): Green takes "
        "tower card 2 and its 2 merchants.",
        4, bpos(4, map_first, [(15, 1, "green rooftop")], start=3,
                tiles={3: ["grey palace tile"]}, screen={3: ["wall"]}),
        bact(3, "place wall", "wall at 17,1"),
        {"zones": {"tiles": {3: ["grey palace tile", "tower tile 2"]},
                   "screen": {3: n("merchant", 2)}}}))
    return "bsw_towers.yaml", header, sc, BSW.spec


def bsw_towers_medina_file():
    header = """
The medina.txt twins of bsw_towers.yaml (spec: medina.yaml, with a well): the same positions
and moves, where medina.txt (R23) and the BrettspielWelt variant part. Under medina.txt a
palace already next to a tower's wall is not joined again by a further wall or stable.
"""
    phrase = src(
        "When I take control of a palace that’s right next to a wall connected to a tower, I "
        "become the watcher of that tower.",
        "If, at some point, another player decides to rebuild that wall so that it also "
        "borders my palace, guess what? I get the matching tower tile for my palace.")
    sc = []
    sc.append(scenario(
        "medina-twin-second-wall-does-not-reconnect", phrase,
        "Twin of bsw-tower-second-wall-reconnects (ANALYSIS.md 5.5, well at (12,7)): Red "
        "builds (0,4) and takes tower tile 1; Blue builds (3,0) next to his brown palace, "
        "already next to tower 1's wall: no new connection, Red keeps the tile.",
        4, _tower_given(MAP_5_5_MEDINA, MEDINA), RED_WALL + BLUE_WALL,
        {"zones": {"tiles": {0: ["grey palace tile", "tower tile 1"],
                             2: ["brown palace tile"]}},
         "points": {"tower_tiles": [1, 0, 0, 0]}}))
    sc.append(scenario(
        "medina-twin-stable-does-not-reconnect",
        src("you’ll get a tower tile when you extend your palace with a stable that’s also "
            "right next to the wall"),
        "Twin of bsw-tower-stable-reconnects: Blue's brown palace already borders tower 1's "
        "wall; the stable (5,1) next to the wall (5,0) is no new connection, Red keeps tower "
        "tile 1.",
        4, _stable_given(MAP_STABLE_MEDINA, MEDINA), BLUE_STABLE,
        {"zones": {"tiles": {0: ["grey palace tile", "tower tile 1"],
                             2: ["brown palace tile"]}}}))
    return "bsw_towers_medina.yaml", header, sc, MEDINA.spec


def bsw_setup_file():
    header = """
BrettspielWelt DM 2003 variant, set-up and first turns (medina-bsw-dm2003.txt
"Construction"): from the set-up (no `given`, a fixed seed), the start player is chosen by
chance (R5), then chooses where the market street starts, on a city square off the edge
(bsw.street_start, R-B4); no well is placed and there are no tea tiles; every turn places
two pieces, the first turns too (R-B3). Supplies as medina.txt (R-B1): 4 players have 5
buildings of each colour, 3 stables, 6 merchants, 9 walls (38 pieces) and 4 rooftops.
"""
    start = ("The starter must first select the starting point of the Marktgasse. It clicks on "
             "a building site that is not on the edge.")
    two = "Each player then uses two components per train."
    street = lambda x, y: f"start the market street at {x},{y}"  # noqa: E731
    sc = []
    sc.append(scenario(
        "bsw-start-player-chooses-the-street-start", bsw_src(start),
        "4 players. After the chance decision \"player 2 starts\", Blue (2), not chance, "
        "chooses the first merchant's square: any city square off the edge (x 2..15, y 2..10, "
        "126 squares); not an edge square ((1,1), (1,6), (16,6), (8,1), (8,11)) nor a wall "
        "space. Only the towers stand on the board: no well, no merchant yet.",
        4, None, ["player 2 starts"],
        {"current": 2,
         "legal_includes": [street(2, 2), street(8, 6), street(15, 10), street(15, 2),
                            street(2, 10)],
         "legal_excludes": [street(1, 1), street(1, 6), street(16, 6), street(8, 1),
                            street(8, 11), street(0, 6), street(16, 11)],
         "sizes": {"board": 4}},
        seed=7))
    sc.append(scenario(
        "bsw-street-start-then-the-start-player-plays",
        bsw_src(start, two) + ' ... "There are also eight bonus cards: four for each palace '
        'color, four for the corner towers."',
        "Blue starts the street at (8,6): the merchant is the extra one (R-B4), Blue keeps "
        "all 38 pieces of its screen and then takes the first turn. The edge holds the eight "
        "bonus cards and no tea tiles; no tea break is offered.",
        4, None, ["player 2 starts", {"action": street(8, 6), "player": 2}],
        {"current": 2, "sizes": {"board": 5, "screen": {0: 38, 1: 38, 2: 38, 3: 38}},
         "zones": {"edge": ["tower tile 1", "tower tile 2", "tower tile 3", "tower tile 4",
                            "grey palace tile", "black palace tile", "brown palace tile",
                            "orange palace tile"]},
         "legal": ["place grey", "place black", "place brown", "place orange",
                   "place merchant", "place wall"]},
        seed=7))
    first = ["player 2 starts", {"action": street(8, 6), "player": 2}]
    sc.append(scenario(
        "bsw-first-turn-two-pieces-start-player", bsw_src(start, two),
        "R-B3: after its first piece (a merchant at (9,6)) Blue, the start player, places a "
        "second piece on its first turn (under medina.txt, 4 players, the first two players "
        "place one).",
        4, None, first + bact(2, "place merchant", "merchant at 9,6"),
        {"current": 2,
         "legal": ["place grey", "place black", "place brown", "place orange",
                   "place merchant", "place wall"]},
        seed=7))
    sc.append(scenario(
        "bsw-first-turn-two-pieces-4-players", bsw_src(two),
        "R-B3: Blue (2) and then Green (3), the first two players, each place two pieces on "
        "their first turn; then it is Red's (0) turn.",
        4, None, first
        + bact(2, "place merchant", "merchant at 9,6", "place wall", "wall at 17,1")
        + bact(3, "place merchant", "merchant at 10,6", "place wall", "wall at 1,0"),
        {"current": 0, "sizes": {"screen": {0: 38, 1: 38, 2: 36, 3: 36}, "board": 9}},
        seed=7))
    sc.append(scenario(
        "bsw-first-turn-two-pieces-2-players", bsw_src(start, two),
        "R-B3, 2 players (the 14 x 10 city): Red (0) starts the street at (7,5) and places "
        "two pieces on the first turn (under medina.txt only one); then Yellow (1).",
        2, None, ["player 0 starts", {"action": street(7, 5), "player": 0}]
        + bact(0, "place merchant", "merchant at 8,5", "place wall", "wall at 1,0"),
        {"current": 1},
        seed=3))
    sc.append(scenario(
        "bsw-street-start-2-players-off-the-edge", bsw_src(start),
        "2 players: the city is x 1..14, y 1..10; its edge squares are refused.",
        2, None, ["player 1 starts"],
        {"current": 1,
         "legal_includes": [street(2, 2), street(13, 9), street(7, 5)],
         "legal_excludes": [street(1, 5), street(14, 5), street(7, 1), street(7, 10),
                            street(15, 9)]},
        seed=3))
    return "bsw_setup.yaml", header, sc, BSW.spec


def bsw_turn_file():
    header = """
BrettspielWelt DM 2003 variant, the turn (medina-bsw-dm2003.txt "roofs", "Outputting
components", "Palace components"): the last player with rooftops must roof (bsw.last_roofs,
R-B6), a colour whose buildings fit nowhere leaves every screen (bsw.colour_retired, R-B7),
and what the variant has not: no tea break, no well squares. 4 players; Red (0) is to play
and holds only the pieces named.
"""
    sc = []
    roofs = ("If only one player has roofs, he must put at least one roof every time he is on "
             "the row. For this purpose, he must also establish appropriate palaces.")
    map_r = """
     012345678901234567
y=3  -..GG............-
y=6  -.......m........-
"""

    def red(board_map=map_r, roofs_on=(), pieces=("merchant", "wall"),
            rooftops=("red rooftop",), others=None):
        screen = {0: list(pieces), 1: ["merchant"]}
        roof_supply = {0: list(rooftops)}
        roof_supply.update(others or {})
        return bpos(4, board_map, roofs_on, start=0, screen=screen, roof_supply=roof_supply)

    sc.append(scenario(
        "bsw-last-roofs-first-piece-free", bsw_src(roofs),
        "Red (0) is the only player with rooftops; the grey palace (3,3)(4,3) is unroofed. "
        "The turn's first piece may be anything.",
        4, red(), (),
        {"current": 0, "legal": ["place merchant", "place wall", "place red rooftop"]}))
    sc.append(scenario(
        "bsw-last-roofs-must-roof", bsw_src(roofs),
        "R-B6: Red places a merchant first; a rooftop fits (the grey palace), so the turn's "
        "second piece must be a rooftop: the only options are rooftops.",
        4, red(), bact(0, "place merchant", "merchant at 9,6"),
        {"current": 0, "legal": ["place red rooftop"]}))
    sc.append(scenario(
        "bsw-last-roofs-must-roof-neutral-too", bsw_src(roofs),
        "3 players, green neutral: Red holds a red and a neutral rooftop, the others none. "
        "After a merchant, either rooftop may be the second piece, nothing else.",
        3, bpos(3, map_r, start=0, screen={0: ["merchant", "wall"], 1: ["merchant"]},
                roof_supply={0: ["red rooftop", "green rooftop"]}),
        bact(0, "place merchant", "merchant at 9,6"),
        {"current": 0, "legal": ["place red rooftop", "place green rooftop"]}))
    sc.append(scenario(
        "bsw-last-roofs-rooftop-first-then-free", bsw_src(roofs),
        "Red roofs the grey palace first: the duty is done, the second piece is free.",
        4, red(), bact(0, "place red rooftop", "red rooftop on the grey palace at 3,3"),
        {"current": 0, "legal": ["place merchant", "place wall"]}))
    sc.append(scenario(
        "bsw-last-roofs-not-when-another-player-has-roofs", bsw_src(roofs),
        "Yellow (1) still holds a rooftop too: no duty, after the merchant Red may place the "
        "wall.",
        4, red(others={1: ["yellow rooftop"]}), bact(0, "place merchant", "merchant at 9,6"),
        {"current": 0, "legal": ["place wall", "place red rooftop"]}))
    map_roofed = map_r
    sc.append(scenario(
        "bsw-last-roofs-no-duty-when-no-roof-can-fit", bsw_src(roofs),
        "The only palace (grey) is Yellow's, and Red has no building to make one: no rooftop "
        "can be placed this turn, so there is no duty; Red places merchant and wall.",
        4, red(map_roofed, [(3, 3, "yellow rooftop")]),
        bact(0, "place merchant", "merchant at 9,6"),
        {"current": 0, "legal": ["place wall"]}))
    sc.append(scenario(
        "bsw-last-roofs-builds-then-roofs-first-piece", bsw_src(roofs),
        "R-B6 (\"he must also establish appropriate palaces\"): no palace can take a rooftop "
        "(the grey one is Yellow's), but Red holds a black building, a colour it has not "
        "claimed. The first piece must be that building, so that the second can be the "
        "rooftop: the merchant is not offered.",
        4, red(map_roofed, [(3, 3, "yellow rooftop")], pieces=("black", "merchant")), (),
        {"current": 0, "legal": ["place black"]}))
    sc.append(scenario(
        "bsw-last-roofs-builds-then-roofs", bsw_src(roofs),
        "Red places the black building at (10,9), a new black palace: now a rooftop fits, so "
        "the second piece must be the rooftop on it.",
        4, red(map_roofed, [(3, 3, "yellow rooftop")], pieces=("black", "merchant")),
        bact(0, "place black", "black building at 10,9"),
        {"current": 0, "legal": ["place red rooftop"]}))

    retire = ("Once each player has taken possession of a palace from a color (in the picture "
              "the gray palaces) or no component of this color fits on the schedule, all other "
              "stones of this color must be delivered.")
    map_full = """
     012345678901234567
y=2  -GGGGGGGGGGGGGGGG-
y=5  -BBBBBBBBBBBBBBBB-
y=8  -OOOOOOOOOOOOOO.m-
y=11 -KKKKKKKKKKKKKKKK-
"""
    given_full = bpos(4, map_full, [(1, 11, "yellow rooftop")], start=0,
                      screen={0: ["merchant", "merchant", "black", "grey"],
                              1: ["black", "black", "grey", "brown"],
                              2: ["black", "orange"]})
    full_desc = ("Rows of palaces fill the city: grey y=2, brown y=5, orange y=8 (x 1..14) "
                 "unroofed, black y=11 roofed by Yellow. No black palace is open, so a black "
                 "building may only start a new palace on a square with no palace piece "
                 "around it: only (16,7) and (16,9) are left (a merchant stands at (16,8)). ")
    sc.append(scenario(
        "bsw-colour-fits-before-the-turn", bsw_src(retire),
        full_desc + "Black still fits: Red may place it, at (16,7) or (16,9).",
        4, given_full, ["place black"],
        {"legal": ["black building at 16,7", "black building at 16,9"]}))
    sc.append(scenario(
        "bsw-colour-kept-during-the-turn", bsw_src(retire),
        full_desc + "Red's first merchant goes to (16,7); black still fits at (16,9) and "
        "stays in the screens.",
        4, given_full, bact(0, "place merchant", "merchant at 16,7"),
        {"current": 0, "legal_includes": ["place black", "place grey", "place merchant"],
         "zones": {"screen": {0: ["merchant", "black", "grey"],
                              1: ["black", "black", "grey", "brown"],
                              2: ["black", "orange"]}}}))
    sc.append(scenario(
        "bsw-colour-retired-when-nothing-fits", bsw_src(retire),
        full_desc + "Red's two merchants fill (16,7) and (16,9): no black building fits "
        "anywhere, so at the end of the turn every black building leaves every screen "
        "(R-B7); grey, brown and orange still fit (their open palaces) and stay.",
        4, given_full, bact(0, "place merchant", "merchant at 16,7",
                            "place merchant", "merchant at 16,9"),
        {"current": 1,
         "zones": {"screen": {0: ["grey"], 1: ["grey", "brown"], 2: ["orange"], 3: []}},
         "legal": ["place grey", "place brown"]}))

    everyone = ("Once each player has taken possession of a palace from a color (in the picture "
                "the gray palaces)")
    map_own = """
     0123456789012345
y=2  -..KK.....KK...-
y=6  -.......m......-
"""
    sc.append(scenario(
        "bsw-colour-retired-when-everyone-owns-one",
        bsw_src(everyone + " ... all other stones of this color must be delivered."),
        "2 players. Yellow (1) owns the black palace (3,2)(4,2); Red (0) roofs the black "
        "palace (10,2)(11,2): now each player owns a black palace, every black building "
        "behind the screens leaves at once (before Red's second piece).",
        2, bpos(2, map_own, [(3, 2, "yellow rooftop")], start=0,
                screen={0: ["black", "merchant"], 1: ["black", "black", "grey"]},
                roof_supply={0: ["red rooftop"]}),
        bact(0, "place red rooftop", "red rooftop on the black palace at 10,2"),
        {"current": 0, "legal": ["place merchant"],
         "zones": {"screen": {0: ["merchant"], 1: ["grey"]}}}))

    two = "Each player then uses two components per train."
    map_tea = """
     012345678901234567
y=10 -.........m......-
"""
    sc.append(scenario(
        "bsw-no-tea-break", bsw_src(two),
        "The variant has no tea tiles (and no tea break): after Red's first merchant the only "
        "option is the second piece.",
        4, bpos(4, map_tea, start=0, screen={0: ["merchant", "merchant"]}),
        bact(0, "place merchant", "merchant at 11,10"),
        {"current": 0, "legal": ["place merchant"]}))
    map_well = """
     012345678901234567
y=4  -................-
y=5  -...B............-
y=6  -...B............-
y=7  -................-
y=10 -.........m......-
"""
    free = ("Palace parts of an unexisting colour may be installed in any free places. "
            "Available colors must be always be cultivated until either a player puts a roof "
            "on this palace or is no longer expandable.")
    sc.append(scenario(
        "bsw-no-well-building", bsw_src(free),
        "The well picture of medina.txt (ANALYSIS.md 5.6) without the well: the open brown "
        "palace (4,5)(4,6). With no well there is no ring: (5,5) and (5,6), where the well's "
        "ring would be, are legal too: exactly (3,5), (3,6), (4,4), (4,7), (5,5), (5,6).",
        4, bpos(4, map_well, start=0, screen={0: ["brown"]}), ["place brown"],
        {"legal": at("brown building", (3, 5), (3, 6), (4, 4), (4, 7), (5, 5), (5, 6))}))
    sc.append(scenario(
        "bsw-no-well-stable",
        bsw_src("Goat trunks are cultivated directly on palaces."),
        "The same position, a stable: exactly (3,5), (3,6), (4,4), (4,7), (5,5), (5,6).",
        4, bpos(4, map_well, start=0, screen={0: ["stable"]}), ["place stable"],
        {"legal": at("stable", (3, 5), (3, 6), (4, 4), (4, 7), (5, 5), (5, 6))}))
    sc.append(scenario(
        "bsw-no-well-points",
        bsw_src(*BSW_VALUE),
        "Red owns the brown palace (4,5)(4,6): 2 points for its 2 buildings and nothing "
        "else; the variant has no well and no well scoring rule (its points are palaces, "
        "palace_tiles and tower_tiles).",
        4, bpos(4, map_well, [(4, 5, "red rooftop")]),
        expect={"terminal": True,
                "points": {"palaces": [2, 0, 0, 0], **BSW_NO_TILES},
                "scores": [2, 0, 0, 0]}))
    return "bsw_turn.yaml", header, sc, BSW.spec


def bsw_files():
    return [bsw_scoring_file(), bsw_towers_file(), bsw_towers_medina_file(), bsw_setup_file(),
            bsw_turn_file()]


def FILES():
    return [scoring_file(), palace_tiles_file(), tea_file(), tower_tiles_file(),
            placement_file(), end_file(), *bsw_files()]


def main() -> None:
    for filename, header, scenarios, *spec in FILES():
        write(filename, header, scenarios, *spec)


if __name__ == "__main__":
    main()
