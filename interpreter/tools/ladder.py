"""Agents rated against each other (`tabula ladder`): a round robin of seatings, a
Bradley-Terry fit with 95% intervals, pairwise win rates, win rates by seat, CPU time.

Input: a spec (path or Spec), agent names (two or more, each once), games per table,
players, options, a run seed, workers; the seed function of the runs (simulate.game_seed,
given by the command line: this module plays bots, so it may not import the runner).
Output: a Ladder (ratings, pairs, seats, per-agent CPU seconds per decision), its text
table, its JSON object and an SVG plot of the ratings.

The schedule (docs/simulate.md, "Ladder"): a table is a set of `players` distinct agents,
every combination of them (for 2 players: every pair); each table plays `games` games,
rounded up to a multiple of `players`, and game g of a table seats its agents rotated by
g (seat s gets table[(s + g) % players]), so every agent of a table sits in every seat
equally often. Games are numbered over the whole schedule (tables in order, then games)
and game i is played with game_seed(seed, i), as simulate plays its game i: the result is
a pure function of (spec, players, options, agents, games, seed), whatever the workers.
Only the CPU seconds (time.process_time around each agent.act) vary from run to run.

A game is scored pairwise: for two agents at one table, the one in the better place wins
(1), an equal place is half each. Places: winners first, then by score; a shared win or
a game without winners is equal for those sharing it. Bradley-Terry strengths are fitted
to the pairwise scores by Hunter's MM algorithm (2004), with one virtual drawn game per
pair of agents (a prior that keeps an agent that never won or never lost finite), and
reported on the Elo scale (400 log10 of the strength ratio) with mean 0. The 95%
intervals come from the Fisher information of the fit (its pseudo-inverse under the
mean-0 constraint): rating +- 1.96 standard errors.
"""

from __future__ import annotations

import gc
import itertools
import json
import math
import time
from dataclasses import dataclass, field

from ..bots.agents import make_agent, play_game
from ..errors import TabulaError
from ..runtime.values import as_float, encode
from ..spec import Spec, load_spec
from .cmdutil import games_count, guided_chunks, pool_context, worker_count, writing
from .stats import Z95, wilson

ELO = 400 / math.log(10)     # Elo points per natural-log unit of strength
PRIOR_GAMES = 1.0            # virtual drawn games per pair of agents
MAX_ITERATIONS = 10_000
TOLERANCE = 1e-10
MAX_CHUNK = 16


# ---- the schedule -----------------------------------------------------------------------

def tables(agents: list, players: int) -> list:
    """Every combination of `players` distinct agents, in the order the agents are named."""
    return [list(t) for t in itertools.combinations(agents, players)]


