"""Running games: Game (a compiled spec with players and options) and State.

Input: a Program (interpreter/runtime/model.py). Output: states that list legal actions, apply
them, and report scores, winners and per-player observations. Play is a sequence of
atomic decisions: the engine runs the compiled blocks until a decision (or the end) and
waits there. Randomness (shuffles) comes from the state's own seeded generator, or, for
a driver that makes shuffles chance draws (State.draws: the OpenSpiel adapter's
chance_shuffles), from a tape of draws it gives (runtime/effects.py Tape); chance
decisions are made by whoever drives the state.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import NOWHERE, IllegalAction, Pos, RuleError, TabulaError, fail
from . import saved
from .frames import Frame
from .model import CHANCE, DONE, SIMULTANEOUS, SKIP, TERMINAL, Block, Program, check_seed, sees
from .readers import piece_names_now
from .values import B_num, decode, encode, explain, restored
from .values import saved as saved_value
from .views import copy_facts, touch_slot

if TYPE_CHECKING:      # effects.py is above the engine's floor: a type, never imported
    from .effects import Tape

STATE_FORMAT = 2     # 2: values saved exactly (values.saved: tables' keys keep their type)
_new_frame = object.__new__     # a Frame without a call of Frame.__init__ (hot paths)
_new_pending = object.__new__   # and a Pending (State._pause)



# what generated code raises when a rule cannot be carried out (the spec's error, told as a
# located RuleError wherever generated code runs: State._run and State._computed)
RULE_FAILURES = (TypeError, IndexError, KeyError, ValueError, AttributeError,
                 ZeroDivisionError, RecursionError, OverflowError)


class Pending:
    """The decision a state waits on. For a simultaneous decision, `joint` lists every
    chooser with their actions ([(player, actions), ...]) and `chosen` the actions chosen
    so far, in that order: `player` and `actions` are the next chooser's (a sequential
    view of the joint move, for drivers that ask one player at a time). `weights` are a
    weighted chance decision's, one per action. `seen` holds the chosen actions' entries
    of the information state until the joint move is revealed (games with recall)."""

    __slots__ = ("decision", "player", "actions", "frame", "joint", "chosen", "weights",
                 "seen", "names")

    def __init__(self, decision, player, actions, frame, joint=None, weights=None):
        self.decision = decision
        self.player = player
        self.actions = actions
        self.frame = frame
        # at a simultaneous decision, [(player, actions)] of every chooser and the actions
        # chosen so far; None at any other (so typed Any: read only where joint is set)
        self.joint: Any = joint
        self.chosen: Any = [] if joint is not None else None
        self.weights = weights
        self.seen: Any = [] if joint is not None else None
        # a chance decision's outcome -> its numbered label, where labels coincide
        # (State.action_to_string; made when first asked)
        self.names: dict | None = None

    @property
    def waiting(self) -> list:
        """A simultaneous decision's [(player, actions)] of those still to choose."""
        return self.joint[len(self.chosen):]

    def advance(self, action) -> bool:
        """One chooser's action at a simultaneous decision, held aside; the next chooser
        becomes the one asked. True when every chooser has chosen."""
        self.chosen.append(action)
        if len(self.chosen) < len(self.joint):
            self.player, self.actions = self.joint[len(self.chosen)]
            return False
        return True

    def copy(self, frame) -> Pending:
        new = Pending(self.decision, self.player, self.actions, frame, self.joint, self.weights)
        if self.joint is not None:
            new.chosen = self.chosen[:]
            new.seen = self.seen[:]
        return new


class Game:
    """A spec compiled for a number of players and a set of options."""

    def __init__(self, prog: Program, spec=None, recall: bool = False):
        self.prog = prog
        self.spec = spec
        self.players = prog.players
        self.options = dict(prog.options)
        # states keep each player's information state (State.information_state)
        self.recall = recall
        # player -> the slots they cannot see (hidden_slots): a cache of this game's, never
        # shared with another (filled once per player, the same value in any thread)
        self._hidden: dict = {}
        self._hides: bool | None = None     # hides_information(), once asked
        self._hides_vars: dict = {}         # player -> hides_variables(player)
        if not prog.seers_known:
            prog.slot_seers = slot_seers(prog)
            prog.seers_known = True

    @property
    def id(self) -> str:
        return self.prog.spec_id

    def new_state(self, seed: int = 0, start: str = "setup", until: str | None = None,
                  draws: Tape | None = None) -> State:
        """A new game, run up to its first decision. until: the id of a top-level set-up
        step (Program.stops), or "setup": the game stops at the end of that step even if
        no decision is pending there (State.stopped()), unless a decision comes first; a
        tool sets a position there and calls go_on. draws: the state's shuffles take
        their order from this tape instead of the seeded generator (State.draws)."""
        st = State(self, seed)
        st.draws = draws
        if start == "setup" and until is None and draws is None:
            st.origin = seed
        root = self._root_frame(start == "setup")
        if until is not None:
            if until != "setup" and until not in self.prog.stops:
                raise TabulaError(f"'{until}' is not a top-level step of the set-up with "
                                  "an id")
            root.data = until
        st._stack.append(root)
        if start != "setup-only":
            st._run()
        return st

    def go_on(self, st: State) -> None:
        """Run a state stopped after a set-up step (new_state(until=...)), whose position
        a tool may have set by hand meanwhile, on to its first decision."""
        st.changed()
        st._run()

    def blank_state(self, seed: int = 0) -> State:
        """A state with every piece at home and nothing run (for scenarios)."""
        return State(self, seed)

    def start_play(self, st: State, setup: bool = False) -> None:
        """Run a state whose position was set by hand (a scenario's) from the start of
        play (or, with setup, from the start of setup) up to its first decision."""
        st._stack = [self._root_frame(setup)]
        st.changed()               # the position was set by hand
        st._run()

    def _root_frame(self, setup: bool) -> Frame:
        """The frame a game starts in: setup then play, or play alone."""
        prog = self.prog
        root = prog.root_full if setup else prog.root_play
        assert root is not None, "a Program is compiled with both its roots"
        return Frame(root.ins, 0, [None] * max(prog.root_nlocals, 1), None, None, None, root)

    def hidden_slots(self, player: int) -> tuple:
        """The slots whose pieces `player` cannot see (module function hidden_slots),
        kept per game: the same for every state of it."""
        got = self._hidden.get(player)
        if got is None:
            got = self._hidden[player] = hidden_slots(self.prog, player)
        return got

    def hides_information(self) -> bool:
        """Does some player not see everything: a zone or a variable not public, an
        action seen by some players only, or a simultaneous decision (whose choices are
        kept from the others until the reveal)? Kept per game."""
        got = self._hides
        if got is None:
            prog = self.prog
            got = self._hides = (
                any(z.visibility != "public" for z in prog.zones.values())
                or any(v != "public" for v in list(prog.gvar_vis) + list(prog.pvar_vis))
                or any(d.chooser_slot is not None or any(a.visible is not None
                                                         for a in d.alts)
                       for d in prog.decisions))
        return got

    def hides_variables(self, player: int) -> bool:
        """Does the game have a variable `player` cannot see (the rule of
        State.observation): a global that is not public, a per-player variable hidden from
        everyone or held by a player `player` may not look at? Kept per game and player
        (State.resample asks at every world a bot samples)."""
        got = self._hides_vars.get(player)
        if got is None:
            prog = self.prog
            got = self._hides_vars[player] = any(vis != "public" for vis in prog.gvar_vis) \
                or any(not sees(vis, p, player) for vis in prog.pvar_vis
                       for p in range(prog.players))
        return got

    def piece_index(self, name: str) -> list:
        return [i for i, n in enumerate(self.prog.piece_names) if n == name]


