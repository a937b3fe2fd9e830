"""Hostile saved states and adapter misuse (issue 23, classes 1, 2 and 10).

Class 1: an OpenSpiel state serializes as Tabula's JSON only; `game.deserialize_state`
and `pyspiel.deserialize_game_and_state` never unpickle (OpenSpiel's own form for Python
games pickles the state's __dict__, and unpickling an edited one runs its code).
Class 2: `State.from_json` checks every saved state before use (runtime/saved.py):
invariants and types always, the state after its decision is listed again, and with the
seed a replay of its history; an impossible state is a TabulaError naming what is wrong,
never an IndexError, AttributeError, KeyError or TypeError.
Class 10: the PettingZoo and OpenSpiel adapters' misuse is a clear error.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import pickle
import random
import time

import numpy as np
import pytest

from tabula_rules import TabulaError, load_game
from tabula_rules.runtime import model, saved
from tabula_rules.runtime.engine import State

from conftest import ROOT

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

import tabula_rules.openspiel as tos  # noqa: E402
from tabula_rules.adapters.pettingzoo import NotReset  # noqa: E402
from tabula_rules.pettingzoo import env  # noqa: E402

TINY = ROOT / "examples" / "tiny"
KUHN = ROOT / "examples" / "kuhn_poker"
SHIPPED = [("tiny", TINY, 2), ("kuhn_poker", KUHN, 2),
           ("liars_dice", ROOT / "examples" / "liars_dice", 2),
           ("goofspiel", ROOT / "examples" / "goofspiel", 2),
           ("medina", ROOT / "specs" / "medina", 2)]


def played(game, seed: int, decisions: int) -> State:
    """A state of `game` after up to `decisions` random decisions from seed `seed`."""
    st, rng = game.new_state(seed=seed), random.Random(seed)
    for _ in range(decisions):
        if st.terminal:
            break
        st.apply(rng.choice(st.legal_actions()))
    return st


def saved_json(st: State) -> dict:
    return json.loads(st.to_json_text())


def refused(game, d, match: str, seed: int | None = None) -> TabulaError:
    """from_json refuses `d` with a TabulaError (nothing else) whose text has `match`."""
    with pytest.raises(TabulaError) as info:
        State.from_json(game, d, seed=seed)
    assert match in str(info.value), str(info.value)
    return info.value


# ---- class 2: real states load back, quickly ------------------------------------------------

@pytest.mark.parametrize("name, path, players", SHIPPED, ids=[s[0] for s in SHIPPED])
def test_real_states_round_trip_at_random_points(name, path, players):
    """from_json(json.loads(to_json_text())) of states at random points of random games
    gives the state back, checked (with and without the seed's replay), and it plays on
    as the original does."""
    game = load_game(path, players=players, recall=True)
    for seed in range(2):
        st, rng = game.new_state(seed=seed), random.Random(seed)
        stops = set(random.Random(seed + 100).sample(range(60), 6))
        k = 0
        while not st.terminal:
            if k in stops:
                text = st.to_json_text()
                for back in (State.from_json(game, json.loads(text)),
                             State.from_json(game, json.loads(text), seed=seed)):
                    assert back.to_json_text() == text
                    twin, mirror = back, st.clone()
                    trail = random.Random(k)
                    for _ in range(5):
                        if mirror.terminal:
                            break
                        a = trail.choice(mirror.legal_actions())
                        mirror.apply(a)
                        twin.apply(a)
                    assert twin.to_json_text() == mirror.to_json_text()
            st.apply(rng.choice(st.legal_actions()))
            k += 1
        text = st.to_json_text()                  # and the end
        assert State.from_json(game, json.loads(text), seed=seed).to_json_text() == text


def test_loading_stays_fast_for_a_long_game():
    """A whole game of Medina (about 200 decisions): the checks cost about what to_json
    costs, the replay about what playing the history costs (measured in
    docs/ecosystem.md); bounds in CPU time, which a loaded machine does not stretch."""
    game = load_game(ROOT / "specs" / "medina", players=2, recall=True)
    st = played(game, 3, 10_000)
    assert st.terminal and len(st.history) > 150
    d = saved_json(st)
    start = time.process_time()
    for _ in range(10):
        State.from_json(game, d)
    checked = (time.process_time() - start) / 10
    start = time.process_time()
    State.from_json(game, d, seed=3)
    replayed = time.process_time() - start
    assert checked < 0.1 and replayed < 1.0, (checked, replayed)


def test_the_checks_use_the_models_constants():
    assert (saved.CHANCE, saved.SKIP, saved.DONE) == (model.CHANCE, model.SKIP, model.DONE)


# ---- class 2: tampered states are refused -------------------------------------------------------

def _two_zones(d):
    piece = next(p for s in d["slots"] for p in s)
    next(s for s in d["slots"] if piece not in s).append(piece)


def _vanished(d):
    next(s for s in d["slots"] if s).pop()


def _dropped_below(d):
    d["frames"] = d["frames"][1:]
    d["pending_frame"] = len(d["frames"]) - 1


def _dropped_top(d):
    d["frames"] = d["frames"][:-1]


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


def _frame(key, value, which=-1):
    return lambda d: d["frames"][which].__setitem__(key, value)


def _rng_word(i, value):
    return lambda d: d["rng"][1].__setitem__(i, value)


TAMPERED = [
    # (name, edit, words of the error)
    ("piece in two zones", _two_zones, "is in two places"),
    ("pieces vanished", _vanished, "is nowhere"),
    ("current player -1", _set("current", -1), "its current player is -1"),
    ("current player 7", _set("current", 7), "its current player is 7"),
    ("current player a text", _set("current", "1"), "not a whole number"),
    ("current player a bool", _set("current", True), "not a whole number"),
    ("turn a float", _set("turn", 1.0), "its turn is 1.0, not a whole number"),
    ("turn -3", _set("turn", -3), "its turn is -3, below 0"),
    ("steps -3", _set("steps", -3), "its count of steps is -3"),
    ("steps past the limit", _set("steps", 10 ** 9), "its count of steps"),
    ("to_act -3", _set("to_act", -3), "its player to act first is -3"),
    ("pc 10^6", _frame("pc", 10 ** 6), "the program counter of frame"),
    ("pc -3", _frame("pc", -3), "the program counter of frame"),
    ("locals -3", _frame("locals", -3), "the locals of frame"),
    ("block -3", _frame("block", -3), "the block of frame"),
    ("loop 10^6", _frame("loop", 10 ** 6), "the loop of frame"),
    ("frame a list", lambda d: d["frames"].__setitem__(0, [1, 2]), "not an object"),
    ("frame field missing", lambda d: d["frames"][0].pop("pc"), "has the fields"),
    ("frames dropped below", _dropped_below, "its first frame is not the game's"),
    ("frame dropped on top", _dropped_top, "its pending decision's frame"),
    ("frames gone", _set("frames", []), "its frames are gone"),
    ("pending frame -3", _set("pending_frame", -3), "its pending decision's frame is -3"),
    ("no pending frame", _set("pending_frame", None), "no decision is pending"),
    ("terminal forced", _set("terminal", True), "it is over (terminal), yet"),
    ("terminal a text", _set("terminal", "yes"), "not true or false"),
    ("generator all zero", lambda d: d["rng"].__setitem__(1, [0] * 624 + [624]),
     "all zero"),
    ("generator word too big", _rng_word(5, 2 ** 32), "word 5 of its generator"),
    ("generator index 625", _rng_word(624, 625), "its generator's index"),
    ("generator word a text", _rng_word(3, "x"), "word 3 of its generator"),
    ("generator short", lambda d: d["rng"].__setitem__(1, [1, 2, 3]), "generator's words"),
    ("generator version", lambda d: d["rng"].__setitem__(0, 2), "version 2"),
    ("generator gaussian", lambda d: d["rng"].__setitem__(2, "x"), "kept gaussian"),
    ("history decision 99", _set("history", [[99, 0]]), "the decision of decision 1"),
    ("history option 99", lambda d: d["history"][0].__setitem__(1, 99), "the option of"),
    ("history values", lambda d: d["history"][0].append(5), "binds"),
    ("history a text", _set("history", "abc"), "its history is 'abc', not a list"),
    ("history entry a number", _set("history", [7]), "decision 1 of its history is 7"),
    ("globals short", _set("globals", []), "its list of global variables has 0"),
    ("player variables short", _set("player_vars", [[0, 0]]), "per-player variables"),
    ("slots short", lambda d: d["slots"].pop(), "its list of zones' slots"),
    ("a piece 10^6", lambda d: d["slots"][0].append(10 ** 6), "outside 0 to"),
    ("a piece a text", lambda d: d["slots"][0].append("a"), "not a whole number"),
    ("other options", _set("options", {"deck": "short"}), "saved with the options"),
    ("an unknown field", _set("evil", 1), "a field no saved state has"),
    ("a field missing", lambda d: d.pop("rng"), "its field 'rng' is missing"),
    ("fired forged", _set("fired", {"x": -3}), "the count of id 'x' reached is -3"),
    ("seen forged", _set("seen", [[5, "r", "t", None]]), "the player of entry 1"),
    ("chosen forged", _set("chosen", [[0, 0, 1]]), "simultaneous decision that is not pending"),
]


@pytest.mark.parametrize("name, edit, words", TAMPERED, ids=[t[0] for t in TAMPERED])
def test_a_tampered_saved_state_is_refused(name, edit, words):
    """Each edit of a real state's JSON (made without code) is a TabulaError naming
    what is wrong; before the checks most loaded and played to the end, and a counter
    of -3 escaped as an IndexError."""
    game = load_game(TINY, players=2)
    d = saved_json(played(game, 3, 5))
    assert State.from_json(game, copy.deepcopy(d)).to_json_text() == json.dumps(
        d, sort_keys=True, separators=(",", ":"))
    edit(d)
    refused(game, d, words)


def test_a_frame_that_does_not_stop_at_its_decision_is_refused():
    """The pending decision's frame pointed at another instruction of its block: the
    instructions run when the decision is listed again, and the state is no longer the
    one saved."""
    game = load_game(TINY, players=2)
    d = saved_json(played(game, 3, 4))
    top = d["frames"][-1]
    assert top["pc"] > 0
    top["pc"] = 0
    refused(game, d, "its frames do not stop at the decision it waits on")


@pytest.mark.parametrize("data, words", [
    ([], "a JSON object of its fields, not a list"),
    ("text", "not 'text'"),
    (None, "not null"),
    (7, "not 7"),
    ({}, "another spec, player count or format"),
    ({"format": 2, "spec": "tiny", "players": True}, "another spec"),
    ({"format": 1, "spec": "tiny", "players": 2}, "saved in format 1, by an older"),
])
def test_saved_data_that_is_no_state_at_all_is_refused(data, words):
    """JSON text `[]` was an AttributeError; any JSON value that is not a state's
    object is a TabulaError."""
    refused(load_game(TINY, players=2), data, words)


def test_a_slot_over_its_capacity_is_refused():
    game = load_game(ROOT / "examples" / "tic_tac_toe")
    d = saved_json(played(game, 1, 2))
    board = game.prog.zones["board"].base
    taken = next(s for s in range(board, board + 9) if d["slots"][s])
    supply = game.prog.zones["supply"].base
    d["slots"][taken].append(d["slots"][supply].pop())
    refused(game, d, "more than its capacity of 1")


def test_a_piece_may_not_change_an_attribute_its_component_keeps():
    game = load_game(ROOT / "examples" / "hamlet")
    prog = game.prog
    fixed = prog.changeable_by["turn"].index(False)
    d = saved_json(played(game, 1, 3))
    d["attributes"]["turn"][fixed] = 12345
    refused(game, d, f"piece {fixed} ({prog.piece_names[fixed]}) has turn 12345, which "
            "it may not change")
    del d["attributes"]
    refused(game, d, "changeable attributes are missing")


def test_a_simultaneous_state_mid_move_is_checked():
    """Goofspiel after one player's bid: it loads (with its replay), and a forged choice
    or a choice of a decision that is not pending is refused."""
    game = load_game(ROOT / "examples" / "goofspiel", recall=True)
    st = game.new_state(seed=4)
    while not st.is_simultaneous_node():
        st.apply(st.legal_actions()[0])
    st.apply(st.legal_actions()[0])
    d = saved_json(st)
    assert d["chosen"]
    assert State.from_json(game, d, seed=4).to_json_text() == st.to_json_text()
    bad = copy.deepcopy(d)
    bad["chosen"] = [bad["chosen"][0] + [1]]
    refused(game, bad, "not a legal choice")
    bad = copy.deepcopy(d)
    bad["chosen_seen"] = [[0, "bid", "x", [9]]]
    refused(game, bad, "a player who saw entry 1")


# ---- class 2: only the replay sees these ---------------------------------------------------------

def _moved_in_hand(d, game):
    """A piece of the deck moved to an empty slot of the market: every invariant
    holds, no play gives it."""
    prog = game.prog
    deck = prog.zones["deck"].base
    market = next(s for s in range(prog.nslots) if not d["slots"][s]
                  and prog.zone_list[prog.slot_zone[s]].name != "deck")
    d["slots"][market].append(d["slots"][deck].pop())


REPLAYED = [
    ("piece moved by hand", _moved_in_hand, "its slots differ"),
    ("another generator", lambda d, g: d.__setitem__(
        "rng", [3, list(random.Random(99).getstate()[1]), None]), "its rng differ"),
    ("history edited", lambda d, g: d["history"][1].__setitem__(2, d["history"][0][2]),
     "is not legal there"),
    ("history cut", lambda d, g: d["history"].pop(), "differ from the state its history"),
    ("a lower frame's pc", lambda d, g: d["frames"][0].__setitem__("pc", 0),
     "its frames differ"),
    ("a variable edited", lambda d, g: d["globals"].__setitem__(0, 5), "its globals differ"),
]


@pytest.mark.parametrize("name, edit, words", REPLAYED, ids=[t[0] for t in REPLAYED])
def test_with_the_seed_only_a_state_the_game_reaches_loads(name, edit, words):
    """Edits every invariant allows: the state loads without the seed (the checks
    cannot know), and is refused with it (its history replayed from the seed)."""
    game = load_game(TINY, players=2)
    st = played(game, 3, 5)
    d = saved_json(st)
    edit(d, game)
    State.from_json(game, copy.deepcopy(d))
    refused(game, d, words, seed=3)
    refused(game, saved_json(st), saved.UNREACHABLE, seed=4)     # another seed


def test_a_forced_end_with_its_frames_emptied_is_refused_with_the_seed():
    game = load_game(TINY, players=2)
    d = saved_json(played(game, 3, 5))
    d.update(terminal=True, frames=[], locals=[], pending_frame=None)
    State.from_json(game, copy.deepcopy(d))
    refused(game, d, "its frames, locals, pending_frame, terminal differ", seed=3)


def test_a_frame_dropped_from_the_middle_is_refused_with_the_seed():
    game = load_game(TINY, players=2)
    d = saved_json(played(game, 3, 5))
    assert len(d["frames"]) >= 3
    del d["frames"][1]
    d["pending_frame"] -= 1
    refused(game, d, "differ", seed=3)


def test_random_edits_are_refused_or_loaded_never_a_python_error():
    """Two thousand random edits of real states' JSON (a field dropped, a value
    replaced by another of any JSON type, a list shortened): each loads or is a
    TabulaError, and what loads plays on or stops with a TabulaError."""
    game = load_game(TINY, players=2)
    junk = [None, True, -3, 10 ** 6, 1.5, float("nan"), "x", "1/0", [], {}, [[]], [-1]]
    rng = random.Random(23)
    bases = [saved_json(played(game, s, n)) for s in range(3) for n in (0, 4, 9, 40)]
    outcomes = {"loaded": 0, "refused": 0}
    for _ in range(2000):
        d = copy.deepcopy(rng.choice(bases))
        holder, key = rng.choice(_spots(d))
        move = rng.random()
        if move < 0.15 and isinstance(holder, dict):
            del holder[key]
        elif move < 0.3 and isinstance(holder[key], list) and holder[key]:
            holder[key].pop(rng.randrange(len(holder[key])))
        else:
            holder[key] = rng.choice(junk)
        try:
            st = State.from_json(game, d)
        except TabulaError:
            outcomes["refused"] += 1
            continue
        outcomes["loaded"] += 1
        try:
            for _ in range(50):
                if st.terminal:
                    break
                st.apply(st.legal_actions()[0])
        except TabulaError:
            pass
    assert outcomes["refused"] > 1000 and outcomes["loaded"] > 0, outcomes


def _spots(x, depth: int = 0) -> list:
    """(container, key) of every value of JSON data down to depth 3."""
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    out = []
    for k, v in items:
        out.append((x, k))
        if depth < 3:
            out += _spots(v, depth + 1)
    return out


# ---- class 1: OpenSpiel serializes as checked JSON, never unpickles ------------------------

class _Payload:
    """What an edited `__dict__=` line can hold: unpickling it calls open(path, "w")."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _pickled_form(path) -> str:
    """OpenSpiel's serialization of a Python state, its __dict__ an edited pickle."""
    raw = pickle.dumps({"_box": _Payload(path)})
    return ("history=-1:0\nmove_number=1\n__dict__="
            + base64.b64encode(raw).decode("ascii"))


