"""The engine's public API on a real spec: determinism, clones, JSON, errors."""

import json
import random

import pytest

from tabula_rules import CHANCE, TERMINAL, IllegalAction, load_game
from tabula_rules.runtime.engine import State

from conftest import ROOT

MEDANG = ROOT / "specs" / "medang"


def play(st, seed, steps=None):
    rng = random.Random(seed)
    n = 0
    while not st.is_terminal() and (steps is None or n < steps):
        acts = st.legal_actions()
        st.apply(acts[rng.randrange(len(acts))])
        n += 1
    return st


def test_same_seed_same_decisions_same_game():
    g = load_game(MEDANG, players=3)
    a = play(g.new_state(seed=7), seed=3)
    b = play(g.new_state(seed=7), seed=3)
    assert a.to_json_text() == b.to_json_text()
    assert a.history == b.history and a.scores() == b.scores()


def test_different_seeds_differ():
    g = load_game(MEDANG, players=3)
    assert g.new_state(seed=1).to_json_text() != g.new_state(seed=2).to_json_text()


def test_legal_actions_have_no_side_effects():
    st = load_game(MEDANG, players=2).new_state(seed=5)
    play(st, 1, steps=20)
    before = st.to_json_text()
    first = st.legal_actions()
    assert st.legal_actions() == first
    st.legal_action_strings()
    st.observation(0)
    st.scores()
    assert st.to_json_text() == before


def test_actions_are_small_hashable_values_with_stable_strings():
    st = load_game(MEDANG, players=2).new_state(seed=5)
    for a in st.legal_actions():
        assert isinstance(a, tuple) and all(isinstance(v, int) for v in a)
        hash(a)
    assert st.legal_action_strings() == st.legal_action_strings()


def test_clone_is_independent():
    st = play(load_game(MEDANG, players=3).new_state(seed=2), 4, steps=30)
    snapshot = st.to_json_text()
    c = st.clone()
    assert c.to_json_text() == snapshot
    play(c, 9)
    assert c.is_terminal()
    assert st.to_json_text() == snapshot
    # the clone continues exactly as the original would
    d = st.clone()
    assert play(d, 11).to_json_text() == play(st, 11).to_json_text()


def test_json_round_trip_mid_game():
    g = load_game(MEDANG, players=4)
    st = play(g.new_state(seed=3), 5, steps=40)
    text = json.dumps(st.to_json())
    back = State.from_json(g, json.loads(text))
    assert back.to_json_text() == st.to_json_text()
    assert back.legal_action_strings() == st.legal_action_strings()
    assert play(back, 6).to_json_text() == play(st, 6).to_json_text()


def test_json_from_another_game_is_refused():
    st = load_game(MEDANG, players=2).new_state(seed=1)
    other = load_game(MEDANG, players=3)
    with pytest.raises(Exception) as info:
        State.from_json(other, st.to_json())
    assert "another spec" in str(info.value)


def test_illegal_action_is_refused():
    st = load_game(MEDANG, players=2).new_state(seed=1)
    with pytest.raises(IllegalAction):
        st.apply((99, 0))
    with pytest.raises(IllegalAction):
        st.apply_string("play nothing nowhere")


def test_chance_decision_and_terminal():
    st = load_game(MEDANG, players=2).new_state(seed=1)
    while st.current_player() != CHANCE:
        st.apply(st.legal_actions()[-1])      # "keep the rest" is the last discard option
    outcomes = st.chance_outcomes()
    assert [p for _, p in outcomes] == [0.5, 0.5]
    play(st, 2)
    assert st.current_player() == TERMINAL and st.legal_actions() == ()
    with pytest.raises(IllegalAction):
        st.apply((0, 0))


def test_observation_shows_own_hand_only():
    st = load_game(MEDANG, players=3).new_state(seed=1)
    obs = st.observation(0)
    assert isinstance(obs["zones"]["hand"]["0"], list)
    assert obs["zones"]["hand"]["1"] == {"count": 4}
    assert obs["zones"]["secret"]["2"] == {"count": 1}
    assert obs["zones"]["pile"] == {"count": 70 - 12}
    assert obs["zones"]["dynasty_pool"] is None
    assert "legal_actions" in obs and "legal_actions" not in st.observation(1)


def test_win_loss_returns(tmp_path):
    """game.returns: win_loss: +1 to the winner, -1 to the other, 0 to both in a draw;
    0 before the end; scores are the default."""
    spec = tmp_path / "race.yaml"
    text = """\
game: {id: race, name: Race, source: race.txt, players: {min: 2, max: 2}, returns: win_loss}
zones:
  track: {kind: columns, capacities: "[1, 1, 1, 1, 1]", visibility: public}
variables:
  at: {value: 0, per_player: true}
play:
  - turns: {first: "0", until: "any(p.at >= 4 for p in players) or current == 1 and p0_done()"}
    do:
      - choose: k in [1, 2]
        label: "advance {k}"
        do:
          - current.at += k
functions:
  p0_done:
    value: "false"
scoring:
  points:
    home:
      value: "if player.at >= 4 then 1 else 0"
"""
    spec.write_text(text)
    from tabula_rules.spec import Spec
    game = Spec(spec).game(2)
    st = game.new_state(seed=0)
    assert st.returns() == [0, 0]
    for label in ["advance 2", "advance 1", "advance 2"]:
        st.apply_string(label)
    assert st.terminal and st.winners() == [0] and st.returns() == [1, -1]
    spec.write_text(text.replace(", returns: win_loss", ""))
    st = Spec(spec).game(2).new_state(seed=0)
    for label in ["advance 2", "advance 1", "advance 2"]:
        st.apply_string(label)
    assert st.returns() == st.scores() == [1, 0]
