"""The observation tensor carries what the observation carries (issue 25, 3).

The property, over every shipped spec and example: at random points of random games,
states made to differ from the real one in one random thing (a piece moved, two pieces
swapped, a variable, a piece's changeable attribute, the turn) give a seat different
tensors exactly when they give it different observations (the observation without its
legal actions, which the frameworks give apart). So what a seat sees reaches its tensor,
and nothing it does not see does. Then, apart from any game, a small spec with a value
of every type, whose tensor is read part by part through the layout
(`Encoder.parts`, `tabula compile --tensor`)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from tabula_rules.adapters.observe import Encoder, text_code
from tabula_rules.spec import load_game, load_spec

from conftest import EXAMPLES, SPEC_FILES

GAMES = [*SPEC_FILES, *(e / f"{e.name}.yaml" if (e / f"{e.name}.yaml").exists()
                        else next(e.glob("*.yaml")) for e in EXAMPLES)]
POINTS = int(os.environ.get("TABULA_TENSOR_POINTS", "3"))     # per game: random points
CHANGES = int(os.environ.get("TABULA_TENSOR_CHANGES", "12"))  # per point and seat


def shown(st, seat) -> str:
    obs = st.observation(seat, legal_actions=False)
    return json.dumps(obs, sort_keys=True, default=str)


def tensor(enc, st, seat) -> list:
    out = [0.0] * enc.size
    enc.encode(st, seat, out)
    return out


def other_value(rng, value, typ, prog, bound=None):
    """A value of type typ other than value (None when there is none); a list stays
    within its bound."""
    kind = typ[0]
    if kind == "list":
        items = list(value or [])
        new = other_value(rng, items[0] if items else None, typ[1], prog)
        if items and (rng.random() < 0.5 or bound is not None and len(items) >= bound):
            items[rng.randrange(len(items))] = new
        else:
            items.append(new)
        return items
    pool = {"enum": list(prog.enums.get(typ[-1], ())) + [None],
            "player": list(range(prog.players)) + [None],
            "piece": list(range(len(prog.piece_names))) + [None],
            "slot": list(range(prog.nslots)) + [None],
            "zone": list(range(prog.nslots)) + [None],
            "bool": [True, False, None],
            "str": ["a", "b", "some text", None]}.get(kind)
    if pool is None:                                     # a number
        pool = [0, 1, -1, 7, None] + ([value + 1] if isinstance(value, int) else [])
    pool = [v for v in pool if v != value or type(v) is not type(value)]
    return rng.choice(pool) if pool else None


def changed(rng, st):
    """A copy of st with one random thing changed, and what it was."""
    prog = st.prog
    m = st.clone()
    what = rng.randrange(6)
    full = [s for s in range(prog.nslots) if m.slots[s]]
    if what == 0 and full:                               # a piece moved elsewhere
        a, b = rng.choice(full), rng.randrange(prog.nslots)
        piece = m.slots[a].pop(rng.randrange(len(m.slots[a])))
        m.slots[b].insert(rng.randrange(len(m.slots[b]) + 1), piece)
        m.where[piece] = b
        return m, "move"
    if what == 1 and full:                               # two pieces of a slot swapped
        s = rng.choice(full)
        if len(m.slots[s]) > 1:
            i, j = rng.sample(range(len(m.slots[s])), 2)
            m.slots[s][i], m.slots[s][j] = m.slots[s][j], m.slots[s][i]
            return m, "order"
    if what == 2 and len(full) > 1:                      # pieces of two slots swapped
        a, b = rng.sample(full, 2)
        i, j = rng.randrange(len(m.slots[a])), rng.randrange(len(m.slots[b]))
        m.slots[a][i], m.slots[b][j] = m.slots[b][j], m.slots[a][i]
        m.where[m.slots[a][i]], m.where[m.slots[b][j]] = a, b
        return m, "swap"
    if what == 3 and prog.gvar_names:
        i = rng.randrange(len(prog.gvar_names))
        name = prog.gvar_names[i]
        m.gv[i] = other_value(rng, m.gv[i], prog.var_types[name], prog,
                              prog.list_bounds.get(name))
        return m, f"variable {name}"
    if what == 4 and prog.pvar_names:
        i, p = rng.randrange(len(prog.pvar_names)), rng.randrange(prog.players)
        name = prog.pvar_names[i]
        m.pv[p][i] = other_value(rng, m.pv[p][i], prog.var_types[name], prog,
                                 prog.list_bounds.get(name))
        return m, f"player variable {name}"
    if what == 5 and prog.changeable:
        r = rng.randrange(len(prog.changeable))
        a = prog.changeable[r]
        pieces = [p for p in range(len(prog.piece_names)) if prog.changeable_by[a][p]]
        if pieces:
            piece = rng.choice(pieces)
            new = other_value(rng, m.pa[r][piece], prog.attr_types[a], prog)
            if new is not None:
                m.pa[r][piece] = new
                return m, f"attribute {a}"
    m.turn += 1
    return m, "turn"


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_a_seat_s_tensor_differs_exactly_where_its_observation_does(path):
    spec = load_spec(path)
    rng = random.Random(f"tensor {path.stem}")
    game = spec.game(spec.player_range[0])
    enc = Encoder(game)
    told = {True: 0, False: 0}
    for _ in range(POINTS):
        st = game.new_state(seed=rng.randrange(2 ** 32))
        states = []
        while not st.is_terminal() and len(states) < 150:
            states.append(st.clone())
            st.apply(rng.choice(st.legal_actions()))
        st = rng.choice(states)
        for seat in range(game.players):
            seen, t = shown(st, seat), tensor(enc, st, seat)
            for _ in range(CHANGES):
                m, what = changed(rng, st)
                same_view = shown(m, seat) == seen
                assert same_view == (tensor(enc, m, seat) == t), (
                    f"{what}: the observation {'is the same' if same_view else 'differs'} "
                    f"for seat {seat}, the tensor "
                    f"{'differs' if same_view else 'is the same'}")
                told[same_view] += 1
    assert told[False], "no change was visible: the test would not see a lost part"


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_end_carries_the_scores(path):
    spec = load_spec(path)
    game = spec.game(spec.player_range[0])
    enc = Encoder(game)
    rng = random.Random(path.stem)
    st = game.new_state(seed=7)
    while not st.is_terminal() and len(st.history) < 3000:
        st.apply(rng.choice(st.legal_actions()))
    if not st.is_terminal():
        pytest.skip("no end within 3,000 decisions")
    (scores,) = [p for p in enc.parts if p.name == "scores"]
    t = tensor(enc, st, 0)
    assert t[scores.offset:scores.offset + scores.size] == [float(s) for s in st.scores()]
    assert t[enc.parts[1].offset + game.players + 1] == 1.0     # the end is marked


# ---- apart from any game: every type of value -------------------------------------------

EVERY_TYPE = """\
game: {id: every_type, name: Every type, source: none.txt, players: {min: 2, max: 2}}
enums:
  suit: [moon, sun]
