"""Bad specs: every problem is a located SpecError, never a Python traceback.

Each case starts from BASE (helpers.py), a small valid spec (not Medang), breaks one thing,
and checks that loading / validating / running it raises a SpecError (RuleError while a
game runs) whose file, line and column point at the offending token, whose message and
hint say something useful, and whose str() quotes the source line with a caret under that
column (helpers.check).

Most cases are rows of a table: an id, the edits to BASE ((old, new) pairs, each `old`
occurring exactly once), where the error is, and what its message and hint say. Expected
positions are computed from the text of the spec, never counted by hand: `where` is a
needle (the error is at its start), (needle, token) (at `token` inside the needle) or a
(line, col) pair; a needle must occur exactly once in the broken spec. Cases of another
shape are tests of their own.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tabula_rules.errors import Pos, RuleError, SpecError
from tabula_rules.lang import loader
from tabula_rules.spec import Spec, load_game

from helpers import (
    BASE,
    assert_refused,
    at,
    check,
    edit,
    located,
    pairs,
    position,
    raised,
    validate_error,
    write,
)

# BASE's function `reds`: the line cases rewrite as a multi-line or block scalar
REDS = "    value: count(t for t in p.hand where t.colour == red)\n"


# ---- the base is valid ----------------------------------------------------------------------

def test_base_spec_is_valid_and_plays(tmp_path):
    path = write(tmp_path, BASE)
    Spec(path).validate()
    for players in (2, 3):
        st = load_game(path, players=players).new_state(seed=0)
        while not st.is_terminal():
            st.apply(st.legal_actions()[0])
        assert len(st.scores()) == players


# ---- YAML syntax and tags -------------------------------------------------------------------

YAML = [
    located("dedented_key", ("  name: Mini\n", " name: Mini\n"),
            (" name: Mini", "name"), "YAML", "indentation"),
    # `   name:` is read as the continuation of `id: mini`; the offending token is `name`
    # (where the indentation goes wrong), not the ':' after it
    located("overindented_key", ("  name: Mini\n", "   name: Mini\n"),
            ("   name: Mini", "name"), "YAML", "indentation"),
    located("step_list_5_spaces", ("      - call place\n", "     - call place\n"),
            ("\n     - call place", "-"), "YAML", "indentation"),
    located("step_list_4_spaces", ("      - call place\n", "    - call place\n"),
            ("\n    - call place", "-"), "YAML", "indentation"),
    located("tab_indentation", ("  name: Mini\n", "\tname: Mini\n"), "\tname: Mini", "YAML"),
    # the offending token is the quote that is never closed, not the end of the file
    located("unclosed_double_quote", ("  name: Mini\n", '  name: "Mini\n'),
            ('name: "Mini', '"'), "YAML", "quot"),
    located("unclosed_single_quote", ("  name: Mini\n", "  name: 'Mini\n"),
            ("name: 'Mini", "'"), "YAML", "quot"),
    # a tag is not honoured, and not silently dropped either: the spec is refused at it
    located("python_name_tag", ("  name: Mini\n", "  name: !!python/name:os.system Mini\n"),
            "!!python", "tag"),
    located("python_object_tag",
            ("  name: Mini\n", "  name: !!python/object/apply:os.getcwd []\n"),
            "!!python", "tag"),
    # YAML 1.1's truth values yes, no, on and off: a variable named off would become the
    # key false, a text Off would print as False; refused where written, any case
    located("off_as_a_variable_name",
            ("  rounds: {value: 0}\n", "  rounds: {value: 0}\n  off: {value: 0}\n"),
            ("  off: {value", "off"), "YAML reads off as the truth value false",
            "quote it ('off')"),
    located("Off_in_a_table_of_texts",
            ("    value: 3\n", "    value: 3\n  names:\n    value: {-2: Off, 5: Home}\n"),
            ("-2: Off", "Off"), "YAML reads Off as the truth value false", "quote it ('Off')"),
    located("yes_as_a_value", ("  name: Mini\n", "  name: yes\n"), ("name: yes", "yes"),
            "YAML reads yes as the truth value true", "or write true"),
    located("on_as_a_key", ("  source: mini.txt\n", "  source: mini.txt\n  on: 1\n"),
            ("  on: 1", "on"), "YAML reads on as the truth value true"),
    # a name YAML reads as another value (a number, null, a truth value): refused at the
    # key, not a KeyError or a sort of mixed keys in the compiler
    located("a_number_as_a_variable_name",
            ("  rounds: {value: 0}\n", "  rounds: {value: 0}\n  1: {value: 0}\n"),
            ("  1: {value", "1"), "YAML reads the key '1' as a number, not as a name",
            "a name is a word"),
    located("null_as_a_variable_name",
            ("  rounds: {value: 0}\n", "  rounds: {value: 0}\n  ~: {value: 0}\n"),
            ("  ~: {value", "~"), "as null, not as a name"),
    located("true_as_a_variable_name",
            ("  rounds: {value: 0}\n", "  rounds: {value: 0}\n  true: {value: 0}\n"),
            ("  true: {value", "true"), "as a truth value, not as a name"),
    # a quote inside a plain value is a character: a slip further down is reported where
    # it is, not at that quote (a plain label holding ", '")
    located("quote_in_a_plain_value_then_a_slip_below",
            (('    label: "put {t} on column {c}"\n', "    label: put {t} on {c}, 'the top\n"),
             ("      - move t to board[c]\n", "      - move t to board[c]: x: y\n")),
            ("board[c]: x: y", "x: y"), "YAML", "indentation"),
]


@pytest.mark.parametrize("edits, where, message, hint, first", YAML)
def test_yaml_error(tmp_path, edits, where, message, hint, first):
    assert_refused(tmp_path, edits, where, message, hint, first)


def test_a_quote_inside_a_block_scalar_is_text(tmp_path):
    """A " in the text of a > block is a character: an error further down is reported
    where it is, not at that quote."""
    text = edit(BASE, ("  name: Mini\n",
                       '  name: Mini\n  description: >-\n    "the Mini game,\n    as they say\n'),
                ("players: {min: 2, max: 3}", "players: {min: 2, max: 3}\n  source: a: b"))
    path, err = validate_error(tmp_path, text)
    assert err.pos.line == at(text, "source: a: b")[0], str(err)
    assert "quot" not in err.message


def test_yaml_unclosed_flow_mapping(tmp_path):
    text = edit(BASE, ("players: {min: 2, max: 3}", "players: {min: 2, max: 3"))
    path, err = validate_error(tmp_path, text)
    line, _ = at(text, "players: {min: 2, max: 3")
    assert err.pos.line in (line, line + 1), str(err)      # where the '}' is missing
    check(err, path, text, (err.pos.line, err.pos.col), "YAML")


def test_empty_file(tmp_path):
    path, err = validate_error(tmp_path, "")
    assert (err.pos.line, err.pos.col) == (1, 1), str(err)
    assert Path(err.pos.file).resolve() == path.resolve()
    assert "empty" in err.message


@pytest.mark.parametrize("text", ["\n\n", "# only a comment\n", "---\n...\n", "~\n"])
def test_file_without_a_document(tmp_path, text):
    path, err = validate_error(tmp_path, text)
    check(err, path, text, (1, 1))
    assert "empty" in err.message or "mapping" in err.message, str(err)


def test_file_over_the_size_limit_is_refused_before_parsing(tmp_path):
    text = BASE + "# " + "x" * (loader.MAX_FILE_BYTES + 10) + "\n"
    path = write(tmp_path, text)
    t0 = time.process_time()               # CPU time: a loaded machine cannot fail it
    err = raised(lambda: Spec(path).validate())
    assert time.process_time() - t0 < 2.0
    check(err, path, text, (1, 1), f"at most {loader.MAX_FILE_BYTES}")


def test_not_utf8(tmp_path):
    path = tmp_path / "mini.yaml"
    path.write_bytes(BASE.encode() + b"# caf\xe9\n")
    err = raised(lambda: Spec(path).validate())
    assert "UTF-8" in err.message, str(err)
    # the offending byte: the last line, after '# caf'
    assert (err.pos.line, err.pos.col) == (BASE.count("\n") + 1, 6), str(err)


def test_top_level_is_not_a_mapping(tmp_path):
    """A list is no spec: refused as one, and (it may be any file) none of it quoted."""
    text = "- game\n- zones\n"
    path, err = validate_error(tmp_path, text)
    assert (err.pos.line, err.pos.col) == (1, 1) and "not a spec" in err.message
    assert "a list, not a mapping" in err.message and "- game" not in str(err)


# ---- defined twice: reported at the second, naming the line of the first --------------------

DEFINED_TWICE = [
    located("key_of_a_block_mapping", ("  name: Mini\n", "  name: Mini\n  name: Maxi\n"),
            "name: Maxi", "duplicate key 'name'", "line {first}", first="name: Mini"),
    located("key_of_a_flow_mapping", ("{min: 2, max: 3}", "{min: 2, min: 3}"),
            "min: 3", "duplicate key 'min'"),
    located("section", ("scoring:\n", "rules:\n  other: {do: [end game]}\n\nscoring:\n"),
            ("rules:\n  other", "rules"), "duplicate key 'rules'", "line {first}",
            first="rules:\n  place:"),
    located("rule_name", ("  gain:\n", "  place:\n    do: [end game]\n\n  gain:\n"),
            ("  place:\n    do: [end game]", "place"), "duplicate key 'place'"),
    located("name_of_two_sections",
            ("  rounds: {value: 0}", "  rounds: {value: 0}\n  bag: {value: 0}"),
            "bag: {value: 0}", "'bag' names both a zone (line {first})", "its own name",
            first="  bag:\n    kind"),
    located("step_id", ("      - if: size(bag) > 0\n",
                        "      - id: turn\n        if: size(bag) > 0\n"),
            ("id: turn\n        if", "turn"), "'turn' is used twice", "line {first}",
            first="  - id: turn\n    turns"),
]


@pytest.mark.parametrize("edits, where, message, hint, first", DEFINED_TWICE)
def test_defined_twice(tmp_path, edits, where, message, hint, first):
    assert_refused(tmp_path, edits, where, message, hint, first)


# ---- YAML bombs and bounds ----------------------------------------------------------------

BOMB = """\
  bomb:
    value:
      a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
      b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
      c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
      d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
      e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
      f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
      g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
      h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
      i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_billion_laughs_is_refused_quickly(tmp_path):
    text = edit(BASE, ("data:\n", "data:\n" + BOMB))
    path = write(tmp_path, text)
    t0 = time.process_time()               # CPU time: a loaded machine cannot fail it
    err = raised(lambda: Spec(path).validate(), seconds=10)
    elapsed = time.process_time() - t0
    assert elapsed < 1.0, f"the alias bomb took {elapsed:.1f} s to refuse"
    first, _ = at(text, "  bomb:")
    assert first <= err.pos.line <= first + BOMB.count("\n"), str(err)
    assert err.pos.col >= 1
    check(err, path, text, (err.pos.line, err.pos.col), "aliases included")


