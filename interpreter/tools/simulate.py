"""Many games at once: a seed per game, a local process pool, one JSON record per game,
and statistics over the records (`tabula simulate`).

Input: a spec path, a number of games, players, options, agent names and a run seed.
Output: one JSON object per game, appended to a JSONL file in index order as soon as the
game (and every game before it) is done, and a Summary: win rates by seat and by agent
with Wilson intervals, scores, game lengths, branching, rules taken.

Every game is a pure function of (spec, players, options, agents, game_seed(seed, index)),
so the records, and the file, do not depend on the number of workers or on resuming.
Games are played by interpreter.agents.play_game (a record replays with
play_game(game, record["seed"], agents)).

A record: index, seed (the game's), spec, spec_hash, players, options, agents (by seat),
scores, winners, points (by scoring rule), decisions (the agents'), chance (chance
decisions), legal_actions (summed over the agents' decisions), turns, first_player (the
seat that moved first: see first_player below), rule_counts (decisions taken, chance
included, by the rule or step that asks them; a decision asked inside another one by its
asker and its label, `rule:leader / "leader: take {m}"`). A game whose rules fail has
`error` (and `error_at`, file:line:col) instead of scores, winners and counts. Records
written before first_player existed are still read: they count everywhere except in the
first-player statistics.
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from ..bots.agents import make_agent, play_game
from ..errors import SpecError, TabulaError, did_you_mean, read_input
from ..runtime.values import as_float, encode, not_text
from ..spec import Spec, load_spec
from .cmdutil import writing
from .fields import bad_field

MAX_RECORDS_BYTES = 500_000_000  # a record file read whole is at most this (docs/language.md 9)

Z95 = 1.959963984540054          # the normal quantile of a two-sided 95% interval
PERCENTILES = (10, 50, 90)
CHUNK_SHARE = 4                  # a chunk is at most 1/(workers * 4) of the games left
MAX_CHUNK = 32                   # ... and at most 32 games: records are written soon
RANDOM = "random"


# ---- seeds and agents -------------------------------------------------------------------

def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: a stable hash (53 bits, exact in a JSON double)."""
    digest = hashlib.sha256(f"{run_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 11


def agent_names(agents, players: int) -> list:
    """One agent name per seat, from None (all random), 'a,b', or a list (one name: all);
    each name as its agent calls itself ('mcts' -> 'mcts:200')."""
    if agents is None:
        names = [RANDOM]
    elif isinstance(agents, str):
        names = [a.strip() for a in agents.split(",")]
    else:
        names = [str(a).strip() for a in agents]
    if len(names) == 1:
        names = names * players
    if len(names) != players or not all(names):
        raise TabulaError(f"{len(names)} agents for {players} players; name one agent per "
                          "seat, or one for every seat")
    return [make_agent(n).name for n in names]     # an unknown name fails here


def seat_agents(names: list, index: int, rotate: bool) -> list:
    """The agents of game `index`: with rotate, seat s gets names[(s + index) % players]."""
    if not rotate:
        return list(names)
    k = index % len(names)
    return names[k:] + names[:k]


# ---- one game ---------------------------------------------------------------------------

class _Watched:
    """The game, for agents.play_game, keeping the state it starts (for its turn count)
    and who moved first (see first_player)."""

    def __init__(self, game):
        self._game = game
        self.state = None
        self.first_decision = None    # the seat of the first agent decision of the game
        self.first_in_turns = None    # ... and of the first one once the turns had begun

    def __getattr__(self, name):
        return getattr(self._game, name)

    def new_state(self, *args, **kwargs):
        self.state = self._game.new_state(*args, **kwargs)
        return self.state


class _Counted:
    """An agent that adds up the legal actions it was offered (for the branching factor)
    and tells the watched game who decides (for its first player)."""

    __slots__ = ("agent", "name", "legal", "watched")

    def __init__(self, agent, watched=None):
        self.agent, self.name, self.legal, self.watched = agent, agent.name, 0, watched

    def act(self, view):
        self.legal += len(view.legal_actions)
        w = self.watched
        if w is not None and w.first_in_turns is None:
            st = w.state
            # a decision all take at once has no first player: -1
            who = -1 if st is not None and st.is_simultaneous_node() else view.player
            if w.first_decision is None:
                w.first_decision = who
            if st is not None and st.turn >= 1:
                w.first_in_turns = who
        return self.agent.act(view)


def first_player(watched) -> int | None:
    """The seat that moved first in a game: the player of the first decision (chance's
    excluded) taken once the turns had begun (a `turns:` step counts turn 1 from its
    first player); in a game without turns, or with no decision in them, the player of
    the first decision of the game; None if no player decided anything. Decisions of the
    set-up (every player discarding in seat order, say) do not make a first player; nor
    does a simultaneous decision (every chooser moves at once): None then too."""
    first = watched.first_in_turns
    if first is None:
        first = watched.first_decision
    return None if first is None or first < 0 else first


_NAMES: dict = {}     # id(Program) -> its decision_names, while the Program lives


def decision_names(game) -> dict:
    """{asker: name} for the decisions asked inside another decision, whose rule_counts
    key would otherwise be the compiler's number (`decision:8`): the outermost rule or
    step that asks them, then their label, `rule:leader / "leader: take {m}"` (or the
    action graph's key, `rule:leader/decision/decision`, for a decision without one)."""
    prog = game.prog
    cached = _NAMES.get(id(prog))
    if cached is not None:
        return cached
    graph = getattr(prog, "graph", None)
    labels: dict = {}                 # asker -> the labels of the decisions it asks
    for dec in prog.decisions:
        if dec.rule.startswith("decision:"):
            node = graph.nodes.get(f"decision:{dec.id}", {}) if graph is not None else {}
            mine = labels.setdefault(dec.rule, [])
            mine += [o["label"] for o in node.get("options", ())
                     if o.get("label") and o["label"] not in mine]
    names: dict = {}
    keys = None
    for asker, mine in labels.items():
        outer = asker
        while outer.startswith("decision:") and graph is not None and outer in graph:
            outer = graph.nodes[outer].get("rule", "")
        if mine and outer and not outer.startswith("decision:"):
            names[asker] = f"{outer} / " + " | ".join(f'"{x}"' for x in mine)
        elif graph is not None:
            from .graph import node_keys
            keys = keys or node_keys(graph)
            names[asker] = keys.get(asker, asker) + "/decision"
    _NAMES[id(prog)] = names
    weakref.finalize(prog, _NAMES.pop, id(prog), None)
    return names


def play_record(game, index: int, run_seed: int, names: list) -> dict:
    """Play game `index` of a run with agents.play_game and return its record (an `error`
    record if its rules fail)."""
    seed = game_seed(run_seed, index)
    rec = {"index": index, "seed": seed, "spec": game.id,
           "spec_hash": game.spec.hash if game.spec is not None else None,
           "players": game.players, "options": dict(game.options), "agents": list(names)}
    watched = _Watched(game)
    try:
        seats = [_Counted(make_agent(n), watched) for n in names]
        res = play_game(watched, seed, seats, record=False)
        res["legal_actions"] = sum(a.legal for a in seats)
    except TabulaError as e:
        rec["error"] = e.message if isinstance(e, SpecError) else str(e)
        pos = getattr(e, "pos", None)
        if pos is not None and getattr(pos, "line", 0):
            rec["error_at"] = str(pos)
        st = watched.state
        rec.update(turns=st.turn if st is not None else 0,
                   actions=len(st.history) if st is not None else 0)
        return rec
    for key in ("scores", "winners", "points", "decisions", "chance", "legal_actions"):
        rec[key] = encode(res[key])         # a fraction as "7/3" (values.py)
    names = decision_names(game)
    counts: dict = {}
    for rule, c in res["rule_counts"].items():
        name = names.get(rule, rule)
        counts[name] = counts.get(name, 0) + c
    rec["rule_counts"] = counts
    rec["turns"] = watched.state.turn
    rec["first_player"] = first_player(watched)
    if watched.state.fired is not None:
        rec["fired"] = dict(sorted(watched.state.fired.items()))
    return rec


def record_line(rec: dict) -> str:
    """The canonical JSONL line of a record: sorted keys, no spaces, ASCII."""
    return json.dumps(rec, sort_keys=True, separators=(",", ":")) + "\n"


# ---- workers ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    """What a worker needs to play any game of a run (picklable: the checked spec, which
    carries no compiled closures, and plain data), so a worker needs no spec files."""
    spec: Spec
    players: int
    options: dict
    names: tuple
    rotate: bool
    seed: int
    trace: bool = False
    strict: bool = False

    @property
    def key(self) -> tuple:
        return (self.spec.hash, self.players, tuple(sorted(self.options.items())), self.trace,
                self.strict)


_WORKER: dict = {}


def _init_worker(job: Job) -> None:
    """Once per worker process (and run): compile the game."""
    if _WORKER.get("key") != job.key:
        _WORKER["key"] = job.key
        _WORKER["game"] = job.spec.game(job.players, job.options, trace=job.trace,
                                        strict=job.strict)


def _play_chunk(indices: list, job: Job | None = None) -> list:
    if job is None:
        job = _WORKER["job"]
    else:
        _init_worker(job)
    game = _WORKER["game"]
    return [play_record(game, i, job.seed, seat_agents(list(job.names), i, job.rotate))
            for i in indices]


def _init_pool_worker(job: Job) -> None:
    _WORKER["job"] = job
    _init_worker(job)


def _chunks(todo: list, workers: int) -> list:
    """Guided chunks: big while much is left (fewer messages), down to single games at
    the end (so that no worker is left alone with a long chunk)."""
    chunks, at = [], 0
    while at < len(todo):
        size = max(1, min(MAX_CHUNK, (len(todo) - at) // (workers * CHUNK_SHARE)))
        chunks.append(todo[at:at + size])
        at += size
    return chunks


def _start_method(method):
    """fork where it is safe and cheap (Linux: workers inherit the compiled game);
    elsewhere the platform's default (spawn: each worker unpickles the spec once)."""
    if method is None and sys.platform.startswith("linux"):
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return multiprocessing.get_context(method)


