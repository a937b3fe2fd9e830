"""`tabula serve`: play and look at games in a browser, on this machine.

Input: optionally a game (a shipped name or a path), its players, options and seats, or
a game log to replay; a host (127.0.0.1 unless told otherwise) and a port. Output: a
local web server: a lobby to start a table (a game, its options, each seat human or a
bot), one page per seat that shows only that seat's view (the board drawn as SVG by
tools/boardsvg.py from State.zones_view, the seat's variables, its history as its
information state gives it), the legal actions chosen on the board where they have a
place and otherwise from a list, the rule and its source for the decision, undo and a
bot's hint; and a replay viewer for game logs (step forward and back, jump to a
decision, the rule of each step).

A seat's page answers only to the seat's token (in its link), a hot seat's to its own
(and hands the screen over between humans when the game hides something); a page
without a seat watches a game that hides nothing. At a simultaneous decision every
human chooser is asked at once, and no page shows who has chosen (Table). A bot the
server runs searches within MAX_ITERATIONS or MAX_SECONDS a decision.

Built on the standard library's HTTP server (http.server.ThreadingHTTPServer): the
client is a page and a script that ask JSON of the server (no websocket: a seat waiting
for others asks again every second), so a well-kept server for plain requests is all
it needs, and Tabula keeps no web framework as a dependency. Nothing of a request is
run as code: the game is a shipped name or a spec path, read by load_spec as any spec.

Chance and the bots draw from the generators `tabula play` uses (agents.chance_rng,
agents.agent_rng), so a table with the same seed and seats plays as `tabula play`.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import sys
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from ..bots.agents import (
    AGENTS,
    MCTSAgent,
    View,
    agent_rng,
    chance_rng,
    make_agent,
    make_agents,
    play_game,
)
from ..errors import IllegalAction, TabulaError, excerpt
from ..lang import catalog
from ..lang.variants import all_steps
from ..runtime.model import CHANCE
from ..runtime.values import encode
from ..spec import load_spec, parse_options
from .boardsvg import draw
from .cmdutil import (
    EXIT_INPUT,
    EXIT_OK,
    OPTION,
    PLAYERS,
    SEED_RANGE,
    Command,
    arg,
    seed_arg,
    seed_problem,
    typed_int,
)
from .gamelog import log_game, log_spec, player_log_refusal, read_log, replay_states
from .placing import places

__all__ = ["COMMAND", "Server", "Table", "cmd_serve"]

HUMAN = "human"
MAX_TABLES = 64          # tables kept at once (the oldest goes first)
MAX_BODY = 1_000_000     # bytes of a request's body (a pasted log)
HIDDEN = "(out of sight)"  # a decision's action in a replay seen as a seat that did not see it
WEB = "web"              # the page, script and style: interpreter/tools/web/
# a bot the server runs (a seat, a hint, a replayed game) searches at most this much a
# decision: a request may not make it think for hours (docs/cli.md, serve)
MAX_ITERATIONS = 5000    # mcts:N
MAX_SECONDS = 5.0        # mcts:Ns
MAX_PLAYOUT = 50         # mcts:N:DEPTH with an iteration budget (not end: a playout to
                         # the end of a long game, 5,000 times, takes minutes)


def _whole(value) -> int | None:
    """A whole number a request or the command line gives: a JSON integer (not a truth
    value), or its digits in a text (typed_int); None for anything else."""
    return value if type(value) is int else typed_int(value) if isinstance(value, str) \
        else None


def _seed(value) -> int:
    """A seed from a request or the command line (a whole number, or its digits), as
    seed_arg takes it; anything else a TabulaError (a JSON error, or exit 1)."""
    n = _whole(value)
    why = f"not a whole number; {SEED_RANGE}" if n is None else seed_problem(n)
    if why is not None:
        raise TabulaError(f"seed {excerpt(_text(value), 30)}: {why}")
    return n  # type: ignore[return-value]  # checked: a whole number


def _count(value, what: str) -> int | None:
    """A whole number a request gives (a JSON integer, or its digits in a query), None if
    it gives none; anything else (2.5, "abc", true, a list) a TabulaError."""
    if value is None or value == "":
        return None
    n = _whole(value)
    if n is None:
        raise TabulaError(f"{what} {excerpt(_text(value), 30)}: not a whole number")
    return n


def _name(value, what: str) -> str:
    """A name a request gives (a game, a path, a bot): a string, else a TabulaError."""
    if not isinstance(value, str) or not value.strip():
        raise TabulaError(f"name {what}" if value in (None, "") else
                          f"{what} {excerpt(_text(value), 30)}: not a name")
    return value.strip()


def _seats(value) -> list | None:
    """A request's seats: a list of names, or one string of them separated by commas (as
    --seats takes them); None if none are given."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise TabulaError(f"seats {excerpt(_text(value), 40)}: a list of names (human or "
                          "a bot), one a seat")
    if not all(s.strip() for s in value):
        raise TabulaError(f"seats {excerpt(_text(value), 40)}: a seat without a name; name "
                          "each seat human or a bot")
    return [s.strip() for s in value]


