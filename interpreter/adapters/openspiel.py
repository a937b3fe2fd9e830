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
    utility    "": the spec's game.utility when the returns are the scores (zero-sum
               for a sum of 0, constant-sum for another, general-sum for none; checked
               at every end), zero-sum for two-player win_loss, else general-sum;
               "zero_sum" (a claim, checked at every end: the returns must sum to 0);
               "general_sum"
    seed       the seed of the states' own generator (shuffles, with chance_shuffles
               false): the same seed and actions give the same game
    chance_shuffles   true (the default): each shuffle is chance nodes, one piece drawn
               at a time with its probability (identical pieces one outcome, named by
               the lowest piece number); false: the seeded generator shuffles
    max_history   the longest history the information-state tensor encodes (0: the
               game's game.max_decisions, if the tensor stays within MAX_INFO_TENSOR)
    int_span   the width of a number binding the compiler cannot bound (actionspace.py)
    max_utility, min_utility   the range of `scores` returns (checked at every end);
               left at their defaults (-1e6, 1e6), the spec's game.utility if it has one

A decision of one player is that player's node, a chance decision a chance node (its
outcomes and weights in chance_outcomes), a simultaneous decision a simultaneous node
(apply_actions; a player who does not choose there has one action, `wait`, the last
id). With chance_shuffles, a shuffle's draws are chance nodes too: the engine takes a
shuffle's order from a tape (State.draws, runtime/effects.Tape); past its end it raises
NeedDraw, the draws are asked of chance one at a time, and the step that shuffled runs
again from the state before it with the whole tape (_Box.play, _Box.draw). Returns at
the end only (reward model terminal). undo_action replays the state from its origin.

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

import hashlib
import json
import math
import numbers
import random

import numpy as np
import pyspiel

from ..errors import IllegalAction, TabulaError
from ..runtime.effects import NeedDraw, Tape
from ..runtime.engine import MAX_RESAMPLES, State
from ..runtime.model import check_seed
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
              "max_utility": DEFAULT_MAX_UTILITY, "min_utility": -DEFAULT_MAX_UTILITY,
              "chance_shuffles": True, "max_history": 0}
# the largest information-state tensor given without a max_history parameter (floats)
MAX_INFO_TENSOR = 1 << 18
# ... and the largest with one (a float32 array of 256 MB)
MAX_GIVEN_TENSOR = 1 << 26
# the kinds of moves a state keeps (_Box.moves): an action (a player's or a chance
# decision's outcome), one draw of a shuffle, a simultaneous node's joint action
ACT, DRAW, JOINT = 0, 1, 2
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


