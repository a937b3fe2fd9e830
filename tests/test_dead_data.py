"""Dead data (deadcode.py): data entries, data tables' keys and component attributes
that no rule reads are warnings of `tabula validate` (file:line:col; the exit code is
that of the spec's errors alone)."""
from pathlib import Path

import pytest

from tabula_rules.compiler import deadcode
from tabula_rules.spec import Spec, load_spec
from tabula_rules.tools.cli import main


def dead_data(spec) -> list:
    """The warnings of the programs Spec.validate compiles (as `tabula validate`)."""
    return deadcode.dead_data(spec.doc, [g.prog for g in spec.validate()])

SPEC = """\
game: {id: dead, name: Dead, source: none, players: {min: 2, max: 2}}
options:
  deck: {source: none, default: full, choices: [short, full]}
enums:
  suit: [sun, moon]
data:
  ranks:
    source: none
    value: {short: [1, 2], full: [1, 2, 3]}
  copies:
    source: none
    value: {1: 2, 2: 1, 3: 1}
  bonus:
    source: none
    value: {sun: 5, moon: 1, star: 9}
  unused:
    source: none
    value: 7
  tally:
    source: none
    value: {a: 1, b: 2}
  shown:
    source: none
    value: 3
components:
  card:
    name: "{suit}-{rank}"
    for_each:
      suit: values(suit)
      rank: ranks[option.deck]
      shade: "[1, 2]"
    count: copies[rank]
    attributes:
      points: rank + 1
      weight: 2
      colour: "if shade == 1 then 1 else 2"
    zone: pool
  seed:
    name: seed
    for_each:
      size: "[1, 2]"
    count: size
    zone: pool
zones:
  pool: {kind: stack, visibility: public}
play:
  - id: turn
    choose: c in pool
    label: "take {c} for {c.points}, {shown} shown"
    do:
      - move c to pool
scoring:
  points:
    sun:
      source: none
      value: bonus['sun'] + bonus[moon] + sum(values(tally))
"""


@pytest.fixture
def spec(tmp_path) -> Spec:
    path = tmp_path / "dead.yaml"
    path.write_text(SPEC)
    return Spec(path)


def _at(text: str, col_of: str = "") -> tuple:
    """(line, column) of the line of SPEC that starts with text (after its indent)."""
    for n, line in enumerate(SPEC.splitlines(), 1):
        if line.strip().startswith(text):
            return n, (line.index(col_of) if col_of else len(line) - len(line.lstrip())) + 1
    raise AssertionError(text)


def _found(spec) -> dict:
    return {w.message: (w.pos.line, w.pos.col) for w in dead_data(spec)}


def test_each_kind_of_dead_data_is_found_where_it_is_declared(spec):
    found = _found(spec)
    assert found == {
        "data 'unused' is never read by a rule": _at("unused:"),
        "key star of data table 'bonus' is never read by a rule":
            _at("value: {sun: 5", "star"),
        "attribute 'weight' of component 'card' is never read by a rule": _at("weight:"),
        "attribute 'colour' of component 'card' is never read by a rule": _at("colour:"),
    }, found


def test_what_counts_as_read(spec):
    found = " ".join(_found(spec))
    # ranks[option.deck]: 'full' in the default games, 'short' in the games of deck=short
    assert "ranks" not in found
    assert "copies" not in found             # copies[rank]: a computed key reads them all
    assert "tally" not in found              # read whole (values(tally))
    assert "shown" not in found              # read in a label
    assert "'bonus'" in found and "key sun" not in found and "key moon" not in found
    assert "'points'" not in found           # read by a label's expression (c.points)
    assert "'suit'" not in found and "'rank'" not in found   # the name template shows them
    assert "'shade'" not in found            # for_each, used by its component's colour:
    assert "'size'" not in found             # for_each, used by its component's count:


def test_validate_warns_and_exits_0(spec, capsys):
    assert main(["validate", str(spec.path)]) == 0
    captured = capsys.readouterr()
    assert f"ok   {spec.path}" in captured.out or "ok   " in captured.out
    line, col = _at("unused:")
    assert f"{spec.path}:{line}:{col}: warning: data 'unused' is never read by a rule" \
        in captured.err
    assert captured.err.count("warning:") == 4
    assert "Traceback" not in captured.err


def test_a_spec_reading_everything_has_no_warning(tmp_path, capsys):
    path = tmp_path / "clean.yaml"
    path.write_text(SPEC.replace("sum(values(tally))",
                                 "sum(values(tally)) + unused + bonus['star']")
                    .replace("      weight: 2\n", "")
                    .replace("{c.points}", "{c.points} {c.colour}"))
    assert dead_data(Spec(path)) == []
    assert main(["validate", str(path)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_shipped_specs(root):
    """The shipped specs read all they declare. (Its one finding when it was written,
    middag's hunting_spaces['right'], never read because a hunt read the left column in
    every season, was issue 13's defect 2, since fixed: tests/test_middag_columns.py.)"""
    found = {}
    for folder in sorted((root / "specs").iterdir()) + sorted((root / "examples").iterdir()):
        if folder.is_dir() and list(folder.glob("*.yaml")):   # a game's folder (not the
            # tutorial's, whose .yml files no sweep of the shipped games takes)
            found[folder.name] = [f"{Path(w.pos.file).name}:{w.pos.line}: {w.message}"
                                  for w in dead_data(load_spec(folder))]
    assert {k: v for k, v in found.items() if v} == {}
