"""The facts cache is invisible: every spec and example plays the same games, move for
move, with spec functions and groups kept in State.facts and without (Spec.game(...,
cache=False) computes every fact at every use)."""

import random
import time

import pytest

from tabula_rules import CHANCE, load_spec

from conftest import EXAMPLES, SPEC_FILES

SEEDS = (0, 1, 2)
SLOW_GAME_SECONDS = 0.3     # a spec whose random game takes longer plays one seed only


def params():
    for path in SPEC_FILES + EXAMPLES:
        spec = load_spec(path)
        lo, hi = spec.player_range
        for n in sorted({lo, hi}):
            yield pytest.param(path, n, id=f"{path.stem}-{n}p")


def play(game, seed: int) -> tuple:
    """A random game: every decision's legal actions, the choice, the scores, and the
    facts the cached game kept (to show that the cache was used)."""
    st = game.new_state(seed=seed)
    rng = random.Random(seed)
    trail = []
    used = 0
    while not st.terminal:
        acts = st.legal_actions()
        used = max(used, len(st.facts))
        a = acts[int(rng.random() * len(acts))]
        trail.append((st.current_player(), tuple(acts), a))
        st.apply(a)
    return trail, st.scores(), st.winners(), used


@pytest.mark.parametrize("path,players", list(params()))
def test_the_same_games_with_and_without_the_cache(path, players):
    spec = load_spec(path)
    cached = spec.game(players)
    uncached = spec.game(players, cache=False)
    assert cached.prog.cache and not uncached.prog.cache
    for seed in SEEDS:
        t0 = time.perf_counter()
        a = play(cached, seed)
        slow = time.perf_counter() - t0 > SLOW_GAME_SECONDS
        b = play(uncached, seed)
        assert a[0] == b[0], f"seed {seed}: the games part at decision " \
            f"{next(i for i, (x, y) in enumerate(zip(a[0], b[0])) if x != y)}"
        assert a[1:3] == b[1:3]
        assert b[3] == 0            # the uncached game keeps no facts
        if slow:
            break


def test_the_cache_is_used_and_emptied_by_a_change():
    """A spec function's result is kept until a move changes the state."""
    game = load_spec(SPEC_FILES[0]).game(3)
    st = game.new_state(seed=4)
    while not st.facts and not st.terminal:
        st.apply(st.legal_actions()[0])
    assert st.facts, "no fact was kept in a whole game"
    before = dict(st.facts)
    clone = st.clone()
    assert clone.facts == {}                   # a copy starts with no facts
    while st.current_player() == CHANCE:
        st.apply(st.legal_actions()[0])
    st.apply(st.legal_actions()[-1])
    assert st.facts != before or st.terminal
