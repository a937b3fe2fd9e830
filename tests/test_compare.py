"""Rule variants compared in play: traced games (what fired), paired statistics, dead
rules, and `tabula diff --simulate`."""

import json
import math
import statistics

import pytest

from tabula_rules import TabulaError
from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.compare import Comparison, compare_records, holm, paired, t975, verdict
from tabula_rules.tools.simulate import compare_variants

from conftest import EMPTY, ROOT

MEDANG = str(ROOT / "specs" / "medang")
PRAMBANAN = str(ROOT / "examples" / "medang-prambanan")

# A two-player game that counts to a target: each turn the player adds 1 or 2 (an
# option with an id), a rule doubles a bonus when called, an `if` step with an id fires
# only when its condition holds, and a step guarded by `if false`-like logic never runs.
COUNT = """\
game: {id: count, name: Count, source: none, players: {min: 2, max: 2}}
variables:
  total: {value: 0}
  vp: {value: 0, per_player: true}
rules:
  bonus:
    do:
      - current.vp += 1
play:
  - id: turn
    turns:
      first: 0
      until: total >= TARGET
    do:
      - id: turn.add
        choose_one:
          - id: add.one
            label: one
            do:
              - total += 1
          - id: add.two
            label: two
            do:
              - total += 2
              - call bonus()
      - id: turn.even
        if: total % 2 == 0
        then:
          - current.vp += 1
      - id: turn.never
        if: total > 100
        then:
          - current.vp += 5
scoring:
  points:
    vp:
      value: player.vp
"""


def count_spec(tmp_path, target=7, name="count.yaml"):
    path = tmp_path / name
    path.write_text(COUNT.replace("TARGET", str(target)))
    return Spec(path)


def play(game, choices):
    st = game.new_state(seed=1)
    for c in choices:
        st.apply_string(c)
    return st


# ---- tracing -----------------------------------------------------------------------------

def test_a_traced_game_counts_what_fired(tmp_path):
    spec = count_spec(tmp_path)
    st = play(spec.game(2, trace=True), ["two", "one", "two", "two"])   # 2, 3, 5, 7
    assert st.is_terminal()
    assert st.fired == {"turn": 1, "turn.add": 4, "add.one": 1, "add.two": 3,
                        "rule:bonus": 3, "turn.even": 1}          # even only after 2
    assert "turn.never" not in st.fired


def test_tracing_changes_nothing_else(tmp_path):
    spec = count_spec(tmp_path)
    moves = ["one", "two", "two", "one", "one"]
    plain, traced = play(spec.game(2), moves), play(spec.game(2, trace=True), moves)
    assert plain.fired is None
    assert plain.scores() == traced.scores() and plain.history == traced.history
    assert spec.game(2) is not spec.game(2, trace=True)       # cached apart


def test_traced_counts_survive_clone_and_json(tmp_path):
    game = count_spec(tmp_path).game(2, trace=True)
    st = play(game, ["two"])
    copy = st.clone()
    copy.apply_string("two")
    assert st.fired["add.two"] == 1 and copy.fired["add.two"] == 2   # copies are apart
    back = type(st).from_json(game, json.loads(json.dumps(st.to_json())))
    assert back.fired == st.fired


# ---- statistics ----------------------------------------------------------------------------

def test_t_quantiles():
    assert t975(1) == 12.706 and t975(10) == 2.228 and t975(30) == 2.042
    # exact values: 2.0003 (60), 1.9799 (120), 1.9623 (1000)
    assert t975(60) == pytest.approx(2.0003, abs=1e-3)
    assert t975(120) == pytest.approx(1.9799, abs=1e-3)
    assert t975(1000) == pytest.approx(1.9623, abs=1e-3)
    with pytest.raises(ValueError):
        t975(0)


def test_paired_interval_known_numbers():
    m = paired("x", [1, 2, 3], [2, 4, 6])         # differences 1, 2, 3: mean 2, sd 1
    half = 4.303 / math.sqrt(3)
    assert (m.a, m.b, m.diff, m.n) == (2, 4, 2, 3)
    assert (m.low, m.high) == pytest.approx((2 - half, 2 + half))
    assert not m.significant                      # [-0.48, 4.48]
    m = paired("x", [1, 2, 3], [3, 4.1, 5.2])     # differences 2, 2.1, 2.2: sd 0.1
    assert m.significant and m.low == pytest.approx(2.1 - 4.303 * 0.1 / math.sqrt(3))
    m = paired("x", [1, 2, 3], [3, 2, 1])         # differences 2, 0, -2
    assert m.diff == 0 and not m.significant
    assert paired("x", [1], [2]).low is None       # one pair: no interval
    assert paired("x", [], []).diff is None


