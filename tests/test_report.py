"""The HTML report of a simulation: one self-contained page (no network, no script), the
summary's numbers and its plots as inline SVG, user strings escaped, the same text for the
same summary, and no crash on the edge cases (no games, all failed, one player, one game,
player counts that differ by game). The same for the page of two variants compared
(render_comparison_report): its numbers, marks and plots, and its edge cases (one pair,
no pair, one player, no rules, no records)."""

import html
import re
import subprocess
import sys

import pytest

from tabula_rules import TabulaError
from tabula_rules.tools.compare import Comparison, Metric, compare_records
from tabula_rules.tools.report import (
    SERVE,
    render_comparison_report,
    render_report,
    write_comparison_report,
    write_report,
)
from tabula_rules.tools.simulate import compare_variants, run_batch
from tabula_rules.tools.stats import summarize

from conftest import ROOT

MEDANG = str(ROOT / "specs" / "medang")
PRAMBANAN = str(ROOT / "examples" / "medang-prambanan")
EVIL = "<script>alert(1)</script>"
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def record(index: int, players: int, scores: list, winners: list, agents=None, **extra):
    """A finished game's record, as play_record writes it."""
    rec = {"index": index, "seed": 1000 + index, "spec": "hand", "spec_hash": "0123abcd",
           "players": players, "options": {"deck": "short"},
           "agents": agents or ["random"] * players, "scores": scores, "winners": winners,
           "points": {"total": scores}, "decisions": 20 + index, "chance": 1,
           "legal_actions": 60 + 3 * index, "turns": 6 + index,
           "rule_counts": {"rule:draw": 5, "rule:play": 15 + index}}
    rec.update(extra)
    return rec


def failed(index: int, error: str, **extra) -> dict:
    """A failed game's record: no scores, winners or counts."""
    return {"index": index, "seed": 1000 + index, "error": error, **extra}


@pytest.fixture(scope="module")
def medang():
    """30 Medang games on one worker, and their report (rendered once)."""
    summary = run_batch(MEDANG, games=30, players=3, seed=1, workers=1)
    return summary, render_report(summary)


def external_urls(text: str) -> set:
    """The addresses a page names, but the SVG namespaces and its example games' links to
    a local `tabula serve` (links on this machine that load nothing when the page opens)."""
    found = set(re.findall(r"https?://[^\s\"'<>)]*", text)) - NAMESPACES
    return {u for u in found if not u.startswith(f"{SERVE}/replay?")}


def test_write_report_writes_the_page(medang, tmp_path):
    summary, page = medang
    out = tmp_path / "report.html"
    write_report(summary, out)
    text = out.read_text(encoding="utf-8")
    assert text == page
    assert text.startswith("<!DOCTYPE html>")
    assert text.rstrip().endswith("</html>")


def test_the_page_holds_the_summary(medang):
    s, page = medang
    assert "<title>Tabula simulation: medang</title>" in page
    assert "temple=borobudur" in page
    assert ">30<" in page                                         # games
    assert f"<dd>{s.workers}</dd>" in page and f"<dd>{s.seconds:.1f}</dd>" in page
    for seat in range(3):
        lo, hi = s.win_interval_by_seat[seat]
        assert f">{s.win_rate_by_seat[seat]:.3f}<" in page
        assert f"[{lo:.3f}, {hi:.3f}]" in page
        assert f">{s.score_mean_by_seat[seat]:.2f}<" in page
        assert f">{s.score_std_by_seat[seat]:.2f}<" in page
        assert f">{s.score_percentiles_by_seat[seat]['90']:.1f}<" in page
    a = s.win_rate_by_agent["random"]
    assert f"[{a['low']:.3f}, {a['high']:.3f}]" in page
    lo, hi = s.first_player_interval
    assert f">{s.first_player_advantage:+.3f}<" in page and f"[{lo:+.3f}, {hi:+.3f}]" in page
    assert f">{s.decisions['mean']:.1f}<" in page and f">{s.turns['mean']:.1f}<" in page
    assert f"{s.mean_branching:.2f}" in page
    for rule, per in s.rule_counts_per_game.items():
        assert f"<td>{html.escape(rule)}</td><td class=\"num\">{per:.2f}</td>" in page