@pytest.mark.parametrize("depth", [
    pytest.param(100, id="first_level_too_deep"),
    pytest.param(5000, id="very_deep_is_a_spec_error_not_a_recursion_error"),
])
def test_deep_nesting_is_refused_at_the_first_level_too_deep(tmp_path, depth):
    value = "[" * depth + "1" + "]" * depth
    text = edit(BASE, ("    value: 3\n", "    value: 3\n  deep:\n    value: " + value + "\n"))
    path, err = validate_error(tmp_path, text)
    # document (0) > data (1) > deep (2) > value list (3): depth 65 is bracket 62 (0-based)
    line, col = at(text, "value: [[", "[")
    check(err, path, text, (line, col + loader.MAX_DEPTH + 1 - 3), "deeper than")


# ---- schema violations ----------------------------------------------------------------------

SCHEMA = [
    located("unknown_top_level_key", ("scoring:\n", "scorng:\n"), "scorng:",
            "unknown key 'scorng'", "did you mean 'scoring'?"),
    located("misspelt_then_in_a_rule",
            ("    then:\n      - current.score", "    thne:\n      - current.score"),
            "thne:", "thne", "did you mean 'then'?"),
    located("misspelt_then_in_a_step",
            ("        then:\n          - move top(bag)",
             "        thne:\n          - move top(bag)"),
            "thne:", "thne", "did you mean 'then'?"),
    located("misspelt_key_in_a_setup_step",
            ("    do:\n      - move top(bag, option", "    doo:\n      - move top(bag, option"),
            "doo:", "doo", "did you mean 'do'?"),
    located("bad_enum_value", ("  bag:\n    kind: stack", "  bag:\n    kind: stak"),
            ("kind: stak", "stak"), "'stak'", "did you mean 'stack'?"),
    located("missing_game", (BASE[:BASE.index("options:")], ""), (1, 1),
            "'game' is a required property"),
    # the zone that lacks its kind: its name
    located("missing_kind_of_a_zone", ("  bag:\n    kind: stack\n", "  bag:\n"),
            ("  bag:\n", "bag"), "'kind' is a required property"),
    located("max_steps_not_an_integer", ("max_steps: 1000", "max_steps: lots"),
            ("max_steps: lots", "lots"), "not of type 'integer'"),
    located("min_players_not_an_integer", ("{min: 2, max: 3}", "{min: two, max: 3}"),
            ("{min: two, max: 3}", "two"), "not of type 'integer'"),
    located("per_player_not_a_boolean",
            ("score: {value: 0, per_player: true}", "score: {value: 0, per_player: often}"),
            ("score: {value: 0, per_player: often}", "often"), "not of type 'boolean'"),
    located("choices_not_a_list", ("    choices: [2, 3]", "    choices: 2"),
            ("    choices: 2", "2"), "not of type 'array'"),
    located("enum_not_a_list", ("  colour: [red, blue]", "  colour: red"),
            ("  colour: red", "red"), "not of type 'array'"),
    located("params_not_a_list", ("    params: [t]", "    params: t"),
            ("    params: t", "t"), "not of type 'array'"),
    located("statement_that_is_a_number", ("      - rounds += 1\n", "      - 42\n"),
            ("- 42", "42")),
    located("bad_name_pattern", ("  colour: [red, blue]", "  colour: [red, light blue]"),
            "light blue", "light blue"),
    located("player_range_inverted", ("{min: 2, max: 3}", "{min: 3, max: 2}"),
            "{min: 3, max: 2}", "max"),
]


