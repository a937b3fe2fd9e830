"""Every spec as an OpenSpiel game (interpreter/adapters/openspiel.py) and its fixed action space
(interpreter/adapters/actionspace.py), checked with OpenSpiel's own code: random_sim_test on
every spec and example, its MCTS bot against Tabula's bots, CFR and exploitability on
Kuhn poker, and a lockstep walk of Kuhn poker against pyspiel's kuhn_poker."""

import random
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from tabula_rules import IllegalAction, TabulaError, load_game, load_spec  # noqa: E402
from tabula_rules.adapters.actionspace import ActionSpace  # noqa: E402
from tabula_rules.adapters.openspiel import load, play_game, wrap  # noqa: E402
from tabula_rules.bots.agents import make_agent  # noqa: E402

from conftest import EXAMPLES, ROOT, SPEC_FILES  # noqa: E402
from helpers import DUEL  # noqa: E402
from openspiel_util import walk_adapted  # noqa: E402

ALL = [*SPEC_FILES, *EXAMPLES]
KUHN = ROOT / "examples" / "kuhn_poker"

# the number of distinct actions of each spec at its smallest player count (the action
# space is part of a game's interface: a change here changes every trained policy)
NUM_ACTIONS = {"medang": 2109, "bsw-dm2003": 1538, "medina": 1364, "middag": 415,
               "breakthrough": 384, "connect_four": 7, "goofspiel": 39, "kuhn_poker": 2,
               "leduc_poker": 3, "liars_dice": 13, "medang-prambanan": 1659, "othello": 65,
               "quoridor": 272, "tic_tac_toe": 9, "tiny": 117, "backgammon": 2048,
               "causeway": 33, "dyeworks": 507, "hamlet": 2595, "hearth": 943, "hearts": 104,
               "pig": 2, "dots_and_boxes": 12, "fireworks": 84}


def _name(path) -> str:
    return path.stem if path.suffix else path.name


# -- the action space ------------------------------------------------------------------------
@pytest.mark.parametrize("path", ALL, ids=_name)
def test_action_space_numbers_every_action_of_random_games(path):
    """Over a few random games: every legal action has an id inside the space, two legal
    actions never share one, and the id leads back to the action; the space's size is
    the documented one."""
    game = load_spec(path).game()
    space = ActionSpace(game)
    assert space.num_actions == NUM_ACTIONS[_name(path)]
    for seed in range(3):
        st, rng = game.new_state(seed=seed), random.Random(seed)
        while not st.terminal:
            chance = st.is_chance_node()
            ids = space.ids(st)
            assert len(ids) == len(st.legal_actions())
            limit = space.num_outcomes if chance else space.num_actions
            assert all(0 <= i < limit for i in ids)
            for i, a in ids.items():
                assert space.action_tuple(st, i) == a
                assert space.decode(i, chance)[:2] == a[:2]
            st.apply(rng.choice(st.legal_actions()))


def test_ids_follow_the_spec_where_it_is_plain():
    """A constant number source numbers its values in order: tic-tac-toe's cell k is id k,
    Othello's pass (its own option, after 64 cells) is 64, Kuhn poker's Pass and Bet are
    0 and 1 and its deal outcomes the card numbers, as in OpenSpiel."""
    ttt = ActionSpace(load_game(ROOT / "examples" / "tic_tac_toe"))
    st = ttt.game.new_state()
    assert sorted(ttt.ids(st)) == list(range(9))
    assert all(a[-1] == i for i, a in ttt.ids(st).items())
    oth = ActionSpace(load_game(ROOT / "examples" / "othello"))
    assert oth.decode(64)[2:] == (64,)
    kuhn = ActionSpace(load_game(KUHN))
    st = kuhn.game.new_state()
    assert sorted(kuhn.ids(st)) == [0, 1, 2]
    st.apply(st.legal_actions()[2])
    st.apply(st.legal_actions()[0])
    assert {i: st.action_to_string(a) for i, a in kuhn.ids(st).items()} == {0: "Pass",
                                                                              1: "Bet"}


COUNTER = """
game: {id: counter, name: Counter, source: a test, players: {min: 2, max: 2}, max_steps: 1000}
variables:
  n: {value: 0}
play:
  - id: count
    turns:
      first: 0
      until: n >= 6
    do:
      - id: step
        choose: k in range(n, n)
        label: "say {k}"
        do:
          - n = k + 1
"""


