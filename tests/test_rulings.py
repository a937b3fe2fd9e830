"""Switchable rulings (a `rulings:` section): readings as options, applied like a
variant's changes by id; `tabula rulings` lists every ruling of a spec."""

import json

import pytest

from tabula_rules import SpecError
from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main

SPEC = """\
game: {id: tiny, name: Tiny, source: t.txt, players: {min: 2, max: 2}}
options:
  short: {default: false, choices: [false, true]}
data:
  deal_size:
    source: t.txt "deal three cards"
    ruling: A hand is dealt from the top of the deck.
    value: 3
components:
  card: {name: "c{n}", for_each: {n: "range(1, 9)"}, zone: deck}
zones:
  deck: {kind: stack, visibility: count}
  hand: {kind: set, per_player: true, visibility: owner}
rulings:
  deal_more:
    source: t.txt "deal three cards, or more"
    ruling: How many cards is "or more"?
    default: literal
    readings:
      literal:
        source: t.txt "deal three cards"
        argument: the number the text gives
      four:
        argument: one more is the least "more"
        override:
          data:
            deal_size: {value: 4}
setup:
  - id: deal
    source: t.txt "deal"
    ruling: Both players are dealt at once.
    for: p in players
    do:
      - move top(deck, deal_size) to p.hand
play:
  - id: end
    do: []
scoring:
  points:
    cards: {value: size(player.hand)}
"""


