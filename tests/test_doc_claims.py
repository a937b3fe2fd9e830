"""Claims of the documentation that no example checks: the complete `others` game of
docs/language.md section 8 is the one tests/test_visibility_others.py tests, and its sample
observation is what the engine gives; a table's bare key is an enum value, another key is
quoted (section 1.7); `observation(p, legal_actions=False)` leaves out the legal actions
only (section 8); a list variable without max_length is in the observation tensor by its
length only, with max_length item by item (docs/ecosystem.md, the observation tensor)."""

from __future__ import annotations

import ast
import json
import re

import pytest
import yaml

from tabula_rules.adapters.observe import Encoder
from tabula_rules.errors import SpecError
from tabula_rules.spec import Spec, load_game

from conftest import ROOT

LANGUAGE = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")


def yaml_block(phrase: str) -> str:
    (block,) = [b for b in re.findall(r"^```yaml\n(.*?)^```", LANGUAGE, re.S | re.M)
                if phrase in b]
    return block


def facing_out_of_the_test() -> str:
    """FACING_OUT of tests/test_visibility_others.py, read (a test file is not imported)."""
    tree = ast.parse((ROOT / "tests" / "test_visibility_others.py").read_text())
    (value,) = [node.value for node in tree.body if isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == ["FACING_OUT"]]
    return ast.literal_eval(value)


def test_the_others_game_of_section_8_is_the_tested_one_and_observes_as_shown(tmp_path):
    block = yaml_block("id: facing_out")
    assert yaml.safe_load(block) == yaml.safe_load(facing_out_of_the_test())
    path = tmp_path / "facing_out.yaml"
    path.write_text(block, encoding="utf-8")
    st = load_game(path, players=3).new_state(seed=1)
    assert "With three players and seed 1" in LANGUAGE
    shown = LANGUAGE.split("player 0's observation is\n\n", 1)[1].split("\n\n", 1)[0]
    assert json.loads(shown) == st.observation(0)
    seen_by_1 = st.observation(1)
    assert (f'player 1\'s shows `"hand": {json.dumps(seen_by_1["zones"]["hand"])}`\nand '
            f'`"hints": {json.dumps(seen_by_1["player_variables"]["hints"])}`') in LANGUAGE


TABLES = """\
game: {id: tables, name: Tables, source: none, players: {min: 2, max: 2}}
components:
  card: {count: 1, zone: deck}
zones:
  deck: {kind: stack, visibility: public}
  laid: {kind: stack, visibility: public}
SECTIONS
play:
  - id: turns
    turns: {first: 0, until: "size(deck) == 0"}
    do:
      - id: take
        choose: c in deck
        do: [move c to laid]
scoring:
  points:
    n: {value: "0"}
"""


def test_a_bare_table_key_is_an_enum_value_and_another_key_is_quoted(tmp_path):
    block = yaml_block("bank['white'] -= 1")
    doc = yaml.safe_load(block)
    sections = yaml.safe_dump({k: doc[k] for k in ("enums", "variables", "setup")},
                              sort_keys=False)
    path = tmp_path / "tables.yaml"
    path.write_text(TABLES.replace("SECTIONS", sections), encoding="utf-8")
    obs = load_game(path, players=2).new_state(seed=1).observation(0)
    assert obs["variables"]["bank[white]"] == 2
    assert obs["player_variables"]["prey[hare]"] == {"0": 2, "1": 2}
    path.write_text(path.read_text().replace("bank['white']", "bank[white]"))
    with pytest.raises(SpecError, match="unknown name 'white'"):
        load_game(path, players=2)


def test_an_observation_without_its_legal_actions(tmp_path):
    path = tmp_path / "facing_out.yaml"
    path.write_text(yaml_block("id: facing_out"), encoding="utf-8")
    st = load_game(path, players=3).new_state(seed=1)
    full, bare = st.observation(0), st.observation(0, legal_actions=False)
    assert full["legal_actions"] == ["play card 1", "play card 2"]
    assert "legal_actions" not in bare and bare == {k: v for k, v in full.items()
                                                    if k != "legal_actions"}
    assert st.observation(1, legal_actions=False) == st.observation(1)   # not to choose


LISTS = """\
game: {id: lists, name: Lists, source: none, players: {min: 2, max: 2}}
components:
  card: {count: 3, zone: deck}
zones:
  deck: {kind: stack, visibility: public}
  laid: {kind: stack, visibility: public}
variables:
  seen: VARIABLE
play:
  - id: turns
    turns: {first: 0, until: "size(deck) == 0"}
    do:
      - id: play
        choose: c in deck
        do: [move c to laid]
scoring:
  points:
    n: {value: "0"}
"""


@pytest.mark.parametrize("variable, items_encoded, warned", [
    ("{value: [], type: list of int, max_length: 3}", True, False),
    ("{value: [], type: list of int}", False, True),
    ("{value: [0, 0]}", False, True),             # a list by its initial value alone
    ("{value: [0, 0], max_length: 3}", True, False),
])
def test_a_list_variable_is_encoded_item_by_item_only_within_its_max_length(
        tmp_path, variable, items_encoded, warned):
    path = tmp_path / "lists.yaml"
    path.write_text(LISTS.replace("VARIABLE", variable), encoding="utf-8")
    game = Spec(path).game(2)
    assert warned == any("has no max_length" in str(w) for w in game.prog.usage.warnings)
    enc = Encoder(game)
    st = game.new_state(seed=1)
    at = game.prog.gvar_names.index("seen")
    tensors, observations = [], []
    for items in ([1, 2], [2, 1]):
        other = st.clone()
        other.gv[at] = items
        out = [0.0] * enc.size
        enc.encode(other, 0, out)
        tensors.append(out)
        observations.append(other.observation(0))
    assert observations[0] != observations[1]
    assert (tensors[0] != tensors[1]) == items_encoded


def test_max_length_needs_a_list(tmp_path):
    path = tmp_path / "lists.yaml"
    path.write_text(LISTS.replace("VARIABLE", "{value: 0, max_length: 3}"))
    with pytest.raises(SpecError, match="max_length bounds a list variable, and 'seen' is "
                                        "not one"):
        Spec(path).game(2)
