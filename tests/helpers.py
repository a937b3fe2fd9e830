"""Helpers the test files share (imported by conftest.py, and by a test file as
`from helpers import ...`; never `from test_x import ...`, which runs test_x's module
again under another name).

Input: nothing but the package. Output:
- BASE, a small valid spec (not Medang), and the tools to break it and check the error:
  `edit` (replace text that occurs once), `at` (the line and column of a token, computed
  from the text, never counted by hand), `write`, `raised` (the error a call raises, with
  a time limit), `check` (the error is located there, says that, quotes the line with a
  caret) and `validate_error` (write, validate, return the error);
- rows of tables of such cases: `located` (an id, edits to BASE, where the error is, what
  it says), checked by `assert_refused`;
- SCORE, BASE's scoring formula (the text hostile tests replace);
- hostile files: `alias_bomb`, `make_special_files` (files that are not specs: a secret,
  a FIFO, a 3 GB sparse file, a symlink loop, devices) and what each is refused with;
- DUEL, a three-player simultaneous game in which player 2 never chooses;
- GENERATED, every name generated code may use.
"""

from __future__ import annotations

import os
import random
import re
import signal
import textwrap
from contextlib import contextmanager
from pathlib import Path

import pytest

from tabula_rules.compiler.codegen import SAFE_BUILTINS
from tabula_rules.errors import MAX_INPUT_BYTES, SpecError
from tabula_rules.spec import Spec, load_game
from tabula_rules.tools.cli import main

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

# a spec of two boards and nothing to play: a 4x3 grid `board`, a 3x3 hex board `hexes`
# and a one-slot `bowl` (geometry tests: test_language.py, test_lines.py)
BOARDS = """\
game: {id: g, name: G, source: none, players: {min: 2, max: 2}}
components:
  stone: {zone: bowl}
zones:
  bowl: {kind: set, visibility: public}
  board: {kind: grid, width: 4, height: 3, visibility: public}
  hexes: {kind: hex, width: 3, height: 3, visibility: public}
play: []
"""


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


WALL_FACTOR = 10        # the wall-clock backstop: this many times the CPU limit, at least
WALL_LEAST = 120.0      # two minutes (a loaded two-core machine runs a test at half speed
                        # or less; only a call blocked without working waits this long)


@contextmanager
def time_limit(seconds: float):
    """Fail a call (Hung) that works longer than `seconds` of this process's CPU time
    (ITIMER_PROF: a loaded machine slows the clock on the wall, not the work), or that
    blocks far longer than that by the wall clock (a backstop against a call that waits
    without working)."""
    wall = max(seconds * WALL_FACTOR, WALL_LEAST)

    def on_cpu(signum, frame):
        raise Hung(f"no answer within {seconds} s of CPU time")

    def on_wall(signum, frame):
        raise Hung(f"no answer within {wall} s")
    old_cpu = signal.signal(signal.SIGPROF, on_cpu)
    old_wall = signal.signal(signal.SIGALRM, on_wall)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, wall)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old_cpu)
        signal.signal(signal.SIGALRM, old_wall)


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


# ---- tables of located errors -------------------------------------------------------------

def located(name: str, edits: tuple, where, message: str | None = None,
            hint: str | None = None, first: str | None = None):
    """A row: BASE with `edits` (one (old, new) pair or a tuple of them) is refused at
    `where`, its message holding `message` and its hint `hint` (substrings, any case).
    `first`: a needle for the line of an earlier definition, written {first} in the
    message or the hint."""
    return pytest.param(edits, where, message, hint, first, id=name)


def pairs(edits: tuple) -> tuple:
    """A row's edits as a tuple of (old, new) pairs (a row may write one pair alone)."""
    return (edits,) if isinstance(edits[0], str) else edits


def position(text: str, where) -> tuple:
    """(line, col) of a row's `where`: a needle, (needle, token) or (line, col)."""
    if isinstance(where, str):
        return at(text, where)
    if isinstance(where[0], int):
        return where
    return at(text, *where)


def assert_refused(tmp_path, edits, where, message, hint, first):
    """Validating BASE with `edits` raises a SpecError located at `where`."""
    text = edit(BASE, *pairs(edits))
    if first is not None:
        line = at(text, first)[0]
        message = message and message.format(first=line)
        hint = hint and hint.format(first=line)
    path, err = validate_error(tmp_path, text)
    check(err, path, text, position(text, where), message, hint)


# ---- BASE's scoring formula, and hostile files ---------------------------------------------

SCORE = "value: player.score + reds(player)"


def alias_bomb(copies_of_l1: int) -> str:
    """YAML naming a 50 KB text once and reaching it 100 * copies_of_l1 times."""
    big = "x" * 50_000
    return "\n".join([f"s: &s '{big}'",
                      "l1: &l1 [" + ",".join(["*s"] * 100) + "]",
                      "l2: [" + ",".join(["*l1"] * copies_of_l1) + "]", ""])


SECRET = "API_TOKEN=hunter2-very-secret"


