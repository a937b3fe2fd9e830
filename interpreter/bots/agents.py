"""Bots: random, greedy and MCTS agents that see only what their seat may see.

Input: a Game, a seed and one Agent per seat. Output: played games (scores, winners, the
actions taken). An agent acts on a View of the state built for its seat: the seat's
observation, its legal actions and their strings, its own random generator, and
`sample(rng)`, which gives a determinisation: a copy of the game in which every piece the
seat cannot see has been redistributed at random among the places the seat cannot see
into (State.resample). Agents never receive the true state, so a bot that searches
(MCTS) searches over worlds consistent with its own observation, never over the real one.

Agents by name (`make_agent`): "random" (uniform), "greedy" (the action after which its own
score minus the best other score is highest, ties at random), "mcts" / "mcts:N" /
"mcts:N:D" (information-set UCT with N iterations per decision, 500 by default, its
expansion ordered by greedy's one-step margin and widened progressively, its tree kept
from one decision to the next; random playouts to the end of the game, or for D
decisions and then judged by the scores),
"mcts:Ns" (N CPU seconds a decision instead: not deterministic across machines or loads;
the iteration budget, the default, is).
"""

from __future__ import annotations

import math
import random
import time

from ..errors import IllegalAction, TabulaError, did_you_mean, excerpt
from ..runtime.engine import Game, Pending, State
from ..runtime.model import CHANCE

__all__ = ["Agent", "GreedyAgent", "MCTSAgent", "RandomAgent", "Sight", "View", "AGENTS",
           "BOTS", "agent_rng", "chance_rng", "make_agent", "make_agents", "play_game"]


# ---- the view an agent gets ---------------------------------------------------------------

class View:
    """What an agent sees when it must act: its seat, its observation, its legal actions
    (tuples) and their strings, its own generator, `sample(rng)` for determinisations,
    and (where the driver keeps it: play_game) the game's decisions as the seat saw them.
    The true state is kept out of reach (only `sample` uses it, to make a copy). A view
    is valid while its agent acts (the observation and strings are computed on first use).
    """

    __slots__ = ("player", "legal_actions", "rng", "history", "_state", "_obs", "_strings")

    def __init__(self, state: State, player: int, rng: random.Random,
                 history: list | None = None):
        self.player = player
        # the decisions of this game so far as the seat saw them, [(player, action string,
        # or None where it was out of the seat's sight)], chance as CHANCE; one list for
        # the seat's whole game, grown as it goes (None: not told, as in tabula play)
        self.history = history
        self.legal_actions = tuple(state.legal_actions()) if \
            state.current_player() == player else ()
        self.rng = rng
        self._state = state
        self._obs: dict | None = None
        self._strings: list | None = None

    @property
    def observation(self) -> dict:
        if self._obs is None:
            self._obs = self._state.observation(self.player)
        return self._obs

    @property
    def action_strings(self) -> list:
        if self._strings is None:
            st = self._state
            self._strings = [st.action_to_string(a) for a in self.legal_actions]
        return self._strings

    def sample(self, rng: random.Random | None = None) -> State:
        """A determinisation: a State consistent with this seat's observation."""
        return self._state.resample(self.player, self.rng if rng is None else rng)


class Sight:
    """The decisions of one game as each seat saw them, for the agents that ask for them
    (`Agent.wants_history`): the action's string, or None where the action was out of the
    seat's sight (a decision's visible_to; every choice at a simultaneous decision, whose
    reveal comes later)."""

    __slots__ = ("by_seat",)

    def __init__(self, players: int):
        self.by_seat: list = [[] for _ in range(players)]

    @classmethod
    def of(cls, agents: list, players: int) -> Sight | None:
        """A Sight if one of the agents asks for its history, else None (no cost)."""
        return cls(players) if any(getattr(a, "wants_history", False) for a in agents) \
            else None

    def saw(self, st: State, action: tuple) -> None:
        """`action` of st's pending decision is about to be applied."""
        p: Pending = st.pending  # type: ignore[assignment]  # called at a pending decision
        who = p.player
        if p.joint is not None:
            for seen in self.by_seat:
                seen.append((who, None))
            return
        text = st.seen_string(action)
        sees = st.who_sees(action)
        for q, seen in enumerate(self.by_seat):
            seen.append((who, text if sees is None or q in sees else None))


