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
decisions), legal_actions (summed over the agents' decisions), turns, rule_counts
(decisions taken, chance included, by the rule that asks them). A game whose rules fail
has `error` (and `error_at`, file:line:col) instead of scores, winners and counts.
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
from dataclasses import dataclass, field
from pathlib import Path

from .agents import make_agent, play_game
from .errors import SpecError, TabulaError, did_you_mean
from .spec import Spec, load_spec
from .values import as_float, encode

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
    """The game, for agents.play_game, keeping the state it starts (for its turn count)."""

    def __init__(self, game):
        self._game = game
        self.state = None

    def __getattr__(self, name):
        return getattr(self._game, name)

    def new_state(self, *args, **kwargs):
        self.state = self._game.new_state(*args, **kwargs)
        return self.state


class _Counted:
    """An agent that adds up the legal actions it was offered (for the branching factor)."""

    __slots__ = ("agent", "name", "legal")

    def __init__(self, agent):
        self.agent, self.name, self.legal = agent, agent.name, 0

    def act(self, view):
        self.legal += len(view.legal_actions)
        return self.agent.act(view)


def play_record(game, index: int, run_seed: int, names: list) -> dict:
    """Play game `index` of a run with agents.play_game and return its record (an `error`
    record if its rules fail)."""
    seed = game_seed(run_seed, index)
    rec = {"index": index, "seed": seed, "spec": game.id,
           "spec_hash": game.spec.hash if game.spec is not None else None,
           "players": game.players, "options": dict(game.options), "agents": list(names)}
    watched = _Watched(game)
    try:
        seats = [_Counted(make_agent(n)) for n in names]
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
    for key in ("scores", "winners", "points", "decisions", "chance", "legal_actions",
                "rule_counts"):
        rec[key] = encode(res[key])         # a fraction as "7/3" (values.py)
    rec["turns"] = watched.state.turn
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

    @property
    def key(self) -> tuple:
        return (self.spec.hash, self.players, tuple(sorted(self.options.items())), self.trace)


_WORKER: dict = {}


def _init_worker(job: Job) -> None:
    """Once per worker process (and run): compile the game."""
    if _WORKER.get("key") != job.key:
        _WORKER["key"] = job.key
        _WORKER["game"] = job.spec.game(job.players, job.options, trace=job.trace)


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
    """The records of a JSONL file (complete, well-formed lines up to the first bad one)."""
    return _read_prefix(Path(path))[0]


def _read_prefix(path: Path) -> tuple:
    """(records, byte length of the good prefix) of a JSONL file."""
    if not path.exists():
        return [], 0
    data = path.read_bytes()
    records, good = [], 0
    while good < len(data):
        end = data.find(b"\n", good)
        if end < 0:
            break                    # an unfinished last line: the run was interrupted
        try:
            rec = json.loads(data[good:end])
        except ValueError:
            break
        if not isinstance(rec, dict) or not isinstance(rec.get("index"), int):
            break
        records.append(rec)
        good = end + 1
    return records, good


def _resume(path: Path, job: Job, game) -> dict:
    """The finished games of an interrupted run, by index; the file is cut after the last
    complete record so that new lines append cleanly."""
    records, good = _read_prefix(path)
    if path.exists() and good < path.stat().st_size:
        with open(path, "r+b") as f:
            f.truncate(good)
    done: dict = {}
    for n, rec in enumerate(records, 1):
        i = rec["index"]
        want = {"seed": game_seed(job.seed, i), "players": game.players,
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
    return done


# ---- the run ----------------------------------------------------------------------------

def run_batch(spec_path, games: int, players: int | None = None, options: dict | None = None,
              agents=None, seed: int = 0, workers: int | None = None, out=None,
              resume: bool = False, progress=None, rotate: bool = False,
              start_method: str | None = None, backend: str = "local",
              address: str | None = None, trace: bool = False) -> "Summary":
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
    trace: play games compiled with trace (Spec.game): each record gets `fired`, how
    often each id'd step, option and rule was reached.
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
    game = spec.game(players, options, trace=trace)   # bad players or options fail here
    names = agent_names(agents, game.players)
    job = Job(spec, game.players, dict(game.options), tuple(names), bool(rotate),
              int(seed), bool(trace))

    path = Path(out) if out is not None else None
    if resume and path is None:
        raise TabulaError("--resume completes the file of --out; name it")
    try:
        done = _resume(path, job, game) if resume else {}
        sink = None if path is None else open(path, "a" if resume else "w", encoding="utf-8",
                                              newline="\n")
    except OSError as e:
        raise TabulaError(f"cannot write {path}: {e.strerror}") from None
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
                    sink.write(record_line(rec))
                    sink.flush()
                records.append(rec)
                finished += 1
                if progress is not None:
                    progress(finished)
    finally:
        if sink is not None:
            sink.close()
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
    first_player_advantage: float | None    # seat 0's win rate minus 1/players
    first_player_interval: list | None      # [low, high]
    errors: dict                     # error message -> failed games
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
    fpa = interval = None
    if ok and players:
        fair = statistics.fmean(1.0 / r["players"] for r in ok)
        fpa = rates[0] - fair
        interval = [intervals[0][0] - fair, intervals[0][1] - fair]
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
        first_player_advantage=fpa, first_player_interval=interval,
        errors=errors, records=list(records))


def num_text(x, fmt: str = ".3f") -> str:
    """A number formatted, or '-' for none (the tables of simulate, compare, report)."""
    return "-" if x is None else format(x, fmt)


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
        lo, hi = s.first_player_interval
        out.append(f"first-player advantage  {s.first_player_advantage:+.3f}  "
                   f"[{lo:+.3f}, {hi:+.3f}]")
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