def test_deserialize_state_of_a_pickle_payload_runs_nothing(tmp_path):
    target = tmp_path / "created"
    pickle.loads(pickle.dumps(_Payload(target))).close()   # the payload is live
    assert target.exists()
    target.unlink()
    game = tos.load(KUHN)
    text = _pickled_form(target)
    with pytest.raises(TabulaError, match="never read"):
        game.deserialize_state(text)
    whole = pyspiel.serialize_game_and_state(game, game.new_initial_state())
    forged = whole[:whole.index("[State]\n") + len("[State]\n")] + text + "\n"
    with pytest.raises(TabulaError, match="never read"):
        pyspiel.deserialize_game_and_state(forged)
    with pytest.raises(TabulaError, match="never read"):
        tos.deserialize_game_and_state(forged)
    assert not target.exists()


def test_serialize_is_the_tabula_json_and_round_trips():
    game = tos.load(KUHN)
    st = game.new_initial_state()
    for a in (0, 2, 1):
        st.apply_action(a)
    text = st.serialize()
    assert json.loads(text) == st.tabula.to_json() and "__dict__" not in text
    back = game.deserialize_state(text)
    assert back.history() == st.history() == [0, 2, 1]
    assert str(back) == str(st) and back.legal_actions() == st.legal_actions()
    whole = pyspiel.serialize_game_and_state(game, st)
    assert whole.split("[State]\n")[1] == text + "\n"
    game2, again = pyspiel.deserialize_game_and_state(whole)
    assert isinstance(game2, tos.TabulaGame) and again.history() == [0, 2, 1]
    for s in (st, back, again):
        s.apply_action(1)
        assert s.is_terminal() and s.returns() == [-2.0, 2.0]
    # pickle (OpenSpiel's C++ path: the box pickles as the JSON text) still round trips
    assert pickle.loads(pickle.dumps(st)).history() == st.history()