class Context:
    """One loaded game (spec, players, options, settings): the Tabula game with
    information states, its action space and observation encoder. Shared by the states
    of a game; copied and pickled as its key (so states serialize small)."""

    _cache: dict = {}

    def __init__(self, key: tuple):
        (spec, players, options, returns, utility, seed, int_span, lo, hi, chance_shuffles,
         max_history) = key
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
        # game.utility: what the scores can be, the spec says (Spec.utility); used when the
        # returns are the scores
        self.declared = None if win_loss else self.spec.utility(self.game)
        declared_sum = self.declared.sum if self.declared is not None else None
        if utility == "zero_sum" and self.declared is not None and declared_sum not in (None, 0):
            raise TabulaError(f"utility=zero_sum, but the spec declares that its scores add "
                              f"up to {declared_sum} (game.utility.sum, "
                              f"{self.declared.where}): they are not zero-sum")
        # utility_sum: what OpenSpiel is told the returns add up to (None: general-sum)
        self.utility_sum: float | None = None
        if utility == "zero_sum" or (utility == "" and declared_sum is None
                                     and win_loss and self.players == 2):
            self.utility_sum = 0.0
        elif utility == "" and declared_sum is not None:
            self.utility_sum = float(declared_sum)
        self.zero_sum = self.utility_sum == 0.0
        check_seed(int(seed))
        self.seed = int(seed)
        self.space = ActionSpace(self.game, int_span)
        self.encoder = Encoder(self.game)
        self.wait = self.space.num_actions if self.space.simultaneous else None
        for name, value in (("min_utility", lo), ("max_utility", hi)):
            if not math.isfinite(value):
                raise TabulaError(f"{name} is {value}: the range of the returns is two "
                                  "finite numbers")
        # the range OpenSpiel is told: win_loss's; the parameters', if given; else the
        # spec's game.utility, if declared; else the parameters' defaults
        self.range_from = "min_utility..max_utility"
        if win_loss:
            lo, hi = -1.0, 1.0
        elif self.declared is not None and (lo, hi) == (-DEFAULT_MAX_UTILITY,
                                                        DEFAULT_MAX_UTILITY):
            lo, hi = self.declared.min, self.declared.max
            self.range_from = f"game.utility's min..max ({self.declared.where})"
        self.min_utility, self.max_utility = float(lo), float(hi)
        if self.min_utility >= self.max_utility:
            raise TabulaError("min_utility must be below max_utility")
        # shuffles as chance nodes: only where the game shuffles (the compiler's record)
        self.draws = bool(chance_shuffles) and uses_shuffles(prog)
        # a draw's outcome is the piece drawn (its number): as many ids as pieces
        self.num_outcomes = max(self.space.num_outcomes,
                                len(prog.piece_names) if self.draws else 0)
        if max_history < 0:
            raise TabulaError(f"max_history {max_history}: the longest history the "
                              "information-state tensor encodes is 0 (the game's own bound, "
                              "game.max_decisions) or more")
        self.history = HistoryCodec(prog, int(max_history) or prog.max_decisions,
                                    given=max_history > 0)

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
        space = self.space
        # shuffles draw from the state's generator, seeded by the `seed` parameter: for
        # OpenSpiel, each seed is a game of its own whose deals are fixed (and hidden by
        # the zones' visibility); only chance decisions are chance nodes
        if self.num_outcomes:
            chance = _T.ChanceMode.EXPLICIT_STOCHASTIC
        else:
            chance = _T.ChanceMode.DETERMINISTIC
        lo, hi = self.spec.player_range
        return _T(
            short_name=NAME, long_name=f"Tabula: {self.spec.id}",
            dynamics=_T.Dynamics.SIMULTANEOUS if space.simultaneous else _T.Dynamics.SEQUENTIAL,
            chance_mode=chance,
            information=(_T.Information.IMPERFECT_INFORMATION if self.game.hides_information()
                         else _T.Information.PERFECT_INFORMATION),
            utility=(_T.Utility.GENERAL_SUM if self.utility_sum is None else
                     _T.Utility.ZERO_SUM if self.zero_sum else _T.Utility.CONSTANT_SUM),
            reward_model=_T.RewardModel.TERMINAL, max_num_players=hi, min_num_players=lo,
            provides_information_state_string=True,
            provides_information_state_tensor=self.history.provided,
            provides_observation_string=True, provides_observation_tensor=True,
            parameter_specification=PARAMETERS)

    def game_info(self) -> pyspiel.GameInfo:
        space = self.space
        return pyspiel.GameInfo(
            num_distinct_actions=space.num_actions + (1 if space.simultaneous else 0),
            max_chance_outcomes=self.num_outcomes, num_players=self.players,
            min_utility=self.min_utility, max_utility=self.max_utility,
            utility_sum=self.utility_sum,
            max_game_length=self.max_game_length())

    def max_game_length(self) -> int:
        """Every decision (a chance outcome too) is one of game.max_decisions, and at
        least one step of the engine's budget (game.max_steps); with chance shuffles,
        each shuffle (a step too) adds a draw per piece at most."""
        prog = self.prog
        n = min(prog.max_steps, prog.max_decisions)
        if self.draws:
            n += min(prog.max_steps * len(prog.piece_names), 2 ** 31 - 1 - n)
        return int(min(n, 2 ** 31 - 1))

    # -- returns ---------------------------------------------------------------------------
    def returns(self, st) -> list:
        n = self.players
        if not st.terminal:
            return [0.0] * n
        if self.returns_mode == "win_loss":
            won = set(st.winners())
            out = [0.0] * n if len(won) == n else [1.0 if p in won else -1.0 for p in range(n)]
        else:
            scores = st.scores()
            out = [float(x) for x in scores]
            if self.declared is not None:
                self.declared.check(scores)
            if any(not self.min_utility <= x <= self.max_utility for x in out):
                raise TabulaError(f"the returns {out} fall outside {self.range_from} "
                                  f"({self.min_utility}..{self.max_utility}): raise them")
        if self.utility_sum is not None and \
                abs(sum(out) - self.utility_sum) > 1e-9 * max(1.0, *map(abs, out)):
            raise TabulaError(f"the returns {out} do not sum to {self.utility_sum}: the game "
                              f"is not {'zero' if self.zero_sum else 'constant'}-sum (load it "
                              "without utility=zero_sum)")
        return out


