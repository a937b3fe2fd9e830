"""Any spec as an OpenSpiel game: `pyspiel.load_game("tabula", {"spec": ...})`.

Input: a spec path, a player count, options (and a few settings below). Output: a
pyspiel.Game registered under the name "tabula", whose states are Tabula states seen
through the fixed action space of interpreter/adapters/actionspace.py. Importing this module
imports pyspiel and registers the game; `import tabula_rules` does neither.

    import pyspiel
    import tabula_rules.openspiel          # registers "tabula"
    game = pyspiel.load_game("tabula", {"spec": "path/to/game.yaml", "players": 3,
                                        "options": "board=large"})

Parameters (all optional but spec):

    spec       the spec's folder or file
    players    the player count (0: the spec's smallest)
    options    the options, KEY=VALUE or KEY:VALUE separated by ';' (',' too when the
               parameters are a dict); in a game string, KEY:VALUE (OpenSpiel's
               parser takes no '=' in a value): "tabula(spec=path/to/game.yaml,players=3,
               options=board:large)"
    returns    "" (the spec's game.returns), "win_loss" or "scores"
    utility    "" (zero-sum for two-player win_loss, else general-sum) or "zero_sum"
               (a claim, checked at every end: the returns must sum to 0)
    seed       the seed of the states' own generator (shuffles): the same seed and
               actions give the same game
    int_span   the width of a number binding the compiler cannot bound (actionspace.py)
    max_utility, min_utility   the range of `scores` returns (checked at every end)

A decision of one player is that player's node, a chance decision a chance node (its
outcomes and weights in chance_outcomes), a simultaneous decision a simultaneous node
(apply_actions; a player who does not choose there has one action, `wait`, the last
id). Returns at the end only (reward model terminal).

Serialization is Tabula's JSON only, checked on the way in: `state.serialize()` is the
Tabula state's JSON text, and `game.deserialize_state(text)` reads nothing else: it
checks the JSON (State.from_json, runtime/saved.py), replays its history from the
game's seed through OpenSpiel's apply_action (so the state has OpenSpiel's history too)
and loads it only if the replay gives that very state. OpenSpiel's own form for Python
games (`history=...`, `move_number=...`, `__dict__=` a base64 pickle, which unpickling
would run) is never read: pyspiel.serialize_game_and_state and
pyspiel.deserialize_game_and_state are wrapped at registration, so that a tabula game's
state section is its JSON and every other game goes to pyspiel's own functions.
"""

from __future__ import annotations

import json
import math
import numbers
import random

import numpy as np
import pyspiel

from ..errors import IllegalAction, TabulaError
from ..runtime.engine import State
from ..runtime.saved import UNREACHABLE, differences
from ..spec import load_spec, parse_option_text
from .actionspace import DEFAULT_INT_SPAN, ActionSpace
from .observe import Encoder

# the options of a game string (KEY:VALUE, as OpenSpiel's parser needs): spec.py's reader
parse_options = parse_option_text

NAME = "tabula"
DEFAULT_MAX_UTILITY = 1_000_000.0
PARAMETERS = {"spec": "", "players": 0, "options": "", "returns": "", "utility": "",
              "seed": 0, "int_span": DEFAULT_INT_SPAN,
              "max_utility": DEFAULT_MAX_UTILITY, "min_utility": -DEFAULT_MAX_UTILITY}
MAX_PLAYERS = 16
# OpenSpiel keeps an integer parameter as a C++ int
INT_PARAMETER = (-2 ** 31, 2 ** 31 - 1)

_T = pyspiel.GameType
_REGISTERED_TYPE = _T(
    short_name=NAME, long_name="Tabula spec",
    dynamics=_T.Dynamics.SEQUENTIAL, chance_mode=_T.ChanceMode.EXPLICIT_STOCHASTIC,
    information=_T.Information.IMPERFECT_INFORMATION, utility=_T.Utility.GENERAL_SUM,
    reward_model=_T.RewardModel.TERMINAL, max_num_players=MAX_PLAYERS, min_num_players=1,
    provides_information_state_string=True, provides_information_state_tensor=False,
    provides_observation_string=True, provides_observation_tensor=True,
    parameter_specification=PARAMETERS)


