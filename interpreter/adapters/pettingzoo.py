"""Any spec as a PettingZoo AEC environment.

Input: a spec path, a player count and options. Output: an AECEnv whose agents are
"player_0" .. "player_{n-1}", whose actions are the ids of the game's fixed action space
(interpreter/adapters/actionspace.py) and whose observations are dicts

    {"observation": float32 vector (interpreter/adapters/observe.py, what the agent may see),
     "action_mask": int8 vector over the action space (1: legal for this agent now)}

Chance decisions are made inside the environment by a generator seeded by
reset(seed=...) (each outcome with its probability); a simultaneous decision asks its
players one after the other, in the order of the spec's choosers, and nobody sees a
choice before all have chosen (the engine reveals the joint move at once). Rewards come
at the end only: the returns (the spec's game.returns, or `returns=` given here).

    from tabula_rules.pettingzoo import env
    e = env(spec="path/to/game.yaml", players=3, options={"board": "large"})
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else pick(obs["action_mask"])
        e.step(action)

Misuse is a clear error: a method called before reset() raises NotReset (a TabulaError
and the AssertionError PettingZoo's order-enforcing wrapper raises), an agent that is
not one of the game's a TabulaError, a seed that is not a whole number 0 or more a
TabulaError, a step once every agent has left the ended game a TabulaError (call
reset()); a terminated agent stepped with an action other than None gets PettingZoo's
own ValueError.

Importing this module imports pettingzoo, gymnasium and numpy; `import tabula_rules`
does not.
"""

from __future__ import annotations

import numbers
import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..errors import IllegalAction, TabulaError
from ..runtime.engine import State
from ..spec import load_spec, parse_option_text
from .actionspace import DEFAULT_INT_SPAN, ActionSpace
from .observe import Encoder


class NotReset(TabulaError, AssertionError):
    """A method of the environment called before its first reset(): a TabulaError, and
    the AssertionError PettingZoo's OrderEnforcingWrapper raises for the same mistake."""


def _whole_seed(seed: Any) -> int:
    """A seed given to reset(): a whole number (a numpy integer too), 0 or more."""
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or int(seed) < 0:
        raise TabulaError(f"seed {seed!r:.40}: a seed is a whole number, 0 or more")
    return int(seed)


def _options(options) -> dict:
    """A dict, or text as spec.parse_option_text reads it (KEY=VALUE;...)."""
    return {} if options is None else parse_option_text(options)