def test_effect_sizes_and_p_against_hand_computed_values():
    # differences 1, 2, 2, 3: mean 2, sd sqrt(2/3); A 1..4 (sd 1.2910), B 2, 4, 5, 7 (sd
    # sqrt(13/3)); d_av = 2 / sqrt((5/3 + 13/3) / 2) = 2 / sqrt(3); dz = 2 / sqrt(2/3)
    m = paired("x", [1, 2, 3, 4], [2, 4, 5, 7])
    assert m.diff == 2 and m.sd_diff == pytest.approx(math.sqrt(2 / 3))
    assert m.d == pytest.approx(2 / math.sqrt(3)) and m.dz == pytest.approx(math.sqrt(6))
    assert m.effect == ("d", m.d) and m.h is None
    # t = 2 / (sqrt(2/3) / 2) = 4.898979 with 3 degrees of freedom: scipy's p = 0.016277
    assert m.p == pytest.approx(0.016277, abs=1e-6)
    assert m.p_adjusted is None and m.adjusted == m.p and m.significant   # a family of one
    # all differences equal: p is 1 for none, 0 for a change; no dz, no interval width
    same = paired("x", [1, 2, 3], [1, 2, 3])
    assert (same.p, same.dz, same.low, same.high) == (1.0, None, 0, 0)
    shift = paired("x", [1, 2, 3], [2, 3, 4])
    assert shift.p == 0.0 and shift.significant and shift.dz is None
    assert shift.d == pytest.approx(1.0)                     # 1 / sd 1
    assert paired("x", [1], [2]).p is None                   # one pair: no test


def test_cohens_h_of_win_rates_and_the_risk_difference():
    # seat 0 wins 1 game of 4 under A, 2 under B: risk difference +0.25, h = 2 asin(sqrt
    # 0.5) - 2 asin(sqrt 0.25) = pi/2 - pi/3 = pi/6
    a = [rec(i, [1, 0], [0] if i == 0 else [1]) for i in range(4)]
    b = [rec(i, [1, 0], [0] if i < 2 else [1]) for i in range(4)]
    metrics, _, _, _ = compare_records(a, b, [], [])
    m = {x.name: x for x in metrics}
    w = m["win rate, seat 0"]
    assert (w.a, w.b, w.diff) == (0.25, 0.5, 0.25)
    assert w.rate and w.effect == ("h", w.h) and w.h == pytest.approx(math.pi / 6)
    # the first-player advantage is shown minus the fair share; h is of the rate itself
    f = m["first-player advantage"]
    assert (f.a, f.b) == (-0.25, 0.0) and f.h == pytest.approx(math.pi / 6)
    assert not m["score, seat 0"].rate and m["score, seat 0"].h is None


def test_holm_is_applied_over_each_family():
    # 12 pairs; score of seat 0 moves a little (alone p < 0.05), game length a lot
    a = [rec(i, [i % 4, 3], [1]) for i in range(12)]
    b = [rec(i, [i % 4 + (1 if i in (0, 4, 8, 11) else 0), 3], [1], fired={"x": 1})
         for i in range(12)]
    for r in b:
        r["decisions"] = 14
    metrics, rules, _, _ = compare_records(a, b, ["x"], ["x"])
    m = {x.name: x for x in metrics}
    assert [x.p_adjusted for x in metrics] == holm([x.p for x in metrics])
    assert all(x.family == "metrics" for x in metrics)
    assert rules[0].family == "rules" and rules[0].p_adjusted == rules[0].p == 0.0
    s0 = m["score, seat 0"]
    # differences 1 in 4 pairs of 12: mean 1/3, sd sqrt(8/33), t = 2.3452 (11 df): scipy p
    assert s0.p == pytest.approx(0.038814, abs=1e-6) and s0.excludes_zero
    assert s0.p_adjusted > 0.05 and not s0.significant          # corrected away
    assert m["decisions per game"].significant and m["decisions per game"].p == 0.0


