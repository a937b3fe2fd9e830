"""A simultaneous decision is one node to every seat (issue 25, 6): while a sealed bid is
pending, nothing a seat is shown (its observation, its tensor, the text view, its
player's log as it is written) tells whether another seat has chosen yet. The engine
still takes the choices one at a time (current_player() advances: the sequential view
bots, logs and `simulate` drive), and a referee's view says who has chosen."""

from __future__ import annotations

import numpy as np

from tabula_rules.adapters.observe import Encoder
from tabula_rules.spec import load_game
from tabula_rules.tools.gamelog import PlayerLogWriter
from tabula_rules.tools.textview import Drawer

from conftest import ROOT

GOOFSPIEL = ROOT / "examples" / "goofspiel"


def at_a_bid():
    game = load_game(GOOFSPIEL)
    st = game.new_state(seed=3)
    while not st.is_simultaneous_node():
        st.apply(st.legal_actions()[0])
    return game, st


def test_a_seat_cannot_tell_whether_another_has_chosen():
    game, st = at_a_bid()
    enc = Encoder(game)
    before = st.observation(1)
    assert before["current_player"] == "simultaneous" and before["choosing"] == [0, 1]
    t0 = np.zeros(enc.size, np.float32)
    enc.encode(st, 1, t0)
    text0 = Drawer(game).draw(st, 1)
    assert st.current_player() == 0
    st.apply(st.legal_actions()[0])                 # player 0 bids
    assert st.current_player() == 1 and st.is_simultaneous_node()   # the sequential view
    assert st.observation(1) == before
    t1 = np.zeros(enc.size, np.float32)
    enc.encode(st, 1, t1)
    assert (t1 == t0).all()
    assert Drawer(game).draw(st, 1) == text0
    assert "has chosen" in Drawer(game).draw(st, None)      # a referee sees it
    assert "you have chosen" in Drawer(game).draw(st, 0)    # and the bidder its own bid


def test_a_players_log_holds_a_simultaneous_decision_until_it_is_over(tmp_path):
    """A log read as it is written (a web client following a seat) would show a line the
    moment another seat bid: the lines of a simultaneous decision are written when the
    last choice is made, each by "simultaneous", the seat's own with its action."""
    game, st = at_a_bid()
    path = tmp_path / "p1.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        log = PlayerLogWriter(fh, {"players": 2}, 1)
        log.begin(st)
        fh.flush()
        start = path.read_text(encoding="utf-8")
        for who in (0, 1):
            action = st.legal_actions()[0]
            text = st.action_to_string(action)
            st.apply(action)
            log.decision(who, action, text, st.turn, st)
            fh.flush()
            if who == 0:
                assert path.read_text(encoding="utf-8") == start     # nothing yet
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    assert len(lines) == 2
    import json
    first, second = (json.loads(x) for x in lines)
    assert first["player"] == second["player"] == "simultaneous"
    assert "action" not in first and "action" in second