components:
  card:
    name: "{suit}{rank}"
    for_each: {suit: "values(suit)", rank: "[1, 2]"}
    attributes: {face: "'down'"}
    changeable: [face]
    zone: deck
zones:
  deck: {kind: stack, visibility: count}
  hand: {kind: set, per_player: true, visibility: owner}
  row: {kind: stack, visibility: public}
  board: {kind: grid, width: 2, height: 1}
variables:
  picked: {value: [], type: list of piece, max_length: 2}
  suits: {value: [], type: list of suit, per_player: true, max_length: 3}
  loose: {value: [], type: list of int}
  lead: {value: null, type: suit}
  who: {value: null, type: player}
  last: {value: null, type: piece}
  spot: {value: null, type: cell}
  said: {value: '', type: text}
  n: {value: null, type: int}
  bank: {value: {moon: 0, sun: 2}}
  secret: {value: 5, per_player: true, visibility: owner}
  gone: {value: 1, visibility: hidden}
setup:
  - move deck to row
play:
  - id: turns
    turns: {first: 0, until: "size(row) <= 2"}
    do:
      - id: pick
        choose: c in row
        label: "pick {c}"
        do:
          - move c to current.hand
          - picked = picked + [c]
          - current.suits = current.suits + [c.suit]
          - lead = c.suit
          - who = current
          - last = c
          - spot = board[1]
          - said = text(c)
          - n = 3
          - bank[moon] += 1
          - c.face = 'up'
          - loose = loose + [1, 2, 3]
scoring:
  points:
    cards: {value: "size(player.hand)"}