@pytest.mark.parametrize("edits, where, message, hint, first", SCHEMA)
def test_schema_error(tmp_path, edits, where, message, hint, first):
    assert_refused(tmp_path, edits, where, message, hint, first)


# ---- grammar errors inside rule text: the column in the file ---------------------------------
# `and + 1` is wrong at '+' (no unary plus); `p..hand` is wrong at the second '.'.

SETUP_MOVE = "      - move top(bag, option.size - 1) to p.hand"
# block scalar styles: folded or literal, stripping or keeping the final line break
STYLES = {">-": "folded_strip", ">": "folded", "|": "literal", "|-": "literal_strip",
          ">+": "folded_keep"}


def in_one_line(name: str, written: str):
    return located(name, (SETUP_MOVE, written), ("p..hand", ".hand"), "unexpected '.'",
                   "a name")


def in_reds(name: str, value: str):
    """`reds` written as `value`, holding `and + 1`."""
    return located(name, (REDS, f"    value: {value}\n"), ("and + 1", "+"), "unexpected '+'")


GRAMMAR = [
    in_one_line("plain_scalar", "      - move top(bag, option.size - 1) to p..hand"),
    in_one_line("single_quoted", "      - 'move top(bag, option.size - 1) to p..hand'"),
    in_one_line("double_quoted", '      - "move top(bag, option.size - 1) to p..hand"'),
    in_one_line("spaces_after_the_dash", "      -   move top(bag, option.size - 1) to p..hand"),
    in_one_line("before_a_comment",
                "      - move top(bag, option.size - 1) to p..hand  # comment"),
    # each escape (\") is two characters in the file, one in the text: the column is the file's
    located("after_escapes_in_double_quotes",
            ("    if: t.colour == red\n", '    if: "t.colour == \\"red\\" and + 1"\n'),
            ("and + 1", "+"), "unexpected '+'"),
    located("after_escapes_in_single_quotes",
            ("    if: t.colour == red\n", "    if: 't.colour == ''red'' and + 1'\n"),
            ("and + 1", "+"), "unexpected '+'"),
    in_reds("multi_line_plain_scalar",
            "count(t for t in p.hand\n      where t.colour == red and + 1)"),
    in_reds("multi_line_double_quoted_first_line",
            '"count(t for t in p.hand and + 1\n      where t.colour == red)"'),
    in_reds("multi_line_double_quoted_second_line",
            '"count(t for t in p.hand\n      where t.colour == red and + 1)"'),
    in_reds("multi_line_single_quoted_first_line",
            "'count(t for t in p.hand and + 1\n      where t.colour == red)'"),
    in_reds("multi_line_single_quoted_second_line",
            "'count(t for t in p.hand\n      where t.colour == red and + 1)'"),
    *[in_reds(f"block_scalar_{name}",
              f"{style}\n      count(t for t in p.hand\n      where t.colour == red and + 1)")
      for style, name in STYLES.items()],
    *[in_reds(f"block_scalar_{STYLES[style]}_after_a_blank_line",
              f"{style}\n      count(t for t in p.hand\n\n      where t.colour == red and + 1)")
      for style in (">-", "|")],
    *[in_reds(f"block_scalar_{STYLES[style]}_with_a_more_indented_line",
              f"{style}\n      count(t for t in p.hand\n"
              "            where t.colour == red and + 1)")
      for style in (">-", "|")],
    in_reds("block_scalar_with_explicit_indentation",
            "|2\n        count(t for t in p.hand\n        where t.colour == red and + 1)"),
    located("block_scalar_statement",
            ("      - move t to board[c]\n", "      - >-\n        move t\n        to board[c]]\n"),
            ("[c]]\n", "]\n"), "unexpected ']'"),
    located("keyword_to_twice",
            ("      - move t to board[c]\n", "      - move t to to board[c]\n"),
            ("to to board", "to board"), "unexpected 'to'"),
    located("unexpected_character", ("      - rounds += 1\n", "      - rounds += 1 ! 2\n"),
            ("1 ! 2", "!"), "'!'"),
    # the caret goes where something is missing: just after the text
    located("unexpected_end_of_rule_text", ("      - rounds += 1\n", "      - rounds +=\n"),
            ("rounds +=\n", "\n"), "end of the text", "expected"),
    located("lists_what_was_expected",
            ("      - move t to board[c]\n", "      - move t board[c]\n"),
            ("t board[c]", "board"), "unexpected 'board'", "'to'"),
    # the field `c +` ends where '}' is: that is where an operand is missing
    located("in_a_label_field",
            ('label: "put {t} on column {c}"', 'label: "put {t} on column {c +}"'),
            ("{c +}", "}"), "end of the text"),
    located("in_a_flow_sequence_item",
            ("      - rounds += 1\n      - call place\n",
             "      - rounds += 1\n      - {do: [call place, rounds += += 1]}\n"),
            ("+= += 1", "+= 1"), "unexpected '+='"),
]


