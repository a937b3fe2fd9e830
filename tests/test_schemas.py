"""The JSON Schemas of spec files and scenario files (schemas/*.schema.json).

Independent of the interpreter package: only PyYAML and jsonschema.
"""

import json
import re
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
MEDANG = ROOT / "specs" / "medang" / "medang.yaml"
SCHEMA_LINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)")


def load_yaml_fast(text: str):
    """YAML as yaml.safe_load reads it, by libyaml when PyYAML has it (several times
    faster: this file reads every shipped spec and scenario file)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_schema(name):
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def as_json(node):
    """The YAML tree as an editor sees it: JSON, where mapping keys are strings."""
    if isinstance(node, dict):
        return {k if isinstance(k, str) else json.dumps(k): as_json(v) for k, v in node.items()}
    if isinstance(node, list):
        return [as_json(v) for v in node]
    if isinstance(node, (str, int, float, bool)) or node is None:
        return node
    return str(node)  # dates and the like


def errors(schema_name, document):
    validator = Draft202012Validator(load_schema(schema_name))
    return list(validator.iter_errors(as_json(document)))


def messages(schema_name, document):
    return [e.message for e in errors(schema_name, document)]


def schema_of(path):
    """The schema file named by a YAML file's `# yaml-language-server: $schema=` line."""
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        match = SCHEMA_LINE.match(line)
        if match:
            return (path.parent / match.group(1)).resolve()
    return None


def yaml_files_using(schema_name):
    target = (SCHEMAS / f"{schema_name}.schema.json").resolve()
    found = []
    for folder in ("specs", "examples"):
        for path in sorted((ROOT / folder).rglob("*.y*ml")):
            if schema_of(path) == target:
                found.append(path)
    return found


@pytest.fixture
def medang():
    return load_yaml_fast(MEDANG.read_text(encoding="utf-8"))


# A small spec with every section, shaped like Medang; the broken variants below mutate it
# so that they do not depend on the layout of specs/medang/medang.yaml.
MINI = """
game: {id: mini, name: Mini, source: mini.txt, players: {min: 2, max: 4}, max_steps: 1000}
options:
  board: {default: small, choices: [small, large], players: {large: {min: 3, max: 4}}}
enums:
  colour: [red, blue]
  trade: [craftsman, leader]
data:
  hand_size: {source: mini.txt "deal 4", value: 4}
  mix: {assumed: not printed, value: {1: 3, 2: 1}}
components:
  tile:
    name: "{colour}-{value}"
    for_each: {colour: values(colour), value: keys(mix)}
    count: mix[value]
    zone: pile
zones:
  pile: {kind: stack, visibility: count}
  box: {kind: set}
  hand: {kind: set, per_player: true, visibility: owner}
variables:
  start_player: {value: 0}
functions:
  colour_of: {params: [p], value: first(p.hand).colour}
setup:
  - id: setup.deal
    for: p in players
    do:
      - choose: t in p.hand
        player: p
        label: "discard {t}"
        up_to: hand_size
        done: keep the rest
        do:
          - move t to box
play:
  - id: turn
    turns: {first: start_player}
    do:
      - call place(top(pile))
      - call take_tile
rules:
  place:
    params: [t]
    do:
      - move t to box
      - id: game_end
        if: size(pile) == 0
        then:
          - end game
  take_tile:
    optional: pass
    choose_one:
      - choose: t in box
        label: "take {t}"
        do:
          - move t to current.hand
      - label: take the top of the pile
        if: size(pile) > 0
        do:
          - move top(pile) to current.hand
scoring:
  points:
    tiles: {value: size(player.hand)}
  tiebreak:
    - {id: first, value: "0"}
"""


@pytest.fixture
def mini():
    return load_yaml_fast(MINI)


SCENARIOS = """
spec: medang.yaml
description: Rulebook examples.
scenarios:
  - id: general.removes_adjacent
    source: medang.txt "Remove 1 tile of another dynasty that is adjacent to the general"
    players: 2
    options: {temple: kalasan}
    seed: 7
    given:
      start: play
      current: 0
      zones:
        temple: [[samara-craftsman], [], [rakai-general]]
        hand: {0: [samara-general], "1": []}
        market: [rakai-monk, samara-leader]
        pile: []
      variables:
        start_player: 1
        bonus: {0: 3, 1: 4}
    do:
      - play samara-general on column 2
      - {action: "general: remove samara-craftsman (column 1, level 1)", player: 0}
      - {action: "player 1 starts", player: chance}
    expect:
      legal: [take rakai-monk from the market, take the top of the pile]
      legal_includes: [take the top of the pile]
      legal_excludes: [skip the general]
      zones: {box: [samara-craftsman], hand: {1: []}}
      sizes: {pile: 0, hand: {0: 1, 1: 0}}
      variables: {start_player: 1}
      scores: [3, 4]
      points: {rows: [1, 2], columns: [2, 2]}
      winners: [1]
      current: terminal
      terminal: true
  - id: illegal-column
    do: [play samara-monk on column 9]
    expect: {error: not a legal action, current: chance}
"""


