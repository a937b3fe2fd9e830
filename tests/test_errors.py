"""Bad specs: every problem is a located SpecError, never a Python traceback.

Each case starts from BASE, a small valid spec (not Medang), breaks one thing, and checks
that loading / validating / running it raises a SpecError (RuleError while a game runs)
whose file, line and column point at the offending token, whose message and hint say
something useful, and whose str() quotes the source line with a caret under that column.

Expected positions are computed from the text of the spec (`at(text, needle, token)`),
never counted by hand: `needle` must occur exactly once in the spec, and the position is
that of `token` inside it (the start of `needle` by default).
"""

from __future__ import annotations

import signal
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tabula_rules.lang import loader
from tabula_rules.errors import Pos, RuleError, SpecError
from tabula_rules.spec import Spec, load_game

# ---- the valid base spec ------------------------------------------------------------------

BASE = """\
game:
  id: mini
  name: Mini
  source: mini.txt
  players: {min: 2, max: 3}
  max_steps: 1000

options:
  size:
    default: 2
    choices: [2, 3]

enums:
  colour: [red, blue]

data:
  per_colour:
    value: 3

components:
  chip:
    name: "{colour}"
    for_each:
      colour: values(colour)
    count: per_colour
    zone: bag

zones:
  bag:
    kind: stack
    visibility: count
  board:
    kind: columns
    capacities: [3, 3]
    visibility: public
  hand:
    kind: set
    per_player: true
    visibility: owner

variables:
  rounds: {value: 0}
  score: {value: 0, per_player: true}

functions:
  reds:
    params: [p]
    value: count(t for t in p.hand where t.colour == red)

setup:
  - shuffle bag
  - for: p in players
    do:
      - move top(bag, option.size - 1) to p.hand

play:
  - id: turn
    turns:
      first: "0"
      until: all(size(p.hand) == 0 for p in players)
    do:
      - rounds += 1
      - call place

rules:
  place:
    choose: t in current.hand, c in open_slots(board)
    label: "put {t} on column {c}"
    do:
      - move t to board[c]
      - call gain(t)
      - if: size(bag) > 0
        then:
          - move top(bag) to current.hand

  gain:
    params: [t]
    if: t.colour == red
    then:
      - current.score += 1

scoring:
  points:
    total:
      value: player.score + reds(player)
"""


# ---- helpers ------------------------------------------------------------------------------

def edit(text: str, *pairs) -> str:
    """Replace each `old` (which must occur exactly once) by `new`."""
    for old, new in pairs:
        n = text.count(old)
        assert n == 1, f"test bug: {old!r} occurs {n} times in the spec"
        text = text.replace(old, new)
    return text


def at(text: str, needle: str, token: str | None = None) -> tuple:
    """(line, col), 1-based, of `token` inside the one occurrence of `needle` in `text`."""
    n = text.count(needle)
    assert n == 1, f"test bug: {needle!r} occurs {n} times in the spec"
    i = text.index(needle) + (needle.index(token) if token else 0)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return line, col