# ---- agents -------------------------------------------------------------------------------

class Agent:
    """A bot: `act(view)` returns one of `view.legal_actions`."""

    name = "agent"
    wants_history = False     # True: the driver passes View.history (play_game does)

    def act(self, view: View) -> tuple:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<agent {self.name}>"


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, view: View) -> tuple:
        acts = view.legal_actions
        return acts[int(view.rng.random() * len(acts))]


def _margin(scores: list, player: int) -> float:
    """The player's score minus the best other score (its own score when alone)."""
    others = [s for q, s in enumerate(scores) if q != player]
    return scores[player] - (max(others) if others else 0)


def _margin_after(st: State, action: tuple, who: int) -> float:
    """`who`'s score margin once `action` is played on a copy of `st`."""
    t = st.clone(facts=True)
    t.apply_unchecked(action)
    return _margin(t.scores(), who)


def _find(st: State, action: tuple, text: str):
    """The action of `st`'s pending decision that is `action` or, failing that, the first
    one whose string is `text` (None if there is none)."""
    acts = st.pending.actions if st.pending is not None else ()
    if action in acts:
        return action
    for a in acts:
        if st.action_to_string(a) == text:
            return a
    return None


class GreedyAgent(Agent):
    """On one determinisation, tries every legal action and keeps those after which its
    own score minus the best other score is highest; picks one of them at random."""

    name = "greedy"

    def act(self, view: View) -> tuple:
        acts = view.legal_actions
        if len(acts) == 1:
            return acts[0]
        rng = view.rng
        world = view.sample(rng)
        me = view.player
        best, best_value = [], None
        for a, text in zip(acts, view.action_strings):
            b = _find(world, a, text)
            if b is None:
                continue
            value = _margin_after(world, b, me)
            if best_value is None or value > best_value:
                best, best_value = [a], value
            elif value == best_value:
                best.append(a)
        if not best:
            best = list(acts)
        return best[int(rng.random() * len(best))]


class _Node:
    """A node of the search tree: the edge into it is one action (by its string) of one
    player; `w` sums that player's rewards, `avail` counts the iterations in which the
    action was legal at the parent (information-set MCTS). `keys` remembers the string
    of each action tuple met at this node (labels are the costly part of a step)."""

    __slots__ = ("children", "keys", "n", "w", "avail", "player", "rank")

    def __init__(self, player: int):
        self.children: dict = {}
        self.keys: dict = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0
        self.player = player
        self.rank: dict | None = None   # action key -> its place by one-step margin


# MCTS's random playouts stop after this many decisions, and the state is then judged by
# its scores (which a game computes at any time): random playouts to the end of a long
# game are slow and mostly noise (docs/simulate.md has the measurements).
PLAYOUT_DEPTH = 8

# MCTS's default iterations a decision: about 1 CPU second a decision in the slowest of
# the shipped games on the project's machine (docs/simulate.md has the measurements)
ITERATIONS = 500

# MCTS's default expansion: a node visited ORDER_VISITS times (the root at once) ranks its
# mover's actions by the one-step margin and expands the best first, and a node visited n
# times has at most ceil(WIDEN * sqrt(n)) children (progressive widening): with hundreds
# of actions a decision, the search looks at the few a greedy look ranks best, and
# deeper (docs/simulate.md, "What the bots are worth", has the measurements)
ORDER_VISITS = 4
WIDEN = 1.0


