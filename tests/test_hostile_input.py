"""Hostile input: files and rule texts built to crash, hang or exhaust the loader and the
parser (issue 14, input side). Each must end in a located SpecError, never a traceback, a
hang or an exhausted memory, and the message must not quote more than a short excerpt."""

from __future__ import annotations

import pytest

from tabula_rules import loader, parser
from tabula_rules.errors import SpecError
from tabula_rules.spec import Spec, load_game
from test_errors import BASE, at, check, edit, raised, write

SCORE = "value: player.score + reds(player)"


def with_score(expr: str) -> str:
    """BASE whose scoring formula is `expr` (quoted for YAML)."""
    return edit(BASE, (SCORE, f"value: '{expr}'"))


def plays(path) -> None:
    Spec(path).validate()
    st = load_game(path, players=2).new_state(seed=0)
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    st.scores()


# ---- 1. rule texts that nest deeply or hold huge numbers ------------------------------------

@pytest.mark.parametrize("expr, token", [
    ("not " * 3000 + "true", None),
    ("+".join(["1"] * 3000), None),
    ("-" * 3000 + "1", None),
    ("player" + ".score" * 3000, None),
    ("max(" * 3000 + "1" + ")" * 3000, None),
    ("if true then 1 else " * 3000 + "1", None),
])
def test_a_deeply_nested_rule_is_a_located_error(tmp_path, expr, token):
    text = with_score(expr)
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).validate())
    assert "nests deeper than" in err.message
    line, _ = at(text, "value: '")
    assert err.pos.line == line and err.pos.col > 1
    assert len(str(err).splitlines()[0]) < 300


@pytest.mark.parametrize("expr", [
    "+".join(["1"] * parser.MAX_RULE_DEPTH),
    "not " * (parser.MAX_RULE_DEPTH - 1) + "false",
    "-" * (parser.MAX_RULE_DEPTH - 1) + "1",
    "if false then 1 else " * (parser.MAX_RULE_DEPTH - 1) + "1",
])
def test_a_rule_nesting_up_to_the_bound_compiles_and_plays(tmp_path, expr):
    plays(write(tmp_path, with_score(expr)))


def test_a_huge_number_in_a_rule_is_a_located_error(tmp_path):
    text = with_score("1 + " + "9" * 5000)
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).validate())
    check(err, path, text, at(text, "9" * 5000), "digits", str(parser.MAX_INT_DIGITS))
    assert len(err.message) < 200


def test_a_number_up_to_the_bound_is_read(tmp_path):
    plays(write(tmp_path, with_score("player.score + " + "9" * parser.MAX_INT_DIGITS)))


def test_a_huge_yaml_number_is_not_quoted_whole(tmp_path):
    text = edit(BASE, (SCORE, "value: " + "9" * 5000))
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).validate())
    assert err.pos.line == at(text, "9" * 5000)[0]
    assert len(err.message) < 300


# ---- 2. mappings mixing key types -------------------------------------------------------------

@pytest.mark.parametrize("value", ["{1: a, x: b}", "{1: a, x: b, null: c}",
                                   "[{2: a, y: 3}, {null: 1, 3: 2}]"])
def test_a_mapping_mixing_key_types_loads_and_hashes(tmp_path, value):
    text = edit(BASE, ("  per_colour:\n", f"  mixed:\n    value: {value}\n  per_colour:\n"))
    path = write(tmp_path, text)
    plays(path)
    assert len(Spec(path).hash) == 16


def test_key_order_of_the_canonical_text_is_kept():
    from tabula_rules.spec import canonical_text
    assert canonical_text({"b": {10: 1, 2: 2}, "a": [{"y": 1, "x": 2}]}) == \
        '{"a":[{"x":2,"y":1}],"b":{"2":2,"10":1}}'
    assert canonical_text({1: "a", "x": "b", None: "c"}) == '{"null":"c","1":"a","x":"b"}'


def test_true_and_1_as_keys_are_a_located_duplicate(tmp_path):
    text = edit(BASE, ("  per_colour:\n", "  mixed:\n    value: {1: a, true: b}\n  per_colour:\n"))
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).validate())
    check(err, path, text, at(text, "true: b"), "duplicate key", "quote the keys")


# ---- 13. control characters are reported where they are ---------------------------------------

@pytest.mark.parametrize("char, name", [("\0", "NUL"), ("\f", "form feed"), ("\x0b", "vertical tab"),
                                        ("\x1b", "escape"), ("\x7f", "delete"),
                                        ("\x01", "U+0001"), ("\uffff", "U+FFFF")])
def test_a_control_character_is_reported_at_its_line_and_column(tmp_path, char, name):
    text = edit(BASE, ("  name: Mini\n", f"  name: Mi{char}ni\n"))
    path = tmp_path / "mini.yaml"
    path.write_text(text, encoding="utf-8", newline="")
    err = raised(lambda: Spec(path).validate())
    assert (err.pos.line, err.pos.col) == at(text, f"Mi{char}ni", char)
    assert name in err.message
    shown = str(err)
    assert "      name: Mi?ni" in shown.split("\n")      # quoted, the character made visible
    assert char not in shown


def test_a_control_character_after_crlf_lines_is_located(tmp_path):
    text = BASE.replace("\n", "\r\n").replace("  name: Mini", "  name: Mini\f")
    path = tmp_path / "mini.yaml"
    path.write_bytes(text.encode())
    err = raised(lambda: Spec(path).validate())
    assert (err.pos.line, err.pos.col) == (3, 13)

