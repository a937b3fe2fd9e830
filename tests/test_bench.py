"""`tabula bench`: one spec (its JSON keys, the reference's interface), the suite (every
shipped spec found, rows, references, OpenSpiel, summary), its suite file bench.yaml (the
shipped one, bad ones refused with a located error, targets marked met or missed),
refused arguments."""

import json
import shutil
from pathlib import Path

import pytest

from tabula_rules.spec import resolve_spec_path
from tabula_rules.tools import bench, benchconfig

from conftest import EXAMPLES, ROOT, SPEC_FILES
from helpers import run, usage_error

MEDANG = str(ROOT / "specs" / "medang")
SHIPPED = benchconfig.load(ROOT / "bench.yaml")
SINGLE_KEYS = {"spec", "players", "options", "seed", "repeat", "games", "seconds",
               "playouts_per_s", "decisions_per_s", "decisions_per_game", "chance_per_game",
               "mean_branching"}
# a stand-in for ../shared/bench/medang_ref.py: records its arguments, answers fixed figures
FAKE_REFERENCE = """import json, sys
open(sys.argv[0] + '.args', 'a').write(' '.join(sys.argv[1:]) + '\\n')
print(json.dumps({"playouts_per_s": 800.0, "mean_decisions": 90.0,
                  "api": {"playouts_per_s": 400.0, "mean_decisions": 90.0}}))
"""




def suite_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, "bench", "--suite", "--root", ROOT, "--json", *argv)
    assert code == 0, err
    return json.loads(out)


def suite_file(tmp_path, text: str):
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def fake_reference(tmp_path):
    script = tmp_path / "fake_ref.py"
    script.write_text(FAKE_REFERENCE)
    return script


# ---- one spec --------------------------------------------------------------------------

def test_single_spec_keys_are_unchanged(capsys):
    code, out, _ = run(capsys, "bench", MEDANG, "--players", "3", "--games", "4", "--json")
    data = json.loads(out)
    assert code == 0 and set(data) == SINGLE_KEYS
    assert data["games"] == 4 and data["players"] == 3 and data["playouts_per_s"] > 0


def test_single_spec_reference_interface_and_ratio(capsys, fake_reference):
    code, out, _ = run(capsys, "bench", MEDANG, "--players", "3", "--games", "4", "--seed", "7",
                       "--json", "--reference", fake_reference)
    data = json.loads(out)
    assert code == 0
    assert set(data) == SINGLE_KEYS | {"reference", "ratio_to_reference_api",
                                       "ratios_to_reference_api", "ratio_to_reference_fast"}
    assert set(data["reference"]) == {"path", "playouts_per_s", "api_playouts_per_s",
                                      "decisions_per_game"}
    assert data["ratio_to_reference_api"] == pytest.approx(data["playouts_per_s"] / 400.0)
    assert data["ratio_to_reference_fast"] == pytest.approx(data["playouts_per_s"] / 800.0)
    args = (fake_reference.parent / "fake_ref.py.args").read_text().split()
    assert args == ["bench", "--players", "3", "--games", "4", "--seed", "7", "--api", "--json",
                    "--temple", "borobudur"]


@pytest.mark.parametrize("argv,message", [
    ([MEDANG, "--games", "0"], "--games: must be greater than 0, not 0"),
    ([MEDANG, "--games", "-3"], "--games: must be greater than 0, not -3"),
    (["--suite", "--games", "0"], "--games: must be greater than 0"),
    (["--suite", "--games-scale", "0"], "--games-scale: must be greater than 0"),
    ([], "name a SPEC, or give --suite"),
    ([MEDANG, "--suite"], "give no SPEC"),
    ([MEDANG, "--only", "tiny"], "--only goes with --suite"),
    ([MEDANG, "--parallel"], "--parallel goes with --suite"),
    (["--suite", "--option", "temple=sewu"], "--option and --repeat are for one SPEC"),
    ([MEDANG, "--config", "bench.yaml"], "--config goes with --suite"),
    (["--suite", "--reference", "/some/ref.py"], "--reference with --suite takes ID=SCRIPT"),
    (["--suite", "--reference", "medang="], "--reference with --suite takes ID=SCRIPT"),
])
def test_refused_arguments(capsys, argv, message):
    assert message in usage_error(capsys, "bench", *argv)


# ---- the suite ---------------------------------------------------------------------------