class MCTSAgent(Agent):
    """Single-observer information-set MCTS (Cowling, Powley & Whitehouse, 2012).

    Each iteration samples a determinisation from the view, then walks a tree whose edges
    are (player, action string), so that one tree serves every determinisation: at each
    decision it expands an untried legal action or else picks by UCB1 with availability
    counts (w/n + c*sqrt(ln(avail)/n)); chance decisions are sampled uniformly and are
    not part of the tree. Which untried action, and when: with `order_visits` (the
    default, ORDER_VISITS), a node visited that many times (the root at once) ranks its
    mover's actions by the mover's score margin one step on, on the determinisation at
    hand, and expands the best ranked first (else at random); with `widen` (WIDEN), a
    node visited n times has at most ceil(widen * sqrt(n)) children (progressive
    widening), so that a decision of hundreds of actions is searched among the few
    that rank best, and deeper. With `reuse` (the default) and a View that tells the
    game's history (play_game's), the search starts from the node of the last
    decision's tree that the actions played since lead to. A uniformly random playout
    follows, to the end of the game or,
    with `rollout_depth`, for that many decisions (the state is then judged as it stands:
    its scores, which a game computes at any time). Each player's reward is its share of
    the victory (1 / number of winners, 0 for a loser) blended with its normalized score
    margin ((own score - best other score) / largest absolute score, mapped to [0, 1])
    with weight `margin_weight`, so that a narrow loss and a wide win tell apart. The
    action played is the most visited root edge (ties at random).

    An action's string is computed once per tree node and action tuple (a label names
    things the acting player sees, so the tuple names the same action in every
    determinisation that reaches the node).
    """

    def __init__(self, iterations: int = ITERATIONS, rollout_depth: int | None = PLAYOUT_DEPTH,
                 c: float = 0.35, margin_weight: float = 0.5, seconds: float | None = None,
                 widen: float | None = WIDEN, rollout_k: int = 1, clock=None,
                 reuse: bool = True, order_visits: int | None = ORDER_VISITS):
        if iterations < 1:
            raise TabulaError("mcts needs at least 1 iteration")
        if rollout_depth is not None and rollout_depth < 0:
            raise TabulaError("an mcts playout depth cannot be negative")
        if seconds is not None and not seconds > 0:
            raise TabulaError("an mcts time budget must be more than 0 seconds")
        if rollout_k < 1:
            raise TabulaError("an mcts rollout samples at least 1 action")
        self.iterations = int(iterations)
        self.rollout_depth = None if rollout_depth is None else int(rollout_depth)
        self.c = float(c)
        self.margin_weight = float(margin_weight)
        # a time budget (CPU seconds a decision): not deterministic across machines or
        # loads, unlike an iteration budget (the default)
        self.seconds = None if seconds is None else float(seconds)
        # progressive widening: a node visited n times has at most ceil(widen * n**0.5)
        # children (None: every legal action is tried before any is tried twice)
        self.widen = None if widen is None else float(widen)
        # playouts: each step draws rollout_k actions and plays the one after which the
        # mover's score margin is highest (1: uniform random)
        self.rollout_k = int(rollout_k)
        # ordered expansion: a node visited this many times (the root at once) ranks its
        # mover's actions by the mover's score margin one step on (greedy's measure), and
        # its untried actions are expanded best first (None: at random)
        self.order_visits = None if order_visits is None else max(1, int(order_visits))
        self.clock = time.process_time if clock is None else clock
        # tree reuse: the subtree under the actions played since the last decision (as
        # View.history tells them) is the next decision's tree to start from
        self.reuse = bool(reuse)
        self.wants_history = self.reuse
        self._kept: tuple | None = None     # (the seat's history, its length, the root)
        budget = f"{self.seconds:g}s" if self.seconds is not None else f"{self.iterations}"
        self.name = f"mcts:{budget}:" + (
            "end" if self.rollout_depth is None else f"{self.rollout_depth}")

    def _rewards(self, st: State) -> list:
        n = st.prog.players
        sc = st.scores()
        top = max(sc)
        # the tie-breakers are needed only when the best score is shared
        winners = st.winners() if sc.count(top) > 1 else [sc.index(top)]
        share = 1.0 / len(winners)
        r = [share if p in winners else 0.0 for p in range(n)]
        if self.margin_weight and n > 1:
            scale = max(1.0, max(abs(s) for s in sc))
            k = self.margin_weight
            for p in range(n):
                m = max(-1.0, min(1.0, _margin(sc, p) / scale))
                r[p] = (1 - k) * r[p] + k * (0.5 + 0.5 * m)
        return r

    @staticmethod
    def _sampled_best(st: State, acts: list, who: int, k: int, rnd) -> tuple:
        """Of k actions drawn at random (with replacement), the one after which `who`'s
        score margin is highest (the first drawn on a tie)."""
        best, best_v = None, None
        for _ in range(k):
            a = acts[int(rnd() * len(acts))]
            v = _margin_after(st, a, who)
            if best_v is None or v > best_v:
                best, best_v = a, v
        return best  # type: ignore[return-value]  # k >= 1

    @staticmethod
    def _ranks(st: State, actions, keys: dict, who: int) -> dict:
        """{action key: its place} for `who`'s actions at st, best one-step margin first
        (ties in the listing's order)."""
        scored = sorted(((-_margin_after(st, a, who), i, keys[(who, a)])
                         for i, a in enumerate(actions)), key=lambda x: (x[0], x[1]))
        rank: dict = {}
        for _, _, key in scored:
            rank.setdefault(key, len(rank))
        return rank

    def _reused(self, view: View) -> _Node | None:
        """The node of the last decision's tree that the actions played since lead to,
        if the view's history is the one that tree was grown for and every action since
        was seen (chance is not in the tree: skipped) and was tried in the tree."""
        kept, self._kept = self._kept, None
        if kept is None or view.history is None or kept[0] is not view.history:
            return None
        history, start, node = kept
        for who, text in history[start:]:
            if who == CHANCE:
                continue
            if text is None:
                return None
            node = node.children.get((who, text))
            if node is None:
                return None
        return node

    def act(self, view: View) -> tuple:
        acts = view.legal_actions
        if len(acts) == 1:
            return acts[0]
        rng = view.rng
        rnd = rng.random
        me = view.player
        root = self._reused(view) if self.reuse else None
        if root is None:
            root = _Node(me)
        for a, text in zip(acts, view.action_strings):
            root.keys[(me, a)] = (me, text)
        c = self.c
        log = math.log
        sqrt = math.sqrt
        widen = self.widen
        order = self.order_visits
        k = self.rollout_k
        clock = self.clock
        deadline = None if self.seconds is None else clock() + self.seconds
        it = 0
        while True:
            if deadline is None:
                if it >= self.iterations:
                    break
            elif it > 0 and clock() >= deadline:
                break
            it += 1
            st = view.sample(rng)
            node = root
            path = []
            # selection and expansion
            while not st.terminal:
                # a game not over has a pending decision (typed: no check in this loop)
                p: Pending = st.pending  # type: ignore[assignment]
                if p.player == CHANCE:
                    st.apply_unchecked(st.sample_chance(rng))
                    continue
                who = p.player
                children = node.children
                keys = node.keys
                untried = []
                avail = []
                seen = set()
                for a in p.actions:
                    key = keys.get((who, a))
                    if key is None:
                        key = keys[(who, a)] = (who, st.action_to_string(a))
                    if key in seen:
                        continue
                    seen.add(key)
                    child = children.get(key)
                    if child is None:
                        untried.append((key, a))
                    else:
                        child.avail += 1
                        avail.append((child, a))
                if untried and (widen is None or not avail
                                or len(avail) < widen * sqrt(node.n + 1)):
                    rank = node.rank
                    if rank is None and order is not None and (
                            node is root or node.n >= order) and len(untried) > 1:
                        rank = node.rank = self._ranks(st, p.actions, keys, who)
                    if rank is None:
                        key, a = untried[int(rnd() * len(untried))]
                    else:
                        last = len(rank)
                        key, a = min(untried, key=lambda u: rank.get(u[0], last))
                    child = children[key] = _Node(who)
                    child.avail = 1
                    path.append(child)
                    st.apply_unchecked(a)
                    break
                best, best_u = None, -1.0
                for child, a in avail:
                    u = child.w / child.n + c * sqrt(log(child.avail) / child.n)
                    if u > best_u:
                        best, best_u = (child, a), u
                child, a = best  # type: ignore[misc]  # avail is never empty here
                path.append(child)
                node = child
                st.apply_unchecked(a)
            root.n += 1
            # playout
            left = -1 if self.rollout_depth is None else self.rollout_depth
            while not st.terminal and left != 0:
                p = st.pending  # type: ignore[assignment]  # as above
                acts_ = p.actions
                if k == 1 or len(acts_) == 1 or p.player == CHANCE:
                    st.apply_unchecked(acts_[int(rnd() * len(acts_))])
                else:
                    st.apply_unchecked(self._sampled_best(st, acts_, p.player, k, rnd))
                left -= 1
            r = self._rewards(st)
            for child in path:
                child.n += 1
                child.w += r[child.player]
        by_string: dict = {}
        for a, text in zip(acts, view.action_strings):
            by_string.setdefault(text, a)
        most: list = []        # the actions of the most visited children
        most_n = -1
        for (who, text), child in root.children.items():
            if who != me or text not in by_string:
                continue
            if child.n > most_n:
                most, most_n = [by_string[text]], child.n
            elif child.n == most_n:
                most.append(by_string[text])
        if self.reuse and view.history is not None:
            self._kept = (view.history, len(view.history), root)
        if not most:
            return acts[int(rnd() * len(acts))]
        return most[int(rnd() * len(most))]