BACKENDS = ("local", "ray")


def _results(job: Job, todo: list, workers: int, start_method, backend: str = "local",
             address: str | None = None):
    """Records of the games in todo, in any order."""
    if backend == "ray":
        yield from _ray_results(job, todo, workers, address)
        return
    if workers <= 1 or len(todo) <= 1:
        for i in todo:
            yield _play_chunk([i], job)[0]
        return
    chunks = _chunks(todo, workers)
    ctx = _start_method(start_method)
    # forked workers share the parent's memory until they write to it; the collector
    # would write to every object it scans, so the objects made so far are kept out of it
    gc.freeze()
    try:
        pool = ctx.Pool(min(workers, len(chunks)), initializer=_init_pool_worker,
                        initargs=(job,))
    finally:
        gc.unfreeze()
    with pool:
        for recs in pool.imap_unordered(_play_chunk, chunks):
            yield from recs


def _ray_results(job: Job, todo: list, workers: int, address: str | None):
    """Records of the games in todo, played as Ray tasks (chunks of games), in any order.

    Without `address`, a local Ray instance with `workers` CPUs is started for the run and
    stopped after it (unless Ray was already initialised, as in a notebook: then that
    instance is used). With `address` ('auto', 'HOST:PORT' or 'ray://HOST:PORT'), the run
    joins that cluster; its nodes need this package installed (the same version), not the
    spec files: the checked spec travels with the tasks (one copy in the object store).
    """
    try:
        import ray
    except ImportError:
        raise TabulaError("--backend ray needs Ray: pip install \"tabula[ray]\" "
                          "(or pip install ray)") from None
    started = False
    if not ray.is_initialized():
        kwargs = {"address": address, "include_dashboard": False, "log_to_driver": False,
                  "logging_level": "ERROR", "configure_logging": True}
        if address is None:
            kwargs["num_cpus"] = workers
        try:
            ray.init(**kwargs)
        except Exception as e:               # Ray reports connection failures many ways
            raise TabulaError(f"cannot start or reach Ray"
                              f"{' at ' + address if address else ''}: {e}") from None
        started = True
    try:
        job_ref = ray.put(job)
        task = ray.remote(num_cpus=1)(_play_chunk)
        pending = [task.remote(chunk, job_ref) for chunk in _chunks(todo, max(1, workers))]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                yield from ray.get(ref)
    finally:
        if started:
            ray.shutdown()


