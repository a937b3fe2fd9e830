"""tabula diff: id by id, normalised text, reformatting is not a difference."""

import functools
import json
import re

import pytest
import yaml

from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.diff import diff_specs, format_diff, summary_rows

from conftest import ROOT

MEDANG = ROOT / "specs" / "medang"
VARIANT = ROOT / "examples" / "medang-prambanan"


def test_a_spec_against_itself_has_no_difference():
    d = diff_specs(_spec(MEDANG), _spec(MEDANG))
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
    d = diff_specs(_spec(MEDANG), Spec(tmp_path / "medang.yaml"))
    assert d["changed"] == [], d["changed"]


def test_the_example_variant_lists_exactly_its_changes():
    d = diff_specs(_spec(MEDANG), _spec(VARIANT))
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
    d = diff_specs(_spec(MEDANG), Spec(tmp_path / "medang.yaml"))
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


MEDINA, BSW = ROOT / "specs" / "medina", ROOT / "specs" / "medina" / "bsw-dm2003.yaml"


@functools.cache
def _spec(path):
    """A shipped spec loaded once for the module (no test changes a Spec or a diff)."""
    return Spec(path)


@functools.cache
def _bsw_diff():
    return diff_specs(_spec(MEDINA), _spec(BSW))


BSW_TABLE = ROOT / "tests" / "data" / "bsw_text_changes.yaml"
BSW_TEXT = ROOT.parent / "shared" / "rulebooks" / "medina-bsw-dm2003.txt"


def test_the_bsw_diff_lists_every_change_of_its_text_and_nothing_else():
    """The table tests/data/bsw_text_changes.yaml maps each paragraph of
    medina-bsw-dm2003.txt to the summary lines of the diff it accounts for (or says why
    it changes nothing): every change the table names is in the diff, and the diff has
    no change the table does not name."""
    table = yaml.safe_load(BSW_TABLE.read_text())
    for row in table["paragraphs"]:
        assert ("changes" in row) != ("same" in row), row["text"]
    expected = [c for row in table["paragraphs"] + table["absent"]
                for c in row.get("changes", [])]
    assert len(expected) == len(set(expected))
    listed = [what for what, _ in summary_rows(_bsw_diff())]
    assert sorted(listed) == sorted(expected)


def test_the_bsw_table_has_every_paragraph_of_the_text():
    if not BSW_TEXT.is_file():
        pytest.skip(f"the rulebooks are not beside the checkout ({BSW_TEXT})")
    table = yaml.safe_load(BSW_TABLE.read_text())
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", BSW_TEXT.read_text())
                  if p.strip()]
    body = [p for p in paragraphs if len(p.split()) > 3]          # headings apart
    openings = [row["text"] for row in table["paragraphs"]]
    for p in body:
        assert sum(p.startswith(o) for o in openings) == 1, f"not in the table: {p[:60]}"
    for o in openings:
        assert any(p.startswith(o) for p in body), f"no paragraph opens with {o!r}"


def test_medina_against_its_brettspielwelt_variant():
    """The entries behind the summary (ANALYSIS.md section 6)."""
    d = _bsw_diff()
    colours = next(c for c in d["changed"] if c["id"] == "enums.colour")
    assert colours["a"] == ["orange", "brown", "grey", "purple"]
    assert colours["b"] == ["grey", "black", "brown", "orange"]
    # the text settles R23 ("Each edge of the wall counts as a new connection"): one entry,
    # with the reading, not the ruling's removal; R11 is the same on both sides
    assert [(s["id"], s["b"]["reading"]) for s in d["settled"]] == [
        ("settled.R23_tower_reconnect", "every_contact")]
    # the start player chooses where the base's chance placed the first merchant: the
    # same step, renamed, with another player and label
    [street] = d["renamed"]
    assert (street["was"], street["id"]) == ("steps.setup.start_merchant",
                                             "steps.bsw.street_start")
    assert {f["path"]: f["b"] for f in street["fields"]}["player"] == "start_player"
    # take_turn keeps the base's step ids where its logic is the base's: nothing of the
    # turn's pieces and passes is removed from the action graph
    graph_removed = {r["id"] for r in d["graph"]["removed"]}
    assert not graph_removed & {"step:turn.out_of_pieces", "step:turn.pieces", "step:turn.pass"}
    assert "rules.take_turn" in {c["id"] for c in d["changed"]}
    assert "steps.setup.start_player" not in {c["id"] for c in d["changed"]}


