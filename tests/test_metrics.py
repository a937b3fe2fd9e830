"""The designer's metrics (docs/simulate.md, Designer's metrics): the per-game figures of a
record (lead changes, drama, the most legal actions), their statistics in a Summary, the
records read back with and without them, the paired comparison, the text table, the JSON,
the HTML report and simulate --depth."""

import json

import pytest

from tabula_rules import TabulaError, load_spec
from tabula_rules.tools import simulate
from tabula_rules.tools.cli import main
from tabula_rules.tools.compare import _game_metrics
from tabula_rules.tools.report import render_report
from tabula_rules.tools.simulate import run_batch, trajectory_figures
from tabula_rules.tools.stats import depth_figures, format_table, summarize, winning_margin

from conftest import ROOT

TINY = str(ROOT / "examples" / "tiny")
TTT = str(ROOT / "examples" / "tic_tac_toe")
FIGURES = ("lead_changes", "drama", "legal_max")


def record(index, scores, winners, **extra):
    rec = {"index": index, "seed": 1000 + index, "spec": "hand", "spec_hash": "0123abcd",
           "players": len(scores), "options": {}, "agents": ["random"] * len(scores),
           "scores": scores, "winners": winners, "points": {"total": scores},
           "decisions": 10, "chance": 0, "legal_actions": 40, "turns": 5,
           "rule_counts": {"rule:play": 10}, "first_player": 0}
    rec.update(extra)
    return rec


# ---- the figures of one game ------------------------------------------------------------

def test_a_lead_that_changes_three_times_counts_three():
    # leaders: 0, 1, 0, 1, then the end (1): three changes
    f = trajectory_figures([[1, 0], [1, 2], [3, 2], [3, 4]], [3, 5], [1])
    assert f["lead_changes"] == 3
    # the winner (1) trailed by 1 at most; its final score is 5
    assert f["drama"] == pytest.approx(0.2)


def test_a_tie_names_no_leader_and_changes_nothing():
    assert trajectory_figures([[0, 0], [2, 1], [2, 2], [3, 2]], [4, 2], [0]) == \
        {"lead_changes": 0, "drama": 0.0}
    # a leader, a tie, the other leader: one change
    assert trajectory_figures([[2, 1], [2, 2]], [2, 3], [1])["lead_changes"] == 1


def test_drama_is_the_winners_largest_deficit_over_its_final_score():
    # the winner (seat 1) was 8 behind, and ended with 20
    f = trajectory_figures([[3, 1], [10, 2], [12, 14]], [12, 20], [1])
    assert f["drama"] == pytest.approx(0.4)
    # a shared win: the best-placed winner's deficit; a final score under 1 counts as 1
    assert trajectory_figures([[0.5, 0, 0]], [0, 0, 0], [1, 2])["drama"] == 0.5
    # a winner never behind: 0
    assert trajectory_figures([[1, 0], [5, 5]], [9, 2], [0])["drama"] == 0.0


def test_records_of_a_run_carry_the_figures(tmp_path):
    out = tmp_path / "a.jsonl"
    s = run_batch(TINY, 3, seed=0, workers=1, out=out)
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    for r in recs:
        assert isinstance(r["lead_changes"], int) and r["lead_changes"] >= 0
        assert isinstance(r["drama"], float) and r["drama"] >= 0
        assert 0 < r["legal_max"] <= r["legal_actions"]
    assert s.max_branching == max(r["legal_max"] for r in recs)
    assert s.lead_changes["mean"] == pytest.approx(sum(r["lead_changes"] for r in recs) / 3)
    # the same seed, the same bytes (two workers)
    again = tmp_path / "b.jsonl"
    run_batch(TINY, 3, seed=0, workers=2, out=again)
    assert again.read_bytes() == out.read_bytes()


# ---- their statistics -------------------------------------------------------------------

