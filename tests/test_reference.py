"""The hand-written Medina (../shared/bench/medina_ref.py, the speed yardstick of
docs/performance.md) and specs/medina play identical games: at every decision of a random
game the same player and the same legal actions (by label), at the end the same scores.
The reference takes the chance set-up Tabula drew (the well, the first merchant, who
starts). Skipped where the reference is not beside the checkout."""

import importlib.util
import random
import re

import pytest

from tabula_rules.spec import load_spec

from conftest import ROOT

REFERENCE = ROOT.parent / "shared" / "bench" / "medina_ref.py"


@pytest.fixture(scope="module")
def ref():
    if not REFERENCE.is_file():
        pytest.skip(f"the hand-written Medina is not here ({REFERENCE})")
    spec = importlib.util.spec_from_file_location("medina_ref", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chance_set_up(st, rng) -> list:
    """Play Tabula's chance decisions at the start: their labels."""
    said = []
    while st.pending.player == -1:
        acts = st.legal_actions()
        a = acts[int(rng.random() * len(acts))]
        said.append(st.action_to_string(a))
        st.apply(a)
    return said


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_same_games_as_the_hand_written_medina(ref, players):
    game = load_spec(ROOT / "specs" / "medina").game(players)
    rng = random.Random(players)
    st = game.new_state(seed=players)
    chance = chance_set_up(st, rng)
    well, merchant = (tuple(map(int, re.search(r"(\d+),(\d+)", said).groups()))
                      for said in chance[:2])
    start = int(re.search(r"player (\d+)", chance[2]).group(1))
    s = ref.new_game(players, well=well, merchant=merchant, start=start)
    decisions = 0
    while not st.terminal:
        acts = st.legal_actions()
        assert st.current_player() == s.cur, f"decision {decisions}: another player"
        assert sorted(st.action_to_string(a) for a in acts) == sorted(ref.labels(s)), \
            f"decision {decisions}: other legal actions"
        a = acts[int(rng.random() * len(acts))]
        ref.play(s, st.action_to_string(a))
        st.apply(a)
        decisions += 1
    assert ref.is_over(s)
    assert list(st.scores()) == ref.player_scores(s)
    assert decisions > 100                # a whole game, not a set-up
