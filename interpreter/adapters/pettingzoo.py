"""Any spec as a PettingZoo environment: AEC (`env`) and parallel (`parallel_env`).

Input: a spec path, a player count and options. Output: an environment whose agents are
"player_0" .. "player_{n-1}", whose actions are the ids of the game's fixed action space
(interpreter/adapters/actionspace.py) and whose observations are dicts

    {"observation": float32 vector (interpreter/adapters/observe.py, what the agent may see),
     "action_mask": int8 vector over the action space (1: legal for this agent now)}

Chance decisions are made inside the environment by a generator seeded by
reset(seed=...) (each outcome with its probability). Rewards come at the end only: the
returns (the spec's game.returns, or `returns=` given here).

The AEC environment (`env`, TabulaEnv) asks one agent at a time: a simultaneous decision
asks its players one after the other, in the order of the spec's choosers, and nobody
sees a choice before all have chosen (the engine reveals the joint move at once).

    from tabula_rules.pettingzoo import env
    e = env(spec="path/to/game.yaml", players=3, options={"board": "large"})
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else pick(obs["action_mask"])
        e.step(action)

The parallel environment (`parallel_env`, TabulaParallelEnv) steps every live agent at
once, as PettingZoo's parallel API does: at a simultaneous decision (sealed bids, say)
every chooser's action is applied together; at a decision only some players make (any
sequential decision: one player) the others have one legal action, the no-op `wait`,
the last id of their action space (num_distinct_actions, as OpenSpiel's simultaneous
games number it): their mask holds it alone, and they send it (or nothing, or None).
Any other action of theirs is refused rather than ignored.

    from tabula_rules.pettingzoo import parallel_env
    p = parallel_env("path/to/a_simultaneous_game.yaml")
    obs, infos = p.reset(seed=1)
    while p.agents:
        actions = {a: p.action_space(a).sample(obs[a]["action_mask"]) for a in p.agents}
        obs, rewards, terminations, truncations, infos = p.step(actions)

Misuse is a clear error, a TabulaError that is also the exception PettingZoo's own
environments and wrappers raise for the same mistake: a method called before reset()
raises NotReset (an AssertionError, as the order-enforcing wrapper's; reading `agents`,
`agent_selection`, `rewards`, ... before reset() is also an AttributeError); an agent
that is not one of the game's UnknownAgent (a KeyError); a terminated agent stepped
with an action other than None DeadAgentAction (a ValueError, as AECEnv's own
_was_dead_step); an action that is no legal id IllegalAction; a seed that is not a
whole number 0 or more, a step once the game is over and every agent has left, a bad
parameter: TabulaError.

Importing this module imports pettingzoo, gymnasium and numpy; `import tabula_rules`
does not.
"""

from __future__ import annotations

import numbers
import os
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ..errors import IllegalAction, TabulaError, did_you_mean
from ..runtime.engine import State
from ..runtime.model import check_seed
from ..spec import load_spec, parse_option_text
from .actionspace import DEFAULT_INT_SPAN, ActionSpace
from .observe import Encoder


class NotReset(TabulaError, AssertionError):
    """A method of the environment called before its first reset(): a TabulaError, and
    the AssertionError PettingZoo's OrderEnforcingWrapper raises for the same mistake."""


class NotResetAttribute(NotReset, AttributeError):
    """An attribute that a game in progress has (agents, agent_selection, rewards, ...)
    read before the first reset(): also the AttributeError PettingZoo's
    OrderEnforcingWrapper raises ("... cannot be accessed before reset")."""


class UnknownAgent(TabulaError, KeyError):
    """An agent's name that is not one of the game's: also the KeyError a PettingZoo
    environment's dicts raise for it."""

    def __str__(self) -> str:          # a KeyError's str() would quote the message
        return str(self.args[0]) if self.args else ""


