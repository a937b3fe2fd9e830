"""`tabula bench`: one spec (its JSON keys, the reference's interface), the suite (every
shipped spec found, rows, references, OpenSpiel, summary), refused arguments; and
tic-tac-toe played move for move against OpenSpiel's."""

import json
import random
import shutil

import pyspiel
import pytest

from interpreter import bench, load_game
from interpreter.cli import main
from interpreter.spec import resolve_spec_path

from conftest import EXAMPLES, ROOT, SPEC_FILES

MEDANG = str(ROOT / "specs" / "medang")
SINGLE_KEYS = {"spec", "players", "options", "seed", "repeat", "games", "seconds",
               "playouts_per_s", "decisions_per_s", "decisions_per_game", "chance_per_game",
               "mean_branching"}
# a stand-in for ../shared/bench/medang_ref.py: records its arguments, answers fixed figures
FAKE_REFERENCE = """import json, sys
open(sys.argv[0] + '.args', 'a').write(' '.join(sys.argv[1:]) + '\\n')
print(json.dumps({"playouts_per_s": 800.0, "mean_decisions": 90.0,
                  "api": {"playouts_per_s": 400.0, "mean_decisions": 90.0}}))
"""


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in argv])
    assert e.value.code == 2
    return capsys.readouterr().err


def suite_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, "bench", "--suite", "--root", ROOT, "--json", *argv)
    assert code == 0, err
    return json.loads(out)


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
    (["--suite", "--reference", "/some/ref.py"], "--reference with --suite takes ID=SCRIPT"),
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
    assert row["games"] == round(bench.SUITE_GAMES["tic_tac_toe"] * 0.01)
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
    assert data["summary"]["medina_over_medang_decisions_per_s"] is None


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
    assert ref["ratio"] == pytest.approx(medang["playouts_per_s"] / 400.0)
    assert ref["decisions_per_s"] == pytest.approx(400.0 * 90.0)
    summary = data["summary"]
    for other in ("medina", "middag"):
        assert summary[f"{other}_over_medang_decisions_per_s"] == pytest.approx(
            rows[("tabula", other)]["decisions_per_s"] / medang["decisions_per_s"])
    assert "parallel" not in summary


def test_suite_without_reference_or_openspiel_goes_on(capsys, monkeypatch):
    monkeypatch.setattr(bench, "openspiel", lambda: None)
    data = suite_json(capsys, "--only", "medang,tic_tac_toe", "--players", "2", "--games", "2",
                      "--reference", "medang=/no/such/medang_ref.py")
    assert [r["kind"] for r in data["rows"]] == ["tabula", "tabula"]
    assert any("no reference for medang" in n for n in data["notes"])
    assert sum("OpenSpiel is not installed" in n for n in data["notes"]) == 1


def test_suite_parallel(capsys, monkeypatch):
    monkeypatch.setattr(bench, "PARALLEL_GAMES", 6)
    monkeypatch.setattr(bench, "PARALLEL_REPEAT", 1)
    data = suite_json(capsys, "--only", "tiny", "--games", "1", "--parallel")
    par = data["summary"]["parallel"]
    assert par["games"] == 6 and par["players"] == 3 and par["spec"] == "medang"
    assert par["repeat"] == 1
    assert par["speedup"] == pytest.approx(par["seconds_1_worker"] / par["seconds_2_workers"])


def test_suite_unknown_only(capsys):
    code, _, err = run(capsys, "bench", "--suite", "--root", ROOT, "--only", "medange")
    assert code == 1 and "no spec 'medange'" in err and "medang" in err


# ---- tic-tac-toe against OpenSpiel ---------------------------------------------------------

def test_tic_tac_toe_plays_as_openspiel():
    """200 seeded random games through both: at every step the same player, the same legal
    actions (an action's last value is OpenSpiel's action) with the same strings, and at
    the end the same returns."""
    game = load_game(ROOT / "examples" / "tic_tac_toe")
    theirs = pyspiel.load_game("tic_tac_toe")
    outcomes = set()
    for seed in range(200):
        rng = random.Random(seed)
        st, os_st = game.new_state(seed=seed), theirs.new_initial_state()
        while not os_st.is_terminal():
            assert not st.terminal
            player = os_st.current_player()
            assert st.current_player() == player
            legal = os_st.legal_actions()
            acts = st.legal_actions()
            assert [a[-1] for a in acts] == legal
            assert st.legal_action_strings() == [os_st.action_to_string(player, a)
                                                 for a in legal]
            k = int(rng.random() * len(acts))
            st.apply(acts[k])
            os_st.apply_action(legal[k])
        assert st.terminal
        assert st.scores() == [int(x) for x in os_st.returns()]
        outcomes.add(tuple(st.scores()))
    assert outcomes == {(1, -1), (-1, 1), (0, 0)}    # wins, losses and draws were compared