def per_table(games: int, players: int) -> int:
    """Games per table: `games` rounded up to a multiple of the players (every seat)."""
    return -(-games // players) * players


def seating(agents: list, players: int, games: int, index: int) -> list:
    """The agents by seat of game `index` of the schedule."""
    n = per_table(games, players)
    table = tables(agents, players)[index // n]
    k = (index % n) % players
    return table[k:] + table[:k]


# ---- one game ---------------------------------------------------------------------------

class _Timed:
    """An agent whose decisions are counted and timed (CPU seconds of this process)."""

    __slots__ = ("agent", "name", "seconds", "decisions")

    def __init__(self, agent):
        self.agent, self.name, self.seconds, self.decisions = agent, agent.name, 0.0, 0

    def act(self, view):
        t = time.process_time()
        try:
            return self.agent.act(view)
        finally:
            self.seconds += time.process_time() - t
            self.decisions += 1


def play_one(game, index: int, seed: int, names: list) -> dict:
    """Game `index` of a ladder, played with seed `seed`: its record (index, seed, agents
    by seat, scores, winners, decisions and CPU seconds by seat), or an `error` record."""
    rec: dict = {"index": index, "seed": seed, "agents": list(names)}
    seats = [_Timed(make_agent(n)) for n in names]
    try:
        res = play_game(game, seed, seats, record=False)
    except TabulaError as e:
        rec["error"] = str(e)
        return rec
    rec["scores"] = encode(res["scores"])
    rec["winners"] = list(res["winners"])
    rec["decisions"] = [a.decisions for a in seats]
    rec["seconds"] = [a.seconds for a in seats]
    return rec


def pair_scores(rec: dict) -> list:
    """[(agent x, agent y, x's score against y)] for every pair at the game's table."""
    scores = [as_float(s) for s in rec["scores"]]
    winners = set(rec["winners"])
    place = [(s in winners, scores[s]) for s in range(len(scores))]
    out = []
    for i, j in itertools.combinations(range(len(scores)), 2):
        x = 1.0 if place[i] > place[j] else 0.0 if place[i] < place[j] else 0.5
        out.append((rec["agents"][i], rec["agents"][j], x))
    return out


# ---- workers (the scheme of simulate's pool: fork on Linux, chunks, results by index) -----

@dataclass(frozen=True)
class _Job:
    spec: Spec
    players: int
    options: dict
    agents: tuple
    games: int
    seeds: tuple                 # the seed of every game of the schedule


_GAME = None                     # a worker process's (job, game), never the parent's


def _init(job: _Job) -> None:
    global _GAME
    _GAME = (job, job.spec.game(job.players, job.options))


def _play(indices: list) -> list:
    assert _GAME is not None, "a pool worker without its initializer"
    job, game = _GAME
    return [play_one(game, i, job.seeds[i],
                     seating(list(job.agents), job.players, job.games, i)) for i in indices]


def _records(job: _Job, game, total: int, workers: int, progress=None) -> list:
    done: dict = {}
    if workers <= 1 or total <= 1:
        for i in range(total):
            done[i] = play_one(game, i, job.seeds[i],
                               seating(list(job.agents), job.players, job.games, i))
            if progress is not None:
                progress(len(done))
        return [done[i] for i in range(total)]
    chunks = guided_chunks(list(range(total)), workers, MAX_CHUNK)
    ctx = pool_context()
    gc.freeze()
    try:
        pool = ctx.Pool(min(workers, len(chunks)), initializer=_init, initargs=(job,))
    finally:
        gc.unfreeze()
    with pool:
        for recs in pool.imap_unordered(_play, chunks):
            for r in recs:
                done[r["index"]] = r
            if progress is not None:
                progress(len(done))
    return [done[i] for i in range(total)]


# ---- Bradley-Terry ----------------------------------------------------------------------

def bradley_terry(agents: list, results: list, prior: float = PRIOR_GAMES) -> dict:
    """Elo-scale ratings (mean 0) and their standard errors from pairwise results
    [(x, y, x's score against y in [0, 1])], with `prior` virtual drawn games per pair:
    {"rating": {agent: r}, "se": {agent: se}, "cov": [[...]] (Elo units, agents' order)}.
    Fitted by MM (Hunter 2004): p_i <- W_i / sum_j n_ij / (p_i + p_j)."""
    k = len(agents)
    at = {a: i for i, a in enumerate(agents)}
    n = [[0.0] * k for _ in range(k)]
    w = [0.0] * k
    for x, y, s in results:
        i, j = at[x], at[y]
        n[i][j] += 1
        n[j][i] += 1
        w[i] += s
        w[j] += 1 - s
    for i, j in itertools.combinations(range(k), 2):
        n[i][j] += prior
        n[j][i] += prior
        w[i] += prior / 2
        w[j] += prior / 2
    p = [1.0] * k
    for _ in range(MAX_ITERATIONS):
        new = []
        for i in range(k):
            d = sum(n[i][j] / (p[i] + p[j]) for j in range(k) if j != i and n[i][j])
            new.append(w[i] / d if d else p[i])
        g = math.exp(sum(math.log(x) for x in new) / k)    # geometric mean 1
        new = [x / g for x in new]
        change = max(abs(math.log(a / b)) for a, b in zip(new, p))
        p = new
        if change < TOLERANCE:
            break
    theta = [math.log(x) for x in p]
    # the Fisher information of theta (a Laplacian: its null space is the common shift)
    info = [[0.0] * k for _ in range(k)]
    for i, j in itertools.combinations(range(k), 2):
        if n[i][j]:
            q = p[i] / (p[i] + p[j])
            v = n[i][j] * q * (1 - q)
            info[i][j] -= v
            info[j][i] -= v
            info[i][i] += v
            info[j][j] += v
    # the pseudo-inverse under sum(theta) = 0: inv(L + J/k) - J/k
    shifted = [[info[i][j] + 1 / k for j in range(k)] for i in range(k)]
    inv = _inverse(shifted)
    cov = [[(inv[i][j] - 1 / k) * ELO * ELO for j in range(k)] for i in range(k)]
    return {"rating": {a: theta[i] * ELO for i, a in enumerate(agents)},
            "se": {a: math.sqrt(max(0.0, cov[i][i])) for i, a in enumerate(agents)},
            "cov": cov}


def _inverse(m: list) -> list:
    """The inverse of a small non-singular matrix (Gauss-Jordan, partial pivoting)."""
    k = len(m)
    a = [list(row) + [1.0 if i == j else 0.0 for j in range(k)] for i, row in enumerate(m)]
    for c in range(k):
        piv = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[piv] = a[piv], a[c]
        d = a[c][c]
        a[c] = [x / d for x in a[c]]
        for r in range(k):
            if r != c and a[r][c]:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [row[k:] for row in a]


# ---- the ladder -------------------------------------------------------------------------

@dataclass
class Ladder:
    spec: str
    spec_hash: str | None
    players: int
    options: dict
    agents: list                 # as named (each as its agent calls itself)
    seed: int
    games_per_table: int
    tables: list
    games: int
    failed: int
    ratings: list                # sorted by rating, best first
    pairs: list
    seats: list
    errors: dict = field(default_factory=dict)
    workers: int | None = None
    seconds: float | None = None

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k not in ("workers", "seconds")}
        out["schema"] = "tabula-ladder/1"
        out["method"] = {"model": "bradley-terry", "fit": "mm (Hunter 2004)",
                         "scale": "elo (400 log10), mean 0", "prior_draws_per_pair": PRIOR_GAMES,
                         "interval": "95%, rating +- 1.96 se (Fisher information)",
                         "pair_interval": "95% Wilson", "seeds": "game_seed(seed, index)"}
        out["timing"] = {"workers": self.workers, "seconds": self.seconds}
        return json.loads(json.dumps(out))

    def table(self) -> str:
        return format_ladder(self)


def run_ladder(spec_path, agents, games: int, game_seed, players: int | None = None,
               options: dict | None = None, seed: int = 1, workers: int | None = None,
               progress=None) -> Ladder:
    """Play the ladder's schedule and rate the agents. agents: 'a,b,c' or a list;
    games: games per table (rounded up to a multiple of the players); game_seed(seed,
    index): the seed of each game (simulate.game_seed). progress(total), if given, is
    called once the schedule is known and returns what is called with the games done."""
    t0 = time.perf_counter()
    names = [a.strip() for a in agents.split(",")] if isinstance(agents, str) else \
        [str(a).strip() for a in (agents or [])]
    if len(names) < 2 or not all(names):
        raise TabulaError("a ladder needs 2 agents or more, each named: --agents A,B[,C...]"
                          f" (given: {','.join(names) or 'none'})")
    names = [make_agent(n).name for n in names]          # an unknown name fails here
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TabulaError(f"agent {twice[0]} is named twice; a ladder rates distinct agents")
    games_count(games)
    workers = worker_count(workers)
    spec = spec_path if isinstance(spec_path, Spec) else load_spec(spec_path)
    game = spec.game(players, options)
    p = game.players
    if p < 2:
        raise TabulaError(f"a ladder needs a game of 2 players or more, not {p}")
    if len(names) < p:
        raise TabulaError(f"a {p}-player ladder needs {p} agents or more (each table seats "
                          f"{p} distinct agents), not {len(names)}")
    n = per_table(games, p)
    total = n * len(tables(names, p))
    job = _Job(spec, p, dict(game.options), tuple(names), games,
               tuple(game_seed(int(seed), i) for i in range(total)))
    records = _records(job, game, total, workers,
                       None if progress is None else progress(total))
    out = summarize_ladder(records, names, p)
    return Ladder(spec=spec.id, spec_hash=spec.hash, players=p, options=dict(game.options),
                  agents=names, seed=int(seed), games_per_table=n,
                  tables=tables(names, p), workers=workers,
                  seconds=time.perf_counter() - t0, **out)


def summarize_ladder(records: list, names: list, players: int) -> dict:
    """The ratings, pairs, seats, failed games and errors of a ladder's records."""
    ok = [r for r in records if "error" not in r]
    results = [x for r in ok for x in pair_scores(r)]
    bt = bradley_terry(names, results)
    games = {a: 0 for a in names}
    wins = {a: 0.0 for a in names}
    seat_games = {a: [0] * players for a in names}
    seat_wins = {a: [0.0] * players for a in names}
    decisions = {a: 0 for a in names}
    seconds = {a: 0.0 for a in names}
    all_games, all_wins = [0] * players, [0.0] * players
    for r in ok:
        share = 1.0 / len(r["winners"]) if r["winners"] else 0.0
        for s, a in enumerate(r["agents"]):
            won = share if s in r["winners"] else 0.0
            games[a] += 1
            wins[a] += won
            seat_games[a][s] += 1
            seat_wins[a][s] += won
            all_games[s] += 1
            all_wins[s] += won
            decisions[a] += r["decisions"][s]
            seconds[a] += r["seconds"][s]
    ratings = []
    for a in names:
        r, se = bt["rating"][a], bt["se"][a]
        ratings.append({
            "agent": a, "rating": r, "low": r - Z95 * se, "high": r + Z95 * se, "se": se,
            "games": games[a], "win_rate": wins[a] / games[a] if games[a] else None,
            "win_rate_by_seat": [seat_wins[a][s] / seat_games[a][s] if seat_games[a][s]
                                 else None for s in range(players)],
            "games_by_seat": seat_games[a], "decisions": decisions[a],
            "cpu_per_decision": seconds[a] / decisions[a] if decisions[a] else None})
    ratings.sort(key=lambda x: (-x["rating"], names.index(x["agent"])))
    met: dict = {}               # (x, y) in the agents' order -> [games, x's score]
    for a, b, s in results:
        key, x_score = ((a, b), s) if names.index(a) < names.index(b) else ((b, a), 1 - s)
        row = met.setdefault(key, [0, 0.0])
        row[0] += 1
        row[1] += x_score
    pairs = []
    for x, y in itertools.combinations(names, 2):
        n, sc = met.get((x, y), [0, 0.0])
        lo, hi = wilson(sc, n)
        pairs.append({"a": x, "b": y, "games": n, "a_score": sc,
                      "a_rate": sc / n if n else None, "low": lo, "high": hi})
    seats = []
    for s in range(players):
        lo, hi = wilson(all_wins[s], all_games[s])
        seats.append({"seat": s, "win_rate": all_wins[s] / all_games[s] if all_games[s]
                      else None, "low": lo, "high": hi, "games": all_games[s]})
    errors: dict = {}
    for r in records:
        if "error" in r:
            errors[r["error"]] = errors.get(r["error"], 0) + 1
    return {"games": len(records), "failed": len(records) - len(ok), "ratings": ratings,
            "pairs": pairs, "seats": seats, "errors": errors}


# ---- output -----------------------------------------------------------------------------

def _num(x, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def format_ladder(lad: Ladder) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in lad.options.items()) or "none"
    head = (f"{lad.spec}: ladder of {len(lad.agents)} agents, {lad.players} players, "
            f"{len(lad.tables)} table{'s' if len(lad.tables) != 1 else ''} x "
            f"{lad.games_per_table} games (seats rotated) = "
            f"{lad.games} games, {lad.failed} failed, seed {lad.seed}")
    if lad.seconds is not None:
        head += f", {lad.seconds:.1f} s on {lad.workers} worker" + \
            ("s" if lad.workers != 1 else "")
    out = [head, f"options {opts}", "",
           "Bradley-Terry ratings (Elo scale, mean 0; 95% interval):"]
    w = max([len(r["agent"]) for r in lad.ratings] + [5])
    seats = "  ".join(f"{'seat ' + str(s):>6}" for s in range(lad.players))
    out.append(f"  {'#':>2}  {'agent':<{w}}  {'rating':>7}  {'95% interval':<17}  "
               f"{'games':>5}  {'win':>5}  {seats}  {'decisions':>9}  {'cpu/decision':>12}")
    for k, r in enumerate(lad.ratings, 1):
        iv = f"[{r['low']:+.0f}, {r['high']:+.0f}]"
        by = "  ".join(f"{_num(x, '.3f'):>6}" for x in r["win_rate_by_seat"])
        cpu = "-" if r["cpu_per_decision"] is None else f"{r['cpu_per_decision'] * 1e3:.3f} ms"
        out.append(f"  {k:>2}  {r['agent']:<{w}}  {r['rating']:>+7.0f}  {iv:<17}  "
                   f"{r['games']:>5}  {_num(r['win_rate'], '.3f'):>5}  {by}  "
                   f"{r['decisions']:>9}  {cpu:>12}")
    out += ["", "pairs (A's score against B: a win 1, a draw or shared place 1/2; 95% Wilson):"]
    for p in lad.pairs:
        out.append(f"  {p['a']:<{w}} vs {p['b']:<{w}}  {p['a_score']:>7.1f} / {p['games']:<5}"
                   f"  {_num(p['a_rate'], '.3f'):>5}  [{p['low']:.3f}, {p['high']:.3f}]")
    out += ["", "win rate by seat: " + ", ".join(
        f"{s['seat']}: {_num(s['win_rate'], '.3f')} [{s['low']:.3f}, {s['high']:.3f}]"
        for s in lad.seats)]
    if lad.errors:
        out += ["", "failed games"]
        out += [f"  {n:>5}  {msg}" for msg, n in sorted(lad.errors.items(), key=lambda kv: -kv[1])]
    return "\n".join(out)


def _x(text) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def to_svg(lad: Ladder) -> str:
    """The ratings and their 95% intervals as a self-contained SVG (a forest plot, best on
    top), the same text for the same ladder."""
    rows = lad.ratings
    lo = min(min(r["low"] for r in rows), 0.0)
    hi = max(max(r["high"] for r in rows), 0.0)
    span = max(hi - lo, 1.0)
    lo, hi = lo - 0.05 * span, hi + 0.05 * span
    left, width, top, step = 170, 420, 40, 28
    height = top + step * len(rows) + 40

    def px(v: float) -> float:
        return round(left + (v - lo) / (hi - lo) * width, 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" '
             f'height="{height}" viewBox="0 0 {left + width + 30} {height}" '
             'font-family="sans-serif" font-size="12" role="img" '
             f'aria-label="{_x(lad.spec)}: ladder ratings">',
             f'<text x="10" y="20" font-size="14">{_x(lad.spec)}: Bradley-Terry ratings '
             f'(Elo, mean 0), 95% intervals, {lad.games} games</text>',
             f'<line x1="{px(0)}" y1="{top - 10}" x2="{px(0)}" y2="{height - 30}" '
             'stroke="#999" stroke-dasharray="4 3"/>']
    for k, r in enumerate(rows):
        y = top + step * k + step / 2
        parts.append(f'<text x="{left - 10}" y="{y + 4}" text-anchor="end">{_x(r["agent"])}'
                     '</text>')
        parts.append(f'<line x1="{px(r["low"])}" y1="{y}" x2="{px(r["high"])}" y2="{y}" '
                     'stroke="#1f77b4" stroke-width="2"/>')
        parts.append(f'<circle cx="{px(r["rating"])}" cy="{y}" r="4" fill="#1f77b4"/>')
        parts.append(f'<text x="{px(r["high"]) + 6}" y="{y + 4}" fill="#555">'
                     f'{r["rating"]:+.0f}</text>')
    axis = height - 30
    parts.append(f'<line x1="{left}" y1="{axis}" x2="{left + width}" y2="{axis}" '
                 'stroke="#333"/>')
    tick = 10 ** math.floor(math.log10(span / 2)) if span > 2 else 1
    while (hi - lo) / tick > 8:
        tick *= 2
    v = math.ceil(lo / tick) * tick
    while v <= hi:
        parts.append(f'<line x1="{px(v)}" y1="{axis}" x2="{px(v)}" y2="{axis + 4}" '
                     'stroke="#333"/>')
        label = f"{v:+g}" if v else "0"
        parts.append(f'<text x="{px(v)}" y="{axis + 16}" text-anchor="middle">{label}</text>')
        v += tick
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _html_table(head: list, rows: list) -> str:
    th = "".join(f"<th>{_x(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_x(c)}</td>" for c in row) + "</tr>\n"
                   for row in rows)
    return f"<table>\n<tr>{th}</tr>\n{body}</table>"