"""


@pytest.fixture(scope="module")
def every(tmp_path_factory):
    path = tmp_path_factory.mktemp("every") / "every.yaml"
    path.write_text(EVERY_TYPE)
    return path, load_game(str(path))


def part(enc, t, name):
    (p,) = [p for p in enc.parts if p.name == name]
    values = t[p.offset:p.offset + p.size]
    if len(p.shape) == 2:
        return [values[i * p.shape[1]:(i + 1) * p.shape[1]] for i in range(p.shape[0])]
    return values


def test_each_type_of_value_is_encoded_item_by_item(every):
    _, game = every
    enc = Encoder(game)
    names = [p.name for p in enc.parts]
    assert names == ["observer", "to_choose", "turn", "seen", "count", "kinds", "places",
                     "attributes", "variable picked", "variable loose", "variable lead",
                     "variable who", "variable last", "variable spot", "variable said",
                     "variable n", "variable bank[moon]", "variable bank[sun]",
                     "player variable suits", "player variable secret", "scores"]
    st = game.new_state(seed=1)
    before = tensor(enc, st, 0)
    assert part(enc, before, "variable lead") == [1, 0, 0]          # none
    assert part(enc, before, "variable n") == [0, 1]                # none, not 0
    st.apply_string("pick sun2")
    t = tensor(enc, st, 0)
    sun2 = game.prog.piece_names.index("sun2")
    picked = part(enc, t, "variable picked")
    assert picked[0] == 1 and len(picked) == 1 + 2 * 5              # length, 2 items of 5
    assert picked[1:6] == [0] * (1 + sun2) + [1] + [0] * (3 - sun2)
    assert part(enc, t, "variable loose") == [3]                     # no max_length
    assert part(enc, t, "variable lead") == [0, 0, 1]               # moon, sun
    assert part(enc, t, "variable who") == [0, 1, 0]
    assert part(enc, t, "variable spot")[1 + 1 + game.prog.zones["board"].base] == 1
    assert part(enc, t, "variable said") == [pytest.approx(text_code("sun2"))]
    assert part(enc, t, "variable n") == [3, 0]
    assert part(enc, t, "variable bank[moon]") == [1, 0]
    suits = part(enc, t, "player variable suits")
    assert suits[0] == [1, 0, 0, 1] + [0] * 6 and suits[1] == [0] * 10
    assert part(enc, t, "player variable secret") == [[5, 0], [0, 0]]  # its owner's only
    assert part(enc, tensor(enc, st, 1), "player variable secret") == [[0, 0], [5, 0]]
    assert "variable gone" not in names                              # hidden: no part


def test_places_carry_the_order_and_attributes_the_piece(every):
    _, game = every
    enc = Encoder(game)
    st = game.new_state(seed=1)
    row = game.prog.zones["row"].base
    t = tensor(enc, st, 1)
    places = part(enc, t, "places")
    # kinds sorted: moon1, moon2, sun1, sun2, one piece each, in the row in deck order
    order = [game.prog.piece_names[p] for p in st.slots[row]]
    assert places == [[row + 1, order.index(k) + 1] for k in enc.kinds]
    st.apply_string("pick moon1")
    t0, t1 = tensor(enc, st, 0), tensor(enc, st, 1)
    hand0 = game.prog.zones["hand"].base
    assert part(enc, t0, "places")[0] == [hand0 + 1, 1]             # its owner sees it
    assert part(enc, t1, "places")[0] == [0, 0]                     # the other does not
    assert part(enc, t0, "attributes")[0] == [pytest.approx(text_code("up"))]
    assert part(enc, t0, "attributes")[1] == [pytest.approx(text_code("down"))]


def test_tabula_compile_tensor_prints_the_layout(every, tmp_path):
    path, game = every
    run = subprocess.run([sys.executable, "-m", "tabula_rules", "compile", str(path),
                          "--tensor"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    enc = Encoder(game)
    for p in enc.parts:
        assert f"{p.offset:>6}  {p.name}" in run.stdout
    assert f"{enc.size} floats" in run.stdout
    run = subprocess.run([sys.executable, "-m", "tabula_rules", "compile", str(path),
                          "--tensor", "--json"], capture_output=True, text=True)
    assert json.loads(run.stdout)["parts"] == enc.layout()
    run = subprocess.run([sys.executable, "-m", "tabula_rules", "compile", str(path),
                          "--json"], capture_output=True, text=True)
    assert run.returncode == 1 and "--json goes with --tensor" in run.stderr
    assert "Traceback" not in run.stderr
