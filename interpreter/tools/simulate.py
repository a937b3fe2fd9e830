"""Many games at once: a seed per game, a local process pool (or Ray), one JSON record per
game, and the Summary of the records (`tabula simulate`); the runs of a check (every
player count: `tabula validate --play`) and of a comparison (two variants on the same
seeds: `tabula diff --simulate`).

Input: a spec path (or a Spec), a number of games, players, options, agent names and a
run seed. Output: one JSON object per game, appended to a JSONL file in index order as
soon as the game (and every game before it) is done, and a Summary (stats.py: win rates
by seat and by agent with Wilson intervals, scores, game lengths, branching, rules
taken); a check's failures and ids that never fired; a Comparison (compare.py).

This is the one module of the tools that plays games with bots in batches: it loads
specs and imports the bots, so the command line alone imports it (bench is given its
run_batch to measure); what it shares with others (statistics, the comparison of
records) is below it, in stats.py and compare.py.

Every game is a pure function of (spec, players, options, agents, game_seed(seed, index)),
so the records, and the file, do not depend on the number of workers or on resuming.
Games are played by tabula_rules.bots.agents.play_game (a record replays with
play_game(game, record["seed"], agents)).

A record: index, seed (the game's), spec, spec_hash, players, options, agents (by seat),
scores, winners, points (by scoring rule), decisions (the agents'), chance (chance
decisions), legal_actions (summed over the agents' decisions), turns, first_player (the
seat that moved first: see first_player below), rule_counts (decisions taken, chance
included, by the rule or step that asks them; a decision asked inside another one by its
asker and its label, `rule:leader / "leader: take {m}"`), legal_max (the most legal
actions at one agents' decision), lead_changes and drama (of the scores sampled once a
round: trajectory_figures; docs/simulate.md, Designer's metrics). A game whose rules fail has
`error` (and `error_at`, file:line:col) instead of scores, winners and counts. Records
written before first_player existed are still read: they count everywhere except in the
first-player statistics; those written before legal_max, lead_changes and drama
existed are read too, and count in every statistic but those three.
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from ..bots.agents import make_agent, play_game
from ..errors import Pos, RuleError, SpecError, TabulaError, did_you_mean, read_input
from ..lang import rulings
from ..runtime.values import as_float, decode, encode, not_text
from ..spec import Spec, load_spec
from . import bychange
from .cmdutil import (
    exclusive,
    games_count,
    guided_chunks,
    pool_context,
    seed_alias,
    worker_count,
    writing,
)
from .compare import Comparison, bots_played, compare_records, fired_in, rule_ids
from .diff import same_rules
from .fields import bad_field
from .graphview import node_keys
from .stats import Summary, depth_figures, summarize

MAX_RECORDS_BYTES = 500_000_000  # a record file read whole is at most this (docs/language.md 9)

MAX_CHUNK = 32                   # a chunk is at most 32 games: records are written soon
RANDOM = "random"
DEPTH_AGENTS = ("mcts", RANDOM)  # simulate --depth: the strong agent, the weak one

# diff --simulate's bots when none are named: a search bot in one seat and greedy in the
# others, seats rotated game by game (so each seat has the search bot equally often), as
# a designer's players are neither random nor all alike. The search's budget is what a
# game costs: a fifth of mcts's default of 500 iterations keeps a 20-game diff of a
# shipped game to minutes on two cores; docs/simulate.md has the measurements.
DIFF_SEARCH_ITERATIONS = 100
DIFF_AGENTS = (f"mcts:{DIFF_SEARCH_ITERATIONS}", "greedy")   # the search seat, the others


# ---- seeds and agents -------------------------------------------------------------------

def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: a stable hash (53 bits, exact in a JSON double),
    never an alias of another seed (cmdutil.seed_problem: the range of seeds)."""
    digest = hashlib.sha256(f"{run_seed}:{index}".encode()).digest()
    seed = int.from_bytes(digest[:8], "big") >> 11
    if seed_alias(seed) is not None:
        # (a chance of 2^-32) a seed random.Random seeds as a smaller one: another bit of
        # the high word makes it a seed of its own, which `tabula run --seed` accepts
        seed ^= 1 << 52
    return seed


def agent_names(agents, players: int) -> list:
    """One agent name per seat, from None (all random), 'a,b', or a list (one name: all);
    each name as its agent calls itself ('mcts' -> 'mcts:500:8')."""
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


