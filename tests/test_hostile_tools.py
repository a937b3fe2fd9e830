"""Hostile input to the tools (issue 14, the tool side): a log edited into another game is
refused at the line where the game diverges; `simulate --resume` never writes to a file
that is not its own run's; scenario player keys and shapes are checked; counts on the
command line are positive and output files that cannot be written are a clear error."""

import json
import os

import pytest

from tabula_rules.tools.cli import main
from tabula_rules.tools.gamelog import header_digest

from conftest import ROOT
from helpers import EXPECTED, alias_bomb, run

TTT = str(ROOT / "examples" / "tic_tac_toe")
MEDANG = str(ROOT / "specs" / "medang")



def rows_of(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def write_rows(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def ttt_log(capsys, tmp_path, seed=2):
    log = tmp_path / "ttt.jsonl"
    assert run(capsys, "run", TTT, "--seed", seed, "--log", log)[0] == 0
    return log


# ---- 14: a log proves its game --------------------------------------------------------------

def test_swapped_decisions_are_refused_where_the_game_diverges(capsys, tmp_path):
    # X's first and second moves swapped: both stay legal and the final board (so the
    # scores) is the same, so a replay that checks legality and scores alone says "ok"
    log = ttt_log(capsys, tmp_path)
    rows = rows_of(log)
    d1, d3 = rows[1], rows[3]
    assert d1["player"] == d3["player"] == 0
    for key in ("action", "tuple"):
        d1[key], d3[key] = d3[key], d1[key]
    write_rows(log, rows)
    code, out, err = run(capsys, "replay", log)
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.startswith(f"{log}:2: decision 1 (player 0, '{d1['action']}'): the game "
                          "diverges here")


def test_a_replaced_last_decision_is_refused(capsys, tmp_path):
    log = tmp_path / "m.jsonl"
    assert run(capsys, "run", MEDANG, "--players", 3, "--seed", 1, "--log", log)[0] == 0
    rows = rows_of(log)
    # the end line's final state digest: an edited end line's state is refused
    rows[-1]["state"] = "0" * 16
    write_rows(log, rows)
    code, _, err = run(capsys, "replay", log)
    n = rows[-1]["decisions"]
    assert code == 1 and f":{n + 1}: decision {n} (" in err and "diverges here" in err


def test_an_edited_seed_or_agents_are_refused_at_the_header(capsys, tmp_path):
    for key, value in (("seed", 3), ("agents", ["greedy", "greedy"]),
                       ("spec", "chess")):
        log = ttt_log(capsys, tmp_path)
        rows = rows_of(log)
        rows[0][key] = value
        write_rows(log, rows)
        code, _, err = run(capsys, "replay", log)
        assert code == 1, key
        assert err.startswith(f"{log}:1: the header was edited"), (key, err)
    # the seed edited and the header's digest made again: the start differs at decision 1
    log = ttt_log(capsys, tmp_path)
    rows = rows_of(log)
    rows[0]["seed"] = 99
    rows[0]["check"] = header_digest(rows[0])
    write_rows(log, rows)
    code, _, err = run(capsys, "replay", log)
    assert code == 1 and err.startswith(f"{log}:2: decision 1: the game diverges before it")


def test_a_log_whose_version_was_lowered_is_refused(capsys, tmp_path):
    """A version-2 log edited to say version 1 (to escape its digests) still carries them,
    in its header or its decisions: refused, at the line that shows it."""
    log = ttt_log(capsys, tmp_path)
    rows = rows_of(log)
    rows[0]["version"] = 1
    write_rows(log, rows)
    code, _, err = run(capsys, "replay", log, "--unproven")
    assert code == 1 and f"{log}:1: the header is not sound: a log of version 1 has no " \
        "header digest, and this one has: its version was edited" in err
    del rows[0]["check"]
    write_rows(log, rows)
    code, _, err = run(capsys, "replay", log, "--unproven")
    assert code == 1 and f"{log}:2: a log of version 1 carries no state digests, and this " \
        "line does" in err


def test_an_old_log_replays_with_a_warning(capsys, tmp_path):
    log = ttt_log(capsys, tmp_path)
    rows = rows_of(log)
    rows[0]["version"] = 1
    del rows[0]["check"]
    for r in rows[1:]:
        del r["state"]
    write_rows(log, rows)
    code, out, err = run(capsys, "replay", log)          # it cannot prove its game
    assert code == 1 and out == "" and "give --unproven" in err
    code, out, err = run(capsys, "replay", log, "--unproven")
    assert code == 0 and out.startswith("ok: ")
    assert err.startswith(f"warning: {log}: a log of version 1: its decisions carry no state "
                          "digests")
    # a version-2 log without its digests is not sound
    rows[0]["version"] = 2
    write_rows(log, rows)
    code, _, err = run(capsys, "replay", log)
    assert code == 1 and "'check'" in err


# ---- 12: simulate --resume writes only to its own run's file --------------------------------

def sim(capsys, *argv):
    return run(capsys, "simulate", MEDANG, "--players", 3, "--seed", 7, "--workers", 1,
               *argv)


def test_resume_refuses_an_unrelated_file_and_leaves_it(capsys, tmp_path):
    log = tmp_path / "game.jsonl"
    assert run(capsys, "run", TTT, "--seed", 1, "--log", log)[0] == 0
    before = log.read_bytes()
    code, out, err = sim(capsys, "--games", 3, "--out", log, "--resume")
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"{log}:1: not a record file of tabula simulate")
    assert log.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\nno newline at the end")
    code, _, err = sim(capsys, "--games", 3, "--out", notes, "--resume")
    assert code == 1 and notes.read_text() == "my notes\nno newline at the end"


def test_resume_reports_a_corrupted_middle_line_and_plays_its_game(capsys, tmp_path):
    out = tmp_path / "run.jsonl"
    assert sim(capsys, "--games", 5, "--out", out)[0] == 0
    whole = out.read_text().splitlines(keepends=True)
    broken = whole[:2] + ['{"index": 2, "seed": 1\n'] + whole[3:]
    out.write_text("".join(broken))
    code, _, err = sim(capsys, "--games", 5, "--out", out, "--resume", "--json")
    assert code == 0
    assert f"warning: {out}: 1 line cannot be read: line 3 (not JSON)" in err
    # game 2 was played again (appended), games 3 and 4 were kept, not dropped
    from tabula_rules.tools.simulate import read_records
    recs = read_records(out)
    assert sorted(r["index"] for r in recs) == [0, 1, 2, 3, 4]
    assert json.loads(whole[2]) in recs
    assert out.read_text().splitlines(keepends=True)[:5] == broken[:5]


# ---- 10: scenario player keys and per-player shapes ----------------------------------------

GOOF = ROOT / "examples" / "goofspiel" / "goofspiel.yaml"
KUHN = ROOT / "examples" / "kuhn_poker" / "kuhn_poker.yaml"

BAD_SCENARIOS = {
    # name: (spec, the scenario's body, the failure expected (after file:line:col: ))
    "null zone key": (GOOF, "given: {zones: {hand: {~: [P0-2]}}}",
                      "'hand': null is not a player of this game (a player number 0 to 1)"),
    "player 99 zone": (GOOF, "given: {zones: {hand: {99: [P0-2]}}}",
                       "'hand': 99 is not a player"),
    "true as a player": (GOOF, "given: {zones: {hand: {true: [P0-2]}}}",
                         "'hand': True is not a player"),
    "null sizes key": (GOOF, "expect: {sizes: {hand: {~: 3}}}",
                       "sizes of 'hand': null is not a player"),
    "player 99 sizes": (GOOF, "expect: {sizes: {hand: {99: 3}}}",
                        "sizes of 'hand': 99 is not a player"),
    "sizes map for one zone": (GOOF, "expect: {sizes: {point_deck: {0: 3}}}",
                               "'point_deck' is one zone, not one per player"),
    "null legal key": (GOOF, "expect: {legal_includes: {~: [a]}}",
                       "legal_includes: null is not a player"),
    "player 99 legal": (GOOF, "expect: {legal: {99: [a]}}", "legal: 99 is not a player"),
    "player 99 expected current": (GOOF, "expect: {current: 99}",
                                   "current: 99 is not a player"),
    "player 99 step": (GOOF, "do: [{player: 99, action: a}]", "player: 99 is not a player"),
    "null variable key": (KUHN, "given: {variables: {stake: {~: 1}}}",
                          "'stake': null is not a player"),
    "player 99 variable": (KUHN, "given: {variables: {stake: {99: 1}}}",
                           "'stake': 99 is not a player"),
    "a number for a per-player variable": (
        KUHN, "expect: {variables: {stake: 3}}",
        "'stake' is per player: give a map from player number (0 to 1) to a value, not 3"),
    "player 99 expected variable": (KUHN, "expect: {variables: {stake: {99: 3}}}",
                                    "'stake': 99 is not a player"),
}


def test_scenario_player_keys_and_shapes_fail_located(capsys, tmp_path):
    for name, (spec, body, message) in BAD_SCENARIOS.items():
        f = tmp_path / "bad.test.yaml"
        f.write_text(f"spec: {spec}\nscenarios:\n  - id: x\n    {body}\n")
        code, out, err = run(capsys, "test", f)
        assert code == 1 and "Traceback" not in out + err, (name, out, err)
        assert f"FAIL {f}::x\n     {f}:4:" in out, (name, out)
        assert message in out, (name, out)


# ---- 11: counts are positive; an output file that cannot be written is an error --------------

FULL = "/dev/full"
needs_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full here")


@needs_full
def test_a_full_disk_is_a_clear_error(capsys, tmp_path):
    for argv, message in (
            (("run", TTT, "--log", FULL), f"cannot write the log {FULL}: "),
            (("run", TTT, "--log", FULL, "--for", 1), f"cannot write the log {FULL}: "),
            (("simulate", TTT, "--games", 3, "--workers", 1, "--out", FULL),
             f"cannot write {FULL}: "),
            (("compile", TTT, "--out", FULL), f"cannot write {FULL}: ")):
        code, _, err = run(capsys, *argv)
        assert code == 1 and "Traceback" not in err, argv
        assert err.startswith(message), (argv, err)


def test_an_output_error_no_command_wraps_is_still_exit_1(capsys, monkeypatch):
    from tabula_rules.tools import cli

    def broken(args):
        raise OSError(28, "No space left on device", "/somewhere/out.json")
    monkeypatch.setattr(cli, "cmd_run", broken)
    code, _, err = run(capsys, "run", TTT)
    assert code == 1 and err == "tabula: /somewhere/out.json: No space left on device\n"


def test_counts_must_be_positive(capsys):
    from tabula_rules.errors import TabulaError
    from tabula_rules.spec import load_spec
    from tabula_rules.tools import bench
    for games in ("0", "-3"):
        with pytest.raises(SystemExit) as e:
            main(["bench", TTT, "--games", games])
        assert e.value.code == 2
        assert "--games: must be greater than 0" in capsys.readouterr().err
    spec = load_spec(TTT)
    game = spec.game(None, {})
    for games in (0, -3):
        with pytest.raises(TabulaError, match="games must be a whole number from 1 to"):
            bench.bench(game, games, 1)
        with pytest.raises(TabulaError, match="games must be a whole number from 1 to"):
            bench.bench_spec(spec, game, games, 1)
    with pytest.raises(TabulaError, match="repeat must be"):
        bench.bench_spec(spec, game, 2, 1, repeat=0)


# ---- the bench suite file: the same reader and loader as every other input --------------

def bench_config(capsys, config):
    return run(capsys, "bench", "--suite", "--root", ROOT, "--config", config,
               "--only", "tiny", "--games", "1")


def test_a_bench_suite_alias_bomb_is_refused_before_building(capsys, tmp_path):
    config = tmp_path / "bench.yaml"
    config.write_text(alias_bomb(1200))        # 6 GB of text once expanded
    code, out, err = bench_config(capsys, config)
    assert code == 1 and out == ""
    assert "bench.yaml:" in err and "the document expands to more than" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", ["fifo", "sparse", "device"])
def test_a_bench_suite_that_is_not_a_regular_file_or_too_big_is_refused(capsys, tmp_path,
                                                                         special_files, kind):
    config = special_files[kind]
    config = config if config.startswith("/") else tmp_path / config
    code, out, err = bench_config(capsys, config)
    assert code == 1 and out == "" and EXPECTED[kind] in err, err


def test_an_empty_bench_suite_file_keeps_every_default(capsys, tmp_path):
    config = tmp_path / "bench.yaml"
    config.write_text("# nothing yet\n\n")
    from tabula_rules.tools.benchconfig import load
    suite = load(config)
    assert suite.games == {} and suite.ratios == [] and suite.parallel is None


# ---- what a log names and holds is input too: bounded, and never a way to quote a file ----

def test_a_logs_spec_path_naming_a_yaml_file_that_is_not_a_spec_is_not_quoted(capsys,
                                                                               tmp_path):
    log = ttt_log(capsys, tmp_path)
    secret = tmp_path / "config.yaml"
    secret.write_text("password: hunter2-very-secret\n")
    rows = rows_of(log)
    rows[0]["spec_path"] = str(secret)          # spec_path is information: not in `check`
    write_rows(log, rows)
    code, out, err = run(capsys, "replay", log)
    assert code == 1 and "is not a spec" in err and "its content is not shown" in err
    assert "hunter2" not in out + err and "password" not in out + err


@pytest.mark.parametrize("field, value, said", [
    ("tuple", [0, 0] + [1] * 100_000, "'tuple' is not an action tuple"),
    ("action", "x" * 1_000_000, "'action' is not a string (at most 10000 characters"),
    ("turn", "9" * 5000, "not JSON (a number of more than 4300 digits)"),
])
def test_oversized_fields_of_a_log_are_refused_in_a_short_message(capsys, tmp_path, field,
                                                                   value, said):
    log = ttt_log(capsys, tmp_path)
    rows = rows_of(log)
    rows[1][field] = value
    write_rows(log, rows)
    if field == "turn":                       # the number itself, written by hand
        log.write_text(log.read_text().replace(f'"{value}"', value))
    code, out, err = run(capsys, "replay", log)
    assert code == 1 and said in err and f"{log.name}:2:" in err, err[:300]
    assert len(err) < 500 and "sys.set_int_max_str_digits" not in err


@pytest.mark.parametrize("name", ["a/" * 3000, "a" * 300, "spec\0.yaml"])
def test_a_spec_path_no_file_can_have_is_a_short_error(capsys, name):
    code, out, err = run(capsys, "validate", name)
    assert code == 1 and len(err) < 400 and "Traceback" not in err, err[:400]
    assert "not a name a file can have" in err or "File name too long" in err


@pytest.mark.parametrize("field, value, said", [
    ("points", {"a" * 100: "x"}, "'points' is not an object of lists of numbers"),
    ("rule_counts", {"x": "y"}, "'rule_counts' is not an object of counts"),
    ("scores", [1] * 100_000, "'scores' is not a list of numbers"),
    ("scores", [1], "scores or points not one per player"),
    ("winners", [7], "a seat out of range"),
    ("spec", "x" * 100_000, "'spec' is not a string"),
])
def test_resume_reports_a_record_of_the_wrong_shape_and_plays_its_game(capsys, tmp_path,
                                                                       field, value, said):
    """A record whose fields are not what simulate writes (of the wrong type, size or
    count) is reported by line and its game played again; statistics never meet it
    (they raised a TypeError or ValueError before)."""
    out = tmp_path / "run.jsonl"
    assert sim(capsys, "--games", 4, "--out", out)[0] == 0
    rows = rows_of(out)
    rows[2][field] = value
    write_rows(out, rows)
    code, text, err = sim(capsys, "--games", 4, "--out", out, "--resume")
    assert code == 0, err
    assert f"line 3 (not a sound game record: {said}" in err and "Traceback" not in err
    assert len(err) < 1500
    kept = [r for r in rows_of(out) if r.get(field) != value]
    assert sorted(r["index"] for r in kept) == [0, 1, 2, 3]      # game 2 played again


def test_resume_refuses_a_record_of_another_spec_id(capsys, tmp_path):
    out = tmp_path / "run.jsonl"
    assert sim(capsys, "--games", 2, "--out", out)[0] == 0
    rows = rows_of(out)
    rows[1]["spec"] = "other"
    write_rows(out, rows)
    code, _, err = sim(capsys, "--games", 2, "--out", out, "--resume")
    assert code == 1 and "from another run (spec 'other'" in err


def test_a_bench_suite_file_that_is_one_text_is_not_quoted(capsys, tmp_path):
    config = tmp_path / "token"
    config.write_text("root:x:hunter2-very-secret:0\n")
    code, out, err = bench_config(capsys, config)
    assert code == 1 and "must be a mapping" in err and "a single value" in err
    assert "hunter2" not in err


@pytest.mark.parametrize("argv", [["--option", "deck=" + "x" * 100_000],
                                  ["--option", "x" * 100_000 + "=1"],
                                  ["--agents", "x" * 100_000],
                                  ["--option", "x" * 100_000]])
def test_long_command_line_values_are_quoted_short(capsys, argv):
    code, out, err = run(capsys, "run", ROOT / "examples" / "tiny", *argv)
    assert code == 1 and len(err) < 600 and "x" * 100 not in err, err[:600]