def uses_shuffles(prog) -> bool:
    """Does the game draw from the state's generator (a shuffle, a shuffled move)? The
    compiler records every draw (Program.facts.randomness: compiler/analysis.py)."""
    return any(d.kind != "chance decision" for d in prog.facts.randomness)


def draws_randomness(prog) -> bool:
    """Does the game draw randomness at all: from the state's generator, or at a chance
    decision?"""
    return prog.facts.random


def hides_information(prog) -> bool:
    """Does some player not see everything (a zone or variable not public, an action
    seen by some players only, or a simultaneous decision)?"""
    if any(z.visibility != "public" for z in prog.zones.values()):
        return True
    if any(v != "public" for v in list(prog.gvar_vis) + list(prog.pvar_vis)):
        return True
    return any(d.chooser_slot is not None or any(a.visible is not None for a in d.alts)
               for d in prog.decisions)


class Context:
    """One loaded game (spec, players, options, settings): the Tabula game with
    information states, its action space and observation encoder. Shared by the states
    of a game; copied and pickled as its key (so states serialize small)."""

    _cache: dict = {}

    def __init__(self, key: tuple):
        spec, players, options, returns, utility, seed, int_span, lo, hi = key
        self.key = key
        if not spec:
            raise TabulaError("the tabula game needs a spec: "
                              "pyspiel.load_game('tabula', {'spec': 'specs/GAME'})")
        self.spec = load_spec(spec)
        self.game = self.spec.game(players or None, parse_option_text(options), recall=True)
        self.prog = prog = self.game.prog
        self.players = prog.players
        if returns not in ("", "win_loss", "scores"):
            raise TabulaError(f"returns is '', 'win_loss' or 'scores', not '{returns}'")
        self.returns_mode = returns or prog.returns
        if utility not in ("", "zero_sum", "general_sum"):
            raise TabulaError(f"utility is '', 'zero_sum' or 'general_sum', not '{utility}'")
        win_loss = self.returns_mode == "win_loss"
        self.zero_sum = utility == "zero_sum" or (
            utility == "" and win_loss and self.players == 2)
        if seed < 0:
            raise TabulaError(f"seed {seed}: a game's seed is a whole number, 0 or more")
        self.seed = int(seed)
        self.space = ActionSpace(self.game, int_span)
        self.encoder = Encoder(self.game)
        self.wait = self.space.num_actions if self.space.simultaneous else None
        for name, value in (("min_utility", lo), ("max_utility", hi)):
            if not math.isfinite(value):
                raise TabulaError(f"{name} is {value}: the range of the returns is two "
                                  "finite numbers")
        self.min_utility, self.max_utility = (-1.0, 1.0) if win_loss else (float(lo), float(hi))
        if self.min_utility >= self.max_utility:
            raise TabulaError("min_utility must be below max_utility")

    @classmethod
    def get(cls, key: tuple) -> Context:
        found = cls._cache.get(key)
        if found is None:
            found = cls._cache[key] = Context(key)
        return found

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (Context.get, (self.key,))

    # -- what OpenSpiel is told -----------------------------------------------------------
    def game_type(self) -> pyspiel.GameType:
        prog, space = self.prog, self.space
        # shuffles draw from the state's generator, seeded by the `seed` parameter: for
        # OpenSpiel, each seed is a game of its own whose deals are fixed (and hidden by
        # the zones' visibility); only chance decisions are chance nodes
        if space.num_outcomes:
            chance = _T.ChanceMode.EXPLICIT_STOCHASTIC
        else:
            chance = _T.ChanceMode.DETERMINISTIC
        lo, hi = self.spec.player_range
        return _T(
            short_name=NAME, long_name=f"Tabula: {self.spec.id}",
            dynamics=_T.Dynamics.SIMULTANEOUS if space.simultaneous else _T.Dynamics.SEQUENTIAL,
            chance_mode=chance,
            information=(_T.Information.IMPERFECT_INFORMATION if hides_information(prog)
                         else _T.Information.PERFECT_INFORMATION),
            utility=_T.Utility.ZERO_SUM if self.zero_sum else _T.Utility.GENERAL_SUM,
            reward_model=_T.RewardModel.TERMINAL, max_num_players=hi, min_num_players=lo,
            provides_information_state_string=True, provides_information_state_tensor=False,
            provides_observation_string=True, provides_observation_tensor=True,
            parameter_specification=PARAMETERS)

    def game_info(self) -> pyspiel.GameInfo:
        space = self.space
        return pyspiel.GameInfo(
            num_distinct_actions=space.num_actions + (1 if space.simultaneous else 0),
            max_chance_outcomes=space.num_outcomes, num_players=self.players,
            min_utility=self.min_utility, max_utility=self.max_utility,
            utility_sum=0.0 if self.zero_sum else None,
            # every decision (a chance outcome too) is one of game.max_decisions, and at
            # least one step of the engine's budget (game.max_steps)
            max_game_length=int(min(self.prog.max_steps, self.prog.max_decisions)))

    # -- returns ---------------------------------------------------------------------------
    def returns(self, st) -> list:
        n = self.players
        if not st.terminal:
            return [0.0] * n
        if self.returns_mode == "win_loss":
            won = set(st.winners())
            out = [0.0] * n if len(won) == n else [1.0 if p in won else -1.0 for p in range(n)]
        else:
            out = [float(x) for x in st.scores()]
            if any(not self.min_utility <= x <= self.max_utility for x in out):
                raise TabulaError(f"the returns {out} fall outside min_utility..max_utility "
                                  f"({self.min_utility}..{self.max_utility}): raise them")
        if self.zero_sum and abs(sum(out)) > 1e-9:
            raise TabulaError(f"the returns {out} do not sum to 0: the game is not zero-sum "
                              "(load it without utility=zero_sum)")
        return out


