"""A simulation's summary (`tabula simulate --report`), or two rule variants compared in
play (`tabula diff A B --simulate N --report`), as one self-contained HTML page.

Input: a Summary (tools.stats.summarize: its statistics and its records).
Output: an HTML file that opens in a browser with no server and no network: a few
sentences in short, the run (spec, games, players, options, agents by seat, time), the
summary's tables (win rates by seat, by place in turn order and by agent with 95% Wilson
intervals, the first player's advantage, scores, points by scoring rule and seat, game
length, branching, rules taken, failed games with their messages) and its plots as inline
SVG (scores by seat, game lengths, win rates by seat and by agent against the fair share).

Input of the comparison page: a Comparison (tabula_rules.tools.compare), and the rule-by-rule
diff (diff_specs's dict, or its text). Output: the verdict in plain words, the run (specs
A and B with their own options, games, pairs, players, bots, seed, failed games), the diff
(wrapped, the changed words of a changed line highlighted), the metrics side by side by
group with B - A, its 95% interval, the effect size, the p-value and its Holm adjustment,
and a mark where the adjusted p is below 5%; the rules whose firing changed, the rules of
one variant only, the dead rules, and plots (a forest plot of the differences, win rate by
seat, scores and game length of A and B).

A page has no script, no stylesheet, font or image from elsewhere, and no date: the
same input gives the same text, byte for byte (the SVG ids numbered in order, matplotlib's
metadata left out). Every string of the records (spec names, options,
agent names, error messages) is escaped. matplotlib is imported only when a report is
made, and only its Figure (no pyplot, no global backend): safe in workers and notebooks.
"""

from __future__ import annotations

import html
import io
import math
import re
import statistics
from collections import Counter

from ..errors import TabulaError
from ..runtime.values import as_float
from .compare import VERDICT_GROUPS
from .stats import num_text, percentile

# the groups of a comparison's metrics: the verdict's (compare.VERDICT_GROUPS), as titles
METRIC_GROUPS = tuple((what.capitalize(), prefixes) for what, prefixes in VERDICT_GROUPS)

PERCENTILES = ("10", "50", "90")       # the keys of Summary.score_percentiles_by_seat
MAX_INDICES = 20                       # failed games listed by index, per message
MIN_BINS, MAX_BINS = 8, 50             # histograms
# no Date (the page would change at every run), no Creator, Format or Type (their URLs)
SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
FAIR = "0.35"                          # the colour of the fair-share lines
VARIANTS = (("A", "C0"), ("B", "C1"))  # the two variants of a comparison, their colours
COLOUR_NAMES = {"C0": "blue", "C1": "orange"}
SIGNIFICANT, QUIET = "C3", "0.45"      # colours of the forest plot's differences
MARK = "*"                             # the mark of a significant difference
# the forest plot's panels: (title, unit, prefixes of the metrics' names); one scale each
FOREST_PANELS = (
    ("Win rates and first-player advantage", "win share", ("win rate", "first-player")),
    ("Scores", "points", ("score", "winning margin", "points:")),
    ("Game length", "decisions or turns per game", ("decisions", "turns")),
    ("Branching", "legal actions per decision", ("branching",)),
)
OTHER_PANEL = ("Other metrics", "units of the metric")

STYLE = """\
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       max-width: 62rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.4;
       overflow-wrap: anywhere; }
h1 { font-size: 1.6rem; margin-bottom: .3rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1rem; margin-bottom: .3rem; }
dl.run { display: grid; grid-template-columns: max-content minmax(0, 1fr);
         gap: .15rem 1rem; }
dl.run dt { font-weight: 600; }
dl.run dd { margin: 0; overflow-wrap: anywhere; }
section.verdict { background: #f3f7fc; border-left: 4px solid #3b6fb6; padding: .5rem 1rem;
                  margin: 1rem 0 1.5rem; }
section.verdict h2 { margin-top: .3rem; border: none; }
section.verdict p.headline { font-size: 1.05rem; font-weight: 600; }
section.verdict li { margin: .2rem 0; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .92rem; max-width: 100%; }
th, td { padding: .2rem .5rem; border-bottom: 1px solid #e4e4e4; text-align: left;
         vertical-align: top; overflow-wrap: anywhere; }
th { background: #f4f4f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums;
                 overflow-wrap: normal; }
figure { margin: .5rem 0 1.5rem; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
p.note { color: #555; font-style: italic; }
ul.games li { margin: .3rem 0; }
ul.games code { font-size: .85rem; overflow-wrap: anywhere; }
tr.sig td { background: #fff1d6; }
tr.sig td:first-child { font-weight: 600; }
table.metrics { width: 100%; table-layout: fixed; font-size: .85rem; }
table.metrics th, table.metrics td { padding: .2rem .35rem; }
table.metrics th:nth-child(1) { width: 22%; }
table.metrics th:nth-child(5) { width: 18%; }
table.metrics th:nth-child(9) { width: 1.2rem; }
.mark { color: #b3261e; font-weight: 700; }
td.mark { text-align: center; }
div.diff { background: #f7f7f7; padding: .6rem .8rem; font-size: .82rem; line-height: 1.35;
           font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
div.diff div { white-space: pre-wrap; overflow-wrap: anywhere; text-indent: -2ch; }
div.diff .add { color: #1a7f37; }
div.diff .del { color: #b3261e; }
div.diff .head { font-weight: 700; margin-top: .4rem; }
div.diff del { background: #ffd7d5; text-decoration: line-through; }
div.diff ins { background: #c9f2d0; text-decoration: none; }
footer { margin-top: 3rem; font-size: .8rem; color: #777; }
"""


# ---- the public API ---------------------------------------------------------------------

def write_report(summary, path, title: str | None = None) -> None:
    """Write the HTML report of a summary to path (UTF-8); TabulaError if it cannot."""
    _save(render_report(summary, title), path)


def write_comparison_report(comparison, path, title: str | None = None,
                            rule_diff=None, by_change=None) -> None:
    """Write the HTML page of a comparison to path (UTF-8); TabulaError if it cannot."""
    _save(render_comparison_report(comparison, title, rule_diff, by_change), path)


def render_report(summary, title: str | None = None) -> str:
    """The HTML report of a summary: one self-contained page (see the module's doc)."""
    facts = _Facts(summary)
    if title is None:
        title = f"Tabula simulation: {summary.spec}" if summary.spec else "Tabula simulation"
    parts = [_run_section(summary, facts)]
    if facts.ok:
        parts = [_in_short_section(summary, facts)] + parts
        parts += [_wins_section(summary, facts), _scores_section(summary, facts),
                  _points_section(summary), _length_section(summary, facts),
                  _designer_section(summary), _rules_section(summary)]
    else:
        parts.append('<p class="note">No finished games: no statistics and no plots.</p>')
    if facts.ok:
        parts.append(_examples_section(summary))
    if summary.failed:
        parts.append(_failed_section(summary, facts))
    return _page(title, parts, _plural(summary.games, "game record"))