def test_a_simultaneous_game_round_trips_through_deserialize():
    game = tos.load(ROOT / "examples" / "goofspiel")
    st, rng = game.new_initial_state(), random.Random(2)
    for _ in range(6):
        if st.is_chance_node():
            st.apply_action(st.chance_outcomes()[0][0])
        else:
            st.apply_actions([rng.choice(st.legal_actions(p)) for p in range(2)])
    text = st.serialize()
    assert json.loads(text) == st.tabula.to_json()
    back = game.deserialize_state(text)
    assert back.history() == st.history() and str(back) == str(st)


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["slots"][-1].append(d["slots"][0].pop()), "differ from the state"),
    (lambda d: d.__setitem__("current", -1), "its current player is -1"),
    (lambda d: d["history"].pop(), "differ from the state"),
])
def test_deserialize_state_refuses_an_edited_json(edit, words):
    # the deal by the seed (with chance shuffles its first moves are draws: the edits of
    # a state saved with its OpenSpiel moves are tests/test_openspiel_chance.py's)
    game = tos.load(TINY, chance_shuffles=False)
    st = game.new_initial_state()
    for _ in range(4):
        st.apply_action(st.legal_actions()[0])
    d = json.loads(st.serialize())
    edit(d)
    with pytest.raises(TabulaError, match=words):
        game.deserialize_state(json.dumps(d))


