"""The HTML report of a simulation: one self-contained page (no network, no script), the
summary's numbers and its plots as inline SVG, user strings escaped, the same text for the
same summary, and no crash on the edge cases (no games, all failed, one player, one game,
player counts that differ by game)."""

import re
import subprocess
import sys

import pytest

from interpreter import TabulaError
from interpreter.report import render_report, write_report
from interpreter.simulate import run_batch, summarize

from conftest import ROOT

MEDANG = str(ROOT / "specs" / "medang")
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
    return set(re.findall(r"https?://[^\s\"'<>)]*", text)) - NAMESPACES


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
        assert f"<td>{rule}</td><td class=\"num\">{per:.2f}</td>" in page


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


def test_write_report_fails_as_a_tabula_error(tmp_path):
    summary = summarize([])
    with pytest.raises(TabulaError, match="cannot write"):
        write_report(summary, tmp_path / "no such folder" / "report.html")


def test_matplotlib_is_lazy_and_pyplot_untouched():
    import matplotlib
    salt = matplotlib.rcParams["svg.hashsalt"]
    render_report(summarize([record(0, 2, [5, 2], [0])]))
    assert matplotlib.rcParams["svg.hashsalt"] == salt        # rc_context only
    code = ("import sys, interpreter, interpreter.report\n"
            "assert 'matplotlib' not in sys.modules\n"
            "from interpreter.simulate import summarize\n"
            f"recs = [{record(0, 2, [5, 2], [0], agents=['a', 'b'])!r}]\n"
            "interpreter.report.render_report(summarize(recs))\n"
            "assert 'matplotlib' in sys.modules\n"
            "assert 'matplotlib.pyplot' not in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