class HistoryCodec:
    """The history part of the information-state tensor: the decisions made so far as a
    player saw them (State.information_state's "history"), a fixed number of entries
    (`length`: max_history, else game.max_decisions), each `width` floats:

        player   [P + 1]  who decided, one-hot: each player, then chance
        rule     [R]      the decision's rule, one-hot among the game's decisions' rules
        seen     [1]      1 if the player saw what was chosen
        action   [3]      what was chosen, as they saw it (its text), where seen: three
                          16-bit parts of a 48-bit hash of the text, each / 65536
        pending  [1]      1 for the player's own choice at a simultaneous decision not
                          yet revealed

    then a last float, how many entries the history has. Entries past the history are 0.
    Two information states with the same history give the same floats; two different
    ones differ but where two action texts share a 48-bit hash. Provided when the
    length is given (the parameter max_history) or the whole tensor is within
    MAX_INFO_TENSOR floats; a history longer than `length` is an error."""

    def __init__(self, prog, length: int, given: bool):
        self.players = prog.players
        self.rules = {r: i for i, r in enumerate(dict.fromkeys(d.rule for d in prog.decisions))}
        self.width = self.players + 1 + len(self.rules) + 5
        self.length = length
        self.size = length * self.width + 1
        self.provided = given or self.size <= MAX_INFO_TENSOR
        if given and self.size > MAX_GIVEN_TENSOR:
            raise TabulaError(f"max_history {length} makes an information-state tensor of "
                              f"{self.size} floats ({self.width} per decision): at most "
                              f"{MAX_GIVEN_TENSOR} (a max_history of "
                              f"{(MAX_GIVEN_TENSOR - 1) // self.width} or less)")
        self.why = ("" if self.provided else
                    f"this game's information-state tensor would encode {length} decisions "
                    f"(game.max_decisions) of {self.width} floats: give the parameter "
                    "max_history (the longest history to encode) to have one")

    def encode(self, history: list, out) -> None:
        if len(history) > self.length:
            raise TabulaError(f"the history holds {len(history)} decisions, more than "
                              f"max_history ({self.length}) of the information-state tensor")
        out[:] = 0.0
        w, n = self.width, self.players
        for i, entry in enumerate(history):
            at = i * w
            who = entry["player"]
            out[at + (n if who == "chance" else who)] = 1.0
            rule = self.rules.get(entry["rule"])
            if rule is not None:
                out[at + n + 1 + rule] = 1.0
            at += n + 1 + len(self.rules)
            text = entry.get("action")
            if text is not None:
                out[at] = 1.0
                h = int.from_bytes(hashlib.blake2b(text.encode("utf-8"),
                                                   digest_size=6).digest(), "big")
                for k in range(3):
                    out[at + 1 + k] = ((h >> (16 * k)) & 0xFFFF) / 65536.0
            if entry.get("pending"):
                out[at + 4] = 1.0
        out[self.size - 1] = float(len(history))


class _Drawing:
    """A step whose shuffle waits on chance (chance_shuffles): the state before it
    (`base`, never changed: None before the set-up), the step (("setup",), ("apply",
    action) or ("joint", {player: action})), the pieces drawn so far (`tape`), and the
    next draw (effects.Draw)."""

    __slots__ = ("base", "step", "tape", "draw")

    def __init__(self, base, step, tape, draw):
        self.base, self.step, self.tape, self.draw = base, step, tape, draw

    def copy(self) -> _Drawing:
        return _Drawing(self.base, self.step, self.tape[:], self.draw)

    def outcomes(self) -> list:
        """[(piece, probability)]: each kind of piece left, by its lowest number."""
        found = self.draw.outcomes()
        total = sum(n for _, n in found)
        return [(p, n / total) for p, n in found]