def test_a_number_outside_its_domain_is_a_clear_error(tmp_path):
    """A number the compiler cannot bound takes the documented default domain 0 ..
    int_span - 1; a value outside it is refused with the decision named."""
    spec = tmp_path / "counter.yaml"
    spec.write_text(COUNTER)
    game = load_game(spec)
    wide = ActionSpace(game)
    assert wide.num_actions == 32
    narrow = ActionSpace(game, int_span=3)
    st = game.new_state()
    for _ in range(3):
        assert narrow.legal_ids(st) == [st.legal_actions()[0][-1]]
        st.apply(st.legal_actions()[0])
    with pytest.raises(TabulaError, match=r"decision 'step:step'.*value 3.*number 0\.\.2"):
        narrow.legal_ids(st)
    with pytest.raises(TabulaError, match="int_span"):
        ActionSpace(game, int_span=0)


# -- OpenSpiel's own tests -------------------------------------------------------------------
@pytest.mark.parametrize("path", ALL, ids=_name)
def test_random_sim_test(path):
    """OpenSpiel's random_sim_test (clone, serialize and deserialize, legal action masks,
    sorted actions, chance outcomes summing to 1, returns within the utility range, the
    game length within max_game_length) on every spec, at its smallest player count."""
    game = pyspiel.load_game("tabula", {"spec": str(path)})
    # one game of the long specs (a few seconds each), two of the examples
    sims = 1 if path in SPEC_FILES else 2
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_random_sim_test_with_players_and_an_option():
    """The brief's example, by a game string too (OpenSpiel's parser takes no '=' in a
    value: options are KEY:VALUE there); serialization keeps the option."""
    game = pyspiel.load_game("tabula(spec=specs/medang,players=3,options=temple:sewu)")
    assert game.num_players() == 3 and game.ctx.game.options["temple"] == "sewu"
    assert pyspiel.load_game("tabula", {"spec": "specs/medang", "players": 3,
                                        "options": "temple=sewu"}).ctx is game.ctx
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_type_comes_from_the_spec():
    T = pyspiel.GameType
    kuhn = load(KUHN).get_type()
    assert (kuhn.information, kuhn.chance_mode, kuhn.dynamics, kuhn.utility) == (
        T.Information.IMPERFECT_INFORMATION, T.ChanceMode.EXPLICIT_STOCHASTIC,
        T.Dynamics.SEQUENTIAL, T.Utility.ZERO_SUM)         # its game.utility says so
    assert load(KUHN, utility="general_sum").get_type().utility == T.Utility.GENERAL_SUM
    assert load(KUHN, utility="zero_sum").get_type().utility == T.Utility.ZERO_SUM
    ttt = load(ROOT / "examples" / "tic_tac_toe").get_type()
    assert (ttt.information, ttt.chance_mode) == (T.Information.PERFECT_INFORMATION,
                                                  T.ChanceMode.DETERMINISTIC)
    bt = load(ROOT / "examples" / "breakthrough")
    assert bt.get_type().utility == T.Utility.ZERO_SUM          # win_loss, two players
    assert (bt.min_utility(), bt.max_utility(), bt.utility_sum()) == (-1.0, 1.0, 0.0)
    assert load(ROOT / "examples" / "goofspiel").get_type().dynamics == T.Dynamics.SIMULTANEOUS
    medang = load(ROOT / "specs" / "medang", 3, {"temple": "sewu"}, returns="win_loss")
    assert medang.num_players() == 3
    assert medang.get_type().utility == T.Utility.GENERAL_SUM   # +1 -1 -1 is not zero-sum
    assert medang.get_parameters()["options"] == "temple:sewu"
    assert medang.ctx.game.options["temple"] == "sewu"
    prog = load_game(ROOT / "specs" / "medang").prog      # the smaller of its two bounds
    seeded = load(ROOT / "specs" / "medang", 3, chance_shuffles=False)
    assert seeded.max_game_length() == min(prog.max_steps, prog.max_decisions) == 100_000
    # each shuffle (a step) draws one piece at a time: at most one draw per piece
    assert medang.max_game_length() == 100_000 + prog.max_steps * len(prog.piece_names)


def test_states_clone_serialize_and_hide_what_the_spec_hides():
    game = load(KUHN)
    st = game.new_initial_state()
    st.apply_action(0)                          # J to player 0
    st.apply_action(2)                          # K to player 1
    other = game.new_initial_state()
    other.apply_action(0)
    other.apply_action(1)                       # Q to player 1
    # player 0 cannot tell the two apart; player 1 can
    assert st.information_state_string(0) == other.information_state_string(0)
    assert st.observation_string(0) == other.observation_string(0)
    assert st.observation_tensor(0) == other.observation_tensor(0)
    assert st.information_state_string(1) != other.information_state_string(1)
    assert st.observation_tensor(1) != other.observation_tensor(1)
    assert '"K"' not in st.observation_string(0) and '"K"' in st.observation_string(1)
    assert len(st.observation_tensor(0)) == game.observation_tensor_size()
    # a clone goes its own way
    copy = st.clone()
    copy.apply_action(1)
    assert st.history() == [0, 2] and copy.history() == [0, 2, 1]
    assert st.current_player() == 0 and copy.current_player() == 1
    # serialize and back (OpenSpiel's format: the Tabula state as its JSON text)
    text = pyspiel.serialize_game_and_state(game, copy)
    game2, back = pyspiel.deserialize_game_and_state(text)
    assert str(back) == str(copy) and back.history() == copy.history()
    assert back.legal_actions() == copy.legal_actions() == [0, 1]
    back.apply_action(1)
    assert back.is_terminal() and back.returns() == [-2.0, 2.0]