# ---- by name ------------------------------------------------------------------------------

def _mcts(text: str, arg: str) -> Agent:
    """'mcts' (ITERATIONS iterations, playouts of PLAYOUT_DEPTH decisions), 'mcts:N' (N
    iterations), 'mcts:Ns' (N CPU seconds a decision, e.g. mcts:1.5s; not deterministic
    across machines), 'mcts:N:D' (playouts of D decisions), 'mcts:N:end' (to the game's
    end)."""
    if not arg:
        return MCTSAgent()
    it, _, depth = arg.partition(":")
    depth = depth.strip().lower()
    it = it.strip().lower()
    seconds = None
    try:
        if it.endswith("s"):
            seconds = float(it[:-1])
            n = 1 if seconds > 0 and math.isfinite(seconds) else 0
        else:
            n = int(it)
        d = PLAYOUT_DEPTH if not depth else None if depth == "end" else int(depth)
    except ValueError:
        n = d = 0
    if n < 1 or (d is not None and d < 0):
        raise TabulaError(f"'{text}': mcts takes a number of iterations (1 or more) or of "
                          "CPU seconds (e.g. 2s) and optionally a playout depth "
                          "(decisions, or 'end'), e.g. mcts:200, mcts:2s, mcts:200:10 or "
                          "mcts:200:end")
    return MCTSAgent(n, d, seconds=seconds)