def diff_lineup(agents, players: int) -> dict:
    """The bots of a comparison: with agents None, DIFF_AGENTS (the search bot in one
    seat, the other in the rest, seats rotated), else the agents named (agent_names, not
    rotated). {"agents": game 0's bot by seat, "rotate", "default"}."""
    if agents is None:
        search, other = agent_names(list(DIFF_AGENTS), 2)
        return {"agents": [search] + [other] * (players - 1), "rotate": True,
                "default": True}
    return {"agents": agent_names(agents, players), "rotate": False, "default": False}


# ---- one game ---------------------------------------------------------------------------

class _Watched:
    """The game, for agents.play_game, keeping the state it starts (for its turn count)
    and who moved first (see first_player)."""

    def __init__(self, game):
        self._game = game
        self.state = None
        self.first_decision = None    # the seat of the first agent decision of the game
        self.first_in_turns = None    # ... and of the first one once the turns had begun
        self.players = game.players
        self.sampled_round = None     # the round of the last sample of the scores
        self.trajectory: list = []    # the scores (floats) sampled, one list per round

    def sample(self) -> None:
        """The scores now, once per round (`players` turns: turns 1.., 1+P.., ...) at its
        first agent decision (a scoring rule that cannot be computed before the end leaves
        this round out)."""
        st = self.state
        self.sampled_round = (st.turn - 1) // self.players
        try:
            self.trajectory.append([as_float(x) for x in st.scores()])
        except (TabulaError, TypeError, ValueError, ZeroDivisionError):
            pass

    def __getattr__(self, name):
        return getattr(self._game, name)

    def new_state(self, *args, **kwargs):
        self.state = self._game.new_state(*args, **kwargs)
        return self.state


class _Counted:
    """An agent that adds up the legal actions it was offered (for the branching factor,
    and their most at one decision), tells the watched game who decides (for its first
    player) and samples the scores at the first agent decision of each round (for the
    lead changes and the drama: see trajectory_figures)."""

    __slots__ = ("agent", "name", "legal", "legal_max", "watched")

    def __init__(self, agent, watched=None):
        self.agent, self.name, self.legal, self.watched = agent, agent.name, 0, watched
        self.legal_max = 0

    def act(self, view):
        n = len(view.legal_actions)
        self.legal += n
        if n > self.legal_max:
            self.legal_max = n
        w = self.watched
        if w is not None and w.state is not None and w.state.turn >= 1 and \
                (w.state.turn - 1) // w.players != w.sampled_round:
            w.sample()
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


def leader(scores: list):
    """The seat with the highest score, or None when several share it."""
    best = max(scores)
    top = [s for s, x in enumerate(scores) if x == best]
    return top[0] if len(top) == 1 else None


def trajectory_figures(trajectory: list, final: list, winners: list) -> dict:
    """The per-game figures of a score trajectory (the scores sampled at the start of
    each round of turns, then the final scores; docs/simulate.md, Designer's metrics):
    lead_changes, how often the sole leader became another seat than the last sole
    leader (a tie names no leader and changes nothing); drama, the largest deficit of
    the eventual winner (the best-placed of the winners) to the best score, over the
    samples, as a share of the winner's final score (of 1 when that is less than 1): 0 for
    a winner never behind, 0.25 for one that once trailed by a quarter of the points it
    ended with."""
    samples = list(trajectory) + [list(final)]
    changes, last = 0, None
    deficit = 0.0
    for row in samples:
        who = leader(row)
        if who is not None:
            if last is not None and who != last:
                changes += 1
            last = who
        if winners:
            deficit = max(deficit, max(row) - max(row[w] for w in winners))
    scale = max(1.0, abs(max((final[w] for w in winners), default=1.0)))
    return {"lead_changes": changes, "drama": round(deficit / scale, 6)}


def decision_names(game) -> dict:
    """{asker: name} for the decisions asked inside another decision, whose rule_counts
    key would otherwise be the compiler's number (`decision:8`): the outermost rule or
    step that asks them, then their label, `rule:leader / "leader: take {m}"` (or the
    action graph's key, `rule:leader/decision/decision`, for a decision without one).
    A run computes them once per game compiled (Worker), not once per game played."""
    prog = game.prog
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
            keys = keys or node_keys(graph)
            names[asker] = keys.get(asker, asker) + "/decision"
    return names


