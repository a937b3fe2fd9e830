"""Two rule variants compared in play: paired games (`tabula diff A B --simulate N`).

Input: the records of two runs on the same seeds and bots (simulate.compare_variants
plays them). Output: a Comparison: for every metric of a game (win share per seat, the first
player's advantage, scores, their spread, the winning margin, the points of each scoring
rule per seat, game length, branching, how often each rule fires), its mean under A and
under B, the mean difference B - A with a 95% confidence interval, the paired t-test's
p-value and its Holm adjustment, effect sizes (Cohen's d and dz, h for win rates); a
verdict in plain words; and the rules of A that never fired.

The design is paired: game i of A and game i of B have the same seed (game_seed(seed,
i)) and the same bots in the same seats, so that the luck of the deal is shared where the
variants consume randomness alike, and the difference of each pair measures the rules.
The interval is Student's t over the n paired differences (n - 1 degrees of freedom);
pairs are independent of each other, whatever the correlation inside a pair. The same
differences give the two-sided paired t-test. A metric is significant when its p-value
after Holm's step-down correction is below 5%: over the game metrics as one family, and
over the rules' fires per game as another, so that the chance of calling any unchanged
metric of a family changed stays at most 5% (see docs/simulate.md for why Holm). A pair
in which either game failed is left out of the metrics; failures are counted per variant.

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

from ..runtime.values import as_float
from .stats import Summary, holm, num_text, t975, t_p_value, winning_margin

__all__ = ["ALPHA", "Comparison", "Metric", "bots_played", "bots_text", "compare_records",
           "fired_in", "holm", "paired", "rule_ids", "t975", "verdict"]

ALPHA = 0.05          # the family-wise error rate of the Holm correction
FEW_PAIRS = 30        # below this the verdict warns that small changes go unseen


@dataclass
class Metric:
    """One metric compared over paired games: means under A and B, the mean paired
    difference B - A with its 95% Student's t interval, the paired t-test's p-value, the
    p-value after the Holm correction over the metric's family, and effect sizes."""
    name: str
    a: float | None
    b: float | None
    diff: float | None
    low: float | None
    high: float | None
    n: int
    sd_a: float | None = None        # standard deviations over the pairs' games
    sd_b: float | None = None
    sd_diff: float | None = None     # ... and of the paired differences
    p: float | None = None           # two-sided paired t-test of "B - A = 0"
    p_adjusted: float | None = None  # after Holm's correction over the family
    family: str = ""                 # "metrics" (game metrics) or "rules" (fires per game)
    rate: bool = False               # a win rate (a share of games): h is its effect size
    offset: float = 0.0              # a rate shown minus its fair share: add it back for h

    @property
    def adjusted(self) -> float | None:
        """The p-value that decides significance: Holm-adjusted when the metric was
        tested in a family, else its own."""
        return self.p_adjusted if self.p_adjusted is not None else self.p

    @property
    def significant(self) -> bool:
        """Significant at ALPHA after the Holm correction over the metric's family."""
        return self.adjusted is not None and self.adjusted < ALPHA

    @property
    def excludes_zero(self) -> bool:
        """The 95% interval of the difference (not corrected) excludes 0."""
        return self.low is not None and (self.low > 0 or self.high < 0)

    @property
    def dz(self) -> float | None:
        """Cohen's dz: the mean difference over the deviation of the differences (how
        clearly the pairs show the change; it grows as the pairs agree)."""
        if self.diff is None or not self.sd_diff:
            return None
        return self.diff / self.sd_diff

    @property
    def d(self) -> float | None:
        """Cohen's d for paired games (d_av): the mean difference over the root mean
        square of the two variants' deviations (how big the change is against the
        spread of the metric from game to game)."""
        if self.diff is None or self.sd_a is None or self.sd_b is None:
            return None
        sd = math.sqrt((self.sd_a ** 2 + self.sd_b ** 2) / 2)
        return self.diff / sd if sd else None

    @property
    def h(self) -> float | None:
        """Cohen's h of a win rate: 2 asin(sqrt(b)) - 2 asin(sqrt(a))."""
        if not self.rate or self.a is None or self.b is None:
            return None
        pa = min(1.0, max(0.0, self.a + self.offset))
        pb = min(1.0, max(0.0, self.b + self.offset))
        return 2 * math.asin(math.sqrt(pb)) - 2 * math.asin(math.sqrt(pa))

    @property
    def effect(self) -> tuple:
        """(name, value) of the effect size shown: h for a win rate, else d."""
        return ("h", self.h) if self.rate else ("d", self.d)

    def to_dict(self) -> dict:
        return {"name": self.name, "a": self.a, "b": self.b, "diff": self.diff,
                "low": self.low, "high": self.high, "n": self.n, "p": self.p,
                "p_adjusted": self.p_adjusted, "d": self.d, "dz": self.dz, "h": self.h,
                "significant": self.significant, "excludes_zero": self.excludes_zero}


