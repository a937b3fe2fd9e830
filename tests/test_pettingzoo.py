"""Every spec as a PettingZoo AEC environment (interpreter/adapters/pettingzoo.py), checked with
PettingZoo's own api_test and seed_test; the parallel environment with parallel_api_test
(Goofspiel's simultaneous bids, a sequential game's no-op); misuse."""

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from tabula_rules import IllegalAction, TabulaError
from tabula_rules.adapters.actionspace import ActionSpace
from tabula_rules.adapters.pettingzoo import (
    DeadAgentAction,
    NotReset,
    UnknownAgent,
    env,
    parallel_env,
)

from conftest import EXAMPLES, ROOT, SPEC_FILES

ALL = [*SPEC_FILES, *EXAMPLES]
KUHN = ROOT / "examples" / "kuhn_poker"
GOOFSPIEL = ROOT / "examples" / "goofspiel"


def _name(path) -> str:
    return path.stem if path.suffix else path.name


@pytest.mark.parametrize("path", ALL, ids=_name)
def test_api_test_and_seed_test(path):
    """PettingZoo's api_test (one whole game, observations inside their spaces, action
    masks, rewards, terminations) and seed_test (two environments reset with the same
    seed play the same game), on every spec at its smallest player count."""
    with warnings.catch_warnings():
        # PettingZoo warns about every dict observation (its classic games' form too)
        warnings.filterwarnings("ignore", message="Observation")
        api_test(env(path), num_cycles=1000)
        seed_test(lambda: env(path), num_cycles=200)


def test_medang_with_more_players_and_an_option():
    e = env(ROOT / "specs" / "medang", players=4, options={"temple": "sewu"})
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation")
        api_test(e, num_cycles=1000)


def _play(e, seed, choose=lambda ids, rng: rng.choice(ids)):
    """A whole game with random legal actions; the rewards at the end."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(choose(np.flatnonzero(obs["action_mask"]), rng)))
    return total


def test_masks_are_the_legal_actions_of_the_agent_to_choose():
    e = env(ROOT / "specs" / "medina", players=3)
    space = ActionSpace(e.game)
    e.reset(seed=3)
    for _ in range(40):
        agent = e.agent_selection
        p = e.possible_agents.index(agent)
        mask = e.observe(agent)["action_mask"]
        assert sorted(np.flatnonzero(mask)) == space.legal_ids(e.tabula, p)
        for other in e.possible_agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(int(np.flatnonzero(mask)[0]))


def test_chance_is_played_inside_with_the_seed():
    """Kuhn poker starts at player 0's bet, the cards dealt by the environment: the same
    seed deals the same cards, other seeds other cards."""
    def deal(seed):
        e = env(KUHN)
        e.reset(seed=seed)
        assert e.agent_selection == "player_0"
        return tuple(tuple(h) for h in e.tabula.zones_view(None)["hand"].values())
    assert deal(5) == deal(5)
    assert len({deal(s) for s in range(12)}) > 2


def test_rewards_at_the_end_are_the_returns():
    e = env(KUHN)
    totals = _play(e, 1)
    assert list(totals.values()) == [float(x) for x in e.tabula.returns()]
    assert sum(totals.values()) == 0 and set(totals.values()) != {0.0}
    e = env(ROOT / "examples" / "tic_tac_toe", returns="win_loss")
    totals = _play(e, 2)
    assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_observations_hide_what_the_spec_hides():
    """Kuhn poker: player 0's observation is the same whichever card player 1 holds."""
    seen = {}
    for seed in range(30):
        e = env(KUHN)
        e.reset(seed=seed)
        hands = e.tabula.zones_view(None)["hand"]
        mine, theirs = hands["0"][0], hands["1"][0]
        obs0 = e.observe("player_0")["observation"].tobytes()
        obs1 = e.observe("player_1")["observation"].tobytes()
        seen.setdefault(("0", mine), set()).add(obs0)
        seen.setdefault(("1", theirs), set()).add(obs1)
    assert all(len(v) == 1 for v in seen.values())     # one observation per own card
    assert len({next(iter(v)) for (who, _), v in seen.items() if who == "0"}) == 3


def test_simultaneous_choices_are_asked_in_turn_and_not_revealed():
    """Goofspiel: both bid on the prize; player 1 is asked after player 0 and sees the
    same whatever player 0 bid."""
    def after_first_bid(k):
        e = env(GOOFSPIEL)
        e.reset(seed=0)
        assert e.agent_selection == "player_0"
        bids = np.flatnonzero(e.observe("player_0")["action_mask"])
        e.step(int(bids[k]))
        assert e.agent_selection == "player_1"
        return e.observe("player_1"), e
    (low, e), (high, _) = after_first_bid(0), after_first_bid(-1)
    assert np.array_equal(low["observation"], high["observation"])
    assert np.array_equal(low["action_mask"], high["action_mask"])
    before = e.tabula.turn
    e.step(int(np.flatnonzero(low["action_mask"])[0]))
    assert e.tabula.turn != before or e.tabula.terminal or e.agent_selection == "player_0"


