"""Shared fixtures: the project's folders and every spec in specs/."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p for p in (ROOT / "specs").iterdir() if p.is_dir())


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
