"""OpenSpiel, complete (interpreter/adapters/openspiel.py): shuffles as chance nodes
(chance_shuffles), the information-state tensor, undo_action, resample_from_infostate
with chance shuffles, and OpenSpiel's IS-MCTS, CFR and exploitability on Tabula games.
A few seconds in all; TABULA_LONG_OPENSPIEL=1 plays longer runs (docs/ecosystem.md)."""

import json
import os
import pickle
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from tabula_rules import TabulaError  # noqa: E402
from tabula_rules.adapters.openspiel import load  # noqa: E402

from conftest import ROOT  # noqa: E402
from openspiel_util import walk_adapted  # noqa: E402

KUHN = ROOT / "examples" / "kuhn_poker"
TINY = ROOT / "examples" / "tiny"
LONG = bool(os.environ.get("TABULA_LONG_OPENSPIEL"))

# Kuhn poker dealt as a card game deals: the deck shuffled, then the top card to each
# player in turn. With chance_shuffles its chance nodes are OpenSpiel's kuhn_poker's:
# the top card (player 0's) among three, then the next among two; the last is no chance
SHUFFLED_KUHN = f"""
extends: {KUHN / 'kuhn_poker.yaml'}
game: {{id: kuhn_shuffled, name: Kuhn poker from a shuffled deck}}
override:
  steps:
    setup.deal:
      source: a test "shuffle the deck and deal one card to each player"
      do:
        - shuffle deck
        - for: p in players
          do:
            - move top(deck) to p.hand
"""


@pytest.fixture(scope="module")
def shuffled_kuhn(tmp_path_factory):
    path = tmp_path_factory.mktemp("kuhn") / "kuhn_shuffled.yaml"
    path.write_text(SHUFFLED_KUHN)
    return path


def _play_randomly(st, rng, limit=100_000):
    n = 0
    while not st.is_terminal() and n < limit:
        if st.is_chance_node():
            actions, probs = zip(*st.chance_outcomes())
            st.apply_action(rng.choices(actions, probs)[0])
        elif st.is_simultaneous_node():
            st.apply_actions([rng.choice(st.legal_actions(p))
                              for p in range(st.get_game().num_players())])
        else:
            st.apply_action(rng.choice(st.legal_actions()))
        n += 1
    return st


# -- shuffles as chance nodes ----------------------------------------------------------------
def test_a_shuffle_is_chance_nodes_one_piece_at_a_time(shuffled_kuhn):
    """The shuffled Kuhn deck: three cards on top, each 1/3, then two, each 1/2, then
    player 0 holds the first card drawn and player 1 the second; with
    chance_shuffles=false the deal is the seed's and the first node is player 0's."""
    game = load(shuffled_kuhn)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.max_chance_outcomes() == 3
    st = game.new_initial_state()
    assert st.is_chance_node() and st.current_player() == pyspiel.PlayerId.CHANCE
    assert [a for a, _ in st.chance_outcomes()] == [0, 1, 2]
    assert [p for _, p in st.chance_outcomes()] == pytest.approx([1 / 3] * 3)
    assert st.action_to_string(pyspiel.PlayerId.CHANCE, 2) == "shuffle into deck: K"
    st.apply_action(2)
    assert st.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    st.apply_action(0)
    assert st.current_player() == 0 and st.history() == [2, 0]
    hands = json.loads(str(st))["zones"]["hand"]
    assert hands == {"0": ["K"], "1": ["J"]}
    seeded = load(shuffled_kuhn, chance_shuffles=False)
    assert seeded.new_initial_state().current_player() == 0
    assert seeded.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC


def test_the_shuffled_deal_walks_in_lockstep_with_pyspiel(shuffled_kuhn):
    """Every history of Kuhn poker dealt from a shuffled deck and of pyspiel's
    kuhn_poker at once: the same players, chance outcomes (the card numbers) and their
    probabilities, legal actions, returns, and information states that partition the
    histories alike."""
    ends, parts = walk_adapted(load(shuffled_kuhn), pyspiel.load_game("kuhn_poker"))
    assert ends == 30 and parts.classes() == 24


