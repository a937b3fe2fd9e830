"""Game logs: a played game as JSON lines, written as it is played and read back with
every defect named (replay.py replays a log against its spec: `tabula replay`).

Input: a game being played (its State and every decision as it is made), or a log file.
Output: a log (a header line, one line per decision, an end line); a player's log (what
one seat saw: its observation after every decision, as changes, and its own actions; no
seed, no other seat's or chance's action); a GameLog read from a file, with the first
defect found in it; a player's views. The format is described in docs/logs.md. No spec
is loaded and no bot plays here, so that anything that plays a game can write its log.

A log is data from outside: reading it checks every line's JSON and types, and every
failure is a TabulaError naming the file and the line (and the decision), never a Python
exception.
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..errors import Pos, TabulaError, excerpt, read_input
from ..runtime.engine import Game, State
from ..runtime.model import CHANCE, SIMULTANEOUS, TERMINAL
from ..runtime.values import decode, encode, not_text
from .cmdutil import seed_problem, writing
from .fields import bad_field, is_int, shown

__all__ = ["LOG_FORMAT", "LOG_VERSION", "GameLog", "LogWriter", "PlayerLogWriter",
           "apply_changes", "changes", "header_digest", "log_header", "logged_who", "open_log",
           "player_views", "read_log", "state_digest", "who_text"]

LOG_FORMAT = "tabula-log"
LOG_VERSION = 2      # 2: decisions and the end line carry the state's digest, the header its own
MAX_LOG_BYTES = 200_000_000    # a log read whole is at most this (docs/language.md 9)
OLD_VERSIONS = (1,)  # read and replayed, with a warning that they cannot be proven


def logged_who(player: int):
    """A decider as the log writes it: a seat number, or "chance"."""
    return "chance" if player == CHANCE else player


def who_text(player) -> str:
    if player in (CHANCE, "chance"):
        return "chance"
    if player == SIMULTANEOUS:
        return "the players choosing at once"
    if player == TERMINAL:
        return "nobody"
    return f"player {player}"


def state_digest(st: State) -> str:
    """A short digest of everything in a state (State.to_json_text: zones, variables, turn,
    history, the generator's state): equal digests, the same state."""
    return hashlib.sha256(st.to_json_text().encode("utf-8")).hexdigest()[:16]


_UNCHECKED = ("spec_path", "check")      # information, and the digest itself


def header_digest(header: dict) -> str:
    """The digest of a full log's header: every field that makes the game (spec id and
    hash, players, options, seed, agents, format and version), not the spec's path."""
    fields = {k: v for k, v in header.items() if k not in _UNCHECKED}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# ---- writing --------------------------------------------------------------------------------

def log_header(spec, game: Game, spec_path: str, seed: int, agents: list) -> dict:
    """The first line of a full log: what replays the game (the decisions aside)."""
    head = {"format": LOG_FORMAT, "version": LOG_VERSION, "spec": game.id,
            "spec_hash": spec.hash, "spec_path": str(spec_path), "players": game.players,
            "options": dict(game.options), "seed": seed,
            "agents": [getattr(a, "name", str(a)) for a in agents]}
    head["check"] = header_digest(head)
    return head


class LogWriter:
    """Writes a full log, one line as each decision is made (a game that stops on a rule
    error leaves the decisions made so far, without the end line). Each decision holds
    the digest of the state it was taken in (`begin` is given the state before the first
    decision, `decision` the state after each), the end line the final state's."""

    def __init__(self, fh, header: dict):
        self.fh = fh
        self.header = header
        self.n = 0
        self.digest = None

    def _line(self, record: dict) -> None:
        self.fh.write(json.dumps(record) + "\n")

    def begin(self, st: State) -> None:
        self.digest = state_digest(st)
        self._line(self.header)

    def decision(self, player: int, action: tuple, text: str, turn: int, st: State) -> None:
        self.n += 1
        self._line({"n": self.n, "turn": turn, "player": logged_who(player), "action": text,
                    "tuple": encode(action), "state": self.digest})
        self.digest = state_digest(st)

    def end(self, st: State) -> None:
        self._line({"end": True, "decisions": self.n, "points": encode(st.points()),
                    "scores": encode(st.scores()), "winners": st.winners(),
                    "state": state_digest(st)})


class PlayerLogWriter(LogWriter):
    """Writes what one seat saw: the header without the seed, the seat's observation at the
    start, and for every decision who made it, the turn, the changes of the seat's
    observation it brought and, for the seat's own decisions, the action's string (which
    its observation listed among its legal actions). Integer tuples are never written:
    they are engine indices (piece ids) that can name what the seat does not see. The
    end line holds the scores (in the final observation) and the winners."""

    def __init__(self, fh, header: dict, player: int):
        super().__init__(fh, header)
        self.player = player
        self.view: dict = {}
        self.held: list = []     # the records of a simultaneous decision still open

    def begin(self, st: State) -> None:
        head = {"format": LOG_FORMAT, "version": LOG_VERSION, "for": self.player}
        head.update((k, v) for k, v in self.header.items()
                    if k not in ("format", "version", "seed", "check"))
        self.view = st.observation(self.player)
        head["start"] = self.view
        self._line(head)

    def decision(self, player: int, action: tuple, text: str, turn: int, st: State) -> None:
        """A choice at a simultaneous decision is written as the seat saw it: by
        "simultaneous" (not by who chose), and only once the decision is over, with every
        choice of it, so that a log read as it is written never tells who had chosen."""
        self.n += 1
        joint = self.view.get("current_player") == SIMULTANEOUS
        record = {"n": self.n, "turn": turn,
                  "player": SIMULTANEOUS if joint else logged_who(player)}
        if player == self.player:
            record["action"] = text
        view = st.observation(self.player)
        record["seen"] = changes(self.view, view)
        self.view = view
        self.held.append(record)
        if joint and st.is_simultaneous_node() and st.pending.chosen:   # still open
            return
        for held in self.held:
            self._line(held)
        self.held = []

    def end(self, st: State) -> None:
        self._line({"end": True, "decisions": self.n, "scores": encode(st.scores()),
                    "winners": st.winners()})


@contextmanager
def open_log(path, header: dict, player: int | None = None):
    """A LogWriter on `path` (a PlayerLogWriter for `player`), or None without a path."""
    if path is None:
        yield None
        return
    n = header["players"]
    if player is not None and not 0 <= player < n:
        raise TabulaError(f"--for {player}: the players of this game are 0 to {n - 1}")
    with writing(f"the log {path}"):      # opening, every line, closing: a full disk too
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            yield LogWriter(fh, header) if player is None else PlayerLogWriter(fh, header, player)


# ---- observation changes ------------------------------------------------------------------

def changes(old, new, path: tuple = ()) -> list:
    """What turns `old` into `new` (JSON data): [path, value] to set, [path] to delete;
    a path lists object keys and list indices. Objects, and lists of the same length
    holding lists or objects, are compared inside; anything else is replaced whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = [[list(path) + [k]] for k in old if k not in new]
        for k, v in new.items():
            if k in old:
                out += changes(old[k], v, path + (k,))
            else:
                out.append([list(path) + [k], v])
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and \
            any(isinstance(x, (list, dict)) for x in new):
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            out += changes(a, b, path + (i,))
        return out
    if type(old) is not type(new) or old != new:
        return [[list(path), new]]
    return []


def apply_changes(view, diff: list):
    """`view` with the changes of `changes()` made (in place where it can); a change
    whose path does not exist in `view` is a TabulaError."""
    for change in diff:
        if not isinstance(change, list) or len(change) not in (1, 2) or \
                not isinstance(change[0], list):
            raise TabulaError(f"not a change: {json.dumps(change)[:80]}")
        path = change[0]
        if not path:
            if len(change) == 1:
                raise TabulaError("a change deletes the whole observation")
            view = json.loads(json.dumps(change[1]))
            continue
        target = view
        try:
            for key in path[:-1]:
                target = target[key]
            last = path[-1]
            if len(change) == 1:
                del target[last]
            elif (isinstance(target, list) and is_int(last)) or \
                    (isinstance(target, dict) and isinstance(last, str)):
                target[last] = json.loads(json.dumps(change[1]))
            else:
                raise TypeError
        except (KeyError, IndexError, TypeError):
            raise TabulaError(f"a change names {json.dumps(path)}, which the observation "
                              "does not have") from None
    return view


# ---- reading --------------------------------------------------------------------------------

_HEADER = {"spec": "a string", "spec_hash": "a string", "spec_path": "a string",
           "players": "a number of players (1 or more)",
           "options": "an object of option values", "agents": "a list of strings"}
_FULL_HEADER = {**_HEADER, "seed": "a whole number, 0 or more"}
_PLAYER_HEADER = {**_HEADER, "for": "an integer", "start": "an object"}
_DECISION = {"n": "an integer", "turn": "a whole number, 0 or more"}
_FULL_DECISION = {"action": "a string", "tuple": "an action tuple (2 integers, then values)"}
_DIGEST = {"state": "a digest (16 hex digits)"}
_FULL_END = {"decisions": "an integer", "points": "an object of lists of numbers",
             "scores": "a list of numbers", "winners": "a list of integers"}
_PLAYER_END = {"decisions": "an integer", "scores": "a list of numbers",
               "winners": "a list of integers"}


@dataclass
class GameLog:
    """A log as read: its header, its decisions (line number and record) up to the first
    defect, its end record, and that defect (line, message), if any. `for_player` is the
    seat of a player's log, None for a full log."""

    path: str
    header: dict
    decisions: list = field(default_factory=list)
    end: dict | None = None
    end_line: int = 0
    problem: tuple | None = None
    last_line: int = 1
    header_line: int = 1

    @property
    def for_player(self) -> int | None:
        return self.header.get("for")

    @property
    def proven(self) -> bool:
        """A full log whose header and decisions carry digests (version 2 on): a replay
        proves it is the logged game. Older logs replay with a warning."""
        return self.for_player is None and self.header.get("version", 0) >= 2

    def unproven_warning(self) -> str:
        return (f"warning: {self.path}: a log of version {self.header.get('version')}: its "
                "decisions carry no state digests, so the replay checks legality and the "
                "final scores only, and cannot prove this is the game that was played (an "
                "edit that keeps every decision legal would pass)")

    def where(self, line: int) -> str:
        return str(Pos(self.path, line))

    def problem_text(self) -> str:
        line, message = self.problem
        return f"{self.where(line)}: {message}"


def _parse(text: str):
    try:
        return json.loads(text), None
    except ValueError as e:       # json.JSONDecodeError, or a number too long to convert
        return None, (f"{e.msg} at column {e.colno}" if hasattr(e, "colno") else
                      "a number of more than 4300 digits")
    except RecursionError:
        return None, "nested too deeply"


def read_log(path) -> GameLog:
    """Read and check a log: the header must be sound (else a TabulaError); the lines after
    it are read up to the first defect, which is kept as `problem` (a line cut off, not
    JSON, a missing field or a wrong type, a decision missing, no end line)."""
    name = str(path)
    if not os.path.lexists(name):
        raise TabulaError(f"{name}: no such log")
    # a regular file only, at most MAX_LOG_BYTES, read without blocking (errors.read_input)
    data = read_input(name, "game log", MAX_LOG_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TabulaError(f"{name}: not a Tabula game log (not UTF-8 text)") from None
    lines = text.split("\n")
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first == len(lines):
        raise TabulaError(f"{name}: empty; not a Tabula game log")
    head, why = _parse(lines[first])
    if why is not None:
        whole, _ = _parse(text)
        if isinstance(whole, dict) and "decisions" in whole and "format" not in whole:
            raise TabulaError(f"{name}: a one-object game record (an older tabula run "
                              f"--log), not a game log ({LOG_FORMAT}, JSON lines): play "
                              "the game again with tabula run --log")
        raise TabulaError(f"{Pos(name, first + 1)}: not a Tabula game log (its first line is not "
                          f"JSON: {why})")
    why = not_text(head) if "\\u" in lines[first] else None
    if why is not None:
        raise TabulaError(f"{Pos(name, first + 1)}: the header is not sound: {why}")
    if isinstance(head, dict) and "format" not in head and "decisions" in head:
        raise TabulaError(f"{name}: a one-object game record (tabula run --json), not a game "
                          f"log ({LOG_FORMAT}, JSON lines): write one with tabula run --log")
    if not isinstance(head, dict) or head.get("format") != LOG_FORMAT:
        raise TabulaError(f"{Pos(name, first + 1)}: not a Tabula game log (its first line has no "
                          f'"format": "{LOG_FORMAT}")')
    version = head.get("version")
    if not is_int(version):
        raise TabulaError(f"{Pos(name, first + 1)}: the header's 'version' is not an integer")
    if version != LOG_VERSION and version not in OLD_VERSIONS:
        raise TabulaError(f"{Pos(name, first + 1)}: a log of version {version}; this Tabula reads "
                          f"version {LOG_VERSION}")
    player_log = "for" in head
    bad = bad_field(head, _PLAYER_HEADER if player_log else _FULL_HEADER)
    if bad is None and not player_log and version >= 2:
        bad = bad_field(head, {"check": "a digest (16 hex digits)"})
    if bad is None and version < 2 and "check" in head:
        bad = (f"a log of version {version} has no header digest, and this one has: its "
               "version was edited")
    if bad is None and not player_log and seed_problem(head["seed"]) is not None:
        # one generator, one seed: an alias (4294967298 for 2) would replay seed 2's game
        # under another seed (cmdutil.seed_problem)
        bad = f"'seed' {shown(head['seed'])}: {seed_problem(head['seed'])}"
    if bad is None and len(head["agents"]) != head["players"]:
        bad = f"{len(head['agents'])} agents for {head['players']} players"
    if bad is None and player_log and not 0 <= head["for"] < head["players"]:
        bad = f"'for' names player {head['for']}, not one of the {head['players']} players"
    if bad is not None:
        raise TabulaError(f"{Pos(name, first + 1)}: the header is not sound: {bad}")
    log = GameLog(name, head, last_line=first + 1, header_line=first + 1)
    _read_body(log, lines, first + 1, text.endswith("\n"), player_log)
    return log


def _read_body(log: GameLog, lines: list, start: int, ends_with_newline: bool,
               player_log: bool) -> None:
    players = log.header["players"]
    last = len(lines) - 1
    while last >= start and not lines[last].strip():
        last -= 1
    for i in range(start, last + 1):
        line = i + 1
        raw = lines[i]
        if not raw.strip():
            continue
        log.last_line = line
        n = len(log.decisions)
        record, why = _parse(raw)
        if why is not None:
            if i == last and not ends_with_newline:
                log.problem = (line, ("the line is cut off: the log is truncated after "
                                      f"decision {n}"))
            else:
                log.problem = (line, f"not JSON ({why})")
            return
        if log.end is not None:
            log.problem = (line, "a line after the end line")
            return
        why = not_text(record) if "\\u" in raw else None
        if why is not None:
            log.problem = (line, why)
            return
        if not isinstance(record, dict):
            log.problem = (line, "neither a decision nor the end line")
            return
        if not log.proven and not player_log and "state" in record:
            log.problem = (line, f"a log of version {log.header['version']} carries no state "
                                 "digests, and this line does: the log's version was edited")
            return
        if "end" in record:
            bad = bad_field(record, {"end": "true",
                                      **(_PLAYER_END if player_log else _FULL_END),
                                      **(_DIGEST if log.proven else {})})
            if bad is None and len(record["scores"]) != players:
                bad = f"{len(record['scores'])} scores for {players} players"
            if bad is None and record["decisions"] != n:
                bad = (f"it counts {record['decisions']} decisions, the log holds {n}: "
                       "decisions are missing or added")
            if bad is not None:
                log.problem = (line, f"the end line is not sound: {bad}")
                return
            log.end, log.end_line = record, line
            continue
        if "n" not in record:
            log.problem = (line, "neither a decision (no 'n') nor the end line (no 'end')")
            return
        bad = bad_field(record, _DECISION)
        if bad is None and record["n"] != n + 1:
            log.problem = (line, (f"decision {n + 1} expected, found decision "
                                  f"{record['n']}: a decision is missing or out of order"))
            return
        who = record.get("player")
        if bad is None and who != "chance" and not (is_int(who) and 0 <= who < players):
            bad = (f"'player' is not a player (0 to {players - 1}) or \"chance\": "
                   f"{json.dumps(who)[:40]}")
        if bad is None:
            if player_log:
                bad = bad_field(record, {"seen": "a list"})
                if bad is None and who == log.header["for"]:
                    bad = bad_field(record, {"action": "a string"})
            else:
                bad = bad_field(record, {**_FULL_DECISION,
                                          **(_DIGEST if log.proven else {})})
        if bad is not None:
            log.problem = (line, f"decision {n + 1}: {bad}")
            return
        log.decisions.append((line, record))
    if log.end is None:
        log.problem = (log.last_line, (f"the log ends after decision {len(log.decisions)} "
                                       "without its end line: it is truncated"))


def player_views(log: GameLog) -> list:
    """The observations a player's log records: at the start, then after each decision."""
    if log.for_player is None:
        raise TabulaError(f"{log.path}: a full log, not a player's log")
    view = json.loads(json.dumps(log.header["start"]))
    views = [json.loads(json.dumps(view))]
    for line, record in log.decisions:
        try:
            view = apply_changes(view, record["seen"])
        except TabulaError as e:
            raise TabulaError(f"{log.where(line)}: decision {record['n']}: {e}") from None
        views.append(json.loads(json.dumps(view)))
    return views


# ---- replaying a log's decisions ------------------------------------------------------------

SHOWN = 8            # legal actions quoted in a refusal


@dataclass
class Stop:
    """Where the logged decisions stop applying: decision k (1-based), its line, why."""

    k: int
    line: int
    record: dict
    why: str

    def text(self, log: GameLog) -> str:
        r = self.record
        return (f"{log.where(self.line)}: decision {self.k} ({who_text(r['player'])}, "
                f"'{r['action']}'): {self.why}")


def legal_list(st: State) -> str:
    strings = st.legal_action_strings()
    shown = ", ".join(f"'{s}'" for s in strings[:SHOWN])
    more = f" and {len(strings) - SHOWN} more" if len(strings) > SHOWN else ""
    what = "outcomes" if st.is_chance_node() else "legal"
    return f"{what}: {shown}{more}" if strings else f"{what}: none"


def logged_action(st: State, record: dict, by_string: bool):
    """The action `record` names in `st`, and None; or None and why it names none."""
    if st.terminal:
        return None, "the game is already over here"
    want = CHANCE if record["player"] == "chance" else record["player"]
    here = st.pending.player
    if here != want:
        return None, f"it is {who_text(here)}'s decision here"
    what = "a legal outcome" if here == CHANCE else "legal"
    if by_string:
        found = st.actions_named(record["action"])
        if len(found) == 1:
            return found[0], None
        if found:
            return None, f"it names {len(found)} different actions here"
        return None, f"not {what} here; {legal_list(st)}"
    if record["turn"] != st.turn:
        return None, f"the game is at turn {st.turn} here, not turn {record['turn']}"
    a = tuple(decode(record["tuple"]))
    legal = a in st.pending.actions
    if legal and st.action_to_string(a) == record["action"]:
        return a, None
    if record["action"] not in st.legal_action_strings():
        return None, f"not {what} here; {legal_list(st)}"
    if not legal:
        return None, (f"its tuple {record['tuple']} is not {what} here, though its string "
                      "is: the tuple was edited")
    return None, (f"its tuple {record['tuple']} is '{st.action_to_string(a)}' here, not the "
                  "logged action: the string or the tuple was edited")


def same_spec(log: GameLog, spec) -> None:
    """A log names the spec it was made with: refused if `spec` is another (its hash)."""
    head = log.header
    if spec.hash != head["spec_hash"]:
        raise TabulaError(
            f"{log.path}: the log was made with another spec than {spec.path} (its hash is "
            f"{spec.hash}, the log's {head['spec_hash']}: the spec changed, or the log was "
            "edited); give --spec PATH to check the log against a variant")


def player_log_refusal(log: GameLog) -> str:
    return (f"{log.path}: player {log.for_player}'s log (written with --for): it lacks the "
            "seed and the other players' and chance's decisions, so it cannot be replayed; "
            "replay the full log")


def log_spec(log: GameLog, load_spec, hint: str = ""):
    """The spec a log names (its header's spec_path), loaded with `load_spec` (the
    facade's, which this module does not import), which must be the one the log was made
    with (same_spec); a spec that cannot be loaded is a TabulaError ending with `hint`."""
    head = log.header
    try:
        # named by the log, not by the user: a file that is not a spec is refused
        # without a line of it shown (as a file named by `extends:`)
        spec = load_spec(head["spec_path"], Pos(log.path, log.header_line, 1))
    except TabulaError as e:
        first = str(e).splitlines()[0]
        raise TabulaError(f"{log.path}: cannot load the log's spec "
                          f"{excerpt(head['spec_path'], 200)} ({first}){hint}") from None
    same_spec(log, spec)
    return spec


def log_game(log: GameLog, spec) -> Game:
    """The game of a log's players and options, compiled from `spec`."""
    head = log.header
    try:
        return spec.game(head["players"], head["options"])
    except TabulaError as e:
        raise TabulaError(f"{log.where(log.header_line)}: the log's players and options do "
                          f"not fit {spec.path}:\n{e}") from None


def check_header(log: GameLog, game: Game) -> None:
    """A proven log's header: its digest is the digest of its fields (none was edited), and
    it names the game being replayed (spec id, players, options)."""
    head, where = log.header, log.where(log.header_line)
    if head["check"] != header_digest(head):
        raise TabulaError(f"{where}: the header was edited: its digest is {head['check']}, "
                          f"its fields' {header_digest(head)} (the spec, players, options, "
                          "seed or agents are not the ones the game was played with)")
    for key, value in (("spec", game.id), ("players", game.players),
                       ("options", plain_json(dict(game.options)))):
        if plain_json(head[key]) != value:
            raise TabulaError(f"{where}: the header's {key} {json.dumps(head[key])} is not "
                              f"the replayed game's {json.dumps(value)}")


def check_digest(log: GameLog, st: State, k: int, line: int, record: dict) -> None:
    """Decision k's logged state digest against the replayed state it is taken in; a
    difference names the line where the game diverged: the header (the seed or options)
    for the first decision, else the decision before, after which the states differ."""
    got = state_digest(st)
    if got == record["state"]:
        return
    if k == 1:
        raise TabulaError(f"{log.where(line)}: decision 1: the game diverges before it: the "
                          f"state it was logged in (digest {record['state']}) is not the "
                          f"replayed start (digest {got}): the header's seed or options, or "
                          "this line's digest, were edited")
    prev_line, prev = log.decisions[k - 2]
    raise TabulaError(f"{log.where(prev_line)}: decision {k - 1} ({who_text(prev['player'])},"
                      f" '{prev['action']}'): the game diverges here: after it the state is "
                      f"not the logged one (digest {got}, logged {record['state']} at line "
                      f"{line}): this decision was replaced, moved or edited, or the next "
                      "line's digest was")


def plain_json(x):
    """`x` as it reads back from JSON (tuples as lists, keys as strings, fractions as
    "7/3": values.encode)."""
    return json.loads(json.dumps(encode(x)))


def replay_log(log: GameLog, game: Game, decisions: list | None = None,
               by_string: bool = False, seen=None) -> tuple:
    """Apply `decisions` (default: all) of a full log to a new game with the log's seed,
    checking each: its action found by logged_action (by its string alone with
    `by_string`); a proven log's header and state digests too (check_header,
    check_digest), unless by_string. seen(state) is called on the new game and after
    each decision applied. Returns (state, None), or (state before the failing decision,
    Stop); a rule failing after a decision is a located TabulaError."""
    decisions = log.decisions if decisions is None else decisions
    prove = log.proven and not by_string
    if prove:
        check_header(log, game)
    try:
        st = game.new_state(seed=log.header["seed"])
    except TabulaError as e:
        raise TabulaError(f"{log.path}: the game cannot be set up:\n{e}") from None
    if seen is not None:
        seen(st)
    for k, (line, record) in enumerate(decisions, 1):
        if prove:
            check_digest(log, st, k, line, record)
        a, why = logged_action(st, record, by_string)
        if a is None:
            return st, Stop(k, line, record, why)
        try:
            st.apply_unchecked(a)
        except TabulaError as e:
            raise TabulaError(f"{log.where(line)}: decision {k} "
                              f"({who_text(record['player'])}, '{record['action']}'): "
                              f"the rules fail after it:\n{e}") from None
        if seen is not None:
            seen(st)
    return st, None


def replay_states(log: GameLog, game: Game) -> tuple:
    """A full log's game, decision by decision (a viewer's steps): the state before the
    first decision and after each decision replayed, each checked as replay_log checks it
    (a proven log's digests included); and why the replay stopped short (a located text),
    or None. A log cut short or a decision that does not replay ends the states there;
    an edited header or digest is a TabulaError."""
    states: list = []
    _, stop = replay_log(log, game, seen=lambda st: states.append(st.clone()))
    if stop is not None:
        return states, stop.text(log)
    return states, (log.problem_text() if log.problem is not None else None)