class _Box:
    """The Tabula state inside an OpenSpiel state: OpenSpiel clones a Python state by
    deep-copying its attributes, so the box copies with State.clone. OpenSpiel's C++
    code (random_sim_test, pickle) serializes a Python state by pickling its attributes:
    the box pickles as the state's JSON text, read back by State.from_json, checked, and
    replayed from the game's seed when the state was made from it (`from_seed`: made by
    new_initial_state and played since, so its history is its whole game)."""

    __slots__ = ("st", "ctx", "known", "from_seed")

    def __init__(self, st, ctx, from_seed: bool = False):
        self.st, self.ctx = st, ctx
        self.known: tuple = (None, None)    # (key, {id: action}) of the last listing
        self.from_seed = from_seed

    def __deepcopy__(self, memo):
        return _Box(self.st.clone() if self.st is not None else None, self.ctx,
                    self.from_seed)

    def ids(self, player=None) -> dict:
        """{id: action} of the legal actions of `player` now (kept until a change)."""
        st = self.st
        key = (id(st.pending), len(st.history), player)
        if self.known[0] != key:
            self.known = (key, self.ctx.space.ids(st, player))
        return self.known[1]

    def __reduce__(self):
        text = self.st.to_json_text() if self.st is not None else None
        return (_unbox, (self.ctx.key, text, self.from_seed))


def _unbox(key, text, from_seed=False):
    ctx = Context.get(key)
    if text is None:
        return _Box(None, ctx, True)
    seed = ctx.seed if from_seed else None
    return _Box(State.from_json(ctx.game, _json_of(text), seed=seed), ctx, bool(from_seed))