@pytest.mark.parametrize("edits, where, message, hint, first", GRAMMAR)
def test_grammar_error(tmp_path, edits, where, message, hint, first):
    assert_refused(tmp_path, edits, where, message, hint, first)


def test_keyword_used_twice_is_reported_at_the_keyword(tmp_path):
    # `and`, `or`, `to` are keywords: `red and and` is wrong at the second `and`, which is
    # not an unknown name (and `hand` is no help)
    text = edit(BASE, ("    if: t.colour == red\n", "    if: t.colour == red and and\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and and\n", "and\n"), "unexpected 'and'")
    assert "hand" not in err.hint, str(err)


# ---- names, attributes, arity ---------------------------------------------------------------

NAMES = [
    located("unknown_name", (SETUP_MOVE, "      - move top(bagg, option.size - 1) to p.hand"),
            "bagg", "unknown name 'bagg'", "did you mean 'bag'?"),
    located("unknown_name_in_a_block_scalar",
            (REDS, "    value: >-\n      count(t for t in p.hand\n      where t.colour == rde)\n"),
            "rde)", "unknown name 'rde'", "did you mean 'red'?"),
    located("unknown_name_in_a_component_expression",
            ("      colour: values(colour)", "      colour: values(colur)"),
            "colur", "unknown name 'colur'", "did you mean 'colour'?"),
    located("unknown_name_in_a_label_field",
            ('label: "put {t} on column {c}"', 'label: "put {tt} on column {c}"'),
            ("{tt}", "tt"), "unknown name 'tt'"),
    located("unknown_option", ("option.size - 1", "option.sise - 1"),
            "sise", "unknown option 'sise'", "did you mean 'size'?"),
    located("unknown_piece_attribute", ("    if: t.colour == red\n", "    if: t.colr == red\n"),
            "colr", "no attribute 'colr'", "did you mean 'colour'?"),
    located("unknown_player_zone", ("option.size - 1) to p.hand", "option.size - 1) to p.hnd"),
            "hnd", "'hnd'", "did you mean 'hand'?"),
    located("unknown_player_variable",
            ("value: player.score + reds(player)", "value: player.scor + reds(player)"),
            "scor +", "'scor'", "did you mean 'score'?"),
    located("assignment_to_an_unknown_player_variable",
            ("current.score += 1", "current.scor += 1"),
            "scor +=", "'scor'", "did you mean 'score'?"),
    located("assignment_to_an_unknown_variable",
            ("      - rounds += 1\n", "      - round += 1\n"),
            "round +=", "'round'", "did you mean 'rounds'?"),
    located("per_player_zone_without_a_player",
            ("option.size - 1) to p.hand", "option.size - 1) to hand"),
            (") to hand", "hand"), "per-player zone", "p.hand"),
    located("unknown_function", ("      - if: size(bag) > 0", "      - if: sise(bag) > 0"),
            "sise(", "unknown function 'sise'", "did you mean 'size'?"),
    located("arity_of_a_builtin", ("          - move top(bag) to current.hand",
                                   "          - move top(bag, 1, 2) to current.hand"),
            "top(bag, 1, 2)", "top() takes 1 to 2 arguments, not 3"),
    located("arity_of_a_spec_function", ("reds(player)", "reds(player, 1)"),
            "reds(player, 1)", "reds() takes 1 argument, not 2"),
    # the offending token is the rule's name (as for functions), not the word `call`
    located("arity_of_a_rule_call_with_no_arguments",
            ("      - call gain(t)", "      - call gain()"),
            ("call gain()", "gain"), "rule 'gain' takes 1 argument, not 0", "its parameters: t"),
    located("arity_of_a_rule_call_without_parentheses",
            ("      - call gain(t)", "      - call gain"),
            ("call gain", "gain"), "rule 'gain' takes 1 argument, not 0", "its parameters: t"),
    located("arity_of_a_rule_call_with_two_arguments",
            ("      - call gain(t)", "      - call gain(t, t)"),
            ("call gain(t, t)", "gain"), "rule 'gain' takes 1 argument, not 2",
            "its parameters: t"),
    located("call_of_an_undefined_rule", ("      - call place\n", "      - call plac\n"),
            ("call plac", "plac"), "undefined rule 'plac'", "did you mean 'place'?"),
    located("rule_never_called",
            ("  gain:\n", "  unused:\n    do:\n      - rounds += 1\n\n  gain:\n"),
            "unused:", "rule 'unused' is never called", "call it"),
    located("rule_called_only_by_an_uncalled_rule",
            ("  gain:\n", "  orphan:\n    do:\n      - call orphan2\n\n"
                          "  orphan2:\n    do:\n      - rounds += 1\n\n  gain:\n"),
            "orphan:", "rule 'orphan' is never called"),
    located("word_of_the_language_as_a_local",
            ("      - call place\n", "      - let to = 1\n      - call place\n"),
            "to = 1", "is a word of the language", "another name"),
    located("word_of_the_language_as_a_bound_name",
            ("      - call place\n",
             "      - let n = sum(1 for of in players)\n      - call place\n"),
            "of in players", "is a word of the language", "another name"),
    located("word_of_the_language_as_a_variable",
            ("variables:\n", "variables:\n  where: {value: 0}\n"),
            "where: {value", "cannot name a variable"),
]


