"""Two rule variants compared in play: paired games (`tabula diff A B --simulate N`).

Input: two specs, a number of games, players, options, bots and a run seed. Output: a
Comparison: for every metric of a game (win share per seat, first-player advantage,
scores, their spread, the winning margin, game length, branching, how often each rule
fires), its mean under A and under B, the mean difference B - A with a 95% confidence
interval, and whether the interval excludes 0; and the rules of A that never fired.

The design is paired: game i of A and game i of B have the same seed (game_seed(seed,
i)) and the same bots in the same seats, so that the luck of the deal is shared where the
variants consume randomness alike, and the difference of each pair measures the rules.
The interval is Student's t over the n paired differences (n - 1 degrees of freedom);
pairs are independent of each other, whatever the correlation inside a pair. A pair in
which either game failed is left out of the metrics; failures are counted per variant.

"Fires" is counted by games compiled with trace (Spec.game): a step with an id fires when
the game reaches it (an `if` step: when its condition holds), an option when it is
chosen, a rule of `rules:` when it is called (`rule:NAME`), and a scoring rule when it
gives someone a point other than 0 at the end.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field

from .errors import TabulaError
from .simulate import Summary, num_text, run_batch
from .spec import Spec, load_spec
from .values import as_float

# two-sided 95% quantiles of Student's t for 1..30 degrees of freedom
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
         2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
         2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """The two-sided 95% quantile of Student's t with df degrees of freedom (table to 30,
    then the Cornish-Fisher expansion, within 0.001 of the exact value)."""
    if df < 1:
        raise ValueError("t needs at least 1 degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


@dataclass
class Metric:
    """One metric compared: means under A and B, the paired difference and its interval."""
    name: str
    a: float | None
    b: float | None
    diff: float | None
    low: float | None
    high: float | None
    n: int

    @property
    def significant(self) -> bool:
        """The 95% interval of the difference excludes 0."""
        return self.low is not None and (self.low > 0 or self.high < 0)

    def to_dict(self) -> dict:
        return {"name": self.name, "a": self.a, "b": self.b, "diff": self.diff,
                "low": self.low, "high": self.high, "n": self.n,
                "significant": self.significant}


def paired(name: str, a: list, b: list) -> Metric:
    """The metric over pairs (a[i], b[i]): means, mean difference, t interval."""
    n = len(a)
    if n == 0:
        return Metric(name, None, None, None, None, None, 0)
    d = [y - x for x, y in zip(a, b)]
    mean = statistics.fmean(d)
    if n < 2:
        low = high = None
    else:
        half = t975(n - 1) * statistics.stdev(d) / math.sqrt(n)
        low, high = mean - half, mean + half
    return Metric(name, statistics.fmean(a), statistics.fmean(b), mean, low, high, n)


def _win_shares(rec: dict) -> list:
    share = 1.0 / len(rec["winners"]) if rec["winners"] else 0.0
    return [share if s in rec["winners"] else 0.0 for s in range(rec["players"])]


def _game_metrics(rec: dict) -> dict:
    """The numbers of one finished game, by metric name (rules fired apart)."""
    players = rec["players"]
    scores = [as_float(x) for x in rec["scores"]]
    out: dict = {}
    for s, w in enumerate(_win_shares(rec)):
        out[f"win rate, seat {s}"] = w
    out["first-player advantage"] = out["win rate, seat 0"] - 1.0 / players
    for s in range(players):
        out[f"score, seat {s}"] = scores[s]
    out["score, mean of seats"] = statistics.fmean(scores)
    top = sorted(scores, reverse=True)
    out["score spread (best - worst)"] = top[0] - top[-1]
    out["winning margin (best - second)"] = top[0] - top[1] if players > 1 else 0
    out["decisions per game"] = rec["decisions"]
    out["turns per game"] = rec["turns"]
    out["branching"] = rec["legal_actions"] / rec["decisions"] if rec["decisions"] else 0.0
    return out


def fired_in(rec: dict) -> dict:
    """What fired in one game: traced ids, and scoring rules that gave a point."""
    out = dict(rec.get("fired", {}))
    for rid, row in rec.get("points", {}).items():
        if any(row):
            out[f"points:{rid}"] = out.get(f"points:{rid}", 0) + 1
    return out


def play_check(spec: Spec, games: int, seed: int = 1, workers: int | None = None,
               progress=None) -> dict:
    """Random games of every player count the spec allows (default options), traced:
    {"games": n, "failed": [records of games whose rules failed, with "players"],
    "never_fired": ids that fired in no game, "empty_choices": {decision's rule or step:
    games in which it came up with nothing to choose and no else: (so was skipped)}}.
    A spec's test by play: a rule error, or a game that does not end within
    game.max_steps, is a failed game. progress(done) counts the games of all player
    counts."""
    lo, hi = spec.player_range
    failed, ids, ever = [], set(), set()
    empty: dict = {}
    played = 0
    for players in range(lo, hi + 1):
        run = run_batch(spec, games, players=players, seed=seed, workers=workers,
                        trace=True, progress=None if progress is None else
                        (lambda done, before=played: progress(before + done)))
        played += run.games
        ids |= set(rule_ids(spec, players, None))
        for rec in run.records:
            if "error" in rec:
                failed.append(rec)
            else:
                fired = fired_in(rec)
                ever |= {k for k, v in fired.items() if v}
                for k, v in fired.items():
                    if k.startswith("empty:") and v:
                        empty[k[6:]] = empty.get(k[6:], 0) + 1
    return {"games": played, "failed": failed, "never_fired": sorted(ids - ever),
            "empty_choices": dict(sorted(empty.items()))}


def rule_ids(spec: Spec, players: int, options: dict | None) -> list:
    """Every id that can fire in a spec: id'd steps and options, `rule:NAME`, and
    `points:ID` for scoring rules."""
    prog = spec.game(players, options).prog
    ids = set(prog.compiler.step_ids)
    ids |= {f"rule:{name}" for name in prog.procs}
    ids |= {f"points:{rid}" for rid, _ in prog.points}
    return sorted(ids)


@dataclass
class Comparison:
    """Variants A and B compared over paired games (see the module's docstring)."""
    a: str                          # spec ids
    b: str
    games: int
    pairs: int                      # pairs in which both games finished
    players: int
    options: dict
    agents: list
    seed: int
    failed: dict                    # {"a": n, "b": n}
    metrics: list                   # [Metric]: game metrics
    rules: list                     # [Metric]: fires per game, named by id
    only_in_a: list                 # ids that exist in A only
    only_in_b: list
    dead_rules: list                # ids of A that fired in no game of either variant
    summary_a: Summary = field(repr=False, default=None)
    summary_b: Summary = field(repr=False, default=None)

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items()
               if k not in ("metrics", "rules", "summary_a", "summary_b")}
        out["metrics"] = [m.to_dict() for m in self.metrics]
        out["rules"] = [m.to_dict() for m in self.rules]
        out["significant"] = [m.name for m in self.metrics if m.significant]
        out["significant_rules"] = [m.name for m in self.rules if m.significant]
        return json.loads(json.dumps(out))

    def table(self) -> str:
        return format_comparison(self)


