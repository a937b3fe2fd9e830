"""Hostile input, issue 23: the classes of a second campaign, each fixed at its cause.

- Class 6, two writers, one file: `tabula simulate --out F` holds a lock on F for its whole
  run (cmdutil.exclusive, flock): a second run on F, resumed or not, is refused at once
  (exit 1, one line naming F) and writes nothing; a holder that dies (SIGKILL) frees it,
  its forked workers too.
- Class 7, a seed alias: random.Random seeds S and S + (S - 1) * 2^32 alike, so a seed is
  a whole number from 0 to 2^53 - 1 and no such alias (cmdutil.seed_problem): refused on
  the command line (a usage error, exit 2), in a log's header (exit 1), in a scenario.
- Class 8, a credentials file quoted: a file named on the command line is quoted in an
  error only once it shows it is what the command reads (a YAML mapping with a spec's,
  a scenario file's or a suite file's sections: loader.shows_sections), never by its
  first character; any other is refused without a line of it shown, by every command.
- Class 9, a 5,000-digit line: `tabula play` (and the scenario reader, the graph's
  sort) take a number of any length as bad input, never int()'s ValueError.

The processes of class 6 are real (subprocess) and the tests wait on events (a line
printed once the lock is held, a record in the file), not on durations."""

import io
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from tabula_rules.tools import cmdutil, simulate
from tabula_rules.tools.cli import main
from tabula_rules.tools.gamelog import header_digest
from tabula_rules.tools.scenario import run_file

import fuzz
from conftest import ROOT

TINY = str(ROOT / "examples" / "tiny")
TTT = str(ROOT / "examples" / "tic_tac_toe")
KUHN = ROOT / "examples" / "kuhn_poker" / "kuhn_poker.yaml"


def tabula(*argv, **kw) -> subprocess.CompletedProcess:
    """`tabula ARGV` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "tabula_rules", *map(str, argv)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, **kw)


def simulate_argv(out, seed=1, games=4, *extra) -> list:
    return ["simulate", TINY, "--games", str(games), "--workers", "1", "--seed", str(seed),
            "--out", str(out), *extra]


# ---- class 6: two writers, one file ------------------------------------------------------

def test_a_second_simulate_on_a_file_being_written_is_refused_and_writes_nothing(tmp_path,
                                                                                 capsys):
    """The file is held (as a running simulate holds it) by this test's process; two
    other processes, a new run with another seed and a resume of the same run, are each
    refused with one line naming the file, exit 1, and the file is byte for byte as it
    was (before, the first truncated it and the second appended duplicates)."""
    out = tmp_path / "games.jsonl"
    assert main(simulate_argv(out, games=3)) == 0
    before = out.read_bytes()
    capsys.readouterr()
    with cmdutil.exclusive(out):
        for argv in (simulate_argv(out, seed=2), simulate_argv(out, 1, 6, "--resume")):
            proc = tabula(*argv)
            assert proc.returncode == 1, proc.stderr
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and str(out) in lines[0], proc.stderr
            assert "another tabula simulate is writing it" in lines[0]
            assert out.read_bytes() == before
    # released at the end of the block: the run resumes
    assert main(simulate_argv(out, 1, 6, "--resume")) == 0
    assert [json.loads(x)["index"] for x in out.read_text().splitlines()] == list(range(6))


def test_two_real_runs_on_one_file_leave_the_first_resumable(tmp_path):
    """A long run writing F; a second run (another seed) and a resume of the first, both
    started while it writes, are refused; killed, the first run's file holds its records
    only and resumes."""
    out = tmp_path / "games.jsonl"
    first = subprocess.Popen([sys.executable, "-m", "tabula_rules",
                              *simulate_argv(out, 1, cmdutil.MAX_GAMES)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        deadline = time.monotonic() + 240         # only against a hang: no timing asserted
        while not (out.exists() and out.read_bytes().count(b"\n") >= 1):
            assert first.poll() is None and time.monotonic() < deadline, "no record came"
            time.sleep(0.05)
        for argv in (simulate_argv(out, seed=2), simulate_argv(out, 1, 3, "--resume")):
            proc = tabula(*argv)
            assert proc.returncode == 1 and "another tabula simulate" in proc.stderr, \
                proc.stderr
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    records = [json.loads(x) for x in out.read_text().split("\n")[:-1]]
    assert records and all(r["seed"] == simulate.game_seed(1, r["index"]) for r in records)
    assert [r["index"] for r in records] == list(range(len(records)))
    proc = tabula(*simulate_argv(out, 1, len(records) + 2, "--resume"))
    assert proc.returncode == 0, proc.stderr


HOLDER = """\
import os, sys, time
from tabula_rules.tools.cmdutil import exclusive
with exclusive(sys.argv[1]):
    child = os.fork()                      # a worker that outlives the holder
    if child == 0:
        time.sleep(600)
        os._exit(0)
    print(child, flush=True)
    time.sleep(600)