def test_bad_input_is_a_clear_error():
    with pytest.raises(TabulaError, match="no such spec"):
        env("no/such/spec")
    with pytest.raises(TabulaError, match="is not one of"):
        env(ROOT / "specs" / "medang", options="temple=nope")
    with pytest.raises(TabulaError, match="render_mode"):
        env(KUHN, render_mode="pixels")
    e = env(ROOT / "examples" / "tic_tac_toe")
    e.reset(seed=0)
    with pytest.raises(IllegalAction, match=r"0\.\.8"):
        e.step(99)
    e.step(4)
    with pytest.raises(IllegalAction, match="not legal here"):
        e.step(4)
    with pytest.raises(IllegalAction, match="None is not an action"):
        e.step(None)


def test_render_shows_the_choices():
    e = env(ROOT / "examples" / "tic_tac_toe", render_mode="ansi")
    e.reset(seed=0)
    assert "to choose: [0]" in e.render()


def test_a_player_without_choices_is_not_asked(tmp_path):
    """At a simultaneous decision where only players 0 and 1 have actions, player 2 is
    never the agent to act (until the end, when every agent is stepped out)."""
    from helpers import DUEL
    (tmp_path / "duel.yaml").write_text(DUEL)
    e = env(tmp_path / "duel.yaml")
    e.reset(seed=0)
    asked = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        asked.append(agent)
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert asked == ["player_0", "player_1"] * 2
    assert e.rewards == {} and e.tabula.returns() == [2, 2, 0]
    # in the parallel API, player 2 waits: its mask is the no-op alone
    p = parallel_env(tmp_path / "duel.yaml")
    obs, _ = p.reset(seed=0)
    assert p.tabula.is_simultaneous_node()
    assert [list(np.flatnonzero(obs[a]["action_mask"])) for a in p.agents] == \
        [[0, 1], [0, 1], [p.wait]]
    while p.agents:
        obs, rewards, *_ = p.step({a: int(np.flatnonzero(obs[a]["action_mask"])[-1])
                                   for a in p.agents})
    assert rewards == {"player_0": 2, "player_1": 2, "player_2": 0}


@pytest.mark.parametrize("spec", ["specs/medina", "examples/leduc_poker"])
def test_a_seed_plays_the_game_tabula_plays_with_that_seed(spec):
    """reset(seed=s) seeds the game and draws chance as agents.play_game does: random
    agents replayed through the environment (the same generators, the ids of the actions
    they pick) end with the scores and actions of Tabula's own game of seed s."""
    from tabula_rules.bots.agents import RandomAgent, View, agent_rng, play_game
    e = env(ROOT / spec, players=2)
    space = ActionSpace(e.game)
    for seed in (3, 4):
        ref = play_game(e.game, seed, [RandomAgent(), RandomAgent()])
        rngs = [agent_rng(seed, p) for p in range(2)]
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            p = e.possible_agents.index(agent)
            action = RandomAgent().act(View(e.tabula, p, rngs[p]))
            assert obs["action_mask"][space.action_id(action)] == 1
            e.step(space.action_id(action))
        assert e.tabula.scores() == ref["scores"]
        replay, seen = e.game.new_state(seed=seed), []
        for a in e.tabula.history:
            seen.append([replay.current_player(), replay.action_to_string(a)])
            replay.apply(a)
        assert seen == ref["actions"]


# ---- the parallel API ------------------------------------------------------------------------

TIC = ROOT / "examples" / "tic_tac_toe"


@pytest.mark.parametrize("path", [GOOFSPIEL, TIC, KUHN], ids=_name)
def test_parallel_api_test(path):
    """PettingZoo's parallel_api_test: on Goofspiel (both bid at once), on tic-tac-toe (a
    sequential game: the player not to move sends the no-op) and on Kuhn poker (chance
    inside)."""
    from pettingzoo.test import parallel_api_test
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # PettingZoo's warnings too: none
        parallel_api_test(parallel_env(path), num_cycles=1000)


def test_pettingzoos_conversion_of_the_parallel_env_passes_api_test():
    """parallel_to_aec (PettingZoo's own wrapper) over Goofspiel's parallel environment is
    an AEC environment api_test accepts; the spaces also come as dicts."""
    from pettingzoo.utils import parallel_to_aec
    p = parallel_env(GOOFSPIEL)
    assert p.action_spaces["player_1"] is p.action_space("player_1")
    assert set(p.observation_spaces) == set(p.possible_agents)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation")
        api_test(parallel_to_aec(p), num_cycles=1000)


