"""The facts cache is invisible: every spec and example plays the same games, move for
move, with spec functions and groups kept in State.facts and without (Spec.game(...,
cache=False) computes every fact at every use)."""

import os
import random
import time

import pytest

from tabula_rules import CHANCE, load_spec
from tabula_rules.runtime.model import Listing
from tabula_rules.runtime.readers import _listing_for
from tabula_rules.runtime.views import SKIP, View

from conftest import EXAMPLES, SPEC_FILES

# 2 games a spec and player count (3 for the stale check below, which plays every player
# count); TABULA_CACHE_GAMES=3 plays 3 and 4, as before, or more for a longer run (README)
GAMES = int(os.environ.get("TABULA_CACHE_GAMES", "2"))
SEEDS = tuple(range(GAMES))
SLOW_GAME_SECONDS = 0.3     # a spec whose random game takes longer plays one seed only


def params():
    for path in SPEC_FILES + EXAMPLES:
        spec = load_spec(path)
        lo, hi = spec.player_range
        for n in sorted({lo, hi}):
            yield pytest.param(path, n, id=f"{path.stem}-{n}p")


def keepers(game) -> dict:
    """{key of State.facts: the generated function that keeps its table}: the spec
    function (F) or group (G) that reads the facts under the constant bound to the key."""
    ns = game.prog.module.ns
    out = {}
    for fn in ns.values():
        code = getattr(fn, "__code__", None)
        if code is not None and "facts" in code.co_names and fn.__name__[0] in "FG":
            for name in code.co_names:
                value = ns.get(name)
                if isinstance(value, str) and value in game.prog.facts.kept:
                    out[value] = fn
    return out


_LISTINGS: dict = {}


def _listings(prog) -> dict:
    """{key: Listing} of a compiled program's decisions (found once per program)."""
    found = _LISTINGS.get(id(prog))
    if found is None or found[0] is not prog:
        found = _LISTINGS[id(prog)] = (prog, {h.key: h for h in prog.module.ns.values()
                                              if isinstance(h, Listing)})
    return found[1]


def stale_facts(st, keep: dict) -> list:
    """The kept entries of st.facts that differ from their value computed again now, on a
    copy with no facts (a group whose flood also reads the frame's locals is not
    checked), and the cells of a view, brought up to date, whose value differs from the
    one its function gives now: [(key, arguments, kept, now)]."""
    out = []
    fresh = st.clone()
    listings = _listings(st.prog)
    for key, table in list(st.facts.items()):
        views = [table] if isinstance(table, View) else [
            v for v in table.values() if isinstance(v, View)] if key[0] == "V" else []
        for view in views:               # (a view per value of the locals it reads)
            if view.dirty:
                view.refresh(st)
            for item in view.items:
                now = view.fn(fresh, item, *view.args)
                kept = view.vals.get(item, SKIP)
                if (now is SKIP) != (kept is SKIP) or (now is not SKIP and now != kept):
                    out.append((key, item, kept, now))
        if views:
            continue
        if key.startswith("listing:"):   # a decision's listings by player (can_choose)
            for p, value in table.items():
                now = tuple(_listing_for(fresh, listings[key], p))
                if now != value:
                    out.append((key, p, value, now))
            continue
        fn = keep[key]
        nargs = fn.__code__.co_argcount - 1
        if key[0] == "G" and nargs != 1:
            continue
        for args, value in table.items():
            now = fn(fresh, *(args if nargs != 1 else (args,)))
            if now != value:
                out.append((key, args, value, now))
    return out