def paired(name: str, a: list, b: list, **extra) -> Metric:
    """The metric over pairs (a[i], b[i]): means, their deviations, the mean difference,
    its t interval and the paired t-test (n - 1 degrees of freedom). Differences that
    are all equal give p = 1 when they are 0 and p = 0 otherwise."""
    n = len(a)
    if n == 0:
        return Metric(name, None, None, None, None, None, 0, **extra)
    d = [y - x for x, y in zip(a, b)]
    mean = statistics.fmean(d)
    low = high = sd_a = sd_b = sd_d = p = None
    if n >= 2:
        sd_a, sd_b, sd_d = statistics.stdev(a), statistics.stdev(b), statistics.stdev(d)
        se = sd_d / math.sqrt(n)
        half = t975(n - 1) * se
        low, high = mean - half, mean + half
        if se > 0:
            p = t_p_value(mean / se, n - 1)
        else:
            p = 1.0 if mean == 0 else 0.0
    return Metric(name, statistics.fmean(a), statistics.fmean(b), mean, low, high, n,
                  sd_a=sd_a, sd_b=sd_b, sd_diff=sd_d, p=p, **extra)


def correct(metrics: list, family: str) -> list:
    """The metrics of one family with their Holm-adjusted p-values."""
    adjusted = holm([m.p for m in metrics])
    for m, q in zip(metrics, adjusted):
        m.family, m.p_adjusted = family, q
    return metrics


def _win_shares(rec: dict) -> list:
    share = 1.0 / len(rec["winners"]) if rec["winners"] else 0.0
    return [share if s in rec["winners"] else 0.0 for s in range(rec["players"])]


RATE_FAIR = "fair"      # key of the fair share that goes with a rate in _game_metrics


def _game_metrics(rec: dict) -> dict:
    """The numbers of one finished game, by metric name (rules fired apart); a win rate
    is (value, fair share to add back for its effect size h) or (value, 0)."""
    players = rec["players"]
    scores = [as_float(x) for x in rec["scores"]]
    out: dict = {}
    shares = _win_shares(rec)
    for s, w in enumerate(shares):
        out[f"win rate, seat {s}"] = (w, 0.0)
    first = rec.get("first_player")
    if isinstance(first, int):
        out["first-player advantage"] = (shares[first] - 1.0 / players, 1.0 / players)
    for s in range(players):
        out[f"score, seat {s}"] = scores[s]
    out["score, mean of seats"] = statistics.fmean(scores)
    out["score spread (best - worst)"] = max(scores) - min(scores)
    out["winning margin (best - second)"] = winning_margin(rec)
    for rid, row in (rec.get("points") or {}).items():
        for s, v in enumerate(row[:players]):
            out[f"points: {rid}, seat {s}"] = as_float(v)
    out["decisions per game"] = rec["decisions"]
    out["turns per game"] = rec["turns"]
    out["branching"] = rec["legal_actions"] / rec["decisions"] if rec["decisions"] else 0.0
    out.update(_designer_metrics(rec))
    return out


def _designer_metrics(rec: dict) -> dict:
    """The designer's figures of one game that records of older runs may lack
    (docs/simulate.md, Designer's metrics): a metric only compared where both games have
    it. The comeback is a rate (the winner was behind at some turn: 1, else 0)."""
    out: dict = {}
    if "legal_max" in rec:
        out["branching, max"] = rec["legal_max"]
    if "lead_changes" in rec:
        out["lead changes"] = rec["lead_changes"]
    if "drama" in rec:
        out["drama (winner's largest deficit)"] = float(rec["drama"])
        out["comeback (winner behind)"] = (1.0 if rec["drama"] > 0 else 0.0, 0.0)
    return out