# ---- JSONL files ------------------------------------------------------------------------

def read_records(path) -> list:
    """The records of a JSONL file: every complete, well-formed record line (a line that
    cannot be read is skipped; _scan says which)."""
    return [rec for _, rec in _scan(Path(path))[0]]


def _scan(path: Path) -> tuple:
    """A JSONL file of records read line by line: ([(line, record), ...], [(line, why),
    ...] for the lines that are not records, the byte length without an unfinished last
    line). A last line without its newline is an interrupted write."""
    if not path.exists():
        return [], [], 0
    # a regular file only, at most MAX_RECORDS_BYTES, read without blocking
    data = read_input(path, "record file", MAX_RECORDS_BYTES)
    records, bad, pos, line = [], [], 0, 0
    while pos < len(data):
        line += 1
        end = data.find(b"\n", pos)
        if end < 0:
            bad.append((line, "cut off (the run was interrupted while writing it)"))
            break
        raw = data[pos:end]
        pos = end + 1
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):
            bad.append((line, "not JSON"))
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("index"), int) or \
                isinstance(rec.get("index"), bool):
            bad.append((line, "not a game record (no integer 'index')"))
            continue
        why = not_text(rec) if b"\\u" in raw else None
        if why is None:
            why = _bad_record(rec)
        if why is not None:
            bad.append((line, f"not a sound game record: {why}"))
            continue
        records.append((line, rec))
    return records, bad, pos