def _without_argument(cls, name: str):
    def make(text: str, arg: str) -> Agent:
        if arg:
            raise TabulaError(f"'{text}': the {name} agent takes no argument")
        return cls()
    return make


# The bots by name, as --agents and tabula play take them: name -> (how it is written,
# how it is made from the text after its name). A new bot is its class and one line here.
BOTS = {"random": ("random", _without_argument(RandomAgent, "random")),
        "greedy": ("greedy", _without_argument(GreedyAgent, "greedy")),
        "mcts": ("mcts[:ITERATIONS|SECONDSs[:DEPTH|end]]", _mcts)}
AGENTS = {name: usage for name, (usage, _) in BOTS.items()}


def make_agent(spec: str) -> Agent:
    """An agent from its name and argument, as BOTS writes them: 'random', 'greedy',
    'mcts', 'mcts:N', 'mcts:N:D', 'mcts:N:end'."""
    text = str(spec).strip()
    name, _, arg = text.partition(":")
    name = name.strip().lower()
    if name not in BOTS:
        hint = did_you_mean(name, BOTS)
        raise TabulaError(f"unknown agent {excerpt(text)}; the agents are "
                          + ", ".join(AGENTS.values()) + (f" ({hint})" if hint else ""))
    return BOTS[name][1](text, arg.strip())