def _options(value) -> dict:
    """A request's options: an object of KEY: VALUE (a string, number or true/false)."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
            isinstance(v, (str, int, float, bool)) or v is None for v in value.values()):
        raise TabulaError(f"options {excerpt(_text(value), 40)}: an object of KEY: VALUE, "
                          "each value a string, a number or true/false")
    return {str(k): v for k, v in value.items() if v not in (None, "")}


def _text(value) -> str:
    """A request's value as it was sent (JSON), to quote in an error."""
    return value if isinstance(value, str) else json.dumps(value)


def port_arg(text: str) -> int:
    """The argparse type of --port: 0 (any free port) to 65535, else a usage error."""
    value = typed_int(text)
    if value is None or not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"not a port: {excerpt(text)}; a port is a whole "
                                         "number from 0 (any free one) to 65535")
    return value


port_arg.__name__ = "port"


def decision_docs(spec) -> dict:
    """The spec's entries a decision may come from, by the name a state gives the
    decision (Pending.decision.rule): `step:ID` for a step of the play, `rule:NAME` for a
    rule of `rules:` (a choice made inside a rule)."""
    docs = {f"step:{step.get('id')}": step for step, _, _ in all_steps(spec.doc)}
    for name, rule in (spec.doc.get("rules") or {}).items():
        if isinstance(rule, dict):
            docs[f"rule:{name}"] = rule
    return docs


def rule_words(docs: dict, key: str) -> dict:
    """The words of a decision's rule (decision_docs' entry of `key`): its id, the
    source it quotes, its ruling, its description (those it has), each on one line."""
    entry = docs.get(key) or {}
    out = {"id": key.partition(":")[2]}
    for field in ("source", "ruling", "description"):
        if entry.get(field):
            out[field] = " ".join(str(entry[field]).split())
    return out


def bot(name) -> object:
    """The agent a request names (a seat, a hint, a replayed game's bots), within the
    server's budget: an mcts of at most MAX_ITERATIONS iterations or MAX_SECONDS seconds
    a decision; a bad name or a bigger budget is a TabulaError."""
    agent = make_agent(_name(name, "a bot"))
    if isinstance(agent, MCTSAgent):
        if agent.seconds is not None and agent.seconds > MAX_SECONDS:
            raise TabulaError(f"{excerpt(name, 30)}: tabula serve lets a bot think at most "
                              f"{MAX_SECONDS:g} seconds a decision (e.g. mcts:2s)")
        if agent.seconds is None and agent.iterations > MAX_ITERATIONS:
            raise TabulaError(f"{excerpt(name, 30)}: tabula serve lets a bot search at most "
                              f"{MAX_ITERATIONS} iterations a decision (e.g. mcts:500)")
        if agent.seconds is None and (agent.rollout_depth is None
                                      or agent.rollout_depth > MAX_PLAYOUT):
            raise TabulaError(f"{excerpt(name, 30)}: tabula serve lets a bot's playouts "
                              f"run at most {MAX_PLAYOUT} decisions under an iteration "
                              "budget (e.g. mcts:500:8), or any depth under a time budget "
                              "(e.g. mcts:2s:end)")
    return agent


def _who(p: int, seats: list) -> str:
    if p == CHANCE:
        return "chance"
    return f"player {p} ({seats[p]})"


class Forbidden(TabulaError):
    """A request for a seat's page without that seat's token (403)."""


def _same(token, expected) -> bool:
    return (isinstance(token, str) and isinstance(expected, str)
            and secrets.compare_digest(token.encode("utf-8"), expected.encode("utf-8")))


def _as_chooser(st, seat: int):
    """A copy of `st` where `seat` is the one asked: at a simultaneous decision, the
    choosers before it in the engine's order choose their first action (a seat's view
    never shows the others' choices, so what they are does not matter)."""
    c = st.clone()
    while c.pending.joint is not None and c.pending.player != seat:
        c.apply_unchecked(c.pending.actions[0])
    return c