class _Box:
    """The Tabula state inside an OpenSpiel state: OpenSpiel clones a Python state by
    deep-copying its attributes, so the box copies with State.clone. It keeps the
    OpenSpiel moves made since its origin (`moves`: (player, action, kind)), which
    history(), undo_action and serialization read: the origin is the game's seed
    (`from_seed`: a state made by new_initial_state) or the state wrap() was given.
    With chance shuffles, `drawing` is a step waiting on a shuffle's draws, and `mark`
    the last state a shuffle settled in ((state, number of moves then)): a step that
    turns out to shuffle is run again from there. OpenSpiel's C++ code (random_sim_test,
    pickle) serializes a Python state by pickling its attributes: the box pickles as its
    origin and moves, replayed when read back."""

    __slots__ = ("st", "ctx", "known", "from_seed", "origin", "moves", "drawing", "mark")

    def __init__(self, st, ctx, from_seed: bool = False, origin=None):
        self.st, self.ctx = st, ctx
        self.known: tuple = (None, None)    # (key, {id: action}) of the last listing
        self.from_seed = from_seed
        self.origin = origin                # a Tabula state, never changed (wrap)
        self.moves: list = []
        self.drawing: _Drawing | None = None
        self.mark: tuple = (origin, 0)

    def __deepcopy__(self, memo):
        new = _Box(self.st.clone() if self.st is not None else None, self.ctx,
                   self.from_seed, self.origin)
        new.moves = self.moves[:]
        new.drawing = self.drawing.copy() if self.drawing is not None else None
        new.mark = self.mark
        return new

    def __reduce__(self):
        origin = self.origin.to_json_text() if self.origin is not None else None
        return (_unbox, (self.ctx.key, origin, [list(m) for m in self.moves], self.from_seed))

    def tabula(self) -> State:
        """The Tabula state (made from the game's seed on first use): during a step
        waiting on draws, the state before it."""
        if self.st is None:
            self.start()
        return self.st

    def start(self) -> None:
        ctx = self.ctx
        if not ctx.draws:
            self.st = ctx.game.new_state(seed=ctx.seed)
            return
        try:
            self.st = ctx.game.new_state(seed=ctx.seed, draws=Tape())
        except NeedDraw as need:
            self.st = ctx.game.new_state(seed=ctx.seed, start="setup-only")
            self.drawing = _Drawing(None, ("setup",), [], need.draw)
            return
        self.mark = (self.st.clone(), 0)

    def ids(self, player=None) -> dict:
        """{id: action} of the legal actions of `player` now (kept until a change)."""
        st = self.tabula()
        key = (id(st.pending), len(st.history), player)
        if self.known[0] != key:
            self.known = (key, self.ctx.space.ids(st, player))
        return self.known[1]

    # -- moves ------------------------------------------------------------------------------
    def mover(self) -> int:
        """Who moves now, as OpenSpiel numbers them (a player, or CHANCE, SIMULTANEOUS,
        TERMINAL)."""
        st = self.tabula()
        P = pyspiel.PlayerId
        if self.drawing is not None or st.is_chance_node():
            return int(P.CHANCE)
        if st.terminal:
            return int(P.TERMINAL)
        if st.is_simultaneous_node():
            return int(P.SIMULTANEOUS)
        return st.current_player()

    def play(self, kind: int, action, who: int = 0) -> None:
        """One OpenSpiel move: an action id (`who`: the player, CHANCE at a chance
        node), a draw's piece, or a joint action (a list of ids); checked, recorded,
        applied."""
        st = self.tabula()
        drawing = self.drawing
        if drawing is not None:
            if kind != DRAW or action not in {p for p, _ in drawing.outcomes()}:
                raise IllegalAction(f"{action!r} is not a legal chance outcome here (the next "
                                    f"piece of a shuffle into {drawing.draw.into})")
            self.moves.append((pyspiel.PlayerId.CHANCE, action, DRAW))
            self.draw(action)
            return
        if kind == DRAW:
            raise IllegalAction("no shuffle is drawing a piece here")
        step = self.step_of(st, kind, action)
        self.moves.append((who, list(action) if kind == JOINT else action, kind))
        try:
            _perform(st, step)
        except NeedDraw as need:
            base = self.rebuild()
            self.st, self.known = base, (None, None)
            self.drawing = _Drawing(base, step, [], need.draw)
        except BaseException:
            self.moves.pop()        # (a rule error: the move is not made)
            raise

    def step_of(self, st: State, kind: int, action) -> tuple:
        space, ctx = self.ctx.space, self.ctx
        if kind == JOINT:
            if not st.is_simultaneous_node():
                raise IllegalAction("no simultaneous decision is pending")
            actions = list(action)
            if len(actions) != ctx.players:
                raise IllegalAction(f"a joint action has one action per player "
                                    f"({ctx.players}), not {len(actions)}")
            choosers = st.choosers()
            joint = {}
            for p, a in enumerate(actions):
                if p in choosers:
                    joint[p] = space.action_tuple(st, a, p)
                elif a != ctx.wait:
                    raise IllegalAction(f"player {p} does not choose here: their action is "
                                        f"{ctx.wait} (wait), not {a}")
            return ("joint", joint)
        found = self.ids().get(action) if type(action) is int else None
        return ("apply", found if found is not None else space.action_tuple(st, action))

    def draw(self, piece: int) -> None:
        """A shuffle's next piece drawn: once the shuffle is settled (what is left is
        all of one kind), its step runs again from the state before it with the pieces
        drawn, up to the next decision or the next shuffle."""
        d = self.drawing
        assert d is not None
        d.tape.append(piece)
        following = d.draw.after(piece)
        if following is not None:
            d.draw = following
            return
        ctx = self.ctx
        try:
            if d.step[0] == "setup":
                st = ctx.game.new_state(seed=ctx.seed, draws=Tape(d.tape))
            else:
                st = d.base.clone()
                st.draws = Tape(d.tape)
                _perform(st, d.step)
        except NeedDraw as need:
            d.draw = need.draw
            return
        st.draws = Tape()
        self.st, self.drawing, self.known = st, None, (None, None)
        self.mark = (st.clone(), len(self.moves))

    def rebuild(self) -> State:
        """The state before the last move: the mark's, played on by the moves since
        (none of which shuffled: the mark is the last state a shuffle settled in)."""
        ctx = self.ctx
        origin, at = self.mark
        if origin is None:          # the set-up did not shuffle
            st = ctx.game.new_state(seed=ctx.seed, draws=Tape())
        else:
            st = _own(ctx, origin)
        for _, action, kind in self.moves[at:-1]:
            probe = _Box(st, ctx)
            _perform(st, probe.step_of(st, kind, action))
        return st