def fired_in(rec: dict) -> dict:
    """What fired in one game: traced ids, and scoring rules that gave a point."""
    out = dict(rec.get("fired", {}))
    for rid, row in rec.get("points", {}).items():
        if any(row):
            out[f"points:{rid}"] = out.get(f"points:{rid}", 0) + 1
    return out


def rule_ids(spec, players: int, options: dict | None) -> list:
    """Every id that can fire in a spec (a Spec): id'd steps and options, `rule:NAME`, and
    `points:ID` for scoring rules."""
    prog = spec.game(players, options).prog
    ids = set(prog.step_ids)
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
    options_a: dict                 # each variant's options (its defaults, and those set)
    options_b: dict
    agents: list
    seed: int
    failed: dict                    # {"a": n, "b": n}
    metrics: list                   # [Metric]: game metrics
    rules: list                     # [Metric]: fires per game, named by id
    only_in_a: list                 # ids that exist in A only
    only_in_b: list
    dead_rules: list                # ids of A that fired in no game of either variant
    bots: dict | None = None        # who played: bots_played (None: as `agents` says)
    summary_a: Summary = field(repr=False, default=None)
    summary_b: Summary = field(repr=False, default=None)

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items()
               if k not in ("metrics", "rules", "summary_a", "summary_b")}
        out["metrics"] = [m.to_dict() for m in self.metrics]
        out["rules"] = [m.to_dict() for m in self.rules]
        out["significant"] = [m.name for m in self.metrics if m.significant]
        out["significant_rules"] = [m.name for m in self.rules if m.significant]
        out["correction"] = {"method": "holm", "alpha": ALPHA,
                             "families": {"metrics": len(self.metrics),
                                          "rules": len(self.rules)}}
        out["verdict"] = verdict(self)
        return json.loads(json.dumps(out))

    def table(self) -> str:
        return format_comparison(self)

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics + self.rules if m.name == name), None)


def bots_text(agents: list, rotate: bool, default: bool = False) -> str:
    """Who played, in words: "mcts:100:8 in one seat, greedy in the others, seats rotated
    game by game (the default; --agents to choose)". agents: game 0's bot by seat."""
    if len(set(agents)) == 1:
        text = f"{agents[0]} in every seat"
    elif rotate and agents.count(agents[0]) == 1 and len(set(agents[1:])) == 1:
        text = (f"{agents[0]} in one seat, {agents[1]} in the other"
                f"{'s' if len(agents) > 2 else ''}, seats rotated game by game")
    else:
        text = ", ".join(f"{i}: {a}" for i, a in enumerate(agents)) + \
            (" by seat in game 0, seats rotated game by game" if rotate else " by seat")
    return text + (" (the default; --agents to choose)" if default else "")


def bots_played(lineup: dict) -> dict:
    """A comparison's `bots`: the lineup (agents: game 0's by seat, rotate, default) and
    its text (bots_text)."""
    return {**lineup, "text": bots_text(lineup["agents"], lineup["rotate"],
                                        lineup["default"])}


def compare_records(recs_a: list, recs_b: list, ids_a: list, ids_b: list,
                    same: dict | None = None) -> tuple:
    """(metrics, rules, dead rules, pairs) from the records of the two runs (same
    indices, same seeds). The game metrics are one family of tests and the rules' fires
    per game another: Holm's correction is applied within each. same: {id in B: id in A}
    for the rules B names otherwise (diff.same_rules): their fires are compared as one
    rule's, named "A-ID = B-ID"."""
    joint = {a: f"{a} = {b}" for b, a in (same or {}).items()}
    # each side's ids as the comparison names them: B's renamed ones by A's
    name_a = joint
    name_b = {b: joint[a] for b, a in (same or {}).items()}
    ids_a = [name_a.get(r, r) for r in ids_a]
    ids_b = [name_b.get(r, r) for r in ids_b]

    def fires(rec: dict, names: dict) -> dict:
        return {names.get(k, k): v for k, v in fired_in(rec).items()}
    by_index = {r["index"]: r for r in recs_b}
    pairs = [(ra, by_index[ra["index"]]) for ra in recs_a
             if ra["index"] in by_index and "error" not in ra
             and "error" not in by_index[ra["index"]]]
    values_a: dict = {}
    values_b: dict = {}
    offsets: dict = {}
    for ra, rb in pairs:
        ma, mb = _game_metrics(ra), _game_metrics(rb)
        for name in ma:
            if name in mb:
                va, vb = ma[name], mb[name]
                if isinstance(va, tuple):
                    (va, offset), (vb, _) = va, vb
                    offsets.setdefault(name, []).append(offset)
                values_a.setdefault(name, []).append(va)
                values_b.setdefault(name, []).append(vb)
    metrics = [paired(name, values_a[name], values_b[name], rate=name in offsets,
                      offset=statistics.fmean(offsets[name]) if name in offsets else 0.0)
               for name in values_a]
    correct(metrics, "metrics")

    fired_a = [fires(ra, name_a) for ra, _ in pairs]
    fired_b = [fires(rb, name_b) for _, rb in pairs]
    rules = [paired(rid, [f.get(rid, 0) for f in fired_a],
                    [f.get(rid, 0) for f in fired_b])
             for rid in sorted(set(ids_a) | set(ids_b))]
    correct(rules, "rules")
    ever = set()
    for recs, names in ((recs_a, name_a), (recs_b, name_b)):
        for r in recs:
            if "error" not in r:
                ever |= {k for k, v in fires(r, names).items() if v}
    dead = [rid for rid in ids_a if rid not in ever]
    return metrics, rules, dead, len(pairs)