def test_the_text_opens_with_a_summary_in_the_rulebook_s_words():
    """A line a change, with its source quote, before the details; the variant's own id,
    name and source are not in the summary and come after the other changes."""
    d = _bsw_diff()
    lines = format_diff(d).splitlines()
    end = lines.index("")
    # the settled ruling, the renamed step and 28 other entries (the rules' inner steps
    # apart: four lines of their own)
    assert lines[2] == "summary:" and len(lines[3:end]) == 30
    assert "  added step bsw.colour_retired (in rules.take_turn): medina-bsw-dm2003.txt " \
           '"or no component of this color fits on the schedule' in lines[3:end][11]
    assert ('  changed rules.wall_placed: medina-bsw-dm2003.txt "Each edge of the wall counts as '
            'a new connection') in "\n".join(lines[3:end])
    assert not any("game." in line for line in lines[3:end])
    details = lines[end:]
    assert details.index("changed game.id") > details.index("changed steps.setup.tiles")



def test_a_rule_changed_in_one_step_is_that_step(tmp_path):
    """The BSW adds two steps to the base's take_turn: the diff lists those two, each
    with its neighbours, not the whole step list removed and added; a step changed in
    place under the same id is compared field by field, one removed is named by its
    place in the base."""
    d = _bsw_diff()
    turn = next(c for c in d["changed"] if c["id"] == "rules.take_turn")
    assert [(f["path"], f["a"] is None) for f in turn["fields"]] == [
        ("do[4]", True), ("do[7]", True)]
    assert turn["fields"][0]["b"]["do"] == ["roofs_this_turn = 0"]
    assert turn["fields"][0]["context"] == {"before": "do[3] placed_this_turn = 0",
                                            "after": "do[5] turn.out_of_pieces"}
    assert turn["fields"][1]["b"]["id"] == "bsw.colour_retired"
    assert turn["fields"][1]["context"] == {"before": "do[6] turn.pass"}
    text = format_diff(d)
    assert "    do[7]:\n        (after do[6] turn.pass)\n      + id: bsw.colour_retired\n" \
        in text
    text = (ROOT / "specs" / "medina" / "medina.yaml").read_text()
    edited = text.replace("      - placed_this_turn = 0\n", "", 1).replace(
        'If you have only one component left, you can only build one component instead of two"',
        'If you have only one component left, you can only build one component"', 1)
    assert edited != text
    (tmp_path / "medina.yaml").write_text(edited)
    d = diff_specs(_spec(MEDINA), Spec(tmp_path / "medina.yaml"))
    turn = next(c for c in d["changed"] if c["id"] == "rules.take_turn")
    assert [(f["path"], f["b"]) for f in turn["fields"]] == [
        ("do[3].then[2].source", 'medina.txt "If you have only one component left, you can '
                                 'only build one component"'),
        ("do[3]", None)]                      # the base's third step, removed
    assert turn["fields"][1]["a"] == "placed_this_turn = 0"


def test_an_entry_renamed_is_matched_by_its_content(tmp_path):
    """A rule under a new id with the same text is one renamed entry, not one removed and
    one added; tiny entries alike by chance (two variables starting at 0) are not; a step
    without an id that only moved (a step was put before it) is no difference."""
    (tmp_path / "base.yaml").write_text(BASE_TEXT)
    renamed = BASE_TEXT.replace("draw_one", "take_one").replace("  unused: {value: 0}\n",
                                                                "  spare: {value: 0}\n")
    renamed = renamed.replace("setup:\n", "setup:\n  - total = 0\n", 1)
    (tmp_path / "renamed.yaml").write_text(renamed)
    d = diff_specs(Spec(tmp_path / "base.yaml"), Spec(tmp_path / "renamed.yaml"))
    assert [(r["was"], r["id"]) for r in d["renamed"]] == [("rules.draw_one", "rules.take_one")]
    # the new first step is named by its place, marked new: the base's setup[1] is kept
    assert [a["id"] for a in d["added"]] == ["variables.spare", "setup[1] (new)"]
    assert [r["id"] for r in d["removed"]] == ["variables.unused"]
    assert [c["id"] for c in d["changed"]] == ["steps.draw"]     # it calls take_one now
    text = format_diff(d)
    assert "renamed rules.draw_one -> rules.take_one" in text
    assert "5 differences: 1 changed, 2 added, 1 removed, 1 renamed" in text


