"""Strict play (docs/language.md 3.11): a choice that must be made but has nothing legal
is a rule error at the decision, in games compiled strict (Spec.game(strict=True)), in
`run`, `test`, `simulate` and `validate --play` with --strict, and in scenarios that say
strict: true. Without it the choice is skipped, as always."""
import json

import pytest

from tabula_rules.errors import RuleError
from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.scenario import run_file

from conftest import EMPTY as EMPTY_CHOICES

# round 1: `take` has the chip; rounds 2 and 3: `take` is empty (strict: an error at
# line 11), the others are empty too but say what then (else:, else: [], optional)
EMPTY = EMPTY_CHOICES + """\
      - id: take_some
        choose: c in pool
        up_to: 1
        label: "take {c}"
        do:
          - move c to box
"""

# the same without the bare `take`: every empty choice says what then
SAFE = EMPTY.replace("""      - id: take
        choose: c in pool
        label: "take {c}"
        do:
          - move c to box
      - id: take_or_say""", """      - id: take_or_say""")


@pytest.fixture
def empty(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text(EMPTY)
    return path


@pytest.fixture
def safe(tmp_path):
    path = tmp_path / "safe.yaml"
    path.write_text(SAFE)
    return path


def test_not_strict_the_empty_choice_is_skipped(empty):
    st = Spec(empty).game(2).new_state(seed=1)
    st.apply_string("take chip")
    assert st.is_terminal()


def test_strict_the_empty_choice_is_a_rule_error_at_the_decision(empty):
    st = Spec(empty).game(2, strict=True).new_state(seed=1)
    assert st.legal_action_strings() == ["take chip"]       # the same game until then
    with pytest.raises(RuleError) as e:
        st.apply_string("take chip")
    assert (e.value.pos.line, e.value.pos.col) == (11, 9)   # `- id: take` of round 2
    assert "nothing legal (strict play)" in e.value.message
    assert str(e.value).startswith(f"{empty}:11:9: rule error:")


def test_strict_else_optional_and_up_to_are_not_errors(safe):
    st = Spec(safe).game(2, strict=True).new_state(seed=1)
    st.apply_string("take chip")
    assert st.is_terminal()


def test_strict_and_plain_games_are_compiled_apart(empty):
    spec = Spec(empty)
    assert spec.game(2) is spec.game(2)
    assert spec.game(2, strict=True) is not spec.game(2)
    assert spec.game(2).new_state(seed=1).fired is None


def test_run_strict(empty, capsys):
    assert main(["run", str(empty), "--json"]) == 0
    capsys.readouterr()
    assert main(["run", str(empty), "--strict"]) == 1
    err = capsys.readouterr().err
    assert f"{empty}:11:9: rule error: a choice that must be made has nothing legal" in err
    assert "Traceback" not in err


def test_validate_play_strict(empty, safe, capsys):
    assert main(["validate", str(empty), "--play", "3", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "choices that came up empty with no else: (skipped), in how many games: " \
        "take (3)" in out
    assert main(["validate", str(empty), "--play", "3", "--workers", "1", "--strict"]) == 1
    captured = capsys.readouterr()
    assert "FAIL" in captured.out and "3 random games, 3 failed" in captured.out
    assert "11:9: error: a choice that must be made has nothing legal" in captured.err
    assert "--agents random --strict" in captured.err
    assert main(["validate", str(safe), "--play", "3", "--workers", "1", "--strict"]) == 0


def test_simulate_strict_records_the_failed_games(empty, tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    assert main(["simulate", str(empty), "--games", "2", "--workers", "1", "--strict",
                 "--out", str(out), "--json"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2
    assert all("nothing legal (strict play)" in r["error"] for r in records)
    assert main(["simulate", str(empty), "--games", "2", "--workers", "1",
                 "--out", str(out), "--json"]) == 0
    assert not any("error" in json.loads(line) for line in out.read_text().splitlines())


SCENARIOS = """\
spec: empty.yaml
{file_key}scenarios:
  - id: plain
    {key}do: ["take chip"]
    expect: {{terminal: true}}
"""


@pytest.mark.parametrize("file_key, key, cli, passes", [
    ("", "", False, True),                          # not strict: skipped, the game ends
    ("", "strict: true\n    ", False, False),        # the scenario's key
    ("strict: true\n", "", False, False),            # the file's key
    ("strict: true\n", "strict: false\n    ", False, True),   # the scenario's wins
    ("", "", True, False),                          # tabula test --strict
    ("", "strict: false\n    ", True, True),         # ... unless the scenario says not
])
def test_scenario_strict_key(empty, file_key, key, cli, passes):
    path = empty.parent / "empty.test.yaml"
    path.write_text(SCENARIOS.format(file_key=file_key, key=key))
    [r] = run_file(path, strict=cli)
    assert r.passed == passes, r
    if not passes:
        assert "nothing legal (strict play)" in r.message and r.pos.line == 11


def test_test_strict_flag(empty, capsys):
    path = empty.parent / "empty.test.yaml"
    path.write_text(SCENARIOS.format(file_key="", key=""))
    assert main(["test", str(path)]) == 0
    capsys.readouterr()
    assert main(["test", str(path), "--strict"]) == 1
    out = capsys.readouterr().out
    assert "nothing legal (strict play)" in out and "0 passed, 1 failed" in out


def test_scenario_expects_the_strict_error(empty):
    path = empty.parent / "empty.test.yaml"
    path.write_text(SCENARIOS.format(file_key="strict: true\n", key="").replace(
        "expect: {terminal: true}", "expect: {error: nothing legal}"))
    [r] = run_file(path)
    assert r.passed, r


def test_the_shipped_scenarios_pass_strict():
    """Every skip the shipped specs mean is said with else: (Medang's two were found by
    strict play: an empty hand, an empty market and pile)."""
    from tabula_rules.tools.cli import main

    from conftest import ROOT
    for folder in ("medang", "medina", "middag"):
        assert main(["test", "--strict", str(ROOT / "specs" / folder)]) == 0, folder