def test_suite_finds_every_shipped_spec():
    found = bench.suite_specs(ROOT)
    assert len(found) == len(set(found))
    assert set(found) == set(SPEC_FILES) | {resolve_spec_path(e) for e in EXAMPLES}
    assert ROOT / "specs" / "medina" / "bsw-dm2003.yaml" in found
    assert ROOT / "examples" / "tic_tac_toe" / "tic_tac_toe.yaml" in found


def test_suite_in_another_root_with_a_variant_and_a_folder_of_notes(capsys, tmp_path):
    game = tmp_path / "specs" / "tiny"
    game.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "tiny" / "tiny.yaml", game)
    (game / "short.yaml").write_text("extends: tiny.yaml\ngame:\n  id: tiny_short\n"
                                     "  name: Tiny, short\n  players: {min: 2, max: 2}\n")
    (tmp_path / "specs" / "notes").mkdir()
    (tmp_path / "specs" / "notes" / "README.md").write_text("work in progress\n")
    code, out, err = run(capsys, "bench", "--suite", "--root", tmp_path, "--games", "2",
                         "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [(r["spec"], r["players"]) for r in rows] == [("tiny", 2), ("tiny", 3),
                                                         ("tiny_short", 2)]
    assert all(r["games"] == 2 for r in rows)


def test_suite_rows_json(capsys):
    data = suite_json(capsys, "--only", "tic_tac_toe", "--games-scale", "0.01")
    assert {"rows", "summary", "notes", "machine", "commit", "seed"} <= set(data)
    tabula = [r for r in data["rows"] if r["kind"] == "tabula"]
    assert [(r["spec"], r["players"]) for r in tabula] == [("tic_tac_toe", 2)]
    row = tabula[0]
    assert row["games"] == round(SHIPPED.games["tic_tac_toe"] * 0.01)
    for key in ("playouts_per_s", "decisions_per_s", "decisions_per_game", "clone_us"):
        assert row[key] > 0, key
    assert row["chance_per_game"] == 0
    # OpenSpiel's C++ game and its Python one, on the same number of games
    others = {r["name"]: r for r in data["rows"] if r["kind"] == "openspiel"}
    assert set(others) == {"tic_tac_toe", "python_tic_tac_toe"}
    for r in others.values():
        assert r["games"] == row["games"] and r["players"] == 2 and r["clone_us"] > 0
        assert r["ratio"] == pytest.approx(row["playouts_per_s"] / r["playouts_per_s"])
        # the same random games would be played: only the generator's draws differ
        assert 5 <= r["decisions_per_game"] <= 9
    # the shipped ratios need medang, not measured here
    assert Path(data["config"]).resolve() == ROOT / "bench.yaml"
    assert [r["decisions_per_s_ratio"] for r in data["summary"]["ratios"]] == [None, None]
    assert all(r["met"] is None for r in data["summary"]["ratios"])


def test_suite_is_seeded(capsys):
    a = suite_json(capsys, "--only", "tiny", "--games", "5", "--seed", "3")
    b = suite_json(capsys, "--only", "tiny", "--games", "5", "--seed", "3")
    strip = lambda d: [(r["players"], r["decisions_per_game"], r["chance_per_game"])  # noqa
                       for r in d["rows"]]
    assert strip(a) == strip(b) and len(strip(a)) == 2


def test_suite_text(capsys):
    code, out, _ = run(capsys, "bench", "--suite", "--root", ROOT, "--only", "tiny",
                       "--games", "3", "--players", "2")
    lines = out.splitlines()
    assert code == 0 and "playouts/s" in lines[1] and "clone us" in lines[1]
    assert lines[2].split()[:3] == ["tiny", "2", "3"]
    assert "summary" in out


def test_suite_reference_and_summary(capsys, fake_reference):
    data = suite_json(capsys, "--only", "medang,middag,medina", "--players", "3", "--games", "1",
                      "--reference", f"medang={fake_reference}")
    rows = {(r["kind"], r["spec"]): r for r in data["rows"]}
    medang, ref = rows[("tabula", "medang")], rows[("reference", "medang")]
    assert ref["path"] == str(fake_reference)       # --reference overrides bench.yaml's
    assert ref["ratio"] == pytest.approx(medang["playouts_per_s"] / 400.0)
    assert ref["decisions_per_s"] == pytest.approx(400.0 * 90.0)
    summary = data["summary"]
    ratios = {(r["spec"], r["over"], r["players"]): r for r in summary["ratios"]}
    assert set(ratios) == {("medina", "medang", 3), ("middag", "medang", 3)}
    for (other, _, _), r in ratios.items():
        assert r["decisions_per_s_ratio"] == pytest.approx(
            rows[("tabula", other)]["decisions_per_s"] / medang["decisions_per_s"])
        assert r["met"] == (r["decisions_per_s_ratio"] >= r["target"])
    [yardstick] = [y for y in summary["yardsticks"] if y["spec"] == "medang"]
    assert yardstick["yardstick"] == "reference" and yardstick["target"] == 1.0
    assert "parallel" not in summary