def test_summary_of_known_figures():
    recs = [record(0, [10, 4], [0], lead_changes=3, drama=0.5, legal_max=7),
            record(1, [6, 8], [1], lead_changes=1, drama=0.0, legal_max=9),
            record(2, [5, 5], [0, 1], lead_changes=2, drama=0.25, legal_max=4)]
    s = summarize(recs)
    assert [winning_margin(r) for r in recs] == [6, 2, 0]
    assert s.margin["mean"] == pytest.approx(8 / 3) and s.margin["games"] == 3
    assert s.lead_changes["mean"] == 2 and s.lead_changes["max"] == 3
    assert s.lead_changes["low"] < 2 < s.lead_changes["high"]
    assert s.drama["mean"] == pytest.approx(0.25) and s.drama["max"] == 0.5
    assert s.drama["comeback"] == pytest.approx(2 / 3)
    assert s.max_branching == 9
    table = format_table(s)
    assert "winning margin          2.67" in table
    assert "lead changes            2.00" in table and "(max 3)" in table
    assert "comeback share          0.667" in table
    assert "(max 9)" in table
    d = s.to_dict()
    assert d["lead_changes"]["mean"] == 2 and d["drama"]["comeback"] == pytest.approx(2 / 3)


def test_records_of_an_older_run_have_no_figures_but_are_summarised():
    s = summarize([record(0, [3, 1], [0]), record(1, [1, 2], [1])])
    assert s.lead_changes["games"] == 0 and s.lead_changes["mean"] is None
    assert s.max_branching is None and s.drama["comeback"] is None
    assert s.margin["mean"] == 1.5
    assert "lead changes            -  (not in these records" in format_table(s)
    assert "Designer's metrics" in render_report(s)


def test_strategic_depth_figures():
    recs = [record(i, [1, 0] if i % 2 == 0 else [0, 1], [i % 2],
                   agents=["mcts:8", "random"] if i % 2 == 0 else ["random", "mcts:8"])
            for i in range(3)] + [record(3, [0, 1], [1], agents=["mcts:8", "random"])]
    d = depth_figures(recs, "mcts:8", "random")
    assert d["rate"] == 0.75 and d["fair"] == 0.5 and d["finished"] == 4
    assert d["low"] < 0.75 < d["high"]


# ---- read back --------------------------------------------------------------------------

@pytest.mark.parametrize("change, why", [
    ({"drama": -0.5}, "'drama' is not a number, 0 or more"),
    ({"drama": "1/2"}, "'drama' is not a number, 0 or more"),
    ({"drama": True}, "'drama' is not a number, 0 or more"),
    ({"lead_changes": 1.5}, "'lead_changes' is not a whole number"),
    ({"legal_max": -1}, "'legal_max' is not a whole number"),
])
def test_bad_figures_are_bad_records(change, why):
    assert simulate._bad_record(record(0, [1, 0], [0])) is None      # an older record
    assert simulate._bad_record(record(0, [1, 0], [0], lead_changes=0, drama=0.0,
                                       legal_max=3)) is None
    assert why in simulate._bad_record(record(0, [1, 0], [0], **change))


def test_resume_reads_records_with_and_without_the_figures(tmp_path):
    out = tmp_path / "run.jsonl"
    run_batch(TINY, 4, seed=3, workers=1, out=out)
    full = out.read_bytes()
    lines = [json.loads(x) for x in full.decode().splitlines()]
    # game 0 of an older tabula (no figures), game 1 with a bad drama, games 2, 3 lost
    old = {k: v for k, v in lines[0].items() if k not in FIGURES}
    bad = {**lines[1], "drama": -1}
    out.write_text("".join(simulate.record_line(r) for r in (old, bad)))
    warned = []
    s = run_batch(TINY, 4, seed=3, workers=1, out=out, resume=True, warn=warned.append)
    assert len(warned) == 1 and "line 2 (not a sound game record: 'drama'" in warned[0]
    assert s.games == 4 and s.lead_changes["games"] == 3     # the old record has none
    kept = out.read_text().splitlines()
    assert json.loads(kept[0]) == old and len(kept) == 5      # the bad line left in place


# ---- compared, printed, reported --------------------------------------------------------

