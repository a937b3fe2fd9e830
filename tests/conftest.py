"""Shared fixtures: the project's folders and every spec in specs/."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p for p in (ROOT / "specs").iterdir() if p.is_dir())
EXAMPLES = sorted(p for p in (ROOT / "examples").iterdir()
                  if p.is_dir() and (p / f"{p.name}.yaml").exists() or
                  p.is_dir() and len([f for f in p.glob("*.yaml")]) == 1)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
