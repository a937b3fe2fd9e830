"""Hostile specs against the engine (issue 14): every one is a located error, raised
before the work or allocation it would cause, never a traceback, a hang or a leak of
Python's internals. Built on helpers.py's small valid spec (BASE) and its checks."""

from __future__ import annotations

import pytest

from helpers import BASE, SCORE, at, check, edit, raised, validate_error, write
from tabula_rules.errors import RuleError
from tabula_rules.spec import load_game


# ---- name templates: plain attribute names, filled without str.format ----------------

@pytest.mark.parametrize("field", ["colour.__class__", "colour.__class__.__subclasses__",
                                   "colour:>999999999", "colour[0]", "colour!r"])
def test_name_template_refuses_walks_indexing_and_format_specs(tmp_path, field):
    text = edit(BASE, ('name: "{colour}"', f'name: "x {{{field}}}"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, f'"x {{{field}}}"', field), "not an attribute name")
    assert "<class" not in str(err) and "type" not in err.message


def test_name_template_unknown_attribute_is_located(tmp_path):
    text = edit(BASE, ('name: "{colour}"', 'name: "{nope} chip"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, '"{nope} chip"', "nope"), "'nope', which is not an attribute")


def test_name_template_lone_brace_is_located(tmp_path):
    text = edit(BASE, ('name: "{colour}"', 'name: "{colour} }"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, '"{colour} }"', '}"'), "a lone '}'")


def test_name_template_substitutes_plain_names_and_escaped_braces(tmp_path):
    from tabula_rules.runtime.templates import render_template, template_parts
    parts = template_parts("{{{colour}}}-{n}")
    assert render_template(parts, {"colour": "red", "n": 3}) == "{red}-3"
    assert render_template(template_parts("{n}"), {"n": 10 ** 5000}).startswith("<a number")


def scored(value: str) -> str:
    """BASE whose scoring formula is `value`, written as it is (unquoted)."""
    return edit(BASE, (SCORE, f"value: {value}"))


# ---- a decision's player out of range -------------------------------------------------

def play_out(path, players=2):
    st = load_game(path, players=players).new_state(seed=0)
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    return st


def test_constant_decision_player_out_of_range_is_a_spec_error(tmp_path):
    text = edit(BASE, ("    choose: t in current.hand", '    player: "5"\n    choose: t in current.hand'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, '"5"'), "the deciding player is 5")


def test_computed_decision_player_out_of_range_is_a_located_rule_error(tmp_path):
    text = edit(BASE, ("    choose: t in current.hand",
                       '    player: "current + 4"\n    choose: t in current.hand'))
    path = write(tmp_path, text)
    err = raised(lambda: play_out(path), RuleError, seconds=10)
    check(err, path, text, at(text, '"current + 4"'), "the deciding player is")


# ---- generated code run outside State.run: located rule errors ------------------------

def test_failing_scoring_rule_is_a_located_rule_error(tmp_path):
    text = scored("player.score // (rounds - rounds)")
    path = write(tmp_path, text)
    err = raised(lambda: play_out(path).scores(), RuleError, seconds=10)
    check(err, path, text, at(text, "player.score // (rounds - rounds)"), "division by zero")


def test_scoring_rule_indexing_outside_a_list_is_a_located_rule_error(tmp_path):
    text = scored("player.score + [1, 2][rounds + 5]")
    path = write(tmp_path, text)
    err = raised(lambda: play_out(path).scores(), RuleError, seconds=10)
    check(err, path, text, at(text, "player.score + [1, 2][rounds + 5]"))


def test_failing_label_is_a_located_rule_error(tmp_path):
    text = edit(BASE, ('label: "put {t} on column {c}"',
                       'label: "put {t} on column {c // (c - c)}"'))
    path = write(tmp_path, text)
    st = load_game(path, players=2).new_state(seed=0)
    err = raised(lambda: st.legal_action_strings(), RuleError, seconds=10)
    check(err, path, text, at(text, '"put {t} on column {c // (c - c)}"', "c // (c - c)"),
          "division by zero")


def test_a_number_too_long_for_text_is_a_rule_error(tmp_path):
    from tabula_rules.runtime.engine import _explain
    try:
        str(10 ** 5000)
    except ValueError as exc:
        assert "too long to write out" in _explain(exc)


# ---- unbounded work: every limit checked before the work it bounds ---------------------

def test_a_billion_pieces_is_refused_before_any_is_made(tmp_path):
    text = edit(BASE, ("count: per_colour", "count: 1000000000"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, 'name: "{colour}"'), "more than 100000 pieces")


def test_for_each_combinations_are_counted_before_any_is_made(tmp_path):
    text = edit(BASE, ("colour: values(colour)", "colour: values(colour)\n"
                       "      n: range(0, 100000)\n      m: range(0, 100000)"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "colour: values(colour)"),
          "more than 100000 combinations of for_each")


def test_max_steps_has_a_maximum(tmp_path):
    text = edit(BASE, ("max_steps: 1000", "max_steps: 1000000000000000"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "1000000000000000"), "max_steps is at most 100000000")


def test_a_huge_grid_is_refused_before_its_slots_are_made(tmp_path):
    text = edit(BASE, ("  board:\n    kind: columns",
                       "  grid:\n    kind: grid\n    width: 100000\n    height: 100000\n"
                       "  board:\n    kind: columns"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "kind: grid"), "more than 100000 zone slots")


@pytest.mark.parametrize("value, token", [
    ("player.score + count(1 for x in range(0, 100000) where "
     "count(y for y in range(0, 100000)) > 0)", "range(0, 100000)) > 0"),
    ("player.score + size([[y for y in range(0, 100000)] for x in range(0, 100000)])",
     "range(0, 100000)]"),
])
def test_nested_generators_and_comprehensions_exhaust_a_work_budget(tmp_path, value, token):
    text = scored(value)
    path = write(tmp_path, text)
    err = raised(lambda: play_out(path).scores(), RuleError, seconds=20)
    check(err, path, text, at(text, value, token), "items taken by generators")


def test_one_item_lists_are_not_counted_and_work_stays_bounded(tmp_path):
    """A source written as a list of one item ([f(x)], the idiom naming one value) is not
    counted against the work budget: it takes one item per item of the source around it,
    so nesting such lists multiplies nothing. Counted sources inside them still are."""
    value = ("player.score + sum(sum(sum(z for z in [y + 1]) for y in [x]) "
             "for x in range(0, 10))")
    text = scored(value)
    st = play_out(write(tmp_path, text))
    assert all(st.scores()[p] >= 55 for p in range(2))     # 1 + 2 + ... + 10, and more
    value = ("player.score + count(1 for x in range(0, 100000) where "
             "sum(count(y for y in range(0, 100000)) for z in [x]) > 0)")
    text = scored(value)
    path = write(tmp_path, text)
    err = raised(lambda: play_out(path).scores(), RuleError, seconds=20)
    check(err, path, text, at(text, value, "range(0, 100000)) for"),
          "items taken by generators")


def test_two_bindings_of_a_huge_range_exhaust_the_work_budget(tmp_path):
    text = edit(BASE, ("choose: t in current.hand, c in open_slots(board)",
                       "choose: t in current.hand, c in open_slots(board), "
                       "x in range(0, 100000), y in range(x, 100000) where x + y < 0"),
                ("- move t to board[c]", "- move t to board[c + x + y]"))
    path = write(tmp_path, text)
    err = raised(lambda: load_game(path, players=2).new_state(seed=0), RuleError, seconds=20)
    check(err, path, text, at(text, "range(x, 100000)"), "items taken by generators")


def test_repeated_squaring_is_a_rule_error_beyond_10_to_the_100(tmp_path):
    text = edit(BASE, ("      - rounds += 1", "      - rounds += 1\n      - rounds = 2\n"
                       "      - repeat: 30\n        do:\n          - rounds = rounds * rounds"))
    path = write(tmp_path, text)
    err = raised(lambda: play_out(path), RuleError, seconds=10)
    check(err, path, text, at(text, "rounds * rounds"), "beyond 10^100")


def test_repeated_doubling_is_a_rule_error_beyond_10_to_the_100(tmp_path):
    text = edit(BASE, ("      - rounds += 1", "      - rounds += 1\n      - rounds = 2\n"
                       "      - repeat: 500\n        do:\n          - rounds += rounds"))
    path = write(tmp_path, text)
    err = raised(lambda: play_out(path), RuleError, seconds=10)
    check(err, path, text, at(text, "+= rounds", "rounds"), "beyond 10^100")


# ---- chains of spec functions: a bounded depth, never a RecursionError ----------------

def call_chain(n: int, step: str = "f{j}(p) + 1") -> str:
    """BASE whose scoring calls f0, which calls f1, ..., which calls reds (n + 1 calls)."""
    funcs = "".join(f"  f{i}:\n    params: [p]\n    value: {step.format(j=i + 1)}\n"
                    for i in range(n))
    funcs += f"  f{n}:\n    params: [p]\n    value: reds(p)\n"
    return edit(scored("player.score + f0(player)"), ("functions:\n", "functions:\n" + funcs))


def test_a_chain_of_2000_functions_is_a_located_error_at_the_bound(tmp_path):
    from tabula_rules.compiler.builtins import MAX_CALL_DEPTH
    text = call_chain(2000)
    path, err = validate_error(tmp_path, text)
    depth = MAX_CALL_DEPTH
    check(err, path, text, at(text, f"value: f{depth}(p) + 1", f"f{depth}(p)"),
          f"functions call one another more than {depth} deep")
    assert f"-> f{depth - 1} -> f{depth})" in err.message


def test_a_chain_up_to_the_bound_compiles_and_plays(tmp_path):
    from tabula_rules.compiler.builtins import MAX_CALL_DEPTH
    path = write(tmp_path, call_chain(MAX_CALL_DEPTH - 2))   # 32 functions deep, reds too
    st = play_out(path)
    # every call adds 1, then reds(p): the chain really ran, once per player
    assert all(st.scores()[p] >= MAX_CALL_DEPTH - 2 for p in range(2))


def test_a_chain_of_deep_expressions_is_a_located_error(tmp_path):
    """Within the bound, but every function's expression nests 95 deep: together too deep
    for Python's stack, reported at the first call, not as a RecursionError."""
    deep = "f{j}(p)"
    for _ in range(95):
        deep = "(1 + " + deep + ")"
    text = call_chain(20, '"' + deep + '"')
    path, err = validate_error(tmp_path, text)
    assert err.pos.file == str(path) and err.pos.line > 0
    assert "too deep" in err.message
    assert "Recursion" not in str(err)
