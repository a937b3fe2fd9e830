"""The engine's boundary (issue 19, item 4): its internals private and written by no other
module, determinisation on the State (State.resample: the bots', the text view's and the
OpenSpiel adapter's resample_from_infostate), frames with named fields that save as the
lists before them did."""

from __future__ import annotations

import ast
import json
import random

import pytest

from tabula_rules import load_game
from tabula_rules.runtime.engine import State
from tabula_rules.runtime.frames import Frame

from conftest import ROOT

PACKAGE = ROOT / "interpreter"
KUHN = ROOT / "examples" / "kuhn_poker"

# what only the engine (runtime/) and the code it runs (the compiled instructions of
# compiler/steps.py and compiler/decisions.py) may touch of a State
PRIVATE = {"_apply", "_run", "_computed", "_pause", "_weigh", "_record", "_bound", "_failed",
           "_stack", "_seen", "_scores", "_rng", "_rng_shared", "_joint_json", "_hidden"}
COMPILED = {"_stack", "_pause", "_weigh"}


def _private_uses(path) -> list:
    """(line, name) of every `x._name` of PRIVATE in a module, x not self or cls."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.lineno, n.attr) for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr in PRIVATE
            and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))]


def test_no_module_outside_the_engine_touches_the_states_internals():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("runtime/"):
            continue
        allowed = COMPILED if rel in ("compiler/steps.py", "compiler/decisions.py") else set()
        uses = [u for u in _private_uses(path) if u[1] not in allowed]
        if uses:
            found[rel] = uses
    assert found == {}


def test_the_run_loop_and_what_compiled_rules_call_are_private():
    for name in ("run", "computed", "pause", "weigh", "finish", "stack", "seen"):
        assert not hasattr(State, name), name
    for name in ("resample", "hidden_slots", "relist", "changed", "apply_unchecked",
                 "who_sees"):
        assert callable(getattr(State, name)), name


# ---- frames ------------------------------------------------------------------------------

def test_frames_have_named_fields_and_copies_go_their_own_way():
    st = load_game(ROOT / "specs" / "medang", players=3).new_state(seed=4)
    frames = st._stack
    assert frames and all(type(f) is Frame for f in frames)
    fr = frames[-1]
    assert fr.ins is fr.block.ins and 0 <= fr.pc <= len(fr.ins)
    assert set(Frame.__slots__) == {"ins", "pc", "L", "loop", "data", "at", "block"}
    copy = st.clone()
    assert all(a is not b and a.L == b.L and a.pc == b.pc for a, b in zip(frames, copy._stack))
    copy.apply(copy.legal_actions()[0])
    assert st._stack[-1].pc == fr.pc                # the copy's run left ours alone


@pytest.mark.parametrize("name, players", [("medang", 3), ("goofspiel", 2), ("tiny", 2),
                                           ("kuhn_poker", 2)])
def test_a_saved_state_keeps_its_frames_as_lists_did(name, players):
    """The JSON of a state names each frame's block, pc, locals, loop and the loop's two
    values ("a", "b"), as when frames were seven-item lists; from_json gives the state
    back, frames and all, and it plays on as the original does."""
    game = load_game(name, players=players, recall=True)
    st, rng = game.new_state(seed=2), random.Random(2)
    for _ in range(12):
        if st.terminal:
            break
        st.apply(rng.choice(st.legal_actions()))
    d = st.to_json()
    assert all(set(f) == {"block", "pc", "locals", "loop", "a", "b"} for f in d["frames"])
    back = State.from_json(game, json.loads(json.dumps(d)))
    assert back.to_json_text() == st.to_json_text()
    while not st.terminal:
        a = rng.choice(st.legal_actions())
        st.apply(a)
        back.apply(a)
        assert back.to_json_text() == st.to_json_text()


# ---- determinisation: State.resample -----------------------------------------------------

def test_resample_keeps_what_the_seat_sees_and_redeals_the_rest():
    game = load_game(ROOT / "specs" / "medang", players=3, recall=True)
    st, rng = game.new_state(seed=1), random.Random(1)
    for _ in range(20):
        st.apply(rng.choice(st.legal_actions()))
    me = st.current_player()
    hidden = st.hidden_slots(me)
    assert hidden == game.hidden_slots(me) and hidden is game.hidden_slots(me)   # kept
    others = set()
    for i in range(20):
        world = st.resample(me, random.Random(i))
        assert world.observation(me) == st.observation(me)
        assert world.information_state(me) == st.information_state(me)
        assert world.legal_action_strings() == st.legal_action_strings()
        others.add(json.dumps(world.zones_view(None), sort_keys=True))
        while not world.terminal:                   # and it plays to the end
            world.apply(rng.choice(world.legal_actions()))
    assert len(others) > 1                          # what it cannot see is redealt


def test_changed_forgets_derived_facts_and_scores():
    st = load_game(ROOT / "specs" / "medang", players=2).new_state(seed=3)
    before = st.scores()
    st._scores = [99, 99]                           # (a stale value, as if kept)
    st.facts[("stale",)] = 1
    st.changed()
    assert st.facts == {} and st.scores() == before


# ---- the OpenSpiel adapter: resample_from_infostate -----------------------------------------

def _spiel():
    return pytest.importorskip("pyspiel")



@pytest.mark.parametrize("draw", [float("nan"), 2.0, 1.0, -0.5, float("inf"), "x", None])
def test_a_sampler_that_gives_no_probability_is_a_clear_error(draw):
    """A probability sampler must give a number from 0 to 1 (below 1); anything else
    (NaN, which the fuzz suite's adapter scripts found gave a bare ValueError, 2.0, a
    text) is a TabulaError that says what it gave."""
    _spiel()
    from tabula_rules.adapters.openspiel import load
    from tabula_rules.errors import TabulaError
    st = load(KUHN, 2).new_initial_state()
    with pytest.raises(TabulaError, match="the probability sampler gave"):
        st.resample_from_infostate(0, lambda: draw)
    st.resample_from_infostate(0, lambda: 0.999)       # the edges of [0, 1) are draws
    st.resample_from_infostate(0, lambda: 0)

@pytest.mark.parametrize("spec, players", [(KUHN, 2), (ROOT / "examples" / "leduc_poker", 2),
                                           (ROOT / "examples" / "liars_dice", 2),
                                           (ROOT / "specs" / "medang", 3)])
def test_resample_from_infostate_keeps_the_seats_view_and_plays_on(spec, players):
    """OpenSpiel's signature: resample_from_infostate(player_id, probability_sampler),
    the sampler a callable giving a float in [0, 1) (pyspiel.UniformProbabilitySampler).
    The sample's information state and observation for that player are the state's, its
    legal actions too when the player acts, and it plays to the end."""
    pyspiel = _spiel()
    from tabula_rules.adapters.openspiel import load
    game = load(spec, players)
    rng = random.Random(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    for _game in range(4):
        st = game.new_initial_state()
        while not st.is_terminal():
            if not st.is_chance_node():
                me = st.current_player()
                worlds = [st.resample_from_infostate(me, sampler) for _ in range(3)]
                for w in worlds:
                    assert w.information_state_string(me) == st.information_state_string(me)
                    assert w.observation_string(me) == st.observation_string(me)
                    assert w.current_player() == me
                    assert w.legal_actions() == st.legal_actions()
                checked += 1
                w = worlds[0]
                while not w.is_terminal():
                    if w.is_chance_node():
                        w.apply_action(rng.choice([a for a, _ in w.chance_outcomes()]))
                    else:
                        w.apply_action(rng.choice(w.legal_actions()))
                assert len(w.returns()) == players
            if st.is_chance_node():
                st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
            else:
                st.apply_action(rng.choice(st.legal_actions()))
            if checked > 30:
                break
    assert checked


def test_resample_from_infostate_redeals_what_the_seat_cannot_see():
    pyspiel = _spiel()
    from tabula_rules.adapters.openspiel import load
    st = load(KUHN).new_initial_state()
    st.apply_action(0)                          # J to player 0
    st.apply_action(2)                          # K to player 1
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen = {json.loads(st.resample_from_infostate(0, sampler).observation_string(1))
            ["zones"]["hand"]["1"][0] for _ in range(40)}
    assert seen == {"Q", "K"}                   # player 1 holds what player 0 does not
    assert {json.loads(st.resample_from_infostate(1, sampler).observation_string(0))
            ["zones"]["hand"]["0"][0] for _ in range(40)} == {"J", "Q"}
    with pytest.raises(Exception, match="no player 5"):
        st.resample_from_infostate(5, sampler)


def test_openspiels_ismcts_bot_plays_kuhn_poker_through_resample():
    """OpenSpiel's own IS-MCTS (open_spiel.python.algorithms.ismcts) resamples with
    resample_from_infostate at every simulation."""
    pyspiel = _spiel()
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    from tabula_rules.adapters.openspiel import load
    game = load(KUHN)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 40, random_state=np.random.RandomState(2))
    rng = random.Random(5)
    for _ in range(6):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
            elif st.current_player() == 0:
                a = bot.step(st)
                assert a in st.legal_actions()
                st.apply_action(a)
            else:
                st.apply_action(rng.choice(st.legal_actions()))
        assert sum(st.returns()) == 0
    assert isinstance(pyspiel.UniformProbabilitySampler(0.0, 1.0)(), float)
