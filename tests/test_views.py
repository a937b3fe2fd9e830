"""Views (runtime/views.py, Spec.game(views=True)): generators over a board's cells kept
up to date across moves by what their cells' conditions read at fixed steps from the
cell (compiler/stencil.py). The same games with views and without, on a spec written to
exercise them (neighbours, a changeable attribute, a swap, a shuffle, another zone read
whole, variables, a flood that keeps a generator a loop) and on shipped specs; a view
not told of a move, of an attribute set, or missing a neighbour is caught."""

import random
import re
import textwrap

import pytest

from tabula_rules.compiler import builtins
from tabula_rules.runtime import effects, views
from tabula_rules.spec import Spec, load_spec

GRID = """\
game: {id: grid, name: Grid, source: a test, players: {min: 2, max: 2}, max_steps: 100000}
enums:
  colour: [black, white]
data:
  colour_of: {value: [black, white]}
components:
  stone:
    name: "{colour} stone"
    for_each: {colour: values(colour)}
    count: 9
    changeable: [colour]
    zone: box
zones:
  box: {kind: set, visibility: public}
  board: {kind: grid, width: 4, height: 4, visibility: public}
  bag: {kind: stack, visibility: public}
variables:
  rounds: {value: 0}
  marked: {value: 0, type: cell}
functions:
  shows: {params: [c, k], value: "size(c) > 0 and top(c).colour == k"}
  region:
    params: [c]
    value: group(d from c where size(d) > 0 and top(d).colour == top(c).colour)
  open:
    params: [c]
    value: >-
      size(c) == 0 and size(bag) > 0 and c != marked
      and (rounds % 3 == 1 or any(size(a) > 0 for a in adjacent(c)))
  big: {params: [c], value: "size(c) > 0 and size(region(c)) >= 3"}
  grow:
    params: [p]
    value: >-
      [c for c in cells(board) where size(c) == 0 and size(bag) > 0
       and any(a in p for a in adjacent(c))]
  lonely:
    params: [c]
    value: size(c) > 0 and not any(shows(a, top(c).colour) for a in around(c))
setup:
  - move [t for t in box] to bag
play:
  - id: turn
    turns: {first: 0, until: rounds >= 40 or not any(open(c) for c in cells(board))}
    do:
      - rounds += 1
      - choose_one:
          - choose: c in cells(board) where open(c)
            label: "put {x(c)},{y(c)}"
            do:
              - move top(bag) to c
              - top(c).colour = colour_of[current]
              - marked = c
          - choose: c in grow(region(marked))
            label: "grow {x(c)},{y(c)}"
            do:
              - move top(bag) to c
              - top(c).colour = colour_of[current]
          - choose: c in cells(board) where big(c)
            label: "flip {x(c)},{y(c)}"
            do:
              - top(c).colour = colour_of[1 - current]
          - choose: c in cells(board) where lonely(c)
            label: "lift {x(c)},{y(c)}"
            do:
              - move top(c) to bag
              - shuffle bag
          - choose: >-
              c in cells(board) where size(c) > 0
              and count(d for d in cells(board) where size(d) > 0) >= 4
            label: "swap {x(c)},{y(c)}"
            do:
              - swap top(c) with top(first(d for d in cells(board) where size(d) > 0 and d != c))
scoring:
  points:
    shown: {value: "count(c for c in cells(board) where shows(c, colour_of[player]))"}
    first:
      value: >-
        let f = first(c for c in cells(board) where size(c) > 1 - player and y(c) >= 2,
                      board[3, 3])
        in x(f) + 4 * y(f)
    regions:
      value: >-
        count(c for c in cells(board) where shows(c, colour_of[player])
        and size(region(c)) >= 2)
    best: {value: "max(size(region(c)) for c in cells(board) where shows(c, colour_of[player]), 0)"}
"""