# the fields of a record (play_record), each with its kind (fields.py): checked as a record
# is read back, so that statistics never meet a field of the wrong type or size
_RECORD = {"index": "a whole number, 0 or more", "seed": "an integer", "spec": "a string",
           "spec_hash": "a string", "players": "a number of players (1 or more)",
           "options": "an object of option values", "agents": "a list of strings"}
_FINISHED = {"scores": "a list of numbers", "winners": "a list of integers",
             "points": "an object of lists of numbers", "decisions": "a whole number, 0 or more",
             "chance": "a whole number, 0 or more", "legal_actions": "a whole number, 0 or more",
             "rule_counts": "an object of counts", "turns": "a whole number, 0 or more",
             "first_player": "a seat or none"}
_FAILED = {"error": "a string", "turns": "a whole number, 0 or more",
           "actions": "a whole number, 0 or more"}


def _bad_record(rec: dict) -> str | None:
    """Why a record read back is not one play_record writes (None if it is)."""
    why = bad_field(rec, _RECORD)
    if why is None:
        why = bad_field(rec, _FAILED if "error" in rec else _FINISHED)
    if why is None and "fired" in rec:
        why = bad_field(rec, {"fired": "an object of counts"})
    if why is None and "error_at" in rec:
        why = bad_field(rec, {"error_at": "a string"})
    if why is not None:
        return why
    n = rec["players"]
    if len(rec["agents"]) != n:
        return f"{len(rec['agents'])} agents for {n} players"
    if "error" in rec:
        return None
    if len(rec["scores"]) != n or any(len(v) != n for v in rec["points"].values()):
        return f"scores or points not one per player ({n} players)"
    if any(not 0 <= w < n for w in rec["winners"]) or \
            rec["first_player"] is not None and rec["first_player"] >= n:
        return f"a seat out of range ({n} players)"
    if len(set(rec["winners"])) != len(rec["winners"]):
        return "a winner named twice"
    return None


def _resume(path: Path, job: Job, game, warn=None) -> dict:
    """The finished games of an interrupted run, by index. The file is checked first and
    written only once it is this run's own: it must hold records, and every record must be
    of this run (spec, players, options, agents, seed, tracing), else a TabulaError and the
    file is untouched. An unfinished last line (an interrupted write) is cut so that new
    lines append cleanly; other lines that cannot be read (not JSON, or not a sound game
    record: _bad_record) are left in place and reported (`warn`, by line number), and
    their games, being missing, are played again."""
    records, bad, good = _scan(path)
    if not path.exists() or path.stat().st_size == 0:
        return {}
    if not records:
        line, why = bad[0] if bad else (1, "empty")
        raise TabulaError(f"{path}:{line}: not a record file of tabula simulate ({why}; no "
                          "line is a game record): --resume writes only to its own run's "
                          "file, and this one was left as it was")
    done: dict = {}
    for n, rec in records:
        i = rec["index"]
        want = {"seed": game_seed(job.seed, i), "spec": game.id, "players": game.players,
                "options": game.options, "spec_hash": game.spec.hash,
                "agents": seat_agents(list(job.names), i, job.rotate)}
        for key, value in want.items():
            if rec.get(key) != value:
                raise TabulaError(f"{path}:{n}: this record is from another run ({key} "
                                  f"{rec.get(key)!r}, not {value!r}); resume with the same "
                                  "spec, players, options, agents and seed, or write a new file")
        if "error" not in rec and ("fired" in rec) != job.trace:
            raise TabulaError(f"{path}:{n}: this record is from a run "
                              f"{'with' if 'fired' in rec else 'without'} tracing; resume "
                              "it the same way, or write a new file")
        done.setdefault(i, rec)
    cut = good < path.stat().st_size
    if bad:
        bad.sort()
        shown = ", ".join(f"{line} ({why})" for line, why in bad[:10])
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        kept = len(bad) - (1 if cut else 0)
        (warn or _warn)(f"warning: {path}: {len(bad)} line{'s' if len(bad) > 1 else ''} "
                        f"cannot be read: line {shown}{more}; the games missing from the "
                        "file are played again" +
                        ("; the unfinished last line is cut" if cut else "") +
                        (f"; the other {kept} left in place" if kept else ""))
    if cut:
        with open(path, "r+b") as f:
            f.truncate(good)
    return done


