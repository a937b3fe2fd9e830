"""The command line: exit codes, located errors without tracebacks, JSON outputs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tabula_rules.tools.cli import main

from conftest import ROOT
from helpers import run

MEDANG = str(ROOT / "specs" / "medang")



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
    proc = subprocess.run([sys.executable, "-m", "tabula_rules", "frobnicate"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "tabula_rules", "validate", MEDANG],
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


# ---- a command line that explains itself ----------------------------------------------------

def commands():
    """{name: parser} of every `tabula` command, as registered (others' commands too)."""
    import argparse

    from tabula_rules.tools.cli import parser
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_version_is_the_package_metadata(capsys):
    import tomllib
    from importlib import metadata
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert metadata.version(pyproject["name"]) == pyproject["version"]
    assert capsys.readouterr().out == f"tabula ({pyproject['name']}) {pyproject['version']}\n"


def test_every_option_of_every_command_has_help_and_its_default():
    import argparse

    from tabula_rules.tools.cmdutil import HelpFormatter
    found = commands()
    assert {"list", "validate", "run", "replay", "test", "bench", "simulate", "diff",
            "compile", "graph"} <= set(found)
    for name, p in found.items():
        assert p.description, f"tabula {name} -h says nothing of what it does"
        assert isinstance(p.formatter_class, type) and issubclass(p.formatter_class,
                                                                 HelpFormatter), name
        for action in p._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            what = f"tabula {name} {'/'.join(action.option_strings) or action.dest}"
            assert action.help and action.help != argparse.SUPPRESS, f"{what}: no help"
            shown = HelpFormatter(name)._get_help_string(action)
            if action.option_strings and action.default not in (None, False, [],
                                                                argparse.SUPPRESS):
                assert "default" in shown, f"{what}: its default {action.default} unsaid"
        assert "%(" not in p.format_help(), name


def test_help_shows_defaults(capsys):
    with pytest.raises(SystemExit) as e:
        main(["simulate", "-h"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert "how many games (default: 100)" in out
    assert "--seed S" in out and "(default:" in out
    with pytest.raises(SystemExit):
        main(["-h"])
    out = capsys.readouterr().out
    assert "--version" in out and "list" in out and "tabula COMMAND -h" in out


@pytest.mark.parametrize("argv", [
    ["simulate", MEDANG, "--games", "0"],
    ["simulate", MEDANG, "--games", "-3"],
    ["simulate", MEDANG, "--workers", "0"],
    ["bench", MEDANG, "--games", "0"],
    ["bench", MEDANG, "--repeat", "0"],
    ["bench", "--suite", "--games-scale", "0"],
    ["validate", MEDANG, "--play", "0"],
    ["validate", MEDANG, "--play", "-1"],
    ["validate", MEDANG, "--play", "2", "--workers", "0"],
    ["diff", MEDANG, MEDANG, "--simulate", "0"],
    ["diff", MEDANG, MEDANG, "--simulate", "4", "--workers", "-1"],
])
def test_counts_that_must_be_positive_are_usage_errors(capsys, argv):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert "must be greater than 0" in capsys.readouterr().err


def test_graph_draws_svg_without_graphviz(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))          # no `dot` to be found
    out = tmp_path / "tiny.svg"
    code, printed, err = run(capsys, "graph", str(ROOT / "examples" / "tiny"), "--out", str(out))
    assert code == 0 and printed == "", err
    svg = out.read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and svg.rstrip().endswith("</svg>")
    assert "setup" in svg and "decision: " in svg and "tiny: action graph" in svg
    assert "dc:date" not in svg                         # the same text every time
    code, again, _ = run(capsys, "graph", str(ROOT / "examples" / "tiny"), "--format", "svg")
    assert code == 0 and again == svg


def test_graph_draws_every_shipped_spec_as_svg(capsys):
    from tabula_rules.lang import catalog
    for spec in catalog.shipped():
        code, svg, err = run(capsys, "graph", str(spec.path), "--format", "svg")
        assert code == 0, err
        assert svg.rstrip().endswith("</svg>") and "action graph" in svg, spec.path


@pytest.mark.parametrize("suffix, start", [(".mmd", "---\ntitle:"), (".json", "{"),
                                           (".dot", "digraph"), (".gv", "digraph")])
def test_graph_format_follows_the_suffix_of_out(capsys, tmp_path, suffix, start):
    out = tmp_path / f"g{suffix}"
    code, _, err = run(capsys, "graph", str(ROOT / "examples" / "tiny"), "--out", str(out))
    assert code == 0, err
    assert out.read_text().startswith(start)


# ---- games by name ------------------------------------------------------------------------------

def test_list_names_every_shipped_spec(capsys):
    from conftest import EXAMPLES, SPEC_FILES
    code, out, err = run(capsys, "list", "--json")
    assert code == 0, err
    data = json.loads(out)
    games = {g["name"]: g for g in data["games"]}
    # the shipped games: the repository's in a checkout, the package's data when installed
    # (as CI installs it); the same files either way
    home = Path(data["root"])
    assert {Path(g["path"]).relative_to(home) for g in data["games"]} == \
        {f.relative_to(ROOT) for f in SPEC_FILES} | {
            (Path(p) if Path(p).is_file() else
             p / f"{p.name}.yaml" if (p / f"{p.name}.yaml").is_file()
             else next(p.glob("*.yaml"))).relative_to(ROOT) for p in EXAMPLES}
    assert games["medang"]["players"] == {"min": 2, "max": 5}
    assert games["medang"]["title"] == "Medang" and games["medang"]["options"] == {
        "temple": "borobudur", "row_majority": "all_dynasties",     # rulings: defaults
        "end_immediate": "immediate"}
    assert games["medang"]["variants"] == ["medang-prambanan"]
    assert games["medang-prambanan"]["extends"] == "medang"
    assert games["medang-prambanan"]["names"] == ["medang-prambanan", "medang_prambanan"]
    assert games["medina"]["variants"] == ["medina_bsw_dm2003"]
    assert games["medina_bsw_dm2003"]["where"] == "specs/medina/bsw-dm2003.yaml"
    code, text, _ = run(capsys, "list")
    assert code == 0
    lines = text.splitlines()
    assert lines[1].split() == ["NAME", "PLAYERS", "TITLE", "OPTIONS", "WHERE"]
    row = next(x for x in lines if x.startswith("medang "))
    assert row.split()[:3] == ["medang", "2-5", "Medang"] and "specs/medang/medang.yaml" in row
    below = lines[lines.index(row) + 1]
    assert below.startswith("  medang-prambanan ")           # a variant under its game


def test_run_by_name_is_the_run_by_path(capsys, tmp_path, monkeypatch):
    by_path = run(capsys, "run", MEDANG, "--seed", "4", "--json")[1]
    monkeypatch.chdir(tmp_path)                        # anywhere
    for name in ("medang", "tabula:medang"):
        code, out, err = run(capsys, "run", name, "--seed", "4", "--json")
        assert code == 0, err
        assert out == by_path
    code, out, _ = run(capsys, "run", "medina_bsw_dm2003", "--players", "3", "--json")
    assert code == 0 and json.loads(out)["spec"] == "medina_bsw_dm2003"


def test_a_path_wins_over_a_shipped_name(capsys, tmp_path, monkeypatch):
    local = tmp_path / "medang"
    local.mkdir()
    (local / "medang.yaml").write_text((ROOT / "examples" / "tiny" / "tiny.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "run", "medang", "--json")
    assert code == 0, err
    assert json.loads(out)["spec"] == "tiny"                    # the folder here
    code, out, err = run(capsys, "run", "tabula:medang", "--json")
    assert code == 0 and json.loads(out)["spec"] == "medang"   # the shipped game


@pytest.mark.parametrize("name, message, hint", [
    ("medangg", "no such spec: medangg", "did you mean 'medang'?"),
    ("tabula:medangg", "no game named 'medangg' comes with tabula", "did you mean 'medang'?"),
    ("tabula:specs/medang", "no game named 'specs/medang'", "tabula list"),
    ("nothing-like-it", "no such spec", "`tabula list` shows the games"),
])
def test_an_unknown_name_is_an_error_with_a_hint(capsys, tmp_path, monkeypatch, name,
                                                 message, hint):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "run", name)
    assert code == 1 and message in err and hint in err and "Traceback" not in err


def test_scenarios_by_name(capsys, tmp_path, monkeypatch):
    import yaml

    from tabula_rules.lang import catalog
    from tabula_rules.tools.scenario import find_scenario_files
    files = find_scenario_files([MEDANG])
    scenarios = sum(len(yaml.safe_load(f.read_text())["scenarios"]) for f in files)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "test", "medang")
    assert code == 0 and out == f"{scenarios} passed, 0 failed\n"
    # a name is one spec: its own scenario files, not every file of the folder
    medina, bsw = (catalog.scenario_files(catalog.find(n))
                   for n in ("medina", "medina_bsw_dm2003"))
    assert medina and bsw and not set(medina) & set(bsw)
    home = catalog.root()
    assert sorted(f.relative_to(home) for f in medina + bsw) == \
        [f.relative_to(ROOT) for f in find_scenario_files([ROOT / "specs" / "medina"])]
    assert all(f.name.startswith("bsw_") for f in bsw)
    code, _, err = run(capsys, "test", "medangg")
    assert code == 1 and "no such file, folder or shipped game: medangg" in err
    assert "did you mean 'medang'?" in err
    code, _, err = run(capsys, "test", "no/such/folder")
    assert code == 1 and "no such file or folder" in err


VARIANT = """\
extends: {base}
game:
  id: quick_medang
  name: Medang, with a shorter row
override:
  options:
    temple:
      source: a test variant
      default: sewu
      choices: [borobudur, sewu, plaosan, kalasan]
      players:
        kalasan: {{min: 2, max: 2}}
"""


@pytest.mark.parametrize("base", ["tabula:medang", "medang"])
def test_a_variant_outside_the_repository_extends_a_shipped_game(capsys, tmp_path, base):
    variant = tmp_path / "quick.yaml"
    variant.write_text(VARIANT.format(base=base))
    code, out, err = run(capsys, "run", str(variant), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["spec"] == "quick_medang" and data["options"] == {"temple": "sewu"}
    code, out, _ = run(capsys, "diff", "medang", str(variant))
    assert code == 0 and "temple" in out


def test_extends_a_name_that_is_nothing_is_located(capsys, tmp_path):
    variant = tmp_path / "v.yaml"
    variant.write_text(VARIANT.format(base="medangg"))
    code, _, err = run(capsys, "validate", str(variant))
    assert code == 1 and "Traceback" not in err
    assert f"{variant}:1:10: error: the spec it extends does not exist: medangg" in err
    assert "did you mean 'medang'?" in err
    variant.write_text(VARIANT.format(base="tabula:medangg"))
    code, _, err = run(capsys, "validate", str(variant))
    assert code == 1 and f"{variant}:1:10: error: no game named 'medangg'" in err


def test_extends_a_local_file_before_a_shipped_game(capsys, tmp_path):
    (tmp_path / "medang").mkdir()
    (tmp_path / "medang" / "medang.yaml").write_text(
        (ROOT / "specs" / "medang" / "medang.yaml").read_text().replace(
            "name: Medang\n", "name: Medang, a local copy\n", 1))
    variant = tmp_path / "v.yaml"
    variant.write_text("extends: medang\ngame:\n  id: local_variant\n")
    from tabula_rules.spec import Spec
    assert Spec(variant).doc["game"]["name"] == "Medang, a local copy"
    variant.write_text("extends: tabula:medang\ngame:\n  id: local_variant\n")
    assert Spec(variant).doc["game"]["name"] == "Medang"


# ---- progress on a terminal ----------------------------------------------------------------------

def on_terminal(argv, tmp_path) -> tuple:
    """Run `tabula ARGV` with stderr a terminal (a pty): (exit code, stdout, stderr)."""
    import os
    master, slave = os.openpty()
    out = tmp_path / "stdout"
    with open(out, "w") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "tabula_rules", *argv], cwd=ROOT,
                                stdin=subprocess.DEVNULL, stdout=stdout, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:             # EIO: the child has gone
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=120), out.read_text(), b"".join(chunks).decode()


TINY = str(ROOT / "examples" / "tiny")


@pytest.mark.parametrize("argv, unit", [
    (["simulate", TINY, "--games", "6", "--workers", "1"], "6/6 games"),
    (["validate", TINY, "--play", "3", "--workers", "1"], "6/6 games"),
    (["diff", TINY, TINY, "--simulate", "3", "--workers", "1", "--json", "--agents",
      "random"], "6/6 games"),
    (["bench", "--suite", "--only", "tiny", "--games", "2", "--root", str(ROOT)],
     "2/2 measurements"),
])
def test_long_runs_show_progress_on_a_terminal(tmp_path, argv, unit):
    code, out, err = on_terminal(argv, tmp_path)
    assert code == 0, err
    assert "\r[" in err and unit in err and "/s" in err
    assert "\r[" not in out                              # stdout stays clean


def test_no_progress_when_stderr_is_not_a_terminal():
    proc = subprocess.run([sys.executable, "-m", "tabula_rules", "simulate", TINY, "--games",
                           "3", "--workers", "1"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stderr == ""


# ---- no import circle --------------------------------------------------------------------------

def test_no_module_imports_the_command_line():
    """cli.py imports the modules of the commands; none of them imports cli.py (what they
    share with it is in cmdutil.py)."""
    import ast
    offenders = []
    for path in sorted((ROOT / "interpreter").glob("*.py")):
        if path.name in ("cli.py", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names]
                if (node.level and node.module == "cli") \
                        or node.module == "tabula_rules.tools.cli" \
                        or (node.level and node.module is None and "cli" in names) \
                        or (node.module == "tabula_rules" and "cli" in names):
                    offenders.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Import):
                if any(a.name == "tabula_rules.tools.cli" for a in node.names):
                    offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, offenders


def test_importing_every_module_does_not_import_the_command_line():
    code = ("import importlib, pkgutil, sys, tabula_rules\n"
            "for m in pkgutil.iter_modules(tabula_rules.__path__):\n"
            "    if m.name not in ('cli', '__main__'):\n"
            "        try:\n"
            "            importlib.import_module('tabula_rules.' + m.name)\n"
            "        except ModuleNotFoundError as e:\n"
            "            if e.name.startswith('tabula_rules'):\n"
            "                raise\n"
            "print('tabula_rules.tools.cli' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_docs_show_what_list_prints(capsys):
    doc = (ROOT / "docs" / "cli.md").read_text()
    block = doc.split("    $ tabula list\n", 1)[1].split("\n\n", 1)[0].splitlines()
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert block[0].startswith("    The games that come with tabula (")
    lines = out.splitlines()
    for line in block[1:]:
        if line.strip() != "...":
            assert line[4:] in lines, line