@pytest.fixture
def scenarios():
    return load_yaml_fast(SCENARIOS)


# ---- the schemas themselves ---------------------------------------------------------

@pytest.mark.parametrize("name", ["spec", "scenario"])
def test_schema_is_valid_draft_2020_12(name):
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{name}.schema.json")


def property_schemas(node, path=()):
    if isinstance(node, dict):
        for key, value in node.get("properties", {}).items():
            yield path + ("properties", key), value
        for key, value in node.items():
            yield from property_schemas(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from property_schemas(value, path + (index,))


@pytest.mark.parametrize("name", ["spec", "scenario"])
def test_every_property_has_title_and_description(name):
    missing = ["/".join(map(str, path)) for path, prop in property_schemas(load_schema(name))
               if not (prop.get("title") and prop.get("description"))]
    assert missing == []


def test_rule_keys_are_step_keys_plus_params():
    defs = load_schema("spec")["$defs"]
    step_keys = set(defs["step_object"]["properties"])
    assert set(defs["rule"]["properties"]) == step_keys | {"params"}
    assert defs["rule"]["allOf"] == defs["step_object"]["allOf"]


def test_step_shapes_list_known_keys():
    defs = load_schema("spec")["$defs"]
    step_keys = list(defs["step_object"]["properties"])
    shapes = [name for name in defs if name.startswith("shape_")]
    assert len(shapes) == len(defs["step_object"]["allOf"]) == 9
    for name in shapes:
        names = defs[name]["propertyNames"]
        assert names["if"]["enum"] == step_keys, name
        assert set(names["then"]["enum"]) <= set(step_keys), name
        assert set(defs[name]["required"]) <= set(names["then"]["enum"]), name


def test_yaml_schema_lines_point_at_existing_files():
    for folder in ("specs", "examples"):
        for path in (ROOT / folder).rglob("*.y*ml"):
            target = schema_of(path)
            assert target is None or target.is_file(), f"{path}: no schema at {target}"


# ---- spec files ---------------------------------------------------------------------

def test_medang_validates(medang):
    assert messages("spec", medang) == []


def test_medang_validates_with_raw_yaml_keys(medang):
    # Without the string conversion (integer keys in data tables): still valid.
    validator = Draft202012Validator(load_schema("spec"))
    assert [e.message for e in validator.iter_errors(medang)] == []


@pytest.mark.parametrize("path", yaml_files_using("spec"), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_spec_validates(path):
    assert messages("spec", load_yaml_fast(path.read_text(encoding="utf-8"))) == []


def test_mini_spec_validates(mini):
    assert messages("spec", mini) == []


def test_unknown_top_level_key_fails(mini):
    mini["rulez"] = {}
    assert any("'rulez' was unexpected" in m for m in messages("spec", mini))


def test_misspelt_step_key_fails(mini):
    step = mini["rules"]["place"]["do"][1]
    step["thne"] = step.pop("then")
    found = errors("spec", mini)
    assert {tuple(e.absolute_path) for e in found} == {("rules", "place", "do", 1)}
    assert any("'thne' was unexpected" in e.message for e in found)
    assert any("'then' is a required property" in e.message for e in found)


def test_misspelt_key_in_nested_step_fails(mini):
    step = mini["setup"][0]["do"][0]          # the choice inside a for
    step["lable"] = step.pop("label")
    found = errors("spec", mini)
    assert [list(e.absolute_path) for e in found] == [["setup", 0, "do", 0]]
    assert "'lable' was unexpected" in found[0].message


def test_wrong_zone_kind_fails(mini):
    mini["zones"]["pile"]["kind"] = "stak"
    found = errors("spec", mini)
    assert [list(e.absolute_path) for e in found] == [["zones", "pile", "kind"]]
    assert "'stak' is not one of" in found[0].message


def test_data_entry_without_value_fails(mini):
    del mini["data"]["hand_size"]["value"]
    assert "'value' is a required property" in messages("spec", mini)


def test_bare_data_value_fails(mini):
    mini["data"]["hand_size"] = 4
    assert messages("spec", mini) != []


@pytest.mark.parametrize("mutate, expected", [
    # two shapes in one step: the key of the other shape is named
    (lambda s: s["rules"]["place"]["do"][1].update({"for": "p in players"}), "'for' is not one of"),
    # a key of another shape: `do` on an if step
    (lambda s: s["rules"]["place"]["do"][1].update({"do": []}), "'do' is not one of"),
    # a mapping with common keys only has no shape
    (lambda s: s["play"].append({"id": "orphan", "source": "x"}), "'do' is a required property"),
    # params belong to rules, not to nested steps
    (lambda s: s["rules"]["place"]["do"][1].update({"params": ["x"]}), "'params' was unexpected"),
    # a block is a list, not a single statement
    (lambda s: s["play"][0].update({"do": "call take_tile"}), "is not of type 'array'"),
    (lambda s: s["play"].append(5), "is not of type 'string', 'object'"),
    (lambda s: s["rules"]["take_tile"]["choose_one"][1].update({"lable": "x"}), "'lable'"),
    (lambda s: s["rules"]["take_tile"].update({"label": "x"}), "'label' is not one of"),
    (lambda s: s["play"][0]["turns"].update({"untill": "x"}), "'untill' was unexpected"),
    (lambda s: s["rules"]["place"]["do"][1].update({"id": "game end"}), "does not match"),
    (lambda s: s["zones"].update({"_secret": {"kind": "set"}}), "does not match"),
    (lambda s: s["zones"]["hand"].update({"visibility": "private"}), "'private' is not one of"),
    (lambda s: s["zones"]["hand"].update({"per_player": "yes"}), "is not of type 'boolean'"),
    (lambda s: s["options"]["board"].pop("default"), "'default' is a required property"),
    (lambda s: s["options"]["board"].update({"choice": []}), "'choice' was unexpected"),
    (lambda s: s["enums"]["trade"].append("trade tile"), "does not match"),
    (lambda s: s["components"]["tile"].update({"count": -1}), "less than the minimum"),
    (lambda s: s["variables"]["start_player"].pop("value"), "'value' is a required property"),
    (lambda s: s["functions"]["colour_of"].pop("value"), "'value' is a required property"),
    (lambda s: s["scoring"]["tiebreak"][0].pop("id"), "'id' is a required property"),
    (lambda s: s["scoring"].update({"point": {}}), "'point' was unexpected"),
    (lambda s: s["game"].update({"players": {"min": 2}}), "'max' is a required property"),
    (lambda s: s["game"].pop("source"), "'source' is a required property"),
    (lambda s: s.pop("game"), "'game' is a required property"),
    (lambda s: s.pop("play"), "'play' is a required property"),
])
def test_broken_spec_fails(mini, mutate, expected):
    mutate(mini)
    found = messages("spec", mini)
    assert any(expected in m for m in found), found


def test_statement_cut_by_a_flow_list_comma_fails():
    # YAML splits a flow list at every comma, even inside parentheses.
    spec = load_yaml_fast(
        "game: {id: g, name: G, source: g.txt, players: {min: 1, max: 2}}\n"
        "play:\n"
        "  - do: [move top(pile, 2) to hand]\n")
    assert spec["play"][0]["do"] == ["move top(pile", "2) to hand"]
    found = errors("spec", spec)
    assert [list(e.absolute_path) for e in found] == [["play", 0, "do", 0], ["play", 0, "do", 1]]


@pytest.mark.parametrize("text", [
    "x = f(g(h(i(j(k([1, 2]))))))",
    "move top(pile, hand_size - size(p.hand)) to p.hand",
    "call take_tile",
    "end game",
])
def test_balanced_statements_pass(text):
    spec = {"game": {"id": "g", "name": "G", "source": "g.txt", "players": {"min": 1, "max": 2}},
            "play": [text]}
    assert messages("spec", spec) == []


def test_variant_may_be_partial():
    variant = {"extends": "medang.yaml", "game": {"id": "medang_short"},
               "data": {"hand_size": {"value": 3, "ruling": "A shorter game."}}}
    assert messages("spec", variant) == []


def test_every_step_shape_is_accepted():
    block = [
        "move top(pile) to current.hand",
        {"do": ["shuffle pile"]},
        {"if": "size(pile) > 0", "then": ["shuffle pile"], "else": ["end game"]},
        {"for": "p in players", "do": ["shuffle p.hand"]},
        {"repeat": 3, "do": ["shuffle pile"]},
        {"repeat": "hand_size", "do": ["shuffle pile"]},
        {"while": "size(pile) > 0", "max": 100, "do": ["move top(pile) to box"]},
        {"turns": {"first": "0", "until": "full(temple)"}, "do": ["call take_tile()"]},
        {"match": "t.value", "cases": {1: ["shuffle pile"], "leader": []}, "else": []},
        {"choose": "t in current.hand", "do": ["move t to box"], "label": "drop {t}",
         "distinct": True, "optional": "pass", "player": "current", "up_to": 2,
         "done": "stop", "else": ["end game"]},
        {"id": "pick", "source": "x.txt \"pick one\"", "ruling": "r", "description": "d",
         "choose_one": [{"label": "a", "if": "true", "do": []},
                        {"choose": "m in market", "distinct": True, "label": "take {m}",
                         "do": ["move m to current.hand"]}],
         "optional": "skip", "player": "current", "else": []},
    ]
    spec = {"game": {"id": "g", "name": "G", "source": "g.txt", "players": {"min": 1, "max": 4}},
            "play": block,
            "rules": {"take_tile": {"params": [], "do": ["shuffle pile"]},
                      "turn.end": {"do": []}}}
    assert messages("spec", spec) == []


def test_zone_layouts_are_accepted():
    zones = {
        "track": {"kind": "track", "size": 20, "visibility": "public"},
        "board": {"kind": "grid", "width": 12, "height": "board_height", "visibility": "public"},
        "temple": {"kind": "columns", "capacities": [1, 2, 3]},
        "tower": {"kind": "columns", "size": 4, "capacity": "tower_height"},
        "deck": {"kind": "stack", "visibility": "hidden"},
    }
    spec = {"game": {"id": "g", "name": "G", "source": "g.txt", "players": {"min": 1, "max": 4}},
            "zones": zones, "play": []}
    assert messages("spec", spec) == []


# ---- scenario files -----------------------------------------------------------------

def test_scenario_file_validates(scenarios):
    assert messages("scenario", scenarios) == []


@pytest.mark.parametrize("path", yaml_files_using("scenario"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_scenario_file_validates(path):
    assert messages("scenario", load_yaml_fast(path.read_text(encoding="utf-8"))) == []


def test_scenario_without_id_fails(scenarios):
    del scenarios["scenarios"][1]["id"]
    found = errors("scenario", scenarios)
    assert [list(e.absolute_path) for e in found] == [["scenarios", 1]]
    assert found[0].message == "'id' is a required property"


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d.pop("spec"), "'spec' is a required property"),
    (lambda d: d.update({"scenarios": []}), "[]"),  # "should be non-empty" / "is too short"
    (lambda d: d["scenarios"][0].update({"expects": {}}), "'expects' was unexpected"),
    (lambda d: d["scenarios"][0]["expect"].update({"curent": 1}), "'curent' was unexpected"),
    (lambda d: d["scenarios"][0]["given"].update({"start": "middle"}), "'middle' is not one of"),
    (lambda d: d["scenarios"][0]["given"]["zones"].update({"hand": {"p0": []}}), "does not match"),
    (lambda d: d["scenarios"][0]["given"]["zones"].update({"temple": [["a"], "b"]}),
     "is not of type 'string'"),
    (lambda d: d["scenarios"][0]["expect"].update({"current": "nobody"}), "is not one of"),
    # a score is an integer or a fraction written "7/3": the text "3" is neither
    (lambda d: d["scenarios"][0]["expect"].update({"scores": ["3"]}), "'3' does not match"),
    (lambda d: d["scenarios"][0]["expect"].update({"scores": [1.5]}), "is not of type"),
    (lambda d: d["scenarios"][0]["do"].append({"action": "x", "who": 1}), "'who' was unexpected"),
    (lambda d: d["scenarios"][0]["do"].append({"player": 1}), "'action' is a required property"),
    (lambda d: d["scenarios"][0].update({"players": 0}), "less than the minimum"),
])
def test_broken_scenario_fails(scenarios, mutate, expected):
    mutate(scenarios)
    found = messages("scenario", scenarios)
    assert any(expected in m for m in found), found
