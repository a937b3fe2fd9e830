"""Pieces with changeable attributes (components' `changeable:`), apart from any game:
assignment and reads, names and kinds that follow the attribute, the fact cache, copies,
saved states, scenarios, and the errors of a spec that changes what it may not."""

import json
import textwrap

import pytest

from tabula_rules import RuleError, SpecError, TabulaError
from tabula_rules.runtime.engine import State
from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.scenario import run_file

# three discs (black until turned) and a stone whose strength is fixed; the discs' name
# shows their colour, not their strength
BASE = """\
game: {id: flip, name: Flip, source: none, players: {min: 2, max: 2}}
enums:
  colour: [black, white]
components:
  disc:
    name: "{colour} disc"
    count: 3
    attributes: {colour: black, strength: 1}
    changeable: [colour, strength]
    zone: box
  stone:
    attributes: {strength: 5}
    zone: pile
zones:
  box: {kind: stack, visibility: public}
  pile: {kind: stack, visibility: public}
  table: {kind: row, visibility: public}
functions:
  whites:
    params: []
    value: count(t for t in table where t.colour == white)
  power:
    params: []
    value: sum(t.strength for t in table)
"""


def write(tmp_path, body: str, name: str = "flip.yaml"):
    path = tmp_path / name
    path.write_text(BASE + textwrap.dedent(body))
    return path


def make(tmp_path, body: str, **kw):
    return Spec(write(tmp_path, body)).game(2, None, **kw)


def table(st):
    return st.observation(0)["zones"]["table"]


def value(st, text):
    return st.prog.compile_expression(text)(st)


# one decision after another, each changing the disc on the table: turn it, strengthen it
TURNS = """
setup:
  - move top(box) to table
play:
  - repeat: 2
    do:
      - choose_one:
          - label: "turn {top(table)}"
            do:
              - top(table).colour = if top(table).colour == black then white else black
          - label: "strengthen {top(table)} ({top(table).strength})"
            do:
              - top(table).strength += 2
          - label: weaken
            do:
              - top(table).strength -= 1
"""


def test_a_change_is_read_back_everywhere(tmp_path):
    """Conditions, functions (cached facts), scoring and the state's tables all see it."""
    game = make(tmp_path, TURNS + """
scoring:
  points:
    power: {value: power()}
""")
    st = game.new_state()
    assert (value(st, "top(table).colour"), value(st, "whites()"), value(st, "power()")) \
        == ("black", 0, 1)
    st.apply_string("turn black disc")
    assert (value(st, "top(table).colour"), value(st, "whites()")) == ("white", 1)
    st.apply_string("strengthen white disc (1)")
    assert value(st, "power()") == 3 and st.scores() == [3, 3]
    # only the piece changed: the other discs keep the component's values
    assert value(st, "count(t for t in box where t.colour == black and t.strength == 1)") == 2


def test_plus_and_minus_assign(tmp_path):
    st = make(tmp_path, TURNS).new_state()
    st.apply_string("strengthen black disc (1)")
    assert value(st, "top(table).strength") == 3
    st.apply_string("weaken")
    assert value(st, "top(table).strength") == 2
    assert st.is_terminal()


