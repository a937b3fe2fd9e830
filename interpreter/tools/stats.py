"""Statistics over game records: intervals and tests (Wilson, Student's t, Holm), the
Summary of a run (win rates by seat, by agent and by place, scores, lengths, branching,
rules taken, points by rule, the designer's metrics: margin, lead changes, drama,
strategic depth) and its text table.

Input: game records (dicts as simulate.run_batch writes them) or lists of numbers.
Output: numbers, intervals, a Summary, text. Pure: no spec, no game, no file is read here,
so that the runner (simulate), the comparison (compare) and the report all share it.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field

from ..runtime.values import as_float

Z95 = 1.959963984540054          # the normal quantile of a two-sided 95% interval
PERCENTILES = (10, 50, 90)


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
    # designer's metrics (docs/simulate.md): over the finished games whose record has the
    # figure (records of older runs lack lead_changes, drama and legal_max)
    margin: dict = field(default_factory=dict)          # {mean, low, high, games}
    lead_changes: dict = field(default_factory=dict)    # {mean, low, high, max, games}
    drama: dict = field(default_factory=dict)   # {mean, low, high, max, comeback, .., games}
    max_branching: int | None = None                    # most legal actions at a decision
    never_fired: list | None = None             # ids reached in no game (traced runs)
    depth: dict | None = None                   # strategic depth (simulate --depth)
    records: list = field(default_factory=list, repr=False)
    seconds: float | None = None
    workers: int | None = None
    # where the spec was read (its path, or a shipped game's name): the report's example
    # games name it in their commands; not part of the figures (to_dict leaves it out)
    spec_path: str | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items()
               if k not in ("records", "spec_path")
               and not (k in ("seconds", "workers") and v is None)}
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
        **designer_metrics(ok), records=list(records))


def winning_margin(rec: dict) -> float:
    """The best score minus the second best (0 with one player)."""
    top = sorted((as_float(x) for x in rec["scores"]), reverse=True)
    return top[0] - top[1] if len(top) > 1 else 0.0


def _interval_of(values: list) -> dict:
    mean, lo, hi = mean_interval(values)
    return {"mean": mean, "low": lo, "high": hi, "games": len(values)}


def designer_metrics(ok: list) -> dict:
    """The designer's metrics of finished games (docs/simulate.md, Designer's metrics):
    the winning margin, lead changes and drama (each a mean with its 95% t interval),
    the comeback share (games whose winner was ever behind, Wilson interval) and the
    most legal actions at one decision."""
    changes = [r["lead_changes"] for r in ok if "lead_changes" in r]
    drama = [float(r["drama"]) for r in ok if "drama" in r]
    lead = _interval_of(changes)
    lead["max"] = max(changes, default=None)
    dr = _interval_of(drama)
    dr["max"] = max(drama, default=None)
    behind = sum(1 for d in drama if d > 0)
    lo, hi = wilson(behind, len(drama))
    dr.update(comeback=behind / len(drama) if drama else None,
              comeback_low=lo if drama else None, comeback_high=hi if drama else None)
    most = [r["legal_max"] for r in ok if "legal_max" in r]
    return {"margin": _interval_of([winning_margin(r) for r in ok]), "lead_changes": lead,
            "drama": dr, "max_branching": max(most, default=None)}


def depth_figures(records: list, strong: str, weak: str) -> dict:
    """Strategic depth: the strong agent's win rate over the finished games of a run
    that seats it against the weak one (a shared win counts 1/k), with its 95% Wilson
    interval and its fair share (1/players), by seat played."""
    ok = [r for r in records if "error" not in r]
    wins = seats = 0.0
    fair = 0.0
    for r in ok:
        share = 1.0 / len(r["winners"]) if r["winners"] else 0.0
        mine = [s for s, a in enumerate(r["agents"]) if a == strong]
        seats += len(mine)
        fair += len(mine) / r["players"]
        wins += share * sum(1 for s in mine if s in r["winners"])
    n = len(ok)
    lo, hi = wilson(wins, n)
    return {"strong": strong, "weak": weak, "games": len(records), "finished": n,
            "rate": wins / n if n else None, "low": lo, "high": hi,
            "fair": fair / n if n else None}


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


def _mean_line(label: str, x: dict, fmt: str = ".2f") -> str:
    if not x or x.get("mean") is None:
        return f"{label:<24}-  (not in these records: an older tabula's)"
    return (f"{label:<24}{format(x['mean'], fmt)} {_pair(x['low'], x['high'], fmt)}".rstrip()
            + ("" if x.get("max") is None else f"  (max {x['max']})"
               if isinstance(x["max"], int) else f"  (max {format(x['max'], fmt)})"))


def designer_lines(s: Summary) -> list:
    """The designer's metrics' lines of the text table (docs/simulate.md)."""
    out = ["designer's metrics (docs/simulate.md)",
           _mean_line("winning margin", s.margin),
           _mean_line("lead changes", s.lead_changes),
           _mean_line("drama", s.drama)]
    d = s.drama
    if d and d.get("comeback") is not None:
        out.append(f"{'comeback share':<24}{d['comeback']:.3f} "
                   f"[{d['comeback_low']:.3f}, {d['comeback_high']:.3f}]  (the winner was "
                   "behind at some round)")
    if s.depth is not None:
        x = s.depth
        out.append(f"{'strategic depth':<24}{num_text(x['rate'])} "
                   f"[{x['low']:.3f}, {x['high']:.3f}]  ({x['strong']}'s win rate against "
                   f"{x['weak']}, fair {num_text(x['fair'])}; {x['finished']} games)")
    if s.never_fired is not None:
        out.append(f"{'never fired':<24}" + (", ".join(s.never_fired) if s.never_fired
                                            else "none (every id fired in some game)"))
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
        bots, rotated = r0.get("agents", []), any(r.get("agents") != r0.get("agents")
                                                  for r in s.records)
        out.append(f"{r0.get('players')} players, options {opts}, bots by seat "
                   f"{', '.join(bots)}" + (" in game 0 (seats rotated)" if rotated else ""))
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
        out.append(f"mean branching          {num_text(s.mean_branching, '.2f')}"
                   + (f"  (max {s.max_branching})" if s.max_branching is not None else ""))
        out.append("")
        out += designer_lines(s)
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