def write(tmp_path: Path, text: str, name: str = "mini.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


class Hung(BaseException):
    """Raised by the alarm when a call runs longer than its time limit."""


@contextmanager
def time_limit(seconds: float):
    def on_alarm(signum, frame):
        raise Hung(f"no answer within {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def raised(fn, kind=SpecError, seconds: float = 20.0):
    """Run fn; return the `kind` error it raised. Any other outcome fails the test."""
    try:
        with time_limit(seconds):
            fn()
    except Hung as exc:
        pytest.fail(f"hang: {exc}")
    except kind as exc:
        return exc
    except SpecError as exc:
        pytest.fail(f"expected {kind.__name__}, got {type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001 - the point: nothing else may escape
        pytest.fail(f"expected {kind.__name__}, got a Python exception (a traceback for the "
                    f"user) {type(exc).__name__}: {str(exc)[:300]}")
    pytest.fail(f"no error: expected {kind.__name__}")


def check(err, path: Path, text: str, where: tuple, message: str | None = None,
          hint: str | None = None):
    """The error points at `where` (line, col) of `path`, says `message` (a substring of
    the message) and `hint` (a substring of the hint), and quotes the line with a caret."""
    line, col = where
    shown = str(err)
    assert (err.pos.line, err.pos.col) == (line, col), (
        f"expected {line}:{col}, got {err.pos.line}:{err.pos.col}\n{shown}")
    assert err.pos.file and Path(err.pos.file).resolve() == path.resolve(), \
        f"expected file {path}, got {err.pos.file!r}"
    if message is not None:
        assert message.lower() in err.message.lower(), \
            f"expected {message!r} in the message\n{shown}"
    if hint is not None:
        assert hint.lower() in err.hint.lower(), f"expected {hint!r} in the hint\n{shown}"
    src = text.splitlines()[line - 1]
    caret = "    " + "".join(c if c == "\t" else " " for c in src[:col - 1]) + "^"
    out = shown.splitlines()
    assert out[0].startswith(f"{err.pos.file}:{line}:{col}: "), shown
    assert "    " + src.rstrip("\n") in out, f"the source line is not quoted\n{shown}"
    assert caret in out, f"no caret under column {col}\n{shown}"
    assert "Traceback" not in shown


def validate_error(tmp_path, text, kind=SpecError, name="mini.yaml"):
    path = write(tmp_path, text, name)
    return path, raised(lambda: Spec(path).validate(), kind)


# ---- the base is valid ----------------------------------------------------------------------

def test_base_spec_is_valid_and_plays(tmp_path):
    path = write(tmp_path, BASE)
    Spec(path).validate()
    for players in (2, 3):
        st = load_game(path, players=players).new_state(seed=0)
        while not st.is_terminal():
            st.apply(st.legal_actions()[0])
        assert len(st.scores()) == players


# ---- YAML syntax --------------------------------------------------------------------------

def test_yaml_bad_indentation_dedented_key(tmp_path):
    text = edit(BASE, ("  name: Mini\n", " name: Mini\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, " name: Mini", "name"), "YAML", "indentation")


def test_yaml_bad_indentation_overindented_key(tmp_path):
    # `   name:` is read as the continuation of `id: mini`; the offending token is `name`
    # (where the indentation goes wrong), not the ':' after it
    text = edit(BASE, ("  name: Mini\n", "   name: Mini\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "   name: Mini", "name"), "YAML", "indentation")


@pytest.mark.parametrize("indent", ["     ", "    "])
def test_yaml_bad_indentation_in_a_step_list(tmp_path, indent):
    text = edit(BASE, ("      - call place\n", f"{indent}- call place\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, f"\n{indent}- call place", "-"), "YAML", "indentation")


def test_yaml_tab_indentation(tmp_path):
    text = edit(BASE, ("  name: Mini\n", "\tname: Mini\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "\tname: Mini"), "YAML")


@pytest.mark.parametrize("quote", ['"', "'"])
def test_yaml_unclosed_quote(tmp_path, quote):
    # the offending token is the quote that is never closed, not the end of the file
    text = edit(BASE, ("  name: Mini\n", f"  name: {quote}Mini\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, f"name: {quote}Mini", quote), "YAML", "quot")


def test_a_quote_inside_a_block_scalar_is_text(tmp_path):
    """A " in the text of a > block is a character: an error further down is reported
    where it is, not at that quote."""
    text = edit(BASE, ("  name: Mini\n", '  name: Mini\n  description: >-\n    "the Mini game,\n    as they say\n'),
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
    t0 = time.perf_counter()
    err = raised(lambda: Spec(path).validate())
    assert time.perf_counter() - t0 < 2.0
    check(err, path, text, (1, 1), f"at most {loader.MAX_FILE_BYTES}")


def test_not_utf8(tmp_path):
    path = tmp_path / "mini.yaml"
    path.write_bytes(BASE.encode() + b"# caf\xe9\n")
    err = raised(lambda: Spec(path).validate())
    assert "UTF-8" in err.message, str(err)
    # the offending byte: the last line, after '# caf'
    assert (err.pos.line, err.pos.col) == (BASE.count("\n") + 1, 6), str(err)


def test_top_level_is_not_a_mapping(tmp_path):
    text = "- game\n- zones\n"
    path, err = validate_error(tmp_path, text)
    check(err, path, text, (1, 1), "mapping")


# ---- duplicate keys -----------------------------------------------------------------------

def test_duplicate_key_block_mapping(tmp_path):
    text = edit(BASE, ("  name: Mini\n", "  name: Mini\n  name: Maxi\n"))
    path, err = validate_error(tmp_path, text)
    first, _ = at(text, "name: Mini")
    check(err, path, text, at(text, "name: Maxi"), "duplicate key 'name'", f"line {first}")


def test_duplicate_key_flow_mapping(tmp_path):
    text = edit(BASE, ("{min: 2, max: 3}", "{min: 2, min: 3}"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "min: 3"), "duplicate key 'min'")


def test_duplicate_section(tmp_path):
    text = edit(BASE, ("scoring:\n", "rules:\n  other: {do: [end game]}\n\nscoring:\n"))
    path, err = validate_error(tmp_path, text)
    first, _ = at(text, "\nrules:\n  place:")
    check(err, path, text, at(text, "rules:\n  other", "rules"), "duplicate key 'rules'",
          f"line {first + 1}")


def test_duplicate_rule_name(tmp_path):
    text = edit(BASE, ("  gain:\n", "  place:\n    do: [end game]\n\n  gain:\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "  place:\n    do: [end game]", "place"),
          "duplicate key 'place'")


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
    t0 = time.perf_counter()
    err = raised(lambda: Spec(path).validate(), seconds=10)
    elapsed = time.perf_counter() - t0
    assert elapsed < 1.0, f"the alias bomb took {elapsed:.1f} s to refuse"
    first, _ = at(text, "  bomb:")
    assert first <= err.pos.line <= first + BOMB.count("\n"), str(err)
    assert err.pos.col >= 1
    check(err, path, text, (err.pos.line, err.pos.col), "aliases included")


def test_deep_nesting_is_refused_at_the_first_level_too_deep(tmp_path):
    depth = 100
    value = "[" * depth + "1" + "]" * depth
    text = edit(BASE, ("    value: 3\n", "    value: 3\n  deep:\n    value: " + value + "\n"))
    path, err = validate_error(tmp_path, text)
    # document (0) > data (1) > deep (2) > value list (3): depth 65 is bracket 62 (0-based)
    line, col = at(text, "value: [[", "[")
    check(err, path, text, (line, col + loader.MAX_DEPTH + 1 - 3), "deeper than")


def test_very_deep_nesting_is_a_spec_error_not_a_recursion_error(tmp_path):
    depth = 5000
    value = "[" * depth + "1" + "]" * depth
    text = edit(BASE, ("    value: 3\n", "    value: 3\n  deep:\n    value: " + value + "\n"))
    path, err = validate_error(tmp_path, text)
    line, col = at(text, "value: [[", "[")
    check(err, path, text, (line, col + loader.MAX_DEPTH + 1 - 3), "deeper than")


def test_python_tags_are_refused(tmp_path):
    # a tag is not honoured, and not silently dropped either: the spec is refused at it
    text = edit(BASE, ("  name: Mini\n", "  name: !!python/name:os.system Mini\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "!!python"), "tag")


def test_python_object_tags_are_refused(tmp_path):
    text = edit(BASE, ("  name: Mini\n", "  name: !!python/object/apply:os.getcwd []\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "!!python"), "tag")


# ---- schema violations ----------------------------------------------------------------------

def test_unknown_top_level_key_with_did_you_mean(tmp_path):
    text = edit(BASE, ("scoring:\n", "scorng:\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "scorng:"), "unknown key 'scorng'",
          "did you mean 'scoring'?")


def test_misspelt_then_in_a_rule(tmp_path):
    text = edit(BASE, ("    then:\n      - current.score", "    thne:\n      - current.score"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "thne:"), "thne", "did you mean 'then'?")


def test_misspelt_then_in_a_step(tmp_path):
    text = edit(BASE, ("        then:\n          - move top(bag)",
                       "        thne:\n          - move top(bag)"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "thne:"), "thne", "did you mean 'then'?")


def test_misspelt_key_in_a_setup_step(tmp_path):
    text = edit(BASE, ("    do:\n      - move top(bag, option", "    doo:\n      - move top(bag, option"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "doo:"), "doo", "did you mean 'do'?")


def test_bad_enum_value_with_did_you_mean(tmp_path):
    text = edit(BASE, ("  bag:\n    kind: stack", "  bag:\n    kind: stak"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "kind: stak", "stak"), "'stak'", "did you mean 'stack'?")


def test_missing_game(tmp_path):
    text = BASE[BASE.index("options:"):]
    path, err = validate_error(tmp_path, text)
    check(err, path, text, (1, 1), "'game' is a required property")


def test_missing_required_key_of_a_zone(tmp_path):
    text = edit(BASE, ("  bag:\n    kind: stack\n", "  bag:\n"))
    path, err = validate_error(tmp_path, text)
    # the zone that lacks its kind: its name
    check(err, path, text, at(text, "  bag:\n", "bag"), "'kind' is a required property")


@pytest.mark.parametrize("old, new, token, message", [
    ("max_steps: 1000", "max_steps: lots", "lots", "not of type 'integer'"),
    ("{min: 2, max: 3}", "{min: two, max: 3}", "two", "not of type 'integer'"),
    ("score: {value: 0, per_player: true}", "score: {value: 0, per_player: often}", "often",
     "not of type 'boolean'"),
    ("    choices: [2, 3]", "    choices: 2", "2", "not of type 'array'"),
    ("  colour: [red, blue]", "  colour: red", "red", "not of type 'array'"),
    ("    params: [t]", "    params: t", "t", "not of type 'array'"),
])
def test_wrong_type(tmp_path, old, new, token, message):
    text = edit(BASE, (old, new))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, new, token), message)


def test_statement_of_the_wrong_type(tmp_path):
    text = edit(BASE, ("      - rounds += 1\n", "      - 42\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "- 42", "42"))


def test_bad_name_pattern(tmp_path):
    text = edit(BASE, ("  colour: [red, blue]", "  colour: [red, light blue]"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "light blue"), "light blue")


# ---- grammar errors inside rule text: the column in the file ---------------------------------
# `and + 1` is wrong at '+' (no unary plus); `p..hand` is wrong at the second '.'.

@pytest.mark.parametrize("written", [
    "      - move top(bag, option.size - 1) to p..hand",        # plain scalar
    "      - 'move top(bag, option.size - 1) to p..hand'",      # single-quoted
    '      - "move top(bag, option.size - 1) to p..hand"',      # double-quoted
    "      -   move top(bag, option.size - 1) to p..hand",      # more spaces after '-'
    "      - move top(bag, option.size - 1) to p..hand  # comment",
])
def test_grammar_error_in_a_one_line_scalar(tmp_path, written):
    text = edit(BASE, ("      - move top(bag, option.size - 1) to p.hand", written))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "p..hand", ".hand"), "unexpected '.'", "a name")


def test_grammar_error_after_escapes_in_a_double_quoted_scalar(tmp_path):
    # each escape (\") is two characters in the file, one in the text: the column is the file's
    text = edit(BASE, ("    if: t.colour == red\n", '    if: "t.colour == \\"red\\" and + 1"\n'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


def test_grammar_error_after_escapes_in_a_single_quoted_scalar(tmp_path):
    text = edit(BASE, ("    if: t.colour == red\n", "    if: 't.colour == ''red'' and + 1'\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


def test_grammar_error_in_a_multi_line_plain_scalar(tmp_path):
    text = edit(BASE, ("    value: count(t for t in p.hand where t.colour == red)\n",
                       "    value: count(t for t in p.hand\n"
                       "      where t.colour == red and + 1)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


@pytest.mark.parametrize("quote", ['"', "'"])
@pytest.mark.parametrize("second_line", [False, True])
def test_grammar_error_in_a_multi_line_quoted_scalar(tmp_path, second_line, quote):
    if second_line:
        body = f"{quote}count(t for t in p.hand\n      where t.colour == red and + 1){quote}"
    else:
        body = f"{quote}count(t for t in p.hand and + 1\n      where t.colour == red){quote}"
    text = edit(BASE, ("    value: count(t for t in p.hand where t.colour == red)\n",
                       f"    value: {body}\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


@pytest.mark.parametrize("style", [">-", ">", "|", "|-", ">+"])
def test_grammar_error_in_a_block_scalar(tmp_path, style):
    text = edit(BASE, ("    value: count(t for t in p.hand where t.colour == red)\n",
                       f"    value: {style}\n"
                       "      count(t for t in p.hand\n"
                       "      where t.colour == red and + 1)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


@pytest.mark.parametrize("style", [">-", "|"])
def test_grammar_error_in_a_block_scalar_after_a_blank_line(tmp_path, style):
    text = edit(BASE, ("    value: count(t for t in p.hand where t.colour == red)\n",
                       f"    value: {style}\n"
                       "      count(t for t in p.hand\n"
                       "\n"
                       "      where t.colour == red and + 1)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


@pytest.mark.parametrize("style", [">-", "|"])
def test_grammar_error_in_a_block_scalar_with_a_more_indented_line(tmp_path, style):
    text = edit(BASE, ("    value: count(t for t in p.hand where t.colour == red)\n",
                       f"    value: {style}\n"
                       "      count(t for t in p.hand\n"
                       "            where t.colour == red and + 1)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


def test_grammar_error_in_a_block_scalar_with_explicit_indentation(tmp_path):
    text = edit(BASE, ("    value: count(t for t in p.hand where t.colour == red)\n",
                       "    value: |2\n"
                       "        count(t for t in p.hand\n"
                       "        where t.colour == red and + 1)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and + 1", "+"), "unexpected '+'")


def test_grammar_error_in_a_block_scalar_statement(tmp_path):
    text = edit(BASE, ("      - move t to board[c]\n",
                       "      - >-\n"
                       "        move t\n"
                       "        to board[c]]\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "[c]]\n", "]\n"), "unexpected ']'")


def test_keyword_used_twice_is_reported_at_the_keyword(tmp_path):
    # `and`, `or`, `to` are keywords: `red and and` is wrong at the second `and`, which is
    # not an unknown name (and `hand` is no help)
    text = edit(BASE, ("    if: t.colour == red\n", "    if: t.colour == red and and\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "and and\n", "and\n"), "unexpected 'and'")
    assert "hand" not in err.hint, str(err)


def test_keyword_to_used_twice_is_reported_at_the_keyword(tmp_path):
    text = edit(BASE, ("      - move t to board[c]\n", "      - move t to to board[c]\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "to to board", "to board"), "unexpected 'to'")


def test_unexpected_character(tmp_path):
    text = edit(BASE, ("      - rounds += 1\n", "      - rounds += 1 ! 2\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "1 ! 2", "!"), "'!'")


def test_unexpected_end_of_rule_text(tmp_path):
    # the caret goes where something is missing: just after the text
    text = edit(BASE, ("      - rounds += 1\n", "      - rounds +=\n"))
    path, err = validate_error(tmp_path, text)
    line, col = at(text, "rounds +=")
    check(err, path, text, (line, col + len("rounds +=")), "end of the text", "expected")


def test_grammar_error_lists_what_was_expected(tmp_path):
    text = edit(BASE, ("      - move t to board[c]\n", "      - move t board[c]\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "t board[c]", "board"), "unexpected 'board'", "'to'")


def test_grammar_error_in_a_label_field(tmp_path):
    # the field `c +` ends where '}' is: that is where an operand is missing
    text = edit(BASE, ('label: "put {t} on column {c}"', 'label: "put {t} on column {c +}"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "{c +}", "}"), "end of the text")


def test_grammar_error_in_a_flow_sequence_item(tmp_path):
    text = edit(BASE, ("      - rounds += 1\n      - call place\n",
                       "      - rounds += 1\n      - {do: [call place, rounds += += 1]}\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "+= += 1", "+= 1"), "unexpected '+='")


# ---- names, attributes, arity ---------------------------------------------------------------

def test_unknown_name_with_did_you_mean(tmp_path):
    text = edit(BASE, ("      - move top(bag, option.size - 1) to p.hand",
                       "      - move top(bagg, option.size - 1) to p.hand"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "bagg"), "unknown name 'bagg'", "did you mean 'bag'?")


def test_unknown_name_in_a_block_scalar(tmp_path):
    text = edit(BASE, ("    value: count(t for t in p.hand where t.colour == red)\n",
                       "    value: >-\n"
                       "      count(t for t in p.hand\n"
                       "      where t.colour == rde)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "rde)"), "unknown name 'rde'", "did you mean 'red'?")


def test_unknown_name_in_a_component_expression(tmp_path):
    text = edit(BASE, ("      colour: values(colour)", "      colour: values(colur)"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "colur"), "unknown name 'colur'", "did you mean 'colour'?")


def test_unknown_name_in_a_label_field(tmp_path):
    text = edit(BASE, ('label: "put {t} on column {c}"', 'label: "put {tt} on column {c}"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "{tt}", "tt"), "unknown name 'tt'")


def test_unknown_option_in_a_rule(tmp_path):
    text = edit(BASE, ("option.size - 1", "option.sise - 1"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "sise"), "unknown option 'sise'", "did you mean 'size'?")


def test_unknown_piece_attribute_with_did_you_mean(tmp_path):
    text = edit(BASE, ("    if: t.colour == red\n", "    if: t.colr == red\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "colr"), "no attribute 'colr'", "did you mean 'colour'?")


def test_unknown_player_zone(tmp_path):
    text = edit(BASE, ("option.size - 1) to p.hand", "option.size - 1) to p.hnd"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "hnd"), "'hnd'", "did you mean 'hand'?")


def test_unknown_player_variable(tmp_path):
    text = edit(BASE, ("value: player.score + reds(player)", "value: player.scor + reds(player)"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "scor +"), "'scor'", "did you mean 'score'?")


def test_assignment_to_an_unknown_player_variable(tmp_path):
    text = edit(BASE, ("current.score += 1", "current.scor += 1"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "scor +="), "'scor'", "did you mean 'score'?")


def test_assignment_to_an_unknown_variable(tmp_path):
    text = edit(BASE, ("      - rounds += 1\n", "      - round += 1\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "round +="), "'round'", "did you mean 'rounds'?")


def test_per_player_zone_without_a_player(tmp_path):
    text = edit(BASE, ("option.size - 1) to p.hand", "option.size - 1) to hand"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, ") to hand", "hand"), "per-player zone", "p.hand")


def test_unknown_function_with_did_you_mean(tmp_path):
    text = edit(BASE, ("      - if: size(bag) > 0", "      - if: sise(bag) > 0"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "sise("), "unknown function 'sise'",
          "did you mean 'size'?")


def test_wrong_arity_of_a_builtin(tmp_path):
    text = edit(BASE, ("          - move top(bag) to current.hand",
                       "          - move top(bag, 1, 2) to current.hand"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "top(bag, 1, 2)"), "top() takes 1 to 2 arguments, not 3")


def test_wrong_arity_of_a_spec_function(tmp_path):
    text = edit(BASE, ("reds(player)", "reds(player, 1)"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "reds(player, 1)"), "reds() takes 1 argument, not 2")


@pytest.mark.parametrize("call", ["call gain()", "call gain", "call gain(t, t)"])
def test_wrong_arity_of_a_rule_call(tmp_path, call):
    text = edit(BASE, ("      - call gain(t)", f"      - {call}"))
    path, err = validate_error(tmp_path, text)
    n = 2 if "t, t" in call else 0
    # the offending token is the rule's name (as for functions), not the word `call`
    check(err, path, text, at(text, call, "gain"), f"rule 'gain' takes 1 argument, not {n}",
          "its parameters: t")


def test_call_of_an_undefined_rule_with_did_you_mean(tmp_path):
    text = edit(BASE, ("      - call place\n", "      - call plac\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "call plac", "plac"), "undefined rule 'plac'",
          "did you mean 'place'?")


def test_rule_that_is_never_called(tmp_path):
    text = edit(BASE, ("  gain:\n", "  unused:\n    do:\n      - rounds += 1\n\n  gain:\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "unused:"), "rule 'unused' is never called", "call it")


def test_rule_called_only_by_an_uncalled_rule(tmp_path):
    text = edit(BASE, ("  gain:\n", "  orphan:\n    do:\n      - call orphan2\n\n"
                                    "  orphan2:\n    do:\n      - rounds += 1\n\n  gain:\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "orphan:"), "rule 'orphan' is never called")


def test_name_clash_between_sections(tmp_path):
    text = edit(BASE, ("  rounds: {value: 0}", "  rounds: {value: 0}\n  bag: {value: 0}"))
    path, err = validate_error(tmp_path, text)
    zone_line, _ = at(text, "  bag:\n    kind")
    check(err, path, text, at(text, "bag: {value: 0}"),
          f"'bag' names both a zone (line {zone_line})", "its own name")


def test_step_id_used_twice(tmp_path):
    text = edit(BASE, ("      - if: size(bag) > 0\n", "      - id: turn\n        if: size(bag) > 0\n"))
    path, err = validate_error(tmp_path, text)
    first, _ = at(text, "  - id: turn\n    turns")
    check(err, path, text, at(text, "id: turn\n        if", "turn"), "'turn' is used twice",
          f"line {first}")


# ---- enums and types ------------------------------------------------------------------------

@pytest.mark.parametrize("written, token", [
    ("t.colour == 'rde'", "'rde'"),
    ("\"'rde' == t.colour\"", "'rde'"),          # quoted in YAML: it starts with a quote
    ("t.colour != \"bleu\"", '"bleu"'),
])
def test_enum_attribute_compared_with_a_string_that_is_not_a_value(tmp_path, written, token):
    text = edit(BASE, ("    if: t.colour == red\n", f"    if: {written}\n"))
    path, err = validate_error(tmp_path, text)
    bad = token.strip("'\"")
    check(err, path, text, at(text, written, token), f"'{bad}' is not a colour",
          "did you mean")


def test_enum_value_in_a_list_membership(tmp_path):
    text = edit(BASE, ("    if: t.colour == red\n", "    if: \"'rd' in [t.colour]\"\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "'rd' in"), "'rd' is not a colour", "did you mean 'red'?")


def test_type_error_moving_a_number(tmp_path):
    text = edit(BASE, ("      - move t to board[c]\n", "      - move per_colour to board[c]\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "per_colour to"), "cannot move a number")


def test_type_error_moving_to_a_piece(tmp_path):
    text = edit(BASE, ("      - move t to board[c]\n", "      - move t to top(bag)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "top(bag)\n      - call gain"), "cannot move pieces to a piece")


def test_type_error_moving_to_a_zone_of_several_slots(tmp_path):
    text = edit(BASE, ("      - move t to board[c]\n", "      - move t to board\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "to board\n", "board"), "cannot move pieces to zone 'board'",
          "slots")


def test_match_case_that_is_not_a_value_of_the_enum(tmp_path):
    text = edit(BASE, ("    if: t.colour == red\n    then:\n      - current.score += 1\n",
                       "    match: t.colour\n    cases:\n      red:\n        - current.score += 1\n"
                       "      bleu:\n        - current.score -= 1\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "bleu:"), "'bleu' is not a colour", "did you mean 'blue'?")


def test_type_error_less_than_on_pieces(tmp_path):
    text = edit(BASE, ("    if: t.colour == red\n", "    if: t < top(bag)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "t < top(bag)"), "'<' compares numbers, not a piece")


def test_type_error_indexing_a_number(tmp_path):
    text = edit(BASE, ("      - if: size(bag) > 0", "      - if: per_colour[0] > 0"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "per_colour[0]"), "a number cannot be indexed")


def test_type_error_arithmetic_on_a_piece(tmp_path):
    text = edit(BASE, ("      - rounds += 1\n", "      - rounds += top(bag) + 1\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "top(bag) + 1"), "must be a number, not a piece")


def test_type_error_comparing_a_piece_with_a_number(tmp_path):
    text = edit(BASE, ("    if: t.colour == red\n", "    if: t == 3\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "t == 3"), "cannot compare a piece with a number")


def test_type_error_attribute_of_a_number(tmp_path):
    text = edit(BASE, ("      - if: size(bag) > 0", "      - if: per_colour.colour > 0"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "colour > 0"), "a number has no attribute 'colour'")


def test_type_error_choosing_from_a_number(tmp_path):
    text = edit(BASE, ("c in open_slots(board)", "c in per_colour"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "c in per_colour", "per_colour"), "cannot choose from a number")


def test_function_used_as_a_value(tmp_path):
    text = edit(BASE, ("reds(player)", "reds"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "reds\n"), "'reds' is a function", "reds(")


def test_recursive_function(tmp_path):
    text = edit(BASE, (
        "    value: count(t for t in p.hand where t.colour == red)\n",
        "    value: count(t for t in p.hand where t.colour == red) + reds(p)\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "reds(p)"), "function 'reds' calls itself", "recursive")


def test_mutually_recursive_functions(tmp_path):
    text = edit(BASE, (
        "    value: count(t for t in p.hand where t.colour == red)\n",
        "    value: blues(p)\n"
        "  blues:\n"
        "    params: [p]\n"
        "    value: reds(p) + 1\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "reds(p) + 1"), "function 'reds' calls itself")


def test_zone_capacity_that_is_not_a_list(tmp_path):
    text = edit(BASE, ("capacities: [3, 3]", "capacities: per_colour"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "per_colour\n    visibility: public"), "capacities")


def test_component_in_an_unknown_zone(tmp_path):
    text = edit(BASE, ("    zone: bag\n", "    zone: bga\n"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "bga"), "unknown zone 'bga'", "did you mean 'bag'?")


def test_component_name_template_with_an_unknown_attribute(tmp_path):
    text = edit(BASE, ('name: "{colour}"', 'name: "{color}"'))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, '"{color}"', "color"), "color")


# ---- options and player counts --------------------------------------------------------------

def test_unknown_option_on_the_command_line(tmp_path):
    path = write(tmp_path, BASE)
    err = raised(lambda: Spec(path).options({"nope": 1}))
    # nothing in the file is wrong: point at the options the game declares
    check(err, path, BASE, at(BASE, "options:"), "unknown option 'nope'", "size")


def test_unknown_option_on_the_command_line_with_did_you_mean(tmp_path):
    path = write(tmp_path, BASE)
    err = raised(lambda: load_game(path, options={"sise": "2"}))
    check(err, path, BASE, at(BASE, "options:"), "unknown option 'sise'",
          "did you mean 'size'?")


@pytest.mark.parametrize("value", [5, "5"])
def test_option_value_not_among_the_choices(tmp_path, value):
    path = write(tmp_path, BASE)
    err = raised(lambda: Spec(path).options({"size": value}))
    check(err, path, BASE, at(BASE, "choices: [2, 3]", "["), "size=5 is not one of 2, 3")


def test_option_value_of_the_wrong_type(tmp_path):
    path = write(tmp_path, BASE)
    err = raised(lambda: Spec(path).options({"size": "big"}))
    check(err, path, BASE, at(BASE, "choices: [2, 3]", "["), "size")
    assert "number" in (err.message + err.hint)


def test_bool_option_value_of_the_wrong_type(tmp_path):
    text = edit(BASE, ("    choices: [2, 3]\n", "    choices: [2, 3]\n"
                                               "  fast:\n    default: false\n"))
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).options({"fast": "maybe"}))
    check(err, path, text, at(text, "default: false", "false"), "fast")
    assert "true or false" in (err.message + err.hint)


@pytest.mark.parametrize("players", [1, 4])
def test_player_count_out_of_range(tmp_path, players):
    path = write(tmp_path, BASE)
    err = raised(lambda: Spec(path).game(players))
    check(err, path, BASE, at(BASE, "{min: 2, max: 3}"), f"2 to 3 players, not {players}")


def test_player_count_out_of_range_through_load_game(tmp_path):
    path = write(tmp_path, BASE)
    err = raised(lambda: load_game(path, players=9))
    check(err, path, BASE, at(BASE, "{min: 2, max: 3}"), "not 9")


def test_option_restricted_to_a_player_count(tmp_path):
    text = edit(BASE, ("    choices: [2, 3]\n", "    choices: [2, 3]\n"
                                               "    players:\n      3: {min: 2, max: 2}\n"))
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).game(3, {"size": 3}))
    check(err, path, text, at(text, "3: {min: 2, max: 2}", "{"), "for 2 to 2 players, not 3")


def test_player_range_inverted(tmp_path):
    text = edit(BASE, ("{min: 2, max: 3}", "{min: 3, max: 2}"))
    path, err = validate_error(tmp_path, text)
    check(err, path, text, at(text, "{min: 3, max: 2}"), "max")


# ---- running: runaway games and run-time failures --------------------------------------------

RUNAWAY = edit(BASE, (BASE[BASE.index("play:"):BASE.index("scoring:")],
                      "play:\n"
                      "  - id: turn\n"
                      "    turns:\n"
                      "      first: \"0\"\n"
                      "    do:\n"
                      "      - rounds += 1\n"
                      "\n"))


def test_runaway_game_is_stopped_at_max_steps(tmp_path):
    path = write(tmp_path, RUNAWAY)
    Spec(path).validate()            # a valid spec: the loop is only found by running it
    t0 = time.perf_counter()
    err = raised(lambda: load_game(path).new_state(seed=0), RuleError, seconds=10)
    assert time.perf_counter() - t0 < 2.0
    check(err, path, RUNAWAY, at(RUNAWAY, "rounds += 1"), "more than 1000 steps", "max_steps")


def test_runaway_while_loop_is_stopped(tmp_path):
    text = edit(RUNAWAY, ("  - id: turn\n    turns:\n      first: \"0\"\n",
                          "  - while: rounds >= 0\n    max: 100000000\n"))
    path = write(tmp_path, text)
    err = raised(lambda: load_game(path).new_state(seed=0), RuleError, seconds=10)
    check(err, path, text, at(text, "rounds += 1"), "1000 steps", "max_steps")


def test_while_loop_over_its_max_is_stopped(tmp_path):
    text = edit(RUNAWAY, ("  - id: turn\n    turns:\n      first: \"0\"\n",
                          "  - while: rounds >= 0\n    max: 10\n"))
    path = write(tmp_path, text)
    err = raised(lambda: load_game(path).new_state(seed=0), RuleError, seconds=10)
    check(err, path, text, at(text, "while: rounds"), "more than 10 times", "max")


def test_runaway_recursion_between_rules_is_stopped(tmp_path):
    text = edit(BASE, ("      - call place\n", "      - call again\n      - call place\n"),
                ("  gain:\n", "  again:\n    do:\n      - call again\n\n  gain:\n"))
    path = write(tmp_path, text)
    Spec(path).validate()
    err = raised(lambda: load_game(path).new_state(seed=0), RuleError, seconds=10)
    check(err, path, text, at(text, "    do:\n      - call again", "call"), "deeper than",
          "stop")


def test_move_to_a_missing_slot_at_run_time(tmp_path):
    text = edit(BASE, ("      - move t to board[c]\n", "      - move t to board[c + 5]\n"))
    path = write(tmp_path, text)
    Spec(path).validate()
    st = load_game(path).new_state(seed=0)
    err = raised(lambda: st.apply(st.legal_actions()[0]), RuleError)
    check(err, path, text, at(text, "board[c + 5]"), "slots 0..1, not 5")


def test_move_into_a_full_zone_at_run_time(tmp_path):
    text = edit(BASE, ("capacities: [3, 3]", "capacities: [0, 0]"),
                ("c in open_slots(board)", "c in slots(board)"))
    path = write(tmp_path, text)
    Spec(path).validate()
    st = load_game(path).new_state(seed=0)
    err = raised(lambda: st.apply(st.legal_actions()[0]), RuleError)
    check(err, path, text, at(text, "move t to board[c]"), "holds at most 0")


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


def test_max_of_nothing_at_run_time(tmp_path):
    text = edit(BASE, ("value: player.score + reds(player)",
                       "value: player.score + max(t.colour == red for t in board[0])"))
    path = write(tmp_path, text)
    Spec(path).validate()
    st = load_game(path).new_state(seed=0)
    err = raised(lambda: st.scores(), RuleError)
    check(err, path, text, at(text, "max(t.colour"), "max() of nothing", "default")


@pytest.mark.parametrize("old,new,where", [
    ("      - call place\n", "      - let to = 1\n      - call place\n", "to = 1"),
    ("      - call place\n", "      - let n = sum(1 for of in players)\n      - call place\n",
     "of in players"),
])
def test_a_word_of_the_language_cannot_name_a_local(tmp_path, old, new, where):
    text = edit(BASE, (old, new))
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).validate())
    check(err, path, text, at(text, where), "is a word of the language", "another name")


def test_a_word_of_the_language_cannot_name_a_variable_or_a_parameter(tmp_path):
    text = edit(BASE, ("variables:\n", "variables:\n  where: {value: 0}\n"))
    path = write(tmp_path, text)
    err = raised(lambda: Spec(path).validate())
    check(err, path, text, at(text, "where: {value"), "cannot name a variable")


def test_an_error_with_no_position_names_no_place():
    """An error about no file (a spec path no file can have, say) says so, not '<input>'."""
    assert str(SpecError("no such spec: x", hint="h")) == "error: no such spec: x\n  hint: h"
    assert str(SpecError("m", Pos("a.yaml"))) == "a.yaml: error: m"