@pytest.mark.parametrize("edits, where, message, hint, first", NAMES)
def test_name_error(tmp_path, edits, where, message, hint, first):
    assert_refused(tmp_path, edits, where, message, hint, first)


# ---- enums and types ------------------------------------------------------------------------

IF_RED = "    if: t.colour == red\n"
MOVE = "      - move t to board[c]\n"

TYPES = [
    located("enum_compared_with_a_string", (IF_RED, "    if: t.colour == 'rde'\n"),
            ("t.colour == 'rde'", "'rde'"), "'rde' is not a colour", "did you mean"),
    # quoted in YAML: it starts with a quote
    located("enum_compared_with_a_string_first", (IF_RED, "    if: \"'rde' == t.colour\"\n"),
            ("\"'rde' == t.colour\"", "'rde'"), "'rde' is not a colour", "did you mean"),
    located("enum_compared_with_a_double_quoted_string",
            (IF_RED, '    if: t.colour != "bleu"\n'),
            ('t.colour != "bleu"', '"bleu"'), "'bleu' is not a colour", "did you mean"),
    located("enum_value_in_a_list_membership", (IF_RED, "    if: \"'rd' in [t.colour]\"\n"),
            "'rd' in", "'rd' is not a colour", "did you mean 'red'?"),
    located("moving_a_number", (MOVE, "      - move per_colour to board[c]\n"),
            "per_colour to", "cannot move a number"),
    located("moving_to_a_piece", (MOVE, "      - move t to top(bag)\n"),
            "top(bag)\n      - call gain", "cannot move pieces to a piece"),
    located("moving_to_a_zone_of_several_slots", (MOVE, "      - move t to board\n"),
            ("to board\n", "board"), "cannot move pieces to zone 'board'", "slots"),
    located("match_case_that_is_not_a_value_of_the_enum",
            ("    if: t.colour == red\n    then:\n      - current.score += 1\n",
             "    match: t.colour\n    cases:\n      red:\n        - current.score += 1\n"
             "      bleu:\n        - current.score -= 1\n"),
            "bleu:", "'bleu' is not a colour", "did you mean 'blue'?"),
    located("less_than_on_pieces", (IF_RED, "    if: t < top(bag)\n"),
            "t < top(bag)", "'<' compares numbers or the values of an enum, not a piece"),
    located("indexing_a_number", ("      - if: size(bag) > 0", "      - if: per_colour[0] > 0"),
            "per_colour[0]", "a number cannot be indexed"),
    located("arithmetic_on_a_piece", ("      - rounds += 1\n", "      - rounds += top(bag) + 1\n"),
            "top(bag) + 1", "must be a number, not a piece"),
    located("comparing_a_piece_with_a_number", (IF_RED, "    if: t == 3\n"),
            "t == 3", "cannot compare a piece with a number"),
    located("attribute_of_a_number",
            ("      - if: size(bag) > 0", "      - if: per_colour.colour > 0"),
            "colour > 0", "a number has no attribute 'colour'"),
    located("choosing_from_a_number", ("c in open_slots(board)", "c in per_colour"),
            ("c in per_colour", "per_colour"), "cannot choose from a number"),
    located("function_used_as_a_value", ("reds(player)", "reds"),
            "reds\n", "'reds' is a function", "reds("),
    located("recursive_function",
            (REDS, "    value: count(t for t in p.hand where t.colour == red) + reds(p)\n"),
            "reds(p)", "function 'reds' calls itself", "recursive"),
    located("mutually_recursive_functions",
            (REDS, "    value: blues(p)\n  blues:\n    params: [p]\n    value: reds(p) + 1\n"),
            "reds(p) + 1", "function 'reds' calls itself"),
    located("zone_capacity_that_is_not_a_list", ("capacities: [3, 3]", "capacities: per_colour"),
            "per_colour\n    visibility: public", "capacities"),
    located("component_in_an_unknown_zone", ("    zone: bag\n", "    zone: bga\n"),
            "bga", "unknown zone 'bga'", "did you mean 'bag'?"),
    located("component_name_template_with_an_unknown_attribute",
            ('name: "{colour}"', 'name: "{color}"'), ('"{color}"', "color"), "color"),
    # path searches (docs/language.md 10b, "Paths"; more in tests/test_paths.py)
    located("path_from_a_container_of_one_slot",
            ("reds(player)", "(if reaches(c from bag to true where true) then 1 else 0)"),
            ("from bag", "bag"), "a path runs on a board, and zone 'bag' has one slot",
            "kind: grid"),
    located("path_from_a_zone", ("reds(player)", "distance_to(c from board to true where true)"),
            ("from board", "board"), "a path starts from a cell, not zone 'board'",
            "board[i]"),
    located("path_without_a_goal",
            ("reds(player)", "(if reaches(c from board[0] where true) then 1 else 0)"),
            "reaches(", "reaches() needs a goal", "condition on c"),
    located("path_goal_on_the_step",
            ("reds(player)", "distance_to(a -> b from board[0] to a == board[1] where true)"),
            "a == board[1]", "cannot read 'a'", "where condition"),
]