def render_comparison_report(comparison, title: str | None = None, rule_diff=None,
                             by_change=None) -> str:
    """The HTML page of a Comparison of two rule variants (tabula_rules.tools.compare): one
    self-contained page (see the module's doc). rule_diff: tabula_rules.tools.diff.diff_specs's
    dict, or the text of `tabula diff A B`: each line wrapped, and the words that changed
    between a line of A (-) and the line of B (+) that follows it highlighted. by_change:
    bychange.measure's result (each change of the diff alone), a section of its own."""
    c = comparison
    runs = [(label, s, _Facts(s), colour)
            for (label, colour), s in zip(VARIANTS, (c.summary_a, c.summary_b))
            if s is not None]
    if title is None:
        title = f"Tabula comparison: {c.a} (A) against {c.b} (B)"
    parts = [_verdict_section(c), _comparison_run_section(c, runs)]
    if rule_diff is not None:
        if not isinstance(rule_diff, str):
            from .diff import format_diff
            rule_diff = format_diff(rule_diff)
        parts.append(_diff_section(rule_diff))
    parts += [_metrics_section(c)]
    if by_change is not None:
        parts.append(_by_change_section(c, by_change))
    parts += [_designer_comparison_section(runs), _distributions_section(c, runs),
              _rule_changes_section(c)]
    for label, s, f, _ in runs:
        if f.ok:
            parts.append(_examples_section(s, f"Example games of {label}"))
    for label, s, f, _ in runs:
        if s.failed:
            parts.append(_failed_section(s, f, f"Failed games of {label}"))
    games = sum(s.games for _, s, _, _ in runs)
    return _page(title, parts, _plural(games, "game record"))


# ---- the page ---------------------------------------------------------------------------

