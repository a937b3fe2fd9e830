"""Hypothesis drives the decisions: whatever is chosen, a state copied (clone or JSON) at
any point continues exactly like the original, and legal-action listing stays pure."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabula_rules import load_game
from tabula_rules.runtime.engine import State

from conftest import ROOT

GAME = load_game(ROOT / "specs" / "medang", players=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), picks=st.lists(st.integers(0, 10**6), max_size=400),
       cut=st.integers(0, 200))
def test_copies_continue_like_the_original(seed, picks, cut):
    state = GAME.new_state(seed=seed)
    copy = None
    for i, pick in enumerate(picks):
        if state.is_terminal():
            break
        if i == cut:
            copy = State.from_json(GAME, json.loads(json.dumps(state.to_json())))
            twin = state.clone()
        acts = state.legal_actions()
        assert state.legal_actions() == acts
        state.apply(acts[pick % len(acts)])
        if copy is not None:
            for other in (copy, twin):
                other.apply(other.legal_actions()[pick % len(acts)])
                assert other.to_json_text() == state.to_json_text()