BASE_TEXT = """\
game: {id: base, name: Base, source: b.txt, players: {min: 2, max: 2}}
components:
  card: {name: "c{n}", for_each: {n: "range(1, 9)"}, zone: deck}
zones:
  deck: {kind: stack, visibility: count}
  hand: {kind: set, per_player: true, visibility: owner}
variables:
  total: {value: 0}
  unused: {value: 0}
setup:
  - for: p in players
    do:
      - move top(deck) to p.hand
play:
  - id: draw
    turns: {first: 0, until: size(deck) == 0}
    do:
      - call draw_one
rules:
  draw_one:
    source: b.txt "draw one card from the deck and put it in your hand"
    do:
      - move top(deck) to current.hand
      - total += 1
scoring:
  points:
    cards: {value: size(player.hand)}
"""


# ---- --by-change: each change of a variant on its own -----------------------------------

def test_each_toggle_makes_exactly_its_changes(tmp_path):
    """Every change of the BSW diff is in one toggle; a toggle, loaded as the variant of
    Medina it is, differs from Medina by exactly its changes (and those it needs); the
    changes that name each other's entries are one toggle, and the colours, which take
    away the purple the tea rules read, are made with the tea rules' removal."""
    from tabula_rules.tools.bychange import toggles_of, write_toggles
    a, b = _spec(MEDINA), _spec(BSW)
    d = _bsw_diff()
    items = toggles_of(d, (a.doc, b.doc))
    assert sorted(c for t in items for c in t.changes) == \
        sorted(what for what, _ in summary_rows(d))
    assert len(items) == 8 and not any(t.error for t in items)
    by_first = {t.changes[0]: t for t in items}
    tower = by_first["settled ruling R23_tower_reconnect: reading every_contact"]
    assert tower.changes[1:] == ["changed rules.wall_placed", "changed rules.stable_placed"]
    assert "wall_placed" in tower.grouped
    colours = by_first["changed enums.colour"]
    assert colours.changes == ["changed enums.colour", "changed data.palace_tile_points"]
    assert "removed step own.tea (from rules.claimed)" in colours.also
    assert "it takes away purple" in colours.grouped
    for t, path in zip(items, write_toggles(a.path, items, tmp_path)):
        spec = Spec(path)
        spec.game(2)
        made = sorted(what for what, _ in summary_rows(diff_specs(a, spec)))
        assert made == sorted(t.changes + t.also), t.name