def _random_joint(p, obs, rng):
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in p.agents}


def test_parallel_bids_are_applied_together_and_play_the_aec_game():
    """Goofspiel: every step both players bid (no wait in their masks); the same seed
    and bids played through the AEC environment, one bid after the other, give the same
    game and rewards."""
    p = parallel_env(GOOFSPIEL)
    assert p.action_space("player_0").n == p.wait + 1 == ActionSpace(p.game).num_actions + 1
    rng = np.random.default_rng(7)
    obs, infos = p.reset(seed=3)
    assert set(obs) == set(infos) == {"player_0", "player_1"}
    joints, total = [], {a: 0.0 for a in p.possible_agents}
    while p.agents:
        assert all(not obs[a]["action_mask"][p.wait] for a in p.agents)
        before = len(p.tabula.history)
        joint = _random_joint(p, obs, rng)
        joints.append(joint)
        obs, rewards, terms, truncs, infos = p.step(joint)
        assert len(p.tabula.history) >= before + 2     # both bids (then the next deal)
        for a, r in rewards.items():
            total[a] += r
    assert all(terms.values()) and not any(truncs.values()) and p.agents == []
    assert list(total.values()) == [float(x) for x in p.tabula.returns()]
    e = env(GOOFSPIEL)
    e.reset(seed=3)
    for joint in joints:
        for a in ("player_0", "player_1"):
            assert e.agent_selection == a
            e.step(joint[a])
    assert e.tabula.history == p.tabula.history
    assert {a: e._cumulative_rewards[a] for a in e.agents} == total


def test_parallel_on_a_sequential_game_the_others_wait():
    p = parallel_env(TIC)
    with pytest.raises(NotReset):
        p.step({})
    obs, _ = p.reset(seed=0)
    wait = p.wait
    assert wait == 9 and p.action_space("player_1").n == 10
    assert list(np.flatnonzero(obs["player_0"]["action_mask"])) == list(range(9))
    assert list(np.flatnonzero(obs["player_1"]["action_mask"])) == [wait]
    bad = [({"player_0": 4, "player_1": 3}, IllegalAction, "player_1 is not to choose now"),
           ({"player_1": wait}, IllegalAction, "player_0 is to choose: its action is missing"),
           ({"player_0": wait}, IllegalAction, r"9 \(wait\) is the action of an agent that"),
           ({"player_0": 4, "player_9": wait}, UnknownAgent, "no agent 'player_9'"),
           ({"player_0": 4.0}, IllegalAction, "not an action id"),
           ([4, wait], TabulaError, "a dict of actions by agent")]
    for actions, error, message in bad:
        with pytest.raises(error, match=message):
            p.step(actions)
        assert p.tabula.history == []            # checked before anything is applied
    p.step({"player_0": np.array([4]), "player_1": wait})     # a policy's array, the no-op
    obs, *_ = p.step({"player_1": 0})                         # or nothing, for the waiting
    assert list(np.flatnonzero(obs["player_0"]["action_mask"])) == [1, 2, 3, 5, 6, 7, 8]
    assert list(np.flatnonzero(obs["player_1"]["action_mask"])) == [wait]
    while p.agents:
        who = next(a for a in p.agents if not obs[a]["action_mask"][wait])
        obs, rewards, terms, *_ = p.step({who: int(np.flatnonzero(obs[who]["action_mask"])[0]),
                                          "player_0" if who == "player_1" else "player_1": None})
    assert all(terms.values()) and not obs["player_0"]["action_mask"].any()
    with pytest.raises(TabulaError, match="the game is over: call reset"):
        p.step({})


def test_aec_misuse_raises_what_pettingzoo_expects():
    """Each mistake is a TabulaError and the exception PettingZoo's own environments and
    wrappers raise for it."""
    e = env(TIC)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        print(e.agent_selection)
    with pytest.raises(NotReset):
        print(e.num_agents)
    e.reset(seed=0)
    with pytest.raises(KeyError) as info:
        e.observe("player_9")
    assert isinstance(info.value, UnknownAgent)
    assert str(info.value).startswith("there is no agent 'player_9' in this game")
    with pytest.raises(NotImplementedError, match="state"):
        e.state()
    e.step(np.array([4]))                        # a policy's one-element array is an id
    with pytest.raises(TabulaError, match=r"no parameter 'render'.*did you mean 'render_mode'"):
        env(TIC, render="ansi")
    with pytest.raises(TabulaError, match="players is a whole number"):
        env(TIC, players=2.0)
    for _ in range(40):
        if e.terminations[e.agent_selection]:
            break
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    with pytest.raises(ValueError, match="is terminated .*the only valid action is None") \
            as info:
        e.step(0)
    assert isinstance(info.value, DeadAgentAction)
    e.step(None)