def test_the_page_holds_its_plots(medang):
    page = medang[1]
    # one agent name: no plot of win rates by agent
    assert page.count("<svg") == 3
    for name in ("win-rates-by-seat", "scores", "game-length"):
        assert f'<svg id="{name}" role="img"' in page
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    assert "fair share 1/3" in page                   # the dashed line's legend
    assert "Win rate by seat (95% Wilson intervals)" in page
    # the ids of the plots are unique in the page
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def test_the_page_is_self_contained(medang):
    page = medang[1]
    assert external_urls(page) == set()
    assert "<script" not in page.lower()
    assert "<link" not in page.lower() and "@import" not in page
    assert not re.search(r"\ssrc=", page)
    assert not re.search(r"url\((?!#)", page)          # only references within the page


def test_the_same_summary_gives_the_same_text(medang):
    summary, page = medang
    assert render_report(summary) == page


def test_user_strings_are_escaped():
    records = [record(0, 2, [3, 1], [0], agents=[EVIL, "random"], spec=EVIL,
                      options={"deck": EVIL}),
               record(1, 2, [2, 4], [1], agents=["random", EVIL], spec=EVIL,
                      options={"deck": EVIL}),
               failed(2, EVIL, error_at=f"{EVIL}:1:2")]
    page = render_report(summarize(records), title=f"Report {EVIL}")
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<svg") == 4                    # two agents: their plot too
    assert external_urls(page) == set()


def test_a_run_without_games():
    summary = run_batch(MEDANG, games=0, players=3, seed=1, workers=1)
    page = render_report(summary)
    assert page.startswith("<!DOCTYPE html>")
    assert "No finished games" in page and "<svg" not in page
    assert render_report(summary) == page


def test_all_games_failed():
    summary = summarize([failed(0, "the box is full"), failed(1, "the box is full"),
                         failed(2, "no such zone", error_at="flaky.yaml:12:7")])
    page = render_report(summary)
    assert "No finished games" in page and "<svg" not in page
    assert "<h2>Failed games</h2>" in page
    assert "<td class=\"num\">2</td><td>the box is full</td><td>-</td><td>0, 1</td>" in page
    assert "flaky.yaml:12:7" in page


def test_one_player():
    summary = summarize([record(0, 1, [5], [0]), record(1, 1, [3], [])])
    page = render_report(summary)
    assert page.count("<svg") == 3
    assert f">{summary.win_rate_by_seat[0]:.3f}<" in page
    assert "fair share 1/1" in page


def test_a_single_game():
    summary = summarize([record(0, 2, [5, 2.5], [0])])
    page = render_report(summary)
    assert page.count("<svg") == 3
    assert ">1.000<" in page and ">5.00<" in page and ">2.50<" in page


def test_player_counts_that_differ_by_game():
    records = [record(0, 2, [5, 2], [0], agents=["mcts:50", "random"]),
               record(1, 3, [1, 2, 3], [1, 2], agents=["random", "mcts:50", "greedy"]),
               record(2, 4, [0, 0, 1, 1], [2, 3]),
               failed(3, "the box is full", players=3)]
    summary = summarize(records)
    page = render_report(summary)
    assert page.count("<svg") == 4
    assert "differ by game: 2 in 1 game, 3 in 2 games, 4 in 1 game" in page
    assert "fair share (mean 1/players)" in page      # one dashed line per bar