class Table:
    """One game at the table: its state, the seats (HUMAN or a bot's name), chance's
    and the bots' generators, the snapshots undo goes back to. Every method takes the
    table's lock: a page of each seat may ask at once.

    At a simultaneous decision (st.pending.joint) every human chooser is asked at once:
    each one's choice is held aside (self.held) until every human chooser has chosen,
    then the choices are applied in the engine's order of choosers, a bot choosing at its
    place in that order (as `tabula play` asks them). Nothing of the table changes while
    choices are held, its version neither: no seat learns who has already chosen."""

    def __init__(self, spec, game, seats: list, seed: int):
        self.spec, self.game, self.seats, self.seed = spec, game, list(seats), seed
        self.agents = {p: bot(s) for p, s in enumerate(seats) if s != HUMAN}
        self.crng = chance_rng(seed)
        self.rngs = [agent_rng(seed, p) for p in range(game.players)]
        self.st = game.new_state(seed=seed)
        # (the seats whose undo goes back to it, the state, chance's and the bots'
        # generators): one seat's decision, or every human's of a simultaneous one
        self.snapshots: list = []
        self.held: dict = {}           # at a simultaneous decision: seat -> its action
        # each human seat's page is opened with its token (its link), the hot seat's
        # (one screen for every human) with its own; a page without one watches
        self.tokens = {p: secrets.token_urlsafe(18) for p in self.humans}
        self.hot_token = secrets.token_urlsafe(18) if len(self.humans) > 1 else None
        # does the game keep anything from some seat (a zone, a variable, a decision
        # seen only by some, a simultaneous choice until its reveal)? then a watcher,
        # who is no seat, sees nothing, and a hot seat hands the screen over
        self.hides = game.hides_information()
        self.lock = threading.Lock()
        self.steps = decision_docs(spec)
        self.version = 0
        self._advance()

    @property
    def humans(self) -> list:
        return [p for p, s in enumerate(self.seats) if s == HUMAN]

    def _advance(self) -> None:
        """Chance and the bots move until a human is to decide or the game is over; at a
        simultaneous decision, the humans' held choices are applied once all are in."""
        st = self.st
        while not st.terminal:
            p = st.pending
            who = p.player
            if who == CHANCE:
                st.apply_unchecked(st.sample_chance(self.crng))
            elif who in self.agents:
                a = self.agents[who].act(View(st, who, self.rngs[who]))
                a = tuple(a)
                if a not in st.pending.actions:
                    raise IllegalAction(f"the bot {self.seats[who]} (player {who}) chose "
                                        f"{a!r}, which is not a legal action here")
                st.apply_unchecked(a)
            elif p.joint is not None and not self.choosing():
                st.apply_unchecked(self.held.pop(who))
            else:
                break
            self.version += 1

    def choosing(self) -> list:
        """The human seats the pending decision asks now: its player, or at a simultaneous
        decision every human chooser who has not chosen yet (in no order that matters)."""
        st = self.st
        if st.terminal:
            return []
        p = st.pending
        if p.joint is None:
            return [p.player] if p.player in self.humans else []
        return [w for w, _ in p.waiting if w in self.humans and w not in self.held]

    def _seat(self, seat) -> int:
        n = _whole(seat)
        if n is None:
            raise TabulaError(f"no seat {excerpt(_text(seat), 20)} at this table")
        seat = n
        if not 0 <= seat < self.game.players:
            raise TabulaError(f"no seat {seat} at this table")
        return seat

    def link(self, seat) -> str:
        """The query of a seat's page (seat "hot": the hot seat's), with its token."""
        token = self.hot_token if seat == "hot" else self.tokens[seat]
        return f"?seat={seat}&token={token}"

    def admit(self, seat, token):
        """The seat a request with `token` may see and act for: a human seat with its own
        token (or the hot seat's token, which speaks for every human), "hot" with the hot
        seat's, None (a watcher) without a seat; anything else is Forbidden."""
        if seat is None or seat == "":
            return None
        if seat == "hot":
            if self.hot_token is None:
                raise Forbidden("this table has no hot seat (it has fewer than two humans)")
            if not _same(token, self.hot_token):
                raise Forbidden("the hot seat's page needs its link (with its token)")
            return "hot"
        n = self._seat(seat)
        if n not in self.tokens:
            raise Forbidden(f"player {n} is a bot ({self.seats[n]}): nobody plays its seat")
        if _same(token, self.tokens[n]) or (n in self.humans and _same(token, self.hot_token)):
            return n
        raise Forbidden(f"player {n}'s page needs its link (with its token): it shows what "
                        "only that seat may see")

    def hot(self) -> dict:
        """The hot seat's next view, told before it is drawn: the seat, and whether the
        screen must be handed over to it (the game hides something from some seat)."""
        with self.lock:
            return {"seat": self.hot_seat(), "version": self.version, "hides": self.hides}

    def hot_seat(self) -> int | None:
        """The human seat a shared screen shows: a human to decide, else the first."""
        asked = self.choosing()
        if asked:
            return int(asked[0])
        return self.humans[0] if self.humans else None

    def act(self, seat, index: int, version: int | None = None) -> None:
        """The seat's decision: the legal action at `index` of its list."""
        with self.lock:
            seat = self._seat(seat)
            st = self.st
            if version is not None and version != self.version:
                raise TabulaError("the game moved on since this page was drawn: look again")
            if seat not in self.choosing():
                raise TabulaError(f"it is not player {seat}'s decision" if seat not in
                                  self.held else f"player {seat} has chosen already")
            actions = st.legal_actions(seat)
            if type(index) is not int or not 0 <= index < len(actions):
                raise TabulaError(f"no action {excerpt(_text(index), 20)}: there are "
                                  f"{len(actions)}")
            if st.pending.joint is not None:
                self.held[seat] = actions[index]
                if self.choosing():             # others still to choose: nothing shows
                    return
                # every human has chosen: back to this decision undoes any of them, once
                self._snapshot(frozenset(self.held))
            else:
                self._snapshot(frozenset((seat,)))
                st.apply_unchecked(actions[index])
                self.version += 1
            self._advance()

    def _snapshot(self, seats: frozenset) -> None:
        self.snapshots.append((seats, self.st.clone(), self.crng.getstate(),
                               [r.getstate() for r in self.rngs]))

    def undo(self, seat) -> None:
        """Back to the seat's previous decision, chance's and the bots' generators too; a
        choice held at a simultaneous decision is taken back alone (nothing else moved)."""
        with self.lock:
            seat = self._seat(seat)
            if seat in self.held:
                del self.held[seat]
                return
            while self.snapshots:
                seats, state, chance, rngs = self.snapshots.pop()
                if seat in seats:
                    self.st = state
                    self.held = {}
                    self.crng.setstate(chance)
                    for r, s in zip(self.rngs, rngs):
                        r.setstate(s)
                    self.version += 1
                    return
            raise TabulaError(f"player {seat} has no decision to take back")

    def hint(self, seat, name: str = "mcts:200") -> dict:
        """What a bot would choose in the seat's place (from what the seat sees). It
        searches a copy, without the table's lock: the table goes on meanwhile, and the
        hint names the version it is for."""
        agent = bot(name)
        with self.lock:
            seat = self._seat(seat)
            if seat not in self.choosing():
                raise TabulaError(f"it is not player {seat}'s decision")
            st = _as_chooser(self.st, seat)
            version = self.version
        a = tuple(agent.act(View(st, seat, random.Random(version))))
        actions = st.legal_actions(seat)
        return {"index": actions.index(a), "action": st.action_to_string(a, seat),
                "bot": name, "version": version}

    def rule(self, key: str) -> dict:
        """The words of a decision's rule: its id, source quote, ruling, description."""
        return rule_words(self.steps, key)

    def view(self, seat) -> dict:
        """What the seat's page shows: only what the seat's observation gives. At a
        simultaneous decision, the same to a seat whoever else has chosen."""
        with self.lock:
            if seat == "hot":
                seat = self.hot_seat()
            viewer = None if seat is None else self._seat(seat)
            if viewer is None and self.hides:
                raise Forbidden("this game keeps things from its seats, and a page without "
                                "a seat would show them: open a seat's page with its link")
            st = self.st
            title = str(self.spec.doc.get("game", {}).get("name") or self.game.id)
            names = [f"player {p} ({s})" for p, s in enumerate(self.seats)]
            out = {"game": title, "seat": viewer, "seats": self.seats,
                   "version": self.version, "turn": st.turn, "terminal": st.terminal,
                   "svg": draw(st, viewer, names=names), "actions": [],
                   "undo": viewer in self.held or any(viewer in seats for seats, *_ in
                                                      self.snapshots)}
            # a watcher (no seat) of a game that hides nothing sees what every seat sees
            obs = st.observation(0 if viewer is None else viewer, legal_actions=False)
            out["variables"] = encode(obs["variables"])
            out["player_variables"] = encode(obs["player_variables"])
            if viewer is not None:
                info = st.information_state(viewer)
                out["history"] = [self._event(e) for e in info["history"]]
            if st.terminal:
                out["scores"] = encode(st.scores())
                out["winners"] = st.winners()
                out["status"] = "the game is over"
                return out
            joint = st.pending.joint is not None
            deciding = st.deciding()
            out["to_move"] = deciding if joint else st.pending.player
            asked = viewer is not None and viewer in self.choosing()
            if joint:
                who = ", ".join(str(w) for w in deciding)
                if asked:
                    out["status"] = "simultaneous: choose"
                elif viewer in self.held:
                    mine = st.action_to_string(self.held[viewer], viewer)
                    out["status"] = (f"simultaneous: you chose {mine}; the choices are "
                                     "revealed when every player has chosen")
                else:
                    out["status"] = f"simultaneous: players {who} choose"
            else:
                out["status"] = ("your decision" if asked else
                                 f"waiting for {_who(st.pending.player, self.seats)}")
            if asked:
                strings = st.legal_action_strings(viewer)
                spots = places(st, viewer)
                out["actions"] = [{"index": i, "text": s, "slots": sl, "pieces": pc}
                                  for i, (s, (sl, pc)) in enumerate(zip(strings, spots))]
                out["rule"] = self.rule(st.pending.decision.rule)
            return out

    def _event(self, e: dict) -> dict:
        who = e["player"]
        name = "chance" if who == "chance" else _who(int(who), self.seats)
        return {"who": name, "rule": e.get("rule", ""),
                "action": e.get("action", "(hidden)"), "pending": bool(e.get("pending"))}


