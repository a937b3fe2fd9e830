"""docs/tutorial.md does what it says: every command of its console blocks (a line
`$ tabula ...`) runs from the repository's root with the exit code the tutorial implies
(1 where it shows an `error:`, else 0), and prints the lines shown under it; every YAML
fragment headed `# examples/tutorial/FILE` is part of that file, and the rules it quotes
are rules.txt's; typo.yml is shells.yml but for its one mistake.

How shown output is matched: the lines under a command, in order, are the lines of what
it prints (stdout, then stderr), consecutive, except that a line `...` skips any number of
lines and `...` inside a line stands for any text. `tabula serve` runs in a subprocess
on a free port (`--port 0`), is stopped once it has printed its addresses, and its port
is read as the tutorial's 8765. The other commands run in this process
(tabula_rules.tools.cli.main), with the small game counts the tutorial uses."""

import functools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tabula_rules.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
FOLDER = ROOT / "examples" / "tutorial"


def blocks(lang: str) -> list[str]:
    """The fenced code blocks of the tutorial in that language, in order."""
    return re.findall(rf"^```{lang}\n(.*?)^```$", TUTORIAL.read_text(), re.M | re.S)


def commands() -> list[tuple[str, list[str]]]:
    """(command, the lines shown under it) for every `$ ` line of a console block."""
    out: list[tuple[str, list[str]]] = []
    for block in blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            else:
                assert out, f"output before any command in a console block: {line!r}"
                out[-1][1].append(line)
    return out


COMMANDS = commands()


def pattern(line: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in line.split("...")) + r"\Z")


def shown_in(shown: list[str], printed: list[str]) -> str | None:
    """None if the shown lines are the printed ones (with the ... rules above), else
    what does not match."""
    @functools.cache
    def match(i: int, j: int) -> bool:
        if i == len(shown):
            return True
        if shown[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(printed) + 1))
        return (j < len(printed) and pattern(shown[i].rstrip()).match(printed[j].rstrip())
                is not None and match(i + 1, j + 1))
    if match(0, 0):
        return None
    missing = [s for s in shown if s != "..." and
               not any(pattern(s.rstrip()).match(p.rstrip()) for p in printed)]
    return (f"not printed: {missing}" if missing
            else "printed, but not in this order, or not one after the other")


def test_the_tutorial_shows_commands():
    names = [shlex.split(c)[1] for c, _ in COMMANDS]
    assert all(shlex.split(c)[0] == "tabula" for c, _ in COMMANDS)
    for needed in ("validate", "test", "run", "simulate", "diff", "serve"):
        assert needed in names, needed
    assert any("--simulate" in c for c, _ in COMMANDS)
    assert any("error:" in line for _, shown in COMMANDS for line in shown)


@pytest.mark.parametrize("command,shown", [c for c in COMMANDS if " serve " not in c[0]],
                         ids=[c for c, _ in COMMANDS if " serve " not in c])
def test_command(command, shown, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)[1:]
    code = main(argv)
    out, err = capsys.readouterr()
    expected = 1 if any("error:" in line for line in shown) else 0
    assert code == expected, f"{command}: exit {code}\n{out[-3000:]}{err[-3000:]}"
    printed = (out + err).splitlines()
    problem = shown_in(shown, printed)
    assert problem is None, f"{command}: {problem}\nprinted:\n" + "\n".join(printed[:80])


@pytest.mark.parametrize("command,shown", [c for c in COMMANDS if " serve " in c[0]],
                         ids=[c for c, _ in COMMANDS if " serve " in c])
def test_serve_command(command, shown):
    """The serve command starts, prints the addresses shown, and is stopped."""
    argv = [sys.executable, "-m", "tabula_rules", *shlex.split(command)[1:], "--port", "0"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        printed = [proc.stdout.readline() for _ in shown]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err = proc.stderr.read() if proc.stderr else ""
    printed = [re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:8765", p.rstrip("\n")) for p in printed]
    assert shown_in(shown, printed) is None, (printed, err)


def test_yaml_fragments_are_the_files():
    fragments = blocks("yaml")
    assert len(fragments) >= 8
    for fragment in fragments:
        head, _, body = fragment.partition("\n")
        assert head.startswith("# examples/tutorial/"), f"a fragment names no file: {head}"
        text = (ROOT / head[2:]).read_text()
        assert body in text, f"not in {head[2:]}:\n{body}"


def test_the_rules_shown_are_rules_txt():
    (rules,) = blocks("text")
    assert (FOLDER / "rules.txt").read_text().startswith(rules)


def test_typo_is_the_spec_but_for_one_mistake():
    spec = (FOLDER / "shells.yml").read_text().splitlines()
    typo = (FOLDER / "typo.yml").read_text().splitlines()
    assert len(spec) == len(typo)
    differ = [(a, b) for a, b in zip(spec, typo) if a != b and not a.startswith("#")]
    assert differ == [("      value: sum(s.number for s in player.collection)",
                       "      value: sum(s.numbr for s in player.collection)")]

