"""The command registry (tools/cmdutil.py: Command, Arg, build_parser): every `tabula`
command is declared one way, `tabula NAME -h` shows what its declaration says, and no
module but cmdutil builds a parser by hand; the tools' layering (a tools module that
loads specs or plays bots is imported by the command line only) and the runner's state."""

import argparse
import ast
import re

import pytest

from tabula_rules.tools import cli, cmdutil, simulate

from conftest import ROOT

TOOLS = ROOT / "interpreter" / "tools"
COMMANDS = {c.name: c for c in cli.commands()}


def sub_parsers(p) -> dict:
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def help_text(name: str, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        cli.main([name, "-h"] if name else ["-h"])
    assert e.value.code == 0
    return capsys.readouterr().out


def flat(text: str) -> str:
    """Help text with argparse's wrapping undone (it breaks lines at blanks and hyphens):
    no white space at all."""
    return re.sub(r"\s+", "", text)


def test_every_command_is_declared_once_in_the_order_of_tabula_help(capsys):
    names = [c.name for c in cli.commands()]
    assert len(names) == len(set(names))
    assert names == list(sub_parsers(cli.parser()))
    listed = [line.split()[0] for line in help_text("", capsys).splitlines()
              if line.startswith("    ") and line.split()[0] in names]
    assert listed == names
    assert all(isinstance(c, cmdutil.Command) and callable(c.fn) for c in cli.commands())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_what_the_command_declares(name, capsys):
    command = COMMANDS[name]
    p = sub_parsers(cli.parser())[name]
    assert p.description == (command.description or command.help)
    assert p.get_default("fn") is command.fn
    assert p.get_default("usage_error") == p.error
    actions = [a for a in p._actions if not isinstance(a, argparse._HelpAction)]
    assert len(actions) == len(command.args)
    shown = flat(help_text(name, capsys))
    assert flat(command.description or command.help) in shown
    for declared, action in zip(command.args, actions):
        kw = declared.kw
        if declared.flags[0].startswith("-"):
            assert tuple(action.option_strings) == declared.flags
        else:
            assert action.dest == declared.flags[0]
        assert action.help == kw["help"]
        assert flat(kw["help"].replace("%%", "%")) in shown, (name, declared.flags)
        assert action.default == kw.get("default", False if kw.get("action") == "store_true"
                                        else None)
        if "metavar" in kw:
            assert kw["metavar"] in shown


def test_a_shared_argument_is_defined_once_and_varied_by_but():
    spec = cmdutil.SPEC.but(nargs="?")
    assert spec.flags == cmdutil.SPEC.flags and spec.kw["metavar"] == "SPEC"
    assert spec.kw["nargs"] == "?" and "nargs" not in cmdutil.SPEC.kw
    used = {a.flags for c in cli.commands() for a in c.args}
    for shared in (cmdutil.SPEC, cmdutil.PLAYERS, cmdutil.SEED, cmdutil.OPTION,
                   cmdutil.JSON, cmdutil.AGENTS, cmdutil.WORKERS, cmdutil.STRICT):
        assert shared.flags in used


def test_only_cmdutil_builds_parsers():
    """Commands are Command values: no module adds a parser or an argument itself."""
    found = []
    for path in sorted(TOOLS.glob("*.py")):
        if path.name == "cmdutil.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in (
                    "add_argument", "add_parser", "add_subparsers", "set_defaults"):
                found.append(f"{path.name}:{node.lineno} {node.attr}")
    assert not found, found


def _tools_imports() -> dict:
    """{tools module: the package modules it imports (function-level imports too)}."""
    out = {}
    for path in sorted(TOOLS.glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ("tools." if node.level == 1 else "") + (node.module or "")
                names |= {base} | {f"{base}.{a.name}".strip(".") for a in node.names}
        out[path.stem] = names
    return out


def test_a_tools_module_that_loads_specs_or_plays_bots_is_imported_by_cli_only():
    imports = _tools_imports()
    high = {m for m, names in imports.items()
            if names & {"spec", "bots.agents", "adapters"} or any(
                n.startswith(("bots.", "adapters.")) for n in names)}
    wrong = [(m, h) for m, names in imports.items() if m != "cli"
             for h in sorted(high) if f"tools.{h}" in names]
    assert not wrong, wrong


def test_the_runner_keeps_no_state_in_the_process_that_runs_it():
    summary = simulate.run_batch(str(ROOT / "specs" / "medang"), 2, workers=1, seed=3)
    assert summary.games == 2
    assert simulate._WORKER is None       # only a worker process sets its own
