"""Hostile input, issue 23, classes 3 and 4: each fixed at its cause.

Class 3: the values a spec's rule text computes when the spec compiles (a component's
for_each, count and attributes; a zone's size, width, height, capacity and capacities; a
variable's initial value; for every option choice) fail as located SpecErrors, never as
a Python traceback or a hang: an index past a list's end, a missing key, division by
zero, a value of the wrong kind, numbers and texts and lists that grow without bound
(compiler/layout.py const_fn; runtime/values.py and readers.py bound what generated
code computes).

Class 4: bounds paid before the work: at most MAX_PLAYERS players (the schema, and the
code for a document the schema did not check), zone slots and attribute values counted
before anything is made, and `validate --play` plays a bounded sample of the player
counts.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from tabula_rules.compiler.layout import MAX_PLAYERS, MAX_SLOTS
from tabula_rules.errors import SpecError
from tabula_rules.spec import Spec
from tabula_rules.tools.simulate import play_counts

from helpers import BASE, at, check, edit, pairs, position, raised, run, validate_error, write

ROOT = Path(__file__).resolve().parent.parent

# ---- BASE's lines the rows below edit ---------------------------------------------------------

COUNT = "    count: per_colour\n"
FOR_EACH = "      colour: values(colour)\n"
ZONE = "    zone: bag\n"                        # the chip's zone: attributes go after it
BAG = "  bag:\n    kind: stack\n"
COLUMNS = "    capacities: [3, 3]\n"              # the board's two columns
HAND = "  hand:\n"                                # the zone after the board
ROUNDS = "  rounds: {value: 0}\n"
DATA = "data:\n"
TABLE = "data:\n  bonus:\n    value: {a: 1, b: 2}\n"
FUNCTIONS = "functions:\n"
SQUARE = "functions:\n  sq:\n    params: [x]\n    value: x * x\n"


def lets(seed: str, op: str, levels: int, width: int = 10) -> str:
    """`let a0 = seed in let a1 = a0 op a0 op ... in ...`: each let `width` times the last
    (a number to the 10th power, a text or a list ten times over)."""
    out = f"let a0 = {seed} in "
    for i in range(1, levels):
        out += f"let a{i} = " + f" {op} ".join([f"a{i - 1}"] * width) + " in "
    return out + f"a{levels - 1}"


BIG = "999999999999999999"
PRODUCTS = lets(f"{BIG} * {BIG}", "*", 7)               # 10^(36 * 10^6): a hang
SQUARES = "sq(" * 30 + BIG + ")" * 30                  # inlined: (10^18)^(2^30)
FRACTIONS = "let a = 3/7 in " + "".join(               # a + 1/a doubles the digits
    f"let a{i} = {'a' if i == 0 else f'a{i - 1}'} + 1/{'a' if i == 0 else f'a{i - 1}'} in "
    for i in range(40)) + "0"
TEXTS = "size(" + lets("'xxxxxxxxxx'", "+", 9) + ")"   # 10^9 characters
LISTS = "size(" + lets("range(0, 1000)", "+", 9) + ")"  # 10^11 items


def refused(tmp_path, edits, where, message, hint=None) -> SpecError:
    """BASE with `edits` is refused when validated: a SpecError (not a rule error: no game
    runs) at `where`, saying `message`, quoting the line, never a traceback or a hang."""
    text = edit(BASE, *pairs(edits))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, position(text, where), message, hint)
    assert type(err) is SpecError, f"a {type(err).__name__}, not a spec error:\n{err}"
    return err


# ---- class 3: values computed when the spec compiles ------------------------------------------

ROWS = [
    # an index past either end of a list: the index and the list's length, located
    pytest.param((COUNT, '    count: "[1, 2][7]"\n'), ('"[1, 2][7]"', "[1"),
                 "index 7 is past the end of a list of 2 (for colour = 'red')",
                 id="count_index"),
    pytest.param((COUNT, '    count: "[1, 2][-3]"\n'), ('"[1, 2][-3]"', "[1"),
                 "index -3 is before the start of a list of 2", id="count_negative_index"),
    pytest.param((BAG, BAG + '    capacity: "[1, 2][7]"\n'), ('"[1, 2][7]"', "[1"),
                 "index 7 is past the end of a list of 2", id="capacity_index"),
    pytest.param((COLUMNS, '    capacities: "[[3, 3]][1]"\n'), ('"[[3, 3]][1]"', "[["),
                 "index 1 is past the end of a list of 1", id="capacities_index"),
    pytest.param((COLUMNS, '    size: "[2, 3][option.size]"\n'), ('"[2, 3]', "[2"),
                 "index 2 is past the end of a list of 2", id="size_index_of_an_option"),
    pytest.param((HAND, '  grid: {kind: grid, width: "[4][1]", height: 2, '
                  'visibility: public}\n' + HAND), ('"[4][1]"', "[4"),
                 "index 1 is past the end of a list of 1", id="grid_width_index"),
    pytest.param((FOR_EACH, '      colour: "[values(colour)][1]"\n'),
                 ('"[values(colour)][1]"', "[v"), "index 1 is past the end of a list of 1",
                 id="for_each_index"),
    pytest.param((ZONE, ZONE + '    attributes: {a: "[1][2]"}\n'), ('"[1][2]"', "[1"),
                 "index 2 is past the end of a list of 1 (for colour = 'red')",
                 id="attribute_index"),
    pytest.param((ROUNDS, '  rounds: {initial: "[1, 2][option.size + 1]"}\n'),
                 ('"[1, 2]', "[1"), "index 3 is past the end of a list of 2",
                 id="initial_index_of_an_option"),
    pytest.param(((DATA, TABLE), (ROUNDS, '  rounds: {initial: "[bonus][0][keys(bonus)[0] + '
                                  '\'z\']"}\n')), ('"[bonus]', "[b"), "no entry 'az' in the table",
                 id="initial_missing_key"),
    # division by zero: a spec error, where it was a rule error with no game running
    pytest.param((COUNT, '    count: "per_colour // (option.size - 2)"\n'),
                 ('"per_colour', "per"), "division by zero (for colour = 'red')",
                 id="count_division_by_zero"),
    pytest.param((ROUNDS, '  rounds: {initial: "1 / (option.size - 2)"}\n'),
                 ('"1 / (', "1"), "division by zero", id="initial_division_by_zero"),
    # values of the wrong kind
    pytest.param(((DATA, TABLE), (ZONE, ZONE + "    attributes: {a: bonus}\n")),
                 ("a: bonus", "bonus"), "attribute 'a' is a table (for colour = 'red')",
                 id="attribute_table"),
    pytest.param(((DATA, TABLE), (ZONE, ZONE + '    attributes: {a: "[1, bonus]"}\n')),
                 ('"[1, bonus]"', '"'), "attribute 'a' is a list holding a table",
                 id="attribute_list_holding_a_table"),
    pytest.param(((DATA, TABLE), (FOR_EACH, FOR_EACH + '      n: "[bonus]"\n')),
                 ('"[bonus]"', '"'), "for_each.n gives a table among its values",
                 id="for_each_table"),
    pytest.param((COLUMNS, "    size: \"'abc'\"\n"), ("\"'abc'\"", '"'),
                 "a zone's size must be a whole number, not 'abc'", id="size_text"),
    pytest.param((COLUMNS, '    size: "2 - 5"\n'), ('"2 - 5"', '"'),
                 "a zone's size must be at least 1, not -3", id="size_negative"),
    pytest.param((COLUMNS, "    size: 0\n"), ("size: 0", "0"),
                 "a zone's size must be at least 1, not 0", id="size_zero"),
    pytest.param((BAG, BAG + '    capacity: "0 - 5"\n'), ('"0 - 5"', '"'),
                 "a zone's capacity must be at least 0, not -5", id="capacity_negative"),
    pytest.param((COLUMNS, '    capacities: "[3, 0 - 1]"\n'), ('"[3, 0 - 1]"', '"'),
                 "capacities must be a list of whole numbers of 0 or more",
                 id="capacities_negative"),
    pytest.param((COLUMNS, '    capacities: "[]"\n'), ('"[]"', '"'),
                 "capacities must be a list of whole numbers", id="capacities_empty"),
    pytest.param((COUNT, '    count: "1 / 3"\n'), ('"1 / 3"', '"'),
                 "count must be a number of pieces, not 1/3", id="count_fraction"),
    # sizes counted before anything is made
    pytest.param((COLUMNS, "    size: 999999999999999999\n"), ("  board:\n    kind", "kind"),
                 "more than 100000 zone slots: this zone has 999999999999999999 slots",
                 id="size_huge"),
    # numbers, texts and lists that grow without bound: refused as they pass the bound
    pytest.param((ROUNDS, f'  rounds: {{initial: "let a = {BIG} * {BIG} in '
                  'a * a * a * a * a * a"}\n'), ('"let a', '"'),
                 "a variable's initial value is a number beyond 10^100",
                 id="initial_beyond_10^100"),
    pytest.param((COUNT, f'    count: "{PRODUCTS}"\n'), (f'"{PRODUCTS}"', "a1 * a1"),
                 "a number beyond 10^1000 is computed", id="count_products_of_lets"),
    pytest.param(((FUNCTIONS, SQUARE), (ZONE, ZONE + f'    attributes: {{a: "{SQUARES}"}}\n')),
                 ("    value: x * x", "x * x"), "a number beyond 10^1000 is computed",
                 id="attribute_squared_by_a_function"),
    pytest.param((ROUNDS, f'  rounds: {{initial: "{FRACTIONS}"}}\n'), ('"let a = 3/7', "let"),
                 "a number beyond 10^1000 is computed", id="initial_fractions_of_lets"),
    pytest.param((ROUNDS, '  rounds: {initial: "sum([1/x for x in range(1, 100000)])"}\n'),
                 ('"sum(', "sum"), "a number beyond 10^1000 is computed",
                 id="initial_harmonic_sum"),
    pytest.param((ROUNDS, f'  rounds: {{initial: "{TEXTS}"}}\n'), (TEXTS, "a5 + a5"),
                 "a text of more than 1000000 characters is made", id="initial_texts_of_lets"),
    pytest.param((ROUNDS, '  rounds: {initial: "size(text(let b = range(0, 99999) in '
                  '[b for x in range(0, 99999)]))"}\n'), ('"size(text(', "text"),
                 "a text of more than 1000000 characters is made",
                 id="initial_text_of_a_list_of_lists"),
    pytest.param((ROUNDS, f'  rounds: {{initial: "{LISTS}"}}\n'), (LISTS, "a3 + a3"),
                 "more than 10000000 items taken by generators and comprehensions",
                 id="initial_lists_of_lets"),
    pytest.param((COUNT, '    count: "size(range(0, 999999999999999999))"\n'),
                 ("range(0, 9", "range"), "range() of more than 100000 numbers",
                 id="count_huge_range"),
    # one work budget for every value computed, not one per for_each combination
    pytest.param(((FOR_EACH, FOR_EACH + "      n: range(1, 5000)\n"),
                  (COUNT, '    count: "size([x for x in range(0, 99999)]) - 99998"\n')),
                 ("[x for x in range(0, 99999)]", "range"), "more than 10000000 items "
                 "taken by generators and comprehensions in all (for colour = 'red', n = 101)",
                 id="count_work_over_its_combinations"),
]


@pytest.mark.parametrize("edits, where, message", ROWS)
def test_a_value_computed_when_the_spec_compiles_fails_located(tmp_path, edits, where,
                                                                message):
    refused(tmp_path, edits, where, message)


# every place a value is computed when the spec compiles, with every kind of failure: a
# located spec error on the line of that place, never a traceback or a hang
PLACES = {
    "count": (COUNT, '    count: "{e}"\n'),
    "capacity": (BAG, BAG + '    capacity: "{e}"\n'),
    "capacities": (COLUMNS, '    capacities: "[{e}, 3]"\n'),
    "size": (COLUMNS, '    size: "{e}"\n'),
    "width": (HAND, '  grid: {{kind: grid, width: "{e}", height: 2, '
              'visibility: public}}\n' + HAND),
    "for_each": (FOR_EACH, FOR_EACH + '      n: "[{e}]"\n'),
    "attributes": (ZONE, ZONE + '    attributes: {{a: "{e}"}}\n'),
    "initial": (ROUNDS, '  rounds: {{initial: "{e}"}}\n'),
}
FAILURES = {
    "index": "[1, 2][7]",
    "division": "1 // (option.size - 2)",
    "products": PRODUCTS,
    "fractions": FRACTIONS,
    "range": "size(range(0, 999999999999999999))",
    "texts": TEXTS,
    "lists": LISTS,
}


@pytest.mark.parametrize("failure", FAILURES)
@pytest.mark.parametrize("place", PLACES)
def test_every_place_and_every_failure_is_located(tmp_path, place, failure):
    old, new = PLACES[place]
    new = new.format(e=FAILURES[failure])
    text = edit(BASE, (old, new))
    path, err = validate_error(tmp_path, text)
    assert type(err) is SpecError and "Traceback" not in str(err), str(err)
    assert err.pos.file and Path(err.pos.file).resolve() == path.resolve()
    line = next(row for row in new.splitlines() if FAILURES[failure] in row)
    assert err.pos.line == at(text, line)[0], str(err)


def test_a_data_list_cut_short_is_a_located_error(tmp_path, capsys):
    """Kuhn poker's faces cut to [J]: the second card's face is past the list's end."""
    folder = tmp_path / "kuhn_poker"
    shutil.copytree(ROOT / "examples" / "kuhn_poker", folder)
    path = folder / "kuhn_poker.yaml"
    text = edit(path.read_text(), ("    value: [J, Q, K]\n", "    value: [J]\n"))
    path.write_text(text)
    err = raised(lambda: Spec(path).validate())
    check(err, path, text, at(text, "face: faces[number]", "faces"),
          "index 1 is past the end of a list of 1 (for number = 1)",
          "its items are numbered 0 to 0")
    assert type(err) is SpecError
    code, _, errs = run(capsys, "validate", str(path))
    assert code == 1 and f"{path}:{err.pos.line}:{err.pos.col}: error: index 1" in errs
    assert "Traceback" not in errs