def play(game, seed: int, check: bool = False) -> tuple:
    """A random game: every decision's legal actions, the choice, the scores, and the
    facts the cached game kept (to show that the cache was used); `check`: and the
    first kept entries found stale at a decision."""
    st = game.new_state(seed=seed)
    rng = random.Random(seed)
    trail = []
    used = 0
    keep = keepers(game) if check else {}
    stale: list = []
    while not st.terminal:
        acts = st.legal_actions()
        used = max(used, len(st.facts))
        if check and not stale:
            stale = stale_facts(st, keep)
        a = acts[int(rng.random() * len(acts))]
        trail.append((st.current_player(), tuple(acts), a))
        st.apply(a)
    return (trail, st.scores(), st.winners(), used) + ((stale,) if check else ())


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


# -- the invalidation by what facts read ---------------------------------------------------
# A change drops only the facts whose unit reads what it writes (docs/compiler.md, "Facts:
# computed once per state"): at every decision, every entry kept must equal its value
# computed again, at every player count, on more games than above.

def every_count():
    for path in SPEC_FILES + EXAMPLES:
        spec = load_spec(path)
        lo, hi = spec.player_range
        for n in range(lo, hi + 1):
            yield pytest.param(path, n, id=f"{path.stem}-{n}p")


CHECKED_SEEDS = tuple(range(10, 11 + GAMES))


@pytest.mark.parametrize("path,players", list(every_count()))
def test_no_kept_fact_is_stale_at_any_decision(path, players):
    spec = load_spec(path)
    cached = spec.game(players)
    uncached = spec.game(players, cache=False)
    for seed in CHECKED_SEEDS:
        t0 = time.perf_counter()
        a = play(cached, seed, check=True)
        slow = time.perf_counter() - t0 > SLOW_GAME_SECONDS
        assert a[4] == [], f"seed {seed}: stale facts {a[4][:3]}"
        b = play(uncached, seed)
        assert a[:3] == b[:3], f"seed {seed}: the games differ"
        if slow:
            break


MUTANT = """\
game: {id: mutant, name: Mutant, source: a test, players: {min: 2, max: 3}}
components:
  card: {name: "card {rank}", for_each: {rank: "range(1, 9)"}, zone: deck}
zones:
  deck: {kind: stack, visibility: public}
  hand: {kind: set, per_player: true, visibility: public}
variables:
  bonus: {value: 0}
  rounds: {value: 0}
functions:
  best: {params: [p], value: "max(t.rank for t in p.hand, 0) + bonus"}
  mine: {value: "sum(t.rank for t in current.hand)"}
setup:
  - for: p in players
    do:
      - move top(deck) to p.hand
play:
  - id: turn
    turns: {first: 0, until: rounds >= 8}
    do:
      - bonus += 1
      - id: pick
        choose: n in range(0, 30) where n <= best(current) + mine()
        do:
          - rounds += 1
      - if: rounds % 3 == 0 and size(deck) > 0
        then:
          - move top(deck) to current.hand
      - id: again
        choose: n in range(0, 30) where n <= mine()
        do: []
scoring:
  points:
    high: {value: best(player)}
"""

# the invalidations a mutant goes without: an assignment's (`bonus += 1` drops nothing),
# a move's (a card into a hand drops nothing), a new turn's (a fact reading `current`
# survives it)
MUTATIONS = ("assignment", "move", "turn")


def mutant_games(tmp_path, monkeypatch, mutation: str | None) -> tuple:
    """MUTANT's games (its cached and uncached programs), compiled without one of the
    invalidations (MUTATIONS) or, for None, as they are."""
    from tabula_rules.compiler import analysis
    from tabula_rules.spec import Spec
    stale = analysis.Facts.stale
    if mutation in ("assignment", "move"):
        kind = analysis.VAR if mutation == "assignment" else analysis.ZONE
        monkeypatch.setattr(analysis.Facts, "stale", lambda self, writes: stale(
            self, [w for w in writes if w[0] != kind]))
    elif mutation == "turn":
        monkeypatch.setattr(analysis.Facts, "turn_facts", lambda self: ())
    path = tmp_path / f"{mutation or 'sound'}.yaml"
    path.write_text(MUTANT)
    spec = Spec(path)
    return spec.game(2), spec.game(2, cache=False)