class State:
    """One game in progress. Public methods check their input, then act.

    Public: the methods without a leading underscore, and the fields a driver or a tool
    may read (game, prog, slots, where, gv, pv, pa, current, turn, terminal, steps,
    history, pending, rng, facts, fired, to_act); a tool that sets the position by hand
    (slots, where, gv, pv, pa, current, to_act) calls changed() (or Game.start_play)
    after. Private (a leading underscore): the run loop and what the compiled rules call
    (_run, _computed, _pause, _pause_joint, _weigh, the frame stack _stack, the decisions
    seen _seen); the compiled code (compiler/steps.py, compiler/decisions.py) is the
    only caller outside this module, and nothing else uses them.
    """

    __slots__ = ("game", "prog", "slots", "where", "known", "pinned", "gv", "pv", "current",
                 "turn", "_stack",
                 "pending", "_rng", "_rng_shared", "terminal", "steps", "history", "_scores",
                 "facts", "fired", "to_act", "_seen", "pa", "tracked", "gather", "draws",
                 "origin")

    def __init__(self, game: Game, seed: int = 0):
        prog = game.prog
        self.game = game
        self.prog = prog
        self.slots: list[list[int]] = [[] for _ in range(prog.nslots)]
        self.where = list(prog.piece_home)
        for pid, s in enumerate(prog.piece_home):
            self.slots[s].append(pid)
        self.gv = list(prog.gvar_init)
        self.pv = [list(prog.pvar_init) for _ in range(prog.players)]
        # per piece, the seats that know which slot it is in (a bitmask; effects.py keeps
        # it as pieces move): every seat knows where the pieces start. None when every
        # seat sees everything. State.resample keeps a piece the seat knows in its slot
        self.known: list[int] | None = None
        self.pinned: list[int] | None = None   # per slot: effects.seen_moving
        if prog.slot_seers is not None:
            self.known = [(1 << prog.players) - 1] * len(prog.piece_home)
            self.pin_known()
        # the pieces' changeable attributes: one row per attribute (Program.changeable)
        self.pa = [list(prog.piece_attrs[a]) for a in prog.changeable]
        self.current = 0
        self.turn = 0
        self._stack: list = []         # Frames (runtime/frames.py), the running one last
        self.pending: Pending | None = None
        if isinstance(seed, int) and not isinstance(seed, bool):
            check_seed(seed)        # not negative, past 2^53 or an alias of another
        self._rng = random.Random(seed)
        self._rng_shared = False
        # where shuffles take their order from: None, the generator above; a Tape
        # (effects.py), chance draws given from outside, one piece at a time (the OpenSpiel
        # adapter's chance_shuffles): a shuffle past its end raises effects.NeedDraw
        self.draws: Tape | None = None
        # the seed the history plays from (Game.new_state(origin) then every action of
        # the history gives this state), or None where it is not known: resample replays it
        self.origin: int | None = None
        self.terminal = False
        self.steps = 0
        self.history: list = []
        self._scores: list | None = None
        # derived facts (spec functions' results, groups) of this state: emptied by every
        # change of the state, so a fact is computed once between two changes
        self.facts: dict = {}
        # what the views among the facts read, slot by slot (runtime/views.py)
        self.tracked: dict | None = None
        self.gather = None      # (while a view's cell is computed: what its groups read)
        # a player given from outside (a scenario's position) to act first: the first
        # `turns` loop to start begins with them instead of its `first:`
        self.to_act: int | None = None
        # id -> times reached, in a game compiled with trace=True (see Spec.game)
        self.fired: dict | None = {} if prog.traced else None
        # the decisions made so far as the players saw them, in a game with recall:
        # [(player, rule, action string, players who saw it or None for all)]
        self._seen: list | None = [] if game.recall else None

    # ---- the state's random generator, copied on write -----------------------------------
    @property
    def rng(self) -> random.Random:
        """The generator of this state's shuffles. Clones share their parent's generator
        until either draws (copying a Mersenne Twister is most of a clone's cost, and
        most clones of a search never shuffle)."""
        if self._rng_shared:
            own = random.Random()
            own.setstate(self._rng.getstate())
            self._rng, self._rng_shared = own, False
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng, self._rng_shared = value, False

    # ---- the run loop (and what compiled rules call: private to the engine) ----------------
    def _pause(self, decision, player, actions, frame, weights=None) -> None:
        """A decision is listed: the state waits on it (compiled decisions call this; a
        simultaneous one calls _pause_joint). Pending(...) built field by field:
        a class call costs more than the rest of a decision's pause (measured)."""
        p = _new_pending(Pending)
        p.decision = decision
        p.player = player
        p.actions = actions
        p.frame = frame
        p.weights = weights
        p.joint = p.chosen = p.seen = p.names = None
        self.pending = p

    def _pause_joint(self, decision, frame, joint) -> None:
        """A simultaneous decision is listed: [(player, actions)] of every chooser."""
        self.pending = Pending(decision, joint[0][0], joint[0][1], frame, joint)

    def _weigh(self, dec, L, actions) -> tuple:
        """A weighted chance decision's outcomes with a weight above 0, and their weights."""
        kept, weights = [], []
        for a in actions:
            alt = dec.alts[a[1]]
            bound = _bind(dec, L, a)
            w = alt.weight(self, bound)
            if w < 0:
                fail(f"the chance outcome '{alt.label(self, bound)}' has a negative "
                     f"weight ({w})", dec.pos, error=RuleError)
            if w:
                kept.append(a)
                weights.append(w)
        return kept, weights

    def _run(self, body: Block | None = None, at: Frame | None = None) -> None:
        """Execute instructions until a decision or the end of the game. First, if given,
        `body`: an action's body that neither pauses nor calls (Block.native), run in its
        decision's frame `at`, whose locals it shares, rather than in a frame of its own
        (State._apply: pushed and popped in this same run, such a frame is never seen)."""
        stack = self._stack
        prog = self.prog
        limit = prog.max_steps
        prog.work[0] = 0            # a fresh work budget for this step (readers.B_work)
        fr = None
        pc = 0
        try:
            if body is not None:
                self.steps += 1
                paused = body.ins[0](self, at)
                if self.steps > limit:      # a pause counts too: decisions are steps
                    self._too_long(limit, self._paused_at(body.pos[0]))
                if paused:
                    return
            while stack:
                fr = stack[-1]
                ins = fr.ins
                pc = fr.pc
                if pc < len(ins):
                    fr.pc = pc + 1
                    self.steps += 1     # generated loops count their rounds here too
                    paused = ins[pc](self, fr)
                    if self.steps > limit:  # checked at a pause too: a game of decisions
                        # only (each leading straight to the next) ends at the bound
                        self._too_long(limit, self._paused_at(
                            fr.block.pos[pc] if pc < len(fr.block.pos) else NOWHERE))
                    if paused:
                        break
                else:
                    loop = fr.loop
                    if loop is None or not loop.again(self, fr):
                        stack.pop()
            else:
                self.terminal = True
        except RuleError:
            raise
        except RULE_FAILURES as exc:
            block = fr.block if fr is not None else body
            self._failed(exc, "this step cannot be carried out",
                         block.pos[pc] if block is not None and pc < len(block.pos)
                         else NOWHERE)

    def _paused_at(self, pos: Pos) -> Pos:
        """Where the step bound is reported: the decision the game paused at, if it did
        (the one it never gets past), else `pos`, the instruction run."""
        return self.pending.decision.pos if self.pending is not None else pos

    @staticmethod
    def _too_long(limit: int, pos: Pos) -> NoReturn:
        fail(f"the game ran more than {limit} steps without ending", pos,
             "a loop never ends, or raise game.max_steps", error=RuleError)

    def _too_many(self, p: Pending) -> NoReturn:
        """The decision bound: the game's history (and what grows with it: the players'
        information states) holds at most game.max_decisions actions, checked before it
        grows, so that a game of decisions that never ends stops with a located error
        whatever its step bound."""
        limit = self.prog.max_decisions
        fail(f"the game made more than {limit} decisions without ending", p.decision.pos,
             "the game cannot end, or raise game.max_decisions", error=RuleError)

    def _computed(self, what: str, fn, *args, pos: Pos = NOWHERE):
        """fn(*args) for generated code run outside State._run (scores, points, tie-breaks,
        labels, invariants): a failure is a located RuleError, never a traceback."""
        self.prog.work[0] = 0
        try:
            return fn(*args)
        except RuleError:
            raise
        except RULE_FAILURES as exc:
            self._failed(exc, f"{what} cannot be computed", pos)

    def evaluate(self, fn, size: int, pos: Pos = NOWHERE):
        """The value in this state of an expression compiled after the fact
        (Program.compile_expression: fn(state, its locals), `size` of them): a rule
        failure is a located RuleError, as in a game."""
        return self._computed("the expression", fn, self, [None] * size, pos=pos)

    def _failed(self, exc: Exception, what: str, pos: Pos) -> NoReturn:
        """Raise a failure of generated code as a RuleError at the spec's place: the line
        of the generated code that failed (Module.position), else `pos`."""
        found = self.prog.module.position(exc.__traceback__) if self.prog.module else None
        fail(f"{what}: {explain(exc)}", found or pos, error=RuleError)

    # ---- the OpenSpiel-like API ------------------------------------------------------------
    def current_player(self) -> int:
        """A player index, CHANCE (-1) or TERMINAL (-2). At a simultaneous decision: the
        next player to choose (see is_simultaneous_node)."""
        if self.terminal:
            return TERMINAL
        return self.pending.player if self.pending is not None else TERMINAL

    def stopped(self) -> bool:
        """Stopped after a set-up step (Game.new_state(until=...)): nothing pending, not
        over, the game goes on with Game.go_on."""
        return self.pending is None and not self.terminal and bool(self._stack)

    def is_terminal(self) -> bool:
        return self.terminal

    def is_chance_node(self) -> bool:
        return self.pending is not None and self.pending.player == CHANCE

    def is_simultaneous_node(self) -> bool:
        """Several players choose at once: each chooses without seeing the others' choices,
        and the joint move applies when the last has chosen (apply_actions, or apply
        once per chooser in the order of choosers())."""
        return self.pending is not None and self.pending.joint is not None

    def choosers(self) -> list:
        """The players still to choose at the pending decision (one, unless simultaneous;
        [] for chance and at the end)."""
        p = self.pending
        if p is None or p.player == CHANCE:
            return []
        if p.joint is None:
            return [p.player]
        return [who for who, _ in p.waiting]

    def deciding(self) -> list:
        """The players the pending decision asks, as every seat sees it: at a simultaneous
        decision all its choosers, whether or not they have chosen yet (one node, as
        OpenSpiel presents it: nobody learns who has committed), else choosers()."""
        p = self.pending
        if p is not None and p.joint is not None:
            return [who for who, _ in p.joint]
        return self.choosers()

    def legal_actions(self, player: int | None = None) -> tuple:
        """The actions of the pending decision (tuples of small ints); () when over. With
        a player: that player's actions, () if they are not to choose."""
        p = self.pending
        if p is None:
            return ()
        if player is None or player == p.player:
            return p.actions
        if p.joint is not None:
            for who, acts in p.waiting:
                if who == player:
                    return acts
        return ()

    def chance_outcomes(self, exact: bool = False) -> list:
        """[(action, probability)] of a pending chance decision: equal, or as the
        outcomes' weights say; exact gives fractions instead of floats."""
        if not self.is_chance_node():
            return []
        assert self.pending is not None     # a chance node is a pending decision
        acts, weights = self.pending.actions, self.pending.weights
        if weights is None:
            return [(a, Fraction(1, len(acts)) if exact else 1.0 / len(acts)) for a in acts]
        total = sum(weights)
        return [(a, Fraction(w) / total if exact else float(Fraction(w) / total))
                for a, w in zip(acts, weights)]

    def sample_chance(self, rng: random.Random) -> tuple:
        """A chance outcome drawn with its probability, with one draw of `rng` (equal
        outcomes: the one at int(draw * n), as drivers always drew them)."""
        p = self.pending
        assert p is not None, "sample_chance is asked at a pending chance decision"
        acts, weights = p.actions, p.weights
        x = rng.random()
        if weights is None:
            return acts[int(x * len(acts))]
        x *= sum(weights)
        for a, w in zip(acts, weights):
            if x < w:
                return a
            x -= w
        return acts[-1]

    def apply(self, action) -> None:
        p = self.pending
        if p is None:
            raise IllegalAction("the game is over" if self.terminal else "no decision is pending")
        if type(action) is not tuple:
            action = tuple(action)
        if action not in p.actions:
            raise IllegalAction(f"{action!r} is not a legal action here")
        self._apply(p, action)

    def apply_actions(self, actions) -> None:
        """A simultaneous decision's joint move: one action per player (a list indexed by
        player, None for a player who is not choosing, or a dict player -> action)."""
        p = self.pending
        if p is None or p.joint is None:
            raise IllegalAction("no simultaneous decision is pending")
        if not isinstance(actions, dict):
            actions = dict(enumerate(actions))
        for who, acts in p.waiting:
            a = actions.get(who)
            a = tuple(a) if a is not None else None
            if a not in acts:
                raise IllegalAction(f"{a!r} is not a legal action of player {who} here")
        for who, _ in p.waiting:
            # each action applied makes the next chooser's pending decision the state's
            self._apply(self.pending, tuple(actions[who]))  # type: ignore[arg-type]

    def apply_unchecked(self, action: tuple) -> None:
        """apply() without its checks, for a driver that takes `action` (a tuple) from
        this state's own pending decision (bots, replays of a checked log): the hot path
        of a search."""
        self._apply(self.pending, action)  # type: ignore[arg-type]  # the caller's contract

    def who_sees(self, action: tuple) -> frozenset | None:
        """The players who see `action` of the pending decision when it is applied (its
        chooser and those its visible_to names), or None: everyone."""
        p = self.pending
        if p is None or action[1] < 0:
            return None
        alt = p.decision.alts[action[1]]
        if alt.visible is None:
            return None
        who = alt.visible(self, self._bound(p, action, p.player))
        return frozenset(who if isinstance(who, list) else [who]) | {p.player}

    def _record(self, p: Pending, action: tuple) -> tuple:
        """The entry of the information states for an action about to be applied: the
        label as the players see it (a chance outcome's without its number among copies,
        which tells nothing the players see)."""
        return (p.player, p.decision.rule, self._label(p, action, p.player),
                self.who_sees(action))

    def _apply(self, p: Pending, action: tuple) -> None:
        """Apply `action` of the pending decision `p`, then run up to the next decision."""
        if p.joint is not None:
            self._apply_joint(p, action)
            return
        if len(self.history) >= self.prog.max_decisions:
            self._too_many(p)
        if self._seen is not None:
            self._seen.append(self._record(p, action))
        self.history.append(action)
        self._scores = None
        fr = p.frame
        fr.pc += 1
        self.pending = None
        alt = action[1]
        if alt >= 0:
            a = p.decision.alts[alt]
            L = fr.L
            slots = a.slots
            if slots:
                if len(slots) == 1:
                    L[slots[0]] = action[2]
                else:
                    for slot, v in zip(slots, action[2:]):
                        L[slot] = v
            body = a.body
            if body.native:
                self._run(body, fr)
                return
            if body.ins:
                # Frame(body.ins, 0, L, None, None, None, body), built field by field: a
                # class call costs twice that (measured; once per decision)
                nf = _new_frame(Frame)
                nf.ins = body.ins
                nf.pc = 0
                nf.L = L
                nf.loop = nf.data = nf.at = None
                nf.block = body
                self._stack.append(nf)
        elif alt == DONE:
            stack = self._stack
            while stack and stack[-1] is not fr:
                stack.pop()
            if stack:
                stack.pop()
        self._run()

    def _apply_joint(self, p: Pending, action: tuple) -> None:
        """One chooser's action at a simultaneous decision: held aside until the last
        chooser's, then the joint move is revealed and run up to the next decision."""
        if len(self.history) >= self.prog.max_decisions:
            self._too_many(p)
        if self._seen is not None:
            p.seen.append(self._record(p, action))
        self.history.append(action)
        self._scores = None
        if not p.advance(action):
            return
        fr = p.frame
        fr.pc += 1
        self.pending = None
        if self._seen is not None:
            self._seen += p.seen
        p.decision.reveal(self, fr, [(who, a) for (who, _), a in zip(p.joint, p.chosen)])
        self._run()

    def actions_named(self, text: str) -> list:
        """The legal actions whose string is `text` (one, if the labels tell them apart)."""
        return [a for a in self.legal_actions() if self.action_to_string(a) == text]

    def apply_string(self, text: str) -> None:
        """Apply the legal action whose string is `text` (it must name exactly one)."""
        found = self.actions_named(text)
        if not found:
            raise IllegalAction(f"'{text}' is not a legal action here")
        if len(found) > 1:
            raise IllegalAction(f"'{text}' names {len(found)} different actions here; the "
                                "decision's label must tell them apart")
        self._apply(self.pending, found[0])  # type: ignore[arg-type]  # found: one is pending

    @staticmethod
    def _bound(p: Pending, action: tuple, player) -> list:
        """The pending decision's locals with an action's values bound."""
        return _bind(p.decision, p.frame.L, action, player)

    def action_to_string(self, action, player: int | None = None) -> str:
        """An action's text; `player` names the chooser at a simultaneous decision
        (default: the next to choose)."""
        p = self.pending
        if p is None or action[0] != p.decision.id:
            return f"decision {action[0]} option {action[1]} {list(action[2:])}"
        if p.decision.chance and action[1] >= 0:
            names = p.names
            if names is None:
                names = p.names = self._numbered(p)
            text = names.get(action if type(action) is tuple else tuple(action))
            if text is not None:
                return text
        return self._label(p, action, player)

    def seen_string(self, action) -> str:
        """An action's text as the players see it (their information states): its label,
        a chance outcome's without its number among outcomes labelled alike."""
        p = self.pending
        if p is None or action[0] != p.decision.id:
            return self.action_to_string(action)
        return self._label(p, tuple(action))

    def _label(self, p: Pending, action: tuple, player: int | None = None) -> str:
        """An action's label as its decision writes it (or its skip or done text)."""
        dec = p.decision
        alt = action[1]
        if alt == SKIP:
            return dec.optional
        if alt == DONE:
            return dec.done
        return self._computed("an action's label", dec.alts[alt].label, self,
                             self._bound(p, action, p.player if player is None else player),
                             pos=dec.pos)

    def _numbered(self, p: Pending) -> dict:
        """A chance decision's outcomes whose labels coincide (copies of a piece that are
        not one outcome, or a label that does not show what differs): outcome -> its
        label numbered among them, "draw red (2 of 3)", in the decision's order, so that
        every outcome has a name of its own. Empty when the labels differ."""
        labels = [(a, self._label(p, a)) for a in p.actions if a[1] >= 0]
        count: dict = {}
        for _, text in labels:
            count[text] = count.get(text, 0) + 1
        if len(count) == len(labels):
            return {}
        out: dict = {}
        seen: dict = {}
        for a, text in labels:
            n = count[text]
            if n > 1:
                seen[text] = k = seen.get(text, 0) + 1
                out[a] = f"{text} ({k} of {n})"
        return out

    def legal_action_strings(self, player: int | None = None) -> list:
        return [self.action_to_string(a, player) for a in self.legal_actions(player)]

    # ---- scores -----------------------------------------------------------------------------
    def points(self) -> dict:
        """Each scoring rule's points per player: {rule id: [p0, p1, ...]}."""
        prog = self.prog
        out: dict = {}
        for rid, fn in prog.points:
            row = []
            for p in range(prog.players):
                L: list = [None] * prog.score_nlocals
                L[0] = p
                row.append(self._computed(f"the scoring rule '{rid}'", fn, self, L))
            out[rid] = row
        return out

    def scores(self) -> list:
        if self._scores is None:
            pts = self.points()
            n = self.prog.players
            self._scores = self._computed("a score", lambda: [
                B_num(sum(row[p] for row in pts.values())) for p in range(n)])
        return list(self._scores)

    def tiebreak_keys(self) -> list:
        prog = self.prog
        keys = []
        for p in range(prog.players):
            L: list = [None] * prog.score_nlocals
            L[0] = p
            keys.append(tuple(self._computed("a tie-breaker", fn, self, L)
                              for _, fn in prog.tiebreaks))
        return keys

    def winners(self) -> list:
        """Players with the best (score, tie-breakers...); several share a victory."""
        sc = self.scores()
        tb = self.tiebreak_keys()
        keys = [(sc[p],) + tb[p] for p in range(self.prog.players)]
        best = max(keys)
        return [p for p, k in enumerate(keys) if k == best]

    def returns(self) -> list:
        """What each player gets at the end, as game.returns says: their scores, or for
        win_loss +1 for a winner and -1 for the others (0 for all when all win: a draw).
        Before the end: 0 each (as OpenSpiel's returns)."""
        n = self.prog.players
        if not self.terminal:
            return [0] * n
        if self.prog.returns != "win_loss":
            return self.scores()
        won = set(self.winners())
        if len(won) == n:
            return [0] * n
        return [1 if p in won else -1 for p in range(n)]

    def violated_invariants(self) -> list:
        """The ids of the spec's invariants that do not hold in this state."""
        return [iid for iid, fn, size in self.prog.invariants
                if not self._computed(f"the invariant '{iid}'", fn, self, [None] * size)]

    # ---- copies -----------------------------------------------------------------------------
    def clone(self, facts: bool = False) -> State:
        """A copy of the state, to be changed on its own. It starts without derived facts
        (the cheap copy) unless `facts`: then it takes copies of this state's facts, views
        and kept groups (runtime/views.copy_facts), so that the moves made on it compute
        only what they change, not every view again: for a search that plays on from
        the copy (a bot's determinisation, a greedy look-ahead)."""
        new = self._position_copy()
        new.history = self.history[:]
        new._scores = self._scores
        if facts and self.facts:
            new.facts, new.tracked = copy_facts(self.facts, self.tracked)
        else:
            new.facts = {}
            new.tracked = None
        new.gather = None
        new.to_act = self.to_act
        new.fired = None if self.fired is None else dict(self.fired)
        # the generator is shared until one of the two draws (see State.rng); neither
        # may change the shared object, so both copy before their next draw
        new._rng = self._rng
        new._rng_shared = self._rng_shared = True
        # a copy draws its shuffles as this state does (a tape of its own, from now on)
        new.draws = None if self.draws is None else type(self.draws)()
        new.origin = self.origin
        locals_map: dict = {}
        frames_map: dict = {}
        stack = []
        for fr in self._stack:
            L = fr.L
            nl = locals_map.get(id(L))
            if nl is None:
                nl = locals_map[id(L)] = L[:]
            nf = _new_frame(Frame)       # fr.copy(nl), field by field (see State._apply)
            nf.ins = fr.ins
            nf.pc = fr.pc
            nf.L = nl
            nf.loop = fr.loop
            nf.data = fr.data            # never changed in place (Frame): shared
            nf.at = fr.at
            nf.block = fr.block
            frames_map[id(fr)] = nf
            stack.append(nf)
        new._stack = stack
        p = self.pending
        new.pending = None if p is None else p.copy(frames_map[id(p.frame)])
        new._seen = None if self._seen is None else self._seen[:]
        return new

    def _position_copy(self, known: bool = True) -> State:
        """A new state with a copy of this one's position, variables, whose turn it is
        and its counters; clone and imagine set the rest."""
        new = State.__new__(State)
        new.game, new.prog = self.game, self.prog
        new.slots = [s[:] for s in self.slots]
        new.where = self.where[:]
        if self.known is None or not known:
            new.known = new.pinned = None
        else:
            new.known, new.pinned = self.known[:], self.pinned[:]   # type: ignore[index]
        new.gv = self.gv[:]
        new.pv = [v[:] for v in self.pv]
        new.pa = [a[:] for a in self.pa] if self.pa else self.pa   # [] is never changed
        new.current, new.turn, new.terminal, new.steps = (self.current, self.turn,
                                                          self.terminal, self.steps)
        return new

    def imagine(self) -> State:
        """A copy to try statements on (`after ... then ...`, readers.B_imagine): the
        position, the variables and whose turn it is, with no frames, no decision and no
        derived facts; the history is shared (nothing is applied to the copy). It shares
        the generator, and says so: a draw on it copies the generator first (rng), which
        B_settle refuses."""
        new = self._position_copy(known=False)     # nobody samples a world of it
        new.history = self.history
        new._scores = None
        new.facts = {}
        new.tracked = None
        new.gather = None
        new.to_act = self.to_act
        new.fired = None if self.fired is None else {}     # a traced game's marks, dropped
        new._rng, new._rng_shared = self._rng, True
        new.draws = None        # a shuffle here draws from the generator: B_settle refuses it
        new.origin = None
        new._stack = []
        new.pending = None
        new._seen = None
        return new

    # ---- changes made from outside, and determinisation ------------------------------------
    def changed(self) -> None:
        """The position was changed from outside the rules (a tool set pieces or variables
        by hand): forget the derived facts and the scores kept, which are stale, and the
        origin (the history no longer plays to this position)."""
        self.origin = None
        self.facts.clear()
        self.tracked = None
        self._scores = None
        self.forget_known()

    def forget_known(self) -> None:
        """Each seat knows where a piece is only if it sees it now (a position set by
        hand has no history to have learnt from)."""
        seers = self.prog.slot_seers
        if seers is not None:
            self.known = [seers[s] if s >= 0 else 0 for s in self.where]
            self.pinned = [0] * len(self.slots)

    def pin_known(self) -> None:
        """State.pinned from State.known: per slot, the seats that know of a piece in it
        without seeing into it."""
        seers, known = self.prog.slot_seers, self.known
        assert seers is not None and known is not None
        self.pinned = [0] * len(self.slots)
        for s, content in enumerate(self.slots):
            for q in content:
                self.pinned[s] |= known[q] & ~seers[s]

    def relist(self) -> None:
        """List the pending decision again, from the state as it is now (after its pieces
        were moved from outside: call it after changed()). A paused decision's frame
        points at the instruction that lists it, so running the stack lists it again
        (what State.from_json does); listing has no side effects. If nothing is legal
        any more, the game goes on as the rules say, up to the next decision."""
        if self.terminal or self.pending is None:
            return
        self.changed()
        self._list_again()

    def _list_again(self) -> None:
        """relist() once the stale facts are dropped."""
        if self.terminal or self.pending is None:
            return
        if not self._stack or self._stack[-1] is not self.pending.frame:
            raise TabulaError("the pending decision is not on top of the stack; cannot list "
                              "it again")
        self.pending = None
        self._scores = None
        steps = self.steps
        self._run()
        self.steps = steps

    def hidden_slots(self, player: int) -> tuple:
        """The slots whose pieces `player` cannot see (Game.hidden_slots)."""
        return self.game.hidden_slots(player)

    def resample(self, player: int, rng: random.Random) -> State:
        """A determinisation: a copy of this state in which every piece `player` cannot
        see is redistributed at random (drawn with `rng`) among the positions that hold
        pieces `player` cannot see (see _resample_once), and which keeps the spec's
        invariants: a world that breaks one this state keeps (a hint's notes that say
        what a card in the seat's hand is, while the card drawn there is another) is drawn
        again, up to MAX_RESAMPLES draws in all; past them the last world is given. A
        spec without invariants pays nothing for this.

        Where the spec has variables `player` cannot see (a die rolled in secret, another
        player's hidden value) and the state knows the seed its history plays from
        (State.origin), the world is first played again from that seed (_replayed_world):
        every decision the seat saw is made again as it was, every chance decision and
        other player's decision it did not see is drawn again (chance by its weights,
        a player's choice uniformly among the legal ones), and a replay whose observation
        for the seat differs from this state's is drawn again; the pieces are then
        redistributed as above. So a hidden variable takes a value the seat cannot rule
        out, never its true value for certain."""
        base = self
        if self.origin is not None and self.game.hides_variables(player):
            seen = self.observation(player)
            for _ in range(MAX_RESAMPLES):
                replayed = self._replayed_world(player, rng, seen)
                if replayed is not None:
                    base = replayed
                    break
        world = base._resample_once(player, rng)
        if not self.prog.invariants:
            return world
        kept = None
        for _ in range(MAX_RESAMPLES - 1):
            broken = _broken(world)
            if not broken:
                return world
            if kept is None:
                kept = _broken(self)
            if broken <= kept:
                return world
            world = base._resample_once(player, rng)
        return world

    def _replayed_world(self, player: int, rng: random.Random, seen: dict) -> State | None:
        """This state's history played again from its origin, each decision `player`
        saw made as it was and each it did not see drawn again (see resample); None if
        the replay does not give the seat `seen`, this state's observation (a decision it
        saw is not legal there, or what it sees differs)."""
        st = self.game.new_state(seed=self.origin)    # type: ignore[arg-type]
        for real in self.history:
            p = st.pending
            if p is None or real not in p.actions:
                return None
            st._apply(p, st.unseen_redrawn(real, player, rng))
        return st if st.observation(player) == seen else None

    def unseen_redrawn(self, action: tuple, player: int, rng: random.Random) -> tuple:
        """`action` of the pending decision as a world sampled for `player` takes it: the
        same if `player` sees it (or makes it, or it is part of a joint move, revealed to
        all), else drawn again: chance's by its weights, another player's uniformly among
        the legal ones (resample)."""
        p = self.pending
        if p is None or p.joint is not None or p.player == player:
            return action
        sees = self.who_sees(action)
        if sees is None or player in sees:
            return action
        return (self.sample_chance(rng) if p.player == CHANCE
                else p.actions[int(rng.random() * len(p.actions))])

    def _resample_once(self, player: int, rng: random.Random) -> State:
        """One determinisation: a copy of this state in which every piece `player` cannot
        see is redistributed at random (drawn with `rng`) among the positions that hold
        pieces `player` cannot see.

        Each hidden slot keeps its number of pieces, and a piece only ever takes the place
        of a piece of the same component (piece_component), so hidden hands, face-down
        piles and secret pieces are resampled together and consistently with what
        `player` sees: the player's observation of the copy equals its observation of
        this state. The order inside a hidden slot (the order of a face-down pile) is
        resampled too. The pending decision is listed again on the copy (when a piece
        changed places: the copy keeps this state's views and kept groups, brought up to
        date by the slots that changed, and drops its other facts). The copy gets
        its own random generator, drawn from `rng` (this state's generator would tell
        future shuffles), and no history (the true actions name hidden pieces). In a game
        with recall, the decisions others made out of `player`'s sight lose their text.

        At the end of a game the observation shows every score, which hidden pieces may
        decide: there the copy's scores may differ from the true ones.
        A piece `player` knows to be in a hidden slot (State.known: it saw it go there, a
        card taken from the open market into another's hand) stays in that slot; only
        the others are redrawn. Limits: variables are kept as they are (resample redraws
        those the seat cannot see first); the order of a face-down pile the seat watched
        being built is not known (redrawn).
        """
        new = self.clone()
        prog = self.prog
        comp = prog.piece_component
        slots = new.slots
        hidden = self.game.hidden_slots(player)
        groups: dict = {}
        known, bit = self.known, 1 << player
        for s in hidden:
            for i, pid in enumerate(slots[s]):
                # a piece the seat knows is in this slot stays in it (its place in the
                # slot redrawn among such pieces); the others go anywhere hidden
                pinned = known is not None and known[pid] & bit
                groups.setdefault((comp[pid], s if pinned else -1), []).append((s, i, pid))
        where = new.where
        for entries in groups.values():
            if len(entries) < 2:
                continue
            pieces = [pid for _, _, pid in entries]
            rng.shuffle(pieces)
            for (s, i, _), pid in zip(entries, pieces):
                slots[s][i] = pid
                where[pid] = s
        for s in prog.heaps:          # an unordered zone keeps its pieces in piece order
            slots[s].sort()
        if new.known is not None:     # pieces changed slots: who knows of what, where
            new.pin_known()
        new.rng = random.Random(rng.getrandbits(64))
        new.history = []
        new.origin = None
        if new._seen is not None:     # what others chose out of sight stays unknown
            new._seen = [e if e[3] is None or player in e[3] else (e[0], e[1], "", e[3])
                         for e in new._seen]
        pend = new.pending
        others = ([who for who, _ in pend.joint[:len(pend.chosen)]]
                  if pend is not None and pend.joint is not None else [])
        moved = [s for s in hidden if slots[s] != self.slots[s]]
        if others or (moved and not self.facts):
            new.relist()
        elif not moved:
            # no piece changed places (nothing hidden, or the hidden pieces were drawn
            # where they are): the same position, whose derived facts and listed decision
            # hold; the copy takes them instead of computing them again
            if self.facts:
                new.facts, new.tracked = copy_facts(self.facts, self.tracked)
            return new
        else:
            # the views and kept groups are kept up to date by the slots that changed, as
            # for a move; every other fact is dropped (those that read pieces would be
            # stale) and the decision listed again
            keep = prog.facts.tracked
            new.facts, new.tracked = copy_facts(
                {k: v for k, v in self.facts.items() if k in keep}, self.tracked)
            if new.tracked is not None:
                for s in moved:
                    touch_slot(new, s)
            new._list_again()
        # at a simultaneous decision, the choices already made by others are secret: each
        # is drawn at random among that player's legal actions; the seat's own it knows
        mine = self.pending.chosen if others and self.pending is not None else []
        for i, who in enumerate(others):
            pend = new.pending
            if pend is None or pend.joint is None or pend.player != who:
                break
            new._apply(pend, mine[i] if who == player
                       else pend.actions[int(rng.random() * len(pend.actions))])
        return new

    # ---- JSON -------------------------------------------------------------------------------
    def to_json(self) -> dict:
        """A canonical JSON-ready dict; State.from_json(game, d) gives the state back."""
        locals_ids: dict = {}
        locals_list: list = []
        frames = []
        for fr in self._stack:
            L = fr.L
            if id(L) not in locals_ids:
                locals_ids[id(L)] = len(locals_list)
                locals_list.append(L)
            frames.append({"block": fr.block.id, "pc": fr.pc, "locals": locals_ids[id(L)],
                           "loop": fr.loop.id if fr.loop is not None else None,
                           "a": saved_value(fr.data), "b": saved_value(fr.at)})
        rng = self._rng.getstate()
        return {"format": STATE_FORMAT, "spec": self.prog.spec_id,
                "players": self.prog.players, "options": self.game.options,
                "slots": self.slots, "globals": saved_value(self.gv),
                "player_vars": saved_value(self.pv),
                "current": self.current, "turn": self.turn, "terminal": self.terminal,
                "steps": self.steps, "history": encode(self.history),
                "locals": saved_value(locals_list), "frames": frames,
                "pending_frame": (self._stack.index(self.pending.frame)
                                  if self.pending is not None else None),
                "rng": [rng[0], list(rng[1]), rng[2]],
                **({} if self.to_act is None else {"to_act": self.to_act}),
                **({} if not self.pa else
                   {"attributes": dict(zip(self.prog.changeable, saved_value(self.pa)))}),
                **({} if self.fired is None else {"fired": self.fired}),
                **({} if self.known is None else {"known": self.known}),
                **({} if self._seen is None else {"seen": [_entry_json(e) for e in self._seen]}),
                **self._joint_json()}

    def _joint_json(self) -> dict:
        """The choices made so far at a pending simultaneous decision."""
        p = self.pending
        if p is None or p.joint is None or not p.chosen:
            return {}
        out = {"chosen": [list(a) for a in p.chosen]}
        if self._seen is not None:
            out["chosen_seen"] = [_entry_json(e) for e in p.seen]
        return out

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, game: Game, d: dict, seed: int | None = None) -> State:
        """The state saved as `d` (to_json), checked before any of it is used
        (runtime/saved.py): the type of every field and the invariants of any state of
        the game, then, the pending decision listed again, the very state saved; a
        TabulaError says what is wrong. With `seed`, the seed its game started from, it
        must also be the state its history plays from Game.new_state(seed): only a state
        the game reaches loads (that costs a replay of the history)."""
        prog = game.prog
        saved.check(game, d, STATE_FORMAT)
        try:
            st = State(game)
            st.slots = [list(s) for s in d["slots"]]
            st.where = [-1] * len(prog.piece_names)
            for s, content in enumerate(st.slots):
                if s in prog.heaps:
                    content.sort()          # an unordered zone is kept in piece order
                for piece in content:
                    st.where[piece] = s
            st.gv = list(restored(d["globals"]))
            st.pv = [list(v) for v in restored(d["player_vars"])]
            if prog.changeable:
                st.pa = [list(restored(d["attributes"][a])) for a in prog.changeable]
            st.current, st.turn = d["current"], d["turn"]
            st.to_act = d.get("to_act")
            st.terminal, st.steps = d["terminal"], d["steps"]
            if "known" in d:
                st.known = list(d["known"])
                st.pin_known()
            else:                      # saved without: what each seat sees now
                st.forget_known()
            st.history = [tuple(a) for a in decode(d["history"])]
            if st.fired is not None:
                st.fired = dict(d.get("fired", {}))
            locals_list = [list(L) for L in restored(d["locals"])]
            st._stack = []
            for f in d["frames"]:
                block = prog.blocks[f["block"]]
                loop = prog.loops[f["loop"]] if f["loop"] is not None else None
                st._stack.append(Frame(block.ins, f["pc"], locals_list[f["locals"]],
                                       loop, restored(f["a"]), restored(f["b"]), block))
            r = d["rng"]
            st.rng.setstate((r[0], tuple(r[1]), r[2]))
            if st._seen is not None:
                st._seen = [_entry_from_json(e) for e in d.get("seen", [])]
            chosen = [tuple(a) for a in decode(d.get("chosen", []))]
            chosen_seen = [_entry_from_json(e) for e in d.get("chosen_seen", [])]
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise TabulaError(f"not a saved state of this game ({type(exc).__name__}: {exc})") \
                from None
        saved.check_loaded(st)
        if not st.terminal:
            steps, fired = st.steps, st.fired
            try:
                st._run()   # re-lists the pending decision; listing has no side effects
            except RuleError as exc:
                raise TabulaError(f"{saved.UNREACHABLE}: listing the decision it waits on "
                                  f"fails ({exc.message})") from None
            st.steps, st.fired = steps, fired
            p = st.pending
            if chosen:
                if p is None or p.joint is None or len(chosen) >= len(p.joint):
                    raise TabulaError("not a saved state of this game (choices saved for a "
                                      "simultaneous decision that is not pending)")
                for a in chosen:
                    if a not in p.actions:
                        raise TabulaError(f"not a saved state of this game ({list(a)} is not "
                                          "a legal choice)")
                    p.advance(a)
                p.seen = chosen_seen
        saved.check_relisted(st, d)
        if seed is None:
            return st
        st = saved.replay(game, st, seed)
        st.origin = seed
        return st

    # ---- what a player may see ------------------------------------------------------------
    def zones_view(self, player: int | None) -> dict:
        """Every zone's content as `player` sees it: piece names where it may look, a
        count where it sees only how many, None where it sees nothing; player None sees
        every piece (a referee's view, for tools)."""
        prog = self.prog
        names = piece_names_now(self)
        zones = {}
        for zname, z in prog.zones.items():
            owners = range(prog.players) if z.per_player else [-1]
            per = {}
            for o in owners:
                base = z.base + (o if o >= 0 else 0) * z.nslots
                content = self.slots[base:base + z.nslots]
                if z.shows(o, player):
                    shown = [[names[p] for p in s] for s in content]
                    value: Any = shown[0] if z.nslots == 1 else shown
                elif z.visibility == "hidden":
                    value = None
                else:
                    counts = [len(s) for s in content]
                    value = {"count": counts[0] if z.nslots == 1 else counts}
                per[o] = value
            zones[zname] = per[-1] if not z.per_player else {str(o): v for o, v in per.items()}
        return zones

    def attributes_view(self, player: int | None) -> dict:
        """The changeable attributes of the pieces `player` sees (zones_view's rule: whoever
        sees a piece sees what it is now), shaped as zones_view: each piece seen is a
        mapping of its changeable attributes to their values, or None if its component
        has none; only the copies of zones that hold such a piece are written (the other
        owners' copies of a per-player zone as zones_view shows them)."""
        prog = self.prog
        attrs = _changing(prog)          # per piece: the rows of State.pa it has, or ()
        pa = self.pa
        out: dict = {}
        for zname, z in prog.zones.items():
            owners = range(prog.players) if z.per_player else [-1]
            per: dict = {}
            found = False
            for o in owners:
                base = z.base + (o if o >= 0 else 0) * z.nslots
                content = self.slots[base:base + z.nslots]
                if z.shows(o, player):
                    if any(attrs[p] for s in content for p in s):
                        found = True
                        shown = [[{a: encode(pa[i][p]) for i, a in attrs[p]} if attrs[p]
                                  else None for p in s] for s in content]
                    else:
                        shown = [[None] * len(s) for s in content]
                    per[o] = shown[0] if z.nslots == 1 else shown
                elif z.visibility == "hidden":
                    per[o] = None
                else:
                    counts = [len(s) for s in content]
                    per[o] = {"count": counts[0] if z.nslots == 1 else counts}
            if found:
                out[zname] = per[-1] if not z.per_player else {str(o): v
                                                               for o, v in per.items()}
        return out

    def observation(self, player: int, legal_actions: bool = True) -> dict:
        """What `player` may see: zones by their visibility, variables, whose turn, and the
        player's own legal actions (unless legal_actions is false). Nothing else."""
        prog = self.prog
        zones = self.zones_view(player)
        gvars = {n: v for n, v, vis in zip(prog.gvar_names, self.gv, prog.gvar_vis)
                 if vis == "public"}
        pvars = {}
        for i, (n, vis) in enumerate(zip(prog.pvar_names, prog.pvar_vis)):
            if vis == "hidden":
                continue
            pvars[n] = {str(p): self.pv[p][i] for p in range(prog.players)
                        if sees(vis, p, player)}
        obs = {"player": player, "current_player": self.current_player(),
               "turn": self.turn, "terminal": self.terminal, "zones": zones,
               "variables": gvars, "player_variables": pvars}
        if self.is_simultaneous_node():     # one node to every seat (deciding())
            obs["current_player"] = SIMULTANEOUS
            obs["choosing"] = self.deciding()
        if prog.changeable:
            obs["attributes"] = self.attributes_view(player)
        if legal_actions and player in self.choosers():
            obs["legal_actions"] = self.legal_action_strings(player)
        if self.terminal:
            obs["scores"] = self.scores()
        for key in ("variables", "player_variables", "scores"):    # fractions as "7/3"
            if key in obs:
                obs[key] = encode(obs[key])
        return obs

    # ---- information states (perfect recall) -----------------------------------------------
    def information_state(self, player: int) -> dict:
        """What `player` knows, with perfect recall: their observation of the table now,
        and every decision made so far as they saw it, in order ({"player", "rule",
        "action"}; without "action" where the decision's visible_to hid it from them).
        Their own choice at a simultaneous decision not yet revealed ends the history,
        marked "pending"; no other player's appears before the reveal. Needs a game with
        recall (load_game(..., recall=True))."""
        if self._seen is None:
            raise TabulaError("this game keeps no information states: load it with "
                              "recall=True")
        if not 0 <= player < self.prog.players:
            raise TabulaError(f"there is no player {player} in this game")
        history = [_entry_for(e, player) for e in self._seen]
        p = self.pending
        if p is not None and p.joint is not None:
            history += [dict(_entry_for(e, player), pending=True) for e in p.seen
                        if e[0] == player]
        obs = self.observation(player, legal_actions=False)
        return {"player": player, "observation": obs, "history": history}

    def information_state_string(self, player: int) -> str:
        """information_state(player) as canonical JSON text: equal for two states exactly
        when the player cannot tell them apart."""
        return json.dumps(self.information_state(player), sort_keys=True,
                          separators=(",", ":"))