"""


def test_a_killed_holder_does_not_block_even_with_a_forked_child_alive(tmp_path, capsys):
    """The holder takes the lock, forks a child (as a pool forks its workers) and says
    so; while it lives a run is refused; SIGKILLed, the kernel frees its lock, and its
    child, still alive, holds none (its copy was closed at the fork): the run writes."""
    out = tmp_path / "games.jsonl"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        child = int(holder.stdout.readline())
        assert main(simulate_argv(out)) == 1
        assert "another tabula simulate is writing it" in capsys.readouterr().err
        holder.kill()
        holder.wait()
        os.kill(child, 0)                       # the child lives on
        assert main(simulate_argv(out)) == 0
        assert len(out.read_text().splitlines()) == 4
    finally:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait()


def test_a_device_or_a_fifo_as_out_is_not_locked(tmp_path):
    """/dev/null is no file two runs share: never locked (two runs write to it at once)."""
    with cmdutil.exclusive("/dev/null"):
        with cmdutil.exclusive("/dev/null"):
            pass
    held = tmp_path / "held"
    with cmdutil.exclusive(held):
        with pytest.raises(cmdutil.TabulaError, match=f"cannot write {held}: another"):
            with cmdutil.exclusive(held):       # one process, two runs: refused too
                pass


# ---- class 7: a seed alias -----------------------------------------------------------------

ALIAS = 2 + (2 - 1) * 2 ** 32          # 4294967298: random.Random seeds it as 2


def test_the_alias_is_real_and_every_accepted_seed_is_its_own():
    assert random.Random(ALIAS).getstate() == random.Random(2).getstate()
    assert cmdutil.seed_alias(ALIAS) == 2 and cmdutil.seed_problem(ALIAS)
    for a in (0, 1, 2, 3, 2 ** 21):
        alias = a + ((a - 1) % 2 ** 32) * 2 ** 32
        if 0 < alias < 2 ** 53 and alias != a:
            assert random.Random(alias).getstate() == random.Random(a).getstate()
            assert cmdutil.seed_alias(alias) == a
    assert cmdutil.seed_problem(-1) and cmdutil.seed_problem(2 ** 53)
    assert cmdutil.seed_problem(True) and cmdutil.seed_problem(10 ** 4000)
    for seed in (0, 1, 2, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, ALIAS + 1, 2 ** 53 - 1):
        assert cmdutil.seed_problem(seed) is None, seed


def test_game_seeds_are_never_aliases(monkeypatch):
    """game_seed's hash landing on an alias (a chance of 2^-32) is moved off it."""
    class Fake:
        def __init__(self, text):
            pass

        def digest(self):
            return (ALIAS << 11).to_bytes(8, "big")
    monkeypatch.setattr(simulate.hashlib, "sha256", Fake)
    seed = simulate.game_seed(1, 0)
    assert seed != ALIAS and seed < 2 ** 53 and cmdutil.seed_problem(seed) is None


@pytest.mark.parametrize("seed", ["-3", str(ALIAS), str(2 ** 53), "9" * 5000, "x"])
@pytest.mark.parametrize("command", [["run", TINY], ["simulate", TINY, "--games", "1"],
                                     ["play", TINY], ["validate", TINY, "--play", "1"]])
def test_a_seed_out_of_range_on_the_command_line_is_a_usage_error(capsys, command, seed):
    with pytest.raises(SystemExit) as e:
        main(command + ["--seed", seed])
    assert e.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "argument --seed" in last and "2^53 - 1" in last and len(last) < 400, err
    if seed == str(ALIAS):
        assert "it deals the game of seed 2" in last