def _page(title: str, sections: list, made_from: str) -> str:
    """The whole page: head, title, the sections (HTML), a footer."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>\n{STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{_e(title)}</h1>",
        *sections,
        f"<footer>Made by tabula (tabula_rules.tools.report) from {_e(made_from)}.</footer>",
        "</body>", "</html>", ""])


def _save(text: str, path) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except OSError as e:
        raise TabulaError(f"cannot write {path}: {e.strerror}") from None


# ---- what the summary does not keep -----------------------------------------------------

class _Facts:
    """Numbers of the records that the Summary does not hold: games, wins, fair share and
    agents by seat, fair share by agent, player counts, options, score and length lists."""

    def __init__(self, summary):
        records = summary.records
        self.records = records
        self.ok = [r for r in records if "error" not in r]
        seats = range(summary.players)
        self.seat_games = [sum(1 for r in self.ok if r["players"] > s) for s in seats]
        self.seat_wins = [0.0] * summary.players
        for r in self.ok:
            for w in r["winners"]:
                self.seat_wins[w] += 1.0 / len(r["winners"])
        # the fair share of a seat: 1/players, averaged over the games it played
        self.seat_fair = [_mean([1.0 / r["players"] for r in self.ok if r["players"] > s])
                          for s in seats]
        self.scores = [[as_float(r["scores"][s]) for r in self.ok if r["players"] > s]
                       for s in seats]
        agent_fair: dict = {}
        for r in self.ok:
            for name in r["agents"]:
                agent_fair.setdefault(name, []).append(1.0 / r["players"])
        self.agent_fair = {name: _mean(v) for name, v in agent_fair.items()}
        self.decisions = [r["decisions"] for r in self.ok]
        self.turns = [r["turns"] for r in self.ok]
        # by seat, the agents that sat there in any game (failed ones too), with counts
        seat_count = max([summary.players] + [len(r.get("agents") or ()) for r in records])
        self.seat_agents = [Counter(r["agents"][s] for r in records
                                    if len(r.get("agents") or ()) > s)
                            for s in range(seat_count)]
        self.player_counts = Counter(r["players"] for r in records
                                     if r.get("players") is not None)
        self.options = Counter(_options_text(r["options"]) for r in records
                               if r.get("options") is not None)
        self.lineups = Counter(tuple(r["agents"]) for r in records if r.get("agents"))
        self.spec_hashes = sorted({r["spec_hash"] for r in records if r.get("spec_hash")})


def _mean(values: list):
    return statistics.fmean(values) if values else None


def _options_text(options: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items()) or "none"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _counted(counter: Counter) -> str:
    """'a' for one value, 'a ×3, b ×2' for several (by count, then by value)."""
    if len(counter) == 1:
        return str(next(iter(counter)))
    items = sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))
    return ", ".join(f"{k} ×{n}" for k, n in items)


# ---- HTML pieces ------------------------------------------------------------------------

def _e(value) -> str:
    """Any value as escaped HTML text."""
    return html.escape(str(value), quote=True)


def _plain(x) -> str:
    """A count or a value of the records as it is ('-' for none)."""
    return "-" if x is None else str(x)


def _interval(pair, fmt: str = ".3f") -> str:
    if pair is None:
        return "-"
    return f"[{format(pair[0], fmt)}, {format(pair[1], fmt)}]"


def _table(head: list, rows: list, numeric: set = frozenset(), marked: set = frozenset(),
           classes: dict | None = None, cls: str | None = None) -> str:
    """An HTML table (of class `cls`); every cell is escaped, the columns in `numeric`
    align right, the columns of `classes` get that class, the rows (indices) in `marked`
    are highlighted."""
    classes = {**{i: "num" for i in numeric}, **(classes or {})}

    def cell(tag, i, value):
        cls = f' class="{classes[i]}"' if i in classes else ""
        return f"<{tag}{cls}>{_e(value)}</{tag}>"
    out = [f'<table class="{cls}">' if cls else "<table>"]
    out.append("<thead><tr>" + "".join(cell("th", i, h) for i, h in enumerate(head))
               + "</tr></thead>")
    out.append("<tbody>")
    for k, row in enumerate(rows):
        tr = '<tr class="sig">' if k in marked else "<tr>"
        out.append(tr + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _run_section(s, f: _Facts) -> str:
    """The header: what was played, by whom, how long it took."""
    items = [("spec", s.spec if s.spec is not None else "-")]
    if f.spec_hashes:
        items.append(("spec hash", ", ".join(f.spec_hashes)))
    items += [("games", s.games), ("finished games", len(f.ok)), ("failed games", s.failed)]
    if f.player_counts:
        players = _counted(f.player_counts)
        if len(f.player_counts) > 1:
            players = "differ by game: " + ", ".join(
                f"{p} in {n} game{'s' if n != 1 else ''}"
                for p, n in sorted(f.player_counts.items()))
        items.append(("players", players))
    if f.options:
        items.append(("options", _counted(f.options)))
    if len(f.lineups) == 1:
        lineup = next(iter(f.lineups))
        items.append(("agents by seat", ", ".join(f"{i}: {a}" for i, a in enumerate(lineup))))
    elif f.lineups:
        items.append(("agents by seat", "; ".join(f"{i}: {_counted(c)}"
                                                   for i, c in enumerate(f.seat_agents))))
    if s.seconds is not None:
        items.append(("seconds", f"{s.seconds:.1f}"))
    if s.workers is not None:
        items.append(("workers", s.workers))
    return _definitions(items)


def _definitions(items: list) -> str:
    """(term, value) pairs as a definition list, escaped."""
    rows = "\n".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items)
    return f'<dl class="run">\n{rows}\n</dl>'


def _wins_section(s, f: _Facts) -> str:
    seat_rows = []
    for seat in range(s.players):
        seat_rows.append([seat, _counted(f.seat_agents[seat]) if f.seat_agents[seat] else "-",
                          f.seat_games[seat], num_text(f.seat_wins[seat], ".2f"),
                          num_text(s.win_rate_by_seat[seat]),
                          _interval(s.win_interval_by_seat[seat]),
                          num_text(f.seat_fair[seat])])
    out = ["<h2>Win rates</h2>",
           ("<p>A win shared by k players counts 1/k for each; the fair share of a seat is "
            "1/players (averaged over its games). Intervals: 95%, Wilson.</p>"),
           "<h3>By seat</h3>",
           _table(["seat", "agent", "games", "wins", "win rate", "95% interval",
                   "fair share"], seat_rows, numeric={0, 2, 3, 4, 5, 6}),
           _plot("win-rates-by-seat", "Win rate by seat with 95% Wilson intervals",
                 lambda fig: _draw_seat_wins(fig, s, f), (7.0, 3.6)),
           _first_player_part(s),
           "<h3>By agent</h3>"]
    agent_rows = [[name, a["games"], num_text(a["rate"]), _interval((a["low"], a["high"])),
                   num_text(f.agent_fair.get(name))]
                  for name, a in s.win_rate_by_agent.items()]
    out.append(_table(["agent", "seats played", "win rate", "95% interval", "fair share"],
                      agent_rows, numeric={1, 2, 3, 4}))
    if len(s.win_rate_by_agent) > 1:
        out.append(_plot("win-rates-by-agent", "Win rate by agent with 95% Wilson intervals",
                         lambda fig: _draw_agent_wins(fig, s, f), (7.0, 3.6)))
    return "\n".join(out)


FIRST_PLAYER_MEANS = (
    "The first player is the player who moved first in that game: the player of the first "
    "decision (not chance's) once the turns had begun, whatever their seat; in a game "
    "without turns, the player of its first decision; none when that decision is taken by "
    "all players at once. Places in turn order count on from the first player in seat "
    "order (2: the next seat).")


def _first_player_part(s) -> str:
    """The first player's win rate and advantage, the win rate by place in turn order,
    and how often each seat moved first."""
    out = ["<h3>By place in turn order</h3>", f"<p>{_e(FIRST_PLAYER_MEANS)}</p>"]
    if not s.first_player_games:
        out.append('<p class="note">The records name no first player: they were written '
                   "by an older tabula, or the game opens with a decision that all players "
                   "take at once. No first-player statistics.</p>")
        return "\n".join(out)
    rows = [[f"{place + 1}" + (" (first player)" if place == 0 else ""), x["games"],
             num_text(x["rate"]), _interval(None if x["rate"] is None
                                            else (x["low"], x["high"])),
             num_text(x["fair"])]
            for place, x in enumerate(s.win_rate_by_place) if x["games"]]
    out.append(_table(["place", "games", "win rate", "95% interval", "fair share"], rows,
                      numeric={1, 2, 3, 4}))
    lo, hi = s.first_player_interval
    out.append(
        f"<p>First-player advantage (the first player's win rate minus the fair share): "
        f"<strong>{_e(num_text(s.first_player_advantage, '+.3f'))}</strong>, 95% interval "
        f"{_e(_interval((lo, hi), '+.3f'))}"
        + (" (it excludes 0)" if lo > 0 or hi < 0 else " (it holds 0: no clear advantage)")
        + f", over {_e(_plural(s.first_player_games, 'game'))}. Games begun by each seat: "
        + _e(", ".join(f"seat {seat} {n}" for seat, n in enumerate(s.first_player_by_seat)))
        + ".</p>")
    return "\n".join(out)


def _in_short_section(s, f: _Facts) -> str:
    """The run in a few sentences: who wins, the first player, length, scores."""
    items = []
    rates = [(r, seat) for seat, r in enumerate(s.win_rate_by_seat) if r is not None]
    if rates:
        (lo, lo_seat), (hi, hi_seat) = min(rates), max(rates)
        fair = f.seat_fair[0]
        items.append(f"Win rates by seat range from {100 * lo:.1f}% (seat {lo_seat}) to "
                     f"{100 * hi:.1f}% (seat {hi_seat}); the fair share is "
                     f"{100 * fair:.1f}%.")
    if s.first_player_games:
        lo, hi = s.first_player_interval
        clear = ("an advantage whose 95% interval excludes 0" if lo > 0 or hi < 0 else
                 "no clear advantage: the 95% interval holds 0")
        items.append(f"The first player (whoever moved first) wins "
                     f"{100 * s.first_player_win_rate:.1f}% of games: "
                     f"{100 * s.first_player_advantage:+.1f} points against the fair "
                     f"share (95% CI {100 * lo:+.1f} to {100 * hi:+.1f}), {clear}.")
    d, t = s.decisions, s.turns
    items.append(f"Games last {d['mean']:.1f} decisions of the players on average "
                 f"({d['min']} to {d['max']}) and {t['mean']:.1f} turns.")
    means = [m for m in s.score_mean_by_seat if m is not None]
    if means:
        text = f"The mean score is {statistics.fmean(means):.2f}"
        if s.points_by_rule:
            text += " a seat, from " + ", ".join(
                f"{rid} {statistics.fmean(x['mean'] for x in rows if x['mean'] is not None):.2f}"
                for rid, rows in s.points_by_rule.items()
                if any(x["mean"] is not None for x in rows))
        items.append(text + ".")
    if s.failed:
        items.append(f"{_plural(s.failed, 'game')} failed and count nowhere else (below).")
    return "\n".join(['<section class="verdict">', "<h2>In short</h2>", "<ul>",
                      *(f"<li>{_e(x)}</li>" for x in items), "</ul>", "</section>"])


def _points_section(s) -> str:
    """The points of each scoring rule, by seat: mean a game with its 95% interval."""
    if not s.points_by_rule:
        return ""
    rows = []
    for rid, seats in s.points_by_rule.items():
        for seat, x in enumerate(seats):
            rows.append([rid, seat, num_text(x["mean"], ".2f"), num_text(x["sd"], ".2f"),
                         _interval(None if x["low"] is None else (x["low"], x["high"]),
                                   ".2f")])
    return "\n".join([
        "<h2>Points by scoring rule</h2>",
        "<p>The points each scoring rule gave each seat, per game: the mean, its "
        "deviation and the 95% interval of the mean (Student's t).</p>",
        _table(["scoring rule", "seat", "mean", "sd", "95% interval"], rows,
               numeric={1, 2, 3, 4})])


def _scores_section(s, f: _Facts) -> str:
    rows = []
    for seat in range(s.players):
        pc = s.score_percentiles_by_seat[seat]
        values = f.scores[seat]
        rows.append([seat, len(values), num_text(s.score_mean_by_seat[seat], ".2f"),
                     num_text(s.score_std_by_seat[seat], ".2f")]
                    + [num_text(pc.get(q), ".1f") for q in PERCENTILES]
                    + [_plain(min(values) if values else None),
                       _plain(max(values) if values else None)])
    return "\n".join([
        "<h2>Scores</h2>",
        _table(["seat", "games", "mean", "sd"] + [f"p{q}" for q in PERCENTILES]
               + ["min", "max"], rows, numeric=set(range(9))),
        _plot("scores", "Scores by seat. Right: the box spans the quartiles, the whisker "
              "p10 to p90, the dark line is the median and the diamond the mean.",
              lambda fig: _draw_scores(fig, s, f), (9.0, 3.8))])


def _length_section(s, f: _Facts) -> str:
    rows = [["decisions (the agents')", num_text(s.decisions["mean"], ".1f"),
             _plain(s.decisions["min"]), _plain(s.decisions["max"])],
            ["turns", num_text(s.turns["mean"], ".1f"), _plain(s.turns["min"]),
             _plain(s.turns["max"])]]
    return "\n".join([
        "<h2>Game length</h2>",
        _table(["per game", "mean", "min", "max"], rows, numeric={1, 2, 3}),
        ("<p>Mean branching (legal actions per agent's decision): "
         f"{_e(num_text(s.mean_branching, '.2f'))}</p>"),
        _plot("game-length", "Game length: decisions and turns per game",
              lambda fig: _draw_lengths(fig, [("", f, None)]), (9.0, 3.4))])


# the designer's metrics (docs/simulate.md, Designer's metrics): (name, definition)
DESIGNER_TERMS = (
    ("balance by seat", "each seat's win rate (a win shared by k counts 1/k), against the "
     "fair share 1/players: see Win rates"),
    ("winning margin", "the best final score minus the second best, per game: the mean and "
     "its 95% t interval (decisiveness)"),
    ("lead changes", "the scores are sampled at the first agent decision of each round "
     "(players turns: turns 1, 1 + players, ...) and at the end; the leader is the one "
     "seat with the best score (a tie names none); a lead change is a leader other than "
     "the last one named"),
    ("drama", "the eventual winner's largest deficit to the best score over those samples, "
     "as a share of the winner's final score (at least 1): 0 when the winner never trailed"),
    ("comeback share", "the share of games whose winner trailed at some sample (drama > 0), "
     "95% Wilson interval"),
    ("game length", "agents' decisions and turns per game: see Game length"),
    ("branching", "legal actions per agent's decision (all the games' summed, divided by "
     "their decisions); max: the most at one decision"),
    ("strategic depth", "simulate --depth N: N more games, mcts in one seat and random in "
     "the others, seats rotated; mcts's win rate against its fair share"),
    ("never fired", "untraced: the rules and steps asking a decision that asked none; "
     "traced (diff --simulate): the ids that fired in no game"),
)


def _designer_rows(s) -> list:
    def mean_row(name, x, fmt=".2f"):
        if not x or x.get("mean") is None:
            return [name, "-", "", "not in these records (an older tabula's)"]
        most = x.get("max")
        most = most if most is None or isinstance(most, int) else format(most, fmt)
        return [name, num_text(x["mean"], fmt), _interval((x["low"], x["high"]), fmt)
                if x.get("low") is not None else "", "" if most is None else f"max {most}"]
    rows = [mean_row("winning margin", s.margin), mean_row("lead changes", s.lead_changes),
            mean_row("drama", s.drama)]
    d = s.drama or {}
    if d.get("comeback") is not None:
        rows.append(["comeback share", num_text(d["comeback"]),
                     _interval((d["comeback_low"], d["comeback_high"])), ""])
    rows.append(["branching", num_text(s.mean_branching, ".2f"), "",
                 "" if s.max_branching is None else f"max {s.max_branching}"])
    if s.depth is not None:
        x = s.depth
        rows.append([f"strategic depth ({x['strong']} against {x['weak']})",
                     num_text(x["rate"]), _interval((x["low"], x["high"])),
                     f"fair {num_text(x['fair'])}; {x['finished']} games"])
    if s.never_fired is not None:
        rows.append(["never fired", str(len(s.never_fired)), "",
                     ", ".join(s.never_fired) or "every one fired"])
    return rows


def _designer_section(s) -> str:
    return "\n".join(["<h2>Designer's metrics</h2>",
                      _table(["metric", "value", "95% interval", "note"], _designer_rows(s),
                             numeric={1}),
                      _designer_terms()])


def _designer_terms() -> str:
    rows = "\n".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in DESIGNER_TERMS)
    return f'<dl class="run designer">\n{rows}\n</dl>'


def _designer_comparison_section(runs: list) -> str:
    out = ["<h2>Designer's metrics</h2>",
           "<p>Each variant's own figures; their paired differences are in Metrics (lead "
           "changes, drama, comeback, branching, max).</p>"]
    for label, s, f, _ in runs:
        if f.ok:
            out += [f"<h3>{_e(label)}</h3>",
                    _table(["metric", "value", "95% interval", "note"], _designer_rows(s),
                           numeric={1})]
    out.append(_designer_terms())
    return "\n".join(out)


def _rules_section(s) -> str:
    rows = [[rule, num_text(per, ".2f"), s.rule_counts.get(rule, 0)]
            for rule, per in sorted(s.rule_counts_per_game.items(), key=lambda kv: -kv[1])]
    if not rows:
        return "<h2>Rules taken</h2>\n<p class=\"note\">No decisions were taken.</p>"
    return "\n".join(["<h2>Rules taken</h2>",
                      "<p>Decisions taken (chance included), by the rule that asks them.</p>",
                      _table(["rule", "per game", "in all"], rows, numeric={1, 2})])


def _failed_section(s, f: _Facts, heading: str = "Failed games") -> str:
    rows = []
    for msg, n in sorted(s.errors.items(), key=lambda kv: -kv[1]):
        recs = [r for r in f.records if r.get("error") == msg]
        where = sorted({r["error_at"] for r in recs if r.get("error_at")})
        indices = sorted(r["index"] for r in recs if isinstance(r.get("index"), int))
        shown = ", ".join(str(i) for i in indices[:MAX_INDICES])
        if len(indices) > MAX_INDICES:
            shown += f", … ({len(indices) - MAX_INDICES} more)"
        rows.append([n, msg, ", ".join(where) or "-", shown or "-"])
    return "\n".join([f"<h2>{_e(heading)}</h2>",
                      ("<p>Games whose rules failed count here only, not in the "
                       "statistics.</p>"),
                      _table(["games", "error", "where", "game indices"], rows, numeric={0})])


SERVE = "http://127.0.0.1:8765"        # tabula serve's default address


def example_games(summary) -> list:
    """A few finished games of a run to look at: the shortest, a median one and the
    longest (in decisions, chance's included), each once: [(why, record)]."""
    done = sorted((r for r in summary.records if "error" not in r),
                  key=lambda r: (r.get("decisions", 0) + r.get("chance", 0), r["index"]))
    if not done:
        return []
    picked: list = []
    for why, r in (("the shortest", done[0]), ("a median one", done[len(done) // 2]),
                   ("the longest", done[-1])):
        if all(r is not q for _, q in picked):
            picked.append((why, r))
    return picked


def game_command(spec: str, rec: dict) -> str:
    """The command that plays a record's game again and logs it (tabula run plays what
    simulate played: the same seed and bots give the same game)."""
    options = "".join(f" --option {k}={_option(v)}" for k, v in sorted(rec["options"].items()))
    return (f"tabula run {spec} --players {rec['players']} --seed {rec['seed']} "
            f"--agents {','.join(rec['agents'])}{options} --log game-{rec['index']}.jsonl")


def replay_link(spec: str, rec: dict) -> str:
    """The address at which a running `tabula serve` plays a record's game and shows it
    step by step."""
    from urllib.parse import urlencode
    query = [("spec", spec), ("players", rec["players"]), ("seed", rec["seed"]),
             ("agents", ",".join(rec["agents"]))]
    query += [("option", f"{k}={_option(v)}") for k, v in sorted(rec["options"].items())]
    return f"{SERVE}/replay?{urlencode(query)}"


def _option(v) -> str:
    """An option's value as --option writes it."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def _examples_section(s, heading: str = "Example games") -> str:
    spec = s.spec_path or s.spec or ""
    items = []
    for why, r in example_games(s):
        length = r.get("decisions", 0) + r.get("chance", 0)
        winners = ", ".join(f"seat {w}" for w in r.get("winners", [])) or "nobody"
        items.append(f'<li>{_e(why)}: game {r["index"]}, {length} decisions, won by '
                     f'{_e(winners)}: <a href="{_e(replay_link(spec, r))}">step through '
                     f'it</a><br><code>{_e(game_command(spec, r))}</code></li>')
    return "\n".join([f"<h2>{_e(heading)}</h2>",
                      "<p>Each link opens the game step by step in a running "
                      "<code>tabula serve</code> (its default address); the command plays "
                      "it again and writes its log.</p>",
                      '<ul class="games">', *items, "</ul>"])


# ---- the comparison's sections ---------------------------------------------------------

def _verdict_section(c) -> str:
    """The verdict in plain words (tabula_rules.tools.compare.verdict): the headline, then the
    details."""
    from .compare import verdict
    lines = verdict(c)
    out = ['<section class="verdict">', "<h2>Verdict</h2>",
           f'<p class="headline">{_e(lines[0])}</p>']
    if len(lines) > 1:
        out += ["<ul>", *(f"<li>{_e(x)}</li>" for x in lines[1:]), "</ul>"]
    out.append("</section>")
    return "\n".join(out)


def _comparison_run_section(c, runs: list) -> str:
    """The header of a comparison: the two specs, what was played, by whom, what failed."""
    hashes = {label: ", ".join(f.spec_hashes) for label, _, f, _ in runs if f.spec_hashes}
    failed = {k: _plain((c.failed or {}).get(k)) for k in ("a", "b")}
    items = []
    for label, spec in (("A", c.a), ("B", c.b)):
        items.append((f"spec {label}", spec if label not in hashes
                      else f"{spec} (hash {hashes[label]})"))
    items += [("games", f"{c.games} of each, paired (same seeds, same bots)"),
              ("pairs compared", f"{c.pairs} (both games finished)"),
              ("players", c.players),
              ("options of A", _options_text(c.options_a or {})),
              ("options of B", _options_text(c.options_b or {})),
              (("bots", c.bots["text"]) if getattr(c, "bots", None) else
               ("bots by seat", ", ".join(f"{i}: {a}" for i, a in enumerate(c.agents or ()))
                or "-")),
              ("seed", c.seed),
              ("failed games", f"A: {failed['a']}, B: {failed['b']}")]
    return _definitions(items)


_INDENT = re.compile(r"^( *)(.*)$")


def _diff_line(text: str, cls: str | None, pieces=None) -> str:
    """One line of the rule diff: a block that wraps, its continuation lines indented
    under the line's own text; pieces [(text, changed)] highlight changed words."""
    indent, rest = _INDENT.match(text).groups()
    if pieces is None:
        body = _e(rest)
    else:
        tag = "del" if cls == "del" else "ins"
        body = _e(rest[:2]) + "".join(
            f"<{tag}>{_e(t)}</{tag}>" if changed else _e(t) for t, changed in pieces)
    attrs = f' class="{cls}"' if cls else ""
    return f'<div{attrs} style="padding-left: {len(indent) + 2}ch">{body}</div>'


def _diff_section(rule_diff: str) -> str:
    """The text of `tabula diff A B`: lines of A in red, of B in green, the top lines of
    the entries bold; a run of removed lines (-) followed by as many added ones (+) at the
    same indentation is compared line by line, word by word (tabula_rules.tools.diff.word_diff),
    the changed words highlighted. Every line wraps: no line is wider than the page."""
    from .diff import word_diff
    lines = rule_diff.splitlines()
    out = []
    k = 0
    while k < len(lines):
        line = lines[k]
        indent, rest = _INDENT.match(line).groups()
        if rest.startswith("- ") and not rest.startswith("--- "):
            minus = [line]
            while k + len(minus) < len(lines) and lines[k + len(minus)].startswith(
                    indent + "- "):
                minus.append(lines[k + len(minus)])
            j = k + len(minus)
            plus = []
            while j + len(plus) < len(lines) and lines[j + len(plus)].startswith(indent + "+ "):
                plus.append(lines[j + len(plus)])
            if len(plus) == len(minus):
                pairs = [word_diff(a[len(indent) + 2:], b[len(indent) + 2:])
                         for a, b in zip(minus, plus)]
                out += [_diff_line(a, "del", pa) for a, (pa, _) in zip(minus, pairs)]
                out += [_diff_line(b, "add", pb) for b, (_, pb) in zip(plus, pairs)]
                k = j + len(plus)
                continue
            out += [_diff_line(x, "del") for x in minus]
            k += len(minus)
            continue
        if rest.startswith("+ ") or rest.startswith("+++ "):
            out.append(_diff_line(line, "add"))
        elif rest.startswith("--- "):
            out.append(_diff_line(line, "del"))
        elif not indent and rest:
            out.append(_diff_line(line, "head"))
        else:
            out.append(_diff_line(line, None))
        k += 1
    return "\n".join(["<h2>Rules: A against B</h2>",
                      ("<p>What differs, entry by entry: the lines of A in red (-), of B in "
                       "green (+); within a changed line the words removed are struck out "
                       "and the words added highlighted.</p>"),
                      '<div class="diff">', *out, "</div>"])


def _p_text(p) -> str:
    if p is None:
        return "-"
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def _effect_text(m) -> str:
    name, value = m.effect
    return "-" if value is None else f"{name}\u00a0{value:+.2f}"     # no break inside


def _metric_table(metrics: list, first: str) -> str:
    """Metrics side by side: A, B, B - A, its 95% interval, the effect size, the p-value,
    the Holm-adjusted p-value, the mark when significant (after Holm)."""
    rows = [[m.name, num_text(m.a), num_text(m.b), num_text(m.diff, "+.3f"),
             _interval(None if m.low is None else (m.low, m.high), "+.3f"),
             _effect_text(m), _p_text(m.p), _p_text(m.p_adjusted),
             MARK if m.significant else ""] for m in metrics]
    return _table([first, "A", "B", "B - A", "95% interval", "effect", "p", "Holm p", ""],
                  rows, numeric={1, 2, 3, 4, 5, 6, 7}, classes={8: "mark"},
                  marked={i for i, m in enumerate(metrics) if m.significant}, cls="metrics")


def _legend(c) -> str:
    one = " (one pair gives no interval and no test)" if c.pairs == 1 else ""
    return (f'<p><span class="mark">{_e(MARK)}</span> significant: the p-value of the '
            "paired t-test after Holm's correction (Holm p) is below 0.05, the game metrics "
            f"({_e(_plural(len(c.metrics), 'test'))}) being one family and the rules' fires "
            "per game another; the significant rows are highlighted. The 95% interval is "
            "Student's t over the paired differences B - A (pairs of games with the same "
            f"seed and bots), one metric at a time{one}: an interval that excludes 0 may "
            "still not be significant once the family is corrected. Effect: Cohen's d "
            "(the difference over the root mean square of A's and B's deviations), or for "
            "a win rate Cohen's h (2 asin √B - 2 asin √A); about 0.2 is small, 0.5 "
            "medium, 0.8 large.</p>")


def _grouped(metrics: list) -> list:
    """The metrics by group of METRIC_GROUPS (the others last): [(title, [Metric])]."""
    groups = [(title, []) for title, _ in METRIC_GROUPS] + [("Other metrics", [])]
    for m in metrics:
        k = next((i for i, (_, prefixes) in enumerate(METRIC_GROUPS)
                  if m.name.startswith(prefixes)), len(METRIC_GROUPS))
        groups[k][1].append(m)
    return [(title, ms) for title, ms in groups if ms]


def _metrics_section(c) -> str:
    out = ["<h2>Metrics</h2>"]
    if not any(m.diff is not None for m in c.metrics):
        out.append('<p class="note">No pair in which both games finished: no metrics and '
                   "no differences.</p>")
        if c.metrics:
            out.append(_metric_table(c.metrics, "metric"))
        return "\n".join(out)
    out.append(f"<p>Means over the {_e(_plural(c.pairs, 'pair'))} in which both games "
               "finished; a win shared by k players counts 1/k for each. The first-player "
               "advantage is the win rate of the player who moved first in each game minus "
               "the fair share (1/players).</p>")
    for title, metrics in _grouped(c.metrics):
        out += [f"<h3>{_e(title)}</h3>", _metric_table(metrics, "metric")]
    out.append(_legend(c))
    panels = _forest_panels(c.metrics)
    out.append(_plot(
        "differences", "The differences B - A with their 95% intervals, one panel per "
        "scale (" + "; ".join(f"{t.lower()}: {u}" for t, u, _ in panels) + "): the metrics "
        "are in different units, so each panel has its own axis rather than all being "
        "normalised to one. Red, filled: significant after Holm's correction; grey, "
        "open: not. The vertical line is no difference.",
        lambda fig: _draw_forest(fig, panels),
        (8.0, 0.9 + 0.28 * sum(len(ms) for _, _, ms in panels) + 0.6 * len(panels))))
    return "\n".join(out)


def _distributions_section(c, runs: list) -> str:
    """Win rate by seat, scores and game length of A and B: all their finished games."""
    runs = [run for run in runs if run[2].ok]
    if not runs:
        why = "" if c.summary_a is not None else " (the comparison holds no records)"
        return f'<h2>A and B played</h2>\n<p class="note">No finished games to plot{why}.</p>'
    specs = {"A": c.a, "B": c.b}
    names = "; ".join(f"{label} ({COLOUR_NAMES[colour]}): {specs[label]}"
                      for label, _, _, colour in runs)
    return "\n".join([
        "<h2>A and B played</h2>",
        f"<p>Every finished game of each variant, paired or not. {_e(names)}.</p>",
        _plot("ab-win-rates", "Win rate by seat of A and B with 95% Wilson intervals; the "
              "dashed line is the fair share (1/players).",
              lambda fig: _draw_ab_wins(fig, runs), (7.0, 3.6)),
        _plot("ab-scores", "Scores of A and B. Left: all seats pooled, the dashed lines "
              "the means. Right: by seat, the box spans the quartiles, the whisker p10 to "
              "p90, the dark line is the median and the diamond the mean.",
              lambda fig: _draw_ab_scores(fig, runs), (9.0, 3.8)),
        _plot("ab-game-length", "Game length of A and B: decisions and turns per game, "
              "the dashed lines the means.",
              lambda fig: _draw_lengths(fig, [(label, f, colour)
                                              for label, _, f, colour in runs]),
              (9.0, 3.4))])


def _rule_changes_section(c) -> str:
    shown = [m for m in c.rules if m.significant]
    quiet = len(c.rules) - len(shown)
    out = ["<h2>Rules fired</h2>"]
    if not c.rules:
        out.append('<p class="note">No rule has an id: nothing to count.</p>')
    elif shown:
        out += [("<p>Fires per game of the rules whose firing changed significantly "
                 f"({_e(MARK)}: Holm p below 0.05 over the {_e(_plural(len(c.rules), 'rule'))}"
                 ").</p>"),
                _metric_table(shown, "rule")]
        if quiet:
            out.append(f"<p>{_e(_plural(quiet, 'other rule'))}: no significant change.</p>")
    else:
        out.append(f"<p>No rule's firing changed significantly "
                   f"({_e(_plural(quiet, 'rule'))} counted).</p>")
    for label, ids in (("Only in A", c.only_in_a), ("Only in B", c.only_in_b)):
        out.append(f"<h3>{label}</h3>\n{_id_list(ids)}")
    out += ["<h2>Dead rules</h2>",
            "<p>The rules of A that fired in no game of either variant.</p>",
            _id_list(c.dead_rules)]
    return "\n".join(out)


def _id_list(ids: list) -> str:
    if not ids:
        return "<p>none</p>"
    return "<ul>\n" + "\n".join(f"<li>{_e(i)}</li>" for i in ids) + "\n</ul>"


# ---- plots ------------------------------------------------------------------------------

_TAG = re.compile(r"<[^>]*>")
_REF = re.compile(r'(\sid="|href="#|url\(#)([^")]+)')
_ID = re.compile(r'\sid="([^"]+)"')


def _plot(name: str, label: str, draw, size: tuple) -> str:
    """A figure drawn by draw(fig), as an inline SVG in a <figure>.

    matplotlib's settings are its defaults plus a few of ours, while drawing only
    (rc_context: a user's matplotlibrc changes nothing, and nothing stays changed); the ids
    of the SVG are renamed `NAME-1`, `NAME-2`, ... in order of appearance, so that the
    plots of a page do not share ids and the same figure gets the same ids."""
    import matplotlib
    from matplotlib.figure import Figure

    # matplotlib's defaults first, whatever a user's matplotlibrc says, so that the same
    # summary gives the same page on any machine with the same matplotlib
    rc = {k: v for k, v in matplotlib.rcParamsDefault.items()
          if not k.startswith(("backend", "interactive", "webagg", "toolbar", "timezone"))}
    rc |= {"svg.fonttype": "none", "svg.hashsalt": f"tabula-report-{name}",
          "font.size": 9, "axes.titlesize": 10, "axes.spines.top": False,
          "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.35,
          "axes.axisbelow": True, "legend.fontsize": 8, "legend.frameon": False}
    with matplotlib.rc_context(rc):
        fig = Figure(figsize=size, layout="constrained")
        draw(fig)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata=SVG_METADATA)
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):].strip()            # no XML prolog, no DOCTYPE
    # the ids, numbered in order of appearance: matplotlib's hash a clip path's exact
    # coordinates, whose last bits may differ between drawings of the same figure
    ids: dict = {}
    for m in _ID.finditer(svg):
        ids.setdefault(m.group(1), f"{name}-{len(ids) + 1}")
    svg = _TAG.sub(lambda m: _REF.sub(
        lambda r: r.group(1) + ids.get(r.group(2), f"{name}-{r.group(2)}"), m.group(0)), svg)
    svg = svg.replace("<svg ", f'<svg id="{name}" role="img" aria-label="{_e(label)}" ', 1)
    return f"<figure>\n{svg}\n<figcaption>{_e(label)}</figcaption>\n</figure>"