def test_identical_pieces_are_one_outcome_weighted_by_their_copies():
    """Tiny's deck has copies of cards: a draw's outcomes are the kinds of card left,
    each named by its lowest piece number, with probability copies / cards left; the
    outcomes stay within max_chance_outcomes (the game's pieces)."""
    game = load(TINY)
    st = game.new_initial_state()
    outcomes = st.chance_outcomes()
    names = [st.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in outcomes]
    assert len(set(names)) == len(names) < len(st.tabula.slots[
        st.tabula.prog.zones["deck"].base])
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert max(p for _, p in outcomes) > min(p for _, p in outcomes)    # copies weigh more
    assert all(0 <= a < game.max_chance_outcomes() for a, _ in outcomes)


def test_the_same_draws_and_actions_give_the_same_game():
    def play(seed):
        st = load(TINY, seed=seed).new_initial_state()
        _play_randomly(st, random.Random(4))
        return st.history(), st.returns(), str(st)
    assert play(0) == play(0) == play(3)      # the seed draws nothing: chance does


def _same(copy, st):
    assert str(copy) == str(st) and copy.history() == st.history()
    assert copy.is_chance_node() == st.is_chance_node()
    assert copy.legal_actions() == st.legal_actions()
    assert copy.chance_outcomes() == st.chance_outcomes()


@pytest.mark.parametrize("spec, players", [(TINY, 2), (ROOT / "specs" / "medang", 3)],
                         ids=["tiny", "medang"])
def test_serialize_pickle_and_clone_keep_the_draws(spec, players):
    """States in the set-up's shuffle, after it, and (Tiny) in the shuffle of the
    discards late in the game: serialize / deserialize (the OpenSpiel moves beside the
    Tabula JSON, replayed), pickle and clone give the same state, which plays on
    alike; an edited move is refused."""
    game = load(spec, players)
    rng = random.Random(1)
    st = game.new_initial_state()
    checks = {3, 40}
    n = 0
    while not st.is_terminal() and n < (10 ** 4 if spec == TINY else 60):
        late = st.is_chance_node() and st._box.drawing is not None \
            and st._box.drawing.base is not None
        if n in checks or late:
            for copy in (game.deserialize_state(st.serialize()),
                         pickle.loads(pickle.dumps(st)), st.clone()):
                _same(copy, st)
                if not copy.is_terminal():
                    a = copy.legal_actions()[0]
                    copy.apply_action(a)
                    _same(copy, st.child(a))
            checks.add(n)
        _play_randomly(st, rng, limit=1)
        n += 1
    assert len(checks) > 2 or spec != TINY
    text = json.loads(st.serialize())
    text["openspiel_moves"][0][1] = 10 ** 6
    with pytest.raises(TabulaError, match="not a legal move"):
        game.deserialize_state(json.dumps(text))


def test_resample_from_infostate_with_chance_shuffles():
    """Tiny, dealt by chance: a sample keeps what the seat sees, and its own shuffles
    later (the discards reshuffled) are chance nodes too; it plays to the end."""
    game = load(TINY)
    rng = random.Random(2)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    st = game.new_initial_state()
    while st.is_chance_node():
        st.apply_action(rng.choice([a for a, _ in st.chance_outcomes()]))
    me = st.current_player()
    for _ in range(5):
        w = st.resample_from_infostate(me, sampler)
        assert w.information_state_string(me) == st.information_state_string(me)
        assert w.legal_actions() == st.legal_actions()
        assert _play_randomly(w, rng).is_terminal()


# -- undo_action -----------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [TINY, KUHN, ROOT / "examples" / "goofspiel"],
                         ids=["tiny", "kuhn", "goofspiel"])
def test_undo_action_gives_the_state_before(spec):
    game = load(spec)
    rng = random.Random(5)
    st = game.new_initial_state()
    for _ in range(10):
        if st.is_terminal():
            break
        before = (str(st), st.history(), st.move_number(), st.legal_actions()
                  if not st.is_simultaneous_node() else None)
        if st.is_simultaneous_node():
            joint = [rng.choice(st.legal_actions(p)) for p in range(game.num_players())]
            st.apply_actions(joint)
            st.undo_action(pyspiel.PlayerId.SIMULTANEOUS, 0)
            assert (str(st), st.history(), st.move_number()) == before[:3]
            st.apply_actions(joint)
            continue
        who = st.current_player()
        a = rng.choice(st.legal_actions())
        st.apply_action(a)
        with pytest.raises(TabulaError, match="only the last can be undone"):
            st.undo_action(who, a + 1)
        st.undo_action(who, a)
        assert (str(st), st.history(), st.move_number(), st.legal_actions()) == before
        st.apply_action(a)
    fresh = game.new_initial_state()
    with pytest.raises(TabulaError, match="no move to undo"):
        fresh.undo_action(0, 0)