class Replay:
    """A game to step through: its states, one before each decision and one at the end,
    the decisions ({who, action, turn, rule}), and why it stopped short (None if not). Made
    from a game log (tools/gamelog.py reads and checks it) or by playing a game again
    (the seed and bots of a simulate record: the report's example games)."""

    def __init__(self, spec, states: list, decisions: list, stop=None):
        self.spec, self.states, self.decisions, self.stop = spec, states, decisions, stop
        self.steps = decision_docs(spec)
        self.lock = threading.Lock()

    @classmethod
    def of_log(cls, path: str) -> Replay:
        log = read_log(path)
        if log.for_player is not None:
            raise TabulaError(player_log_refusal(log))
        spec = log_spec(log, load_spec)
        states, stop = replay_states(log, log_game(log, spec))
        decisions = [{"who": r["player"], "action": r["action"], "turn": r["turn"],
                      "rule": st.pending.decision.rule}
                     for (_, r), st in zip(log.decisions, states)]
        return cls(spec, states, decisions, stop)

    @classmethod
    def played(cls, spec_name: str, players, seed, agents: str, options: dict) -> Replay:
        """The game `tabula run SPEC --seed S --agents A,B` plays, step by step."""
        spec = load_spec(_name(spec_name, "a game"))
        game = spec.game(_count(players, "players"), options)
        seed = _seed(seed)
        trail: list = []                       # (the state at each decision, its action)
        play_game(game, seed, make_agents(str(agents), game.players, bot), record=False,
                  on_decision=lambda st, a: trail.append((st.clone(), a)))
        decisions = [{"who": "chance" if st.pending.player == CHANCE else st.pending.player,
                      "turn": st.turn, "action": st.action_to_string(a),
                      "rule": st.pending.decision.rule} for st, a in trail]
        if trail:
            last, a = trail[-1]
            last = last.clone()
            last.apply_unchecked(a)
            states = [st for st, _ in trail] + [last]
        else:
            states = [game.new_state(seed=seed)]
        return cls(spec, states, decisions)

    def view(self, step, seat=None) -> dict:
        with self.lock:
            n = len(self.states) - 1
            try:
                k = int(step)
            except (TypeError, ValueError):
                raise TabulaError(f"no step {excerpt(str(step), 20)}") from None
            k = max(0, min(n, k))
            st = self.states[k]
            try:
                viewer = None if seat in (None, "", "all") else int(seat)
            except ValueError:
                raise TabulaError(f"no seat {excerpt(str(seat), 20)}") from None
            if viewer is not None and not 0 <= viewer < st.prog.players:
                raise TabulaError(f"no seat {viewer} in this game")
            out = {"step": k, "steps": n, "svg": draw(st, viewer), "turn": st.turn,
                   "terminal": st.terminal, "players": st.prog.players,
                   "decisions": [{"who": d["who"], "action": self._seen(i, viewer),
                                  "turn": d["turn"]}
                                 for i, d in enumerate(self.decisions[:n])]}
            if k:
                d = self.decisions[k - 1]
                words = rule_words(self.steps, d["rule"])
                out["decision"] = {"who": d["who"], "action": self._seen(k - 1, viewer),
                                   "rule": words.pop("id"), **words}
            if st.terminal:
                out["scores"] = encode(st.scores())
            if self.stop is not None and k == n:
                out["problem"] = self.stop
            return out


    def _seen(self, i: int, viewer: int | None) -> str:
        """Decision i's action as `viewer` saw it (None: the referee, every action): its
        text where the seat saw it (its decision's visible_to), else HIDDEN; another's
        choice at a simultaneous decision is HIDDEN to it (as its information state)."""
        text = self.decisions[i]["action"]
        if viewer is None or i + 1 >= len(self.states):
            return text
        before, after = self.states[i], self.states[i + 1]
        p = before.pending
        if p is None or not after.history:
            return text
        if p.joint is not None:
            return text if p.player == viewer else HIDDEN
        action = after.history[-1]
        sees = before.who_sees(action)
        return before.seen_string(action) if sees is None or viewer in sees else HIDDEN