@pytest.mark.parametrize("edits, where, message, hint, first", TYPES)
def test_type_error(tmp_path, edits, where, message, hint, first):
    assert_refused(tmp_path, edits, where, message, hint, first)


# ---- options and player counts --------------------------------------------------------------
# Nothing in the file is wrong: the error points at what the game declares.

def refused_by(name: str, call, where, message: str, hint: str | None = None,
               edits: tuple = (), says: str | None = None):
    """A row: `call(path)` on BASE with `edits` raises a SpecError at `where`, whose
    message holds `message`, hint `hint`, and message or hint `says`."""
    return pytest.param(edits, call, where, message, hint, says, id=name)


FAST = ("    choices: [2, 3]\n", "    choices: [2, 3]\n  fast:\n    default: false\n")
RESTRICTED = ("    choices: [2, 3]\n",
              "    choices: [2, 3]\n    players:\n      3: {min: 2, max: 2}\n")

OPTIONS = [
    refused_by("unknown_option", lambda path: Spec(path).options({"nope": 1}),
               "options:", "unknown option 'nope'", "size"),
    refused_by("unknown_option_through_load_game",
               lambda path: load_game(path, options={"sise": "2"}),
               "options:", "unknown option 'sise'", "did you mean 'size'?"),
    refused_by("value_not_among_the_choices", lambda path: Spec(path).options({"size": 5}),
               ("choices: [2, 3]", "["), "size=5 is not one of 2, 3"),
    refused_by("value_as_text_not_among_the_choices",
               lambda path: Spec(path).options({"size": "5"}),
               ("choices: [2, 3]", "["), "size=5 is not one of 2, 3"),
    refused_by("value_of_the_wrong_type", lambda path: Spec(path).options({"size": "big"}),
               ("choices: [2, 3]", "["), "size", says="number"),
    refused_by("bool_value_of_the_wrong_type",
               lambda path: Spec(path).options({"fast": "maybe"}),
               ("default: false", "false"), "fast", edits=(FAST,), says="true or false"),
    refused_by("one_player", lambda path: Spec(path).game(1),
               "{min: 2, max: 3}", "2 to 3 players, not 1"),
    refused_by("four_players", lambda path: Spec(path).game(4),
               "{min: 2, max: 3}", "2 to 3 players, not 4"),
    refused_by("players_out_of_range_through_load_game", lambda path: load_game(path, players=9),
               "{min: 2, max: 3}", "not 9"),
    refused_by("option_restricted_to_a_player_count",
               lambda path: Spec(path).game(3, {"size": 3}),
               ("3: {min: 2, max: 2}", "{"), "for 2 to 2 players, not 3", edits=(RESTRICTED,)),
]