def _warn(text: str) -> None:
    print(text, file=sys.stderr)


# ---- the run ----------------------------------------------------------------------------

def run_batch(spec_path, games: int, players: int | None = None, options: dict | None = None,
              agents=None, seed: int = 0, workers: int | None = None, out=None,
              resume: bool = False, progress=None, rotate: bool = False,
              start_method: str | None = None, backend: str = "local",
              address: str | None = None, trace: bool = False,
              strict: bool = False, warn=None) -> "Summary":
    """Play games 0..games-1 of a run and summarise them.

    spec_path: a spec file or a game's folder, or a Spec already loaded.
    agents: None (random), 'a,b,...' or a list, one name per seat (one name: every seat);
    rotate: seat s of game i gets agent (s + i) mod players, so that agents share seats.
    workers: processes (default os.cpu_count(); 1 plays in this process). out: a JSONL
    file, rewritten unless resume, which keeps its finished games and plays the others.
    progress(done) is called after each record (done counts resumed games too). Errors
    in the run's set-up (spec, players, options, agents, a file from another run) raise
    TabulaError; a game whose rules fail is recorded with its `error` and the run goes on.
    start_method: 'fork', 'spawn' or 'forkserver' (default: fork on Linux).
    backend: 'local' (a process pool) or 'ray' (Ray tasks; `address` joins a running
    cluster, else a local Ray instance with `workers` CPUs is started for the run).
    Whatever the backend and the workers, the records are the same.
    warn(text): told of the lines of a resumed file that cannot be read (default: stderr).
    trace: play games compiled with trace (Spec.game): each record gets `fired`, how
    often each id'd step, option and rule was reached.
    strict: play games compiled strict (Spec.game): an empty mandatory choice is a rule
    error, so its game is recorded with its `error`.
    """
    t0 = time.perf_counter()
    if games < 0:
        raise TabulaError(f"--games must be 0 or more, not {games}")
    workers = (os.cpu_count() or 1) if workers is None else int(workers)
    if workers < 1:
        raise TabulaError(f"--workers must be 1 or more, not {workers}")
    if backend not in BACKENDS:
        raise TabulaError(f"unknown backend '{backend}': "
                          + (did_you_mean(backend, BACKENDS) or f"one of {', '.join(BACKENDS)}"))
    if address is not None and backend != "ray":
        raise TabulaError("--address is for --backend ray")
    spec = spec_path if isinstance(spec_path, Spec) else load_spec(spec_path)
    game = spec.game(players, options, trace=trace, strict=strict)   # bad players, options fail
    names = agent_names(agents, game.players)
    job = Job(spec, game.players, dict(game.options), tuple(names), bool(rotate),
              int(seed), bool(trace), bool(strict))

    path = Path(out) if out is not None else None
    if resume and path is None:
        raise TabulaError("--resume completes the file of --out; name it")
    with writing(path):
        done = _resume(path, job, game, warn) if resume else {}
        sink = None if path is None else open(path, "a" if resume else "w", encoding="utf-8",
                                              newline="\n")
    todo = [i for i in range(games) if i not in done]
    records = [rec for i, rec in sorted(done.items()) if i < games]
    finished = len(records)
    try:
        waiting: dict = {}            # finished out of order, held until their turn
        pos = 0
        for rec in _results(job, todo, workers, start_method, backend, address):
            waiting[rec["index"]] = rec
            while pos < len(todo) and todo[pos] in waiting:
                rec = waiting.pop(todo[pos])
                pos += 1
                if sink is not None:
                    with writing(path):
                        sink.write(record_line(rec))
                        sink.flush()
                records.append(rec)
                finished += 1
                if progress is not None:
                    progress(finished)
    finally:
        if sink is not None:
            try:
                sink.close()
            except OSError:
                pass            # a write that failed said so (cannot_write); nothing more
    records.sort(key=lambda r: r["index"])
    summary = summarize(records)
    summary.seconds = time.perf_counter() - t0
    summary.workers = workers
    return summary


# ---- statistics -------------------------------------------------------------------------