class Server:
    """The tables and replays of one `tabula serve`, and its HTTP server."""

    def __init__(self, host: str = "127.0.0.1", port: int = 8765):
        self.tables: dict = {}
        self.replays: dict = {}
        self.lock = threading.Lock()
        self.count = 0
        handler = type("Handler", (_Handler,), {"app": self})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def _key(self, store: dict, thing) -> str:
        with self.lock:
            self.count += 1
            key = f"t{self.count}"
            store[key] = thing
            while len(store) > MAX_TABLES:
                store.pop(next(iter(store)))
            return key

    def new_table(self, game_name: str, players=None, options=None, seats=None,
                  seed=None) -> str:
        spec = load_spec(_name(game_name, "a game"))
        low, high = spec.player_range
        seats = _seats(seats)
        n = _count(players, "players")
        n = n if n is not None else (len(seats) if seats else low)
        if not low <= n <= high:
            raise TabulaError(f"{spec.id} is for {low} to {high} players, not {n}")
        seats = seats or [HUMAN] + ["random"] * (n - 1)
        if len(seats) != n:
            raise TabulaError(f"{len(seats)} seats named for {n} players")
        for s in seats:
            if s != HUMAN:
                bot(s)                    # a bad bot name, or too big a budget: an error
        opts = _options(options)
        game = spec.game(n, opts, recall=True)
        if seed in (None, ""):
            seed = random.SystemRandom().randrange(10 ** 6)
        seed = _seed(seed)
        return self._key(self.tables, Table(spec, game, seats, seed))

    def new_replay(self, path) -> str:
        return self._key(self.replays, Replay.of_log(_name(path, "a log's path")))

    def played_replay(self, query: dict) -> str:
        """A replay of a game played again: spec, players, seed, agents, option (K=V, a
        list) as the report's links give them."""
        options = parse_options(query.get("option", []))
        one = {k: v[-1] for k, v in query.items() if v}
        return self._key(self.replays, Replay.played(
            one.get("spec", ""), one.get("players"), one.get("seed", ""),
            one.get("agents", "random"), options))

    def table(self, key: str) -> Table:
        t = self.tables.get(key)
        if t is None:
            raise TabulaError(f"no table {excerpt(key, 20)} (it ended, or the server restarted)")
        return t

    def replay(self, key: str) -> Replay:
        r = self.replays.get(key)
        if r is None:
            raise TabulaError(f"no replay {excerpt(key, 20)}")
        return r

    @staticmethod
    def games() -> list:
        """The shipped games, one name each (the name `tabula list` gives: a folder's for
        its own spec, else the spec's id), not every name a spec answers to."""
        return sorted({s.name for s in catalog.shipped()})

    @staticmethod
    def game_info(name: str) -> dict:
        """A game's players and options, as the lobby offers them."""
        spec = load_spec(_name(name, "a game"))
        low, high = spec.player_range
        options = {}
        for key, o in spec.doc.get("options", {}).items():
            o = o if isinstance(o, dict) else {}
            options[str(key)] = {"default": encode(o.get("default")),
                                 "choices": encode(list(o.get("choices", []) or []))}
        return {"id": spec.id, "players": [low, high], "options": options}

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def start(self) -> threading.Thread:
        """Serve from a thread (tests, a notebook); stop() ends it."""
        t = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        t.start()
        return t

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _asset(name: str) -> bytes:
    return resources.files(__package__).joinpath(WEB, name).read_bytes()