def test_suite_without_reference_or_openspiel_goes_on(capsys, monkeypatch):
    monkeypatch.setattr(bench, "openspiel", lambda: None)
    data = suite_json(capsys, "--only", "medang,tic_tac_toe", "--players", "2", "--games", "2",
                      "--reference", "medang=/no/such/medang_ref.py")
    assert [r["kind"] for r in data["rows"]] == ["tabula", "tabula"]
    assert any("no reference for medang" in n for n in data["notes"])
    assert sum("OpenSpiel is not installed" in n for n in data["notes"]) == 1


def test_suite_parallel(capsys, tmp_path):
    config = suite_file(tmp_path, "parallel: {spec: tiny, games: 6, players: 3, repeat: 1, "
                                  "target: 0.001}\n")
    data = suite_json(capsys, "--only", "tiny", "--games", "1", "--parallel",
                      "--config", config)
    par = data["summary"]["parallel"]
    assert par["games"] == 6 and par["players"] == 3 and par["spec"] == "tiny"
    assert par["repeat"] == 1 and par["target"] == 0.001 and par["met"] is True
    assert par["speedup"] == pytest.approx(par["seconds_1_worker"] / par["seconds_2_workers"])


def test_suite_parallel_needs_an_entry(capsys, tmp_path):
    config = suite_file(tmp_path, "games: {tiny: 3}\n")
    code, _, err = run(capsys, "bench", "--suite", "--root", ROOT, "--config", config,
                       "--parallel")
    assert code == 1 and "--parallel: " in err and "has no parallel: entry" in err


def test_suite_unknown_only(capsys):
    code, _, err = run(capsys, "bench", "--suite", "--root", ROOT, "--only", "medange")
    assert code == 1 and "no spec 'medange'" in err and "medang" in err


def test_suite_unknown_reference_id(capsys, fake_reference):
    code, _, err = run(capsys, "bench", "--suite", "--root", ROOT, "--only", "tiny",
                       "--reference", f"medangg={fake_reference}")
    assert code == 1 and "--reference: no spec 'medangg'" in err and "medang" in err


# ---- the suite file ----------------------------------------------------------------------

def test_shipped_suite_file_names_the_issue_targets():
    ranges = {s.id: s.player_range for s in map(bench.load_spec, bench.suite_specs(ROOT))}
    SHIPPED.check_specs(ranges)
    assert {(r.spec, r.over, r.players, r.target) for r in SHIPPED.ratios} == {
        ("medina", "medang", 3, 0.333), ("middag", "medang", 3, 0.5)}
    assert SHIPPED.parallel == benchconfig.Parallel("medang", 400, 3, 3, 1.7)
    assert SHIPPED.targets == {"medang": {"reference": 1.0, "clone_us": 15},
                               "medina": {"reference": 0.25, "clone_us": 40},
                               "tic_tac_toe": {"openspiel_python": 2.0},
                               "connect_four": {"openspiel": 0.1},
                               "othello": {"openspiel": 0.1}}
    assert SHIPPED.references["medang"] == (ROOT / "../shared/bench/medang_ref.py").resolve()
    assert SHIPPED.references["medina"] == (ROOT / "../shared/bench/medina_ref.py").resolve()