def _perform(st: State, step: tuple) -> None:
    """Apply a step (_Drawing.step) to a Tabula state."""
    if step[0] == "apply":
        st.apply(step[1])
    else:
        st.apply_actions(step[1])


def _replayed(ctx: Context, origin, moves, from_seed: bool) -> _Box:
    """A box made from its origin (None: the game's seed) by playing `moves` again,
    each checked to be legal where it is played."""
    box = _Box(None if origin is None else _own(ctx, origin), ctx, from_seed, origin)
    for i, entry in enumerate(moves):
        try:
            who, action, kind = entry
            if type(kind) is not int or kind not in (ACT, DRAW, JOINT) or not (
                    type(action) is int or kind == JOINT and isinstance(action, list)
                    and all(type(a) is int for a in action)):
                raise ValueError("not [player, action, kind]")
            if who != box.mover():
                raise ValueError(f"player {who!r} does not move there")
            box.play(kind, action, who)
        except (TypeError, ValueError, IllegalAction) as exc:
            raise TabulaError(f"{UNREACHABLE}: move {i + 1} of its history is not a legal "
                              f"move there ({str(exc)[:80]})") from None
    return box


def _redrawn(box: _Box, player: int, rng: random.Random, seen: dict) -> _Box | None:
    """The box's moves played again from its origin, each Tabula decision `player` did
    not see drawn again (State.unseen_redrawn; a shuffle's draws and joint moves as they
    were), as State.resample replays a history; None if a move is not legal there or the
    seat's observation at the end is not `seen`, the box's."""
    ctx = box.ctx
    new = _Box(None if box.origin is None else _own(ctx, box.origin), ctx, box.from_seed,
               box.origin)
    try:
        for who, action, kind in box.moves:
            if who != new.mover():
                return None
            if kind == ACT and who != player:
                real = new.ids().get(action)
                drawn = real if real is None else new.tabula().unseen_redrawn(real, player, rng)
                if drawn != real:
                    action = {a: i for i, a in new.ids().items()}.get(drawn)
                    if action is None:
                        return None
            new.play(kind, action, who)
    except (IllegalAction, TabulaError):
        return None
    if new.drawing is not None or new.tabula().observation(player) != seen:
        return None
    return new