def grid(tmp_path, **kw):
    path = tmp_path / "grid.yaml"
    path.write_text(textwrap.dedent(GRID))
    return Spec(path).game(2, **kw)


def same_games(a_game, b_game, games: int, seed0: int = 0) -> int:
    """Play the same random games on both: the same legal actions at every decision and
    the same scores; -> the decisions played."""
    played = 0
    for seed in range(seed0, seed0 + games):
        a, b = a_game.new_state(seed=seed), b_game.new_state(seed=seed)
        r = random.Random(seed)
        while not a.terminal:
            acts = a.legal_actions()
            assert acts == b.legal_actions(), f"seed {seed}, decision {played}"
            act = acts[int(r.random() * len(acts))]
            a.apply(act)
            b.apply(act)
            played += 1
        assert b.terminal and a.scores() == b.scores()
    return played


def view_functions(game) -> dict:
    """The item function of every view of a compiled game: name -> its source."""
    code = "".join(game.prog.module.chunks)
    return {m.group(1): m.group(0) for m in
            re.finditer(r"def (V[0-9]+)\(.*\n(?:    .*\n)+", code)}


def test_the_generators_over_cells_with_a_stencil_are_views(tmp_path):
    g = grid(tmp_path, views=True)
    found = view_functions(g)
    # open(c) (the choice, and `until`'s any: one view), lonely(c), the count of filled
    # cells, the cells showing a player's colour and the first cell holding more than
    # 1 - player pieces (a view per player: they read `player`);
    # not big(c) nor the scoring's regions (a group whose condition reads top(c) of the
    # cell it starts from is not kept), not the swap's choice (it reads every cell)
    assert len(found) == 5, found
    assert not any(re.search(r"\bG[0-9]+\(", src) for src in found.values())
    assert set(g.prog.facts.tracked) == set(found)
    assert sum(", a0)" in src.splitlines()[0] for src in found.values()) == 2
    assert "B_view(" not in "".join(grid(tmp_path, views=False).prog.module.chunks)
    st = g.new_state(seed=1)
    st.legal_actions()
    assert set(st.tracked) <= set(found) and st.tracked
    assert all(isinstance(st.facts[k], views.View) for k in st.tracked)
    while not st.terminal:
        st.apply(st.legal_actions()[0])
    st.scores()
    per_player = [k for k in st.tracked if isinstance(k, tuple)]
    assert {args for _, args in per_player} == {(0,), (1,)}
    assert all(st.facts[k][args] is st.tracked[(k, args)] for k, args in per_player)


def test_a_loop_over_the_cells_next_to_a_list_goes_over_those_only(tmp_path):
    """grow(p) keeps the cells next to p: it goes over p's neighbours, not every cell."""
    assert "B_near(" in "".join(grid(tmp_path, views=True).prog.module.chunks)
    assert "B_near(" not in "".join(grid(tmp_path, views=False).prog.module.chunks)


def test_the_same_games_with_views_and_without(tmp_path):
    assert same_games(grid(tmp_path, views=True), grid(tmp_path, views=False), 12) > 200


def test_a_view_not_told_of_a_move_is_caught(tmp_path, monkeypatch):
    monkeypatch.setattr(effects, "touch_slots", lambda st, a, b: None)
    with pytest.raises(AssertionError):
        same_games(grid(tmp_path, views=True), grid(tmp_path, views=False), 12)


def test_a_view_not_told_of_an_attribute_is_caught(tmp_path):
    game = grid(tmp_path, views=True)
    assert "R_attribute_set(" in "".join(game.prog.module.chunks)
    game.prog.module.ns["R_attribute_set"] = lambda st, piece: None   # the flip unnoticed
    with pytest.raises(AssertionError):
        same_games(game, grid(tmp_path, views=False), 12)