def play_record(game, index: int, run_seed: int, names: list,
                rule_names: dict | None = None) -> dict:
    """Play game `index` of a run with agents.play_game and return its record (an `error`
    record if its rules fail). rule_names: decision_names(game), when the caller plays
    many games of this game (a Worker); else computed here."""
    seed = game_seed(run_seed, index)
    rec = {"index": index, "seed": seed, "spec": game.id,
           "spec_hash": game.spec.hash if game.spec is not None else None,
           "players": game.players, "options": dict(game.options), "agents": list(names)}
    watched = _Watched(game)
    try:
        seats = [_Counted(make_agent(n), watched) for n in names]
        res = play_game(watched, seed, seats, record=False)
        res["legal_actions"] = sum(a.legal for a in seats)
        res["legal_max"] = max((a.legal_max for a in seats), default=0)
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
                "legal_max"):
        rec[key] = encode(res[key])         # a fraction as "7/3" (values.py)
    rec.update(trajectory_figures(watched.trajectory, [as_float(x) for x in res["scores"]],
                                  list(res["winners"])))
    names = decision_names(game) if rule_names is None else rule_names
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


class Worker:
    """What plays the games of one run in one process: its job, the game compiled once
    (or given: the run's own, when it plays in its own process) and the game's decision
    names."""

    def __init__(self, job: Job, game=None):
        self.job = job
        self.game = game if game is not None else job.spec.game(
            job.players, job.options, trace=job.trace, strict=job.strict)
        self.rule_names = decision_names(self.game)

    def play(self, indices: list) -> list:
        job = self.job
        return [play_record(self.game, i, job.seed, seat_agents(list(job.names), i, job.rotate),
                            self.rule_names)
                for i in indices]


# A worker process's own state, never the parent's: the Worker of the run it serves, set
# by the pool's initializer (_init_pool_worker) or by a Ray task's first chunk of a run (a
# Ray worker process serves task after task, so it keeps the Worker of the last job).
_WORKER: Worker | None = None


def _init_pool_worker(job: Job) -> None:
    global _WORKER
    _WORKER = Worker(job)


def _play_chunk(indices: list, job: Job | None = None) -> list:
    """A chunk of games in a worker process (a pool's: job None; a Ray task's: its job)."""
    global _WORKER
    if job is not None and (_WORKER is None or _WORKER.job.key != job.key):
        _WORKER = Worker(job)
    assert _WORKER is not None, "a pool worker without its initializer"
    return _WORKER.play(indices)


BACKENDS = ("local", "ray")


def _results(job: Job, game, todo: list, workers: int, start_method, backend: str = "local",
             address: str | None = None):
    """Records of the games in todo, in any order (`game`: the run's, compiled here, which
    plays them when they are played in this process)."""
    if backend == "ray":
        yield from _ray_results(job, todo, workers, address)
        return
    if workers <= 1 or len(todo) <= 1:
        worker = Worker(job, game)
        for i in todo:
            yield worker.play([i])[0]
        return
    chunks = guided_chunks(todo, workers, MAX_CHUNK)
    ctx = pool_context(start_method)
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
        except Exception as e:  # noqa: BLE001  Ray reports connection failures many ways
            raise TabulaError(f"cannot start or reach Ray"
                              f"{' at ' + address if address else ''}: {e}") from None
        started = True
    try:
        job_ref = ray.put(job)
        task = ray.remote(num_cpus=1)(_play_chunk)
        pending = [task.remote(chunk, job_ref)
                   for chunk in guided_chunks(todo, max(1, workers), MAX_CHUNK)]
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
# optional (records of older runs lack them): drama, a float, is checked apart
_FIGURES = {"legal_max": "a whole number, 0 or more",
            "lead_changes": "a whole number, 0 or more"}
_FAILED = {"error": "a string", "turns": "a whole number, 0 or more",
           "actions": "a whole number, 0 or more"}