def _own(ctx: Context, st: State) -> State:
    """A copy of `st` that draws its shuffles as the game says (chance or the seed)."""
    new = st.clone()
    new.draws = Tape() if ctx.draws else None
    return new


def _unbox(key, origin_text, moves, from_seed=True):
    ctx = Context.get(key)
    origin = None if origin_text is None else State.from_json(ctx.game, _json_of(origin_text))
    return _replayed(ctx, origin, moves, bool(from_seed))




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


# the key of a serialized state's OpenSpiel moves, in a game whose shuffles are chance
# nodes (its Tabula history does not hold the draws)
MOVES_KEY = "openspiel_moves"


def _restore(game: TabulaGame, text) -> TabulaState:
    """game.deserialize_state: the JSON checked (State.from_json), then its history
    replayed from the game's seed through OpenSpiel's apply_action / apply_actions (the
    new state has OpenSpiel's history as a state played to there), and the replay must
    give the very state saved. With chance shuffles the replay is of the OpenSpiel moves
    saved beside the Tabula state (MOVES_KEY), the draws among them."""
    ctx = game.ctx
    data = _json_of(text)
    if ctx.draws and isinstance(data, dict):
        moves = data.pop(MOVES_KEY, None)
        if not isinstance(moves, list):
            raise TabulaError(f"not a saved state of this game: a game whose shuffles are "
                              f"chance nodes saves its OpenSpiel moves as '{MOVES_KEY}'")
        box = _replayed(ctx, None, moves, True)
        st = box.tabula()
        got = st.to_json()
        # the Tabula state saved, checked as any (but in the set-up's shuffle, where it is
        # no state a game stops in: the very state the moves play to, field for field)
        if box.drawing is None or box.drawing.base is not None:
            got = State.from_json(ctx.game, data).to_json()
            want = st.to_json()
        else:
            want = data
        wrong = differences(got, want)
        if wrong:
            raise TabulaError(f"{UNREACHABLE}: its {', '.join(wrong)} differ from the state "
                              f"its {len(moves)} moves play from the game's seed ({ctx.seed})")
        out = game.new_initial_state()
        out._box = box
        return out
    saved = State.from_json(ctx.game, data)
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
        shuffles = params["chance_shuffles"]
        if not isinstance(shuffles, bool):
            raise TabulaError(f"chance_shuffles is true or false, not {shuffles!r:.40}")
        key = (str(params["spec"]), int(params["players"]), options,
               str(params["returns"]), str(params["utility"]), int(params["seed"]),
               int(params["int_span"]), float(params["min_utility"]),
               float(params["max_utility"]), shuffles, int(params["max_history"]))
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
        """The Tabula state (while a shuffle waits on chance draws: the state before the
        step that shuffles)."""
        return self._box.tabula()

    @property
    def ctx(self) -> Context:
        return self._box.ctx

    def drawing(self) -> bool:
        """Does a shuffle wait on chance here (chance_shuffles)?"""
        box = self._box
        box.tabula()
        return box.drawing is not None

    # -- OpenSpiel's API -----------------------------------------------------------------
    def current_player(self):
        st = self.tabula
        if self._box.drawing is not None:
            return pyspiel.PlayerId.CHANCE
        if st.terminal:
            return pyspiel.PlayerId.TERMINAL
        if st.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        if st.is_simultaneous_node():
            return pyspiel.PlayerId.SIMULTANEOUS
        return st.current_player()

    def _legal_actions(self, player):
        st = self.tabula
        drawing = self._box.drawing
        if drawing is not None:
            return [p for p, _ in drawing.outcomes()] if player == pyspiel.PlayerId.CHANCE \
                else []
        if st.terminal:
            return []
        if st.is_simultaneous_node() and player not in st.choosers():
            return [self.ctx.wait]
        return sorted(self._box.ids(player if st.is_simultaneous_node() else None))

    def chance_outcomes(self):
        st = self.tabula
        drawing = self._box.drawing
        if drawing is not None:
            return drawing.outcomes()
        space = self.ctx.space
        return sorted((space.action_id(a), p) for a, p in st.chance_outcomes())

    def _apply_action(self, action):
        box = self._box
        box.play(DRAW if box.drawing is not None else ACT, action, box.mover())

    def _apply_actions(self, actions):
        self._box.play(JOINT, list(actions), int(pyspiel.PlayerId.SIMULTANEOUS))

    def _action_to_string(self, player, action):
        st = self.tabula
        space = self.ctx.space
        chance = player == pyspiel.PlayerId.CHANCE
        drawing = self._box.drawing
        if chance and drawing is not None:
            return self._draw_string(action)
        if not chance and action == self.ctx.wait:
            return "wait"
        who = None if chance or player < 0 else player
        try:
            found = space.ids(st, who).get(int(action))
        except TabulaError:
            found = None
        if found is not None:
            return st.action_to_string(found, who)
        if chance and self.ctx.draws and not 0 <= int(action) < space.num_outcomes \
                and int(action) < self.ctx.num_outcomes:
            return self._draw_string(action)
        try:
            return space.describe(int(action), chance)
        except IllegalAction:
            return f"invalid action {action}"

    def _draw_string(self, action) -> str:
        """A draw's outcome: the piece drawn, and where the shuffle puts it."""
        names = self.ctx.prog.piece_names
        a = int(action)
        if not 0 <= a < len(names):
            return f"invalid action {action}"
        drawing = self._box.drawing
        into = f" into {drawing.draw.into}" if drawing is not None else ""
        return f"shuffle{into}: {names[a]}"

    def is_terminal(self):
        return self._box.drawing is None and self.tabula.terminal

    def returns(self):
        if self._box.drawing is not None:
            return [0.0] * self.ctx.players
        return self.ctx.returns(self.tabula)

    def rewards(self):
        return self.returns() if self.is_terminal() else [0.0] * self.ctx.players

    # -- the history, as the box keeps it (undo_action rewinds it) --------------------------
    def _flat_moves(self) -> list:
        out: list = []
        for who, action, kind in self._box.moves:
            if kind == JOINT:
                out.extend((p, a) for p, a in enumerate(action))
            else:
                out.append((who, action))
        return out

    def history(self):
        return [a for _, a in self._flat_moves()]

    def full_history(self):
        return [pyspiel.PlayerAction(p, a) for p, a in self._flat_moves()]

    def history_str(self):
        return ", ".join(str(a) for a in self.history())

    def move_number(self):
        return len(self._box.moves)

    def is_initial_state(self):
        return not self._box.moves

    def undo_action(self, player, action):
        """OpenSpiel's State.undo_action(player, action): the last move undone, which
        must be `action` of `player` (at a simultaneous node, player
        PlayerId.SIMULTANEOUS and any action: the joint move is undone whole). The state
        is played again from its origin (the game's seed, or the state wrap() was
        given) up to the move before. OpenSpiel's C++ history of the state is not
        rewound (no Python game can rewind it): history(), full_history(),
        history_str() and move_number() are this state's own, which are."""
        box = self._box
        if not box.moves:
            raise TabulaError("there is no move to undo: the state is its game's first")
        who, last, kind = box.moves[-1]
        if int(player) != who or (kind != JOINT and int(action) != last):
            shown = "a joint move" if kind == JOINT else f"action {last}"
            raise TabulaError(f"the last move is {shown} of player {who}, not action "
                              f"{action} of player {player}: only the last can be undone")
        self._box = _replayed(box.ctx, box.origin, box.moves[:-1], box.from_seed)

    def __str__(self):
        st = self.tabula
        out = {"turn": st.turn, "zones": st.zones_view(None), "variables": st.gv,
               "player_variables": st.pv, "history": len(st.history),
               "terminal": st.terminal}
        drawing = self._box.drawing
        if drawing is not None:
            out["shuffling"] = {"into": drawing.draw.into, "drawn": drawing.tape}
        return json.dumps(out, sort_keys=True, separators=(",", ":"), default=str)

    def __deepcopy__(self, memo):      # a Python-side copy: a clone
        return self.clone()

    def serialize(self):
        """The Tabula state as its JSON text (State.to_json_text), which
        game.deserialize_state reads back by replaying its history from the game's
        seed: a state made by wrap() or resample_from_infostate, whose history is not
        its game's, is refused. In a game whose shuffles are chance nodes the JSON
        holds the OpenSpiel moves too (MOVES_KEY: the Tabula history has no draws)."""
        box = self._box
        if not box.from_seed:
            raise TabulaError("this state was made by wrap() or resample_from_infostate: its "
                              "history is not a game played from this game's seed, so it "
                              "cannot be serialized (deserialize_state replays the history)")
        if not self.ctx.draws:
            return self.tabula.to_json_text()
        data = self.tabula.to_json()
        data[MOVES_KEY] = [[int(w), a, k] for w, a, k in box.moves]
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state that `player_id` cannot tell from this one, the rest drawn at random
        (OpenSpiel's ResampleFromInfostate, which its IS-MCTS calls): State.resample
        (what the seat cannot see redealt among the places it cannot see into), with a
        generator seeded by one draw of `probability_sampler` (a callable giving a
        float in [0, 1), as pyspiel.UniformProbabilitySampler(0., 1.) does). Its
        information state and observation for `player_id` are this state's; its
        history (OpenSpiel's and Tabula's) starts empty, as the true actions name what
        the seat may not know. Future shuffles of the sample are chance nodes as the
        game's are (chance_shuffles). Not at a node where a shuffle is drawing."""
        player = int(player_id)
        if not 0 <= player < self.ctx.players:
            raise TabulaError(f"there is no player {player_id} in this game")
        if self.drawing():
            raise TabulaError("resample_from_infostate is asked where a shuffle is drawing "
                              "(a chance node): ask it at a player's node")
        draw = probability_sampler()
        try:
            u = float(draw)
        except (TypeError, ValueError):
            u = -1.0
        if not 0.0 <= u < 1.0:          # NaN too
            raise TabulaError(f"the probability sampler gave {str(draw)[:40]}, not a "
                              "number from 0 to 1 (below 1)")
        rng = random.Random(int(u * 2 ** 53))
        st = self.tabula
        if st.origin is None and self.ctx.game.hides_variables(player):
            # the history plays from the seed through chance's draws, not from the seed
            # alone (State.origin): the moves are played again here, as State.resample
            # plays them, each the seat did not see drawn again
            seen = st.observation(player)
            for _ in range(MAX_RESAMPLES):
                box = _redrawn(self._box, player, rng, seen)
                if box is not None:
                    st = box.tabula()
                    break
        return wrap(self.get_game(), st.resample(player, rng))


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
    """information_state_string: Tabula's information state (the observation now and
    every decision as the player saw it: the decisions are recalled, past observations
    are not), and its tensor (HistoryCodec) where the game gives one."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        codec = ctx.history
        self.encoder = ctx.encoder
        self.tensor: np.ndarray | None = None
        self.dict: dict = {}
        if codec.provided:
            self.tensor = np.zeros(self.encoder.size + codec.size, np.float32)
            self.dict = {"observation": self.tensor[:self.encoder.size],
                         "history": self.tensor[self.encoder.size:]}

    def set_from(self, state, player):
        codec = self.ctx.history
        if not codec.provided:
            raise TabulaError(codec.why)
        st = state.tabula
        self.encoder.encode(st, player, self.dict["observation"])
        codec.encode(st.information_state(player)["history"], self.dict["history"])

    def string_from(self, state, player):
        return state.tabula.information_state_string(player)


def wrap(game: TabulaGame, st: State) -> TabulaState:
    """An OpenSpiel state of `game` around a copy of the Tabula state `st` (a state of
    the same spec, players and options; its history is not OpenSpiel's: the OpenSpiel
    state's starts empty)."""
    if st.game is not game.ctx.game and st.prog is not game.ctx.prog:
        raise TabulaError("this state belongs to another game")
    out = TabulaState(game, game.ctx)
    origin = st.clone()
    origin.draws = None
    out._box = _Box(_own(game.ctx, origin), game.ctx, False, origin)
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
    if kind is bool:
        if not isinstance(value, bool):
            raise TabulaError(f"{name} is true or false, not {value!r:.40}")
        return value
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