def test_the_same_seed_and_actions_give_the_same_game():
    """Medang shuffles: with chance_shuffles=false by the state's own generator, seeded
    by the `seed` parameter (another seed, another deal); by default each shuffle is
    chance nodes, one piece drawn at a time, and the seed changes nothing."""
    def play(seed, **settings):
        game = load(ROOT / "specs" / "medang", 3, seed=seed, **settings)
        st, rng = game.new_initial_state(), random.Random(7)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.chance_outcomes()[-1][0])
            else:
                st.apply_action(rng.choice(st.legal_actions()))
        return st.history(), st.returns()
    assert play(1, chance_shuffles=False) == play(1, chance_shuffles=False)
    assert play(1, chance_shuffles=False) != play(2, chance_shuffles=False)
    assert play(1) == play(2)
    assert load(ROOT / "specs" / "medang", 3).new_initial_state().is_chance_node()
    assert not load(ROOT / "specs" / "medang", 3,
                    chance_shuffles=False).new_initial_state().is_chance_node()


def test_simultaneous_nodes():
    """Goofspiel's bids: one simultaneous node, each player's own actions, apply_actions;
    neither sees the other's bid before both have bid."""
    game = load(ROOT / "examples" / "goofspiel")
    st = game.new_initial_state()
    st.apply_action(st.chance_outcomes()[0][0])              # the prize card
    assert st.is_simultaneous_node()
    assert st.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    a0, a1 = st.legal_actions(0), st.legal_actions(1)
    assert a0 and a1 and set(a0).isdisjoint(a1)               # each bids its own cards
    before = [st.information_state_string(p) for p in range(2)]
    st.apply_actions([a0[-1], a1[0]])
    assert st.is_chance_node() or st.is_terminal()
    after = [st.information_state_string(p) for p in range(2)]
    assert after != before
    with pytest.raises(IllegalAction):
        fresh = game.new_initial_state()
        fresh.apply_action(fresh.chance_outcomes()[0][0])
        fresh.apply_actions([a1[0], a0[0]])                   # each other's cards


def test_bad_input_is_a_clear_error():
    with pytest.raises(TabulaError, match="no such spec"):
        pyspiel.load_game("tabula", {"spec": "no/such/spec"})
    with pytest.raises(TabulaError, match="needs a spec"):
        pyspiel.load_game("tabula")
    with pytest.raises(TabulaError, match="temple=nope is not one of"):
        load(ROOT / "specs" / "medang", options="temple=nope")
    with pytest.raises(TabulaError, match="KEY=VALUE"):
        load(ROOT / "specs" / "medang", options="temple")
    with pytest.raises(TabulaError, match="returns is"):
        load(KUHN, returns="points")
    st = load(ROOT / "examples" / "tic_tac_toe").new_initial_state()
    with pytest.raises(IllegalAction, match=r"0\.\.8"):
        st.apply_action(99)
    st.apply_action(4)
    with pytest.raises(IllegalAction, match="not legal here"):
        st.apply_action(4)


