"""Batches of games: records independent of the number of workers, resuming, failed
games recorded, and the summary's statistics on known numbers."""

import hashlib
import json
import math
import pickle

import pytest

from tabula_rules import TabulaError, load_spec
from tabula_rules.bots.agents import make_agent
from tabula_rules.spec import Spec
from tabula_rules.tools import simulate
from tabula_rules.tools.simulate import game_seed, read_records, run_batch
from tabula_rules.tools.stats import holm, percentile, summarize, t975, t_p_value, wilson

from conftest import ROOT

MEDANG = str(ROOT / "specs" / "medang")
GAMES = 12

# A game whose rules fail for some seeds: chance rolls 1 to 3, then the first player
# moves that many tokens into a box that holds one (a rule error for 2 and 3).
FLAKY = """\
game:
  id: flaky
  name: Flaky
  source: none.txt
  players: {min: 2, max: 2}
components:
  token:
    name: token
    count: 3
    zone: pool
zones:
  pool:
    kind: stack
  box:
    kind: stack
    capacity: 1
variables:
  n:
    value: 0
setup:
  - id: setup.roll
    choose: k in [1, 2, 3]
    player: chance
    label: "roll {k}"
    do:
      - n = k
play:
  - id: turn
    turns:
      first: 0
      until: size(pool) == 0
    do:
      - id: turn.pick
        choose: k in [1, 2]
        label: "take {k}"
        do:
          - repeat: n
            do:
              - move top(pool) to box
          - end game
scoring:
  points:
    box:
      value: size(box)
"""


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """12 Medang games on one worker: (the file's bytes, the summary)."""
    out = tmp_path_factory.mktemp("sim") / "one.jsonl"
    summary = run_batch(MEDANG, GAMES, players=3, seed=7, workers=1, out=out)
    return out.read_bytes(), summary


def test_game_seed_is_a_stable_hash():
    digest = hashlib.sha256(b"7:3").digest()
    assert game_seed(7, 3) == int.from_bytes(digest[:8], "big") >> 11
    assert game_seed(7, 3) < 2 ** 53
    assert len({game_seed(s, i) for s in range(3) for i in range(50)}) == 150


def test_records_do_not_depend_on_workers(full_run, tmp_path):
    data, summary = full_run
    out = tmp_path / "two.jsonl"
    two = run_batch(MEDANG, GAMES, players=3, seed=7, workers=2, out=out)
    assert out.read_bytes() == data
    lines = data.decode().splitlines()
    assert len(lines) == GAMES
    assert [json.loads(x)["index"] for x in lines] == list(range(GAMES))
    assert lines[0] == json.dumps(json.loads(lines[0]), sort_keys=True, separators=(",", ":"))
    drop = {"seconds", "workers"}
    assert {k: v for k, v in two.to_dict().items() if k not in drop} == \
        {k: v for k, v in summary.to_dict().items() if k not in drop}