def to_html(lad: Ladder) -> str:
    """The ladder as one self-contained HTML page (no script, nothing loaded): the run,
    the ratings, the pairs, the seats and the plot; every string escaped."""
    seats = [f"seat {s}" for s in range(lad.players)]
    ratings = [[k, r["agent"], f"{r['rating']:+.0f}", f"[{r['low']:+.0f}, {r['high']:+.0f}]",
                r["games"], _num(r["win_rate"], ".3f"),
                *(_num(x, ".3f") for x in r["win_rate_by_seat"]), r["decisions"],
                "-" if r["cpu_per_decision"] is None else
                f"{r['cpu_per_decision'] * 1e3:.3f} ms"]
               for k, r in enumerate(lad.ratings, 1)]
    pairs = [[p["a"], p["b"], f"{p['a_score']:.1f} / {p['games']}", _num(p["a_rate"], ".3f"),
              f"[{p['low']:.3f}, {p['high']:.3f}]"] for p in lad.pairs]
    by_seat = [[s["seat"], _num(s["win_rate"], ".3f"), f"[{s['low']:.3f}, {s['high']:.3f}]",
                s["games"]] for s in lad.seats]
    opts = ", ".join(f"{k}={v}" for k, v in lad.options.items()) or "none"
    failed = "".join(f"<li>{n} &times; {_x(m)}</li>" for m, n in lad.errors.items())
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_x(lad.spec)}: ladder</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;"
        "text-align:right}svg{max-width:100%;height:auto}</style></head><body>",
        f"<h1>{_x(lad.spec)}: agents rated against each other</h1>",
        f"<p>{len(lad.agents)} agents ({_x(', '.join(lad.agents))}), {lad.players} players, "
        f"options {_x(opts)}; {len(lad.tables)} tables &times; {lad.games_per_table} games "
        f"with the seats rotated = {lad.games} games, {lad.failed} failed; seed {lad.seed}. "
        "Bradley-Terry ratings on the Elo scale (mean 0) with 95% intervals from the "
        "Fisher information; one virtual drawn game per pair.</p>",
        "<h2>Ratings</h2>", _html_table(
            ["#", "agent", "rating", "95% interval", "games", "win", *seats, "decisions",
             "cpu/decision"], ratings),
        to_svg(lad),
        "<h2>Pairs</h2><p>A's score against B: a win 1, a draw or shared place 1/2; "
        "95% Wilson interval.</p>",
        _html_table(["A", "B", "score", "rate", "95% interval"], pairs),
        "<h2>Seats</h2>", _html_table(["seat", "win rate", "95% interval", "games"], by_seat),
        *([f"<h2>Failed games</h2><ul>{failed}</ul>"] if failed else []),
        "</body></html>", ""])


def _write(path, text: str) -> None:
    with writing(path):
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


def write_svg(lad: Ladder, path) -> None:
    _write(path, to_svg(lad))


def write_html(lad: Ladder, path) -> None:
    _write(path, to_html(lad))