@pytest.mark.parametrize("edits, call, where, message, hint, says", OPTIONS)
def test_option_or_player_count_error(tmp_path, edits, call, where, message, hint, says):
    text = edit(BASE, *edits)
    path = write(tmp_path, text)
    err = raised(lambda: call(path))
    check(err, path, text, position(text, where), message, hint)
    if says is not None:
        assert says in (err.message + err.hint)


# ---- running: runaway games and run-time failures --------------------------------------------

RUNAWAY = edit(BASE, (BASE[BASE.index("play:"):BASE.index("scoring:")],
                      "play:\n"
                      "  - id: turn\n"
                      "    turns:\n"
                      "      first: \"0\"\n"
                      "    do:\n"
                      "      - rounds += 1\n"
                      "\n"))


def test_turns_that_never_ask_anybody_are_stopped(tmp_path):
    """Turns go round with no decision in them: stuck, said at the turns step after its
    empty rounds (within the spec's 1,000 steps: found by the rounds, not the bound)."""
    path = write(tmp_path, RUNAWAY)
    Spec(path).validate()            # a valid spec: the loop is only found by running it
    err = raised(lambda: load_game(path).new_state(seed=0), RuleError, seconds=10)
    check(err, path, RUNAWAY, at(RUNAWAY, "id: turn"), "no player can decide any more",
          "validate SPEC --play")