# -- the information-state tensor ------------------------------------------------------------
def test_information_state_tensor_is_the_observation_and_the_history():
    """Kuhn poker with max_history=8: the tensor is the observation tensor and the
    history as the player saw it; two states a player cannot tell apart give it the
    same tensor, two it can different ones. Without max_history, a game whose
    game.max_decisions is the default (Tiny: 100,000) has none, and the call raises."""
    game = load(KUHN, max_history=8)
    assert game.get_type().provides_information_state_tensor
    size = game.information_state_tensor_size()
    a, b = game.new_initial_state(), game.new_initial_state()
    for x, y in ((0, 0), (2, 1), (1, 1)):      # player 1 holds K or Q; both bet
        a.apply_action(x)
        b.apply_action(y)
    ta, tb = a.information_state_tensor(0), b.information_state_tensor(0)
    assert len(ta) == size and ta == tb
    assert a.information_state_tensor(1) != b.information_state_tensor(1)
    assert a.information_state_tensor(0)[:game.observation_tensor_size()] == \
        a.observation_tensor(0)
    passed = game.new_initial_state()
    for x in (0, 2, 0):                         # player 0 passes instead
        passed.apply_action(x)
    assert passed.information_state_tensor(0) != ta
    plain = load(TINY)
    assert not plain.get_type().provides_information_state_tensor
    with pytest.raises(Exception, match="max_history"):
        plain.new_initial_state().information_state_tensor(0)
    short = load(KUHN, max_history=1).new_initial_state()
    short.apply_action(0)
    short.apply_action(1)
    with pytest.raises(Exception, match="more than max_history"):
        short.information_state_tensor(0)
    with pytest.raises(TabulaError, match="max_history -1"):
        load(KUHN, max_history=-1)
    with pytest.raises(TabulaError, match="at most"):
        load(KUHN, max_history=2 ** 31 - 1)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("spec, length", [(ROOT / "examples" / "leduc_poker", 64),
                                          (ROOT / "examples" / "goofspiel", 64),
                                          (TINY, 1000)], ids=["leduc_poker", "goofspiel",
                                                              "tiny"])
def test_information_state_tensors_partition_as_the_strings(spec, length):
    """Over random games, for every player at every node: equal information-state
    strings give equal tensors and equal tensors equal strings; random_sim_test checks
    the tensors' size and type."""
    game = load(spec, max_history=length)
    seen: list = [{} for _ in range(game.num_players())]
    back: list = [{} for _ in range(game.num_players())]
    rng = random.Random(6)
    for _ in range(3):
        st = game.new_initial_state()
        while not st.is_terminal():
            for p in range(game.num_players()):
                text = st.information_state_string(p)
                tensor = np.asarray(st.information_state_tensor(p), np.float32).tobytes()
                assert seen[p].setdefault(text, tensor) == tensor
                assert back[p].setdefault(tensor, text) == text
            _play_randomly(st, rng, limit=1)
    assert sum(len(m) for m in seen) > 20
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_bad_settings_are_clear_errors():
    with pytest.raises(TabulaError, match="chance_shuffles is true or false"):
        load(TINY, chance_shuffles=1)
    with pytest.raises(Exception, match="chance_shuffles"):
        pyspiel.load_game("tabula", {"spec": str(TINY), "chance_shuffles": "no"})
    st = load(TINY).new_initial_state()
    with pytest.raises(Exception, match="not a legal chance outcome"):
        st.apply_action(10 ** 6)
    with pytest.raises(TabulaError, match="where a shuffle is drawing"):
        st.resample_from_infostate(0, lambda: 0.5)


# -- OpenSpiel's algorithms ------------------------------------------------------------------
def _ismcts(game, simulations, seed):
    from open_spiel.python.algorithms import ismcts, mcts
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    return ismcts.ISMCTSBot(game, evaluator, 2.0, simulations,
                            random_state=np.random.RandomState(seed + 1))