def _text(value) -> str:
    """A string for matplotlib: '$' would start mathematical text, a leading '_' would hide
    a legend entry."""
    text = str(value).replace("$", r"\$")
    return " " + text if text.startswith("_") else text


def _bins(values: list, games: int):
    """Histogram bins: about 2.5 * games^(1/3) of them (MIN_BINS to MAX_BINS), each a whole
    number of units wide and centred on integers when the values are integers."""
    lo, hi = min(values), max(values)
    target = min(MAX_BINS, max(MIN_BINS, math.ceil(2.5 * games ** (1 / 3))))
    if all(float(v).is_integer() for v in values):
        width = max(1, math.ceil((hi - lo + 1) / target))
        return [lo - 0.5 + width * k for k in range(math.ceil((hi - lo + 1) / width) + 1)]
    if lo == hi:
        return [lo - 0.5, hi + 0.5]
    return target


def _count_axis(ax) -> None:
    """Whole numbers only on an axis of games."""
    from matplotlib.ticker import MaxNLocator
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def _seat_colour(seat: int) -> str:
    return f"C{seat % 10}"


def _fair_lines(ax, xs: list, fairs: list, half: float = 0.4) -> None:
    """The fair share: one dashed line if every bar has the same, else one per bar (or
    group of bars, centred on xs, half wide on each side)."""
    known = [(x, v) for x, v in zip(xs, fairs) if v is not None]
    if not known:
        return
    values = {round(v, 12) for _, v in known}
    if len(values) == 1:
        v = known[0][1]
        players = round(1 / v) if v > 0 else 0
        label = f"fair share 1/{players}" if players and abs(1 / players - v) < 1e-9 \
            else f"fair share {v:.3f}"
        ax.axhline(v, color=FAIR, linestyle="--", linewidth=1.2, label=label)
    else:
        ax.hlines([v for _, v in known], [x - half for x, _ in known],
                  [x + half for x, _ in known], colors=FAIR, linestyles="--",
                  linewidth=1.2, label="fair share (mean 1/players)")


