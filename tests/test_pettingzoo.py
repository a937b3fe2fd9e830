"""Every spec as a PettingZoo AEC environment (interpreter/adapters/pettingzoo.py), checked with
PettingZoo's own api_test and seed_test."""

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from tabula_rules import IllegalAction, TabulaError
from tabula_rules.adapters.actionspace import ActionSpace
from tabula_rules.adapters.pettingzoo import env

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