CONTENT = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
           ".css": "text/css; charset=utf-8"}


class _Handler(BaseHTTPRequestHandler):
    app: Server
    server_version = "tabula-serve"

    def log_message(self, format, *args):      # quiet: the terminal shows the URLs only
        pass

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, obj, status: int = 200) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"), "application/json")

    def _body(self) -> dict:
        length = self.headers.get("Content-Length")
        n = typed_int(length, 12) if length is not None else 0
        if n is None or n < 0 or n > MAX_BODY:
            self.close_connection = True          # its body, if any, is left unread
            raise TabulaError(f"a request's Content-Length is a number of bytes from 0 to "
                              f"{MAX_BODY:,}, not {excerpt(str(length), 20)}")
        raw = self.rfile.read(n) if n else b"{}"
        try:
            body = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise TabulaError("the request is not JSON") from None
        if not isinstance(body, dict):
            raise TabulaError("the request is not a JSON object")
        return body

    def do_GET(self):
        self._route("GET")

    def do_POST(self):
        self._route("POST")

    def _route(self, method: str) -> None:
        try:
            url = urlparse(self.path)
            parts = [p for p in url.path.split("/") if p]
            lists = parse_qs(url.query)
            query = {k: v[-1] for k, v in lists.items()}
            if parts == ["replay"] and method == "GET" and "spec" in query:
                # a report's example game: played again, then shown step by step
                key = self.app.played_replay(lists)
                self.send_response(HTTPStatus.SEE_OTHER)
                self.send_header("Location", f"/replay/{key}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if parts[:1] == ["api"]:
                self._json(self._api(method, parts[1:], query))
                return
            if method != "GET":
                raise _NotFound()
            if not parts or parts[0] in ("play", "replay"):
                page = {"play": "table.html", "replay": "replay.html"}.get(
                    parts[0] if parts else "", "lobby.html")
                self._send(200, _asset(page), CONTENT[".html"])
                return
            if parts == ["favicon.ico"]:
                self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
                return
            if parts[0] == "static" and len(parts) == 2 and parts[1] in (
                    "app.js", "style.css", "replay.js", "lobby.js"):
                self._send(200, _asset(parts[1]), CONTENT[Path(parts[1]).suffix])
                return
            raise _NotFound()
        except _NotFound:
            self._json({"error": "not found"}, HTTPStatus.NOT_FOUND)
        except Forbidden as e:
            self._json({"error": str(e)}, HTTPStatus.FORBIDDEN)
        except (TabulaError, IllegalAction) as e:
            self._json({"error": str(e)}, HTTPStatus.BAD_REQUEST)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True          # the page went away: nobody to answer
        except Exception as e:  # noqa: BLE001  # a fault of our own: one line, not a drop
            self.close_connection = True
            said = f"internal error ({type(e).__name__}): {' '.join(str(e).split())[:200]}"
            print(f"tabula serve: {method} {excerpt(self.path, 80)}: {said}",
                  file=sys.stderr, flush=True)
            self._json({"error": said}, HTTPStatus.INTERNAL_SERVER_ERROR)

    def _api(self, method: str, parts: list, query: dict):
        app = self.app
        if parts == ["games"] and method == "GET":
            return {"games": app.games(), "bots": ["human", *AGENTS]}
        if parts == ["game"] and method == "GET":
            return app.game_info(query.get("name", ""))
        if parts == ["tables"] and method == "POST":
            b = self._body()
            key = app.new_table(b.get("game", ""), b.get("players"), b.get("options"),
                                b.get("seats"), b.get("seed"))
            t = app.table(key)
            return {"id": key, "humans": t.humans, "seed": t.seed,
                    "links": {str(p): f"/play/{key}{t.link(p)}" for p in t.humans},
                    "hot": f"/play/{key}{t.link('hot')}" if t.hot_token else None}
        if len(parts) >= 2 and parts[0] == "tables":
            t = app.table(parts[1])
            rest = parts[2:]
            if rest == [] and method == "GET":
                return t.view(t.admit(query.get("seat"), query.get("token")))
            if rest == ["hot"] and method == "GET":     # whose view the hot seat shows next
                t.admit("hot", query.get("token"))
                return t.hot()
            if rest in (["act"], ["undo"]) and method == "POST":
                b = self._body()
                seat = t.admit(b.get("seat"), b.get("token"))
                if seat is None or seat == "hot":
                    raise TabulaError("name the seat that acts (a number)")
                if rest == ["act"]:
                    t.act(seat, b.get("index"), b.get("version"))
                else:
                    t.undo(seat)
                return t.view(seat)
            if rest == ["hint"] and method == "GET":
                seat = t.admit(query.get("seat"), query.get("token"))
                if seat is None or seat == "hot":
                    raise TabulaError("name the seat to hint (a number)")
                return t.hint(seat, query.get("bot") or "mcts:200")
        if parts == ["replays"] and method == "POST":
            b = self._body()
            return {"id": app.new_replay(b.get("path"))}
        if len(parts) == 2 and parts[0] == "replays" and method == "GET":
            return app.replay(parts[1]).view(query.get("step", 0), query.get("seat"))
        raise _NotFound()


class _NotFound(Exception):
    pass


TABLE_ARGS = ("players", "seats", "option", "seed")     # what a SPEC's table is made of


def cmd_serve(args) -> int:
    if not args.spec:           # a table's arguments without a table: refused, not ignored
        given = [f"--{a}" for a in TABLE_ARGS if getattr(args, a) not in (None, [])]
        if given:
            args.usage_error(f"{', '.join(given)}: for the table of a SPEC, and no SPEC is "
                             "given" + (" (--replay opens a log, whose game is set)"
                                        if args.replay else ""))
    try:
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            print(f"warning: serving on {args.host}: anyone who reaches this machine can "
                  "play at its tables and read the spec paths given to it", file=sys.stderr)
        app = Server(args.host, args.port)
    except (OSError, OverflowError, ValueError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        print(f"cannot serve on {args.host}:{args.port}: {why}", file=sys.stderr)
        return EXIT_INPUT
    links = []
    try:
        if args.replay:
            links.append(("replay", f"{app.url}/replay/{app.new_replay(args.replay)}"))
        if args.spec:
            seats = _seats(args.seats)
            opts = parse_options(args.option)
            if seats and HUMAN not in seats:      # bots alone: their game, step by step
                if args.players is not None and args.players != len(seats):
                    raise TabulaError(f"{len(seats)} seats named for {args.players} players")
                seed = args.seed if args.seed is not None else \
                    random.SystemRandom().randrange(10 ** 6)
                query = {"spec": [args.spec], "players": [str(len(seats))],
                         "seed": [str(seed)], "agents": [",".join(seats)],
                         "option": list(args.option)}
                links.append(("watch", f"{app.url}/replay/{app.played_replay(query)}"))
            else:
                key = app.new_table(args.spec, args.players, opts, seats, args.seed)
                t = app.table(key)
                links += [(f"player {p}", f"{app.url}/play/{key}{t.link(p)}")
                          for p in t.humans]
                if t.hot_token:
                    links.append(("hot seat", f"{app.url}/play/{key}{t.link('hot')}"))
    except TabulaError as e:
        app.httpd.server_close()
        print(str(e), file=sys.stderr)
        return EXIT_INPUT
    print(f"tabula serve: {app.url}/ (Ctrl-C stops)", flush=True)
    for what, link in links:
        print(f"  {what}: {link}", flush=True)
    if args.open:
        webbrowser.open(links[0][1] if links else app.url + "/")
    try:
        app.serve_forever()
    except KeyboardInterrupt:
        pass
    return EXIT_OK


COMMAND = Command(
    "serve", cmd_serve, "play and replay games in a browser (a local web server)", (
        arg("spec", metavar="SPEC", nargs="?", default=None,
            help="a game to open a table of at once (a spec file, a game's folder, or a "
                 "shipped game's name); without it, the lobby chooses"),
        PLAYERS,
        arg("--seats", metavar="S,S,...",
            help=f"who plays each seat: {HUMAN} or a bot (" + ", ".join(AGENTS.values())
                 + f"); default {HUMAN} in seat 0, random in the others"),
        OPTION,
        arg("--seed", type=seed_arg, default=None, metavar="S",
            help="the table's seed, 0 to 2^53 - 1 (default: a new one)"),
        arg("--replay", metavar="LOG", help="a game log (tabula run --log) to step through"),
        arg("--host", default="127.0.0.1",
            help="the address to serve on (default 127.0.0.1: this machine only)"),
        arg("--port", type=port_arg, default=8765, help="the port (default 8765; 0: any free one)"),
        arg("--open", action="store_true", help="open the page in the browser")),
    description="A local web server: the lobby at /, a page per seat that shows only that "
                "seat's view, and a replay viewer for game logs.")