# ---- the verdict ------------------------------------------------------------------------

# the verdict's groups of metrics: (what, prefixes of the metrics' names), in the order
# the headline tells them
VERDICT_GROUPS = (
    ("win rates", ("win rate", "first-player")),
    ("game length", ("decisions per game", "turns per game")),
    ("scores", ("score", "winning margin")),
    ("points by scoring rule", ("points:",)),
    ("branching", ("branching",)),
)
HEADLINE_ALWAYS = ("win rates", "game length", "scores")   # told even when unchanged
DETAILS = 8            # significant metrics told in full, at most


def _group(m: Metric) -> str:
    return next((what for what, prefixes in VERDICT_GROUPS if m.name.startswith(prefixes)),
                "other metrics")


def _fmt(*values: float) -> str:
    """The format of numbers told together: 1 decimal when any is 100 or more, else 2."""
    return ".1f" if any(abs(v) >= 100 for v in values) else ".2f"


def _signed(x: float, rate: bool, fmt: str = ".2f") -> str:
    return f"{100 * x:+.1f}" if rate else format(x, "+" + fmt)


def _phrase_name(m: Metric) -> str:
    """A metric's name in a sentence."""
    name = m.name
    if name.startswith("win rate, seat "):
        return f"seat {name.rsplit(' ', 1)[1]}'s win rate"
    if name == "first-player advantage":
        return "the first player's win rate"
    if name == "score, mean of seats":
        return "the mean score"
    if name.startswith("score, seat "):
        return f"seat {name.rsplit(' ', 1)[1]}'s score"
    if name.startswith("points: "):
        rule, _, seat = name[len("points: "):].rpartition(", ")
        return f"the points from {rule} of {seat}"
    return name


def _interval_text(m: Metric, fmt: str) -> str:
    if m.low is None:
        return ""
    return f", 95% CI {_signed(m.low, m.rate, fmt)} to {_signed(m.high, m.rate, fmt)}"


def describe(m: Metric, effect: bool = True) -> str:
    """A metric's change in words: 'the first player's win rate rises from 37.0% to 44.5%
    (+7.5 points, 95% CI +1.2 to +13.8; h = +0.15)' (without the effect size: effect
    False)."""
    name, value = m.effect
    effect = "" if value is None or not effect else f"; effect size {name} = {value:+.2f}"
    if m.rate:
        a, b = 100 * (m.a + m.offset), 100 * (m.b + m.offset)
        return (f"{_phrase_name(m)} {'rises' if m.diff > 0 else 'falls'} from {a:.1f}% to "
                f"{b:.1f}% ({_signed(m.diff, True)} points{_interval_text(m, '')}{effect})")
    fmt = _fmt(m.a, m.b)
    change = f"{_signed(m.diff, False, fmt)}{_interval_text(m, fmt)}{effect}"
    if m.name in ("decisions per game", "turns per game"):
        return (f"games get {'longer' if m.diff > 0 else 'shorter'}: {m.a:{fmt}} to "
                f"{m.b:{fmt}} {m.name} ({change})")
    verb = "rises" if m.diff > 0 else "falls"
    if m.name.startswith("points: "):
        verb = verb[:-1]
    return f"{_phrase_name(m)} {verb} from {m.a:{fmt}} to {m.b:{fmt}} ({change})"


