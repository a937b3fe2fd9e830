"""A simulation's summary as one self-contained HTML page (`tabula simulate --report`).

Input: a Summary (interpreter.simulate.summarize: its statistics and its records).
Output: an HTML file that opens in a browser with no server and no network: the run
(spec, games, players, options, agents by seat, time), the summary's tables (win rates by
seat and by agent with 95% Wilson intervals, first-player advantage, scores, game length,
branching, rules taken, failed games with their messages) and its plots as inline SVG
(scores by seat, game lengths, win rates by seat and by agent against the fair share).

The page has no script, no stylesheet, font or image from elsewhere, and no date: the
same summary gives the same text, byte for byte (matplotlib's SVG ids are hashed with a
fixed salt and its metadata left out). Every string of the records (spec names, options,
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

from .errors import TabulaError
from .simulate import percentile

PERCENTILES = ("10", "50", "90")       # the keys of Summary.score_percentiles_by_seat
MAX_INDICES = 20                       # failed games listed by index, per message
MIN_BINS, MAX_BINS = 8, 50             # histograms
# no Date (the page would change at every run), no Creator, Format or Type (their URLs)
SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
FAIR = "0.35"                          # the colour of the fair-share lines

STYLE = """\
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
       max-width: 62rem; margin: 1.5rem auto; padding: 0 1rem; line-height: 1.4; }
h1 { font-size: 1.6rem; margin-bottom: .3rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1rem; margin-bottom: .3rem; }
dl.run { display: grid; grid-template-columns: max-content auto; gap: .15rem 1rem; }
dl.run dt { font-weight: 600; }
dl.run dd { margin: 0; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .92rem; }
th, td { padding: .2rem .6rem; border-bottom: 1px solid #e4e4e4; text-align: left;
         vertical-align: top; }