@pytest.fixture
def spec_path(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(SPEC)
    return path


def hands(st):
    z = st.prog.zones["hand"]
    return [len(st.slots[z.slot(p)]) for p in range(2)]


def test_default_reading_plays_as_the_base(spec_path, tmp_path):
    spec = Spec(spec_path)
    assert spec.options() == {"short": False, "deal_more": "literal"}
    plain = tmp_path / "plain.yaml"
    plain.write_text(SPEC.split("rulings:")[0] + "setup:" + SPEC.split("\nsetup:")[1])
    base = Spec(plain)
    assert hands(spec.game(2).new_state(seed=3)) == hands(base.game(2).new_state(seed=3))
    assert hands(spec.game(2, {"deal_more": "literal"}).new_state()) == [3, 3]
    assert "deal_more" not in spec.game(2).options      # named only when not the default


def test_other_reading_changes_the_named_entry(spec_path):
    spec = Spec(spec_path)
    game = spec.game(2, {"deal_more": "four"})
    assert hands(game.new_state()) == [4, 4]
    assert game.options == {"short": False, "deal_more": "four"}
    assert hands(spec.game(2).new_state()) == [3, 3]          # the base is kept
    assert spec.doc["data"]["deal_size"]["value"] == 3


def test_unknown_reading_is_a_located_error(spec_path):
    spec = Spec(spec_path)
    with pytest.raises(SpecError) as e:
        spec.game(2, {"deal_more": "five"})
    assert "not one of its readings" in e.value.message
    assert e.value.pos.line == 19 and str(spec_path) in str(e.value.pos)


def test_unknown_reading_on_the_command_line(spec_path, capsys):
    assert main(["run", str(spec_path), "--option", "deal_more=fuor"]) == 1
    err = capsys.readouterr().err
    assert "tiny.yaml:19" in err and "four" in err and "Traceback" not in err
    assert main(["run", str(spec_path), "--option", "deal_more=four"]) == 0
    assert "deal_more=four" in capsys.readouterr().out


def test_reading_naming_a_missing_id_fails_validate(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace("deal_size: {value: 4}", "deal_sise: {value: 4}"))
    with pytest.raises(SpecError) as e:
        Spec(path)
    assert "ruling deal_more, reading four" in e.value.message
    assert "deal_sise" in e.value.message and e.value.pos.line == 27
    assert main(["validate", str(path)]) == 1
    assert "bad.yaml:27" in capsys.readouterr().err


def test_default_must_be_a_reading_and_names_unique(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace("default: literal", "default: literl"))
    with pytest.raises(SpecError, match="not one of its readings"):
        Spec(path)
    path.write_text(SPEC.replace("  deal_more:\n", "  short:\n"))
    with pytest.raises(SpecError, match="name of an option"):
        Spec(path)


def test_validate_compiles_every_reading(spec_path, capsys):
    assert main(["validate", str(spec_path)]) == 0
    assert "ruling deal_more: literal|four" in capsys.readouterr().out


def test_rulings_lists_switchable_and_not(spec_path, capsys):
    assert main(["rulings", str(spec_path)]) == 0
    out = capsys.readouterr().out
    assert "3 rulings, 1 switchable" in out
    assert "deal_more  [switchable, default literal]" in out
    assert "reading four: override data.deal_size" in out
    assert "deal_size  [data]" in out and "deal  [step]" in out
    assert main(["rulings", str(spec_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rulings"]
    assert [(r["id"], r["switchable"]) for r in rows] == [
        ("deal_more", True), ("deal_size", False), ("deal", False)]
    assert rows[0]["readings"][1]["argument"] == 'one more is the least "more"'
    assert main(["rulings", str(spec_path), "--switchable"]) == 0
    assert "1 rulings, 1 switchable" in capsys.readouterr().out


def test_rulings_of_a_missing_spec_is_an_error(tmp_path, capsys):
    assert main(["rulings", str(tmp_path / "none.yaml")]) == 1
    assert "no such spec" in capsys.readouterr().err


def test_a_variant_inherits_rulings_and_can_remove_one(spec_path, tmp_path):
    var = tmp_path / "var.yaml"
    var.write_text("extends: tiny.yaml\ngame: {id: var, name: Var}\n")
    assert hands(Spec(var).game(2, {"deal_more": "four"}).new_state()) == [4, 4]
    var.write_text("extends: tiny.yaml\ngame: {id: var, name: Var}\n"
                   "remove: [rulings.deal_more]\n")
    spec = Spec(var)
    assert spec.options() == {"short": False}
    with pytest.raises(SpecError, match="unknown option 'deal_more'"):
        spec.game(2, {"deal_more": "four"})
    var.write_text("extends: tiny.yaml\ngame: {id: var, name: Var}\n"
                   "remove: [data.deal_size]\n")
    with pytest.raises(SpecError, match="ruling deal_more, reading four: override of data"):
        Spec(var)


def test_diff_of_two_readings_lists_the_changed_entry(spec_path, capsys):
    assert main(["diff", str(spec_path), str(spec_path), "--option-a", "deal_more=literal",
                 "--option-b", "deal_more=four", "--simulate", "4", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "changed data.deal_size" in out and "1 difference" in out
    assert "B short=False, deal_more=four" in out


# ---- a variant settles a ruling of its base (settle:) -----------------------------------

SETTLING = """\
extends: tiny.yaml
game: {id: tiny_four, name: Tiny with four}
settle:
  deal_more: READING
"""


def settled_spec(tmp_path, spec_path, reading="four", extra=""):
    path = tmp_path / f"{reading}.yaml"
    path.write_text(SETTLING.replace("READING", reading) + extra)
    return Spec(path)


def test_a_variant_settles_a_ruling_with_one_reading(spec_path, tmp_path, capsys):
    """The reading's changes are the variant's, the ruling is no longer an option, and
    `tabula rulings` and `tabula diff` say that the variant settled it."""
    spec = settled_spec(tmp_path, spec_path)
    assert "deal_more" not in spec.options()
    assert hands(spec.game(2).new_state(seed=3)) == [4, 4]
    assert hands(settled_spec(tmp_path, spec_path, "literal").game(2).new_state()) == [3, 3]
    assert main(["rulings", str(tmp_path / "four.yaml")]) == 0
    out = capsys.readouterr().out
    assert "deal_more  [settled by the variant: four]" in out
    assert main(["diff", str(spec_path), str(tmp_path / "four.yaml"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [s["id"] for s in d["settled"]] == ["settled.deal_more"]
    assert d["settled"][0]["b"]["reading"] == "four"
    assert not any(r["id"] == "rulings.deal_more" for r in d["removed"])
    assert main(["diff", str(spec_path), str(tmp_path / "four.yaml")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[2:4] == ["summary:", "  settled ruling deal_more: reading four"]
    assert "1 ruling settled" in text


def test_the_variant_s_own_override_comes_after_the_settled_reading(spec_path, tmp_path):
    spec = settled_spec(tmp_path, spec_path, extra="override:\n  data:\n"
                                                   "    deal_size: {value: 2}\n")
    assert hands(spec.game(2).new_state()) == [2, 2]


@pytest.mark.parametrize("reading, settle, message", [
    ("fuor", None, "ruling deal_more has no reading 'fuor'"),
    ("four", "  deal_mroe: four\n", "the base has no switchable ruling 'deal_mroe'"),
])
def test_settling_what_the_base_lacks_is_a_located_error(spec_path, tmp_path, reading,
                                                          settle, message):
    text = SETTLING.replace("READING", reading)
    if settle:
        text = text.replace("  deal_more: four\n", settle)
    path = tmp_path / "four.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        Spec(path)
    assert message in err.value.message and err.value.pos.line == 4
    assert "did you mean" in (err.value.hint or "")


def test_settle_needs_a_base(tmp_path):
    path = tmp_path / "alone.yaml"
    path.write_text(SPEC + "settle:\n  deal_more: four\n")
    with pytest.raises(SpecError, match="'settle:' needs 'extends:'"):
        Spec(path)