def test_spawned_workers_load_the_spec_themselves(tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    run_batch(MEDANG, 4, seed=3, workers=1, out=one)
    run_batch(MEDANG, 4, seed=3, workers=2, out=two, start_method="spawn")
    assert one.read_bytes() == two.read_bytes()


def test_ray_backend_gives_the_same_records(full_run, tmp_path):
    # Ray is the "ray" extra, installed with the "test" one; it is started here, locally
    pytest.importorskip("ray", reason="pip install '.[test]' installs Ray")
    data, summary = full_run
    out = tmp_path / "ray.jsonl"
    ray_run = run_batch(MEDANG, GAMES, players=3, seed=7, workers=2, out=out, backend="ray")
    assert out.read_bytes() == data
    assert ray_run.win_rate_by_seat == summary.win_rate_by_seat


def test_backend_errors_raise():
    with pytest.raises(TabulaError, match="did you mean 'ray'"):
        run_batch(MEDANG, 2, workers=1, backend="rya")
    with pytest.raises(TabulaError, match="--address is for --backend ray"):
        run_batch(MEDANG, 2, workers=1, address="auto")


def test_a_pickled_spec_needs_no_files(tmp_path):
    # what a spawned worker or a cluster node receives: the checked spec, not its path
    path = tmp_path / "flaky.yaml"
    path.write_text(FLAKY)
    spec = load_spec(path)
    spec.game(2)
    data = pickle.dumps(spec)
    path.unlink()
    copy = pickle.loads(data)
    assert copy.hash == spec.hash and copy._games == {}
    a, b = copy.game(2).new_state(seed=4), spec.game(2).new_state(seed=4)
    assert a.to_json() == b.to_json()


def test_a_record(full_run):
    rec = json.loads(full_run[0].decode().splitlines()[5])
    assert rec["index"] == 5 and rec["seed"] == game_seed(7, 5)
    assert rec["players"] == 3 and rec["agents"] == ["random"] * 3
    assert rec["options"] == {"temple": "borobudur"} and rec["spec"] == "medang"
    assert len(rec["scores"]) == 3 and rec["winners"]
    assert rec["turns"] > 0 and rec["decisions"] > 0
    # every decision, the chance ones too, is counted under its rule
    assert sum(rec["rule_counts"].values()) == rec["decisions"] + rec["chance"]
    assert "rule:play_tile" in rec["rule_counts"]


def test_resume_completes_an_interrupted_file(full_run, tmp_path):
    data, _ = full_run
    out = tmp_path / "cut.jsonl"
    lines = data.splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:5]) + lines[5][:40])     # killed while writing game 5
    played = []
    summary = run_batch(MEDANG, GAMES, players=3, seed=7, workers=2, out=out, resume=True,
                        progress=played.append)
    assert out.read_bytes() == data
    assert played == list(range(6, GAMES + 1))               # games 5..11 only
    assert summary.games == GAMES
    # nothing left to play: resuming again plays no game and keeps the file
    played.clear()
    run_batch(MEDANG, GAMES, players=3, seed=7, workers=1, out=out, resume=True,
              progress=played.append)
    assert played == [] and out.read_bytes() == data


def test_resume_refuses_a_file_from_another_run(full_run, tmp_path):
    out = tmp_path / "other.jsonl"
    out.write_bytes(full_run[0])
    with pytest.raises(TabulaError, match="another run"):
        run_batch(MEDANG, GAMES, players=3, seed=8, workers=1, out=out, resume=True)
    with pytest.raises(TabulaError, match="from a run without tracing"):
        run_batch(MEDANG, GAMES, players=3, seed=7, workers=1, out=out, resume=True,
                  trace=True)
    traced = tmp_path / "traced.jsonl"
    run_batch(MEDANG, 3, players=3, seed=7, workers=1, out=traced, trace=True)
    assert all("fired" in r for r in read_records(traced))
    with pytest.raises(TabulaError, match="from a run with tracing"):
        run_batch(MEDANG, 3, players=3, seed=7, workers=1, out=traced, resume=True)


def test_a_failing_game_is_recorded_and_the_run_goes_on(tmp_path):
    spec = tmp_path / "flaky.yaml"
    spec.write_text(FLAKY)
    out = tmp_path / "flaky.jsonl"
    summary = run_batch(spec, 30, seed=1, workers=2, out=out)
    records = read_records(out)
    assert [r["index"] for r in records] == list(range(30))
    bad = [r for r in records if "error" in r]
    assert 0 < len(bad) < 30
    assert summary.games == 30 and summary.failed == len(bad)
    r = bad[0]
    assert r["error"] == "box holds at most 1 pieces"
    line = next(n for n, x in enumerate(FLAKY.splitlines(), 1) if "move top(pool)" in x)
    assert r["error_at"] == f"{spec}:{line}:17"            # the move, located
    assert r["seed"] == game_seed(1, r["index"]) and "scores" not in r
    assert summary.errors == {"box holds at most 1 pieces": len(bad)}
    # the other games end level: a shared win counts half for each seat
    assert summary.win_rate_by_seat == [0.5, 0.5]
    assert "failed games" in summary.table()


def test_setup_errors_raise():
    with pytest.raises(TabulaError):
        run_batch(MEDANG, 2, agents="random,random,nobody", players=3, workers=1)
    with pytest.raises(TabulaError):
        run_batch(MEDANG, 2, agents="random,random", players=3, workers=1)
    with pytest.raises(TabulaError):
        run_batch(MEDANG, 2, workers=0)
    with pytest.raises(TabulaError):
        run_batch(MEDANG, 2, players=9, workers=1)


def test_file_errors_raise(tmp_path):
    with pytest.raises(TabulaError, match="--out"):
        run_batch(MEDANG, 2, workers=1, resume=True)
    with pytest.raises(TabulaError, match="cannot write"):
        run_batch(MEDANG, 2, workers=1, out=tmp_path / "no" / "such.jsonl")