th { background: #f4f4f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: .5rem 0 1.5rem; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #555; }
p.note { color: #555; font-style: italic; }
footer { margin-top: 3rem; font-size: .8rem; color: #777; }
"""


# ---- the public API ---------------------------------------------------------------------

def write_report(summary, path, title: str | None = None) -> None:
    """Write the HTML report of a summary to path (UTF-8); TabulaError if it cannot."""
    text = render_report(summary, title)
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    except OSError as e:
        raise TabulaError(f"cannot write {path}: {e.strerror}") from None


def render_report(summary, title: str | None = None) -> str:
    """The HTML report of a summary: one self-contained page (see the module's doc)."""
    facts = _Facts(summary)
    if title is None:
        title = f"Tabula simulation: {summary.spec}" if summary.spec else "Tabula simulation"
    parts = [
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
        _run_section(summary, facts),
    ]
    if facts.ok:
        parts += [_wins_section(summary, facts), _scores_section(summary, facts),
                  _length_section(summary, facts), _rules_section(summary)]
    else:
        parts.append('<p class="note">No finished games: no statistics and no plots.</p>')
    if summary.failed:
        parts.append(_failed_section(summary, facts))
    records = f"{summary.games} game record{'s' if summary.games != 1 else ''}"
    parts += [f"<footer>Made by tabula (interpreter.report) from {records}.</footer>",
              "</body>", "</html>", ""]
    return "\n".join(parts)


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
        self.scores = [[r["scores"][s] for r in self.ok if r["players"] > s] for s in seats]
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


def _num(x, fmt: str = ".3f") -> str:
    return "-" if x is None else format(x, fmt)


def _plain(x) -> str:
    """A count or a value of the records as it is ('-' for none)."""
    return "-" if x is None else str(x)


def _interval(pair, fmt: str = ".3f") -> str:
    if pair is None:
        return "-"
    return f"[{format(pair[0], fmt)}, {format(pair[1], fmt)}]"


def _table(head: list, rows: list, numeric: set = frozenset()) -> str:
    """An HTML table; every cell is escaped, the columns in `numeric` align right."""
    def cell(tag, i, value):
        cls = ' class="num"' if i in numeric else ""
        return f"<{tag}{cls}>{_e(value)}</{tag}>"
    out = ["<table>"]
    out.append("<thead><tr>" + "".join(cell("th", i, h) for i, h in enumerate(head))
               + "</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        out.append("<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
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
    rows = "\n".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items)
    return f'<dl class="run">\n{rows}\n</dl>'


def _wins_section(s, f: _Facts) -> str:
    seat_rows = []
    for seat in range(s.players):
        seat_rows.append([seat, _counted(f.seat_agents[seat]) if f.seat_agents[seat] else "-",
                          f.seat_games[seat], _num(f.seat_wins[seat], ".2f"),
                          _num(s.win_rate_by_seat[seat]),
                          _interval(s.win_interval_by_seat[seat]),
                          _num(f.seat_fair[seat])])
    out = ["<h2>Win rates</h2>",
           ("<p>A win shared by k players counts 1/k for each; the fair share of a seat is "
            "1/players (averaged over its games). Intervals: 95%, Wilson.</p>"),
           "<h3>By seat</h3>",
           _table(["seat", "agent", "games", "wins", "win rate", "95% interval",
                   "fair share"], seat_rows, numeric={0, 2, 3, 4, 5, 6}),
           _table(["", "value", "95% interval"],
                  [["first-player advantage (seat 0's win rate minus its fair share)",
                    _num(s.first_player_advantage, "+.3f"),
                    _interval(s.first_player_interval, "+.3f")]], numeric={1, 2}),
           _plot("win-rates-by-seat", "Win rate by seat with 95% Wilson intervals",
                 lambda fig: _draw_seat_wins(fig, s, f), (7.0, 3.6)),
           "<h3>By agent</h3>"]
    agent_rows = [[name, a["games"], _num(a["rate"]), _interval((a["low"], a["high"])),
                   _num(f.agent_fair.get(name))]
                  for name, a in s.win_rate_by_agent.items()]
    out.append(_table(["agent", "seats played", "win rate", "95% interval", "fair share"],
                      agent_rows, numeric={1, 2, 3, 4}))
    if len(s.win_rate_by_agent) > 1:
        out.append(_plot("win-rates-by-agent", "Win rate by agent with 95% Wilson intervals",
                         lambda fig: _draw_agent_wins(fig, s, f), (7.0, 3.6)))
    return "\n".join(out)


def _scores_section(s, f: _Facts) -> str:
    rows = []
    for seat in range(s.players):
        pc = s.score_percentiles_by_seat[seat]
        values = f.scores[seat]
        rows.append([seat, len(values), _num(s.score_mean_by_seat[seat], ".2f"),
                     _num(s.score_std_by_seat[seat], ".2f")]
                    + [_num(pc.get(q), ".1f") for q in PERCENTILES]
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
    rows = [["decisions (the agents')", _num(s.decisions["mean"], ".1f"),
             _plain(s.decisions["min"]), _plain(s.decisions["max"])],
            ["turns", _num(s.turns["mean"], ".1f"), _plain(s.turns["min"]),
             _plain(s.turns["max"])]]
    return "\n".join([
        "<h2>Game length</h2>",
        _table(["per game", "mean", "min", "max"], rows, numeric={1, 2, 3}),
        ("<p>Mean branching (legal actions per agent's decision): "
         f"{_e(_num(s.mean_branching, '.2f'))}</p>"),
        _plot("game-length", "Game length: decisions and turns per game",
              lambda fig: _draw_lengths(fig, f), (9.0, 3.4))])


def _rules_section(s) -> str:
    rows = [[rule, _num(per, ".2f"), s.rule_counts.get(rule, 0)]
            for rule, per in sorted(s.rule_counts_per_game.items(), key=lambda kv: -kv[1])]
    if not rows:
        return "<h2>Rules taken</h2>\n<p class=\"note\">No decisions were taken.</p>"
    return "\n".join(["<h2>Rules taken</h2>",
                      "<p>Decisions taken (chance included), by the rule that asks them.</p>",
                      _table(["rule", "per game", "in all"], rows, numeric={1, 2})])


def _failed_section(s, f: _Facts) -> str:
    rows = []
    for msg, n in sorted(s.errors.items(), key=lambda kv: -kv[1]):
        recs = [r for r in f.records if r.get("error") == msg]
        where = sorted({r["error_at"] for r in recs if r.get("error_at")})
        indices = sorted(r["index"] for r in recs if isinstance(r.get("index"), int))
        shown = ", ".join(str(i) for i in indices[:MAX_INDICES])
        if len(indices) > MAX_INDICES:
            shown += f", … ({len(indices) - MAX_INDICES} more)"
        rows.append([n, msg, ", ".join(where) or "-", shown or "-"])
    return "\n".join(["<h2>Failed games</h2>",
                      ("<p>Games whose rules failed count here only, not in the "
                       "statistics.</p>"),
                      _table(["games", "error", "where", "game indices"], rows, numeric={0})])


# ---- plots ------------------------------------------------------------------------------

_TAG = re.compile(r"<[^>]*>")
_REF = re.compile(r'(\sid="|href="#|url\(#)')


def _plot(name: str, label: str, draw, size: tuple) -> str:
    """A figure drawn by draw(fig), as an inline SVG in a <figure>.

    A few of matplotlib's settings are changed while drawing only (rc_context); the ids
    of the SVG (hashed from the content, with a fixed salt) get the plot's name as a
    prefix, so that the plots of a page do not share ids."""
    import matplotlib
    from matplotlib.figure import Figure

    rc = {"svg.fonttype": "none", "svg.hashsalt": f"tabula-report-{name}",
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
    svg = _TAG.sub(lambda m: _REF.sub(lambda r: f"{r.group(1)}{name}-", m.group(0)), svg)
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


def _fair_lines(ax, xs: list, fairs: list) -> None:
    """The fair share: one dashed line if every bar has the same, else one per bar."""
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
        ax.hlines([v for _, v in known], [x - 0.4 for x, _ in known],
                  [x + 0.4 for x, _ in known], colors=FAIR, linestyles="--",
                  linewidth=1.2, label="fair share (mean 1/players)")


def _rate_bars(ax, labels: list, rates: list, intervals: list, fairs: list,
               colours: list) -> None:
    """Win rates as bars with their intervals as error bars, and the fair share."""
    xs = list(range(len(labels)))
    heights = [r if r is not None else 0.0 for r in rates]
    low = [max(0.0, h - lo) for h, (lo, _) in zip(heights, intervals)]
    high = [max(0.0, hi - h) for h, (_, hi) in zip(heights, intervals)]
    ax.bar(xs, heights, width=0.6, color=colours, alpha=0.8)
    ax.errorbar(xs, heights, yerr=[low, high], fmt="none", ecolor="0.15", capsize=5,
                linewidth=1.2, label="95% Wilson interval")
    _fair_lines(ax, xs, fairs)
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
        ordered = sorted(values)
        p10, q1, median, q3, p90 = (percentile(ordered, q) for q in (10, 25, 50, 75, 90))
        box.vlines(x, p10, p90, colors=colour, linewidth=1.4)
        box.bar(x, q3 - q1, bottom=q1, width=0.5, color=colour, alpha=0.45,
                edgecolor=colour, linewidth=1.4)
        box.hlines(median, x - 0.25, x + 0.25, colors="0.15", linewidth=1.6)
        box.plot([x], [statistics.fmean(values)], marker="D", color="0.15", markersize=4)
    box.set_xticks(xs, [str(seat) for seat in seats])
    box.set_xlim(-0.6, len(xs) - 0.4)
    box.set_xlabel("seat")
    box.set_ylabel("score")
    box.set_title("Score spread by seat")


def _draw_lengths(fig, f: _Facts) -> None:
    axes = fig.subplots(1, 2)
    for ax, values, what, colour in ((axes[0], f.decisions, "decisions per game", "C0"),
                                     (axes[1], f.turns, "turns per game", "C1")):
        ax.hist(values, bins=_bins(values, len(values)), rwidth=0.9, color=colour,
                alpha=0.8)
        _count_axis(ax)
        mean = statistics.fmean(values)
        ax.axvline(mean, color="0.15", linestyle="--", linewidth=1.2,
                   label=f"mean {mean:.1f}")
        ax.set_xlabel(what)
        ax.set_ylabel("games")
        ax.legend(loc="upper right")
    axes[0].set_title("Decisions per game (the agents')")
    axes[1].set_title("Turns per game")