@pytest.mark.parametrize("text, words", [
    ("", "not a saved tabula state"), ("[]", "a JSON object"), ("{", "not a saved"),
    ("1" * 5000, "not a saved"), ("[" * 100_000, "not a saved"),
])
def test_deserialize_state_of_no_json_state_is_a_clear_error(text, words):
    with pytest.raises(TabulaError, match=words):
        tos.load(TINY).deserialize_state(text)


def test_a_wrapped_state_does_not_serialize():
    """wrap() and resample_from_infostate give states whose history is not a game from
    the game's seed: deserialize_state could not replay them, so serialize() refuses."""
    game = tos.load(KUHN)
    st = game.new_initial_state()
    st.apply_action(0)
    st.apply_action(2)
    sampled = st.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    for s in (sampled, tos.wrap(game, st.tabula.clone())):
        with pytest.raises(TabulaError, match="cannot be serialized"):
            s.serialize()


# ---- class 10: adapter errors ---------------------------------------------------------------

@pytest.mark.parametrize("settings, words", [
    ({"players": 2 ** 40}, "beyond OpenSpiel's integer parameters"),
    ({"seed": 2 ** 31}, "beyond OpenSpiel's integer parameters"),
    ({"int_span": -2 ** 40}, "beyond OpenSpiel's integer parameters"),
    ({"players": 2.5}, "players is a whole number"),
    ({"seed": "1"}, "seed is a whole number"),
    ({"max_utility": math.nan, "returns": "scores"}, "max_utility is a finite number"),
    ({"min_utility": -math.inf, "returns": "scores"}, "min_utility is a finite number"),
    ({"returns": 3}, "returns is a text"),
    ({"bogus": 1}, "no parameter 'bogus'"),
    ({"seed": -1}, "a game's seed is a whole number, 0 or more"),
    ({"options": "deck:short;deck:full"}, "'deck' is given twice"),
])
def test_openspiel_load_refuses_bad_settings(settings, words):
    with pytest.raises(TabulaError, match=words):
        tos.load(TINY, **settings)