def test_a_view_that_misses_a_neighbour_is_caught(tmp_path, monkeypatch):
    """The stencil's table is what keeps a view right: with the cell alone in it (no
    neighbours), the games differ."""
    real = builtins.Builtins._stencil_tables

    def cell_only(self, zone, parts, name):
        found = real(self, zone, parts, name)
        if found is None:
            return None
        items, near, whole, groups = found
        table = self.mod.ns[near]
        self.mod.ns[near] = {x: (x,) if x in cells else () for x, cells in table.items()}
        return found
    monkeypatch.setattr(builtins.Builtins, "_stencil_tables", cell_only)
    with pytest.raises(AssertionError):
        same_games(grid(tmp_path, views=True), grid(tmp_path, views=False), 12)


def test_a_clone_starts_its_views_afresh(tmp_path):
    g, plain = grid(tmp_path, views=True), grid(tmp_path, views=False)
    st, ref = g.new_state(seed=3), plain.new_state(seed=3)
    r = random.Random(3)
    while not st.terminal:
        copy = st.clone()
        assert copy.tracked is None
        assert copy.legal_actions() == ref.legal_actions()
        act = st.legal_actions()[int(r.random() * len(st.legal_actions()))]
        st.apply(act)
        ref.apply(act)
        copy.apply(act)
        assert copy.legal_actions() == st.legal_actions()


@pytest.mark.parametrize("spec,players,games", [
    ("specs/medina", 3, 2), ("specs/medina/bsw-dm2003.yaml", 2, 1), ("specs/middag", 3, 3),
    ("examples/breakthrough", 2, 3)])
def test_shipped_specs_play_the_same_with_views(spec, players, games):
    s = load_spec(spec)
    assert same_games(s.game(players, views=True), s.game(players, views=False), games, seed0=7) > 0


FAR = """\
game: {id: far, name: Far, source: a test, players: {min: 2, max: 2}}
components:
  dot: {count: 3, zone: box}
zones:
  box: {kind: set, visibility: public}
  marks: {kind: grid, width: 3, height: 1, visibility: public}
  flags: {kind: grid, width: 3, height: 1, visibility: public}
variables:
  seen: {value: 0}
  kept: {value: null, type: cell}
  home: {value: null, type: cell, per_player: true}
  marked: {value: [], type: list of cell}
setup:
  - kept = marks[1, 0]
  - {for: p in players, do: ["p.home = marks[2, 0]"]}
  - marked = [marks[0, 0], marks[1, 0]]
play:
  - id: turn
    turns: {first: 0, until: size(box) == 0}
    do:
      - let flagged = [f for f in cells(flags) where size(f) == 0 and READ]
      - seen = size(flagged)
      - choose: c in cells(marks) where size(c) == 0
        label: "mark {x(c)}"
        do: [move top(box) to c]
"""


@pytest.mark.parametrize("read,seen", [
    ("size(marks[x(f), y(f)]) > 0", [1, 2]),
    ("any(d for d in marks[x(f), y(f)])", [1, 2]),
    ("top(box) in marks[x(f), y(f)] or size(marks[x(f), y(f)]) > 0", [1, 2]),
    ("size(kept) > 0", [0, 3]),
    ("size(players[0].home) == 0 and size(kept) > 0", [0, 3]),
    ("count(m for m in marked where size(m) > 0) == x(f) + 1", [1, 1])])
def test_a_cell_read_by_coordinates_or_from_a_variable_is_not_a_stencil(tmp_path, read, seen):
    """The condition reads the pieces of a cell of another board found by coordinates, or
    held in a variable: a move there must not leave the list stale (it is no view)."""
    path = tmp_path / "far.yaml"
    path.write_text(FAR.replace("READ", read))
    for views_on in (True, False):
        st = Spec(path).game(2, views=views_on).new_state(seed=0)
        got = []
        for label in ("mark 0", "mark 1"):
            st.apply_string(label)              # the next turn's list is made
            got.append(st.observation(0)["variables"]["seen"])
        assert got == seen, (views_on, got)