class TabulaEnv(AECEnv):
    """A spec as a PettingZoo AEC environment (see the module's docstring)."""

    metadata: dict = {"render_modes": ["ansi", "human"], "name": "tabula_v0",
                      "is_parallelizable": False}

    def __init__(self, spec, players: int | None = None, options=None, returns: str = "",
                 int_span: int = DEFAULT_INT_SPAN, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise TabulaError(f"render_mode is one of {self.metadata['render_modes']}, "
                              f"not '{render_mode}'")
        if returns not in ("", "win_loss", "scores"):
            raise TabulaError(f"returns is '', 'win_loss' or 'scores', not '{returns}'")
        self.spec = load_spec(spec)
        self.game = self.spec.game(players, _options(options))
        self.returns_mode = returns or self.game.prog.returns
        self.space = ActionSpace(self.game, int_span)
        self.encoder = Encoder(self.game)
        self.render_mode = render_mode
        n = self.game.players
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        size = max(self.space.num_actions, 1)
        self._action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (max(self.encoder.size, 1),),
                                      np.float32),
            "action_mask": spaces.Box(0, 1, (size,), np.int8)})
            for a in self.possible_agents}
        # the game being played and its chance generator: set by reset(), which PettingZoo
        # calls before any step
        self.tabula: State = None  # type: ignore[assignment]
        self._chance: random.Random = None  # type: ignore[assignment]
        self._seeds: int | None = None

    # -- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent):
        self._agent(agent)
        return self._observation_spaces[agent]

    def action_space(self, agent):
        self._agent(agent)
        return self._action_spaces[agent]

    def _agent(self, agent) -> int:
        """The player of an agent's name (an error naming the agents if it is none)."""
        player = self._index.get(agent) if isinstance(agent, str) else None
        if player is None:
            names = self.possible_agents
            raise TabulaError(f"there is no agent {agent!r:.40} in this game (its agents: "
                              f"{names[0]} to {names[-1]})")
        return player

    def _started(self, what: str) -> State:
        """The game in progress (NotReset before the first reset())."""
        if self.tabula is None:
            raise NotReset(f"reset() needs to be called before {what}")
        return self.tabula

    # -- the game -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game. With a seed: the game's own generator (shuffles) is seeded with it
        and chance decisions are drawn as `tabula run --seed` draws them
        (agents.chance_rng), so the same seed and actions give the same game; without:
        the seed after the last one (the first drawn at random)."""
        from ..bots.agents import chance_rng
        if seed is None:
            seed = self._seeds if self._seeds is not None else \
                random.SystemRandom().getrandbits(31)
        game_seed = _whole_seed(seed)
        self._seeds = game_seed + 1
        self._chance = chance_rng(game_seed)
        self.tabula = self.game.new_state(seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict = {a: {} for a in self.agents}
        self._advance()

    def _advance(self) -> None:
        """Play chance decisions, then point at the next agent (or end the game)."""
        st = self.tabula
        while st.is_chance_node():
            st.apply(st.sample_chance(self._chance))
        if st.terminal:
            for a, r in zip(self.possible_agents, self._returns()):
                if a in self.rewards:
                    self.rewards[a] = float(r)
                    self.terminations[a] = True
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        self.agent_selection = self.possible_agents[st.current_player()]

    def _returns(self) -> list:
        st = self.tabula
        if self.returns_mode != "win_loss":
            return [float(x) for x in st.scores()]
        n = self.game.players
        won = set(st.winners())
        return [0.0] * n if len(won) == n else [1.0 if p in won else -1.0 for p in range(n)]

    def step(self, action) -> None:
        self._started("step()")
        self._still_on()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.tabula
        player = self._index[agent]
        if action is None:
            raise IllegalAction(f"{agent} is to choose: None is not an action")
        chosen = self.space.action_tuple(st, action, player)
        st.apply(chosen)            # at a simultaneous decision: this chooser's choice
        self._cumulative_rewards[agent] = 0.0
        for a in self.rewards:
            self.rewards[a] = 0.0
        self._advance()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        self._started("observe()")
        player = self._agent(agent)
        vec = np.zeros(max(self.encoder.size, 1), np.float32)
        self.encoder.encode(self.tabula, player, vec)
        mask = np.zeros(max(self.space.num_actions, 1), np.int8)
        if not self.tabula.terminal and player in self.tabula.choosers():
            for i in self.space.ids(self.tabula, player):
                mask[i] = 1
        return {"observation": vec, "action_mask": mask}

    def legal_action_strings(self, agent) -> dict:
        """{id: text} of the agent's legal actions now (for people and logs)."""
        self._started("legal_action_strings()")
        player = self._agent(agent)
        if self.tabula.terminal or player not in self.tabula.choosers():
            return {}
        return {i: self.tabula.action_to_string(a, player)
                for i, a in sorted(self.space.ids(self.tabula, player).items())}

    def render(self):
        if self.render_mode is None:
            return None
        st = self._started("render()")
        lines = [f"turn {st.turn}; " + ("over: scores " + str(st.scores()) if st.terminal
                                        else f"to choose: {st.choosers()}")]
        if not st.terminal:
            for p in st.choosers():
                lines.append(f"player {p}: " + ", ".join(
                    f"{i}={t}" for i, t in self.legal_action_strings(f"player_{p}").items()))
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def last(self, observe: bool = True) -> tuple:
        self._started("last()")
        self._still_on()
        return super().last(observe)

    def _still_on(self) -> None:
        """An error once the ended game has no agent left to step (PettingZoo's own
        environments raise a KeyError there)."""
        if self.agent_selection not in self.terminations:
            raise TabulaError("the game is over and every agent has left it (each stepped "
                              "with None): call reset() for a new game")

    def agent_iter(self, max_iter: int = 2 ** 63) -> Any:
        self._started("agent_iter()")
        return super().agent_iter(max_iter)

    def close(self) -> None:
        pass


def env(spec, players: int | None = None, options=None, **kwargs) -> TabulaEnv:
    """A PettingZoo AEC environment of a spec (see TabulaEnv)."""
    return TabulaEnv(spec, players=players, options=options, **kwargs)


__all__ = ["NotReset", "TabulaEnv", "env"]