def test_importing_the_package_imports_neither_pyspiel_nor_pettingzoo():
    code = ("import sys, tabula_rules, tabula_rules.tools.cli, tabula_rules.adapters.actionspace, "
            "tabula_rules.adapters.observe; print(sorted(m for m in ('pyspiel', 'pettingzoo', "
            "'gymnasium') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"


# -- Kuhn poker: against pyspiel's own, CFR, exploitability ----------------------------------
def test_kuhn_poker_walks_in_lockstep_with_pyspiel():
    ends, parts = walk_adapted(load(KUHN), pyspiel.load_game("kuhn_poker"))
    assert ends == 30                # 6 deals x 5 betting sequences
    assert parts.classes() == 24     # 12 information states per player


@pytest.mark.parametrize("change, caught", [
    ("functions:\n    wins:\n      params: [p]\n"
     "      value: card_of(p) == max(card_of(q) for q in players)\n", "returns"),
    ("zones:\n    hand: {kind: set, per_player: true, visibility: public}\n", "tells apart"),
], ids=["folding-ignored", "hands-shown"])
def test_kuhn_poker_lockstep_notices_a_broken_rule(tmp_path, change, caught):
    """The walk is a real check: a Kuhn poker whose winner ignores folds fails on the
    returns, one that shows the hands fails on the information states."""
    variant = tmp_path / "mutant.yaml"
    variant.write_text(f"extends: {KUHN / 'kuhn_poker.yaml'}\ngame: {{id: mutant, name: M}}\n"
                       f"override:\n  {change}")
    with pytest.raises(AssertionError) as err:
        walk_adapted(load(variant), pyspiel.load_game("kuhn_poker"))
    assert caught in str(err.value) or caught == "returns"


def test_cfr_on_kuhn_poker_matches_openspiel():
    """OpenSpiel's CFR on the adapted Kuhn poker: its exploitability falls, equals the
    one CFR reaches on pyspiel's own kuhn_poker iteration for iteration, and the average
    policy's value for player 0 is close to the game's value, -1/18."""
    from open_spiel.python.algorithms import cfr, expected_game_score, exploitability
    ours = load(KUHN, utility="zero_sum")
    theirs = pyspiel.load_game("kuhn_poker")
    mine, ref = cfr.CFRSolver(ours), cfr.CFRSolver(theirs)
    seen = []
    for i in range(1, 101):
        mine.evaluate_and_update_policy()
        ref.evaluate_and_update_policy()
        if i in (1, 10, 100):
            e = exploitability.exploitability(ours, mine.average_policy())
            assert e == pytest.approx(
                exploitability.exploitability(theirs, ref.average_policy()), abs=1e-9)
            seen.append(e)
    assert seen[0] > 0.4 and seen[0] > seen[1] > seen[2] and seen[2] < 0.01
    policy = mine.average_policy()
    value = expected_game_score.policy_value(ours.new_initial_state(), [policy, policy])
    assert value[0] == pytest.approx(-1 / 18, abs=0.002)


def test_cpp_cfr_runs_on_the_python_game():
    game = load(KUHN, utility="zero_sum")
    solver = pyspiel.CFRSolver(game)
    for _ in range(50):
        solver.evaluate_and_update_policy()
    assert pyspiel.exploitability(game, solver.average_policy()) < 0.02


# -- OpenSpiel's MCTS bot against Tabula's bots ----------------------------------------------
def _mcts(game, simulations, seed):
    from open_spiel.python.algorithms import mcts
    rng = np.random.RandomState(seed)
    return mcts.MCTSBot(game, uct_c=2, max_simulations=simulations,
                        evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng,
                        solve=False)


def test_openspiel_mcts_plays_medang_against_our_bots():
    game = load(ROOT / "specs" / "medang", 3, returns="win_loss")
    for seed in range(2):
        seats = [make_agent("greedy"), make_agent("random")]
        seats.insert(seed, _mcts(game, 8, seed))
        st = play_game(game, seats, seed)
        assert st.terminal and st.winners()
        assert wrap(game, st).returns() in ([1.0, -1.0, -1.0], [-1.0, 1.0, -1.0],
                                            [-1.0, -1.0, 1.0]) or len(st.winners()) > 1


def test_openspiel_mcts_plays_medina_against_our_bots():
    game = load(ROOT / "specs" / "medina", 2, returns="win_loss")
    st = play_game(game, [_mcts(game, 2, 0), make_agent("random")], seed=0)
    assert st.terminal and st.winners()


def test_openspiel_mcts_beats_random_at_tic_tac_toe():
    """The bot is really searching our game: against random play it does not lose."""
    game = load(ROOT / "examples" / "tic_tac_toe", returns="win_loss")
    for seed in range(4):
        seats = [make_agent("random")]
        seats.insert(seed % 2, _mcts(game, 200, seed))
        st = play_game(game, seats, seed)
        mcts_seat = seed % 2
        assert mcts_seat in st.winners(), (seed, st.scores())


def test_a_player_who_does_not_choose_at_a_simultaneous_node_waits(tmp_path):
    """Player 2 has no action at the simultaneous bids: OpenSpiel gives them one, `wait`
    (the last id), and refuses anything else from them."""
    (tmp_path / "duel.yaml").write_text(DUEL)
    game = load(tmp_path / "duel.yaml")
    assert game.num_distinct_actions() == 3 and game.get_type().dynamics == \
        pyspiel.GameType.Dynamics.SIMULTANEOUS
    st = game.new_initial_state()
    assert [st.legal_actions(p) for p in range(3)] == [[0, 1], [0, 1], [2]]
    assert st.action_to_string(2, 2) == "wait" and st.action_to_string(0, 1) == "bid 1"
    st.apply_actions([1, 0, 2])
    with pytest.raises(IllegalAction, match="player 2 does not choose here"):
        st.apply_actions([1, 0, 1])
    st.apply_actions([1, 1, 2])
    assert st.is_terminal() and st.returns() == [2.0, 1.0, 0.0]
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
