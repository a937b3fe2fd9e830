"""Visibility `others` (issue 25, 2): a per-player zone or variable seen by every player
but its owner, as a hand held facing out. Tested apart from any game, on a small card
game written here: the observation, the tensor and a sampled world follow it; misuse is
a located error."""

from __future__ import annotations

import random

import pytest

from tabula_rules.adapters.observe import Encoder
from tabula_rules.errors import SpecError
from tabula_rules.spec import load_game, load_spec

FACING_OUT = """\
game: {id: facing_out, name: Facing out, source: none.txt, players: {min: 2, max: 3}}
components:
  card:
    name: "{colour}{rank}"
    for_each: {colour: "['r', 'g']", rank: "[1, 2, 3, 4, 5]"}
    attributes: {}
    zone: deck
zones:
  deck: {kind: stack, visibility: count}
  hand: {kind: set, per_player: true, visibility: others}
  laid: {kind: stack, visibility: public}
variables:
  hints: {value: 0, per_player: true, visibility: others}
setup:
  - shuffle deck
  - for: p in players
    do:
      - repeat: 2
        do: [move top(deck) to p.hand]
play:
  - id: turns
    turns: {first: 0, until: "size(deck) == 0"}
    do:
      - id: play
        choose: k in range(1, size(current.hand))
        label: "play card {k}"
        do:
          - move list(current.hand)[k - 1] to laid
          - move top(deck) to current.hand
          - current.hints += 1
scoring:
  points:
    cards: {value: "count(c for c in laid)"}
"""


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "facing_out.yaml"
    path.write_text(FACING_OUT, encoding="utf-8")
    return load_game(path, players=3)


def test_a_hand_facing_out_is_seen_by_the_others_and_counted_by_its_owner(game):
    st = game.new_state(seed=4)
    names = st.zones_view(None)["hand"]              # a referee sees every hand
    for me in range(3):
        hands = st.observation(me)["zones"]["hand"]
        for owner in range(3):
            if owner == me:
                assert hands[str(owner)] == {"count": 2}
            else:
                assert hands[str(owner)] == names[str(owner)] and len(names[str(owner)]) == 2
        hints = st.observation(me)["player_variables"]["hints"]
        assert set(hints) == {str(p) for p in range(3) if p != me}


def test_the_tensor_follows_it(game):
    """What a seat sees of its own hand is how many cards it holds: two states that
    differ only in the cards of player 0's hand give player 0 the same tensor and the
    others different ones."""
    st = game.new_state(seed=4)
    enc = Encoder(game)
    import numpy as np
    before = {p: np.zeros(enc.size, np.float32) for p in range(3)}
    for p in range(3):
        enc.encode(st, p, before[p])
    other = st.clone()                  # swap a card of 0's hand with one of the deck
    hand, deck = (game.prog.zones[z] for z in ("hand", "deck"))
    h, d = other.slots[hand.slot(0)], other.slots[deck.slot()]
    h[0], d[0] = d[0], h[0]
    other.where[h[0]], other.where[d[0]] = hand.slot(0), deck.slot()
    assert other.zones_view(None)["hand"]["0"] != st.zones_view(None)["hand"]["0"]
    for p in range(3):
        after = np.zeros(enc.size, np.float32)
        enc.encode(other, p, after)
        assert (after == before[p]).all() == (p == 0), p


def test_a_sampled_world_keeps_what_the_seat_sees_and_redraws_its_own_hand(game):
    rng = random.Random(2)
    st = game.new_state(seed=9)
    seen = {p: st.zones_view(None)["hand"][str(p)] for p in range(3)}
    changed = 0
    for _ in range(30):
        w = st.resample(0, rng)
        assert w.observation(0) == st.observation(0)
        for p in (1, 2):
            assert w.zones_view(None)["hand"][str(p)] == seen[p]      # seen: kept
        changed += w.zones_view(None)["hand"]["0"] != seen[0]
    assert changed > 0                       # its own hand (and the deck) are redrawn


@pytest.mark.parametrize("old, new, words", [
    ("  laid: {kind: stack, visibility: public}",
     "  laid: {kind: stack, visibility: others}",
     "a zone seen by every player but its owner needs an owner"),
    ("  hints: {value: 0, per_player: true, visibility: others}",
     "  hints: {value: 0, visibility: others}",
     "only a per-player variable can be seen by every player but its owner"),
])
def test_others_without_an_owner_is_a_located_error(tmp_path, old, new, words):
    path = tmp_path / "facing_out.yaml"
    text = FACING_OUT.replace(old, new)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as e:
        load_spec(path).validate()
    assert words in e.value.message
    assert "visibility: others" in text.splitlines()[e.value.pos.line - 1]
