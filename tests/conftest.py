"""Shared fixtures: the project's folders, every spec in specs/, and the special files
of hostile tests. Shared plain helpers (BASE and the located-error checks, hostile
files, DUEL, GENERATED) live in helpers.py: a test file imports them from there, never
from another test file."""

import os
import sys
from pathlib import Path

import pytest

# Bytecode caches on for the test run, whatever the environment says: where
# PYTHONDONTWRITEBYTECODE is set (this project's machines set it), every pytest worker
# rewrote every test module's asserts at each run (8 s of CPU a worker) and every
# subprocess a test starts (`python -m tabula_rules ...`) compiled the package again
# (0.4 s each). The caches go to __pycache__ folders, which git ignores.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

from helpers import make_special_files  # noqa: E402 (after the bytecode setting)

ROOT = Path(__file__).resolve().parent.parent
# a game's folder holds <folder>.yaml (folders with notes only are work in progress)
SPECS = sorted(p for p in (ROOT / "specs").iterdir() if (p / f"{p.name}.yaml").is_file())
# every spec file of every game folder (a game and its variants): YAML with a game: section
SPEC_FILES = sorted(f for d in SPECS for f in d.glob("*.yaml")
                    if any(line.startswith("game:") for line in f.read_text().splitlines()))
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir()
                  if p.is_dir() and (p / f"{p.name}.yaml").exists() or
                  p.is_dir() and len([f for f in p.glob("*.yaml")]) == 1)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture
def special_files(tmp_path) -> dict:
    """name -> a file in tmp_path (or a device) that is not a spec: helpers.EXPECTED says
    what each is refused with."""
    return make_special_files(tmp_path)


# A game of choices that come up empty (a chip taken in round 1, none left after): a bare
# one, and ones that say what then (else:, else: [], optional). validate --play lists the
# bare one (tests/test_compare.py); strict play stops there (tests/test_strict.py).
EMPTY = """\
game: {id: empty, name: Empty, source: none, players: {min: 2, max: 2}}
components:
  chip: {name: chip, count: 1, zone: pool}
zones:
  pool: {kind: stack, visibility: public}
  box: {kind: stack, visibility: public}
play:
  - id: turn
    repeat: 3
    do:
      - id: take
        choose: c in pool
        label: "take {c}"
        do:
          - move c to box
      - id: take_or_say
        choose: c in pool
        label: "take {c}"
        do:
          - move c to box
        else:
          - id: said
            do: []
      - id: take_or_nothing
        choose: c in pool
        label: "take {c}"
        do:
          - move c to box
        else: []
      - id: take_if_you_like
        choose: c in pool
        optional: take nothing
        label: "take {c}"
        do:
          - move c to box
"""
