"""Random playouts over every spec: games end, pieces are conserved, observations hide
what they must (OpenSpiel's random_sim_test, for every spec and player count)."""

import itertools
import os
import random

import pytest

from tabula_rules import CHANCE, load_spec
from tabula_rules.runtime.engine import State

from conftest import EXAMPLES, SPEC_FILES

# Up to 6 games a config; after the second, a config stops once it has checked 2,000
# positions (decisions times the players who observe each, plus one): a long game (Pig to
# 1,000, Medina, a deck-builder) gets two games, a short one all six. Bounded by work,
# never by the clock. TABULA_PLAYOUT_GAMES=20 TABULA_PLAYOUT_CHECKS=1000000 plays 20
# games of every config (README, "the long run of the random tests").
GAMES_PER_CONFIG = int(os.environ.get("TABULA_PLAYOUT_GAMES", "6"))
CHECKS_PER_CONFIG = int(os.environ.get("TABULA_PLAYOUT_CHECKS", "2000"))


def all_pairs(choices: list) -> list:
    """Combinations of the options in which every two values of two options meet at least
    once (a pairwise covering array), the defaults first: hearts' eight yes/no options in
    a handful of games instead of 256, every interaction of two options still played.
    Greedy and deterministic: each next row is the first that covers most pairs left."""
    rows = list(itertools.product(*choices)) if choices else [()]
    if len(rows) <= 8:
        return rows

    def pairs(row):
        return {(i, row[i], j, row[j]) for i, j in itertools.combinations(range(len(row)), 2)}
    left = set().union(*(pairs(r) for r in rows))
    chosen = [rows[0]]
    left -= pairs(rows[0])
    while left:
        best = max(rows, key=lambda r: len(pairs(r) & left))
        chosen.append(best)
        left -= pairs(best)
    return chosen


def default_first(option) -> list:
    """An option's choices, its default first."""
    default = option.get("default")
    return sorted(option.get("choices", [default]), key=lambda c: c != default)


def configs():
    for path in SPEC_FILES + EXAMPLES:
        spec = load_spec(path)
        lo, hi = spec.player_range
        decl = spec.doc.get("options", {})
        choices = [[(k, c) for c in default_first(o)] for k, o in decl.items()]
        for combo in all_pairs(choices):
            opts = dict(combo)
            for n in range(lo, hi + 1):
                try:
                    spec.options(opts, n)
                except Exception:  # noqa: BLE001  an option that is not for this player count
                    continue
                yield pytest.param(path, n, opts, id=f"{path.stem}-{n}p-" +
                                   "-".join(f"{v}" for v in opts.values()))


def check_observation(st: State, player: int) -> None:
    """Owner-only zones of other players, a player's own zone held facing out (`others`),
    count-only and hidden zones show no pieces."""
    prog = st.prog
    obs = st.observation(player)
    for name, z in prog.zones.items():
        shown = obs["zones"][name]
        if z.visibility == "public":
            continue
        entries = shown.items() if z.per_player else [(None, shown)]
        for owner, value in entries:
            mine = owner is not None and int(owner) == player
            if z.visibility == "owner" and mine or z.visibility == "others" and not mine:
                continue
            if z.visibility == "hidden":
                assert value is None, (name, owner, value)
            else:
                assert isinstance(value, dict) and set(value) == {"count"}, (name, owner, value)
    if "legal_actions" in obs:      # the player is to choose (one of several, at once)
        assert player in st.choosers()
    else:
        assert player not in st.choosers()


def conserved(st: State) -> None:
    """Every piece is in exactly one slot, and `where` agrees."""
    seen = [p for s in st.slots for p in s]
    assert sorted(seen) == list(range(len(st.prog.piece_names)))
    for s, content in enumerate(st.slots):
        for p in content:
            assert st.where[p] == s
    for s, cap in enumerate(st.prog.slot_cap):
        assert cap is None or len(st.slots[s]) <= cap


@pytest.mark.parametrize("path,players,options", list(configs()))
def test_random_playouts(path, players, options):
    game = load_spec(path).game(players, options)
    checked = 0
    for seed in range(GAMES_PER_CONFIG):
        if seed >= 2 and checked > CHECKS_PER_CONFIG:
            break
        st = game.new_state(seed=seed)
        rng = random.Random(seed)
        n = 0
        while not st.is_terminal():
            acts = st.legal_actions()
            assert acts, "a non-terminal state must offer actions"
            assert len(set(acts)) == len(acts)
            strings = st.legal_action_strings()
            assert len(set(strings)) == len(strings), "action strings must be unique"
            st.apply(acts[rng.randrange(len(acts))])
            conserved(st)
            assert not st.violated_invariants(), (n, st.violated_invariants())
            for p in range(players):
                check_observation(st, p)
            n += 1
            assert n < 5000, "the game must end"
        checked += n * (players + 1)
        assert len(st.scores()) == players
        assert st.winners() and set(st.winners()) <= set(range(players))
        assert st.current_player() < 0 and st.current_player() != CHANCE