def test_the_mutant_is_sound_with_every_invalidation(tmp_path, monkeypatch):
    cached, uncached = mutant_games(tmp_path, monkeypatch, None)
    reads = cached.prog.facts.reads
    assert ("var", "bonus") in reads("function:best")
    assert cached.prog.facts.reads_current("function:mine")
    sound = play(cached, 0, check=True)
    assert sound[4] == [] and sound[:3] == play(uncached, 0)[:3]
    assert sound[3] > 0                   # facts were kept


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_the_comparison_catches_a_removed_invalidation(tmp_path, monkeypatch, mutation):
    """best() reads `bonus` and the hands, mine() the hands and whose turn it is: without
    one invalidation a kept fact is stale at a later decision, and both the stale check
    and the comparison of the games say so."""
    cached, uncached = mutant_games(tmp_path, monkeypatch, mutation)
    broken = play(cached, 0, check=True)
    assert broken[4], f"the stale check misses the removed {mutation} invalidation"
    assert broken[:3] != play(uncached, 0)[:3], "the games' comparison misses it"


# -- copies that keep the facts -------------------------------------------------------------
# State.clone(facts=True) and State.resample hand the copy the state's facts, views and
# kept groups (runtime/views.copy_facts) instead of computing them again: a copy played on
# must keep them as exact as the original does, and must not change the original's.

COPY_SEED = 30
COPY_EVERY = 5          # decisions between two checked ones
COPY_MOVES = 3          # random moves played on each copy


def copies_stale(game, seed: int) -> list:
    """At every COPY_EVERY-th decision of a random game, a copy with facts and a
    determinisation for the player to move, each played on for COPY_MOVES random moves
    beside a plain copy: [(what, decision, stale entries or differing legal actions)]
    found on them, and on the original once they are played."""
    keep = keepers(game)
    st = game.new_state(seed=seed)
    rng = random.Random(seed)
    found: list = []
    k = 0
    while not st.terminal and not found:
        k += 1
        if k % COPY_EVERY == 0 and st.current_player() >= 0:
            r = random.Random(k)
            copies = [("clone", st.clone(facts=True), st.clone())]
            if not st.is_simultaneous_node():
                copies.append(("resample", st.resample(st.current_player(), random.Random(k)),
                               None))
            for what, c, plain in copies:
                if plain is None:     # the same determinisation, with nothing kept
                    plain = st.resample(st.current_player(), random.Random(k))
                    plain.relist()
                for _ in range(COPY_MOVES):
                    if c.terminal:
                        break
                    if c.legal_actions() != plain.legal_actions():
                        found.append((what, k, "legal actions differ"))
                        break
                    bad = stale_facts(c, keep)
                    if bad:
                        found.append((what, k, bad[:3]))
                        break
                    acts = c.legal_actions()
                    a = acts[int(r.random() * len(acts))]
                    c.apply(a)
                    plain.apply(a)
            bad = stale_facts(st, keep)
            if bad:
                found.append(("original", k, bad[:3]))
        acts = st.legal_actions()
        st.apply(acts[int(rng.random() * len(acts))])
    return found


def top_counts():
    for path in SPEC_FILES + EXAMPLES:
        spec = load_spec(path)
        yield pytest.param(path, spec.player_range[1], id=f"{path.stem}")


@pytest.mark.parametrize("path,players", list(top_counts()))
def test_copies_keep_their_facts_exact(path, players):
    game = load_spec(path).game(players)
    assert copies_stale(game, COPY_SEED) == []


def test_the_copies_check_catches_a_shared_view(monkeypatch):
    """A view that a copy shared with its original, instead of copying it, goes stale on
    one side once the other moves; the check above sees it."""
    game = load_spec("specs/medina").game(2)
    monkeypatch.setattr(View, "copy", lambda self: self)
    assert copies_stale(game, COPY_SEED) != []