def test_the_figures_are_paired_metrics_where_both_games_have_them():
    new = _game_metrics(record(0, [4, 1], [0], lead_changes=2, drama=0.25, legal_max=6))
    assert new["lead changes"] == 2 and new["branching, max"] == 6
    assert new["drama (winner's largest deficit)"] == 0.25
    assert new["comeback (winner behind)"] == (1.0, 0.0)
    old = _game_metrics(record(0, [4, 1], [0]))
    assert "lead changes" not in old and "branching, max" not in old


def test_simulate_prints_the_designers_metrics(capsys):
    assert main(["simulate", TINY, "--games", "3", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    for line in ("designer's metrics", "winning margin", "lead changes", "drama",
                 "comeback share", "never fired             rule:discard_down"):
        assert line in text
    assert "strategic depth" not in text                      # opt-in


def test_simulate_json_holds_the_designers_metrics(capsys):
    assert main(["simulate", TINY, "--games", "3", "--workers", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["lead_changes"]["games"] == 3 and d["drama"]["games"] == 3
    assert d["margin"]["mean"] is not None and d["max_branching"] > 0
    assert d["never_fired"] == ["rule:discard_down"] and d["depth"] is None


def test_never_fired_untraced_and_traced():
    spec = load_spec(TINY)
    game = spec.game(None, None)
    s = run_batch(spec, 3, seed=1, workers=1)      # simulate's default seed
    assert simulate.never_fired(spec, game, s.records, False) == ["rule:discard_down"]
    assert simulate.never_fired(spec, game, [], False) is None
    # with every decision asked: none
    assert simulate.never_fired(spec, game, [{"rule_counts": {
        k: 1 for k in simulate.never_fired(spec, game, [{"rule_counts": {}}], False)}}],
        False) == []
    t = run_batch(spec, 3, seed=1, workers=1, trace=True)
    # traced, the rule was reached (with nothing to discard: no decision asked)
    assert isinstance(t.never_fired, list) and "rule:discard_down" not in t.never_fired
    assert t.records[0]["fired"]["rule:discard_down"] > 0


def test_simulate_depth_plays_the_strong_against_the_weak(capsys):
    assert main(["simulate", TTT, "--games", "2", "--workers", "1", "--depth", "4"]) == 0
    text = capsys.readouterr().out
    assert "strategic depth" in text and "against random" in text and "4 games" in text
    with pytest.raises(TabulaError, match="--depth must be a whole number from 0"):
        run_batch(TTT, 1, workers=1, depth=-1)


def test_the_report_defines_the_designers_metrics():
    s = summarize([record(0, [10, 4], [0], lead_changes=3, drama=0.5, legal_max=7),
                   record(1, [6, 8], [1], lead_changes=1, drama=0.0, legal_max=9)])
    page = render_report(s)
    assert "<h2>Designer's metrics</h2>" in page
    assert "<td>lead changes</td><td class=\"num\">2.00</td>" in page
    assert "<dt>drama</dt>" in page and "max 9" in page


def test_the_scores_are_sampled_once_a_round():
    class State:
        turn = 0

        def scores(self):
            return [self.turn, 1]

        def is_simultaneous_node(self):
            return False

    class Game:
        players = 2

        def new_state(self):
            return State()

    class Agent:
        name = "fixed"

        def act(self, view):
            return view.legal_actions[0]

    class View:
        player, legal_actions = 0, [0, 1, 2]

    watched = simulate._Watched(Game())
    st = watched.new_state()
    seat = simulate._Counted(Agent(), watched)
    for turn in (0, 1, 1, 2, 3, 3, 4, 6, 7):        # turn 5 had no agent decision
        st.turn = turn
        seat.act(View())
    # rounds of 2 turns: 1-2, 3-4, 5-6, 7-8; the set-up (turn 0) is not sampled
    assert watched.trajectory == [[1, 1], [3, 1], [6, 1], [7, 1]]
    assert seat.legal == 27 and seat.legal_max == 3