@pytest.mark.parametrize("spec, sims", [(ROOT / "examples" / "leduc_poker", 10),
                                        (TINY, 4), (ROOT / "examples" / "hearts", 2)],
                         ids=["leduc_poker", "tiny", "hearts"])
def test_openspiel_ismcts_plays_hidden_information_games_to_the_end(spec, sims):
    """OpenSpiel's IS-MCTS (resample_from_infostate at every simulation) in seat 0,
    random play in the others; Tiny's deal and reshuffle are chance nodes."""
    game = load(spec, returns="win_loss")
    bot = _ismcts(game, sims * (10 if LONG else 1), 0)
    rng = random.Random(3)
    for _ in range(3 if LONG else 1):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                actions, probs = zip(*st.chance_outcomes())
                st.apply_action(rng.choices(actions, probs)[0])
            elif st.current_player() == 0:
                a = bot.step(st)
                assert a in st.legal_actions()
                st.apply_action(a)
            else:
                st.apply_action(rng.choice(st.legal_actions()))
        assert set(st.returns()) <= {-1.0, 0.0, 1.0} and len(st.returns()) == \
            game.num_players()


def test_cfr_and_exploitability_on_kuhn_poker_dealt_from_a_shuffled_deck(shuffled_kuhn):
    """CFR on Kuhn poker whose deal is a shuffle (chance nodes by chance_shuffles):
    exploitability iteration for iteration as on pyspiel's kuhn_poker, and the value
    -1/18; OpenSpiel's C++ CFR too."""
    from open_spiel.python.algorithms import cfr, expected_game_score, exploitability
    ours = load(shuffled_kuhn, utility="zero_sum")
    theirs = pyspiel.load_game("kuhn_poker")
    mine, ref = cfr.CFRSolver(ours), cfr.CFRSolver(theirs)
    for i in range(1, 11):
        mine.evaluate_and_update_policy()
        ref.evaluate_and_update_policy()
        if i in (1, 10):
            assert exploitability.exploitability(ours, mine.average_policy()) == \
                pytest.approx(exploitability.exploitability(theirs, ref.average_policy()),
                              abs=1e-9)
    policy = mine.average_policy()
    value = expected_game_score.policy_value(ours.new_initial_state(), [policy, policy])
    assert value[0] == pytest.approx(-1 / 18, abs=0.01)
    solver = pyspiel.CFRSolver(ours)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    assert pyspiel.exploitability(ours, solver.average_policy()) < 0.05


def test_outcome_sampling_mccfr_on_the_shuffled_deal(shuffled_kuhn):
    """Outcome-sampling MCCFR samples the shuffle's draws as chance outcomes: its
    average policy is far less exploitable than uniform play."""
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability, outcome_sampling_mccfr
    game = load(shuffled_kuhn, utility="zero_sum")
    np.random.seed(0)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(20_000 if LONG else 400):
        solver.iteration()
    uniform = exploitability.exploitability(game, policy_lib.UniformRandomPolicy(game))
    assert exploitability.exploitability(game, solver.average_policy()) < uniform / 2


def test_win_loss_games_are_zero_sum_without_parameters(tmp_path, shuffled_kuhn):
    """A two-player `returns: win_loss` spec is zero-sum in [-1, 1] as loaded: CFR and
    exploitability take it with no parameter (the shuffled Kuhn poker, won or lost)."""
    from open_spiel.python.algorithms import cfr, exploitability
    path = tmp_path / "kuhn_win_loss.yaml"
    path.write_text(f"extends: {shuffled_kuhn}\n"
                    "game: {id: kuhn_win_loss, name: Kuhn won or lost, returns: win_loss}\n")
    game = load(path)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    solver = cfr.CFRSolver(game)
    seen = []
    for i in range(1, 21):
        solver.evaluate_and_update_policy()
        if i in (1, 20):
            seen.append(exploitability.exploitability(game, solver.average_policy()))
    assert seen[0] > seen[1]


def test_rl_environment_steps_a_shuffled_game():
    from open_spiel.python import rl_environment
    env = rl_environment.Environment(load(TINY))
    ts = env.reset()
    rng = random.Random(0)
    steps = 0
    while not ts.last() and steps < 2000:
        p = ts.observations["current_player"]
        ts = env.step([rng.choice(ts.observations["legal_actions"][p])])
        steps += 1
    assert ts.last()