def test_names_follow_the_attribute_in_observations_labels_and_run(tmp_path, capsys):
    path = write(tmp_path, TURNS)
    st = Spec(path).game(2).new_state()
    assert table(st) == ["black disc"]
    assert st.legal_action_strings() == ["turn black disc", "strengthen black disc (1)",
                                         "weaken"]
    st.apply_string("turn black disc")
    assert table(st) == ["white disc"]
    assert st.observation(1)["zones"]["box"] == ["black disc", "black disc"]
    assert st.legal_action_strings()[:2] == ["turn white disc", "strengthen white disc (1)"]
    # the command line shows the names of the moment, action by action
    assert main(["run", str(path), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "turn black disc" in out or "strengthen black disc (1)" in out


def test_distinct_kinds_follow_the_attribute(tmp_path):
    """Identical discs are one action; a disc turned white is a kind of its own, and
    turned back it is one of the others again."""
    st = make(tmp_path, """
play:
  - move box to table
  - repeat: 3
    do:
      - choose: t in table
        distinct: true
        label: "{t}"
        do:
          - t.colour = if t.colour == black then white else black
""").new_state()
    assert st.legal_action_strings() == ["black disc"]
    st.apply_string("black disc")
    assert sorted(st.legal_action_strings()) == ["black disc", "white disc"]
    st.apply_string("white disc")
    assert st.legal_action_strings() == ["black disc"]


def test_kinds_merge_when_the_changeable_attributes_meet(tmp_path):
    """Pieces made with different colours are of one kind once they show the same."""
    path = tmp_path / "k.yaml"
    path.write_text(textwrap.dedent("""\
        game: {id: k, name: K, source: none, players: {min: 2, max: 2}}
        enums:
          colour: [black, white]
        components:
          disc:
            name: "{colour}"
            for_each: {colour: values(colour)}
            changeable: [colour]
            zone: box
        zones:
          box: {kind: stack, visibility: public}
        play:
          - choose: t in box
            distinct: true
            do:
              - t.colour = white
          - choose: t in box
            distinct: true
            do: []
        """))
    st = Spec(path).game(2).new_state()
    assert st.legal_action_strings() == ["black", "white"]
    st.apply_string("black")
    assert st.legal_action_strings() == ["white"]


def test_the_fact_cache_is_emptied_by_a_change(tmp_path):
    """whites() walks a zone, so its result is kept in State.facts: the change of an
    attribute, with no move between, must empty it. The same game without the cache
    agrees."""
    body = """
play:
  - move box to table
  - repeat: 3
    do:
      - choose: t in table where t.colour == black
        label: "{whites()}"
        do:
          - t.colour = white
"""
    for cache in (True, False):
        st = make(tmp_path, body, cache=cache).new_state()
        seen = []
        while not st.is_terminal():
            seen.append(st.legal_action_strings()[0])
            if cache:
                assert st.facts, "whites() is a kept fact"
            st.apply(st.legal_actions()[0])
        assert seen == ["0", "1", "2"]


def test_clones_are_independent(tmp_path):
    st = make(tmp_path, TURNS).new_state()
    copy = st.clone()
    copy.apply_string("turn black disc")
    assert table(copy) == ["white disc"] and table(st) == ["black disc"]
    st.apply_string("strengthen black disc (1)")
    assert value(st, "top(table).strength") == 3
    assert value(copy, "top(table).strength") == 1


def test_saved_states_keep_the_attributes(tmp_path):
    game = make(tmp_path, TURNS)
    st = game.new_state()
    st.apply_string("turn black disc")
    saved = st.to_json()
    assert saved["attributes"] == {"colour": ["black", "black", "white", None],
                                   "strength": [1, 1, 1, 5]}
    back = State.from_json(game, json.loads(st.to_json_text()))
    assert back.to_json_text() == st.to_json_text()
    assert table(back) == ["white disc"]
    back.apply_string("strengthen white disc (1)")
    assert value(back, "power()") == 3
    broken = dict(saved)
    del broken["attributes"]
    with pytest.raises(TabulaError):
        State.from_json(game, broken)
    broken["attributes"] = {"colour": ["white"], "strength": [1]}
    with pytest.raises(TabulaError):
        State.from_json(game, broken)


def test_same_seed_same_game(tmp_path):
    game = make(tmp_path, TURNS)
    texts = []
    for _ in range(2):
        st = game.new_state(seed=5)
        st.apply_string("turn black disc")
        st.apply_string("strengthen white disc (1)")
        texts.append(st.to_json_text())
    assert texts[0] == texts[1]


def test_a_game_without_changeable_attributes_saves_as_before(tmp_path):
    path = tmp_path / "plain.yaml"
    path.write_text(BASE.replace("    changeable: [colour, strength]\n", "")
                    + "play:\n  - move top(box) to table\n")
    st = Spec(path).game(2).new_state()
    assert "attributes" not in st.to_json() and st.pa == []


def test_scenarios_give_and_expect_changed_pieces(tmp_path):
    """A name the template can show picks a piece and sets what it shows; a mapping
    gives attributes the name does not show; expectations compare both."""
    write(tmp_path, TURNS)
    scenarios = tmp_path / "s.yaml"
    scenarios.write_text(textwrap.dedent("""\
        spec: flip.yaml
        scenarios:
          - id: by-name
            given:
              zones:
                table: [white disc]
            do: [turn white disc]
            expect:
              zones:
                table: [black disc]
                box: [black disc, black disc]
          - id: with-attributes
            given:
              zones:
                table: [{piece: white disc, attributes: {strength: 4}}]
            do: ["strengthen white disc (4)"]
            expect:
              zones:
                table: [{piece: white disc, attributes: {strength: 6, colour: white}}]
          - id: expected-attributes-differ
            given:
              zones:
                table: [{piece: black disc, attributes: {strength: 4}}]
            expect:
              zones:
                table: [{piece: black disc, attributes: {strength: 5}}]
          - id: no-such-name
            given:
              zones:
                table: [grey disc]
          - id: not-changeable
            given:
              zones:
                table: [{piece: stone, attributes: {strength: 2}}]
          - id: wrong-value
            given:
              zones:
                table: [{piece: black disc, attributes: {colour: grey}}]
          - id: name-and-attributes-disagree
            given:
              zones:
                table: [{piece: white disc, attributes: {colour: black}}]
        """))
    results = {r.id: r for r in run_file(scenarios)}
    assert results["by-name"].passed, results["by-name"].message
    assert results["with-attributes"].passed, results["with-attributes"].message
    assert not results["expected-attributes-differ"].passed
    assert "strength" in results["expected-attributes-differ"].message
    assert "no piece is named 'grey disc'" in results["no-such-name"].message
    assert "declare it changeable" in results["not-changeable"].message
    assert "'grey' is not a value of colour" in results["wrong-value"].message
    assert "named 'black disc', not 'white disc'" in \
        results["name-and-attributes-disagree"].message


# ---- errors ----------------------------------------------------------------------------

def located(capsys, path, line: int, col: int, *words):
    """`tabula validate` exits 1 with one error at path:line:col saying `words`."""
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{line}:{col}: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in err, err
    return err


def at(path, needle: str) -> tuple:
    text = path.read_text()
    i = text.index(needle)
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


def test_an_attribute_no_component_declares_changeable(tmp_path, capsys):
    path = write(tmp_path, """
play:
  - move top(pile) to table
  - top(table).weight = 2
""")
    path.write_text(path.read_text().replace("attributes: {strength: 5}",
                                             "attributes: {strength: 5, weight: 1}"))
    line, col = at(path, "top(table).weight")
    err = located(capsys, path, line, col + len("top(table)."), "cannot change",
                  "changeable: [weight]", "(in stone)")
    assert "declares it changeable" in err


def test_an_attribute_pieces_do_not_have(tmp_path, capsys):
    path = write(tmp_path, "play:\n  - top(box).color = white\n")
    line, col = at(path, "color = white")
    located(capsys, path, line, col, "no attribute 'color'", "did you mean 'colour'")


@pytest.mark.parametrize("statement, token, words", [
    ("top(box).strength = white", "white", ("holds a number, not a colour value",)),
    ("top(box).colour = 3", "3", ("holds a colour value, not a number",)),
    ("top(box).colour += 1", "1", ("holds a colour value",)),
    ("top(box).colour = 'grey'", "'grey'", ("'grey' is not a colour", "black, white")),
])
def test_a_value_of_the_wrong_type(tmp_path, capsys, statement, token, words):
    path = write(tmp_path, f'play:\n  - "{statement}"\n')
    line, col = at(path, statement)
    located(capsys, path, line, col + statement.index(token), *words)


def test_changeable_names_an_attribute_of_the_component(tmp_path, capsys):
    path = write(tmp_path, "play: []\n")
    path.write_text(path.read_text().replace("changeable: [colour, strength]",
                                             "changeable: [colour, strenght]"))
    line, col = at(path, "strenght")
    located(capsys, path, line, col, "'strenght' is not an attribute of this component",
            "did you mean 'strength'")


def test_a_changeable_attribute_holds_a_plain_value(tmp_path, capsys):
    path = write(tmp_path, "play: []\n")
    path.write_text(path.read_text().replace("attributes: {colour: black, strength: 1}",
                                             "attributes: {colour: black, strength: 1}\n"
                                             "    for_each: {shape: \"[[1, 2], [3]]\"}")
                    .replace("changeable: [colour, strength]", "changeable: [shape]"))
    line, col = at(path, "changeable: [shape]")
    located(capsys, path, line, col + len("changeable: "), "'shape' holds a list")


def test_changeable_is_a_list(tmp_path, capsys):
    path = write(tmp_path, "play: []\n")
    path.write_text(path.read_text().replace("changeable: [colour, strength]",
                                             "changeable: colour"))
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "changeable" in err and "Traceback" not in err


def test_a_piece_whose_component_does_not_declare_it(tmp_path, capsys):
    """strength is changeable for discs, not for the stone: a located rule error when
    the game runs, and `tabula validate --play` exits 1 with it."""
    body = """
play:
  - move top(pile) to table
  - top(table).strength += 1
"""
    path = write(tmp_path, body)
    line, col = at(path, "top(table).strength += 1")
    with pytest.raises(RuleError) as caught:
        Spec(path).game(2).new_state()
    err = caught.value
    assert (err.pos.line, err.pos.col) == (line, col)
    assert "'stone' cannot change its strength" in err.message
    assert "changeable: [strength]" in err.hint
    assert main(["validate", str(path)]) == 0          # the compiler cannot know the piece
    capsys.readouterr()
    assert main(["validate", str(path), "--play", "1"]) == 1
    out = capsys.readouterr()
    assert f"{line}:{col}" in out.err and "cannot change its strength" in out.err


def test_a_change_of_none_is_a_located_rule_error(tmp_path):
    path = write(tmp_path, "play:\n  - top(table).colour = white\n")
    with pytest.raises(RuleError) as caught:
        Spec(path).game(2).new_state()
    assert "there is no piece (none)" in caught.value.message
    assert caught.value.pos.line == at(path, "top(table).colour")[0]


def test_only_pieces_and_players_have_attributes_to_assign(tmp_path):
    path = write(tmp_path, "play:\n  - current.colour = white\n")
    with pytest.raises(SpecError) as caught:
        Spec(path).validate()
    assert "cannot assign to 'colour'" in caught.value.message