def compare_records(recs_a: list, recs_b: list, ids_a: list, ids_b: list) -> tuple:
    """(metrics, rules, dead rules, pairs) from the records of the two runs (same
    indices, same seeds)."""
    by_index = {r["index"]: r for r in recs_b}
    pairs = [(ra, by_index[ra["index"]]) for ra in recs_a
             if ra["index"] in by_index and "error" not in ra
             and "error" not in by_index[ra["index"]]]
    values_a: dict = {}
    values_b: dict = {}
    for ra, rb in pairs:
        ma, mb = _game_metrics(ra), _game_metrics(rb)
        for name in ma:
            if name in mb:
                values_a.setdefault(name, []).append(ma[name])
                values_b.setdefault(name, []).append(mb[name])
    metrics = [paired(name, values_a[name], values_b[name]) for name in values_a]

    fired_a = [fired_in(ra) for ra, _ in pairs]
    fired_b = [fired_in(rb) for _, rb in pairs]
    rules = [paired(rid, [f.get(rid, 0) for f in fired_a],
                    [f.get(rid, 0) for f in fired_b])
             for rid in sorted(set(ids_a) | set(ids_b))]
    ever = set()
    for r in recs_a + recs_b:
        if "error" not in r:
            ever |= {k for k, v in fired_in(r).items() if v}
    dead = [rid for rid in ids_a if rid not in ever]
    return metrics, rules, dead, len(pairs)