def verdict_of(metrics, rules=(), pairs=40, **fields):
    values = dict(a="base", b="variant", games=pairs, pairs=pairs, players=2,
                  options_a={}, options_b={}, agents=["random"] * 2, seed=1,
                  failed={"a": 0, "b": 0}, metrics=list(metrics), rules=list(rules),
                  only_in_a=[], only_in_b=[], dead_rules=[])
    return verdict(Comparison(**{**values, **fields}))


def test_the_verdict_names_the_changes_with_their_numbers():
    # seat 1 wins 20 of 40 under A, 28 under B; the differences are +1 in 8 pairs: mean
    # 0.2, sd 0.4051, so 0.2 +- t975(39) 2.0227 * 0.4051 / sqrt(40) = [0.070, 0.330]
    win = paired("win rate, seat 1", [0.0] * 20 + [1.0] * 20,
                 [0.0] * 12 + [1.0] * 28, rate=True)
    length = paired("decisions per game", [50 + i % 3 for i in range(40)],
                    [50 + i % 3 for i in range(40)])
    for m, q in zip([win, length], holm([win.p, length.p])):
        m.p_adjusted = q
    lines = verdict_of([win, length])
    assert lines[0] == (
        "variant (B) changes the game against base (A) in 40 paired games: seat 1's win "
        "rate rises from 50.0% to 70.0% (+20.0 points, 95% CI +7.0 to +33.0); no "
        "significant change in game length; 2 metrics tested, 1 significant after Holm "
        "correction.")
    assert lines[1].startswith("Seat 1's win rate rises from 50.0% to 70.0% (+20.0 points")
    assert lines[1].endswith(f"; effect size h = {win.h:+.2f}).")
    assert lines[2] == ("No significant change in game length (the largest difference: "
                        "decisions per game, +0.00, 95% CI +0.00 to +0.00).")
    # the points by rule and the branching are in the headline only when they changed
    branching = paired("branching", [3.0 + i % 2 for i in range(40)],
                       [2.0 + i % 2 for i in range(40)])
    head = verdict_of([win, length, branching])[0]
    assert "; branching changes too (below); 3 metrics tested, 2 significant" in head
    points = paired("points: rows, seat 1", [1.0] * 40, [2.0] * 40)
    head = verdict_of([branching, points])[0]
    assert ("points by scoring rule and branching change too (below); 2 metrics tested, 2 "
            "significant" in head)


def test_the_verdict_of_no_change_and_its_warnings():
    m = paired("score, mean of seats", [1, 2, 3, 4], [2, 1, 4, 3])
    lines = verdict_of([m], pairs=4, failed={"a": 1, "b": 0},
                       options_a={"deck": "short"}, options_b={"deck": "long"})
    assert lines[0].startswith("variant (B) changes nothing significantly against base (A)")
    assert "no significant change in scores" in lines[0]
    assert "1 metrics tested, 0 significant after Holm correction" in lines[0]
    assert "Only 4 pairs: the intervals are wide, and small changes go unseen." in lines
    assert "Failed games, left out with their pairs: A 1, B 0." in lines
    assert ("The variants played with different options: A deck=short; B deck=long."
            in lines)
    assert verdict_of([], pairs=0)[0].startswith("No pair of games in which both finished")


def rec(index, scores, winners, fired=None, error=None, points=None, first=0):
    if error:
        return {"index": index, "seed": index, "error": error, "players": 2}
    return {"index": index, "seed": index, "players": 2, "scores": scores,
            "winners": winners, "decisions": 10, "turns": 5, "legal_actions": 30,
            "fired": fired or {}, "points": points or {}, "agents": ["random"] * 2,
            "first_player": first}


def test_compare_records_pairs_by_index_and_leaves_failed_pairs_out():
    a = [rec(0, [3, 1], [0], {"x": 2}), rec(1, [1, 1], [0, 1], {"x": 1}),
         rec(2, [0, 5], [1], error="boom")]
    b = [rec(0, [2, 2], [0, 1], {"x": 1, "y": 1}), rec(1, [4, 0], [0], {"y": 2}),
         rec(2, [1, 1], [0, 1])]
    metrics, rules, dead, pairs = compare_records(a, b, ["x", "z", "points:vp"], ["x", "y"])
    assert pairs == 2
    m = {x.name: x for x in metrics}
    # seat 0's win share: A 1, 0.5; B 0.5, 1
    assert (m["win rate, seat 0"].a, m["win rate, seat 0"].b) == (0.75, 0.75)
    assert m["win rate, seat 0"].diff == 0
    assert m["score spread (best - worst)"].a == statistics.fmean([2, 0])
    assert m["score spread (best - worst)"].b == statistics.fmean([0, 4])
    assert m["first-player advantage"].a == 0.25     # seat 0 moved first in both games
    r = {x.name: x for x in rules}
    assert (r["x"].a, r["x"].b) == (1.5, 0.5) and (r["y"].a, r["y"].b) == (0, 1.5)
    assert "z" in r and r["z"].diff == 0
    assert dead == ["z", "points:vp"]        # x fired; z never; no scoring point given


