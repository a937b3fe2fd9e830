"""Sampled worlds respect the seat's view (issue 25, 4): State.resample(seat) -- the
determinisation the bots and OpenSpiel's resample_from_infostate use -- keeps everything
the seat sees and redraws only what it cannot. Over every shipped spec and example with
something hidden, at random points of random games and for every seat: the sampled
world's observation, information state and legal actions for that seat are the real
ones. (What the seat could infer from its history beyond what it sees now is not kept:
docs/language.md, State.resample.)"""

from __future__ import annotations

import os
import random

import pytest

from tabula_rules.spec import load_spec

from conftest import EXAMPLES, SPEC_FILES

GAMES = [*SPEC_FILES, *(e / f"{e.name}.yaml" if (e / f"{e.name}.yaml").exists()
                        else next(e.glob("*.yaml")) for e in EXAMPLES)]
POINTS = int(os.environ.get("TABULA_RESAMPLE_POINTS", "4"))   # per game and seat count


def hides_something(game) -> bool:
    prog = game.prog
    return any(z.visibility != "public" for z in prog.zone_list) or \
        any(v != "public" for v in prog.gvar_vis + prog.pvar_vis)


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_a_sampled_world_is_one_the_seat_cannot_tell_from_the_real_one(path):
    spec = load_spec(path)
    lo, hi = spec.player_range
    rng = random.Random(path.stem)
    if not hides_something(spec.game(lo)):
        pytest.skip("nothing is hidden")
    checked = 0
    for players in sorted({lo, hi}):
        game = spec.game(players, recall=True)
        for _ in range(POINTS):
            st = game.new_state(seed=rng.randrange(2 ** 32))
            states = []                 # a random point of a random game, not its end
            while not st.is_terminal() and len(states) < 200:
                states.append(st.clone())
                st.apply(rng.choice(st.legal_actions()))
            st = rng.choice(states)
            for seat in range(players):
                w = st.resample(seat, random.Random(rng.randrange(2 ** 32)))
                assert w.observation(seat) == st.observation(seat)
                assert w.information_state_string(seat) == st.information_state_string(seat)
                assert w.legal_action_strings(seat) == st.legal_action_strings(seat)
                checked += 1
    assert checked >= 2 * POINTS