def _interval_bars(ax, xs: list, rates: list, intervals: list, colours, width: float,
                   label: str | None = None, error_label: str | None = None) -> None:
    """Rates as bars (none: 0) with their intervals as error bars."""
    heights = [r if r is not None else 0.0 for r in rates]
    low = [max(0.0, h - lo) for h, (lo, _) in zip(heights, intervals)]
    high = [max(0.0, hi - h) for h, (_, hi) in zip(heights, intervals)]
    ax.bar(xs, heights, width=width, color=colours, alpha=0.8, label=label)
    ax.errorbar(xs, heights, yerr=[low, high], fmt="none", ecolor="0.15", capsize=5,
                linewidth=1.2, label=error_label)


def _rate_bars(ax, labels: list, rates: list, intervals: list, fairs: list,
               colours: list) -> None:
    """Win rates as bars with their intervals as error bars, and the fair share."""
    xs = list(range(len(labels)))
    _interval_bars(ax, xs, rates, intervals, colours, 0.6, error_label="95% Wilson interval")
    _fair_lines(ax, xs, fairs)
    _rate_axis(ax, labels)


def _rate_axis(ax, labels: list) -> None:
    """The axes of win rates: one tick per bar (or group), 0 to 1, the legend beside."""
    xs = list(range(len(labels)))
    ax.set_xticks(xs, [_text(t) for t in labels])
    ax.set_xlim(-0.6, len(xs) - 0.4)
    ax.set_ylim(0, 1.0)
    ax.set_ylabel("win rate")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))     # beside the bars