def test_a_variant_against_itself_differs_in_nothing(tmp_path):
    a = count_spec(tmp_path)
    b = count_spec(tmp_path, name="same.yaml")
    c = compare_variants(a, b, 12, seed=3, workers=1, agents="random")
    assert c.pairs == 12 and c.failed == {"a": 0, "b": 0}
    assert all(m.diff == 0 and not m.significant for m in c.metrics + c.rules)
    assert c.dead_rules == ["turn.never"]
    assert c.only_in_a == c.only_in_b == []


def test_a_changed_target_is_seen_in_play(tmp_path):
    c = compare_variants(count_spec(tmp_path, 7), count_spec(tmp_path, 11, "long.yaml"), 30,
                         seed=2, workers=1, agents="random")
    m = {x.name: x for x in c.metrics}
    assert m["turns per game"].significant and m["turns per game"].diff > 0
    assert m["branching"].diff == 0 and not m["branching"].significant
    assert "turn.add" in c.to_dict()["significant_rules"]
    text = c.table()
    assert "turns per game" in text and "dead rules (of A, fired in no game of either " \
        "variant): turn.never" in text


def test_compare_is_deterministic_and_does_not_depend_on_workers():
    one = compare_variants(MEDANG, PRAMBANAN, 16, players=3, seed=5, workers=1,
                           agents="random")
    two = compare_variants(MEDANG, PRAMBANAN, 16, players=3, seed=5, workers=2,
                           agents="random")
    assert one.to_dict() == two.to_dict()


def test_each_variant_plays_with_its_own_options():
    c = compare_variants(MEDANG, PRAMBANAN, 2, players=3, seed=5, workers=1,
                         agents="random")
    assert c.options_a == {"temple": "borobudur"} and c.options_b == {"temple": "prambanan"}
    assert {r["options"]["temple"] for r in c.summary_b.records} == {"prambanan"}
    c = compare_variants(MEDANG, PRAMBANAN, 2, players=3, seed=5, workers=1,
                         agents="random", options={"temple": "sewu"},
                         options_b={"temple": "plaosan"})
    assert c.options_a == {"temple": "sewu"} and c.options_b == {"temple": "plaosan"}
    assert {r["options"]["temple"] for r in c.summary_a.records} == {"sewu"}
    assert "options A temple=sewu, B temple=plaosan" in c.table()
    with pytest.raises(TabulaError, match="prambanan"):          # A has no such temple
        compare_variants(MEDANG, PRAMBANAN, 2, players=3, workers=1,
                         options={"temple": "prambanan"})


def test_compare_errors(tmp_path):
    with pytest.raises(TabulaError):
        compare_variants(MEDANG, PRAMBANAN, 0)
    with pytest.raises(TabulaError):
        compare_variants(MEDANG, count_spec(tmp_path), 2, players=3, workers=1)  # 2 only
    with pytest.raises(TabulaError):
        compare_variants(MEDANG, PRAMBANAN, 2, players=9, workers=1)


# ---- the command line -----------------------------------------------------------------------