def _size(m: Metric) -> float:
    return abs(m.effect[1] or 0.0)


def _unchanged(what: str, metrics: list) -> str:
    """'no significant change in game length (the largest difference: ...)'."""
    shown = max(metrics, key=lambda m: (_size(m), m.name))
    if shown.low is None:
        return f"no significant change in {what}"
    fmt = _fmt(shown.a, shown.b)
    unit = " points" if shown.rate else ""
    return (f"no significant change in {what} (the largest difference: "
            f"{_phrase_name(shown)}, {_signed(shown.diff, shown.rate, fmt)}{unit}"
            f"{_interval_text(shown, fmt)})")


def _clause(what: str, members: list) -> str | None:
    """The headline's words for a group of metrics: its main change, or that it has
    none (told only for the groups of HEADLINE_ALWAYS)."""
    hits = sorted((m for m in members if m.significant), key=lambda m: (-_size(m), m.name))
    if not hits:
        return f"no significant change in {what}" if what in HEADLINE_ALWAYS else None
    if what == "scores":
        mean = next((m for m in hits if m.name == "score, mean of seats"), None)
        hits = [mean] + [m for m in hits if m is not mean] if mean else hits
    if what == "points by scoring rule":
        rules: dict = {}
        for m in hits:
            rule, _, seat = m.name[len("points: "):].rpartition(", ")
            rules.setdefault(rule, []).append((seat.split()[-1], m.diff))
        return "; ".join(
            f"the points from {rule} {_direction([d for _, d in seats])} for seat"
            f"{'s' if len(seats) > 1 else ''} {', '.join(sorted(s for s, _ in seats))}"
            for rule, seats in rules.items())
    return describe(hits[0], effect=False)


def _direction(diffs: list) -> str:
    if all(d > 0 for d in diffs):
        return "rise"
    if all(d < 0 for d in diffs):
        return "fall"
    return "change"


def verdict(c: Comparison) -> list:
    """The comparison in plain words: a headline, then details (a list of sentences).

    Rules: a metric counts as changed when it is significant after Holm's correction
    over the game metrics (ALPHA family-wise). The headline tells, group by group (win
    rates, game length, scores, points by scoring rule, branching), the change of the
    group's largest effect (the mean score first among scores; the points by rule as the
    seats whose points rise or fall), or for win rates, game length and scores that they
    show no significant change; then how many metrics were tested and how many are
    significant. The details tell each significant metric (at most DETAILS, the largest
    effects first) with its means, difference, interval and effect size; each group
    without one with its largest difference and its interval (no significance is not
    proof of no change: the interval says what the games rule out); the rules whose
    firing changed; and warnings: few pairs, failed games, options that differ."""
    tested = [m for m in c.metrics if m.diff is not None]
    if not tested:
        return [f"No pair of games in which both finished: nothing to compare "
                f"(failed games: A {c.failed.get('a', 0)}, B {c.failed.get('b', 0)})."]
    significant = [m for m in tested if m.significant]
    groups: dict = {what: [] for what, _ in VERDICT_GROUPS}
    for m in tested:
        groups.setdefault(_group(m), []).append(m)
    groups = {what: members for what, members in groups.items() if members}
    clauses = [x for x in (_clause(what, members) for what, members in groups.items()
                           if what in HEADLINE_ALWAYS) if x]
    others = [what for what, members in groups.items() if what not in HEADLINE_ALWAYS
              and any(m.significant for m in members)]
    if others:
        clauses.append(" and ".join(others)
                       + (" change" if len(others) > 1 else " changes") + " too (below)")
    tally = (f"{len(tested)} metrics tested, {len(significant)} significant after Holm "
             "correction")
    verb = "changes the game" if significant else "changes nothing significantly"
    out = [f"{c.b} (B) {verb} against {c.a} (A) in {c.pairs} paired games: "
           + "; ".join(clauses + [tally]) + "."]
    ranked = sorted(significant, key=lambda m: (-_size(m), m.name))
    for m in ranked[:DETAILS]:
        text = describe(m)
        out.append(text[0].upper() + text[1:] + ".")
    if len(ranked) > DETAILS:
        out.append(f"And {len(ranked) - DETAILS} more significant metrics (the table).")
    for what, members in groups.items():
        if not any(m.significant for m in members):
            text = _unchanged(what, members)
            out.append(text[0].upper() + text[1:] + ".")
    moved = sorted((m for m in c.rules if m.significant), key=lambda m: (-_size(m), m.name))
    if c.rules:
        told = ", ".join(f"{m.name} {_signed(m.diff, False)} a game" for m in moved[:5])
        if len(moved) > 5:
            told += f" and {len(moved) - 5} more"
        out.append(f"{len(moved)} of {len(c.rules)} rules fire significantly more or less "
                   "often (Holm over the rules)" + (f": {told}" if moved else "") + ".")
    if c.pairs < FEW_PAIRS:
        out.append(f"Only {c.pairs} pairs: the intervals are wide, and small changes go "
                   "unseen.")
    if c.failed.get("a") or c.failed.get("b"):
        out.append(f"Failed games, left out with their pairs: A {c.failed.get('a', 0)}, "
                   f"B {c.failed.get('b', 0)}.")
    if c.options_a != c.options_b:
        out.append(f"The variants played with different options: A {_opts(c.options_a)}; "
                   f"B {_opts(c.options_b)}.")
    return out