def test_rotate_gives_every_agent_every_seat():
    assert simulate.seat_agents(["a", "b", "c"], 4, True) == ["b", "c", "a"]
    assert simulate.seat_agents(["a", "b", "c"], 4, False) == ["a", "b", "c"]


# ---- statistics on known numbers ---------------------------------------------------------

def test_wilson_interval_known_values():
    # Newcombe (1998), Statistics in Medicine 17:857, table I, method 3 (Wilson score)
    for (x, n), (lo, hi) in {(81, 263): (0.2553, 0.3662), (15, 148): (0.0624, 0.1605),
                             (0, 20): (0.0, 0.1611), (1, 29): (0.0061, 0.1718)}.items():
        got = wilson(x, n)
        assert got == pytest.approx((lo, hi), abs=5e-5)


def test_percentile_interpolates():
    values = list(range(1, 11))
    assert percentile(values, 10) == pytest.approx(1.9)
    assert percentile(values, 50) == pytest.approx(5.5)
    assert percentile(values, 90) == pytest.approx(9.1)
    assert percentile([4], 90) == 4


def _record(i, winners, scores, agents=("a", "b"), **extra):
    rec = {"index": i, "seed": i, "players": 2, "options": {}, "agents": list(agents),
           "scores": scores, "winners": winners, "decisions": 10 + i, "chance": 1,
           "turns": 5 + i, "legal_actions": 4 * (10 + i),
           "rule_counts": {"rule:x": 2, "rule:y": i}}
    rec.update(extra)
    return rec


def test_summary_of_known_records():
    # seat 0 wins 7 games alone and shares 2: 8 of 10; seat 1 wins 1 alone: 2 of 10
    winners = [[0]] * 7 + [[0, 1]] * 2 + [[1]]
    records = [_record(i, w, [i + 1, 10 - i]) for i, w in enumerate(winners)]
    records.append({"index": 10, "seed": 10, "players": 2, "options": {}, "agents": ["a", "b"],
                    "error": "boom", "turns": 1, "actions": 3})
    s = summarize(records)
    assert (s.games, s.failed, s.players) == (11, 1, 2)
    assert s.win_rate_by_seat == pytest.approx([0.8, 0.2])
    assert s.win_interval_by_seat[0] == pytest.approx([0.4902, 0.9433], abs=5e-5)
    assert s.win_interval_by_seat[1] == pytest.approx([0.0567, 0.5098], abs=5e-5)
    assert s.win_rate_by_agent["a"]["rate"] == pytest.approx(0.8)
    assert s.win_rate_by_agent["b"]["games"] == 10
    # records written before first_player existed: read, but no first-player statistics
    assert s.first_player_games == 0 and s.first_player_advantage is None
    assert s.first_player_interval is None and s.first_player_by_seat == [0, 0]
    assert s.score_mean_by_seat == pytest.approx([5.5, 5.5])
    assert s.score_std_by_seat[0] == pytest.approx(3.0276503540974917)   # sample sd of 1..10
    assert s.score_percentiles_by_seat[0] == pytest.approx({"10": 1.9, "50": 5.5, "90": 9.1})
    assert s.decisions == {"mean": 14.5, "min": 10, "max": 19}
    assert s.turns == {"mean": 9.5, "min": 5, "max": 14}
    assert s.mean_branching == pytest.approx(4.0)
    assert s.rule_counts == {"rule:x": 20, "rule:y": 45}
    assert s.rule_counts_per_game == {"rule:x": 2.0, "rule:y": 4.5}
    assert s.errors == {"boom": 1}
    d = s.to_dict()
    assert {"games", "failed", "win_rate_by_seat", "score_mean_by_seat"} <= set(d)
    assert "records" not in d and json.loads(json.dumps(d)) == d
    assert len(s.records) == 11
    text = s.table()
    assert "0.800" in text and "[0.490, 0.943]" in text and "rule:y" in text
    assert "first player            none named" in text


