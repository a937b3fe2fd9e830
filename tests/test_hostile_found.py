"""Regressions of the bugs the fuzz campaign (tests/fuzz.py) found, one test or more each."""

import json
import subprocess
import sys

import pytest

from tabula_rules.errors import TabulaError
from tabula_rules.spec import load_spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.gamelog import header_digest

from conftest import ROOT

TINY = str(ROOT / "examples" / "tiny")


def _record(tmp_path, seed=3):
    path = tmp_path / "game.jsonl"
    assert main(["run", TINY, "--seed", str(seed), "--log", str(path)]) == 0
    return path


def test_a_log_whose_seed_is_negated_and_resealed_is_refused(tmp_path, capsys):
    """Seeds S and -S gave one generator (random.Random folds the sign), so a log's seed
    edited from 3 to -3, its header digest recomputed, replayed as "ok": every state
    digest matched. A negative seed is now refused, by the log reader and by the engine."""
    path = _record(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["seed"] = -head["seed"]
    head["check"] = header_digest(head)
    path.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "'seed' is not a whole number, 0 or more: -3" in err and "ok:" not in err


def test_the_engine_refuses_a_negative_seed(capsys):
    game = load_spec(TINY).game()
    with pytest.raises(TabulaError, match="seed -1: a game's seed is a whole number"):
        game.new_state(seed=-1)
    game.new_state(seed=0)
    # on the command line, a seed out of range is a usage error (test_hostile_files.py)
    with pytest.raises(SystemExit) as e:
        main(["run", TINY, "--seed", "-3"])
    assert e.value.code == 2
    assert "argument --seed: -3: a negative seed" in capsys.readouterr().err


@pytest.mark.parametrize("seed, said", [
    (4294967298, "it deals the game of seed 2"),      # random.Random seeds it as 2
    (2 ** 80, "too large"),
])
def test_the_engine_and_the_adapters_refuse_a_seed_out_of_range_or_an_alias(seed, said):
    """The range of seeds holds in the engine, not only on the command line and in logs:
    Game.new_state and PettingZoo's reset refuse an alias of another seed (the same game
    under another name) and a seed past 2^53. (OpenSpiel's seed parameter is a C++ int,
    which reaches neither.)"""
    game = load_spec(TINY).game()
    with pytest.raises(TabulaError, match=said):
        game.new_state(seed=seed)
    from tabula_rules.pettingzoo import env
    e = env(spec=TINY)
    with pytest.raises(TabulaError, match=said):
        e.reset(seed=seed)


@pytest.mark.parametrize("where", ["action", "header"])
def test_a_log_escaping_a_lone_surrogate_is_refused_without_a_traceback(tmp_path, where):
    r"""A log's string may escape a lone surrogate ("\ud800"): json reads it, and the
    variant analysis printed it to stdout, where it cannot be encoded (UnicodeEncodeError,
    a traceback). The reader now refuses it, at its line."""
    path = _record(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 1 if where == "action" else 0
    record = json.loads(lines[i])
    record["action" if where == "action" else "spec_path"] = "x\ud800"
    lines[i] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    variant = tmp_path / "variant.yaml"
    variant.write_text(f"extends: {TINY}/tiny.yaml\ngame: {{id: tiny_v, name: V}}\n",
                       encoding="utf-8")
    line = i + 1
    for argv in (["replay", str(path)], ["replay", str(path), "--spec", str(variant)]):
        proc = subprocess.run([sys.executable, "-m", "tabula_rules.tools.cli"] + argv,
                              capture_output=True, cwd=ROOT, timeout=60)
        err = proc.stderr.decode("utf-8", "replace")
        assert proc.returncode == 1 and "Traceback" not in err, err
        assert f"{path}:{line}: " in err and "lone surrogate U+D800" in err, err


def damaged_run(tmp_path, games: int, field: str, value, *extra) -> tuple:
    """A `simulate --out` run of tiny whose second record has `field` set to `value`:
    (the file, the command line, its lines as written)."""
    out = tmp_path / "games.jsonl"
    argv = ["simulate", TINY, "--games", str(games), "--workers", "1", "--out", str(out),
            *extra]
    assert main(argv) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    record[field] = value
    lines[1] = json.dumps(record)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out, argv, lines


@pytest.mark.parametrize("field, value", [
    ("winners", [99]), ("winners", "01"), ("scores", ["x", 1]), ("scores", [1]),
    ("scores", ["7/0", 1]), ("scores", [10 ** 400, 1]), ("points", {"cards": ["a", 1]}),
    ("rule_counts", [1]), ("first_player", 9), ("decisions", "x"), ("turns", None),
    ("error", 5)])
def test_simulate_resume_reports_a_damaged_record_instead_of_failing(tmp_path, capsys,
                                                                     field, value):
    """simulate --resume checked a record's run (seed, spec, players, options, agents) but
    not the fields the summary reads: a record of this run with its winners, scores,
    points, counts or first player damaged made the summary fail with a traceback
    (IndexError, ValueError, AttributeError, TypeError, OverflowError). It is now a line
    that cannot be read: reported, left in place, its game played again."""
    out, argv, lines = damaged_run(tmp_path, 4, field, value, "--json")
    capsys.readouterr()
    assert main(argv + ["--resume"]) == 0
    captured = capsys.readouterr()
    assert "line 2 (not a sound game record: " in captured.err, captured.err
    said = captured.err.split("line 2 (not a sound game record: ", 1)[1]
    assert said.startswith((f"'{field}' is not", "a seat out of range",
                            "scores or points not one per player")), said
    assert json.loads(captured.out)["games"] == 4
    after = out.read_text(encoding="utf-8").splitlines()
    assert after[:4] == lines and json.loads(after[4])["index"] == 1     # played again


def test_simulate_resume_refuses_a_record_naming_another_game(tmp_path, capsys):
    """A record of the run whose game id was edited (its spec hash kept) was taken as a
    finished game of the run, and the summary named the game after it. The record's game
    id is now checked with the rest of its run, and the file refused, untouched."""
    out = tmp_path / "games.jsonl"
    argv = ["simulate", TINY, "--games", "3", "--workers", "1", "--out", str(out)]
    assert main(argv) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["spec"] = "another"
    lines[0] = json.dumps(record)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = out.read_bytes()
    capsys.readouterr()
    assert main(argv + ["--resume"]) == 1
    assert "this record is from another run (spec 'another', not 'tiny')" in \
        capsys.readouterr().err
    assert out.read_bytes() == before


@pytest.mark.parametrize("field, value", [("error", "x\ud800"),
                                          ("rule_counts", {"rule:\udfff": 1})])
def test_simulate_resume_reports_a_record_escaping_a_lone_surrogate(tmp_path, field, value):
    r"""A record of the run whose error or rule name escapes a lone surrogate ("\ud800")
    was summarised, and printing the summary failed on stdout (UnicodeEncodeError: a
    traceback). Such a line now cannot be read: reported, left in place, played again."""
    out, argv, _ = damaged_run(tmp_path, 3, field, value)
    proc = subprocess.run([sys.executable, "-m", "tabula_rules.tools.cli"] + argv + ["--resume"],
                          capture_output=True, cwd=ROOT, timeout=120)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "line 2 (not a sound game record: a string holds the lone surrogate U+" in err, err


@pytest.mark.parametrize("capacities, width, message", [
    ("[1, 1, 1]", 8, "a grid of 8 x 8 cells has 64 capacities, one a cell, not 3"),
    ("[1, 1, 1]", None, "a grid of 1 x 1 cells has 1 capacities, one a cell, not 3"),
])
def test_a_grid_whose_capacities_are_not_one_a_cell_is_a_located_error(
        tmp_path, capacities, width, message):
    """Issue 23's campaign (semantic mutations): Othello's 8 x 8 board given `capacities:
    [1, 1, 1]` made a zone of three slots with the geometry of 64 cells: an IndexError
    traceback while the neighbours were laid out. A board's capacities number its cells."""
    from tabula_rules.errors import SpecError
    text = (ROOT / "examples" / "othello" / "othello.yaml").read_text(encoding="utf-8")
    old = "    kind: grid\n    width: 8\n    height: 8\n"
    assert old in text
    new = "    kind: grid\n" + (f"    width: {width}\n    height: {width}\n" if width else "") \
        + f"    capacities: {capacities}\n"
    path = tmp_path / "othello.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(SpecError) as e:
        load_spec(path).validate()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert message in e.value.message and "capacities" in lines[e.value.pos.line - 1]


def test_a_slot_refilled_from_itself_moves_nothing_and_ends(tmp_path):
    """The long fuzz run (grammar-aware rule text in Medina): `refill X from Y` where X
    and Y are the same slot, known only when the game runs, took X's top and put it
    back for ever (the refill's loop never filled X): a hang. It moves nothing now."""
    from tabula_rules.spec import load_game
    path = tmp_path / "self_refill.yaml"
    path.write_text("""\
game: {id: self_refill, name: Self refill, source: none.txt, players: {min: 2, max: 2}}
components:
  chip: {name: chip, count: 3, zone: pile}
zones:
  pile: {kind: row, capacity: 5, visibility: public}
  other: {kind: row, capacity: 5, visibility: public}
play:
  - id: turn
    choose_one:
      - label: go
        do:
          - "refill (if size(pile) > 0 then pile else other) from pile"
scoring:
  points:
    chips: {value: "size(pile)"}
""", encoding="utf-8")
    import signal

    def stuck(signum, frame):
        raise AssertionError("the refill did not end within 10 s of CPU time")
    old = signal.signal(signal.SIGVTALRM, stuck)
    signal.setitimer(signal.ITIMER_VIRTUAL, 10.0)     # CPU time: a busy machine is no hang
    try:
        st = load_game(path).new_state(seed=1)
        st.apply_string("go")
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)
    assert st.is_terminal() and st.scores() == [3, 3]


@pytest.mark.parametrize("argv", [
    ["run", "TINY", "--players", "N"], ["simulate", "TINY", "--games", "N"],
    ["replay", "LOG", "--at", "N"], ["replay", "LOG", "--for", "N"],
    ["validate", "TINY", "--play", "N"],
])
def test_a_5000_digit_number_argument_is_refused_without_being_echoed(capsys, tmp_path, argv):
    """A number argument of 5,000 digits: a usage error (exit 2) that quotes its first
    characters only, never the whole 5,000 (argparse's own int type echoed it whole)."""
    log = tmp_path / "game.jsonl"
    assert main(["run", TINY, "--seed", "1", "--log", str(log)]) == 0
    capsys.readouterr()
    sub = {"TINY": str(TINY), "LOG": str(log), "N": "9" * 5000}
    with pytest.raises(SystemExit) as e:
        main([sub.get(a, a) for a in argv])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "9" * 100 not in err and "Traceback" not in err, err[-300:]