class DeadAgentAction(IllegalAction, ValueError):
    """A terminated agent stepped with an action other than None: also the ValueError
    PettingZoo's AECEnv._was_dead_step raises."""


# what a game in progress has, and reset() makes
_AFTER_RESET = frozenset({"agents", "agent_selection", "rewards", "terminations",
                          "truncations", "infos", "num_agents", "_cumulative_rewards"})
_PARAMETERS = ("spec", "players", "options", "returns", "int_span", "render_mode")


def _whole_seed(seed: Any) -> int:
    """A seed given to reset(): a whole number (a numpy integer too), 0 or more, in the
    range of seeds and no alias of another (model.check_seed)."""
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or int(seed) < 0:
        raise TabulaError(f"seed {seed!r:.40}: a seed is a whole number, 0 or more")
    check_seed(int(seed))
    return int(seed)


def _options(options) -> dict:
    """A dict, or text as spec.parse_option_text reads it (KEY=VALUE;...)."""
    return {} if options is None else parse_option_text(options)


def _action_id(action: Any) -> int:
    """An action as a whole number: an int, a numpy integer, or a numpy array holding one
    integer (what a policy's output often is); IllegalAction for anything else."""
    if isinstance(action, np.ndarray) and action.size == 1 and \
            np.issubdtype(action.dtype, np.integer):
        return int(action.reshape(()))
    if isinstance(action, numbers.Integral) and not isinstance(action, bool):
        return int(action)
    raise IllegalAction(f"{action!r:.60} is not an action id (a whole number)")


class _Table:
    """What both environments share: the game, its action space and encoder, the agents,
    the seeds, chance played inside, the returns."""

    metadata: dict = {}
    render_mode: str | None

    def _setup(self, spec, players, options, returns: str, int_span, render_mode,
               extra_actions: int = 0) -> None:
        if not isinstance(spec, (str, os.PathLike)):
            raise TabulaError(f"spec is a path or a shipped game's name, not {spec!r:.40}")
        if players is not None and (not isinstance(players, numbers.Integral)
                                    or isinstance(players, bool)):
            raise TabulaError(f"players is a whole number (or None: the spec's least), "
                              f"not {players!r:.40}")
        if not isinstance(int_span, numbers.Integral) or isinstance(int_span, bool):
            raise TabulaError(f"int_span is a whole number, not {int_span!r:.40}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise TabulaError(f"render_mode is one of {self.metadata['render_modes']}, "
                              f"not {render_mode!r:.40}")
        if returns not in ("", "win_loss", "scores"):
            raise TabulaError(f"returns is '', 'win_loss' or 'scores', not {returns!r:.40}")
        self.spec = load_spec(spec if isinstance(spec, str) else Path(spec))
        self.game = self.spec.game(None if players is None else int(players),
                                   _options(options))
        self.returns_mode = returns or self.game.prog.returns
        self.space = ActionSpace(self.game, int(int_span))
        self.encoder = Encoder(self.game)
        self.render_mode = render_mode
        n = self.game.players
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        self._size = max(self.space.num_actions + extra_actions, 1)
        self._action_spaces = {a: spaces.Discrete(self._size) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (max(self.encoder.size, 1),),
                                      np.float32),
            "action_mask": spaces.Box(0, 1, (self._size,), np.int8)})
            for a in self.possible_agents}
        # the game being played and its chance generator: set by reset()
        self.tabula: State = None  # type: ignore[assignment]
        self._chance: random.Random = None  # type: ignore[assignment]
        self._seeds: int | None = None

    # -- spaces -----------------------------------------------------------------------------
    def observation_space(self, agent):
        self._agent(agent)
        return self._observation_spaces[agent]

    def action_space(self, agent):
        self._agent(agent)
        return self._action_spaces[agent]

    @property
    def observation_spaces(self) -> dict:
        """{agent: its observation space} (the older dict form some libraries read)."""
        return dict(self._observation_spaces)

    @property
    def action_spaces(self) -> dict:
        """{agent: its action space} (the older dict form some libraries read)."""
        return dict(self._action_spaces)

    def _agent(self, agent) -> int:
        """The player of an agent's name (UnknownAgent naming the agents if it is none)."""
        player = self._index.get(agent) if isinstance(agent, str) else None
        if player is None:
            names = self.possible_agents
            raise UnknownAgent(f"there is no agent {agent!r:.40} in this game (its agents: "
                               f"{names[0]} to {names[-1]})")
        return player

    def _started(self, what: str) -> State:
        """The game in progress (NotReset before the first reset())."""
        if self.tabula is None:
            raise NotReset(f"reset() needs to be called before {what}")
        return self.tabula

    # -- the game -----------------------------------------------------------------------------
    def _new_game(self, seed) -> None:
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
        self._play_chance()

    def _play_chance(self) -> None:
        st = self.tabula
        while st.is_chance_node():
            st.apply(st.sample_chance(self._chance))

    def _returns(self) -> list:
        st = self.tabula
        if self.returns_mode != "win_loss":
            return [float(x) for x in st.scores()]
        n = self.game.players
        won = set(st.winners())
        return [0.0] * n if len(won) == n else [1.0 if p in won else -1.0 for p in range(n)]

    def _observation(self, player: int, wait: int | None = None) -> dict:
        """The agent's tensor and its mask (wait: the no-op's id, set alone in the mask
        of a player who is not to choose)."""
        st = self.tabula
        vec = np.zeros(max(self.encoder.size, 1), np.float32)
        self.encoder.encode(st, player, vec)
        mask = np.zeros(self._size, np.int8)
        if not st.terminal and player in st.choosers():
            for i in self.space.ids(st, player):
                mask[i] = 1
        elif wait is not None and not st.terminal:
            mask[wait] = 1
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

    def state(self):
        raise _NoState("state() is not provided: a Tabula environment gives each agent its "
                       "own observation (observe(agent)); a global state would show what "
                       "the spec hides")

    def close(self) -> None:
        pass

    def __getattr__(self, name: str):
        # only for names not found: a game's attributes read before reset()
        if name in _AFTER_RESET:
            raise NotResetAttribute(f"{name} cannot be accessed before reset(): call "
                                    "reset() first")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


