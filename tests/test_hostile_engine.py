"""Hostile specs against the engine (issue 14): every one is a located error, raised
before the work or allocation it would cause, never a traceback, a hang or a leak of
Python's internals. Built on helpers.py's small valid spec (BASE) and its checks; most
cases are rows of two tables: refused when the spec is checked (REFUSED), stopped while
a game runs (STOPPED)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabula_rules.errors import RuleError
from tabula_rules.spec import load_game

from helpers import (
    BASE,
    SCORE,
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


def scored(value: str) -> str:
    """BASE whose scoring formula is `value`, written as it is (unquoted)."""
    return edit(BASE, (SCORE, f"value: {value}"))


def play_out(path, players=2):
    st = load_game(path, players=players).new_state(seed=0)
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    return st


# ---- refused when the spec is checked, before any work ------------------------------------

NAME = 'name: "{colour}"'
CHOOSE = "    choose: t in current.hand"

REFUSED = [
    # name templates: plain attribute names, filled without str.format
    located("template_unknown_attribute", (NAME, 'name: "{nope} chip"'),
            ('"{nope} chip"', "nope"), "'nope', which is not an attribute"),
    located("template_lone_brace", (NAME, 'name: "{colour} }"'),
            ('"{colour} }"', '}"'), "a lone '}'"),
    # a decision's player out of range
    located("constant_decision_player_out_of_range", (CHOOSE, '    player: "5"\n' + CHOOSE),
            '"5"', "the deciding player is 5"),
    # unbounded work: every limit checked before the work it bounds
    located("a_billion_pieces", ("count: per_colour", "count: 1000000000"),
            'name: "{colour}"', "more than 100000 pieces"),
    located("for_each_combinations",
            ("colour: values(colour)", "colour: values(colour)\n"
             "      n: range(0, 100000)\n      m: range(0, 100000)"),
            "colour: values(colour)", "more than 100000 combinations of for_each"),
    located("max_steps_over_its_maximum", ("max_steps: 1000", "max_steps: 1000000000000000"),
            "1000000000000000", "max_steps is at most 100000000"),
    located("a_huge_grid",
            ("  board:\n    kind: columns",
             "  grid:\n    kind: grid\n    width: 100000\n    height: 100000\n"
             "  board:\n    kind: columns"),
            "kind: grid", "more than 100000 zone slots"),
]


@pytest.mark.parametrize("edits, where, message, hint, first", REFUSED)
def test_refused_before_any_work(tmp_path, edits, where, message, hint, first):
    assert_refused(tmp_path, edits, where, message, hint, first)


@pytest.mark.parametrize("field", ["colour.__class__", "colour.__class__.__subclasses__",
                                   "colour:>999999999", "colour[0]", "colour!r"])
def test_name_template_refuses_walks_indexing_and_format_specs(tmp_path, field):
    text = edit(BASE, (NAME, f'name: "x {{{field}}}"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, f'"x {{{field}}}"', field), "not an attribute name")
    assert "<class" not in str(err) and "type" not in err.message


def test_name_template_substitutes_plain_names_and_escaped_braces(tmp_path):
    from tabula_rules.runtime.templates import render_template, template_parts
    parts = template_parts("{{{colour}}}-{n}")
    assert render_template(parts, {"colour": "red", "n": 3}) == "{red}-3"
    assert render_template(template_parts("{n}"), {"n": 10 ** 5000}).startswith("<a number")


# ---- stopped while a game runs: located rule errors -----------------------------------------
# Generated code run outside State.run (scores, labels) fails located too.

def plays(path):
    return lambda: play_out(path)


def scores(path):
    return lambda: play_out(path).scores()


def starts(path):
    return lambda: load_game(path, players=2).new_state(seed=0)


def labels(path):
    st = load_game(path, players=2).new_state(seed=0)
    return st.legal_action_strings


def stopped(name: str, edits: tuple, stage, where, message: str | None = None,
            seconds: float = 10):
    """A row: BASE with `edits`, run by `stage(path)` (play it out, score it, start it,
    list its labels), raises a RuleError at `where` within `seconds`."""
    return pytest.param(edits, stage, where, message, seconds, id=name)


# (the inner generators read x: ones that did not would be computed once, not per x)
NESTED = [("player.score + count(1 for x in range(0, 100000) where "
           "count(y for y in range(x, 100000)) > 0)", "range(x, 100000)) > 0"),
          ("player.score + size([[y for y in range(x, 100000)] for x in range(0, 100000)])",
           "range(x, 100000)]")]

STOPPED = [
    stopped("computed_decision_player_out_of_range",
            (CHOOSE, '    player: "current + 4"\n' + CHOOSE), plays,
            '"current + 4"', "the deciding player is"),
    stopped("failing_scoring_rule", (SCORE, "value: player.score // (rounds - rounds)"),
            scores, "player.score // (rounds - rounds)", "division by zero"),
    stopped("none_used_as_a_number",
            (SCORE, "value: player.score + first(r for r in [1, 2] where r > rounds + 5)"),
            scores, "player.score + first(", "none is used as a number"),
    stopped("scoring_rule_indexing_outside_a_list",
            (SCORE, "value: player.score + [1, 2][rounds + 5]"),
            scores, "player.score + [1, 2][rounds + 5]"),
    stopped("failing_label", ('label: "put {t} on column {c}"',
                              'label: "put {t} on column {c // (c - c)}"'),
            labels, ('"put {t} on column {c // (c - c)}"', "c // (c - c)"), "division by zero"),
    # nested generators and comprehensions exhaust a work budget
    stopped("nested_generators", (SCORE, f"value: {NESTED[0][0]}"), scores, NESTED[0],
            "items taken by generators", seconds=20),
    stopped("nested_comprehensions", (SCORE, f"value: {NESTED[1][0]}"), scores, NESTED[1],
            "items taken by generators", seconds=20),
    stopped("two_bindings_of_a_huge_range",
            (("choose: t in current.hand, c in open_slots(board)",
              "choose: t in current.hand, c in open_slots(board), "
              "x in range(0, 100000), y in range(x, 100000) where x + y < 0"),
             ("- move t to board[c]", "- move t to board[c + x + y]")),
            starts, "range(x, 100000)", "items taken by generators", seconds=20),
    stopped("repeated_squaring_beyond_10_to_the_100",
            ("      - rounds += 1", "      - rounds += 1\n      - rounds = 2\n"
             "      - repeat: 30\n        do:\n          - rounds = rounds * rounds"),
            plays, "rounds * rounds", "beyond 10^100"),
    stopped("repeated_doubling_beyond_10_to_the_100",
            ("      - rounds += 1", "      - rounds += 1\n      - rounds = 2\n"
             "      - repeat: 500\n        do:\n          - rounds += rounds"),
            plays, ("+= rounds", "rounds"), "beyond 10^100"),
]


@pytest.mark.parametrize("edits, stage, where, message, seconds", STOPPED)
def test_stopped_while_a_game_runs(tmp_path, edits, stage, where, message, seconds):
    text = edit(BASE, *pairs(edits))
    path = write(tmp_path, text)
    err = raised(stage(path), RuleError, seconds=seconds)
    check(err, path, text, position(text, where), message)


def test_a_number_too_long_for_text_is_a_rule_error(tmp_path):
    from tabula_rules.runtime.values import explain
    try:
        str(10 ** 5000)
    except ValueError as exc:
        assert "too long to write out" in explain(exc)
        assert "too long to write out" in explain(exc, compiling=True)


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


def test_a_game_of_decisions_only_that_never_ends_stops_at_the_step_bound(tmp_path, capsys):
    """Issue 23, class 5: liar's dice with the bid's effect emptied (bids only stay legal,
    each decision leading straight to the next) grew without bound under `tabula run`:
    the step bound was checked after an instruction only when it did not pause at a
    decision. Every decision counts against game.max_steps now, so the game ends at the
    bound with a located error, its history bounded by max_steps."""
    from tabula_rules.tools.cli import main
    spec = Path(__file__).parents[1] / "examples/liars_dice/liars_dice.yaml"
    text = spec.read_text(encoding="utf-8")
    text = edit(text, ("              - last_bid = b\n              - bidder = current\n", ""),
                ("            do:\n          # Calling", "            do: []\n          # Calling"),
                ("  id: liars_dice\n", "  id: liars_dice\n  max_steps: 2000\n"),
                ("  max_decisions: 15\n", ""))       # the real game's bound: not this one's
    path = write(tmp_path, text)
    game = load_game(path)
    st = game.new_state(seed=1)
    with pytest.raises(RuleError, match="more than 2000 steps") as e:
        while not st.terminal:
            acts = st.legal_actions()
            st.apply_unchecked(acts[0])      # a bid (a chance roll at the start)
    assert e.value.pos.line > 0 and len(st.history) <= 2000
    assert main(["run", str(path), "--seed", "3"]) == 1
    assert "more than 2000 steps without ending" in capsys.readouterr().err



def _endless_bids(tmp_path, game_keys: str, name: str = "endless.yaml"):
    """Liar's dice with the bid's effect emptied: every bid stays legal and none ends the
    round, so the game keeps asking and never ends."""
    spec = Path(__file__).parents[1] / "examples/liars_dice/liars_dice.yaml"
    text = edit(spec.read_text(encoding="utf-8"),
                ("              - last_bid = b\n              - bidder = current\n", ""),
                ("            do:\n          # Calling", "            do: []\n          # Calling"),
                ("  id: liars_dice\n", "  id: liars_dice\n" + game_keys),
                ("  max_decisions: 15\n", ""))       # the real game's bound: not this one's
    return write(tmp_path, text, name)


def test_a_game_of_decisions_only_stops_at_the_decision_bound_whatever_its_step_bound(
        tmp_path, capsys):
    """Issue 23, class 5: a game that can never end but keeps asking grows its history
    (and its players' information states) a decision at a time; bounded by max_steps
    alone, a spec's largest max_steps (10^8) let it grow to gigabytes. game.max_decisions
    bounds the history itself, checked before it grows: a located error at the decision,
    the history exactly at the bound, whatever the step bound."""
    from tabula_rules.tools.cli import main
    path = _endless_bids(tmp_path, "  max_steps: 100000000\n  max_decisions: 500\n")
    st = load_game(path).new_state(seed=1)
    with pytest.raises(RuleError, match="more than 500 decisions without ending") as e:
        while not st.terminal:
            st.apply_unchecked(st.legal_actions()[0])
    assert e.value.pos.line > 0 and len(st.history) == 500
    assert main(["run", str(path), "--seed", "3"]) == 1
    err = capsys.readouterr().err
    assert "more than 500 decisions without ending" in err and "Traceback" not in err
    assert f"{path.name}:{e.value.pos.line}:" in err


def test_the_decision_bound_has_a_default_and_a_ceiling(tmp_path):
    """Unset, game.max_decisions is 100,000; it may be raised to 1,000,000 and no
    further (a located error at the key); a saved state whose history is longer than the
    bound does not load; OpenSpiel's max_game_length is the smaller of the two bounds."""
    from tabula_rules.errors import SpecError, TabulaError
    from tabula_rules.spec import Spec
    assert load_game(_endless_bids(tmp_path, "")).prog.max_decisions == 100_000
    assert load_game(_endless_bids(tmp_path, "  max_decisions: 1000000\n")
                     ).prog.max_decisions == 1_000_000
    over = _endless_bids(tmp_path, "  max_decisions: 1000001\n")
    err = raised(lambda: Spec(over).validate(), SpecError)
    lines = over.read_text(encoding="utf-8").splitlines()
    assert "max_decisions" in str(err) and "max_decisions" in lines[err.pos.line - 1]
    small = load_game(_endless_bids(tmp_path, "  max_decisions: 40\n"))
    st = small.new_state(seed=2)
    for _ in range(30):
        st.apply_unchecked(st.legal_actions()[0])
    d = st.to_json()
    d["history"] = d["history"] * 2
    with pytest.raises(TabulaError, match="60 decisions, more than this game makes"):
        type(st).from_json(small, d)