def test_the_largest_seed_is_accepted(capsys):
    assert main(["run", TINY, "--seed", str(2 ** 53 - 1), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 2 ** 53 - 1


@pytest.mark.parametrize("seed", [ALIAS, 2 ** 53, 2 ** 70])
def test_a_log_whose_seed_is_an_alias_or_out_of_range_is_refused(tmp_path, capsys, seed):
    """A log of --seed 2 edited to an alias of 2 (4294967298), its header digest
    recomputed, replayed "ok" before: every state digest matched, seed 2's game. Now the
    header is refused, exit 1; out of range likewise."""
    path = tmp_path / "game.jsonl"
    assert main(["run", TINY, "--seed", "2", "--log", str(path)]) == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["seed"] = seed
    head["check"] = header_digest(head)
    path.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n", encoding="utf-8")
    capsys.readouterr()
    for argv in (["replay", str(path)], ["replay", str(path), "--json"]):
        assert main(argv) == 1
        out, err = capsys.readouterr()
        assert "ok" not in out and f"{path}:1: the header is not sound: 'seed' {seed}" in err
        assert "2^53 - 1" in err
    if seed == ALIAS:
        assert "it deals the game of seed 2" in err


def test_a_scenario_seed_that_is_an_alias_fails_the_scenario(tmp_path):
    path = tmp_path / "s.test.yaml"
    path.write_text(f"spec: {KUHN}\nscenarios:\n  - id: s\n    seed: {ALIAS}\n"
                    "    do: ['Deal:1', 'Deal:2']\n    expect: {current: 0}\n")
    [result] = run_file(path)
    assert not result.passed and "seed: it deals the game of seed 2" in result.message
    assert result.pos.line == 4


# ---- class 8: a file that is no spec is never quoted ---------------------------------------

CANARY = "cnry7SECRETTOKEN42"
NOT_SPECS = {
    "credentials": f"[default]\naws_access_key_id = AKIAEXAMPLE\n"
                   f"aws_secret_access_key = {CANARY}\n",
    ".env": f"AWS_SECRET_ACCESS_KEY={CANARY}\nDEBUG=1\n",
    "token.json": json.dumps({"aws_secret_access_key": CANARY, "region": "x"}) + "\n",
    "id_rsa": f"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA{CANARY}\n"
              "-----END RSA PRIVATE KEY-----\n",
    "deploy.sh": f"#!/bin/sh\nexport TOKEN={CANARY}\ncurl -H \"auth: $TOKEN\" http://x\n",
    "vault.yaml": f"password: {CANARY}\ntokens: [{CANARY}]\n",
    # a spec's required section beside keys of another kind: still no spec
    "with_game.yaml": f"game: x\naws_secret_access_key: {CANARY}\n",
    "bad.yaml": f"key: [{CANARY}\nother: 1\n",
}

# every command that takes a file, the file in each place it may be named (F)
COMMANDS = [
    ["validate", "F"], ["run", "F"], ["graph", "F"], ["compile", "F"], ["rulings", "F"],
    ["play", "F"], ["test", "F"], ["bench", "F"], ["simulate", "F"],
    ["ladder", "F", "--agents", "random,greedy"], ["diff", "F", TINY], ["diff", TINY, "F"],
    ["replay", "F"], ["replay", "LOG", "--spec", "F"],
    ["bench", "--suite", "--root", str(ROOT), "--only", "tiny", "--config", "F"],
    ["simulate", TINY, "--games", "1", "--out", "F", "--resume"],
]


@pytest.fixture(scope="module")
def not_specs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("not_specs")
    for name, text in NOT_SPECS.items():
        (folder / name).write_text(text, encoding="utf-8")
    log = folder / "game.jsonl"
    assert main(["run", TINY, "--seed", "1", "--log", str(log)]) == 0
    return folder


@pytest.mark.parametrize("name", list(NOT_SPECS))
def test_a_file_that_is_no_spec_is_never_quoted_by_any_command(not_specs, name):
    """A credentials file, a .env, a JSON document, a PEM key, a shell script, YAML of
    other keys, broken YAML: named wherever a command takes a file, refused (exit 1 or
    2) without a character of it shown; a spec or scenario reader says it is not one."""
    path = str(not_specs / name)
    before = (not_specs / name).read_bytes()
    for command in COMMANDS:
        argv = [path if w == "F" else str(not_specs / "game.jsonl") if w == "LOG" else w
                for w in command]
        stdin = sys.stdin
        sys.stdin = io.StringIO("quit\n")        # tabula play: never reached
        try:
            code, output = fuzz.run_command(argv)
        finally:
            sys.stdin = stdin
        assert code in (1, 2), (argv, output)
        assert CANARY not in output and "AKIA" not in output, (argv, output)
        assert fuzz.internals(output, "") == [], (argv, output)
        if command[0] in ("validate", "run", "graph", "compile", "rulings", "play", "diff") \
                or command[:2] == ["replay", "LOG"] or command == ["simulate", "F"]:
            assert "not a spec: the file is" in output and "content is not shown" in output, \
                (argv, output)
        if command[0] == "test":
            assert "not a scenario file: the file is" in output, (argv, output)
    assert (not_specs / name).read_bytes() == before      # --resume refused: untouched


def test_a_spec_with_an_error_is_still_quoted(tmp_path, capsys):
    """The positive test lets a spec's own errors quote it: a YAML slip after game:, a
    schema error, a file too large whose head is a spec."""
    text = (ROOT / "examples" / "tiny" / "tiny.yaml").read_text(encoding="utf-8")
    for bad in (text.replace("  name: Tiny\n", "  name: Tiny\n    oops: [\n"),
                text.replace("  name: Tiny\n", "  name: Tiny\n  colour: blue\n")):
        path = tmp_path / "tiny.yaml"
        path.write_text(bad, encoding="utf-8")
        assert main(["validate", str(path)]) == 1
        err = capsys.readouterr().err
        assert err.splitlines()[1].startswith("    ") and "^" in err, err


# ---- class 9: a number of any length typed ---------------------------------------------------

def test_tabula_play_takes_a_5000_digit_line_as_bad_input_and_goes_on(monkeypatch, capsys):
    lines = ["9" * 5000, "-" + "9" * 5000, "+" + "0" * 5000 + "1", "quit"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code = main(["play", TTT, "--seats", "human,random", "--seed", "2"])
    out, err = capsys.readouterr()
    assert code == 0 and "internal error" not in out + err, err
    assert out.count("no action '99999") == 1 and out.count("no action '-9999") == 1
    assert "9" * 300 not in out and "more characters" in out     # echoed and said cut
    assert "you: x(0,0)" in out          # 1 with 5,000 leading zeros: the game went on


def test_a_scenario_player_key_of_5000_digits_or_a_superscript_is_no_player(tmp_path):
    for key in ("'" + "9" * 5000 + "'", "'²'"):
        path = tmp_path / "s.test.yaml"
        path.write_text(f"spec: {KUHN}\nscenarios:\n  - id: s\n"
                        "    do: ['Deal:1', 'Deal:2', Bet]\n    expect:\n"
                        f"      variables:\n        stake:\n          ? {key}\n"
                        "          : 2\n", encoding="utf-8")
        [result] = run_file(path)
        assert not result.passed and "is not a player of this game" in result.message


def test_the_graphs_sort_takes_a_5000_digit_id():
    from tabula_rules.tools.graphview import natural
    ids = ["rule:r" + "9" * 5000, "rule:r10", "rule:r2", "rule:r" + "8" * 5000]
    assert sorted(ids, key=natural) == [ids[2], ids[1], ids[3], ids[0]]


def test_a_spec_with_a_stray_top_level_key_is_refused_naming_the_key(tmp_path, capsys):
    """A whole spec but for one top-level key no spec has (not a slip of a section's
    name): refused unquoted, as a file of another kind beside game: is, but the error
    names the key, so the spec's author finds it."""
    path = tmp_path / "stray.yaml"
    path.write_text((ROOT / "examples" / "tic_tac_toe" / "tic_tac_toe.yaml").read_text()
                    + f"author_email: {CANARY}\n")
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "it has the key 'author_email', which no spec has" in err and CANARY not in err