def _json_of(text):
    """The JSON data of a saved state's text, or a clear error."""
    if not isinstance(text, str):
        raise TabulaError(f"a saved tabula state is JSON text, not a {type(text).__name__}")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        pickled = "__dict__=" in text or text.startswith("history=")
        raise TabulaError(
            "not a saved tabula state: a tabula state serializes as Tabula's JSON text "
            "(State.to_json_text)" + (
                ", and OpenSpiel's pickled form of Python states (history=, move_number=, "
                "__dict__=) is never read: unpickling it would run any code it names"
                if pickled else f" ({str(exc)[:80]})")) from None


def _restore(game: TabulaGame, text) -> TabulaState:
    """game.deserialize_state: the JSON checked (State.from_json), then its history
    replayed from the game's seed through OpenSpiel's apply_action / apply_actions (the
    new state has OpenSpiel's history as a state played to there), and the replay must
    give the very state saved."""
    ctx = game.ctx
    saved = State.from_json(ctx.game, _json_of(text))
    out = game.new_initial_state()
    st, space, history = out.tabula, ctx.space, saved.history
    i = 0
    while i < len(history):
        a = history[i]
        if st.terminal:
            raise TabulaError(f"{UNREACHABLE}: its history goes on after the end of the game "
                              f"(decision {i + 1} of {len(history)}, from seed {ctx.seed})")
        if st.is_simultaneous_node():
            joint = [ctx.wait] * ctx.players
            move = st.pending.joint
            if i + len(move) > len(history):
                raise TabulaError(f"{UNREACHABLE}: its history ends inside a simultaneous "
                                  "move (OpenSpiel applies a joint move at once)")
            for k, (who, actions) in enumerate(move):
                if history[i + k] not in actions:
                    raise TabulaError(f"{UNREACHABLE}: decision {i + k + 1} of its history "
                                      f"is not a legal action of player {who} there "
                                      f"(played from seed {ctx.seed})")
                joint[who] = space.action_id(history[i + k])
            out.apply_actions(joint)
            i += len(move)
            continue
        if a not in st.legal_actions():
            raise TabulaError(f"{UNREACHABLE}: decision {i + 1} of its history is not legal "
                              f"there (played from seed {ctx.seed})")
        out.apply_action(space.action_id(a))
        i += 1
    wrong = differences(st.to_json(), saved.to_json())
    if wrong:
        raise TabulaError(f"{UNREACHABLE}: its {', '.join(wrong)} differ from the state its "
                          f"history of {len(history)} decisions plays from the game's seed "
                          f"({ctx.seed})")
    return out


class TabulaGame(pyspiel.Game):
    """A spec as an OpenSpiel game (see the module's docstring)."""

    def __init__(self, params=None):
        params = dict(PARAMETERS, **(params or {}))
        options = ";".join(f"{k}:{v}"
                           for k, v in sorted(parse_option_text(params["options"]).items()))
        key = (str(params["spec"]), int(params["players"]), options,
               str(params["returns"]), str(params["utility"]), int(params["seed"]),
               int(params["int_span"]), float(params["min_utility"]),
               float(params["max_utility"]))
        self.ctx = Context.get(key)
        super().__init__(self.ctx.game_type(), self.ctx.game_info(), params)

    @property
    def space(self) -> ActionSpace:
        return self.ctx.space

    def new_initial_state(self, *args):
        if args:
            raise TabulaError("a tabula state is made from the game's seed, not from a text")
        return TabulaState(self, self.ctx)

    def deserialize_state(self, text):
        """The state serialized as `text` (TabulaState.serialize: Tabula's JSON), checked
        and replayed (_restore); nothing else is read."""
        return _restore(self, text)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return InfoStateObserver(self.ctx) if recall else Observer(self.ctx)


