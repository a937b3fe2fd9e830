"""The command line: exit codes, located errors without tracebacks, JSON outputs."""

import json
import subprocess
import sys

import pytest

from interpreter.cli import main

from conftest import ROOT

MEDANG = str(ROOT / "specs" / "medang")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_ok(capsys):
    code, out, _ = run(capsys, "validate", MEDANG)
    assert code == 0 and "ok" in out


def test_validate_bad_spec_is_located(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game:\n  id: x\n  name: X\n  source: x.txt\n  players: {min: 2, max: 2}\n"
                   "play:\n  - move nothing to nowhere\n")
    code, _, err = run(capsys, "validate", str(bad))
    assert code == 1
    assert f"{bad}:7:" in err and "^" in err and "Traceback" not in err


def test_run_json(capsys):
    code, out, _ = run(capsys, "run", MEDANG, "--players", "3", "--seed", "5", "--json")
    assert code == 0
    data = json.loads(out)
    assert {"scores", "winners", "decisions", "points", "seed"} <= set(data)
    assert len(data["scores"]) == 3 and data["decisions"]


def test_run_is_deterministic(capsys):
    a = run(capsys, "run", MEDANG, "--seed", "9", "--json")[1]
    b = run(capsys, "run", MEDANG, "--seed", "9", "--json")[1]
    assert a == b


def test_run_text_and_log(capsys, tmp_path):
    log = tmp_path / "game.json"
    code, out, _ = run(capsys, "run", MEDANG, "--option", "temple=kalasan", "--log", str(log))
    assert code == 0 and "final scores" in out and "winner" in out
    assert json.loads(log.read_text().splitlines()[0])["options"] == {"temple": "kalasan"}


@pytest.mark.parametrize("argv,message", [
    (["--option", "temple=atlantis"], "not one of"),
    (["--option", "colour=red"], "unknown option"),
    (["--option", "temple=kalasan", "--players", "3"], "2 to 2 players"),
    (["--players", "9"], "2 to 5 players"),
    (["--option", "temple"], "KEY=VALUE"),
])
def test_run_bad_options(capsys, argv, message):
    code, _, err = run(capsys, "run", MEDANG, *argv)
    assert code == 1 and message in err and "Traceback" not in err


def test_bench_json(capsys):
    code, out, _ = run(capsys, "bench", MEDANG, "--players", "3", "--games", "5", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"playouts_per_s", "decisions_per_s", "decisions_per_game"} <= set(data)
    assert data["decisions_per_game"] > 40


def test_test_command(capsys):
    code, out, _ = run(capsys, "test", MEDANG)
    assert code == 0 and " passed, 0 failed" in out


def test_missing_spec(capsys):
    code, _, err = run(capsys, "run", "no/such/spec")
    assert code == 1 and "no such spec" in err


def test_usage_error_exits_2():
    proc = subprocess.run([sys.executable, "-m", "interpreter", "frobnicate"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "interpreter", "validate", MEDANG],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


def test_simulate_json_out_report_and_resume(capsys, tmp_path):
    out, html = tmp_path / "games.jsonl", tmp_path / "games.html"
    args = ["simulate", MEDANG, "--players", "2", "--games", "6", "--seed", "3",
            "--agents", "greedy,random", "--rotate", "--workers", "1", "--out", str(out)]
    code, text, _ = run(capsys, *args, "--json", "--report", str(html))
    assert code == 0
    data = json.loads(text)
    assert {"games", "failed", "win_rate_by_seat", "score_mean_by_seat"} <= set(data)
    assert data["games"] == 6 and data["failed"] == 0
    assert set(data["win_rate_by_agent"]) == {"greedy", "random"}
    lines = out.read_text().splitlines()
    assert [json.loads(x)["agents"][0] for x in lines] == ["greedy", "random"] * 3
    assert html.read_text().startswith("<!DOCTYPE html>")
    # an interrupted file (two games and half a line) is completed to the same bytes
    full = out.read_bytes()
    out.write_bytes(full[:full.index(b"\n", full.index(b"\n") + 1) + 1] + b'{"index": 2,')
    code, text, _ = run(capsys, *args, "--resume")
    assert code == 0 and out.read_bytes() == full
    assert "6 games, 0 failed" in text and "win rate" in text


@pytest.mark.parametrize("argv, message", [
    (["--report", "/no/such/folder/r.html"], "cannot write /no/such/folder/r.html"),
    (["--address", "auto"], "--address is for --backend ray"),
    (["--agents", "gredy"], "did you mean 'greedy'"),
    (["--resume"], "--resume completes the file of --out"),
    (["--players", "9"], "medang.yaml:11:12: error: medang is for 2 to 5 players, not 9"),
])
def test_simulate_bad_input_exits_1(capsys, argv, message):
    code, _, err = run(capsys, "simulate", MEDANG, "--games", "2", "--workers", "1", *argv)
    assert code == 1 and message in err and "Traceback" not in err


def test_simulate_unknown_backend_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["simulate", MEDANG, "--backend", "spark"])
    assert e.value.code == 2


def test_compile_prints_the_generated_program(capsys, tmp_path):
    code, out, _ = run(capsys, "compile", MEDANG, "--players", "4", "--option", "temple=sewu")
    assert code == 0
    assert out.startswith("# medang, 4 players, temple=sewu")
    assert "def D" in out and "def I" in out and "def F" in out
    compile(out, "<printed>", "exec")            # a valid Python module, for reading
    target = tmp_path / "medang.py"
    code, out2, _ = run(capsys, "compile", MEDANG, "--players", "4", "--option", "temple=sewu",
                        "--out", str(target))
    assert code == 0 and out2 == "" and target.read_text() == out


def test_compile_of_a_bad_spec_is_located(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game:\n  id: x\n  name: X\n  source: x.txt\n  players: {min: 2, max: 2}\n"
                   "play:\n  - move nothing to nowhere\n")
    code, _, err = run(capsys, "compile", str(bad))
    assert code == 1 and f"{bad}:7:" in err and "Traceback" not in err
    code, _, err = run(capsys, "compile", MEDANG, "--out", str(tmp_path / "no" / "such.py"))
    assert code == 1 and "cannot write" in err
