"""`max_length:` of a list variable (issue 25, 3): the bound observation tensors encode a
list within. Tested apart from any game: a longer list assigned is a located rule error,
a list within it is stored as it is; the bound may be computed from options; misuse is a
located spec error; a list variable without it is a validate warning; scenarios refuse a
longer list."""

from __future__ import annotations

import pytest

from tabula_rules.errors import RuleError, SpecError
from tabula_rules.spec import load_spec

SPEC = """\
game: {id: bounded, name: Bounded, source: none.txt, players: {min: 2, max: 2}}
options:
  most: {default: 3, choices: [2, 3]}
zones:
  deck: {kind: stack}
components:
  card: {for_each: {n: "range(1, 5)"}, zone: deck, name: "c{n}"}
variables:
  taken: {value: [], type: list of piece, max_length: MAXLEN, per_player: true}
play:
  - id: take
    choose: k in range(1, 4)
    label: "take {k}"
    do:
      - current.taken = list(deck)[0:k]
scoring:
  points:
    n: {value: "size(player.taken)"}
"""


def spec(tmp_path, maxlen="3", text=SPEC):
    path = tmp_path / "bounded.yaml"
    path.write_text(text.replace("MAXLEN", maxlen))
    return load_spec(str(path))


def played(game, k):
    st = game.new_state(seed=1)
    st.apply_string(f"take {k}")
    return st


def test_a_list_within_its_bound_is_stored(tmp_path):
    game = spec(tmp_path).game(players=2)
    assert game.prog.list_bounds == {"taken": 3}
    st = played(game, 3)
    assert [game.prog.piece_names[p] for p in st.pv[0][0]] == ["c1", "c2", "c3"]


def test_a_longer_list_is_a_located_rule_error(tmp_path):
    game = spec(tmp_path, "2").game(players=2)
    played(game, 2)
    with pytest.raises(RuleError) as e:
        played(game, 3)
    text = str(e.value)
    assert "'taken' holds at most 2 items (its max_length); this list has 3" in text
    assert ":15:" in text                       # the assignment's line


def test_the_bound_may_be_computed_from_options(tmp_path):
    s = spec(tmp_path, '"option.most"')
    assert s.game(players=2, options={"most": 2}).prog.list_bounds == {"taken": 2}
    assert s.game(players=2).prog.list_bounds == {"taken": 3}


@pytest.mark.parametrize("maxlen, text, line", [
    ("0", "less than the minimum of 1", 9),
    ('"1 / 2"', "max_length must be a whole number from 1 to 10,000", 9),
    ("100000", "max_length must be a whole number from 1 to 10,000", 9),
])
def test_a_bad_bound_is_a_located_error(tmp_path, maxlen, text, line):
    with pytest.raises(SpecError) as e:
        spec(tmp_path, maxlen).validate()
    assert text in str(e.value) and f":{line}:" in str(e.value)


def test_a_bound_on_what_is_not_a_list_and_a_start_beyond_it(tmp_path):
    with pytest.raises(SpecError, match="max_length bounds a list variable, and 'taken' "
                                        "is not one"):
        spec(tmp_path, text=SPEC.replace("type: list of piece", "type: piece")
             .replace("value: []", "value: null")).validate()
    with pytest.raises(SpecError, match="starts with 3 items, beyond its max_length 2"):
        spec(tmp_path, "2", SPEC.replace("type: list of piece", "type: list of int")
             .replace("value: []", "value: [1, 2, 3]")).validate()


def test_a_table_takes_no_bound_and_its_declared_type_reaches_the_tensor(tmp_path):
    """max_length on a table variable is a located error (it was accepted and ignored);
    a table's declared type is its entries' (a table of pieces is encoded one-hot in the
    tensor, as a piece variable is, not as a raw piece number); an entry that does not
    fit it, or an unknown type, is a located error."""
    from tabula_rules.adapters.observe import Encoder
    table = "  who: {value: {red: null, blue: null}, type: piece%s}\n"
    with pytest.raises(SpecError, match="max_length bounds a list variable, and 'who' is "
                                        "a table"):
        spec(tmp_path, text=SPEC.replace("variables:\n", "variables:\n" + table
                                         % ", max_length: 2")).validate()
    game = spec(tmp_path, text=SPEC.replace("variables:\n", "variables:\n" + table % ""))\
        .game(players=2)
    part = next(p for p in Encoder(game).parts if "who[red]" in p.name)
    assert "one-hot" in part.meaning and part.size == 1 + len(game.prog.piece_names), part
    with pytest.raises(SpecError, match="declared a piece, but its entry red starts as"):
        spec(tmp_path, text=SPEC.replace("variables:\n", "variables:\n" + (
            table % "").replace("red: null", "red: true"))).validate()
    with pytest.raises(SpecError, match="unknown type 'peice'"):
        spec(tmp_path, text=SPEC.replace("variables:\n", "variables:\n" + (
            table % "").replace("type: piece", "type: peice"))).validate()


def test_a_variable_that_starts_as_a_list_is_a_list_variable(tmp_path):
    """A variable with no type: that starts as a list ([], [0, 0]) is a list variable as
    `type: list of T` is: it takes max_length (refused before: "is not one"), and the
    tensor then carries its items; without one, validate warns (it did not)."""
    from tabula_rules.adapters.observe import Encoder
    text = SPEC.replace("type: list of piece, max_length: MAXLEN, per_player: true",
                        "per_player: true")
    bounded = text.replace("value: []", "value: [], max_length: 3")
    game = spec(tmp_path, text=bounded).game(players=2)
    assert game.prog.list_bounds == {"taken": 3}
    part = next(p for p in Encoder(game).parts if p.name == "player variable taken")
    assert part.size > 2 and "3 items" in part.meaning, part
    said = [str(w) for g in spec(tmp_path, text=text).validate() for w in g.prog.usage.warnings]
    assert any("list variable 'taken' has no max_length" in w for w in said), said


def test_a_list_without_a_bound_is_a_validate_warning(tmp_path):
    unbounded = SPEC.replace(", max_length: MAXLEN", "")
    games = spec(tmp_path, text=unbounded).validate()
    said = [str(w) for g in games for w in g.prog.usage.warnings]
    assert any("list variable 'taken' has no max_length" in w for w in said)
    games = spec(tmp_path).validate()
    assert not [w for g in games for w in g.prog.usage.warnings if "max_length" in str(w)]


def test_a_scenario_refuses_a_longer_list(tmp_path):
    from tabula_rules.tools.scenario import run_file
    spec(tmp_path, "2")
    path = tmp_path / "long.yaml"
    path.write_text("spec: bounded.yaml\n"
                    "scenarios:\n"
                    "  - id: too_long\n"
                    "    given:\n"
                    "      variables: {taken: {0: [c1, c2, c3]}}\n"
                    "    expect: {variables: {taken: {0: [c1, c2, c3]}}}\n")
    (r,) = run_file(path)
    assert not r.passed and "3 items, beyond the variable's max_length 2" in r.message
    assert r.pos.line == 5