def _draw_seat_wins(fig, s, f: _Facts) -> None:
    ax = fig.subplots()
    _rate_bars(ax, [str(seat) for seat in range(s.players)], s.win_rate_by_seat,
               s.win_interval_by_seat, f.seat_fair,
               [_seat_colour(seat) for seat in range(s.players)])
    ax.set_xlabel("seat")
    ax.set_title("Win rate by seat (95% Wilson intervals)")


def _draw_agent_wins(fig, s, f: _Facts) -> None:
    ax = fig.subplots()
    names = list(s.win_rate_by_agent)
    agents = s.win_rate_by_agent
    _rate_bars(ax, names, [agents[n]["rate"] for n in names],
               [(agents[n]["low"], agents[n]["high"]) for n in names],
               [f.agent_fair.get(n) for n in names], [f"C{i % 10}" for i in range(len(names))])
    ax.set_xlabel("agent")
    ax.set_title("Win rate by agent (95% Wilson intervals)")


def _draw_scores(fig, s, f: _Facts) -> None:
    hist, box = fig.subplots(1, 2, width_ratios=[3, 2])
    seats = [seat for seat in range(s.players) if f.scores[seat]]
    data = [f.scores[seat] for seat in seats]
    colours = [_seat_colour(seat) for seat in seats]
    labels = [f"seat {seat} (mean {s.score_mean_by_seat[seat]:.2f})" for seat in seats]
    games = max(len(d) for d in data)
    hist.hist(data, bins=_bins([v for d in data for v in d], games), histtype="bar",
              rwidth=0.9, color=colours, label=labels)
    _count_axis(hist)
    hist.set_xlabel("score")
    hist.set_ylabel("games")
    hist.set_title("Scores by seat")
    hist.legend(loc="upper right")
    xs = list(range(len(seats)))
    for x, values, colour in zip(xs, data, colours):
        _box(box, x, values, colour, 0.5)
    _seat_box_axis(box, [str(seat) for seat in seats])


