"""Variants: `extends` with override, add and remove by id, on small specs and on the
example variant of Medang."""

import textwrap

import pytest

from tabula_rules import SpecError, load_game
from tabula_rules.spec import Spec

from conftest import ROOT

BASE = """\
game: {id: base, name: Base, source: b.txt, players: {min: 2, max: 2}}
data:
  deal_size: {source: b.txt "three cards", value: 3}
components:
  card: {name: "c{n}", for_each: {n: "range(1, 6)"}, zone: deck}
zones:
  deck: {kind: stack, visibility: count}
  hand: {kind: set, per_player: true, visibility: owner}
variables:
  total: {value: 0}
setup:
  - id: deal
    source: b.txt "deal"
    for: p in players
    do:
      - move top(deck, deal_size) to p.hand
play:
  - id: draw
    do:
      - call draw_one
rules:
  draw_one:
    source: b.txt "draw one"
    do:
      - move top(deck) to current.hand
scoring:
  points:
    cards: {value: size(player.hand)}
  tiebreak:
    - {id: first, value: 0 - player}
"""


def variant(tmp_path, body: str):
    (tmp_path / "base.yaml").write_text(BASE)
    path = tmp_path / "variant.yaml"
    path.write_text("extends: base.yaml\ngame: {id: v, name: V}\n" + textwrap.dedent(body))
    return path


def hands(st):
    z = st.prog.zones["hand"]
    return [len(st.slots[z.slot(p)]) for p in range(2)]


def test_override_data_and_rules(tmp_path):
    path = variant(tmp_path, """
        override:
          data:
            deal_size: {source: v.txt "two cards", value: 2}
          rules:
            draw_one:
              do:
                - move top(deck, 2) to current.hand
    """)
    st = Spec(path).game(2).new_state()
    assert hands(st) == [4, 2]
    assert st.prog.spec_id == "v"


def test_add_and_remove(tmp_path):
    path = variant(tmp_path, """
        add:
          points:
            bonus: {value: "10"}
        remove:
          - tiebreak.first
          - steps.deal
    """)
    st = Spec(path).game(2).new_state()
    assert hands(st) == [1, 0]
    assert st.points() == {"cards": [1, 0], "bonus": [10, 10]}
    assert st.prog.tiebreaks == []


def test_override_a_step_by_id(tmp_path):
    path = variant(tmp_path, """
        override:
          steps:
            deal:
              for: p in players
              do:
                - move top(deck) to p.hand
    """)
    assert hands(Spec(path).game(2).new_state()) == [2, 1]


@pytest.mark.parametrize("body,message,line,col", [
    ("override:\n  data:\n    deal_sise: {value: 2}\n", "override of data 'deal_sise'", 6, 5),
    ("add:\n  data:\n    deal_size: {value: 2}\n", "add of data 'deal_size'", 6, 5),
    ("remove:\n  - rules.draw_two\n", "remove of rules 'draw_two'", 5, 5),
    ("remove:\n  - steps.dael\n", "remove of step 'dael'", 5, 5),
    ("override:\n  steps:\n    dael: {do: []}\n", "override of step 'dael'", 6, 5),
    ("override:\n  rulez:\n    x: {}\n", "'rulez' is not", 5, 3),
    # a step added beside a step of the base (add: steps:)
    ("add:\n  steps:\n    x: {do: []}\n", "say where it goes", 6, 5),
    ("add:\n  steps:\n    x: {after: deal, before: deal, do: []}\n", "say where it goes", 6, 22),
    ("add:\n  steps:\n    x: {after: dael, do: []}\n", "a step the base does not have", 6, 16),
    ("add:\n  steps:\n    deal: {after: draw, do: []}\n", "which the base already has", 6, 5),
    ("add:\n  steps:\n    x: {after: deal, id: y, do: []}\n", "its id is its key", 6, 22),
    ("add:\n  steps:\n    x: [1]\n", "as a mapping", 6, 5),
    ("add:\n  steps:\n    x: {after: draw_one, do: []}\n", "a whole rule is not a step", 6, 16),
])
def test_changes_naming_what_is_not_there_are_located(tmp_path, body, message, line, col):
    path = variant(tmp_path, "\n" + body)
    with pytest.raises(SpecError) as info:
        Spec(path)
    err = info.value
    assert message in err.message + " " + (err.hint or "")
    assert (err.pos.file, err.pos.line, err.pos.col) == (str(path), line, col)


def test_add_a_step_beside_a_step_of_the_base(tmp_path):
    """add: steps: places a new step after: or before: a step of the base, wherever that
    step is (set-up, play or a rule); steps added after the same step keep their order."""
    path = variant(tmp_path, """
        add:
          steps:
            second_deal:
              after: deal
              for: p in players
              do:
                - move top(deck) to p.hand
            third_deal:
              after: deal
              do:
                - total += 2
            count:
              before: draw_step
              do:
                - total += 1
        override:
          data:
            deal_size: {value: 1}
          rules:
            draw_one:
              do:
                - id: draw_step
                  do:
                    - move top(deck) to current.hand
    """)
    spec = Spec(path)
    assert [s["id"] for s in spec.doc["setup"]] == ["deal", "second_deal", "third_deal"]
    assert [s.get("id") for s in spec.doc["rules"]["draw_one"]["do"]] == ["count", "draw_step"]
    st = spec.game(2).new_state()
    # one from the base's deal and one from the second, then player 0's draw
    assert hands(st) == [3, 2] and st.gv[0] == 3


def test_did_you_mean_for_an_override(tmp_path):
    path = variant(tmp_path, "\noverride:\n  rules:\n    draw_once: {do: []}\n")
    with pytest.raises(SpecError) as info:
        Spec(path)
    assert "did you mean 'draw_one'" in info.value.hint


def test_errors_inside_an_override_point_into_the_variant(tmp_path):
    path = variant(tmp_path, """
        override:
          rules:
            draw_one:
              do:
                - move top(deck) to current.hnd
    """)
    with pytest.raises(SpecError) as info:
        Spec(path).game(2)
    assert info.value.pos.file == str(path) and info.value.pos.line == 8


def test_missing_base_and_cycles(tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text("extends: nowhere.yaml\ngame: {id: v}\n")
    with pytest.raises(SpecError) as info:
        Spec(path)
    assert "does not exist" in info.value.message and info.value.pos.line == 1
    path.write_text("extends: v.yaml\ngame: {id: v}\n")
    with pytest.raises(SpecError) as info:
        Spec(path)
    assert "cannot extend itself" in info.value.message


def test_override_without_extends(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(BASE + "override:\n  data: {}\n")
    with pytest.raises(SpecError) as info:
        Spec(path)
    assert "needs 'extends:'" in info.value.message


def test_example_variant_of_medang():
    game = load_game(ROOT / "examples" / "medang-prambanan", players=3)
    assert game.options["temple"] == "prambanan"
    assert game.prog.zones["temple"].caps == [2, 3, 4, 5, 5, 4, 3, 2]
    assert len(game.prog.piece_names) == 70 + 5
    assert [tid for tid, _ in game.prog.tiebreaks] == ["leader_height"]