def make_agents(text: str, players: int, make=make_agent) -> list:
    """Agents for every seat from 'random,greedy,mcts:200' (one name: every seat), each
    made by `make` (make_agent; a caller may bound what it accepts)."""
    names = [t for t in str(text).split(",") if t.strip()]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise TabulaError(f"{len(names)} agents for {players} players; name one agent per "
                          "seat, or one for every seat")
    return [make(n) for n in names]


# ---- playing ------------------------------------------------------------------------------

def chance_rng(seed: int) -> random.Random:
    """The generator of chance decisions in play_game (separate from the game's own)."""
    return random.Random(f"tabula-chance:{seed}")


def agent_rng(seed: int, seat: int) -> random.Random:
    """The generator of the agent in `seat` (its own, derived from the seed and the seat)."""
    return random.Random(f"tabula-agent:{seed}:{seat}")


def next_action(st: State, agents: list, rngs: list, crng: random.Random,
                sight: Sight | None = None) -> tuple:
    """The action of the pending decision: chance's drawn uniformly with crng, a seat's
    asked of its agent (acting on its View, with the seat's generator and, with a
    Sight, what the seat saw of the game so far) and checked. With a Sight, the action
    is recorded in it (call it once per decision, then apply the action)."""
    pend: Pending = st.pending  # type: ignore[assignment]  # asked at a pending decision
    who = pend.player
    if who == CHANCE:
        drawn = st.sample_chance(crng)
        if sight is not None:
            sight.saw(st, drawn)
        return drawn
    agent = agents[who]
    a = agent.act(View(st, who, rngs[who], None if sight is None else sight.by_seat[who]))
    try:
        a = tuple(a)
    except TypeError:
        a = None
    if a not in pend.actions:
        raise IllegalAction(f"agent {agent.name} (player {who}) chose {a!r}, which is "
                            "not a legal action here")
    if sight is not None:
        sight.saw(st, a)
    return a


def play_game(game: Game, seed: int, agents: list, record: bool = True,
              on_decision=None) -> dict:
    """Play one game: chance uniformly (chance_rng(seed)), each seat by its agent (with
    agent_rng(seed, seat)). The same seed and agents give the same game. on_decision(st,
    a), if given, is called at each decision (chance's too) with the state and the action
    chosen, before the action is applied (a replay viewer clones the state there).

    Returns {"scores", "winners", "points" (per scoring rule), "decisions" (agents'
    decisions), "chance" (chance decisions), "actions" ([player, action string] in
    order, chance as -1; only with record=True), "rule_counts" (decisions per rule id)}.
    """
    agents = list(agents)
    if len(agents) != game.players:
        raise TabulaError(f"{len(agents)} agents for a game of {game.players} players")
    st = game.new_state(seed=seed)
    crng = chance_rng(seed)
    rngs = [agent_rng(seed, p) for p in range(game.players)]
    sight = Sight.of(agents, game.players)
    actions: list = []
    rule_counts: dict = {}
    decisions = chances = 0
    while not st.terminal:
        pend: Pending = st.pending  # type: ignore[assignment]  # a game not over: one is
        who = pend.player
        a = next_action(st, agents, rngs, crng, sight)
        if on_decision is not None:
            on_decision(st, a)
        if who == CHANCE:
            chances += 1
        else:
            decisions += 1
        if record:
            actions.append([who, st.action_to_string(a)])
        rid = pend.decision.rule
        rule_counts[rid] = rule_counts.get(rid, 0) + 1
        st.apply_unchecked(a)
    return {"agents": [a.name for a in agents], "seed": seed, "scores": st.scores(),
            "winners": st.winners(), "points": st.points(), "decisions": decisions,
            "chance": chances, "actions": actions, "rule_counts": rule_counts}
