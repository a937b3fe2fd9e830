"""Docs quote no figure that changes with every commit (issue 24, 5): how many tests there
are, or how long the suite (or a test file) takes on some machine. They give the command
that measures it instead (`pytest --durations=20`, `time pytest`). Measurements of the
engine and of the bots (`tabula bench`, `simulate`, a labelled run) may stay, with the
command that made them."""

import re

from conftest import ROOT

FILES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

DRIFT = re.compile(
    r"\b\d[\d,]* (?:tests|test cases)(?![/\w.])"             # "1092 tests"
    r"|(?<!-)\b(?:suite|pytest|tests?)\b(?!/(?!test_))"       # "the suite ... 2 min": the suite
    r"(?:[^.\n]|\.(?=\S)){0,60}"                              # (not bench --suite) or a test
    r"\b\d+(?:\.\d+)? ?(?:s|min|minutes|seconds)\b"             # file (not a script's path)
    r"(?! (?:a|an|each|per)\b)")                              # then a time


def drifting(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if DRIFT.search(line)]


def test_the_pattern():
    for wrong in ("The whole suite (1092 tests) passes", "71 tests in 22 s",
                  "The suite runs on every core (pytest-xdist, about 4.5 minutes on",
                  "the test suite ran 241 s against 238 s before",
                  "(`tests/test_fuzz.py`, about 40 s of CPU)"):
        assert drifting(wrong), wrong
    for right in ("`pytest --durations=20` lists what costs most", "`time pytest`",
                  "tabula simulate ... 300 games in 0.6 s", "tests/test_restore.py plays"):
        assert not drifting(right), right


def test_no_doc_quotes_test_counts_or_suite_times():
    found = [f"{f.relative_to(ROOT)}: {line}" for f in FILES for line in drifting(f.read_text())]
    assert not found, "figures that drift (give the command that measures them):\n" + \
        "\n".join(found)