def test_diff_simulate_json(capsys):
    code = main(["diff", MEDANG, PRAMBANAN, "--simulate", "20", "--players", "3",
                 "--workers", "1", "--json", "--agents", "random"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert {"added", "removed", "changed", "play"} <= set(data)
    play_ = data["play"]
    assert play_["games"] == 20 and play_["pairs"] == 20 and play_["players"] == 3
    names = [m["name"] for m in play_["metrics"]]
    for want in ("win rate, seat 0", "first-player advantage", "score, mean of seats",
                 "score spread (best - worst)", "decisions per game", "branching"):
        assert want in names
    assert {"name", "a", "b", "diff", "low", "high", "p", "p_adjusted", "d", "dz", "h",
            "significant", "excludes_zero"} <= set(play_["metrics"][0])
    assert "dead_rules" in play_
    assert play_["options_a"] == {"temple": "borobudur"}
    assert play_["options_b"] == {"temple": "prambanan"}
    assert play_["correction"]["method"] == "holm" and play_["verdict"]
    assert "points: columns, seat 2" in names


def test_diff_simulate_options_of_each_side(capsys):
    code = main(["diff", MEDANG, PRAMBANAN, "--simulate", "2", "--players", "3",
                 "--workers", "1", "--json", "--agents", "random",
                 "--option", "temple=sewu",
                 "--option-b", "temple=prambanan"])
    play_ = json.loads(capsys.readouterr().out)["play"]
    assert code == 0
    assert play_["options_a"] == {"temple": "sewu"}
    assert play_["options_b"] == {"temple": "prambanan"}


def test_diff_simulate_text(capsys):
    code = main(["diff", MEDANG, PRAMBANAN, "--simulate", "10", "--workers", "1",
                 "--agents", "random"])
    out = capsys.readouterr().out
    assert code == 0
    assert "in play: medang (A) against medang_prambanan (B), 10 paired games" in out
    assert "95% interval" in out and "dead rules" in out
    assert "metrics tested" in out and "Holm p" in out


@pytest.mark.parametrize("argv, message", [
    (["--players", "3"], "--players is for --simulate N"),
    (["--option-a", "temple=sewu"], "--option-a is for --simulate N"),
    (["--simulate", "2", "--option-a", "temple=prambanan"], "not one of"),
    (["--simulate", "2", "--report", "/no/such/dir/x.html"], "cannot write"),
])
def test_diff_simulate_bad_input(capsys, argv, message):
    code = main(["diff", MEDANG, PRAMBANAN, *argv])
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err


def test_diff_simulate_of_no_games_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:            # a count that must be positive: exit 2
        main(["diff", MEDANG, PRAMBANAN, "--simulate", "0"])
    assert e.value.code == 2 and "must be greater than 0" in capsys.readouterr().err



# ---- validate --play: a spec tested by random games ------------------------------------------

LOOPS = """\
game: {id: loops, name: Loops, source: none, players: {min: 2, max: 3}, max_steps: 2000}
variables:
  total: {value: 0}
play:
  - id: turn
    turns:
      first: 0
      until: total < 0
    do:
      - id: turn.pick
        choose_one:
          - label: up
            do:
              - total += 1
          - label: down
            if: count(q for q in players) == 2
            do:
              - total -= 1
"""


def test_validate_play_lists_what_never_fired(capsys, tmp_path):
    count_spec(tmp_path)
    code = main(["validate", str(tmp_path / "count.yaml"), "--play", "5", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "ok   " in out and "(count): 5 random games, 0 failed" in out
    assert "never fired in those games: turn.never" in out


def test_validate_play_fails_a_game_that_never_ends(capsys, tmp_path):
    # with 3 players nobody may go down: the game never ends and max_steps stops it
    path = tmp_path / "loops.yaml"
    path.write_text(LOOPS)
    code = main(["validate", str(path), "--play", "4", "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 1
    assert "FAIL" in captured.out and "8 random games, 4 failed" in captured.out
    assert "the game ran more than 2000 steps without ending" in captured.err
    assert "in 4 of the games of --play; the first: tabula run" in captured.err
    assert "--players 3 --seed" in captured.err and "Traceback" not in captured.err




def test_a_choice_skipped_for_lack_of_options_is_counted_in_traced_games(tmp_path, capsys):
    path = tmp_path / "empty.yaml"
    path.write_text(EMPTY)
    st = Spec(path).game(2, trace=True).new_state(seed=1)
    st.apply_string("take chip")                   # the first ask; the next ones are empty
    assert st.is_terminal()
    assert st.fired["empty:take"] == 2             # rounds 2 and 3: skipped silently
    assert "empty:take_or_say" not in st.fired     # it has an else: what then is said
    assert "empty:take_or_nothing" not in st.fired  # else: [] says nothing, on purpose
    assert "empty:take_if_you_like" not in st.fired  # an optional choice may be empty
    assert st.fired["said"] == 3
    assert Spec(path).game(2).new_state(seed=1).fired is None
    code = main(["validate", str(path), "--play", "3", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "choices that came up empty with no else: (skipped), in how many games: " \
        "take (3)" in out