def _bad_record(rec: dict) -> str | None:
    """Why a record read back is not one play_record writes (None if it is)."""
    why = bad_field(rec, _RECORD)
    if why is None:
        why = bad_field(rec, _FAILED if "error" in rec else _FINISHED)
    if why is None and "fired" in rec:
        why = bad_field(rec, {"fired": "an object of counts"})
    if why is None and "error" not in rec:
        # the designer's figures (newer records; older ones are read without them)
        why = bad_field(rec, {k: v for k, v in _FIGURES.items() if k in rec})
        d = rec.get("drama", 0.0)
        if why is None and (isinstance(d, bool) or not isinstance(d, (int, float))
                            or not 0 <= d < math.inf):
            why = f"'drama' is not a number, 0 or more: {str(d)[:40]}"
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
        raise TabulaError(f"{Pos(str(path), line)}: not a record file of tabula simulate "
                          f"({why}; no line is a game record): --resume writes only to its "
                          "own run's file, and this one was left as it was")
    done: dict = {}
    for n, rec in records:
        i = rec["index"]
        want = {"seed": game_seed(job.seed, i), "spec": game.id, "players": game.players,
                "options": game.options, "spec_hash": game.spec.hash,
                "agents": seat_agents(list(job.names), i, job.rotate)}
        for key, value in want.items():
            if rec.get(key) != value:
                raise TabulaError(f"{Pos(str(path), n)}: this record is from another run ({key} "
                                  f"{rec.get(key)!r}, not {value!r}); resume with the same "
                                  "spec, players, options, agents and seed, or write a new file")
        if "error" not in rec and ("fired" in rec) != job.trace:
            raise TabulaError(f"{Pos(str(path), n)}: this record is from a run "
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

def _write_run(path, resume: bool, job: Job, game, games: int, workers: int, start_method,
               backend: str, address, progress, warn) -> list:
    """The games of a run: those of the file `path` resumed, and the others played, each
    appended to the file in index order as it is done (path None: no file). The caller
    holds the file's lock."""
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
        for rec in _results(job, game, todo, workers, start_method, backend, address):
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
    return records


def run_batch(spec_path, games: int, players: int | None = None, options: dict | None = None,
              agents=None, seed: int = 0, workers: int | None = None, out=None,
              resume: bool = False, progress=None, rotate: bool = False,
              start_method: str | None = None, backend: str = "local",
              address: str | None = None, trace: bool = False,
              strict: bool = False, warn=None, depth: int = 0,
              depth_agents: tuple = DEPTH_AGENTS) -> Summary:
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
    depth: play that many more games (not written to `out`), depth_agents[0] in one
    seat and depth_agents[1] in the others, seats rotated, and tell the strong agent's win
    rate (Summary.depth: docs/simulate.md, strategic depth).
    """
    t0 = time.perf_counter()
    games_count(games, least=0)
    games_count(depth, "--depth", least=0)
    workers = worker_count(workers)
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
    # one writer a file: the file is locked (cmdutil.exclusive) before it is read or
    # written, for the whole run; a second run on it (resumed or not) is refused at once
    # and writes nothing, and the kernel frees the lock of a run that dies
    with ExitStack() as held:
        if path is not None:
            held.enter_context(exclusive(path))
        records = _write_run(path, resume, job, game, games, workers, start_method, backend,
                             address, progress, warn)
    records.sort(key=lambda r: r["index"])
    summary = summarize(records)
    summary.spec_path = str(spec.path) if spec.path else None
    summary.never_fired = never_fired(spec, game, records, trace)
    if depth:
        strong, weak = agent_names(list(depth_agents), 2)
        run = run_batch(spec, depth, players=game.players, options=options,
                        agents=[strong] + [weak] * (game.players - 1), seed=seed,
                        workers=workers, rotate=True, start_method=start_method,
                        backend=backend, address=address, strict=strict)
        summary.depth = depth_figures(run.records, strong, weak)
    summary.seconds = time.perf_counter() - t0
    summary.workers = workers
    return summary


def never_fired(spec: Spec, game, records: list, trace: bool) -> list | None:
    """What no finished game reached (None without one): traced, the ids of rule_ids
    (id'd steps and options, rules, scoring rules) that fired in no game; untraced, the
    rules and steps that ask a decision (chance's too, by their rule_counts name) and
    asked none."""
    ok = [r for r in records if "error" not in r]
    if not ok:
        return None
    if trace:
        ever = set()
        for r in ok:
            ever |= {k for k, v in fired_in(r).items() if v}
        return sorted(set(rule_ids(spec, game.players, game.options)) - ever)
    names = decision_names(game)
    asked = {names.get(d.rule, d.rule) for d in game.prog.decisions}
    taken = {k for r in ok for k, v in r["rule_counts"].items() if v}
    return sorted(asked - taken)


# ---- runs for a check and for a comparison -----------------------------------------------

PLAY_COUNTS = 6     # the most player counts validate --play plays (play_counts)


def play_counts(lo: int, hi: int, most: int = PLAY_COUNTS) -> list:
    """The player counts validate --play plays: every count from lo to hi when there are
    at most `most`; else `most` of them: lo, hi and counts evenly spaced between (2 to 10:
    2, 3, 5, 6, 8, 10), so that a spec for up to 100 players costs six counts' games,
    not 99."""
    if hi - lo + 1 <= most:
        return list(range(lo, hi + 1))
    return [lo + (hi - lo) * i // (most - 1) for i in range(most)]


def play_check(spec: Spec, games: int, seed: int = 1, workers: int | None = None,
               progress=None, strict: bool = False) -> dict:
    """Random games of the player counts play_counts picks from the spec's range (default
    options), traced (and strict, if asked: an empty mandatory choice is then a failed
    game): {"games": n, "players": the counts played, "failed": [records of games whose
    rules failed, with "players"], "never_fired": ids that fired in no game,
    "empty_choices": {decision's rule or step: games in which it came up with nothing to
    choose and no else: (so was skipped)}}. A spec's test by play: a rule error, a game
    that does not end within game.max_steps, or scores that break game.utility, is a
    failed game. progress(done)
    counts the games of all player counts."""
    lo, hi = spec.player_range
    counts = play_counts(lo, hi)
    failed, ids, ever = [], set(), set()
    empty: dict = {}
    played = 0
    for players in counts:
        run = run_batch(spec, games, players=players, seed=seed, workers=workers,
                        trace=True, strict=strict, progress=None if progress is None else
                        (lambda done, before=played: progress(before + done)))
        played += run.games
        ids |= set(rule_ids(spec, players, None))
        utility = spec.utility(spec.game(players))
        for rec in run.records:
            if "error" in rec:
                failed.append(rec)
                continue
            fired = fired_in(rec)         # its rules ran to the end: what fired counts
            ever |= {k for k, v in fired.items() if v}
            for k, v in fired.items():
                if k.startswith("empty:") and v:
                    empty[k[6:]] = empty.get(k[6:], 0) + 1
            if utility is not None:
                try:            # the scores against what game.utility declares
                    utility.check([decode(x) for x in rec["scores"]])
                except RuleError as e:
                    failed.append(dict(rec, error=e.message, error_at=str(e.pos)))
    return {"games": played, "players": counts, "failed": failed,
            "never_fired": sorted(ids - ever), "empty_choices": dict(sorted(empty.items()))}


def _toggle_run(path, error: str, *, games: int, players: int, options: dict, agents,
                rotate: bool, seed: int, workers, backend: str, address, progress):
    """A toggle's (or a mirror's) variant file played as A and B were: (run, "") or
    (None, why it was not played)."""
    if path is None:
        return None, error
    try:
        spec = Spec(path)
    except TabulaError as e:
        return None, "it does not load alone: " + str(e).splitlines()[0]
    try:
        spec.game(players, options)
        return run_batch(spec, games=games, players=players, options=options, agents=agents,
                         rotate=rotate, seed=seed, workers=workers, backend=backend,
                         address=address, progress=progress), ""
    except TabulaError as e:
        return None, "it cannot be played alone: " + str(e).splitlines()[0]


def by_change(spec_a, d: dict, docs: tuple, run_a, whole: list, *, run_b=None, games: int,
              players: int, options: dict, agents, seed: int, workers=None,
              backend: str = "local", address=None, progress=None, rotate: bool = False,
              spec_b=None, options_b: dict | None = None, mirror: bool = True) -> dict:
    """Each change of the rule diff `d` (of the documents `docs`) applied alone to A, as
    a toggle (bychange.toggles), played on the same seeds and bots as A's run `run_a`
    (agents, rotate: as A and B played) and compared with it; and, with mirror (and
    spec_b, B's Spec, and run_b, its run), each toggle's mirror, B with that change
    undone (with B's options: options_b, default options), played likewise and compared
    with B's run. `whole`: the whole variant's metrics, `run_b` its run (for the
    interaction game by game, with an interval). progress(done) counts the games of the
    toggles, then of the mirrors. Returns bychange.result's dict."""
    items = bychange.toggles_of(d, docs)
    mirror = mirror and spec_b is not None and run_b is not None
    kw = dict(games=games, players=players, agents=agents, rotate=rotate, seed=seed,
              workers=workers, backend=backend, address=address)
    rows = []

    def counted(k: int):
        return None if progress is None else (lambda done: progress(k * games + done))
    with tempfile.TemporaryDirectory(prefix="tabula-by-change-") as tmp:
        paths = bychange.write_toggles(spec_a.path, items, Path(tmp))
        for k, (t, path) in enumerate(zip(items, paths)):
            run, error = _toggle_run(path, t.error, options=options, progress=counted(k),
                                     **kw)
            rows.append(bychange.row_of(t, error, run=run, run_a=run_a))
        if mirror:
            folder = Path(tmp) / "mirrors"
            folder.mkdir()
            paths = bychange.write_toggles(spec_b.path, items, folder, mirror=True)
            played: dict = {}             # a mirror's file -> the row (from 1) it was played for
            for k, (t, path, row) in enumerate(zip(items, paths, rows)):
                if path is not None and path in played:
                    row["mirror"] = bychange.mirror_of(t, same_as=played[path])
                    continue
                run, error = _toggle_run(path, t.mirror_error,
                                         options=options if options_b is None else options_b,
                                         progress=counted(len(items) + len(played)), **kw)
                if path is not None:
                    played[path] = k + 1
                row["mirror"] = bychange.mirror_of(t, error, run=run, run_b=run_b)
    return bychange.result(rows, whole, run_a, run_b)


def mirror_count(d: dict, docs: tuple) -> int:
    """The mirrors by_change plays for the diff `d`: one a toggle, those shared once."""
    return len({t.mirror_key for t in bychange.toggles_of(d, docs) if not t.mirror_error})


def compare_variants(spec_a, spec_b, games: int, players: int | None = None,
                     options: dict | None = None, agents=None, seed: int = 0,
                     workers: int | None = None, backend: str = "local",
                     address: str | None = None, progress=None,
                     options_a: dict | None = None,
                     options_b: dict | None = None) -> Comparison:
    """Play games 0..games-1 of A and of B on the same seeds and bots; compare them.

    agents: None for DIFF_AGENTS (a search bot in one seat, greedy in the others, seats
    rotated: diff_lineup), else one bot per seat (or one for all) as run_batch takes them.

    spec_a, spec_b: paths or Specs. Each variant plays with its own options: its
    defaults, then `options` (given to both: an option one of them lacks is an error),
    then its own `options_a` or `options_b`. progress(done) counts the games of both runs
    (0 .. 2 * games).
    """
    if games < 1:
        raise TabulaError(f"--simulate needs 1 game or more, not {games}")
    sa = spec_a if isinstance(spec_a, Spec) else load_spec(spec_a)
    sb = spec_b if isinstance(spec_b, Spec) else load_spec(spec_b)
    opts_a = {**(options or {}), **(options_a or {})}
    opts_b = {**(options or {}), **(options_b or {})}
    game_a = sa.game(players, opts_a)
    game_b = sb.game(game_a.players, opts_b)
    lineup = diff_lineup(agents, game_a.players)
    kw = dict(games=games, players=game_a.players, agents=lineup["agents"],
              rotate=lineup["rotate"], seed=seed, workers=workers, backend=backend,
              address=address, trace=True)
    run_a = run_batch(sa, progress=progress, options=opts_a, **kw)
    run_b = run_batch(sb, progress=None if progress is None else
                      (lambda done: progress(games + done)), options=opts_b, **kw)
    ids_a = rule_ids(sa, game_a.players, game_a.options)
    ids_b = rule_ids(sb, game_b.players, game_b.options)
    # a rule B names otherwise (renamed, or a step moved under another id) is one rule
    same = same_rules(rulings.doc_with(sa, game_a.options),
                      rulings.doc_with(sb, game_b.options))
    metrics, rules, dead, pairs = compare_records(run_a.records, run_b.records, ids_a, ids_b,
                                                  same)
    ids_a = [r for r in ids_a if r not in same.values()]
    ids_b = [r for r in ids_b if r not in same]
    first = next((r for r in run_a.records if "error" not in r), None)
    return Comparison(
        a=sa.id, b=sb.id, games=games, pairs=pairs, players=game_a.players,
        options_a=dict(game_a.options), options_b=dict(game_b.options),
        agents=first["agents"] if first else [],
        bots=bots_played(lineup), seed=seed, failed={"a": run_a.failed, "b": run_b.failed},
        metrics=metrics,
        rules=rules, only_in_a=sorted(set(ids_a) - set(ids_b)),
        only_in_b=sorted(set(ids_b) - set(ids_a)), dead_rules=dead,
        summary_a=run_a, summary_b=run_b)