def test_the_first_player_is_who_moved_first_not_seat_0():
    # seat 0 wins 7 games alone, shares 2 (games 7, 8), seat 1 wins game 9; the first
    # player alternates: seat 0 in the even games, seat 1 in the odd ones
    winners = [[0]] * 7 + [[0, 1]] * 2 + [[1]]
    records = [_record(i, w, [i + 1, 10 - i], first_player=i % 2)
               for i, w in enumerate(winners)]
    s = summarize(records)
    # the first player's win shares: 1 0 1 0 1 0 1 .5 .5 1 = 6 of 10
    assert s.first_player_games == 10 and s.first_player_by_seat == [5, 5]
    assert s.first_player_win_rate == pytest.approx(0.6)
    assert s.first_player_advantage == pytest.approx(0.1)
    # Wilson 6 of 10: 0.3127 to 0.8318 (by hand: centre 0.57225, half-width 0.25958)
    assert s.first_player_interval == pytest.approx([0.3127 - 0.5, 0.8318 - 0.5], abs=5e-5)
    assert [p["rate"] for p in s.win_rate_by_place] == pytest.approx([0.6, 0.4])
    assert [p["fair"] for p in s.win_rate_by_place] == [0.5, 0.5]
    assert s.win_rate_by_seat == pytest.approx([0.8, 0.2])     # seat 0 is not the first
    text = s.table()
    assert "first player's win rate 0.600  (advantage +0.100 [-0.187, +0.332]" in text
    assert "win rate by place       1: 0.600, 2: 0.400" in text
    # a game of 3 begun by seat 2: places 1, 2, 3 are seats 2, 0, 1
    three = summarize([{**_record(0, [0], [5, 1, 1]), "players": 3, "agents": ["a"] * 3,
                        "first_player": 2}])
    assert [p["rate"] for p in three.win_rate_by_place] == [0.0, 1.0, 0.0]


def test_points_by_scoring_rule_and_seat():
    records = [_record(i, [0], [i, 0], points={"vp": [1 + i, 0], "bonus": [0, 2]})
               for i in range(3)]
    s = summarize(records)
    assert list(s.points_by_rule) == ["vp", "bonus"]          # the spec's order
    vp0 = s.points_by_rule["vp"][0]
    half = 4.303 / math.sqrt(3)                                # 1, 2, 3: mean 2, sd 1
    assert (vp0["mean"], vp0["sd"]) == (2, 1)
    assert (vp0["low"], vp0["high"]) == pytest.approx((2 - half, 2 + half))
    assert s.points_by_rule["bonus"][1] == {"mean": 2, "sd": 0.0, "low": 2.0, "high": 2.0}
    assert "vp" in s.table() and "2.00 [-0.48, 4.48]" in s.table()


def test_records_name_the_first_player_and_every_decision_by_its_rule():
    from tabula_rules.bots.agents import play_game
    from tabula_rules.spec import load_spec
    from tabula_rules.tools.simulate import play_record
    game = load_spec(MEDANG).game(3)
    for i in range(12):
        rec = play_record(game, i, 3, ["random"] * 3)
        # the lots of Medang's set-up are the chance action "player N starts"; the set-up's
        # discards (seat 0 first) come before them and do not make a first player
        actions = play_game(game, rec["seed"], [make_agent("random")] * 3)["actions"]
        lots = next(text for who, text in actions if text.endswith(" starts"))
        assert rec["first_player"] == int(lots.split()[1])
        assert not any(k.startswith("decision:") for k in rec["rule_counts"])
    assert 'rule:leader / "leader: take {m}"' in summarize(
        [play_record(game, i, 3, ["random"] * 3) for i in range(20)]).rule_counts


FIRSTS = """\
game: {id: firsts, name: Firsts, source: none, players: {min: 3, max: 3}}
variables:
  total: {value: 0}
  vp: {value: 0, per_player: true}
setup:
  - for: p in players
    do:
      - choose_one:
          - label: keep
            do: []
          - label: bump
            do:
              - total += 1
        player: p
play:
  - id: turn
    turns:
      first: START
      until: total >= 4
    do:
      - choose_one:
          - label: one
            do:
              - total += 1
              - current.vp += 1
scoring:
  points:
    vp:
      value: player.vp
"""


@pytest.mark.parametrize("start, first", [("1", 1), ("2", 2), ("0", 0)])
def test_the_first_player_is_the_first_to_decide_in_the_turns(tmp_path, start, first):
    from tabula_rules.tools.simulate import play_record
    path = tmp_path / "firsts.yaml"
    path.write_text(FIRSTS.replace("START", start))
    game = Spec(path).game(3)
    assert {play_record(game, i, 1, ["random"] * 3)["first_player"] for i in range(5)} \
        == {first}
    # without turns: the first decision of the game (seat 0's, in the set-up)
    path.write_text(FIRSTS.replace("START", start).split("play:")[0]
                    + "play:\n  - do: []\nscoring:\n  points:\n    vp:\n"
                    "      value: player.vp\n")
    assert play_record(Spec(path).game(3), 0, 1, ["random"] * 3)["first_player"] == 0