MAX_RESAMPLES = 32      # worlds State.resample draws at most to keep the invariants


def _broken(st: State) -> set:
    """The invariants st breaks (one that cannot be computed there counts as broken)."""
    try:
        return set(st.violated_invariants())
    except TabulaError:
        return {iid for iid, _, _ in st.prog.invariants}


def _changing(prog: Program) -> list:
    """Per piece, the (row of State.pa, attribute) pairs of the changeable attributes its
    component declares, () for a piece with none: computed once a program."""
    if prog.changing is None:
        prog.changing = [tuple((i, a) for i, a in enumerate(prog.changeable)
                               if prog.changeable_by[a][p])
                         for p in range(len(prog.piece_names))]
    return prog.changing


def slot_seers(prog: Program) -> list | None:
    """Per slot, the seats that see its pieces (a bitmask), or None if all see all."""
    zones = prog.zone_list
    out = []
    for s in range(prog.nslots):
        z = zones[prog.slot_zone[s]]
        out.append(sum(1 << p for p in range(prog.players) if z.shows(prog.slot_owner[s], p)))
    full = (1 << prog.players) - 1
    return None if all(m == full for m in out) else out


def hidden_slots(prog: Program, player: int) -> tuple:
    """The slots whose pieces `player` cannot see (ZoneInfo.shows, the rule of
    State.observation), read off Program.slot_seers (Game.__init__ fills it; None: every
    seat sees every slot)."""
    seers = prog.slot_seers
    if seers is None:
        return ()
    bit = 1 << player
    return tuple(s for s, m in enumerate(seers) if not m & bit)


def _bind(dec, L, action: tuple, player=None) -> list:
    """A copy of a decision's locals L with an action's values bound (and the chooser, at
    a simultaneous decision): what its label, weight and visible_to read."""
    bound = list(L)
    if dec.chooser_slot is not None:
        bound[dec.chooser_slot] = player
    for slot, v in zip(dec.alts[action[1]].slots, action[2:]):
        bound[slot] = v
    return bound


def _entry_for(entry: tuple, player: int) -> dict:
    """An entry of the decisions seen, as `player` saw it."""
    who, rule, text, visible = entry
    out = {"player": "chance" if who == CHANCE else who, "rule": rule}
    if visible is None or player in visible:
        out["action"] = text
    return out


def _entry_json(entry: tuple) -> list:
    who, rule, text, visible = entry
    return [who, rule, text, None if visible is None else sorted(visible)]


def _entry_from_json(data) -> tuple:
    who, rule, text, visible = data
    return (int(who), str(rule), str(text), None if visible is None else frozenset(visible))