@pytest.mark.parametrize("params, words", [
    ({"max_utility": math.nan, "returns": "scores"}, "max_utility is nan"),
    ({"max_utility": math.inf, "returns": "scores"}, "max_utility is inf"),
    ({"seed": -5}, "seed -5"),
    ({"options": "deck:short;deck:full"}, "given twice"),
])
def test_pyspiel_load_game_refuses_bad_parameters_at_load(params, words):
    """Through pyspiel.load_game itself: refused when the game loads, not at the end of
    a game (max_utility=nan) nor silently (an option given twice)."""
    with pytest.raises(TabulaError, match=words):
        pyspiel.load_game("tabula", {"spec": str(TINY), **params})


def test_an_option_given_twice_in_a_game_string_is_refused():
    with pytest.raises(Exception, match="given twice"):
        pyspiel.load_game(f"tabula(spec={TINY},options=deck:short;deck:full)")
    with pytest.raises(TabulaError, match="given twice"):
        env(TINY, options="deck=short;deck=full")


@pytest.fixture
def kuhn_env():
    return env(KUHN)


@pytest.mark.parametrize("call, what", [
    (lambda e: e.step(0), "step()"), (lambda e: e.observe("player_0"), "observe()"),
    (lambda e: e.last(), "last()"), (lambda e: list(e.agent_iter()), "agent_iter()"),
    (lambda e: e.legal_action_strings("player_0"), "legal_action_strings()"),
])
def test_pettingzoo_before_reset_is_pettingzoos_error(kuhn_env, call, what):
    """PettingZoo's order-enforcing wrapper raises AssertionError("reset() needs to be
    called before step."); the environment raises that (as a TabulaError too), not an
    AttributeError."""
    with pytest.raises(NotReset, match=f"reset\\(\\) needs to be called before {what[:-2]}"):
        call(kuhn_env)
    with pytest.raises(AssertionError):
        call(kuhn_env)
    with pytest.raises(TabulaError):
        call(kuhn_env)