def wilson(successes: float, n: int, z: float = Z95) -> tuple:
    """The Wilson score interval of a proportion (successes may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z / d * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(sorted_values: list, q: float) -> float:
    """The q-th percentile, interpolating linearly between ranks (numpy's default)."""
    if not sorted_values:
        return None
    k = (len(sorted_values) - 1) * q / 100
    lo = math.floor(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


# two-sided 95% quantiles of Student's t for 1..30 degrees of freedom
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
         2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
         2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """The two-sided 95% quantile of Student's t with df degrees of freedom (table to 30,
    then the Cornish-Fisher expansion, within 0.001 of the exact value)."""
    if df < 1:
        raise ValueError("t needs at least 1 degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), for a, b > 0, 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_p_value(t: float, df: int) -> float:
    """The two-sided p-value of Student's t statistic with df degrees of freedom:
    P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2)."""
    if df < 1:
        raise ValueError("t needs at least 1 degree of freedom")
    if math.isinf(t):
        return 0.0
    return min(1.0, incomplete_beta(df / 2, 0.5, df / (df + t * t)))


def holm(p_values: list) -> list:
    """Holm's step-down adjustment of p-values (None stays None): the k-th smallest of the
    m p-values is multiplied by m - k + 1, the results made non-decreasing in that order
    and capped at 1. A metric is significant at 5% with the family's error rate (the
    chance of any false positive among the m) at most 5% when its adjusted p < 0.05."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(tested)
    out = [None] * len(p_values)
    running = 0.0
    for k, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (m - k) * p))
        out[i] = running
    return out


def mean_interval(values: list) -> tuple:
    """(mean, low, high): the mean and its 95% Student's t interval (None, None for fewer
    than 2 values; the mean alone for one)."""
    if not values:
        return (None, None, None)
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, None, None)
    half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return (mean, mean - half, mean + half)


def _spread(values: list) -> dict:
    if not values:
        return {"mean": None, "min": None, "max": None}
    return {"mean": statistics.fmean(values), "min": min(values), "max": max(values)}


@dataclass
class Summary:
    """Statistics over game records (see summarize); records are the games, by index."""
    games: int                       # records, failed ones included
    failed: int
    players: int                     # seats (the most of any finished game)
    spec: str | None
    win_rate_by_seat: list           # share of the finished games won (shared: 1/k each)
    win_interval_by_seat: list       # [low, high], 95% Wilson
    win_rate_by_agent: dict          # name -> {rate, low, high, games (seats played)}
    score_mean_by_seat: list
    score_std_by_seat: list          # sample standard deviation
    score_percentiles_by_seat: list  # {"10": .., "50": .., "90": ..} per seat
    decisions: dict                  # agents' decisions per game: {mean, min, max}
    turns: dict                      # {mean, min, max}
    mean_branching: float | None     # legal actions per agents' decision
    rule_counts: dict                # rule -> decisions taken in all finished games
    rule_counts_per_game: dict
    first_player_advantage: float | None    # the first player's win rate minus 1/players
    first_player_interval: list | None      # [low, high] of the advantage (Wilson)
    errors: dict                     # error message -> failed games
    first_player_games: int = 0      # finished games whose record names the first player
    first_player_win_rate: float | None = None
    first_player_by_seat: list = field(default_factory=list)    # games each seat began
    win_rate_by_place: list = field(default_factory=list)       # by place in turn order
    points_by_rule: dict = field(default_factory=dict)          # rule -> per seat stats
    records: list = field(default_factory=list, repr=False)
    seconds: float | None = None
    workers: int | None = None

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items()
               if k != "records" and not (k in ("seconds", "workers") and v is None)}
        return json.loads(json.dumps(out))   # plain data: tuples become lists

    def table(self) -> str:
        return format_table(self)


def summarize(records: list) -> Summary:
    """Statistics over game records (dicts as run_batch writes them). Failed games count in
    `failed` only. A win shared by k players counts 1/k for each of them."""
    ok = [r for r in records if "error" not in r]
    players = max((r["players"] for r in ok), default=0)
    wins = [0.0] * players
    seat_games = [0] * players
    scores: list = [[] for _ in range(players)]
    agent_wins: dict = {}
    agent_games: dict = {}
    totals: dict = {}
    for r in ok:
        share = 1.0 / len(r["winners"]) if r["winners"] else 0.0
        for s in range(r["players"]):
            seat_games[s] += 1
            scores[s].append(as_float(r["scores"][s]))
            name = r["agents"][s]
            agent_games[name] = agent_games.get(name, 0) + 1
            agent_wins.setdefault(name, 0.0)
        for w in r["winners"]:
            wins[w] += share
            agent_wins[r["agents"][w]] += share
        for rule, c in r["rule_counts"].items():
            totals[rule] = totals.get(rule, 0) + c
    rates = [wins[s] / seat_games[s] if seat_games[s] else None for s in range(players)]
    intervals = [list(wilson(wins[s], seat_games[s])) for s in range(players)]
    by_agent = {}
    for name in sorted(agent_games):
        lo, hi = wilson(agent_wins[name], agent_games[name])
        by_agent[name] = {"rate": agent_wins[name] / agent_games[name], "low": lo, "high": hi,
                          "games": agent_games[name]}
    first = _first_player_stats(ok, players)
    decisions = sum(r["decisions"] for r in ok)
    legal = sum(r.get("legal_actions", 0) for r in ok)
    errors: dict = {}
    for r in records:
        if "error" in r:
            errors[r["error"]] = errors.get(r["error"], 0) + 1
    sorted_scores = [sorted(v) for v in scores]
    return Summary(
        games=len(records), failed=len(records) - len(ok), players=players,
        spec=records[0].get("spec") if records else None,
        win_rate_by_seat=rates, win_interval_by_seat=intervals, win_rate_by_agent=by_agent,
        score_mean_by_seat=[statistics.fmean(v) if v else None for v in scores],
        score_std_by_seat=[statistics.stdev(v) if len(v) > 1 else 0.0 for v in scores],
        score_percentiles_by_seat=[{str(q): percentile(v, q) for q in PERCENTILES}
                                   for v in sorted_scores],
        decisions=_spread([r["decisions"] for r in ok]),
        turns=_spread([r["turns"] for r in ok]),
        mean_branching=legal / decisions if decisions else None,
        rule_counts=dict(sorted(totals.items())),
        rule_counts_per_game={k: v / len(ok) for k, v in sorted(totals.items())},
        errors=errors, points_by_rule=_points_by_rule(ok, players), **first,
        records=list(records))


def _first_player_stats(ok: list, players: int) -> dict:
    """The first player's win rate (and its advantage over the fair share, 1/players)
    with a Wilson interval, how often each seat moved first, and the win rate by place in
    turn order (0: the first player, 1: the seat after it, ...), over the finished games
    whose record names the first player (records of older runs do not)."""
    known = [r for r in ok if isinstance(r.get("first_player"), int)]
    by_seat = [0] * players
    place_wins = [0.0] * players
    place_games = [0] * players
    place_fair = [0.0] * players
    for r in known:
        by_seat[r["first_player"]] += 1
        share = 1.0 / len(r["winners"]) if r["winners"] else 0.0
        for place in range(r["players"]):
            seat = (r["first_player"] + place) % r["players"]
            place_games[place] += 1
            place_fair[place] += 1.0 / r["players"]
            if seat in r["winners"]:
                place_wins[place] += share
    by_place = []
    for place in range(players):
        n = place_games[place]
        lo, hi = wilson(place_wins[place], n)
        by_place.append({"rate": place_wins[place] / n if n else None, "low": lo, "high": hi,
                         "games": n, "fair": place_fair[place] / n if n else None})
    out = {"first_player_games": len(known), "first_player_by_seat": by_seat,
           "win_rate_by_place": by_place, "first_player_win_rate": None,
           "first_player_advantage": None, "first_player_interval": None}
    if known:
        first = by_place[0]
        out["first_player_win_rate"] = first["rate"]
        out["first_player_advantage"] = first["rate"] - first["fair"]
        out["first_player_interval"] = [first["low"] - first["fair"],
                                        first["high"] - first["fair"]]
    return out


def _points_by_rule(ok: list, players: int) -> dict:
    """{scoring rule: [{mean, sd, low, high} per seat]}: the points each scoring rule gave
    each seat per game, the mean with its 95% Student's t interval."""
    values: dict = {}
    for r in ok:
        for rid, row in (r.get("points") or {}).items():
            seats = values.setdefault(rid, [[] for _ in range(players)])
            for seat, v in enumerate(row[:players]):
                seats[seat].append(as_float(v))   # "7/3" as a float
    out = {}
    for rid, seats in values.items():
        rows = []
        for v in seats:
            mean, lo, hi = mean_interval(v)
            rows.append({"mean": mean, "sd": statistics.stdev(v) if len(v) > 1 else None,
                         "low": lo, "high": hi})
        out[rid] = rows
    return out


def num_text(x, fmt: str = ".3f") -> str:
    """A number formatted, or '-' for none (the tables of simulate, compare, report)."""
    return "-" if x is None else format(x, fmt)


def _pair(low, high, fmt: str = ".2f") -> str:
    return "" if low is None else f"[{format(low, fmt)}, {format(high, fmt)}]"


def first_player_lines(s: Summary) -> list:
    """The first player's lines of the text table."""
    if not s.first_player_games:
        return ["first player            none named (records of an older tabula, or "
                "simultaneous moves)"]
    lo, hi = s.first_player_interval
    out = [f"first player's win rate {s.first_player_win_rate:.3f}  "
           f"(advantage {s.first_player_advantage:+.3f} [{lo:+.3f}, {hi:+.3f}] over the "
           f"fair share; {s.first_player_games} games)",
           "win rate by place       " + ", ".join(
               f"{place + 1}: {num_text(x['rate'])}"
               for place, x in enumerate(s.win_rate_by_place) if x["games"]),
           "first player by seat    " + ", ".join(
               f"{seat}: {n}" for seat, n in enumerate(s.first_player_by_seat))]
    return out


def format_table(s: Summary) -> str:
    """A summary as a text table."""
    head = f"{s.spec or 'games'}: {s.games} games, {s.failed} failed"
    if s.seconds is not None:
        head += f", {s.seconds:.1f} s"
        if s.workers:
            head += f" on {s.workers} worker" + ("s" if s.workers > 1 else "")
    out = [head]
    if s.records:
        r0 = next((r for r in s.records if "error" not in r), s.records[0])
        opts = ", ".join(f"{k}={v}" for k, v in r0.get("options", {}).items()) or "none"
        out.append(f"{r0.get('players')} players, options {opts}")
    if s.players:
        out.append("")
        out.append(f"{'seat':>4}  {'win rate':>8}  {'95% interval':<15}  {'score':>8}  "
                   f"{'sd':>6}  {'p10':>6}  {'p50':>6}  {'p90':>6}")
        for seat in range(s.players):
            lo, hi = s.win_interval_by_seat[seat]
            pc = s.score_percentiles_by_seat[seat]
            out.append(f"{seat:>4}  {num_text(s.win_rate_by_seat[seat]):>8}  "
                       f"[{lo:.3f}, {hi:.3f}]  {num_text(s.score_mean_by_seat[seat], '.2f'):>8}  "
                       f"{num_text(s.score_std_by_seat[seat], '.2f'):>6}  "
                       + "  ".join(f"{num_text(pc[str(q)], '.1f'):>6}" for q in PERCENTILES))
        out.append("")
        width = max(len(n) for n in s.win_rate_by_agent) if s.win_rate_by_agent else 5
        out.append(f"{'agent':<{width}}  {'win rate':>8}  {'95% interval':<15}  {'seats':>6}")
        for name, a in s.win_rate_by_agent.items():
            out.append(f"{name:<{width}}  {a['rate']:>8.3f}  [{a['low']:.3f}, {a['high']:.3f}]"
                       f"  {a['games']:>6}")
        out.append("")
        out += first_player_lines(s)
        if s.points_by_rule:
            out.append("")
            width = max([len(r) for r in s.points_by_rule] + [13])
            out.append((f"{'points by rule':<{width}}  " + "  ".join(
                f"{'seat ' + str(seat):<22}" for seat in range(s.players))).rstrip())
            for rid, rows in s.points_by_rule.items():
                out.append((f"{rid:<{width}}  " + "  ".join(
                    f"{num_text(x['mean'], '.2f') + ' ' + _pair(x['low'], x['high']):<22}"
                    for x in rows)).rstrip())
        out.append("")
        d, t = s.decisions, s.turns
        out.append(f"decisions per game      {d['mean']:.1f}  (min {d['min']}, max {d['max']})")
        out.append(f"turns per game          {t['mean']:.1f}  (min {t['min']}, max {t['max']})")
        out.append(f"mean branching          {num_text(s.mean_branching, '.2f')}")
        out.append("")
        out.append("rules taken per game")
        width = max((len(k) for k in s.rule_counts), default=4)
        for rule, per in sorted(s.rule_counts_per_game.items(), key=lambda kv: -kv[1]):
            out.append(f"  {rule:<{width}}  {per:8.2f}")
    if s.errors:
        out.append("")
        out.append("failed games")
        for msg, n in sorted(s.errors.items(), key=lambda kv: -kv[1]):
            out.append(f"  {n:>5}  {msg}")
    return "\n".join(out)