def _opts(options: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in (options or {}).items()) or "none"


# ---- the text table ---------------------------------------------------------------------

def _p(p) -> str:
    if p is None:
        return "-"
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def _row(m: Metric, width: int) -> str:
    interval = ("" if m.low is None else f"[{m.low:+.3f}, {m.high:+.3f}]")
    name, value = m.effect
    effect = "" if value is None else f"{name} {value:+.2f}"
    return (f"  {m.name:<{width}}  {num_text(m.a, '9.3f')}  {num_text(m.b, '9.3f')}  "
            f"{num_text(m.diff, '+9.3f')}  {interval:<20}  {effect:<8}  {_p(m.p):>7}  "
            f"{_p(m.p_adjusted):>7} {'*' if m.significant else ''}").rstrip()


def format_comparison(c: Comparison) -> str:
    """A comparison as text: the verdict, the metrics side by side, the rules whose firing
    changed significantly, the rules of one variant only, the dead rules."""
    same = c.options_a == c.options_b
    opts = (f"options {_opts(c.options_a)}" if same else
            f"options A {_opts(c.options_a)}, B {_opts(c.options_b)}")
    out = [f"in play: {c.a} (A) against {c.b} (B), {c.games} paired games "
           f"(seed {c.seed}), {c.players} players, {opts}",
           (f"bots: {c.bots['text']}" if c.bots else
            f"bots by seat: {', '.join(c.agents)}"),
           f"failed games: A {c.failed['a']}, B {c.failed['b']}; pairs compared: {c.pairs}",
           ""]
    lines = verdict(c)
    out += [lines[0]] + [f"  - {line}" for line in lines[1:]]
    shown = [m for m in c.rules if m.significant]
    width = max([len(m.name) for m in c.metrics + shown] + [6])
    head = (f"  {'metric':<{width}}  {'A':>9}  {'B':>9}  {'B - A':>9}  "
            f"{'95% interval':<20}  {'effect':<8}  {'p':>7}  {'Holm p':>7}")
    out += ["", head] + [_row(m, width) for m in c.metrics]
    quiet = len(c.rules) - len(shown)
    out += ["", "rules whose firing changed (fires per game):" if shown else
            "no rule's firing changed significantly"]
    out += [_row(m, width) for m in shown]
    if shown and quiet:
        out.append(f"  ({quiet} other rules: no significant change)")
    out.append("")
    out.append("* significant: Holm-adjusted p < 0.05 over the game metrics (and, apart, "
               "over the rules); intervals: 95% Student's t of the paired differences; "
               "effect: Cohen's d (d_av), h for win rates")
    if c.only_in_a or c.only_in_b:
        out.append(f"only in A: {', '.join(c.only_in_a) or 'none'}")
        out.append(f"only in B: {', '.join(c.only_in_b) or 'none'}")
    out.append(f"dead rules (of A, fired in no game of either variant): "
               f"{', '.join(c.dead_rules) or 'none'}")
    return "\n".join(out)