class _NoState(TabulaError, NotImplementedError):
    """state(), which PettingZoo's environments raise NotImplementedError for."""


class TabulaEnv(_Table, AECEnv):
    """A spec as a PettingZoo AEC environment (see the module's docstring)."""

    metadata: dict = {"render_modes": ["ansi", "human"], "name": "tabula_v0",
                      "is_parallelizable": False}

    def __init__(self, spec, players: int | None = None, options=None, returns: str = "",
                 int_span: int = DEFAULT_INT_SPAN, render_mode: str | None = None):
        AECEnv.__init__(self)
        self._setup(spec, players, options, returns, int_span, render_mode)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game (see _Table._new_game; `options` is PettingZoo's reset argument,
        unused: the spec's options are the environment's)."""
        self._new_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict = {a: {} for a in self.agents}
        self._advance()

    def _advance(self) -> None:
        """Play chance decisions, then point at the next agent (or end the game)."""
        self._play_chance()
        st = self.tabula
        if st.terminal:
            for a, r in zip(self.possible_agents, self._returns()):
                if a in self.rewards:
                    self.rewards[a] = float(r)
                    self.terminations[a] = True
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        self.agent_selection = self.possible_agents[st.current_player()]

    def step(self, action) -> None:
        self._started("step()")
        self._still_on()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise DeadAgentAction(
                    f"{agent} is terminated (the game is over): when an agent is dead, "
                    f"the only valid action is None (PettingZoo's rule), not {action!r:.40}")
            self._was_dead_step(action)
            return
        st = self.tabula
        player = self._index[agent]
        if action is None:
            raise IllegalAction(f"{agent} is to choose: None is not an action")
        chosen = self.space.action_tuple(st, _action_id(action), player)
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
        return self._observation(self._agent(agent))

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


class TabulaParallelEnv(_Table, ParallelEnv):
    """A spec as a PettingZoo parallel environment (see the module's docstring): every
    live agent acts at every step; those not to choose send `wait` (self.wait)."""

    metadata: dict = {"render_modes": ["ansi", "human"], "name": "tabula_parallel_v0",
                      "is_parallelizable": True}

    def __init__(self, spec, players: int | None = None, options=None, returns: str = "",
                 int_span: int = DEFAULT_INT_SPAN, render_mode: str | None = None):
        self._setup(spec, players, options, returns, int_span, render_mode, extra_actions=1)
        self.wait = self.space.num_actions   # the no-op of an agent not to choose
        self.agents: list = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple:
        """A new game (as the AEC environment's reset); its observations and infos."""
        self._new_game(seed)
        self.agents = self.possible_agents[:]
        return ({a: self._observation(p, self.wait) for p, a in enumerate(self.agents)},
                {a: {} for a in self.agents})

    def step(self, actions) -> tuple:
        """One action per live agent: the choosers' legal ids, `wait` (or None, or
        nothing) for the others. Everything is checked before anything is applied."""
        st = self._started("step()")
        if not self.agents:
            raise TabulaError("the game is over: call reset() for a new game")
        if not isinstance(actions, Mapping):
            raise TabulaError(f"step() takes a dict of actions by agent, not "
                              f"{type(actions).__name__}")
        for agent in actions:
            self._agent(agent)
        choosers = st.choosers()
        chosen: dict = {}
        for agent in self.agents:
            p = self._index[agent]
            a = actions.get(agent)
            if p in choosers:
                if a is None:
                    raise IllegalAction(f"{agent} is to choose: its action is missing")
                n = _action_id(a)
                if n == self.wait:
                    raise IllegalAction(f"{agent} is to choose: {n} (wait) is the action "
                                        "of an agent that is not")
                chosen[p] = self.space.action_tuple(st, n, p)
            elif a is not None and _action_id(a) != self.wait:
                raise IllegalAction(f"{agent} is not to choose now: its only action is "
                                    f"{self.wait} (wait), or None, not {a!r:.40}")
        if st.is_simultaneous_node():
            st.apply_actions(chosen)
        elif chosen:
            st.apply(chosen[choosers[0]])
        self._play_chance()
        live = self.agents
        over = st.terminal
        returns = self._returns() if over else None
        obs = {a: self._observation(self._index[a], self.wait) for a in live}
        rewards = {a: (returns[self._index[a]] if returns else 0.0) for a in live}
        terminations = {a: over for a in live}
        truncations = {a: False for a in live}
        infos: dict = {a: {} for a in live}
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos


def _checked(kwargs: dict) -> dict:
    for k in kwargs:
        if k not in _PARAMETERS:
            hint = did_you_mean(str(k), _PARAMETERS)
            raise TabulaError(f"no parameter {k!r:.40}; the parameters: "
                              + ", ".join(_PARAMETERS) + (f" ({hint})" if hint else ""))
    return kwargs


def env(spec, players: int | None = None, options=None, **kwargs) -> TabulaEnv:
    """A PettingZoo AEC environment of a spec (see TabulaEnv)."""
    return TabulaEnv(spec, players=players, options=options, **_checked(kwargs))


def parallel_env(spec, players: int | None = None, options=None,
                 **kwargs) -> TabulaParallelEnv:
    """A PettingZoo parallel environment of a spec (see TabulaParallelEnv)."""
    return TabulaParallelEnv(spec, players=players, options=options, **_checked(kwargs))


__all__ = ["DeadAgentAction", "NotReset", "NotResetAttribute", "TabulaEnv",
           "TabulaParallelEnv", "UnknownAgent", "env", "parallel_env"]