# ---- class 4: bounds paid before the work ---------------------------------------------------

def limited_validate(path: Path, limit: int = 1 << 30) -> subprocess.CompletedProcess:
    """`tabula validate PATH` in a process of at most `limit` bytes of address space."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return subprocess.run([sys.executable, "-m", "tabula_rules", "validate", str(path)],
                          preexec_fn=cap, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("spec, old, new", [
    pytest.param(None, "players: {min: 2, max: 3}", "players: {min: 2, max: 1000000000}",
                 id="per_player_zones_a_billion_players"),
    pytest.param("tic_tac_toe", "players: {min: 2, max: 2}", "players: {min: 2, max: 2000}",
                 id="tic_tac_toe_2000_players"),
])
def test_players_over_the_bound_are_refused_within_a_gigabyte(tmp_path, spec, old, new):
    if spec is None:
        text = edit(BASE, (old, new))
        path = write(tmp_path, text)
    else:
        folder = tmp_path / spec
        shutil.copytree(ROOT / "examples" / spec, folder)
        path = folder / f"{spec}.yaml"
        text = edit(path.read_text(), (old, new))
        path.write_text(text)
    done = limited_validate(path)
    assert done.returncode == 1, done.stderr[-2000:]
    line, col = at(text, new, new.split("max: ")[1].rstrip("}"))
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{path}:{line}:{col}: error: ") and "maximum of 100" in first, \
        done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr


def test_the_players_bound_holds_for_a_document_the_schema_did_not_check(tmp_path,
                                                                         monkeypatch):
    import tabula_rules.spec as spec_module
    monkeypatch.setattr(spec_module, "check_schema", lambda doc, schema: None)
    text = edit(BASE, ("players: {min: 2, max: 3}", "players: {min: 2, max: 1000}"))
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path))
    check(err, path, text, at(text, "max: 1000", "1000"),
          f"a game is for at most {MAX_PLAYERS} players, not 1000")


def test_a_variant_may_not_raise_the_players_over_the_bound(tmp_path):
    write(tmp_path, BASE)
    text = ("extends: mini.yaml\ngame:\n  id: crowd\n  name: Crowd\n"
            "  players: {min: 2, max: 5000}\n")
    path = write(tmp_path, text, "crowd.yaml")
    err = raised(lambda: Spec(path))
    check(err, path, text, at(text, "max: 5000", "5000"), "greater than the maximum of 100")


def test_the_compiler_holds_the_players_bound_before_anything_is_made(tmp_path):
    from tabula_rules.compiler.driver import Compiler
    path = write(tmp_path, BASE)
    spec = Spec(path)
    tracemalloc.start()
    try:
        err = raised(lambda: Compiler(spec.doc, 10 ** 9, {"size": 2}, str(path)).compile())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    check(err, path, BASE, at(BASE, "players: {", "{"),
          f"a game is for at most {MAX_PLAYERS} players, not 1000000000")
    assert peak < 20_000_000, f"{peak} bytes made before the error"


def test_slots_are_counted_before_any_is_made(tmp_path):
    """A per-player zone of 20,000 slots: 40,000 for two players, 2,000,000 for 100, and
    refused before one of them is made (it was refused after making them all)."""
    rack = "  rack: {kind: columns, size: 20000, per_player: true, visibility: public}\n"
    text = edit(BASE, ("players: {min: 2, max: 3}", "players: {min: 2, max: 100}"),
                ("zones:\n", "zones:\n" + rack))
    path = write(tmp_path, text)
    spec = Spec(path)
    spec.game(2)
    tracemalloc.start()
    try:
        err = raised(lambda: spec.game(100))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    check(err, path, text, at(text, rack, "{"),
          f"more than {MAX_SLOTS} zone slots: this zone has 20000 slots for each of 100 "
          "players")
    assert peak < 10_000_000, f"{peak} bytes made before the error"


def test_attribute_values_are_counted_before_any_is_computed(tmp_path):
    """Every attribute of every component is on every piece: 99,000 pieces of one
    component and thirty attributes of another are three million values."""
    attrs = ", ".join(f"a{i}: 1" for i in range(30))
    text = edit(BASE, ("components:\n", "components:\n  many: {count: 99000, zone: bag}\n"
                       f"  wide: {{attributes: {{{attrs}}}, zone: bag}}\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "  many:", "many"),
          "more than 2000000 attribute values: 99007 pieces, 31 attributes each")
    text = edit(BASE, (FOR_EACH, FOR_EACH + "      n: range(1, 40000)\n"),
                (ZONE, ZONE + f"    attributes: {{{attrs}}}\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "  chip:\n    name", "name"),
          "more than 2000000 attribute values: 80000 combinations of for_each, 32 "
          "attributes each")


def test_play_counts_are_a_bounded_sample():
    assert play_counts(2, 2) == [2]
    assert play_counts(2, 4) == [2, 3, 4]
    assert play_counts(2, 7) == [2, 3, 4, 5, 6, 7]
    assert play_counts(2, 10) == [2, 3, 5, 6, 8, 10]
    for lo, hi in ((1, MAX_PLAYERS), (2, 9), (50, 57), (1, 8)):
        counts = play_counts(lo, hi)
        assert counts[0] == lo and counts[-1] == hi and len(counts) == 6
        assert counts == sorted(set(counts))


MANY = """\
game: {id: many, name: Many, source: none, players: {min: 1, max: 100}}
play: []
"""


def test_validate_play_plays_a_sample_of_the_player_counts(tmp_path, capsys):
    path = write(tmp_path, MANY, "many.yaml")
    code, out, _ = run(capsys, "validate", str(path), "--play", "2", "--workers", "1")
    assert code == 0
    assert "(many): 12 random games, 0 failed" in out
    assert "player counts played: 1, 20, 40, 60, 80, 100 (6 of the 100 from 1 to 100)" in out
