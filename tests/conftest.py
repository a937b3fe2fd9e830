"""Shared fixtures: the project's folders and every spec in specs/."""

from pathlib import Path

import pytest

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