class TabulaState(pyspiel.State):
    """A Tabula state as an OpenSpiel state. The Tabula state itself (`tabula`) is made
    on first use, so that a clone (a new state given a copy) never runs the set-up."""

    def __init__(self, game, ctx):
        super().__init__(game)
        self._box = _Box(None, ctx, True)

    @property
    def tabula(self) -> State:
        box = self._box
        if box.st is None:
            box.st = box.ctx.game.new_state(seed=box.ctx.seed)
        return box.st

    @property
    def ctx(self) -> Context:
        return self._box.ctx

    # -- OpenSpiel's API -----------------------------------------------------------------
    def current_player(self):
        st = self.tabula
        if st.terminal:
            return pyspiel.PlayerId.TERMINAL
        if st.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        if st.is_simultaneous_node():
            return pyspiel.PlayerId.SIMULTANEOUS
        return st.current_player()

    def _legal_actions(self, player):
        st = self.tabula
        if st.terminal:
            return []
        if st.is_simultaneous_node() and player not in st.choosers():
            return [self.ctx.wait]
        return sorted(self._box.ids(player if st.is_simultaneous_node() else None))

    def chance_outcomes(self):
        st = self.tabula
        space = self.ctx.space
        return sorted((space.action_id(a), p) for a, p in st.chance_outcomes())

    def _apply_action(self, action):
        st = self.tabula
        found = self._box.ids().get(action) if type(action) is int else None
        st.apply(found if found is not None else self.ctx.space.action_tuple(st, action))

    def _apply_actions(self, actions):
        st = self.tabula
        if not st.is_simultaneous_node():
            raise IllegalAction("no simultaneous decision is pending")
        actions = list(actions)
        if len(actions) != self.ctx.players:
            raise IllegalAction(f"a joint action has one action per player "
                                f"({self.ctx.players}), not {len(actions)}")
        choosers = st.choosers()
        joint = {}
        for p, a in enumerate(actions):
            if p in choosers:
                joint[p] = self.ctx.space.action_tuple(st, a, p)
            elif a != self.ctx.wait:
                raise IllegalAction(f"player {p} does not choose here: their action is "
                                    f"{self.ctx.wait} (wait), not {a}")
        st.apply_actions(joint)

    def _action_to_string(self, player, action):
        st = self.tabula
        space = self.ctx.space
        chance = player == pyspiel.PlayerId.CHANCE
        if not chance and action == self.ctx.wait:
            return "wait"
        who = None if chance or player < 0 else player
        try:
            found = space.ids(st, who).get(int(action))
        except TabulaError:
            found = None
        if found is not None:
            return st.action_to_string(found, who)
        try:
            return space.describe(int(action), chance)
        except IllegalAction:
            return f"invalid action {action}"

    def is_terminal(self):
        return self.tabula.terminal

    def returns(self):
        return self.ctx.returns(self.tabula)

    def rewards(self):
        return self.returns() if self.tabula.terminal else [0.0] * self.ctx.players

    def __str__(self):
        st = self.tabula
        return json.dumps({"turn": st.turn, "zones": st.zones_view(None),
                           "variables": st.gv, "player_variables": st.pv,
                           "history": len(st.history), "terminal": st.terminal},
                          sort_keys=True, separators=(",", ":"), default=str)

    def __deepcopy__(self, memo):      # a Python-side copy: a clone
        return self.clone()

    def serialize(self):
        """The Tabula state as its JSON text (State.to_json_text), which
        game.deserialize_state reads back by replaying its history from the game's
        seed: a state made by wrap() or resample_from_infostate, whose history is not
        its game's, is refused."""
        if not self._box.from_seed:
            raise TabulaError("this state was made by wrap() or resample_from_infostate: its "
                              "history is not a game played from this game's seed, so it "
                              "cannot be serialized (deserialize_state replays the history)")
        return self.tabula.to_json_text()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state that `player_id` cannot tell from this one, the rest drawn at random
        (OpenSpiel's ResampleFromInfostate, which its IS-MCTS calls): State.resample
        (what the seat cannot see redealt among the places it cannot see into), with a
        generator seeded by one draw of `probability_sampler` (a callable giving a
        float in [0, 1), as pyspiel.UniformProbabilitySampler(0., 1.) does). Its
        information state and observation for `player_id` are this state's; its
        history (OpenSpiel's and Tabula's) starts empty, as the true actions name what
        the seat may not know."""
        player = int(player_id)
        if not 0 <= player < self.ctx.players:
            raise TabulaError(f"there is no player {player_id} in this game")
        draw = probability_sampler()
        try:
            u = float(draw)
        except (TypeError, ValueError):
            u = -1.0
        if not 0.0 <= u < 1.0:          # NaN too
            raise TabulaError(f"the probability sampler gave {str(draw)[:40]}, not a "
                              "number from 0 to 1 (below 1)")
        seed = int(u * 2 ** 53)
        return wrap(self.get_game(), self.tabula.resample(player, random.Random(seed)))


class Observer:
    """observation_string / observation_tensor: what State.observation(player) shows
    (its legal actions left out), and its encoding (interpreter/adapters/observe.py)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.encoder = ctx.encoder
        self.tensor = np.zeros(max(self.encoder.size, 1), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.encoder.encode(state.tabula, player, self.tensor)

    def string_from(self, state, player):
        obs = state.tabula.observation(player)
        obs.pop("legal_actions", None)
        return json.dumps(obs, sort_keys=True, separators=(",", ":"))


class InfoStateObserver:
    """information_state_string: Tabula's information state (perfect recall); no tensor."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.tensor = None
        self.dict: dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        return state.tabula.information_state_string(player)


def wrap(game: TabulaGame, st: State) -> TabulaState:
    """An OpenSpiel state of `game` around the Tabula state `st` (a state of the same
    spec, players and options; its history is not OpenSpiel's)."""
    if st.game is not game.ctx.game and st.prog is not game.ctx.prog:
        raise TabulaError("this state belongs to another game")
    out = TabulaState(game, game.ctx)
    out._box.st = st
    out._box.from_seed = False      # its history is not a game from this game's seed
    return out


def play_game(game: TabulaGame, seats: list, seed: int = 0, fair: bool = True) -> State:
    """One game of `game` between seats that are OpenSpiel bots (anything with
    `step(state) -> action id`, e.g. open_spiel.python.algorithms.mcts.MCTSBot) and
    Tabula agents (tabula_rules.agents: random, greedy, mcts). Chance decisions are drawn
    as agents.play_game draws them (the same seed, the same draws). With `fair`, an
    OpenSpiel bot is shown a determinisation of the state (State.resample: what its
    seat cannot see redealt at random), as Tabula's agents are, instead of the true
    state (State.resample). The final Tabula state."""
    from ..bots.agents import Agent, View, agent_rng, chance_rng
    st = game.ctx.game.new_state(seed=seed)
    crng = chance_rng(seed)
    rngs = [agent_rng(seed, p) for p in range(len(seats))]
    space = game.ctx.space
    if len(seats) != game.ctx.players:
        raise TabulaError(f"this game has {game.ctx.players} seats, not {len(seats)}")
    while not st.terminal:
        if st.is_chance_node():
            st.apply(st.sample_chance(crng))
            continue
        if st.is_simultaneous_node():
            raise TabulaError("play_game plays sequential games (OpenSpiel's bots ask for "
                              "sequential turns)")
        who = st.current_player()
        bot = seats[who]
        if isinstance(bot, Agent):
            action = bot.act(View(st, who, rngs[who]))
        else:
            shown = st.resample(who, rngs[who]) if fair else st.clone()
            action = space.action_tuple(st, bot.step(wrap(game, shown)))
        st.apply(action)
    return st


def load(spec, players: int | None = None, options=None, **settings) -> pyspiel.Game:
    """pyspiel.load_game('tabula', ...) with Python arguments: options a dict or text.
    Each setting is checked here (its name, its type, an integer within OpenSpiel's C++
    int), so that a bad one is a TabulaError rather than pybind11's "Unable to cast"."""
    params: dict = {"spec": str(spec)}
    if players:
        params["players"] = players
    if options:
        opts = parse_option_text(options)
        params["options"] = ";".join(f"{k}:{v}" for k, v in opts.items())
    params.update(settings)
    return pyspiel.load_game(NAME, {k: _parameter(k, v) for k, v in params.items()})


def _parameter(name: str, value):
    """A parameter as OpenSpiel can carry it, of the type PARAMETERS gives it."""
    if name not in PARAMETERS:
        raise TabulaError(f"the tabula game has no parameter '{name}' "
                          f"(its parameters: {', '.join(sorted(PARAMETERS))})")
    kind = type(PARAMETERS[name])
    if kind is int:
        if not isinstance(value, numbers.Integral) or isinstance(value, bool):
            raise TabulaError(f"{name} is a whole number, not {value!r:.40}")
        lo, hi = INT_PARAMETER
        if not lo <= int(value) <= hi:
            raise TabulaError(f"{name} {value} is beyond OpenSpiel's integer parameters "
                              f"({lo} to {hi})")
        return int(value)
    if kind is float:
        if not isinstance(value, numbers.Real) or isinstance(value, bool) \
                or not math.isfinite(value):
            raise TabulaError(f"{name} is a finite number, not {value!r:.40}")
        return float(value)
    if not isinstance(value, str):
        raise TabulaError(f"{name} is a text, not {value!r:.40}")
    return value


# pyspiel's own serialize_game_and_state / deserialize_game_and_state, for every game
# but tabula (register() wraps them)
_PYSPIEL = {"serialize_game_and_state": pyspiel.serialize_game_and_state,
            "deserialize_game_and_state": pyspiel.deserialize_game_and_state}
_HEADERS = ("[Meta]", "[Game]", "[State]")


def serialize_game_and_state(game, state) -> str:
    """pyspiel.serialize_game_and_state, whose state section is the tabula state's JSON
    text (TabulaState.serialize) for a tabula game; pyspiel's own for any other."""
    if not isinstance(state, TabulaState):
        return _PYSPIEL["serialize_game_and_state"](game, state)
    return ("# Automatically generated by OpenSpiel SerializeGameAndState\n"
            f"{_HEADERS[0]}\nVersion: 1\n\n{_HEADERS[1]}\n{game.serialize()}\n"
            f"{_HEADERS[2]}\n{state.serialize()}\n")


def deserialize_game_and_state(text):
    """pyspiel.deserialize_game_and_state: the text's sections read as OpenSpiel's C++
    reads them; a tabula game's state is read by its deserialize_state (JSON only,
    checked and replayed), never unpickled; any other game goes to pyspiel's own."""
    if not isinstance(text, str):
        return _PYSPIEL["deserialize_game_and_state"](text)
    sections = ["", "", ""]
    at = -1
    for line in text.split("\n"):
        if not line or line[0] == "#":
            continue
        if line in _HEADERS:
            if _HEADERS.index(line) != at + 1:
                raise pyspiel.SpielError(f"a serialized game and state has its sections "
                                         f"in the order {', '.join(_HEADERS)}: {line} "
                                         "is out of place")
            at += 1
        elif at < 0:
            raise pyspiel.SpielError("a serialized game and state starts with its "
                                     f"{_HEADERS[0]} section")
        else:
            sections[at] += line + "\n"
    game_text, state_text = (x[:-1] if x.endswith("\n") else x for x in sections[1:])
    game = pyspiel.deserialize_game(game_text)
    if not isinstance(game, TabulaGame):
        return _PYSPIEL["deserialize_game_and_state"](text)
    return game, game.deserialize_state(state_text)


def register() -> None:
    if NAME not in pyspiel.registered_names():
        pyspiel.register_game(_REGISTERED_TYPE, TabulaGame)
    pyspiel.serialize_game_and_state = serialize_game_and_state
    pyspiel.deserialize_game_and_state = deserialize_game_and_state


register()

__all__ = ["NAME", "PARAMETERS", "TabulaGame", "TabulaState", "deserialize_game_and_state",
           "load", "parse_options", "play_game", "register", "serialize_game_and_state",
           "wrap"]
