"""tabula diff: id by id, normalised text, reformatting is not a difference."""

import json

from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.diff import diff_specs, format_diff

from conftest import ROOT

MEDANG = ROOT / "specs" / "medang"
VARIANT = ROOT / "examples" / "medang-prambanan"


def test_a_spec_against_itself_has_no_difference():
    d = diff_specs(Spec(MEDANG), Spec(MEDANG))
    assert d["added"] == d["removed"] == d["changed"] == []


def test_reformatting_is_not_a_difference(tmp_path):
    text = (MEDANG / "medang.yaml").read_text()
    re = (text.replace("choose: u in temple where u != self and (u.dynasty == self.dynasty "
                       "or u.value <= 3)",
                       "choose: >-\n      u   in temple\n      where u != self and ((u.dynasty == "
                       "self.dynasty) or u.value<=3)")
          .replace("value: open_slots(temple)", 'value: "open_slots( temple )"'))
    assert re != text
    (tmp_path / "medang.yaml").write_text(re)
    d = diff_specs(Spec(MEDANG), Spec(tmp_path / "medang.yaml"))
    assert d["changed"] == [], d["changed"]


def test_the_example_variant_lists_exactly_its_changes():
    d = diff_specs(Spec(MEDANG), Spec(VARIANT))
    assert sorted(c["id"] for c in d["changed"]) == [
        "data.temples", "data.tile_mix", "game.id", "game.name", "options.temple",
        "rules.general"]
    assert [r["id"] for r in d["removed"]] == ["tiebreak.general_height"]
    assert d["added"] == []
    general = next(c for c in d["changed"] if c["id"] == "rules.general")
    assert {f["path"] for f in general["fields"]} == {"source", "ruling", "choose"}
    mix = next(c for c in d["changed"] if c["id"] == "data.tile_mix")
    assert {f["path"]: (f["a"], f["b"]) for f in mix["fields"]}["value.5"] == (2, 3)


def test_a_real_rule_change_is_found(tmp_path):
    text = (MEDANG / "medang.yaml").read_text()
    (tmp_path / "medang.yaml").write_text(text.replace("u.value <= 3", "u.value <= 2"))
    d = diff_specs(Spec(MEDANG), Spec(tmp_path / "medang.yaml"))
    assert [c["id"] for c in d["changed"]] == ["rules.monk"]


def test_cli_text_and_json(capsys):
    assert main(["diff", str(MEDANG), str(VARIANT)]) == 0
    out = capsys.readouterr().out
    assert "changed rules.general" in out and "removed tiebreak.general_height" in out
    assert "7 differences" in out
    assert main(["diff", str(MEDANG), str(VARIANT), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"added", "removed", "changed"}
    assert all("id" in item for key in ("added", "removed", "changed") for item in data[key])


def test_medina_against_its_brettspielwelt_variant():
    """Every change the BSW text makes, and nothing else (ANALYSIS.md section 6)."""
    d = diff_specs(Spec(ROOT / "specs" / "medina"),
                   Spec(ROOT / "specs" / "medina" / "bsw-dm2003.yaml"))
    assert sorted(c["id"] for c in d["changed"]) == [
        "data.palace_tile_points", "data.single_first_turns", "enums.colour",
        "functions.ring", "game.id", "game.name", "game.source",
        "rules.claimed", "rules.place_one", "rules.stable_placed", "rules.take_turn",
        "rules.wall_placed", "steps.setup.start_player", "steps.setup.tiles"]
    assert sorted(a["id"] for a in d["added"]) == [
        "functions.founds_palace", "functions.last_roofs", "functions.roof_fits",
        "functions.screen_allowed", "variables.roofs_this_turn"]
    assert sorted(r["id"] for r in d["removed"]) == [
        "components.tea_tile", "components.well", "data.tea_for_claim", "data.well_bonus",
        "functions.well_points", "points.well", "steps.setup.start_merchant",
        "steps.setup.well", "variables.purple_claims", "variables.well_cell", "zones.tea_stack",
        "zones.teas"]
    colours = next(c for c in d["changed"] if c["id"] == "enums.colour")
    assert colours["a"] == ["orange", "brown", "grey", "purple"]
    assert colours["b"] == ["grey", "black", "brown", "orange"]
    # the text settles R23 ("Each edge of the wall counts as a new connection"): one entry,
    # with the reading, not the ruling's removal; R11 is the same on both sides
    assert [(s["id"], s["b"]["reading"]) for s in d["settled"]] == [
        ("settled.R23_tower_reconnect", "every_contact")]
    # take_turn keeps the base's step ids where its logic is the base's: nothing of the
    # turn's pieces and passes is removed from the action graph
    graph_removed = {r["id"] for r in d["graph"]["removed"]}
    assert not graph_removed & {"step:turn.out_of_pieces", "step:turn.pieces", "step:turn.pass"}


def test_the_text_opens_with_a_summary_in_the_rulebook_s_words():
    """A line a change, with its source quote, before the details; the variant's own id,
    name and source are not in the summary and come after the other changes."""
    d = diff_specs(Spec(ROOT / "specs" / "medina"),
                   Spec(ROOT / "specs" / "medina" / "bsw-dm2003.yaml"))
    lines = format_diff(d).splitlines()
    end = lines.index("")
    assert lines[2] == "summary:" and len(lines[3:end]) == 1 + 31 - 3
    assert ('  changed rules.wall_placed: medina-bsw-dm2003.txt "Each edge of the wall counts as '
            'a new connection') in "\n".join(lines[3:end])
    assert not any("game." in line for line in lines[3:end])
    details = lines[end:]
    assert details.index("changed game.id") > details.index("changed steps.setup.start_player")



def test_a_rule_changed_in_one_step_is_that_step(tmp_path):
    """The BSW take_turn adds two steps to the base's: the diff lists those two, not the
    whole step list removed and added; a step changed in place under the same id is
    compared field by field, one removed is named by its place in the base."""
    d = diff_specs(Spec(ROOT / "specs" / "medina"),
                   Spec(ROOT / "specs" / "medina" / "bsw-dm2003.yaml"))
    turn = next(c for c in d["changed"] if c["id"] == "rules.take_turn")
    assert [(f["path"], f["a"] is None) for f in turn["fields"]] == [
        ("source", False), ("do[4]", True), ("do[7]", True)]
    assert turn["fields"][1]["b"] == "roofs_this_turn = 0"
    assert turn["fields"][2]["b"]["id"] == "bsw.colour_retired"
    text = (ROOT / "specs" / "medina" / "medina.yaml").read_text()
    edited = text.replace("      - placed_this_turn = 0\n", "", 1).replace(
        'If you have only one component left, you can only build one component instead of two"',
        'If you have only one component left, you can only build one component"', 1)
    assert edited != text
    (tmp_path / "medina.yaml").write_text(edited)
    d = diff_specs(Spec(ROOT / "specs" / "medina"), Spec(tmp_path / "medina.yaml"))
    turn = next(c for c in d["changed"] if c["id"] == "rules.take_turn")
    assert [(f["path"], f["b"]) for f in turn["fields"]] == [
        ("do[3].then[2].source", 'medina.txt "If you have only one component left, you can '
                                 'only build one component"'),
        ("do[3]", None)]                      # the base's third step, removed
    assert turn["fields"][1]["a"] == "placed_this_turn = 0"