def test_old_records_and_the_first_player():
    # records of an older tabula (no first_player): read, and the page says so
    old = [record(i, 2, [3, 1 + i], [0]) for i in range(3)]
    page = render_report(summarize(old))
    assert "The records name no first player" in page
    assert "The first player (whoever moved first)" not in page
    # records that name the first player: seat 1 began both games and won one
    new = [record(i, 2, [3, 1 + 3 * i], [i], first_player=1) for i in range(2)]
    page = render_report(summarize(new))
    assert ("<tr><td>1 (first player)</td><td class=\"num\">2</td>"
            "<td class=\"num\">0.500</td>") in page
    assert "Games begun by each seat: seat 0 0, seat 1 2." in page
    assert "The first player (whoever moved first) wins 50.0% of games: +0.0 points" in page


def test_write_report_fails_as_a_tabula_error(tmp_path):
    summary = summarize([])
    with pytest.raises(TabulaError, match="cannot write"):
        write_report(summary, tmp_path / "no such folder" / "report.html")


def test_matplotlib_is_lazy_and_pyplot_untouched():
    import matplotlib
    salt = matplotlib.rcParams["svg.hashsalt"]
    render_report(summarize([record(0, 2, [5, 2], [0])]))
    assert matplotlib.rcParams["svg.hashsalt"] == salt        # rc_context only
    code = ("import sys, tabula_rules, tabula_rules.tools.report\n"
            "assert 'matplotlib' not in sys.modules\n"
            "from tabula_rules.tools.stats import summarize\n"
            f"recs = [{record(0, 2, [5, 2], [0], agents=['a', 'b'])!r}]\n"
            "tabula_rules.tools.report.render_report(summarize(recs))\n"
            "assert 'matplotlib' in sys.modules\n"
            "assert 'matplotlib.pyplot' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


# ---- the page of two variants compared --------------------------------------------------

COMPARISON_PLOTS = ("differences", "ab-win-rates", "ab-scores", "ab-game-length")
RULE_DIFF = """--- a (a.yaml)
+++ b (b.yaml)
changed rules.general
    choose:
      - "u in [left(self)] where u != none & u.level < 3"
      + "u in [left(self), above(self)] where u != none"
1 differences: 1 changed, 0 added, 0 removed"""


def comparison(recs_a: list, recs_b: list, ids_a=(), ids_b=(), a="hand_a", b="hand_b",
               summaries: bool = True, **fields) -> Comparison:
    """A Comparison of hand-made records, built as compare_variants builds it."""
    metrics, rules, dead, pairs = compare_records(recs_a, recs_b, list(ids_a), list(ids_b))
    sa, sb = summarize(recs_a), summarize(recs_b)
    first = next((r for r in recs_a + recs_b if "error" not in r), None)
    values = {"a": a, "b": b, "games": len(recs_a), "pairs": pairs,
              "players": first["players"] if first else 2,
              "options_a": {"deck": "short"}, "options_b": {"deck": "short"},
              "agents": first["agents"] if first else [], "seed": 1,
              "failed": {"a": sa.failed, "b": sb.failed}, "metrics": metrics,
              "rules": rules, "only_in_a": sorted(set(ids_a) - set(ids_b)),
              "only_in_b": sorted(set(ids_b) - set(ids_a)), "dead_rules": dead,
              "summary_a": sa if summaries else None, "summary_b": sb if summaries else None}
    return Comparison(**{**values, **fields})


def fired(rec: dict, **counts) -> dict:
    """The record with the ids that fired in its game (`rule_x=3` for rule:x)."""
    rec["fired"] = {name.replace("_", ":", 1): n for name, n in counts.items()}
    return rec


def svg_count(page: str) -> int:
    return page.count("<svg")


@pytest.fixture(scope="module")
def medang_pair(tmp_path_factory):
    """Medang against Medang with the temple of Prambanan, 20 pairs, and the page (written
    once, read back)."""
    c = compare_variants(MEDANG, PRAMBANAN, 20, players=3, seed=1, workers=1,
                         agents="random")
    out = tmp_path_factory.mktemp("compare") / "compare.html"
    write_comparison_report(c, out, rule_diff=RULE_DIFF)
    return c, out.read_text(encoding="utf-8")


def test_write_comparison_report_writes_the_page(medang_pair, tmp_path):
    c, page = medang_pair
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    with pytest.raises(TabulaError, match="cannot write"):
        write_comparison_report(c, tmp_path / "no such folder" / "compare.html")


def metric_row(m) -> str:
    """The row of a Metric in the comparison page's tables (its first cells)."""
    lo_hi = "-" if m.low is None else f"[{m.low:+.3f}, {m.high:+.3f}]"
    name, value = m.effect
    effect = "-" if value is None else f"{name}\u00a0{value:+.2f}"
    p = lambda x: "-" if x is None else ("&lt;0.0001" if x < 0.0001 else f"{x:.4f}")  # noqa
    return (f"<td>{html.escape(m.name)}</td><td class=\"num\">{m.a:.3f}</td>"
            f"<td class=\"num\">{m.b:.3f}</td><td class=\"num\">{m.diff:+.3f}</td>"
            f"<td class=\"num\">{lo_hi}</td><td class=\"num\">{effect}</td>"
            f"<td class=\"num\">{p(m.p)}</td><td class=\"num\">{p(m.p_adjusted)}</td>")


def test_the_comparison_page_holds_the_run_and_the_metrics(medang_pair):
    c, page = medang_pair
    assert "<title>Tabula comparison: medang (A) against medang_prambanan (B)</title>" in page
    for text in ("<dd>medang (hash ", "<dd>medang_prambanan (hash ", "<dd>3</dd>",
                 "20 of each, paired", "<dd>20 (both games finished)</dd>",
                 "<dt>options of A</dt><dd>temple=borobudur</dd>",
                 "<dt>options of B</dt><dd>temple=prambanan</dd>",
                 "<dt>bots</dt><dd>random in every seat</dd>", "<dd>A: 0, B: 0</dd>"):
        assert text in page
    significant = [m for m in c.metrics if m.significant]
    assert significant                       # game length at least: B ends sooner
    for m in c.metrics:
        row = metric_row(m)
        mark = '<td class="mark">*</td></tr>' if m.significant else '<td class="mark"></td>'
        assert row + mark in page
        assert (f'<tr class="sig">{row}' in page) == m.significant
    for title in ("Win rates", "Game length", "Scores", "Points by scoring rule"):
        assert f"<h3>{title}</h3>" in page
    assert "after Holm's correction (Holm p) is below 0.05" in page       # the legend


def test_the_comparison_page_holds_the_designers_metrics(medang_pair):
    c, page = medang_pair
    names = {m.name for m in c.metrics}
    assert {"lead changes", "drama (winner's largest deficit)", "comeback (winner behind)",
            "branching, max"} <= names
    assert "<h2>Designer's metrics</h2>" in page and "<h3>A</h3>" in page
    assert "<h3>B</h3>" in page and "<dt>strategic depth</dt>" in page
    lead = c.summary_b.lead_changes
    assert f"<td>lead changes</td><td class=\"num\">{lead['mean']:.2f}</td>" in page


def test_the_verdict_is_on_top(medang_pair):
    c, page = medang_pair
    from tabula_rules.tools.compare import verdict
    lines = verdict(c)
    top = page.index('<section class="verdict">')
    assert top < page.index("<dl class=\"run\">") < page.index("<h2>Metrics</h2>")
    assert f'<p class="headline">{html.escape(lines[0])}</p>' in page
    for line in lines[1:]:
        assert f"<li>{html.escape(line)}</li>" in page
    tested = sum(m.diff is not None for m in c.metrics)
    hits = sum(m.significant for m in c.metrics)
    assert f"{tested} metrics tested, {hits} significant after Holm correction" in lines[0]


def test_the_comparison_page_holds_the_rules(medang_pair):
    c, page = medang_pair
    shown = [m for m in c.rules if m.significant]
    assert shown
    for m in c.rules:
        assert (f"<td>{m.name}</td>" in page) == m.significant
    assert f"<p>{len(c.rules) - len(shown)} other rules: no significant change.</p>" in page
    assert "<h3>Only in A</h3>\n<p>none</p>" in page
    assert "<h2>Dead rules</h2>" in page


def test_the_comparison_page_holds_its_plots(medang_pair):
    page = medang_pair[1]
    assert svg_count(page) == 4
    for name in COMPARISON_PLOTS:
        assert f'<svg id="{name}" role="img"' in page
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    assert "Win rates and first-player advantage" in page       # the forest's panels
    assert "fair share 1/3" in page
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def test_the_comparison_page_is_self_contained_and_the_same_each_time(medang_pair):
    c, page = medang_pair
    assert external_urls(page) == set()
    assert "<script" not in page.lower() and "<link" not in page.lower()
    assert not re.search(r"\ssrc=", page) and not re.search(r"url\((?!#)", page)
    assert render_comparison_report(c, rule_diff=RULE_DIFF) == page


def test_the_same_seeds_give_the_same_comparison_page(medang_pair):
    # another run of the same games, on 2 workers: the same numbers, the same bytes
    again = compare_variants(MEDANG, PRAMBANAN, 20, players=3, seed=1, workers=2,
                             agents="random")
    assert render_comparison_report(again, rule_diff=RULE_DIFF) == medang_pair[1]
    other = compare_variants(MEDANG, PRAMBANAN, 20, players=3, seed=2, workers=1,
                             agents="random")
    assert render_comparison_report(other, rule_diff=RULE_DIFF) != medang_pair[1]


def test_the_rule_diff_is_shown_escaped_and_word_by_word(medang_pair):
    page = medang_pair[1]
    assert '<div class="diff">' in page
    # the changed line: the words A lacks are marked in B's line, the words B dropped in A's
    assert ('<div class="del" style="padding-left: 8ch">- &quot;u in [left(self)'
            '<del> ] where u != none &amp; u.level &lt; 3</del>&quot;</div>') not in page
    removed = re.search(r'<div class="del" style="padding-left: 8ch">(.*?)</div>', page).group(1)
    added = re.search(r'<div class="add" style="padding-left: 8ch">(.*?)</div>', page).group(1)
    assert removed.startswith("- &quot;u in [left(self)")
    assert "<del> &amp; u.level &lt; 3</del>" in removed
    assert re.search(r"<ins>[^<]*above[^<]*</ins>", added) and "<del>" not in added
    assert "<ins>" not in removed
    assert '<div class="add" style="padding-left: 2ch">+++ b (b.yaml)</div>' in page
    assert ('<div class="head" style="padding-left: 2ch">1 differences: 1 changed, 0 added, '
            "0 removed</div>") in page


def test_word_diff_marks_the_changed_words():
    from tabula_rules.tools.diff import word_diff
    a, b = word_diff("choose: u in [left(self)] where u != none",
                     "choose: u in [left(self), above(self)] where u != none")
    assert a == [("choose: u in [left(self)] where u != none", False)]
    assert "".join(t for t, _ in b) == "choose: u in [left(self), above(self)] where u != none"
    assert [t for t, changed in b if changed] in ([", above(self)"], ["(self), above"])
    a, b = word_diff("value: 4 tiles", "value: 3 tiles")
    assert a == [("value: ", False), ("4", True), (" tiles", False)]
    assert b == [("value: ", False), ("3", True), (" tiles", False)]
    # rewritten rather than edited: the whole lines are marked
    assert word_diff("the general removes", "an example, not a rulebook's") == (
        [("the general removes", True)], [("an example, not a rulebook's", True)])
    assert word_diff("same", "same") == ([("same", False)], [("same", False)])
    assert word_diff("", "new") == ([], [("new", True)])


@pytest.fixture(scope="module")
def medang_diff():
    """diff_specs of Medang and its Prambanan variant (computed once; no test changes it)."""
    from tabula_rules.spec import load_spec
    from tabula_rules.tools.diff import diff_specs
    return diff_specs(load_spec(MEDANG), load_spec(PRAMBANAN))


def test_the_rule_diff_of_diff_specs(medang_diff):
    # the dict of diff_specs is shown as `tabula diff` prints it
    from tabula_rules.tools.diff import format_diff
    d = medang_diff
    recs = [record(i, 2, [3, 1 + i], [0]) for i in range(3)]
    c = comparison(recs, recs)
    page = render_comparison_report(c, rule_diff=d)
    assert page == render_comparison_report(c, rule_diff=format_diff(d))
    assert "<ins>prambanan</ins>" in page and re.search(r"<ins>[^<]*above[^<]*</ins>", page)


def test_dead_rules_and_rules_of_one_variant():
    recs_a = [fired(record(i, 2, [3 + i % 2, 1], [0]), rule_draw=1 + i % 2, rule_play=4)
              for i in range(6)]
    recs_b = [fired(record(i, 2, [3, 2 + i % 3], [0]), rule_draw=1 + i % 2,
                    rule_play=7 + i % 2, rule_steal=1) for i in range(6)]
    c = comparison(recs_a, recs_b, ["rule:draw", "rule:play", "rule:never", "rule:old"],
                   ["rule:draw", "rule:play", "rule:never", "rule:steal"])
    page = render_comparison_report(c)
    assert c.dead_rules == ["rule:never", "rule:old"]
    assert "<ul>\n<li>rule:never</li>\n<li>rule:old</li>\n</ul>" in page
    assert "<h3>Only in A</h3>\n<ul>\n<li>rule:old</li>\n</ul>" in page
    assert "<h3>Only in B</h3>\n<ul>\n<li>rule:steal</li>\n</ul>" in page
    play = next(m for m in c.rules if m.name == "rule:play")
    assert play.significant
    assert f'<tr class="sig">{metric_row(play)}' in page
    assert metric_row(play).startswith('<td>rule:play</td><td class="num">4.000</td>'
                                       '<td class="num">7.500</td><td class="num">+3.500</td>')
    assert "<p>3 other rules: no significant change.</p>" in page


def test_comparison_strings_are_escaped():
    recs = [record(i, 2, [3, 1 + i], [0], agents=[EVIL, "random"], options={"deck": EVIL})
            for i in range(3)]
    c = comparison(recs, [dict(r) for r in recs], [EVIL], [EVIL], a=EVIL, b=EVIL,
                   options_a={"deck": EVIL}, options_b={"deck": EVIL}, dead_rules=[EVIL])
    page = render_comparison_report(c, rule_diff=EVIL)
    assert "<script" not in page
    evil = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert f"<title>Tabula comparison: {evil} (A) against {evil} (B)</title>" in page
    for text in (f"<dd>{evil} (hash 0123abcd)</dd>", f"<dd>deck={evil}</dd>",
                 f"<dd>0: {evil}, 1: random", f'<div class="head" style="padding-left: 2ch">'
                 f"{evil}</div>", f"<li>{evil}</li>"):
        assert text in page
    assert external_urls(page) == set()


def test_a_comparison_of_one_pair():
    c = comparison([record(0, 2, [5, 2], [0])], [record(0, 2, [4, 4], [0, 1])],
                   ["rule:draw"], ["rule:draw"])
    assert c.pairs == 1 and all(m.low is None for m in c.metrics)
    page = render_comparison_report(c)
    assert svg_count(page) == 4
    row = ('<tr><td>score, seat 1</td><td class="num">2.000</td><td class="num">4.000</td>'
           '<td class="num">+2.000</td><td class="num">-</td><td class="num">-</td>'
           '<td class="num">-</td><td class="num">-</td><td class="mark"></td></tr>')
    assert row in page                                    # no interval, no test, no mark
    assert "one pair gives no interval and no test" in page and 'class="sig"' not in page


def test_a_comparison_of_no_pairs():
    # every game of B failed: no metric; the rules' Metrics have None everywhere
    c = comparison([record(0, 2, [5, 2], [0]), record(1, 2, [1, 2], [1])],
                   [failed(0, "the box is full"), failed(1, "the box is full")],
                   ["rule:draw"], ["rule:draw"])
    assert c.pairs == 0 and c.metrics == [] and c.rules[0].a is None
    page = render_comparison_report(c)
    assert "No pair in which both games finished" in page
    assert "<dd>A: 0, B: 2</dd>" in page and "<h2>Failed games of B</h2>" in page
    assert svg_count(page) == 3                           # A's games only, no forest
    # hand-made metrics with None fields, and both runs failed: no plots at all
    nothing = Metric("win rate, seat 0", None, None, None, None, None, 0)
    c = comparison([failed(0, "oops")], [failed(0, "oops")], metrics=[nothing])
    page = render_comparison_report(c)
    assert svg_count(page) == 0 and "No finished games to plot" in page
    assert '<tr><td>win rate, seat 0</td><td class="num">-</td>' in page


def test_a_comparison_of_one_player_without_rules():
    c = comparison([record(i, 1, [5 + i], [0]) for i in range(3)],
                   [record(i, 1, [4 + 2 * i], [0] if i else []) for i in range(3)])
    assert c.rules == [] and c.players == 1
    page = render_comparison_report(c)
    assert svg_count(page) == 4 and "fair share 1/1" in page
    assert "No rule has an id" in page
    assert ("<h2>Dead rules</h2>\n<p>The rules of A that fired in no game of either "
            "variant.</p>\n<p>none</p>") in page


def test_a_comparison_without_its_runs():
    recs = [record(i, 2, [3, 1 + i], [0]) for i in range(3)]
    c = comparison(recs, recs, summaries=False)
    page = render_comparison_report(c)
    assert svg_count(page) == 1                          # the forest plot only
    assert "the comparison holds no records" in page
    assert '<div class="diff">' not in page              # no rule diff given


def test_a_users_matplotlibrc_changes_nothing(tmp_path):
    # the same summary gives the same page whatever the user's matplotlib settings
    import os
    import subprocess
    import sys
    (tmp_path / "matplotlibrc").write_text(
        'axes.prop_cycle: cycler(color=["ff0000", "00ff00"])\nfont.size: 20\n'
        "axes.grid: False\n")
    code = ("import sys\n"
            "from tabula_rules.tools.simulate import run_batch\n"
            "from tabula_rules.tools.report import render_report\n"
            "s = run_batch(sys.argv[1], 6, players=3, seed=1, workers=1)\n"
            "s.seconds = None\n"
            "sys.stdout.write(render_report(s))\n")
    pages = []
    for rc in (None, str(tmp_path / "matplotlibrc")):
        env = dict(os.environ)
        env.pop("MATPLOTLIBRC", None)
        if rc:
            env["MATPLOTLIBRC"] = rc
        run = subprocess.run([sys.executable, "-c", code, MEDANG], capture_output=True,
                             text=True, env=env, check=True)
        pages.append(run.stdout)
    assert "<svg" in pages[0] and pages[0] == pages[1]


# ---- the pages in a real browser: no horizontal overflow, screenshots ----------------------

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
WIDTHS = (1280, 800)
INSTALL = ("the report pages are checked in headless Chromium, which is not installed: on "
           "Debian or Ubuntu, `apt-get install -y chromium` (as root; .ci/run does it in CI)")
# measures the page after layout and writes the result into the DOM:
# the viewport's width, the document's scroll width, and every element that sticks out
# of the viewport or whose content is wider than its box (text overflowing a cell)
MEASURE = """<script>
(function () {
  var doc = document.documentElement, width = doc.clientWidth, out = [];
  function name(el) {
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.className && el.className.baseVal === undefined ? "." + el.className : "") +
      " '" + (el.textContent || "").trim().slice(0, 40) + "'";
  }
  var all = document.body.getElementsByTagName("*");
  for (var i = 0; i < all.length; i++) {
    var el = all[i], r = el.getBoundingClientRect();
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    if (r.width && (r.right > width + 1 || r.left < -1))
      out.push("outside the page: " + name(el) + " right " + Math.round(r.right));
    else if (el.namespaceURI === "http://www.w3.org/1999/xhtml" && el.clientWidth > 0 &&
             el.scrollWidth > el.clientWidth + 1)
      out.push("wider than its box: " + name(el) + " " + el.scrollWidth + " > " +
               el.clientWidth);
  }
  var pre = document.createElement("pre");
  pre.id = "tabula-measure";
  pre.textContent = JSON.stringify({width: width, scroll: doc.scrollWidth,
                                    body: document.body.scrollWidth, overflow: out});
  document.body.appendChild(pre);
})();
</script>"""


def browser() -> str:
    """The path of headless Chromium; the test fails (not skips) without it, saying how
    to install it."""
    import shutil
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.fail(INSTALL)


def check_in_browser(chromium, page: str, name: str, folder) -> list:
    """Screenshots of the page at each width (their paths), after checking in the
    browser that nothing sticks out horizontally: the page with the measuring script,
    opened in a new tab of `chromium` (Playwright's, headless) as wide as the width, the
    measurements read from the DOM after the script ran, and its screenshot."""
    import json

    from PIL import Image
    path = folder / f"{name}.html"
    path.write_text(page.replace("</body>", MEASURE + "\n</body>", 1), encoding="utf-8")
    shots = []
    for width in WIDTHS:
        shot = folder / f"{name}-{width}.png"
        tab = chromium.new_page(viewport={"width": width, "height": 2400})
        try:
            tab.goto(path.as_uri())
            measured = tab.locator("#tabula-measure")
            assert measured.count() == 1, \
                f"{name} at {width} px: the measuring script did not run"
            data = json.loads(measured.inner_text())
            tab.screenshot(path=str(shot))
        finally:
            tab.close()
        assert data["width"] == width, data
        assert data["scroll"] <= width and data["body"] <= width, \
            f"{name} scrolls sideways at {width} px: {data}"
        assert data["overflow"] == [], f"{name} at {width} px: {data['overflow']}"
        with Image.open(shot) as image:
            assert image.size == (width, 2400)
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
            assert colours is None or len(colours) > 50, f"{shot} is blank"
        shots.append(shot)
    return shots


def test_the_pages_fit_a_browser_window(medang, medang_pair, medang_diff, tmp_path):
    """The simulation's page, the comparison's (with the whole rule diff of Medang and
    its Prambanan variant), and a page of long unbroken strings, at 1280 and 800 px in
    headless Chromium: no horizontal scroll, no element outside the page, no text wider
    than its box; a screenshot of each (left in the test's folder)."""
    c, d = medang_pair[0], medang_diff
    long = "x" * 300
    recs = [record(i, 2, [3, 1 + i], [0], options={"deck": long}) for i in range(4)]
    recs_b = [fired(dict(r), **{f"rule_{long}": i}) for i, r in enumerate(recs)]
    stress = comparison([fired(dict(r)) for r in recs], recs_b, [f"rule:{long}"],
                        [f"rule:{long}"], a=long, b=long, options_a={"deck": long},
                        dead_rules=[long])
    pages = {"simulation": medang[1],
             "comparison": render_comparison_report(c, rule_diff=d),
             "long-strings": render_comparison_report(
                 stress, rule_diff=f"changed {long}\n    {long}:\n      - {long} a\n"
                                   f"      + {long} b\n  - {long}")}
    from playwright.sync_api import sync_playwright
    exe = browser()
    with sync_playwright() as p:      # one Chromium for every page and width
        chromium = p.chromium.launch(executable_path=exe, args=[
            "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--disable-dev-shm-usage"])
        try:
            for name, page in pages.items():
                shots = check_in_browser(chromium, page, name, tmp_path)
                assert [s.name for s in shots] == [f"{name}-{w}.png" for w in WIDTHS]
        finally:
            chromium.close()
