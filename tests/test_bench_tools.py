"""`tabula bench SPEC --profile` and `--instructions` (issue 20, item 7): a profile names the
spec's own functions, rules and decisions (Program.origin) instead of F4 and E15;
callgrind's counts of the playouts repeat from run to run; bad input (games out of
bounds, valgrind absent, flags that do not go together) is a clear error with its exit
code, never a traceback."""

import json
import shutil

import pytest

from tabula_rules.spec import load_spec
from tabula_rules.tools import bench

from conftest import ROOT
from helpers import run, usage_error

TIC_TAC_TOE = ROOT / "examples" / "tic_tac_toe"

# a small spec of its own: tic-tac-toe, its winning test renamed (lined_up)
def small_spec(tmp_path):
    text = (TIC_TAC_TOE / "tic_tac_toe.yaml").read_text().replace("three_in_a_row",
                                                                    "lined_up")
    path = tmp_path / "small.yaml"
    path.write_text(text.replace("id: tic_tac_toe", "id: small"))
    return path




# the line the function three_in_a_row of tic_tac_toe.yaml starts at: its first key's
# (the profile names the function there)
LINE = 1 + next(i for i, line in enumerate(
    (TIC_TAC_TOE / "tic_tac_toe.yaml").read_text().splitlines(), 1)
    if line.strip() == "three_in_a_row:")


def test_program_names_its_generated_functions():
    prog = load_spec(TIC_TAC_TOE).game(2).prog
    assert prog.origin("F0") == f"function three_in_a_row (tic_tac_toe.yaml:{LINE})"
    assert prog.origin("D0").startswith("decision of play (tic_tac_toe.yaml:")
    assert prog.origin("no such function") is None
    assert all(text for text in prog.origins.values())


def test_profile_names_the_spec_functions(capsys):
    code, out, err = run(capsys, "bench", TIC_TAC_TOE, "--profile", "--games", 20, "--json")
    assert code == 0, err
    data = json.loads(out)
    names = [r["name"] for r in data["spec_entries"]]
    assert f"function three_in_a_row (tic_tac_toe.yaml:{LINE})" in names
    assert any(n.startswith("decision of play") for n in names)
    assert not any(n.startswith(("F", "E", "D", "A", "G", "I")) and n[1:].isdigit()
                   for n in names), names
    assert abs(sum(data["shares"].values()) - 1) < 1e-6
    interp = [r["name"] for r in data["interpreter_entries"]]
    assert any(n.startswith("_run (runtime/engine.py") for n in interp), interp
    code, text, _ = run(capsys, "bench", TIC_TAC_TOE, "--profile", "--games", 5)
    assert code == 0 and f"function three_in_a_row (tic_tac_toe.yaml:{LINE})  [F0]" in text


def test_profile_of_an_inline_spec(tmp_path, capsys):
    path = small_spec(tmp_path)
    code, out, err = run(capsys, "bench", path, "--profile", "--games", 3, "--json")
    if code:
        pytest.fail(err)
    names = [r["name"] for r in json.loads(out)["spec_entries"]]
    assert f"function lined_up (small.yaml:{LINE})" in names, names


@pytest.mark.valgrind      # about a minute: a benchmark, run with `pytest -m valgrind`
@pytest.mark.skipif(shutil.which("valgrind") is None,
                    reason="valgrind is not installed: --instructions cannot count")
def test_instructions_repeat():
    spec = load_spec(TIC_TAC_TOE)
    game = spec.game(2)
    a = bench.instructions(spec, game, 1, 1)
    b = bench.instructions(spec, game, 1, 1)
    assert a["decisions"] == b["decisions"] > 0
    # the same count to about 1 in 10,000 (bench.TOGGLE says what is left)
    assert abs(a["instructions_playouts"] - b["instructions_playouts"]) \
        <= a["instructions_playouts"] / 1000
    assert a["instructions_per_decision"] > 1000
    assert "PYTHONHASHSEED=0" in a["repeatable"]


def test_instructions_without_valgrind(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))        # no valgrind there
    code, out, err = run(capsys, "bench", TIC_TAC_TOE, "--instructions")
    assert code == 1 and out == ""
    assert "valgrind is not installed" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_input_is_a_usage_error(capsys):
    assert "must be greater than 0" in usage_error(capsys, "bench", TIC_TAC_TOE, "--profile",
                                                   "--games", "-3")
    assert "must be greater than 0" in usage_error(capsys, "bench", TIC_TAC_TOE,
                                                   "--instructions", "--games", "0")
    if shutil.which("valgrind"):
        err = usage_error(capsys, "bench", TIC_TAC_TOE, "--instructions", "--games",
                          bench.INSTRUCTION_MAX + 1)
        assert "--long" in err
    assert "not both" in usage_error(capsys, "bench", TIC_TAC_TOE, "--instructions",
                                     "--profile")
    assert "not --suite" in usage_error(capsys, "bench", "--suite", "--profile")
    assert "--long goes with --instructions" in usage_error(capsys, "bench", TIC_TAC_TOE,
                                                            "--long")
    with pytest.raises(Exception, match="from 1 to"):
        bench.profile(None, None, -1, 1)