def _box(ax, x: float, values: list, colour: str, width: float,
         label: str | None = None) -> None:
    """One box: the quartiles, a whisker from p10 to p90, the median as a dark line and
    the mean as a diamond."""
    ordered = sorted(values)
    p10, q1, median, q3, p90 = (percentile(ordered, q) for q in (10, 25, 50, 75, 90))
    ax.vlines(x, p10, p90, colors=colour, linewidth=1.4)
    ax.bar(x, q3 - q1, bottom=q1, width=width, color=colour, alpha=0.45,
           edgecolor=colour, linewidth=1.4, label=label)
    ax.hlines(median, x - width / 2, x + width / 2, colors="0.15", linewidth=1.6)
    ax.plot([x], [statistics.fmean(values)], marker="D", color="0.15", markersize=4)


def _seat_box_axis(ax, labels: list) -> None:
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    ax.set_xlabel("seat")
    ax.set_ylabel("score")
    ax.set_title("Score spread by seat")


def _hists(ax, series: list, what: str) -> None:
    """Histograms of series [(label, values, colour)] side by side on the same bins, with
    the mean of each as a dashed line ('mean', or 'LABEL mean' when labelled)."""
    data = [values for _, values, _ in series]
    games = max(len(values) for values in data)
    labels = [_text(label) for label, _, _ in series]
    ax.hist(data, bins=_bins([v for values in data for v in values], games), rwidth=0.9,
            color=[colour for _, _, colour in series], alpha=0.8,
            label=labels if len(series) > 1 else None)
    _count_axis(ax)
    for label, values, colour in series:
        mean = statistics.fmean(values)
        ax.axvline(mean, color=colour if label else "0.15", linestyle="--", linewidth=1.2,
                   label=f"{_text(label)} mean {mean:.1f}".strip())
    ax.set_xlabel(what)
    ax.set_ylabel("games")
    if len(series) > 1:     # bars of both where they are fewest, on a light frame
        ax.legend(loc="best", frameon=True, framealpha=0.85, edgecolor="none")
    else:
        ax.legend(loc="upper right")


def _draw_lengths(fig, runs: list) -> None:
    """Decisions and turns per game of runs [(label, facts, colour)], the finished games
    only; one run without a colour: a colour per panel."""
    axes = fig.subplots(1, 2)
    for k, (ax, what) in enumerate(((axes[0], "decisions"), (axes[1], "turns"))):
        _hists(ax, [(label, getattr(f, what), colour or f"C{k}")
                    for label, f, colour in runs if f.ok], f"{what} per game")
    axes[0].set_title("Decisions per game (the agents')")
    axes[1].set_title("Turns per game")



def _effect_cell(m: dict | None) -> str:
    if m is None or m["diff"] is None:
        return ""
    ci = f" [{m['low']:+.3f}, {m['high']:+.3f}]" if m["low"] is not None else ""
    return f"{m['diff']:+.3f}{ci}" + (f" {MARK}" if m["significant"] else "")