def test_diff_by_change_on_the_command_line(tmp_path, capsys):
    """--by-change plays each change alone (here the example variant of Medang: five
    changes, four toggles: the new temple option and the table keyed by it go together)
    and reports it in text, JSON and the HTML report."""
    report = tmp_path / "c.html"
    args = ["diff", str(MEDANG), str(VARIANT), "--simulate", "3", "--players", "3",
            "--workers", "1", "--by-change", "--agents", "random"]
    assert main(args + ["--json"]) == 0
    play = json.loads(capsys.readouterr().out)["play"]
    rows = play["by_change"]
    assert [r["name"] for r in rows] == [
        "changed options.temple + 1 more", "changed data.tile_mix",
        "changed rules.general", "removed tiebreak.general_height"]
    assert rows[0]["changes"] == ["changed options.temple", "changed data.temples"]
    assert "(prambanan)" in rows[0]["grouped"]
    for r in rows:
        names = [m["name"] for m in r["metrics"]]
        assert "first-player advantage" in names and r["pairs"] == 3
        assert all({"diff", "low", "high", "p_adjusted"} <= set(m) for m in r["metrics"])
    # every test of the table, each toggle's and each mirror's, in one Holm family
    assert play["correction"]["family"] == sum(len(r["metrics"]) + len(r["mirror"]["metrics"])
                                               for r in rows)
    for r in rows:
        mirror = r["mirror"]
        assert {"also", "grouped", "error", "same_as", "metrics", "pairs", "failed"} <= \
            set(mirror)
        assert mirror["pairs"] == 3 and mirror["error"] == "" and not mirror["same_as"]
        assert [m["name"] for m in mirror["metrics"]] == [m["name"] for m in r["metrics"]]
        assert isinstance(r["disagree"], list)
    inter = {x["metric"]: x for x in play["interaction"]}
    assert set(inter) >= {"first-player advantage", "decisions per game"}
    whole = {m["name"]: m["diff"] for m in play["metrics"]}
    for key in ("interaction", "interaction_mirror"):
        x = {x["metric"]: x for x in play[key]}["decisions per game"]
        assert x["games"] == 3 and x["low"] <= x["interaction"] <= x["high"]
        assert abs(x["whole"] - whole["decisions per game"]) < 1e-9
        assert abs(x["whole"] - x["sum_of_changes"] - x["interaction"]) < 1e-9
    assert main(args + ["--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "by change (each change applied alone to A, and removed alone from B" in out
    assert "alone on A" in out and "removed alone from B" in out and "--no-mirror" in out
    assert "  3. changed rules.general" in out and "interaction (the whole" in out
    assert "interaction from B" in out
    row = re.search(r"\n     decisions per game +(\S+) \[.*?\] +(\S+) \[", out)
    assert row, out                                  # one line, both effects
    page = report.read_text()
    assert "Each change on its own" in page and "interaction (whole - sum)" in page
    assert "removed alone from B" in page and "interaction from B (whole - sum)" in page


def test_by_change_needs_simulate(capsys):
    assert main(["diff", str(MEDANG), str(VARIANT), "--by-change"]) == 1
    assert "--by-change is for --simulate N" in capsys.readouterr().err
    assert main(["diff", str(MEDANG), str(VARIANT), "--simulate", "1", "--no-mirror"]) == 1
    assert "--no-mirror is for --by-change" in capsys.readouterr().err
    assert main(["diff", str(MEDANG), str(MEDANG), "--simulate", "1", "--workers", "1",
                 "--by-change", "--agents", "random"]) == 0
    assert "by change: the rule diff has no change to measure" in capsys.readouterr().out


def test_rules_fired_are_compared_by_content_not_id(tmp_path):
    """A rule and a step renamed in B fire as often as in A: one rule each, named by both
    ids, with no difference; not one rule that stopped firing and another that began."""
    from tabula_rules.tools.simulate import compare_variants
    (tmp_path / "base.yaml").write_text(BASE_TEXT)
    renamed = BASE_TEXT.replace("draw_one", "take_one").replace("id: draw\n", "id: take\n")
    (tmp_path / "renamed.yaml").write_text(renamed)
    c = compare_variants(tmp_path / "base.yaml", tmp_path / "renamed.yaml", 3, workers=1,
                         agents="random")
    names = {m.name: m for m in c.rules}
    assert "rule:draw_one = rule:take_one" in names and "draw = take" in names
    assert names["rule:draw_one = rule:take_one"].diff == 0
    assert names["rule:draw_one = rule:take_one"].a > 0
    assert not {"rule:take_one", "rule:draw_one", "take", "draw"} & set(names)
    assert c.only_in_a == [] and c.only_in_b == [] and c.dead_rules == []


# ---- --by-change's mirrors: each change removed alone from B --------------------------------

def _mirrors_of(a, b, tmp_path, players):
    """Each toggle of diff(a, b) and its mirror loaded as the variant of B it is (None for
    a mirror reported with its error)."""
    from tabula_rules.tools.bychange import toggles_of, write_toggles
    items = toggles_of(diff_specs(a, b), (a.doc, b.doc))
    out = []
    for t, path in zip(items, write_toggles(b.path, items, tmp_path, mirror=True)):
        spec = None
        if path is not None:
            spec = Spec(path)
            spec.game(players)                     # it compiles
        out.append((t, spec))
    return out


@pytest.mark.parametrize("a, b, players, unplayed", [
    (MEDINA, BSW, 2,
     ["removed step turn.tea_break (from rules.place_one) + 7 more"]),
    (MEDANG, VARIANT, 3, []),
])
def test_each_mirror_undoes_exactly_its_changes_on_b(tmp_path, a, b, players, unplayed):
    """A mirror, loaded as the variant of B it is, compiles, and B differs from it by
    exactly the toggle's changes and those it undoes with them (a settled ruling is undone
    by the entries its reading wrote, so B and the mirror both have it settled); a mirror
    that cannot be written says why, and is the only one not played."""
    a, b = _spec(a), _spec(b)
    mirrors = _mirrors_of(a, b, tmp_path, players)
    assert [t.name for t, spec in mirrors if spec is None] == unplayed
    for t, spec in mirrors:
        if spec is None:
            assert "cannot be put back alone" in t.mirror_error
            continue
        made = sorted(what for what, _ in summary_rows(diff_specs(spec, b)))
        want = sorted(c for c in t.changes + t.mirror_also if not c.startswith("settled "))
        assert made == want, t.name
        assert made, t.name                      # a mirror undoes something


def test_mirrors_of_changes_that_name_each_other_on_b_are_undone_together():
    """BSW's colours take purple away, which the tea rules read: applied to Medina the
    colours need the tea rules' removal (`also`); undone on BSW, the colours give purple
    back and the tea rules come back with it, so the two are undone together and say so."""
    from tabula_rules.tools.bychange import toggles_of
    a, b = _spec(MEDINA), _spec(BSW)
    by_name = {t.name: t for t in toggles_of(_bsw_diff(), (a.doc, b.doc))}
    colours = by_name["changed enums.colour + 1 more"]
    assert "removed zones.teas" in colours.mirror_also
    assert "purple" in colours.mirror_grouped and "undone together" in colours.mirror_grouped
    single = by_name["changed data.single_first_turns"]
    assert single.mirror_also == [] and single.mirror_grouped == ""
    assert single.mirror == {"override": {"data": {"single_first_turns":
                                                   a.doc["data"]["single_first_turns"]}}}


# two changes of a small game, each of which lengthens it: the target and the big step
STEPS = """\
game: {id: steps, name: Steps, source: none, players: {min: 2, max: 2}}
data:
  target: {value: TARGET}
  big: {value: BIG}
variables:
  total: {value: 0}
  vp: {value: 0, per_player: true}
play:
  - id: turn
    turns:
      first: 0
      until: total >= target
    do:
      - choose_one:
          - id: add.one
            label: one
            do:
              - total += 1
              - current.vp += 1
          - id: add.big
            label: big
            do:
              - total += big
scoring:
  points:
    vp:
      value: player.vp
"""


def _steps(tmp_path, target=7, big=3, name="a.yaml"):
    path = tmp_path / name
    path.write_text(STEPS.replace("TARGET", str(target)).replace("BIG", str(big)))
    return path


def test_by_change_plays_each_change_both_ways_on_a_small_game(tmp_path, capsys):
    """A variant of two changes: each toggle and each mirror plays the games; the mirror of
    a change that is the whole variant is A itself, so on the same seeds its effect is the
    whole variant's, exactly, as is the toggle's."""
    a, b = _steps(tmp_path), _steps(tmp_path, 12, 2, "b.yaml")
    args = ["diff", str(a), str(b), "--simulate", "6", "--workers", "1", "--by-change",
            "--agents", "random"]
    assert main(args + ["--json"]) == 0
    play = json.loads(capsys.readouterr().out)["play"]
    rows = play["by_change"]
    assert [r["name"] for r in rows] == ["changed data.target", "changed data.big"]
    for r in rows:
        assert r["pairs"] == 6 and r["mirror"]["pairs"] == 6
        on_a = {m["name"]: m["diff"] for m in r["metrics"]}
        from_b = {m["name"]: m["diff"] for m in r["mirror"]["metrics"]}
        assert set(on_a) == set(from_b) and on_a["decisions per game"] is not None
    assert play["correction"]["family"] == 2 * 2 * len(rows[0]["metrics"])
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "alone on A" in out and "removed alone from B" in out
    assert "interaction from B" in out
    assert main(args + ["--no-mirror"]) == 0
    out = capsys.readouterr().out
    assert "removed alone from B" not in out and "  2. changed data.big" in out

    one = _steps(tmp_path, 12, 3, "one.yaml")            # one change: the target
    assert main(["diff", str(a), str(one), "--simulate", "6", "--workers", "1",
                 "--by-change", "--agents", "random", "--json"]) == 0
    play = json.loads(capsys.readouterr().out)["play"]
    whole = {m["name"]: m["diff"] for m in play["metrics"]}
    (row,) = play["by_change"]
    for m, n in zip(row["metrics"], row["mirror"]["metrics"]):
        assert m["diff"] == n["diff"] == whole[m["name"]], m["name"]
    assert row["disagree"] == []
    assert all(abs(x["interaction"]) < 1e-9 for x in play["interaction_mirror"])


def test_two_effects_disagree_when_their_intervals_part_or_their_signs_do():
    from tabula_rules.tools.bychange import _disagree

    def m(name, diff, low, high, significant=False):
        return {"name": name, "diff": diff, "low": low, "high": high,
                "significant": significant}
    on_a = [m("x", 1.0, 0.5, 1.5), m("y", 1.0, -1.0, 3.0), m("z", 2.0, 1.0, 3.0, True),
            m("w", 0.0, None, None)]
    from_b = [m("x", -1.0, -1.5, -0.5), m("y", 2.0, 0.0, 4.0), m("z", -2.0, -3.0, -1.0, True),
              m("w", 1.0, None, None)]
    assert _disagree(on_a, from_b) == ["x", "z"]
    assert _disagree(on_a, on_a) == []


# ---- diff --simulate's default bots -------------------------------------------------------------

def test_the_default_bots_are_a_search_bot_and_greedy_seats_rotated(tmp_path, capsys,
                                                                     monkeypatch):
    """Without --agents, diff --simulate plays mcts (the stated budget) in one seat and
    greedy in the other, seats rotated game by game; A, B, every toggle and every mirror
    have the same bots in the same seats in game i; text, JSON and the page say so."""
    from tabula_rules.tools import simulate
    runs = []
    real = simulate.run_batch

    def recording(*args, **kwargs):
        summary = real(*args, **kwargs)
        runs.append([r["agents"] for r in summary.records])
        return summary
    monkeypatch.setattr(simulate, "run_batch", recording)
    a, b = _steps(tmp_path), _steps(tmp_path, 12, 2, "b.yaml")
    args = ["diff", str(a), str(b), "--simulate", "4", "--workers", "1", "--by-change"]
    assert main(args + ["--json"]) == 0
    play = json.loads(capsys.readouterr().out)["play"]
    search = f"mcts:{simulate.DIFF_SEARCH_ITERATIONS}:8"
    assert simulate.DIFF_AGENTS == (f"mcts:{simulate.DIFF_SEARCH_ITERATIONS}", "greedy")
    seating = [[search, "greedy"], ["greedy", search], [search, "greedy"], ["greedy", search]]
    assert len(runs) == 2 + 2 + 2 and all(run == seating for run in runs)
    stated = (f"{search} in one seat, greedy in the other, seats rotated game by game "
              "(the default; --agents to choose)")
    assert play["bots"] == {"agents": [search, "greedy"], "rotate": True, "default": True,
                            "text": stated}
    report = tmp_path / "c.html"
    assert main(args[:-1] + ["--report", str(report)]) == 0
    assert f"bots: {stated}" in capsys.readouterr().out
    assert stated in report.read_text()
    runs.clear()
    assert main(args[:-1] + ["--agents", "greedy,random"]) == 0      # named: as named
    assert "bots: 0: greedy, 1: random by seat\n" in capsys.readouterr().out
    assert runs == [[["greedy", "random"]] * 4] * 2
    assert main(["simulate", str(a), "--games", "2", "--workers", "1"]) == 0
    assert "bots by seat random, random" in capsys.readouterr().out    # simulate: random


def test_the_default_bots_give_the_same_comparison_on_any_number_of_workers(tmp_path):
    from tabula_rules.tools.simulate import compare_variants
    a, b = _steps(tmp_path), _steps(tmp_path, 12, 2, "b.yaml")
    one = compare_variants(a, b, 4, seed=3, workers=1)
    two = compare_variants(a, b, 4, seed=3, workers=2)
    assert one.bots["default"] and one.to_dict() == two.to_dict()