def test_simultaneous_moves_have_no_first_player():
    from tabula_rules.tools.simulate import play_record
    game = load_spec(str(ROOT / "examples" / "goofspiel")).game(2)
    assert play_record(game, 0, 1, ["random"] * 2)["first_player"] is None
    s = run_batch(game.spec, 4, workers=1)
    assert s.first_player_games == 0 and s.first_player_advantage is None


# ---- the statistics' building blocks, against values computed by hand ----------------------

def test_t_p_values_against_exact_and_tabled_values():
    # 1 degree of freedom: Cauchy, p = 1 - 2 atan(|t|) / pi; 2: p = 1 - |t| / sqrt(2 + t^2)
    for t in (0.0, 0.3, 1.0, 2.5, -4.0, 12.706, 80.0):
        assert t_p_value(t, 1) == pytest.approx(1 - 2 * math.atan(abs(t)) / math.pi, abs=1e-12)
        assert t_p_value(t, 2) == pytest.approx(1 - abs(t) / math.sqrt(2 + t * t), abs=1e-12)
    # the table of two-sided 95% quantiles gives p = 0.05 (to its 3 decimals)
    for df in (3, 7, 10, 30):
        assert t_p_value(t975(df), df) == pytest.approx(0.05, abs=3e-4)
    # values of scipy.stats.t (2 * sf), kept as numbers: no scipy needed here
    assert t_p_value(2.5, 17) == pytest.approx(0.022948, abs=1e-6)
    assert t_p_value(-1.2, 199) == pytest.approx(0.231566, abs=1e-6)
    assert t_p_value(4.898979, 3) == pytest.approx(0.016277, abs=1e-6)
    assert t_p_value(math.inf, 5) == 0.0
    with pytest.raises(ValueError):
        t_p_value(1.0, 0)


def test_holm_against_a_hand_computed_example():
    # sorted: 0.005 * 4 = 0.02, 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, None, 0.01]) == pytest.approx([0.5, None, 0.02])   # m = 2
    assert holm([0.9, 0.8]) == [1.0, 1.0]                                 # capped at 1
    assert holm([]) == [] and holm([0.03]) == [0.03]
    # Holm is never below the raw p, never above Bonferroni
    ps = [0.001, 0.2, 0.013, 0.04, 0.0049, 0.6]
    for p, q in zip(ps, holm(ps)):
        assert p <= q <= min(1.0, len(ps) * p)


def test_summary_of_a_shared_win_and_of_nothing():
    s = summarize([_record(0, [0, 1], [3, 3], agents=("a", "a"))])
    assert s.win_rate_by_seat == [0.5, 0.5]
    assert s.win_rate_by_agent["a"] == pytest.approx(
        {"rate": 0.5, "low": wilson(1, 2)[0], "high": wilson(1, 2)[1], "games": 2})
    empty = summarize([])
    assert (empty.games, empty.failed, empty.win_rate_by_seat) == (0, 0, [])
    assert empty.table()


def test_bots_from_the_agents_module(tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    s = run_batch(MEDANG, 4, agents="greedy,random", rotate=True, workers=1, out=one)
    run_batch(MEDANG, 4, agents=["greedy", "random"], rotate=True, workers=2, out=two)
    assert one.read_bytes() == two.read_bytes()
    assert [r["agents"] for r in s.records] == [["greedy", "random"], ["random", "greedy"]] * 2
    assert set(s.win_rate_by_agent) == {"greedy", "random"}
    assert all(r["legal_actions"] >= r["decisions"] > 0 for r in s.records)


def test_records_do_not_depend_on_string_hashing(tmp_path):
    # Python salts str hashes per process (PYTHONHASHSEED): nothing a game does may
    # depend on the order of a set or dict of strings
    import os
    import subprocess
    import sys
    files = []
    for salt in ("1", "2"):
        out = tmp_path / f"salt{salt}.jsonl"
        env = dict(os.environ, PYTHONHASHSEED=salt)
        subprocess.run([sys.executable, "-m", "tabula_rules", "simulate",
                        str(ROOT / "examples" / "tiny"), "--games", "6", "--workers", "1",
                        "--agents", "greedy,mcts:15", "--rotate", "--out", str(out),
                        "--json"], check=True, env=env, capture_output=True, cwd=ROOT)
        files.append(out.read_bytes())
    assert files[0] == files[1] and files[0].count(b"\n") == 6