@pytest.mark.parametrize("agent", ["player_99", "player_-1", 0, None])
def test_pettingzoo_names_an_unknown_agent(kuhn_env, agent):
    kuhn_env.reset(seed=1)
    for call in (kuhn_env.observe, kuhn_env.observation_space, kuhn_env.action_space,
                 kuhn_env.legal_action_strings):
        with pytest.raises(TabulaError, match="there is no agent .* in this game"):
            call(agent)


@pytest.mark.parametrize("seed", ["abc", -1, 1.5, True, [1]])
def test_pettingzoo_refuses_a_seed_that_is_no_seed(kuhn_env, seed):
    with pytest.raises(TabulaError, match="a seed is a whole number, 0 or more"):
        kuhn_env.reset(seed=seed)
    kuhn_env.reset(seed=np.int64(3))            # a numpy integer is a whole number
    assert kuhn_env.tabula is not None


def test_pettingzoo_after_the_end(kuhn_env):
    """The game over: a terminated agent steps with None (PettingZoo's convention; any
    other action is PettingZoo's own ValueError), and once every agent has left, a
    step or last() is a clear error asking for reset(), not KeyError 'player_0'."""
    kuhn_env.reset(seed=1)
    for _agent in kuhn_env.agent_iter():
        obs, _, term, trunc, _ = kuhn_env.last()
        if term or trunc:
            with pytest.raises(ValueError, match="only valid action is None"):
                kuhn_env.step(0)
            kuhn_env.step(None)
            continue
        kuhn_env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert kuhn_env.agents == []
    for call in (lambda: kuhn_env.step(None), lambda: kuhn_env.step(0), kuhn_env.last):
        with pytest.raises(TabulaError, match="every agent has left it .* call reset"):
            call()
    kuhn_env.reset(seed=2)
    assert kuhn_env.agents == ["player_0", "player_1"]


def test_an_option_given_twice_on_the_command_line_is_refused(capsys):
    """`--option deck=short --option deck=full` kept the last silently, as the game
    string's `deck:short;deck:full` did: a usage error now, exit 1, nothing played."""
    from tabula_rules.tools.cli import main
    assert main(["run", str(TINY), "--option", "deck=short", "--option", "deck=full"]) == 1
    captured = capsys.readouterr()
    assert "--option 'deck' is given twice" in captured.err and captured.out == ""
    assert "Traceback" not in captured.err


def test_a_table_nested_past_the_recursion_limit_is_refused():
    """A saved local of 200 tables each holding the next (a JSON text about 600 levels
    deep, which json.loads reads): a TabulaError, never a RecursionError, whether loaded
    by State.from_json or through OpenSpiel's deserialize_state."""
    game = load_game(ROOT / "examples" / "kuhn_poker", 2)
    d = game.new_state(seed=1).to_json()
    deep: object = [1]
    for _ in range(200):
        deep = {"#table": [[1, deep]]}
    d["locals"] = [[deep, *d["locals"][0][1:]], *d["locals"][1:]]
    text = json.dumps(d)
    with pytest.raises(TabulaError, match="nests too deeply"):
        State.from_json(game, json.loads(text))