@pytest.mark.parametrize("text,message", [
    ("- games\n", "suite.yaml must be a mapping (the keys: games, references"),
    ("12\n", "must be a mapping"),
    ("ratio: []\n", "suite.yaml:1:1: error: ratio: unknown key 'ratio'"),
    ("ratios:\n  - {spec: medna, over: medang, players: 3}\n",
     "suite.yaml:2:6: error: ratios[0].spec: no spec 'medna' in the suite"),
    ("ratios:\n  - {spec: medina, over: medang, players: 7}\n",
     "suite.yaml:2:34: error: ratios[0].players: medina is for 2 to 4 players, not 7"),
    ("ratios:\n  - {spec: medina, players: 3}\n", "ratios[0]: needs 'over'"),
    ("ratios: {spec: medina}\n", "ratios: must be a list, not a mapping"),
    ("games: {medang: 0}\n", "games.medang: must be a whole number greater than 0, not 0"),
    ("games: {medang: many}\n", "games.medang: must be a whole number"),
    ("games: [medang]\n", "games: must be a mapping of spec ids, not a list"),
    ("references: {medang: 3}\n", "references.medang: must be the path of a Python script"),
    ("targets: {tiny: {clone: 3}}\n", "targets.tiny.clone: unknown key 'clone'"),
    ("targets: {tiny: {clone_us: -1}}\n", "targets.tiny.clone_us: must be a number greater"),
    ("parallel: {spec: tiny, games: 2}\n", "parallel: needs 'players'"),
    ("targets:\n  go: {openspiel: 0.1}\n", "targets.go: no spec 'go'"),
    ("games: {medang: 2\n", "suite.yaml:1:8: error: YAML syntax: expected ',' or '}'"),
])
def test_bad_suite_file(capsys, tmp_path, text, message):
    config = suite_file(tmp_path, text)
    code, out, err = run(capsys, "bench", "--suite", "--root", ROOT, "--config", config,
                         "--only", "tiny", "--games", "1")
    assert code == 1 and out == "", out
    assert message in err
    assert "Traceback" not in err


def test_bad_suite_file_hints(capsys, tmp_path):
    config = suite_file(tmp_path, "ratios:\n  - {spec: medna, over: medang, players: 3}\n")
    _, _, err = run(capsys, "bench", "--suite", "--root", ROOT, "--config", config)
    assert err.splitlines()[1:] == ["      - {spec: medna, over: medang, players: 3}",
                                    "         ^",
                                    "  hint: did you mean 'medina'?"]


def test_missing_suite_file(capsys, tmp_path):
    code, _, err = run(capsys, "bench", "--suite", "--root", ROOT, "--config",
                       tmp_path / "none.yaml")
    assert code == 1 and "--config: no file" in err


def test_targets_met_and_missed(capsys, tmp_path, fake_reference):
    """A reference given relative to the suite file; a target met (>= with an equal
    value too), one missed, one (at most) for State.clone()."""
    config = suite_file(tmp_path, f"""references: {{tiny: {fake_reference.name}}}
ratios:
  - {{spec: tiny, over: tiny, players: 2, target: 1}}
targets:
  tiny: {{reference: 1000000, clone_us: 100000}}
""")
    argv = ("--only", "tiny", "--players", "2", "--games", "2", "--config", config)
    data = suite_json(capsys, *argv)
    summary = data["summary"]
    [ratio], [yardstick], [clone] = (summary[k] for k in ("ratios", "yardsticks", "clone_us"))
    assert ratio["decisions_per_s_ratio"] == 1.0 and ratio["met"] is True
    assert yardstick["ratio"] < 1000000 and yardstick["met"] is False
    assert clone["clone_us"] < 100000 and clone["met"] is True and clone["target"] == 100000
    assert summary["targets"] == {"met": 2, "missed": 1, "not_measured": 0}
    code, out, _ = run(capsys, "bench", "--suite", "--root", ROOT, *argv)
    assert code == 0
    assert "tiny / tiny decisions/s, 2 players: 1.0000  (target >= 1: met)" in out
    assert "fake_ref.py playouts/s, 2 players: " in out and "(target >= 1e+06: missed)" in out
    assert "  (target <= 100000 us: met)" in out
    assert "targets: 2 met, 1 missed" in out


def test_suite_without_a_suite_file(capsys, tmp_path, monkeypatch):
    """No bench.yaml: every spec with time-budgeted games, no cross-spec ratios."""
    monkeypatch.setattr(bench, "SUITE_SECONDS", 0.01)
    game = tmp_path / "examples" / "tiny"
    game.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "tiny" / "tiny.yaml", game)
    code, out, err = run(capsys, "bench", "--suite", "--root", tmp_path, "--json")
    data = json.loads(out)
    assert code == 0 and data["config"] is None
    assert all(bench.SUITE_GAMES[0] <= r["games"] <= bench.SUITE_GAMES[1] for r in data["rows"])
    assert data["summary"] == {"ratios": [], "yardsticks": [], "clone_us": [],
                               "targets": {"met": 0, "missed": 0, "not_measured": 0}}
    code, out, _ = run(capsys, "bench", "--suite", "--root", tmp_path, "--games", "2")
    assert code == 0 and "(no suite file)" in out.splitlines()[0]
    assert "summary" not in out and "targets" not in out