def make_special_files(tmp_path) -> dict:
    """name -> a path that is not a spec (made in tmp_path, so the test needs no /proc);
    the `special_files` fixture of conftest.py."""
    (tmp_path / "secret.txt").write_text(SECRET + "\n" + SECRET + "\n")
    (tmp_path / "secret0.txt").write_bytes((SECRET + "\0OTHER=x\0").encode())
    (tmp_path / "list.yaml").write_text("- " + SECRET + "\n- b\n")
    (tmp_path / "mapping.yaml").write_text(f"{SECRET.split('=')[0]}: {SECRET}\n")
    (tmp_path / "bad.yaml").write_text(f"key: [{SECRET}\n")
    os.symlink("loop_b.yaml", tmp_path / "loop_a.yaml")
    os.symlink("loop_a.yaml", tmp_path / "loop_b.yaml")
    os.mkfifo(tmp_path / "fifo.yaml")
    with open(tmp_path / "sparse.yaml", "wb") as f:
        f.truncate(3 * 1024 ** 3)                      # 3 GB of nothing, instantly
    return {"text": "secret.txt", "nul": "secret0.txt", "list": "list.yaml",
            "mapping": "mapping.yaml", "bad yaml": "bad.yaml", "loop": "loop_a.yaml",
            "fifo": "fifo.yaml", "sparse": "sparse.yaml", "device": "/dev/zero",
            "urandom": "/dev/urandom"}


# what each special file is refused with
EXPECTED = {"text": "not a spec", "nul": "not a spec", "list": "not a spec",
            "mapping": "not a spec", "bad yaml": "not a spec", "loop": "symbolic link loop",
            "fifo": "not a regular file", "sparse": f"more than {MAX_INPUT_BYTES} bytes",
            "device": "not a regular file", "urandom": "not a regular file"}


# ---- games and names shared by the adapter and generated-code tests ------------------------

# three players bid at a simultaneous decision where player 2 has no choice
DUEL = """
game: {id: duel, name: Duel, source: a test, players: {min: 3, max: 3}, max_steps: 1000}
variables:
  rounds: {value: 0}
  total: {value: 0, per_player: true}
play:
  - id: rounds
    while: rounds < 2
    max: 10
    do:
      - id: bid
        choose: k in range(0, 1) where p != 2
        simultaneous: p in players
        label: "bid {k}"
        do:
          - p.total += k
      - rounds += 1
scoring:
  points:
    total:
      value: player.total
"""

# every name the generated code may use: its own mangled names and helpers, Python's
# keywords and the builtins it is given, and the state's attributes
GENERATED = re.compile(r"[KvFEIDGAsmrwtVah][0-9]+|n|x|first|todo|here|pop|[BR]_[a-z_0-9]+|st|fr|L|"
                       r"key|facts|known|found|out|tracked|gather|vals|order|best|B_VIEW_SKIP|"
                       r"seen|MISSING|slots|where|gv|pv|pa|current|fired|finish|get|append|"
                       r"clear|add|steps|values|def|return|if|else|elif|for|in|not|and|or|"
                       r"is|None|True|False|pass|continue|while|lambda|default|" +
                       "|".join(SAFE_BUILTINS))


# ---- a random game, as a record to compare ---------------------------------------------

def random_trail(game, seed: int) -> list:
    """A seeded random game: at every decision the player, the legal actions and their
    strings; at the end the scores (two compilings of one spec must give the same)."""
    st = game.new_state(seed=seed)
    rng = random.Random(seed)
    trail: list = []
    while not st.terminal:
        acts = st.legal_actions()
        trail.append((st.current_player(), tuple(acts), tuple(st.legal_action_strings())))
        st.apply(acts[int(rng.random() * len(acts))])
    return trail + [st.scores()]


# ---- the command line, in process ------------------------------------------------------

def run(capsys, *argv):
    """`tabula ARGV...` in this process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(capsys, *argv) -> str:
    """`tabula ARGV...` refused as a usage error (exit code 2): what it printed on stderr."""
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in argv])
    assert e.value.code == 2
    return capsys.readouterr().err


def random_game(game, seed: int) -> tuple:
    """A game played to its end by a generator seeded with `seed` (chance drawn, every
    choice at random): the action strings in order and player 0's last observation (the
    referees' check that the same seed gives the same game)."""
    st, rng, seen = game.new_state(seed=seed), random.Random(seed), []
    while not st.is_terminal():
        acts = st.legal_actions()
        act = (st.sample_chance(rng) if st.is_chance_node()
               else acts[int(rng.random() * len(acts))])
        seen.append(st.action_to_string(act))
        st.apply(act)
    return seen, st.observation(0)


def mutant(tmp_path, spec_path, change: str, players: int | None = None,
           recall: bool = False, options: dict | None = None):
    """The game of a variant of `spec_path` made by `change` (the variant's YAML below
    `extends:`, e.g. an `override:` of one function): a spec with one rule broken, to
    show that a lockstep test or a referee notices. recall=True for the information
    states."""
    variant = tmp_path / "mutant.yaml"
    variant.write_text(f"extends: {spec_path}\ngame: {{id: mutant, name: Mutant}}\n"
                       + textwrap.dedent(change))
    return load_game(variant, players=players, options=options, recall=recall)


# Odds and evens: each player shows 1 or 2 at once (a simultaneous decision), twice; the
# choosers are listed as CHOOSERS says (players, or [players[1], players[0]])
MORRA = """\
game: {id: morra, name: Odds and evens, source: a test, players: {min: 2, max: 2}}
variables:
  shown: {value: 0, per_player: true}
  wins: {value: 0, per_player: true}
play:
  - id: round
    repeat: 2
    do:
      - id: show
        choose: f in range(1, 2)
        simultaneous: p in CHOOSERS
        label: "show {f}"
        do:
          - p.shown = f
      - if: (sum(q.shown for q in players)) % 2 == 0
        then:
          - players[0].wins += 1
        else:
          - players[1].wins += 1
scoring:
  points:
    wins:
      value: player.wins
"""