def compare_variants(spec_a, spec_b, games: int, players: int | None = None,
                     options: dict | None = None, agents=None, seed: int = 0,
                     workers: int | None = None, backend: str = "local",
                     address: str | None = None, progress=None) -> Comparison:
    """Play games 0..games-1 of A and of B on the same seeds and bots; compare them.

    spec_a, spec_b: paths or Specs. options: given to both (an option one of them lacks
    is an error). progress(done) counts the games of both runs (0 .. 2 * games).
    """
    if games < 1:
        raise TabulaError(f"--simulate needs 1 game or more, not {games}")
    sa = spec_a if isinstance(spec_a, Spec) else load_spec(spec_a)
    sb = spec_b if isinstance(spec_b, Spec) else load_spec(spec_b)
    game_a = sa.game(players, options)
    game_b = sb.game(game_a.players, options)
    kw = dict(games=games, players=game_a.players, options=options, agents=agents,
              seed=seed, workers=workers, backend=backend, address=address, trace=True)
    run_a = run_batch(sa, progress=progress, **kw)
    run_b = run_batch(sb, progress=None if progress is None else
                      (lambda done: progress(games + done)), **kw)
    ids_a = rule_ids(sa, game_a.players, game_a.options)
    ids_b = rule_ids(sb, game_b.players, game_b.options)
    metrics, rules, dead, pairs = compare_records(run_a.records, run_b.records, ids_a, ids_b)
    first = next((r for r in run_a.records if "error" not in r), None)
    return Comparison(
        a=sa.id, b=sb.id, games=games, pairs=pairs, players=game_a.players,
        options=dict(game_a.options), agents=first["agents"] if first else [],
        seed=seed, failed={"a": run_a.failed, "b": run_b.failed}, metrics=metrics,
        rules=rules, only_in_a=sorted(set(ids_a) - set(ids_b)),
        only_in_b=sorted(set(ids_b) - set(ids_a)), dead_rules=dead,
        summary_a=run_a, summary_b=run_b)


def _row(m: Metric, width: int) -> str:
    interval = ("" if m.low is None else f"[{m.low:+.3f}, {m.high:+.3f}]")
    return (f"  {m.name:<{width}}  {num_text(m.a, '9.3f')}  {num_text(m.b, '9.3f')}  "
            f"{num_text(m.diff, '+9.3f')}  {interval:<20} {'*' if m.significant else ''}")


def format_comparison(c: Comparison) -> str:
    """A comparison as text: metrics side by side, the rules whose firing changed
    significantly, the rules of one variant only, the dead rules."""
    opts = ", ".join(f"{k}={v}" for k, v in c.options.items()) or "none"
    out = [f"in play: {c.a} (A) against {c.b} (B), {c.games} paired games "
           f"(seed {c.seed}), {c.players} players, options {opts}",
           f"bots by seat: {', '.join(c.agents)}; failed games: A {c.failed['a']}, "
           f"B {c.failed['b']}; pairs compared: {c.pairs}"]
    shown = [m for m in c.rules if m.significant]
    width = max([len(m.name) for m in c.metrics + shown] + [6])
    head = (f"  {'metric':<{width}}  {'A':>9}  {'B':>9}  {'B - A':>9}  "
            f"{'95% interval':<20}")
    out += ["", head] + [_row(m, width) for m in c.metrics]
    quiet = len(c.rules) - len(shown)
    out += ["", "rules whose firing changed (fires per game):" if shown else
            "no rule's firing changed significantly"]
    out += [_row(m, width) for m in shown]
    if shown and quiet:
        out.append(f"  ({quiet} other rules: no significant change)")
    out.append("")
    out.append("* the 95% interval of the paired difference (Student's t) excludes 0")
    if c.only_in_a or c.only_in_b:
        out.append(f"only in A: {', '.join(c.only_in_a) or 'none'}")
        out.append(f"only in B: {', '.join(c.only_in_b) or 'none'}")
    out.append(f"dead rules (of A, fired in no game of either variant): "
               f"{', '.join(c.dead_rules) or 'none'}")
    return "\n".join(out)
