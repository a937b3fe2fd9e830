"""Every scenario file of every spec in specs/ (and examples/) runs under pytest too."""

from pathlib import Path

import pytest

from tabula_rules.tools.scenario import find_scenario_files, run_file

from conftest import SPECS

ROOT = Path(__file__).resolve().parent.parent
FILES = find_scenario_files([ROOT / "specs"]) + [
    f for f in find_scenario_files([ROOT / "examples"]) if f.exists()]


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(ROOT)) for f in FILES])
def test_scenarios(path):
    results = run_file(path)
    assert results, f"{path} holds no scenario"
    failed = [str(r) for r in results if not r.passed]
    assert not failed, "\n".join(failed)


def test_every_spec_has_scenarios():
    for spec_dir in SPECS:
        assert find_scenario_files([spec_dir]), f"{spec_dir.name} has no scenario files"
