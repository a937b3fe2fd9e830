"""Shared fixtures: the project's folders and every spec in specs/."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p for p in (ROOT / "specs").iterdir() if p.is_dir())
# every spec file of every game folder (a game and its variants), not scenario files
SPEC_FILES = sorted(f for d in SPECS for f in d.glob("*.yaml"))
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir()
                  if p.is_dir() and (p / f"{p.name}.yaml").exists() or
                  p.is_dir() and len([f for f in p.glob("*.yaml")]) == 1)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