def start(path):
    return lambda: load_game(path).new_state(seed=0)


def first_move(path):
    st = load_game(path).new_state(seed=0)
    return lambda: st.apply(st.legal_actions()[0])


def scores(path):
    st = load_game(path).new_state(seed=0)
    return lambda: st.scores()


def stopped(name: str, base: str, edits: tuple, stage, where, message: str,
            hint: str | None = None):
    """A row: `base` with `edits` is a valid spec, and `stage(path)` (start a game, make
    its first move, score it) gives the call that raises a RuleError at `where`."""
    return pytest.param(base, edits, stage, where, message, hint, id=name)


TURNS = "  - id: turn\n    turns:\n      first: \"0\"\n"

RUNNING = [
    stopped("runaway_while_loop", RUNAWAY, (TURNS, "  - while: rounds >= 0\n    max: 100000000\n"),
            start, "rounds += 1", "1000 steps", "max_steps"),
    stopped("while_loop_over_its_max", RUNAWAY, (TURNS, "  - while: rounds >= 0\n    max: 10\n"),
            start, "while: rounds", "more than 10 times", "max"),
    stopped("runaway_recursion_between_rules", BASE,
            (("      - call place\n", "      - call again\n      - call place\n"),
             ("  gain:\n", "  again:\n    do:\n      - call again\n\n  gain:\n")),
            start, ("    do:\n      - call again", "call"), "deeper than", "stop"),
    stopped("move_to_a_missing_slot", BASE,
            ("      - move t to board[c]\n", "      - move t to board[c + 5]\n"),
            first_move, "board[c + 5]", "slots 0..1, not 5"),
    stopped("move_into_a_full_zone", BASE,
            (("capacities: [3, 3]", "capacities: [0, 0]"),
             ("c in open_slots(board)", "c in slots(board)")),
            first_move, "move t to board[c]", "holds at most 0"),
    stopped("max_of_nothing", BASE,
            ("value: player.score + reds(player)",
             "value: player.score + max(t.colour == red for t in board[0])"),
            scores, "max(t.colour", "max() of nothing", "default"),
]


@pytest.mark.parametrize("base, edits, stage, where, message, hint", RUNNING)
def test_run_time_error(tmp_path, base, edits, stage, where, message, hint):
    text = edit(base, *pairs(edits))
    path = write(tmp_path, text)
    Spec(path).validate()            # a valid spec: the failure is only found by running it
    err = raised(stage(path), RuleError, seconds=10)
    check(err, path, text, position(text, where), message, hint)


def test_attribute_of_no_piece_at_run_time(tmp_path):
    text = edit(BASE, ("  - shuffle bag\n", "  - shuffle bag\n"
                                           "  - if: top(board[0]).colour == red\n"
                                           "    then: [end game]\n"))
    path = write(tmp_path, text)
    Spec(path).validate()
    err = raised(lambda: load_game(path).new_state(seed=0), RuleError)
    # the step that fails; the message says why in the spec's terms, not Python's
    line, col = at(text, "if: top(board[0]).colour")
    assert err.pos.line == line, str(err)
    check(err, path, text, (err.pos.line, err.pos.col), "none")
    for python in ("TypeError", "NoneType", "list indices"):
        assert python not in err.message, f"Python's words in a user message:\n{err}"


def test_an_error_with_no_position_names_no_place():
    """An error about no file (a spec path no file can have, say) says so, not '<input>'."""
    assert str(SpecError("no such spec: x", hint="h")) == "error: no such spec: x\n  hint: h"
    assert str(SpecError("m", Pos("a.yaml"))) == "a.yaml: error: m"