def _by_change_section(c, result: dict) -> str:
    """Each change of the rule diff applied alone to A, and (where the mirrors were
    played) removed alone from B: a table of its effects on each headline metric (B - A,
    or B - mirror, and the interval, marked where significant after Holm over every test
    of the table), the metrics on which the two disagree, the interaction lines, and a
    forest plot a panel a metric with the whole variant on top, each change's two effects
    one under the other (a circle on A, a square from B)."""
    from types import SimpleNamespace
    rows_in = result["by_change"]
    both = any("mirror" in row for row in rows_in)
    names = [m["name"] for row in rows_in
             for m in row["metrics"] + row.get("mirror", {}).get("metrics", [])]
    metrics = list(dict.fromkeys(names))
    out = ["<h2>Each change on its own</h2>",
           f"<p>Each change of the rule diff applied alone to A (a variant of A that makes "
           f"that change and nothing else), played on the same seeds and bots as A: the "
           f"difference it makes, with its 95% interval; {_e(MARK)} marks a difference "
           f"significant after Holm's correction over the "
           f"{_e(_plural(result['correction']['family'], 'test'))} of this table. Changes "
           "that cannot be applied one without the other are one row, and the row says "
           "why. The interaction is the whole variant's difference minus the sum of the "
           "rows': far from 0, the changes do not simply add up.</p>"]
    if both:
        out.append("<p>Each change is also removed alone from B (B with that change "
                   "undone, on B's seats and seeds): B minus that variant is what the "
                   "change does seen from B. Where the two effects disagree (their "
                   "intervals do not overlap, or both are significant with opposite "
                   "signs) the change interacts with the others. The mirrors double the "
                   "toggles' games (<code>--no-mirror</code> leaves them out).</p>")
    rows = []
    for i, row in enumerate(rows_in, 1):
        by = {m["name"]: m for m in row["metrics"]}
        note = row.get("error") and f"not measured: {row['error']}" or row["grouped"]
        note += "" if len(row["changes"]) < 2 else " — " + "; ".join(row["changes"])
        rows.append([f"{i}. {row['name']}"] + (["alone on A"] if both else [])
                    + [_effect_cell(by.get(n)) for n in metrics] + [note])
        mirror = row.get("mirror")
        if mirror is None:
            continue
        by = {m["name"]: m for m in mirror["metrics"]}
        note = ", ".join(n for n in row.get("disagree", ()))
        note = f"disagree: {note}" if note else ""
        extra = (f"the same undoing as change {mirror['same_as']}" if mirror["same_as"] else
                 mirror["grouped"] + " — undone too: " + "; ".join(mirror["also"])
                 if mirror["also"] else "")
        if mirror["error"]:
            extra = f"not measured: {mirror['error']}"
        note = "; ".join(x for x in (note, extra) if x)
        rows.append(["", "removed alone from B"] + [_effect_cell(by.get(n)) for n in metrics]
                    + [note])
    for key, label in (("interaction", "interaction (whole - sum)"),
                       ("interaction_mirror", "interaction from B (whole - sum)")):
        if key not in result:
            continue
        inter = {x["metric"]: x for x in result[key]}
        rows.append([label] + ([""] if both else []) + [
            "" if inter.get(n, {}).get("interaction") is None else
            f"{inter[n]['interaction']:+.3f}" + (
                f" [{inter[n]['low']:+.3f}, {inter[n]['high']:+.3f}]"
                if inter[n].get("low") is not None else "")
            + f" (whole {inter[n]['whole']:+.3f})" for n in metrics]
            + [""])
    first = 2 if both else 1
    out.append(_table(["change"] + (["effect"] if both else []) + metrics + ["note"], rows,
                      numeric=set(range(first, len(metrics) + first)), cls="metrics"))
    whole = {m.name: m for m in c.metrics}
    panels = []
    for name in metrics:
        items = []
        if name in whole and whole[name].diff is not None:
            w = whole[name]
            items.append(SimpleNamespace(name="the whole variant", diff=w.diff, low=w.low,
                                         high=w.high, significant=w.significant))
        for i, row in enumerate(rows_in, 1):
            sides = [("on A" if both else "", "o", row["metrics"])]
            if "mirror" in row:
                sides.append(("from B", "s", row["mirror"]["metrics"]))
            for side, marker, ms in sides:
                m = next((m for m in ms if m["name"] == name), None)
                if m is not None and m["diff"] is not None:
                    label = f"{i}. {row['name']}"[:40] + (f" ({side})" if side else "")
                    items.append(SimpleNamespace(name=label, diff=m["diff"], low=m["low"],
                                                 high=m["high"], marker=marker,
                                                 significant=m["significant"]))
        if items:
            panels.append((name, "B - A", items))
    if panels:
        out.append(_plot(
            "by-change", "Each change's difference with its 95% interval, one panel a "
            "metric, the whole variant on top" + ("; each change alone on A (circle) and "
            "removed alone from B (square, B minus B without it)" if both else "") +
            ". Red, filled: significant after Holm's "
            "correction; grey, open: not. The vertical line is no difference.",
            lambda fig: _draw_forest(fig, panels),
            (8.0, 0.9 + 0.28 * sum(len(ms) for _, _, ms in panels) + 0.6 * len(panels))))
    return "\n".join(out)


def _forest_panels(metrics: list) -> list:
    """The metrics with a difference, by scale: [(title, unit, [Metric])], in the order
    of FOREST_PANELS, the metrics of no panel last."""
    panels = [(title, unit, []) for title, unit, _ in FOREST_PANELS] + [(*OTHER_PANEL, [])]
    for m in metrics:
        if m.diff is None:
            continue
        k = next((i for i, (_, _, prefixes) in enumerate(FOREST_PANELS)
                  if m.name.startswith(prefixes)), len(FOREST_PANELS))
        panels[k][2].append(m)
    return [panel for panel in panels if panel[2]]


def _draw_forest(fig, panels: list) -> None:
    from matplotlib.lines import Line2D
    axes = fig.subplots(len(panels), 1, squeeze=False,
                        height_ratios=[len(ms) + 1 for _, _, ms in panels])[:, 0]
    for ax, (title, unit, metrics) in zip(axes, panels):
        ys = list(range(len(metrics)))
        for y, m in zip(ys, metrics):
            colour = SIGNIFICANT if m.significant else QUIET
            if m.low is not None:
                ax.hlines(y, m.low, m.high, colors=colour, linewidth=2)
            ax.plot([m.diff], [y], marker=getattr(m, "marker", "o"), markersize=6,
                    color=colour,
                    markerfacecolor=colour if m.significant else "white")
        ax.axvline(0, color="0.15", linewidth=1)
        ends = [0.0] + [v for m in metrics
                        for v in ((m.diff,) if m.low is None else (m.low, m.high))]
        lo, hi = min(ends), max(ends)
        pad = (hi - lo) * 0.08 or 1.0
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_yticks(ys, [_text(m.name) for m in metrics])
        ax.set_ylim(len(metrics) - 0.5, -0.5)                  # the first one on top
        ax.grid(False, axis="y")
        ax.set_xlabel(f"B - A ({unit})")
        ax.set_title(title, loc="left")
    handles = [Line2D([], [], color=SIGNIFICANT, marker="o", linewidth=2,
                      label="significant after Holm's correction"),
               Line2D([], [], color=QUIET, marker="o", markerfacecolor="white",
                      linewidth=2, label="not significant")]
    axes[0].legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.12), ncols=2)


def _side_by_side(n: int) -> tuple:
    """The width of n bars side by side in a group 0.8 wide, and their offsets from the
    group's centre."""
    width = 0.8 / n
    return width, [(k - (n - 1) / 2) * width for k in range(n)]


def _draw_ab_wins(fig, runs: list) -> None:
    ax = fig.subplots()
    seats = max(s.players for _, s, _, _ in runs)
    width, offsets = _side_by_side(len(runs))
    fairs = [None] * seats
    for k, ((label, s, f, colour), offset) in enumerate(zip(runs, offsets)):
        _interval_bars(ax, [seat + offset for seat in range(s.players)], s.win_rate_by_seat,
                       s.win_interval_by_seat, colour, width * 0.95, label=label,
                       error_label="95% Wilson interval" if k == len(runs) - 1 else None)
        fairs = [fair if fair is not None else mine
                 for fair, mine in zip(fairs, f.seat_fair + [None] * seats)]
    _fair_lines(ax, list(range(seats)), fairs, half=0.45)
    _rate_axis(ax, [str(seat) for seat in range(seats)])
    ax.set_xlabel("seat")
    ax.set_title("Win rate by seat, A and B (95% Wilson intervals)")


def _draw_ab_scores(fig, runs: list) -> None:
    hist, box = fig.subplots(1, 2, width_ratios=[3, 2])
    _hists(hist, [(label, [v for seat in f.scores for v in seat], colour)
                  for label, _, f, colour in runs], "score (all seats)")
    hist.set_title("Scores, all seats pooled")
    seats = max(len(f.scores) for _, _, f, _ in runs)
    width, offsets = _side_by_side(len(runs))
    for (label, _, f, colour), offset in zip(runs, offsets):
        for seat, values in enumerate(f.scores):
            if values:
                _box(box, seat + offset, values, colour, width * 0.8,
                     label=label if seat == 0 else None)
    _seat_box_axis(box, [str(seat) for seat in range(seats)])
    box.legend(loc="upper right")
