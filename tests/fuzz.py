"""Fuzzing Tabula with hostile input: mutated specs, rule text, scenario files, tampered
game logs, damaged files of `tabula simulate` resumed and command lines, plus the
hand-made inputs of the hostile-input issue.

Every input must give a result or a located error (a TabulaError; exit code 0, 1 or 2
from the command line), and the campaign counts what the issue's "Done when" names:

- tracebacks: an exception other than a located error escaping the interpreter (or the
  command line's `main`), an exit code other than 0, 1 or 2, or a MemoryError;
- hangs: an input that takes longer than --slow seconds (20), stopped by an alarm
  (SIGALRM) and counted, the campaign going on with the next input;
- memory: the script runs under RLIMIT_AS 1 GB (so a process over 1 GB is a MemoryError,
  a traceback) and reports its peak resident memory;
- accepted tampered logs: a recorded game log, edited, that `tabula replay` accepts
  (exit 0) although it claims another game than the one recorded (docs/fuzzing.md says
  what "the same game" is);
- simulate --resume broken: a refused resume that changed the file, or a resume that
  lost a line of the file or a game of the run;
- leaks: output (stdout, stderr, an error's message) holding the canary, a random token
  planted in the process's environment and in files that are not specs (which the
  mutations name: `extends:`, a scenario's `spec:`, a log's `spec_path`, the command
  line), or Python internals (`Traceback`, `<class '`, ` object at 0x`, `__class__`,
  `__subclasses__`) that the input itself did not contain.

The default test suite runs a short campaign and hypothesis properties
(tests/test_fuzz.py); the long run is this file as a script (docs/fuzzing.md):

    python tests/fuzz.py --inputs 10000 --seed 2

It prints a summary and writes every finding, with the input that caused it, to --out.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the specs that are mutated: the first five most often, every shipped spec now and then
# (a variant's `extends:` made absolute, so that it still finds its base in the folder)
SPECS = [ROOT / "specs" / "medang" / "medang.yaml", ROOT / "specs" / "medina" / "medina.yaml",
         ROOT / "examples" / "tiny" / "tiny.yaml", ROOT / "examples" / "kuhn_poker" /
         "kuhn_poker.yaml", ROOT / "examples" / "goofspiel" / "goofspiel.yaml"]
MORE_SPECS = sorted(set((ROOT / "examples").glob("*/*.yaml")) |
                    set((ROOT / "specs").glob("*/*.yaml")) - set(SPECS))
# the games whose logs are recorded and tampered with (medina, long, now and then)
LOG_SPECS = [ROOT / "examples" / "tiny", ROOT / "examples" / "kuhn_poker",
             ROOT / "examples" / "tic_tac_toe", ROOT / "examples" / "goofspiel"]
LOG_SPEC_RARE = ROOT / "specs" / "medina"
# the scenario files that are mutated (their `spec:` made absolute first)
SCENARIOS = sorted((ROOT / "examples" / "kuhn_poker" / "tests").glob("*.yaml")) + \
    sorted((ROOT / "examples" / "tic_tac_toe" / "tests").glob("*.yaml")) + \
    sorted((ROOT / "examples" / "goofspiel" / "tests").glob("*.yaml")) + \
    [ROOT / "specs" / "medina" / "tests" / "tea.yaml",
     ROOT / "specs" / "medang" / "tests" / "effects.yaml"]
# pieces of text a mutation inserts: rule-language words, YAML structure, hostile values
TOKENS = ["not ", "(", ")", "[", "]", "{", "}", ":", "- ", "  ", "\n", "#", "'", '"', "&a",
          "*a", "!!python/object", "9" * 60, "-1", "0", "none", "current", "players",
          "size(", "sum(", "for x in ", " where ", " and ", " or ", "/", "//", "%",
          "{n.__class__}", "{n:>99}", "\x00", "\x0c", "\t", "é", "move ", " to ", "let ",
          "end game", "call ", "range(1, 100000)", "choose: ", "player: 7", "max_steps: 0"]
# and in a scenario file: its keys, odd player keys and values
SCENARIO_TOKENS = ["current: 99", "current: chance", "players: 0", "players: 99", "seed: -1",
                   "seed: 99999999999999999999", "{~: [a]}", "{[1]: x}", "{0: 1}", "99: ",
                   "null: ", "start: setup", "expect: {error: x}", "joint: {0: a}",
                   "map: |", "legend: {X: [a, b]}", "strict: true", "given: ", "do: ",
                   "expect: ", "zones: ", "variables: ", "sizes: {0: 3}", "legal: ",
                   "returns: [1]", "points: {x: [1, 2, 3]}", "'7/3'", "terminal: 1",
                   "{piece: x, attributes: {y: 1}}", "- {action: x, player: 9}"]
# YAML escapes of a lone surrogate, a control character and an astral character, in and
# out of a double-quoted string (the loader refuses what a file may not hold raw)
ESCAPE_TOKENS = ['"x\\ud800"', "\\udfff", '"\\U0001F600"', '"\\e[31m"', '"\\0"']
# Python internals no output may show unless the input itself holds them
INTERNALS = ["Traceback", "<class '", " object at 0x", "__class__", "__subclasses__"]
CANARY_VAR = "TABULA_FUZZ_CANARY"


class Hang(BaseException):
    """Raised by the alarm when an input takes longer than the campaign allows (a
    BaseException, so that no `except Exception` of the code under test swallows it)."""


def _on_alarm(signum, frame):
    raise Hang()


WALL_FACTOR, WALL_LEAST = 10, 120.0     # the wall-clock backstop of `bounded`


def bounded(fn, seconds: float):
    """fn() under an alarm of `seconds` of this process's CPU time (ITIMER_PROF: a loaded
    machine slows the clock on the wall, not the work), with a wall-clock backstop of ten
    times that, at least 120 s, for an input that waits without working (in the main
    thread; elsewhere unbounded): its result, or Hang raised when the time is up."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        return fn()
    old_cpu = signal.signal(signal.SIGPROF, _on_alarm)
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, max(seconds * WALL_FACTOR, WALL_LEAST))
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old_cpu)
        signal.signal(signal.SIGALRM, old)


# hand-made hostile inputs, one or more per class of the hostile-input issue: each must
# give a located error (or a result) quickly and within bounded memory
HOSTILE_RULES = ["not " * 3000 + "true", " + ".join(["1"] * 3000), "9" * 5000,
                 "(" * 2000 + "1" + ")" * 2000, "[" * 2000 + "]" * 2000]
TINY = (ROOT / "examples" / "tiny" / "tiny.yaml").read_text(encoding="utf-8")
BASE = """\
game: {id: h, name: H, source: none, players: {min: 2, max: 2}%s}
components:
  card:
    name: "%s"
    for_each: {n: "range(1, 3)"}
    count: %s
    zone: deck
zones:
  deck: {kind: stack}
  board: {kind: grid, width: %s, height: %s}
%s
play:
%s
"""


def hostile_specs() -> list:
    """(what, spec text) for each hostile spec of the issue's classes."""
    def spec(game="", name="c{n}", count="1", width="3", height="3", extra="",
             play="  - move top(deck) to board[0, 0]"):
        return BASE % (game, name, count, width, height, extra, play)
    alias = "data:\n  s: {value: &a '" + "x" * 5000 + "'}\n" + "".join(
        f"  t{i}: {{value: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]}}\n" for i in range(2000))
    return [
        ("a count of a billion", spec(count="1000000000")),
        ("10^10 combinations", spec(name="c", count="1").replace(
            'for_each: {n: "range(1, 3)"}',
            'for_each: {a: "range(1, 100000)", b: "range(1, 100000)"}')),
        ("a 10^5 x 10^5 grid", spec(width="100000", height="100000")),
        ("max_steps 10^15", spec(game=", max_steps: 1000000000000000")),
        ("a template walking attributes", spec(name="{n.__class__}")),
        ("a template's format spec", spec(name="{n:>999999999}")),
        ("a template naming nothing", spec(name="{n.nope}")),
        ("a player out of range", spec(play="  - choose: c in deck\n    player: 5\n"
                                            "    do:\n      - move c to board[0, 0]")),
        ("x = x * x in a loop", spec(extra="variables:\n  x: {value: 2}",
                                     play="  - repeat: 100\n    do:\n      - x = x * x")),
        ("mixed key types", spec(extra="data:\n  m: {value: {1: a, x: b}}")),
        ("a NUL character", spec().replace("source: none", "source: no\x00ne")),
        ("an alias bomb", spec(extra=alias)),
        ("a 5,000-digit number", spec(play="  - move top(deck) to board[" + "9" * 5000
                                           + " // " + "9" * 5000 + ", 0]")),
        # found after the issue: compile-time chains and sizes (docs/language.md 9)
        ("a chain of 2,000 functions", spec(
            extra="functions:\n" + "".join(f"  f{i}: {{params: [x], value: 'f{i + 1}(x) + 1'}}\n"
                                           for i in range(2000))
            + "  f2000: {params: [x], value: x}",
            play="  - move top(deck) to board[f0(0) % 3, 0]")),
        ("a chain of 20,000 rules", spec(
            extra="rules:\n" + "".join(f"  r{i}:\n    do:\n      - call r{i + 1}\n"
                                       for i in range(20000))
            + "  r20000:\n    do:\n      - move top(deck) to board[0, 0]",
            play="  - call r0")),
        ("a rule text of 300,000 list items", spec(
            extra="variables:\n  v: {value: 0}",
            play="  - v = sum([" + ", ".join(["1"] * 300_000) + "])")),
        ("190 rule texts of 10,000 characters", spec(
            extra="variables:\n  v: {value: 0}",
            play="".join("  - v = sum([" + ", ".join(["1"] * 3330) + "])\n"
                         for _ in range(190)))),
        ("100,000 statements", spec(extra="variables:\n  v: {value: 0}",
                                    play="  - v += 1\n" * 100_000)),
        ("a quoted text of a million characters", spec(
            extra="data:\n  long: {value: '" + "x" * 1_000_000 + "'}")),
        ("an escape of a lone surrogate", spec(name="c{n}\\ud800")),
    ]


def mutate(text: str, rng: random.Random, tokens: list = TOKENS) -> str:
    """One to four random edits: delete, duplicate or swap lines, insert a token, change
    a character."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(5)
        i = rng.randrange(len(lines))
        if kind == 0 and len(lines) > 1:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            k = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:k] + rng.choice(tokens) + lines[i][k:]
        elif lines[i]:
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k] + chr(rng.randrange(32, 127)) + lines[i][k + 1:]
    return "\n".join(lines)


# ---- one input -------------------------------------------------------------------------------

def check_spec_text(text: str, folder: Path, name: str = "fuzz.yaml", said=None) -> str:
    """Validate and (if valid) play a short random game of a spec text; the outcome:
    'ok', 'error' (a located error, its message appended to `said`), or raises what
    escaped."""
    from tabula_rules.errors import TabulaError
    from tabula_rules.spec import Spec
    path = folder / name
    path.write_text(text, encoding="utf-8", errors="replace")
    try:
        spec = Spec(path)
        game = spec.game()
        st = game.new_state(seed=1)
        for _ in range(200):
            if st.is_terminal():
                break
            a = st.legal_actions()[0]
            st.action_to_string(a).encode("utf-8")     # as printed: text, or it fails
            st.apply(a)
            json.dumps(st.observation(0), ensure_ascii=False).encode("utf-8")
        st.scores()
        return "ok"
    except TabulaError as e:
        if said is not None:
            said.append(str(e))
        return "error"


def check_rule_text(text: str, said=None) -> str:
    from tabula_rules.errors import TabulaError
    from tabula_rules.lang.parser import parse
    for what in ("expression", "statement", "bindings"):
        try:
            parse(text, what)
        except TabulaError as e:
            if said is not None:
                said.append(str(e))
    return "ok"


def run_command(argv: list) -> tuple:
    """Run `tabula ARGV` in-process: (exit code, stdout and stderr). A usage error's
    SystemExit counts as its code; any other exception escapes (a traceback)."""
    from tabula_rules.tools.cli import main
    # streams as a terminal's or a pipe's: UTF-8, stdout strict (a character that cannot
    # be written, a lone surrogate, fails), stderr with backslashes (as Python's own)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
    text = ""
    for stream in (out, err):
        stream.flush()
        text += stream.buffer.getvalue().decode("utf-8", errors="replace")
    return code, text


def check_command(argv: list) -> int:
    """Run `tabula ARGV` in-process; its exit code (a usage error's SystemExit counts)."""
    code, output = run_command(argv)
    if "Traceback" in output:
        raise AssertionError("a traceback reached the user:\n" + output[-2000:])
    return code


def internals(output: str, given: str) -> list:
    """The marks of Python internals in `output` that the input (`given`) did not hold."""
    return [m for m in INTERNALS if m in output and m not in given]


# ---- game logs -------------------------------------------------------------------------------

def game_of(path) -> dict:
    """The game a log claims, as `tabula replay` reads it (gamelog.read_log): the spec (id
    and hash), players, options and seed, every decision (player, turn, tuple, action) in
    order, and the end (decisions, points, scores, winners). Two logs are the same game
    when these are equal as values (1 == 1.0); the agents, the spec's path, the digests,
    the JSON's spacing and key order, and keys the reader ignores are not the game."""
    from tabula_rules.tools.gamelog import read_log
    log = read_log(path)
    head = log.header
    end = log.end or {}
    return {"spec": head["spec"], "spec_hash": head["spec_hash"], "players": head["players"],
            "options": head["options"], "seed": head["seed"],
            "decisions": [[r["player"], r["turn"], r["tuple"], r["action"]]
                          for _, r in log.decisions],
            "end": {k: end.get(k) for k in ("decisions", "points", "scores", "winners")}}


class Recorded:
    """A game played by `tabula run --log`: the log's text, its lines as JSON, the game it
    claims (game_of), and the spec's game, to find the legal alternatives of a decision."""

    def __init__(self, spec: Path, seed: int, agents: list, path: Path):
        from tabula_rules.spec import load_spec
        from tabula_rules.tools.gamelog import read_log
        argv = ["run", str(spec), "--seed", str(seed), "--log", str(path)] + agents
        code, output = run_command(argv)
        if code != 0:
            raise AssertionError(f"tabula {' '.join(argv)}: exit {code}\n{output[-1500:]}")
        self.argv = argv
        self.text = path.read_text(encoding="utf-8")
        self.objs = [json.loads(line) for line in self.text.splitlines()]
        self.game = game_of(path)
        self.log = read_log(path)
        head = self.objs[0]
        self.spec = load_spec(head["spec_path"])
        self.engine = self.spec.game(head["players"], head["options"])
        self.choices = {str(k): [c for c in v.get("choices", [])]
                        for k, v in self.spec.doc.get("options", {}).items()}

    def alternatives(self, k: int) -> list:
        """[(tuple as JSON, action string)] of every legal action at decision k (1-based)
        but the logged one, in the recorded game."""
        from tabula_rules.runtime.values import encode
        from tabula_rules.tools.replay import replay
        st, stop = replay(self.log, self.engine, upto=k - 1)
        if stop is not None or st.pending is None:
            return []
        logged = self.objs[k]["tuple"]
        out = [(json.loads(json.dumps(encode(a))), st.action_to_string(a))
               for a in list(st.pending.actions)[:200]]
        return [(t, s) for t, s in out if t != logged]


# every kind of edit a tampered log gets; "format" keeps the game (and should replay)
TAMPERS = ("legal", "tuple", "string", "other", "swap", "delete", "duplicate", "seed",
           "players", "options", "spec", "spec_hash", "spec_path", "agents", "check", "state",
           "end", "field", "json", "char", "truncate", "format", "version", "combined")
# hostile JSON values a field takes ("json"), as text: JSON's extensions that Python's
# reader takes (NaN, Infinity), a huge number, deep nesting, a lone surrogate, a NUL, ...
JSON_VALUES = ["NaN", "-Infinity", "1e999", "9" * 5000, "[" * 5000 + "]" * 5000,
               '"\\ud800"', '"\\u0000"', '"' + "x" * 100_000 + '"', "true", "null",
               "[]", "{}", '"7/3"', "-0", "0.5", '{"__class__": 1}', '"{n.__class__}"',
               '"\\u202e"', "[1, 2, 3]", '["chance"]']
_TEXT_TAMPERS = ("json", "char", "truncate", "format")
# a log made version 1 (no digests), then another game: replay refuses a version-1 log
# without --unproven, and one still carrying digests with it
_HEADER_TAMPERS = ("seed", "players", "options", "spec", "spec_hash", "agents")


def _run_of(record: dict) -> str:
    """What names a game of a simulate run in its record: its index and the run's seed,
    spec, players, options and agents (its results are not proven: records carry no
    digest, so a record edited in a well-formed way is taken as it is)."""
    return json.dumps([record[k] for k in ("index", "seed", "spec", "spec_hash", "players",
                                           "options", "agents")], sort_keys=True)


def _is_index(x, n: int) -> bool:
    """x is a decision number, 1 to n."""
    return isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= n


def _hex(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(16))


# ---- the campaign ----------------------------------------------------------------------------

class Campaign:
    """A fuzz campaign in a temporary folder: inputs of every kind, each under an alarm,
    and what they found (`found`). The canary is planted in the environment and in files
    of `folder` that are not specs (secret.txt, passwd, environ, secret.yaml) when the
    campaign starts; `close()` takes it out of the environment.
"""

    # the rotation of kinds: of 11 inputs, 3 tampered logs, 2 specs, 2 scenario files,
    # 2 command lines, 1 rule text, 1 damaged file of tabula simulate resumed
    OLD_KINDS = ("spec", "log", "scenario", "command", "rule", "log", "spec", "scenario",
                 "command", "log", "simulate")
    # and of 8 more: 2 specs with grammar-aware rule text, 2 semantic mutations, 2 adapter
    # scripts, 1 endless game, 1 pair of writers of one simulate file
    NEW_KINDS = ("grammar", "semantic", "adapter", "grammar", "endless", "semantic",
                 "adapter", "writers")
    KINDS = OLD_KINDS + NEW_KINDS
    # the lists of findings (each one a reason for exit 1)
    FINDINGS = ("tracebacks", "hangs", "leaks", "accepted_tampered", "resume", "memory",
                "impossible", "code_run", "records")

    def __init__(self, seed: int, folder: Path, slow: float = 20.0, log=print,
                 big: bool = False, memory_mb: int = 1024):
        from tabula_rules.spec import load_spec
        self.rng = random.Random(seed)
        # big (the long run): endless games up to a million steps, else (the default
        # tests) up to 100,000 (the work of a short campaign stays bounded)
        self.big = big
        self.memory_mb = memory_mb
        self.envs: dict = {}
        self.tokens = TOKENS + ESCAPE_TOKENS
        self.folder = Path(folder)
        self.slow = slow
        self.say = log
        self.out: str | None = None    # where findings are written as they come (campaign)
        self.canary = "cnry" + "".join(self.rng.choice("0123456789abcdefghjkmnpqrstvwxyz")
                                       for _ in range(16))
        self.found = {"inputs": 0, "ok": 0, "error": 0, "kinds": {}, "tracebacks": [],
                      "hangs": [], "leaks": [], "accepted_tampered": [], "tampered": 0,
                      "tampered_replayed": 0, "tampered_refused": 0,
                      "tampered_accepted_same": 0, "tamper_kinds": {}, "resume": [],
                      "resumed": 0,
                      "slowest": (0.0, None),
                      # the new kinds' lists of findings and counts
                      "memory": [], "impossible": [], "code_run": [], "records": [],
                      "grammar": dict.fromkeys(("inputs", "typed", "valid", "typed_valid",
                                                "played", "simulated"), 0),
                      "semantic": dict.fromkeys(("inputs", "valid"), 0),
                      "endless": dict.fromkeys(("inputs", "located", "ended", "peak_mb",
                                                "growth_mb"), 0),
                      "adapter": dict.fromkeys(("inputs", "calls", "refused", "loaded",
                                                "tampered", "tampered_loaded"), 0),
                      "writers": dict.fromkeys(("inputs", "refused", "resumed", "killed"), 0)}
        self.texts = {}
        for p in SPECS + MORE_SPECS:
            lines = p.read_text(encoding="utf-8").split("\n")
            for i, line in enumerate(lines):
                if line.startswith("extends:"):
                    lines[i] = f"extends: {(p.parent / line.split(':', 1)[1].strip()).resolve()}"
            self.texts[p] = "\n".join(lines)
        self.scenarios = {}
        for p in SCENARIOS:
            text = p.read_text(encoding="utf-8")
            lines = text.split("\n")
            for i, line in enumerate(lines):
                if line.startswith("spec:"):
                    ref = line.split(":", 1)[1].strip()
                    lines[i] = f"spec: {(p.parent / ref).resolve()}"
            self.scenarios[p] = "\n".join(lines)
        self.started = None         # when the input being run started (the watchdog's)
        self.logs: dict = {}
        (self.folder / "logs").mkdir(exist_ok=True)
        # a variant of each recorded game (another id, so another hash: replay --spec
        # analyses the log under it, and reports every logged action it finds or not)
        self.variants = {}
        self.hashes = [load_spec(p).hash for p in LOG_SPECS + [LOG_SPEC_RARE]]
        for spec in LOG_SPECS + [LOG_SPEC_RARE]:
            base = next(spec.glob("*.yaml")) if spec.name != "medina" else spec / "medina.yaml"
            path = self.folder / "logs" / f"{spec.name}-variant.yaml"
            path.write_text(f"extends: {base}\ngame: {{id: {spec.name}_v, name: V}}\n",
                            encoding="utf-8")
            self.variants[str(spec)] = str(path)
        self.secrets = self.plant()

    # -- the canary

    def plant(self) -> list:
        """Put the canary in the environment and in four files that are not specs; the
        paths that name them (and /proc/self/environ, which holds the environment)."""
        self.old_canary = os.environ.get(CANARY_VAR)      # another campaign's, restored
        os.environ[CANARY_VAR] = self.canary
        c, f = self.canary, self.folder
        files = {"secret.txt": f"api_key={c}\n{c}\n",
                 "passwd": (f"root:x:0:0:root:/root:/bin/bash\n"
                            f"fuzz:x:1000:1000:{c}:/home/fuzz:/bin/sh\n"),
                 "environ": f"HOME=/root\0{CANARY_VAR}={c}\0PATH=/usr/bin\0",
                 "secret.yaml": f"password: {c}\ntokens: [{c}, {c}]\n"}
        for name, text in files.items():
            (f / name).write_text(text, encoding="utf-8")
        return [str(f / name) for name in files] + ["/proc/self/environ"]

    def close(self) -> None:
        if os.environ.get(CANARY_VAR) == self.canary:
            if self.old_canary is None:
                del os.environ[CANARY_VAR]
            else:
                os.environ[CANARY_VAR] = self.old_canary

    def secret(self, rng: random.Random, relative: bool = True, yaml: bool = True) -> str:
        """A path to a planted secret: relative to the folder (as a spec or scenario file
        there names it) or not. Without `yaml`, not secret.yaml: a YAML file named on the
        command line as a spec, scenario or log is that input itself, and quoting it in
        its own errors is no leak."""
        path = rng.choice([s for s in self.secrets if yaml or not s.endswith(".yaml")])
        if relative and path.startswith(str(self.folder)) and rng.random() < 0.5:
            return os.path.basename(path)      # relative to the spec or scenario file
        return path

    def leaks(self, output: str, given: str) -> list:
        """What `output` shows that it must not: the canary, or Python internals that
        the input itself did not hold."""
        bad = ["the canary"] if self.canary in output else []
        return bad + internals(output, given)

    # -- one input of each kind: each returns (what, outcome, output, given, route)

    def do_spec(self, rng: random.Random):
        base = rng.choice(SPECS) if rng.random() < 0.8 else rng.choice(MORE_SPECS)
        text = mutate(self.texts[base], rng, self.tokens)
        route = "spec"
        if rng.random() < 0.1:                # a spec that extends a file that is no spec
            lines = [line for line in text.split("\n") if not line.startswith("extends:")]
            text = "\n".join([f"extends: {self.secret(rng)}"] + lines)
            route = "spec extends a secret"
        self.current = ("spec", text)
        if rng.random() < 0.3:                # through the command line
            path = self.folder / "fuzz.yaml"
            path.write_text(text, encoding="utf-8", errors="replace")
            argv = [rng.choice(["validate", "run", "run", "graph", "compile", "rulings"]),
                    str(path)]
            if argv[0] == "run":
                argv += ["--seed", str(rng.randrange(5))]
            return self._command(argv, text, text, route)
        said: list = []
        outcome = check_spec_text(text, self.folder, said=said)
        return text, outcome, "\n".join(said), text, route

    def do_rule(self, rng: random.Random):
        what = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 30)))
        self.current = ("rule", what)
        said: list = []
        return what, check_rule_text(what, said), "\n".join(said), what, "rule text"

    def do_scenario(self, rng: random.Random):
        base = rng.choice(SCENARIOS)
        tokens = SCENARIO_TOKENS if rng.random() < 0.5 else self.tokens
        text = mutate(self.scenarios[base], rng, tokens)
        route = "scenario"
        if rng.random() < 0.1:                # a scenario whose spec is no spec
            lines = [line for line in text.split("\n") if not line.startswith("spec:")]
            text = "\n".join([f"spec: {self.secret(rng)}"] + lines)
            route = "scenario's spec: names a secret"
        path = self.folder / "fuzz.test.yaml"
        path.write_text(text, encoding="utf-8", errors="replace")
        argv = ["test", str(path)] + (["--strict"] if rng.random() < 0.2 else [])
        self.current = ("scenario", text)
        return self._command(argv, text, text, route)

    COMMANDS = ("run", "validate", "rulings", "list", "replay", "test", "graph", "compile",
                "diff")

    def command_words(self, rng: random.Random) -> tuple:
        """(paths, words): what a command line is made of: paths (specs, a recorded log, a
        scenario file, devices, the folder, the planted secrets that are not YAML), and
        those with options and values."""
        rec = self.recorded(rng)
        scen = self.folder / "pristine.test.yaml"
        if not scen.exists():
            scen.write_text(self.scenarios[SCENARIOS[0]], encoding="utf-8")
        paths = [str(rng.choice(SPECS)), str(rng.choice(LOG_SPECS)), rec.argv[4], str(scen),
                 "/dev/null", "/dev/zero", "/dev/full", str(self.folder)]
        paths += [s for s in self.secrets if not s.endswith(".yaml")]
        words = ["--games", "--players", "--seed", "--option", "-3", "0", "7", "99999999999",
                 "x=y", "deck=short", "temple=nowhere", "--json", "--strict", "--log", "--at",
                 "--for", "--spec", "--agents", "greedy", "mcts:3", "random,nope", "--out",
                 "--format", "mermaid", "tabula:tiny", "tiny", "-v"]
        return paths, words + paths * 2

    def do_command(self, rng: random.Random, argv: list | None = None):
        if argv is None:
            paths, words = self.command_words(rng)
            argv = [rng.choice(self.COMMANDS)]
            if rng.random() < 0.7:
                argv.append(rng.choice(paths))
            argv += [rng.choice(words) for _ in range(rng.randint(0, 6))]
        argv = list(argv)
        for i, w in enumerate(argv[:-1]):     # what a command writes stays in the folder
            if w in ("--log", "--out") and argv[i + 1] not in ("/dev/null", "/dev/full"):
                argv[i + 1] = str(self.folder / "written.out")
        route = ("command line names a secret" if any(w in self.secrets for w in argv)
                 else "command line")
        self.current = ("command", argv)
        return self._command(argv, " ".join(argv), " ".join(argv), route)

    def _command(self, argv: list, what, given: str, route: str):
        code, output = run_command(argv)
        if code not in (0, 1, 2):
            raise AssertionError(f"tabula {' '.join(argv)}: exit code {code!r}")
        return what, ("ok" if code == 0 else "error"), output, given, route

    def recorded(self, rng: random.Random) -> Recorded:
        """A recorded game (at most about 120 of them, made as they are first drawn)."""
        if rng.random() < 0.06:
            spec, seed, agents = LOG_SPEC_RARE, rng.randrange(1, 5), []
        else:
            spec, seed = rng.choice(LOG_SPECS), rng.randrange(1, 25)
            agents = ["--agents", "greedy"] if rng.random() < 0.2 else []
        key = (str(spec), seed, tuple(agents))
        if key not in self.logs:
            path = self.folder / "logs" / f"{spec.name}-{seed}-{len(agents)}.jsonl"
            self.logs[key] = Recorded(spec, seed, agents, path)
        return self.logs[key]

    def do_log(self, rng: random.Random, tamper: str | None = None):
        rec = self.recorded(rng)
        desc, text = self.tamper(rec, rng, tamper)
        path = self.folder / "tampered.jsonl"
        path.write_text(text, encoding="utf-8", errors="replace")
        self.current = ("log", f"{desc} of {rec.argv}:\n{text}")
        mode = rng.choice(["plain", "plain", "plain", "json", "at", "for", "variant"])
        argv = ["replay", str(path)]
        if mode == "json":
            argv.append("--json")
        elif mode == "variant":     # the analysis under a variant or another game: exit 0
            argv += ["--spec", self.variants[rec.argv[1]] if rng.random() < 0.7 else
                     str(rng.choice(LOG_SPECS + [LOG_SPEC_RARE]))]
            argv += rng.choice([[], ["--json"], ["--at", "3"]])
        elif mode == "at":
            argv += ["--at", str(rng.randrange(0, len(rec.objs)))]
        elif mode == "for":
            argv += ["--for", str(rng.randrange(0, 3))]
        route = "tampered log" + (" naming a secret" if self.canary_route(text) else "")
        what, outcome, output, given, route = self._command(argv, self.current[1], text,
                                                            route)
        self.found["tampered"] += 1
        self.found["tamper_kinds"][desc.split(":")[0]] = \
            self.found["tamper_kinds"].get(desc.split(":")[0], 0) + 1
        if mode in ("plain", "json"):
            self.found["tampered_replayed"] += 1
            if outcome == "ok":
                if game_of(path) != rec.game:
                    unproven = "warning: " in output and "version 1" in output
                    self.found["accepted_tampered"].append(
                        (desc + (" [unproven: replayed as version 1, with the warning]"
                                 if unproven else ""), rec.argv, text))
                else:
                    self.found["tampered_accepted_same"] += 1
            else:
                self.found["tampered_refused"] += 1
        return what, outcome, output, given, route

    def recorded_run(self, rng: random.Random) -> tuple:
        """(spec, seed, the records of games 0 to 7 by index) of a run of `tabula simulate
        --games 8 --out`, made once for each spec and seed."""
        spec, seed = rng.choice(LOG_SPECS), rng.randrange(1, 6)
        key = ("simulate", str(spec), seed)
        if key not in self.logs:
            path = self.folder / "logs" / f"{spec.name}-{seed}.games.jsonl"
            argv = ["simulate", str(spec), "--games", "8", "--workers", "1", "--seed",
                    str(seed), "--out", str(path)]
            code, output = run_command(argv)
            if code != 0:
                raise AssertionError(f"tabula {' '.join(argv)}: exit {code}\n{output[-1500:]}")
            records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
            self.logs[key] = {r["index"]: r for r in records}
        return spec, seed, self.logs[key]

    def do_simulate(self, rng: random.Random):
        """A file of `tabula simulate --out`, damaged, or replaced by another file, then
        resumed: exit 0, 1 or 2; a refusal leaves the file as it was; a resumed file keeps
        every line it had (but an unfinished last line) and ends holding a record of every
        game of the run (_run_of), and the summary of them did not fail."""
        spec, seed, pristine = self.recorded_run(rng)
        lines = [json.dumps(pristine[i], sort_keys=True, separators=(",", ":"))
                 for i in range(6)]
        edit = rng.choice(["delete", "duplicate", "swap", "cut", "char", "field", "field",
                           "identity", "foreign", "append", "combined"])
        edits = ([rng.choice(["delete", "duplicate", "swap", "cut", "char", "field",
                              "identity", "append"]) for _ in range(rng.randint(2, 3))]
                 if edit == "combined" else [edit])
        done = []
        for e in edits:
            i = rng.randrange(len(lines)) if lines else 0
            if e in ("delete", "duplicate", "swap") and lines:
                if e == "delete":
                    del lines[i]
                elif e == "duplicate":
                    lines.insert(i, lines[i])
                else:
                    j = rng.randrange(len(lines))
                    lines[i], lines[j] = lines[j], lines[i]
            elif e == "char" and lines and lines[i]:
                k = rng.randrange(len(lines[i]))
                lines[i] = lines[i][:k] + chr(rng.randrange(32, 127)) + lines[i][k + 1:]
            elif e in ("field", "identity") and lines:
                try:
                    record = json.loads(lines[i])
                except ValueError:
                    continue
                if not isinstance(record, dict):
                    continue
                key = rng.choice(["seed", "index", "spec_hash", "agents", "options",
                                  "players", "spec"] if e == "identity" else
                                 list(record) + ["fired", "error"])
                record[key] = "@@VALUE@@"
                lines[i] = json.dumps(record).replace(
                    '"@@VALUE@@"', rng.choice(JSON_VALUES[:7] + JSON_VALUES[8:] + [
                        "-1", "7", "99", "[99]", '["x", 1]', '{"x": [1]}', '"9/0"']))
            elif e == "foreign":
                rec = self.recorded(rng)
                source = rng.choice([rec.text, open(self.secret(rng, relative=False),
                                                    encoding="utf-8", errors="replace").read(),
                                     "", "\x00" * 10, "notes\n"])
                lines = source.split("\n")
            elif e == "append":
                lines += self.recorded(rng).text.split("\n")[:3]
            done.append(e)
        text = "\n".join(lines) + ("\n" if lines and rng.random() < 0.8 else "")
        if "cut" in edits and text:
            text = text[:rng.randrange(len(text))]
        path = self.folder / "games.jsonl"
        path.write_text(text, encoding="utf-8", errors="replace")
        before = path.read_bytes()
        games = rng.choice([6, 6, 8, 3, 0])
        argv = ["simulate", str(spec), "--games", str(games), "--workers", "1", "--seed",
                str(seed), "--out", str(path), "--resume"] + rng.choice([[], ["--json"]])
        what = f"{', '.join(edits)} of the run {spec.name} seed {seed}: {argv}\n{text}"
        self.current = ("simulate", what)
        _, outcome, output, given, route = self._command(argv, what, text, "simulate --resume")
        after = path.read_bytes()
        self.found["resumed"] += 1
        wrong = None
        if outcome != "ok" and after != before:
            wrong = "refused, but the file was changed"
        elif outcome == "ok":
            whole = before[:before.rfind(b"\n") + 1]
            held = set()        # the games the file holds a record of, by what names them
            for line in after.decode("utf-8", errors="replace").split("\n"):
                try:
                    held.add(_run_of(json.loads(line)))
                except (ValueError, RecursionError, TypeError, KeyError):
                    pass
            missing = [i for i in range(games) if _run_of(pristine[i]) not in held]
            if not after.startswith(whole):
                wrong = "resumed, but a line it had was changed or dropped"
            elif missing:
                wrong = f"resumed, but the records of games {missing} are not in the file"
        if wrong is not None:
            self.found["resume"].append((wrong, what, output[-2000:]))
        return what, outcome, output, given, route

    # -- the new kinds (tests/fuzzgrammar.py, tests/fuzzkinds.py)

    def env_of(self, path: Path):
        """The typed names of a spec (fuzzgrammar.Env), made once; None if it cannot be
        made (a spec the compiler refuses as it ships: not one to edit)."""
        from fuzzgrammar import Env

        from tabula_rules.errors import TabulaError
        if path not in self.envs:
            try:
                self.envs[path] = Env(path)
            except (TabulaError, RecursionError):
                self.envs[path] = None
        return self.envs[path]

    def play(self, game, rng: random.Random, decisions: int = 300, roundtrip: bool = False):
        """A bounded game of random legal actions (simultaneous ones by apply_actions),
        every action string and observation encoded as printing them would; with
        roundtrip, the state saved and loaded back (State.from_json with its seed) now
        and then, which must give the same state. The state at the end."""
        from tabula_rules.runtime.engine import State
        seed = rng.randrange(1, 1000)
        st = game.new_state(seed=seed)
        for k in range(decisions):
            if st.terminal:
                break
            if st.is_simultaneous_node():
                joint = {p: rng.choice(st.legal_actions(p)) for p in st.choosers()}
                st.apply_actions(joint)
            else:
                a = rng.choice(st.legal_actions())
                st.action_to_string(a).encode("utf-8")
                st.apply(a)
            json.dumps(st.observation(k % game.players), ensure_ascii=False).encode("utf-8")
            if roundtrip and rng.random() < 0.05:
                back = State.from_json(game, json.loads(st.to_json_text()), seed=seed)
                if back.to_json_text() != st.to_json_text():
                    raise AssertionError("a state saved and loaded back is another state")
        if st.terminal:
            st.scores()
        return st

    def do_grammar(self, rng: random.Random):
        """A shipped spec (mostly tiny, Kuhn poker, tic-tac-toe, Goofspiel, Medang,
        Medina) with 1 to 3 edits of generated rule text (fuzzgrammar.Rewriter; typed
        but one in five, hostile), its max_steps at most 50,000: validated; if valid, a
        game of up to 300 decisions and `tabula simulate --games 2` (and now and then
        `tabula run`)."""
        from fuzzgrammar import Rewriter
        from fuzzkinds import OTHERS, TARGETS, doc_of, dump

        from tabula_rules.errors import TabulaError
        from tabula_rules.spec import Spec
        base = rng.choice(TARGETS) if rng.random() < 0.85 else rng.choice(OTHERS)
        env = self.env_of(base)
        if env is None:
            base = rng.choice(TARGETS)
            env = self.env_of(base)
        doc = doc_of(base)
        typed = rng.random() >= 0.2
        edits = Rewriter(env, rng, typed).edit(doc)
        game = doc.setdefault("game", {})
        if not isinstance(game.get("max_steps"), int) or game["max_steps"] > 50_000:
            game["max_steps"] = 50_000
        text = dump(doc)
        what = f"{base.relative_to(ROOT)} ({'typed' if typed else 'hostile'}): " + \
            "; ".join(edits) + "\n" + text
        self.current = ("grammar", what)
        g = self.found["grammar"]
        g["inputs"] += 1
        g["typed"] += typed
        path = self.folder / "grammar.yaml"
        path.write_text(text, encoding="utf-8", errors="replace")
        said: list = []
        try:
            spec = Spec(path)
            spec.validate()
        except TabulaError as e:
            return what, "error", str(e), text, "grammar"
        g["valid"] += 1
        g["typed_valid"] += typed
        try:
            self.play(spec.game(), rng, roundtrip=True)
            g["played"] += 1
        except TabulaError as e:
            said.append(str(e))
        seed = str(rng.randrange(1, 1000))
        argv = ["simulate", str(path), "--games", "2", "--workers", "1", "--seed", seed]
        code, output = run_command(argv)
        said.append(output)
        if code not in (0, 1, 2):
            raise AssertionError(f"tabula {' '.join(argv)}: exit code {code!r}")
        g["simulated"] += code == 0
        if rng.random() < 0.3:
            argv = ["run", str(path), "--seed", seed]
            code, output = run_command(argv)
            said.append(output)
            if code not in (0, 1, 2):
                raise AssertionError(f"tabula {' '.join(argv)}: exit code {code!r}")
        return what, "ok", "\n".join(said), text, "grammar"

    def do_semantic(self, rng: random.Random):
        """A shipped spec with 1 to 3 schema-valid mutations (fuzzkinds.semantic: numbers,
        counts, sizes at 0, 1 and huge, identifiers swapped, player counts at the edges,
        constant expressions that index past a list or divide by zero, loops' bounds,
        options), and a player count asked (none, the edges, 0, 1, -1, huge): loaded,
        validated, a bounded game; or through `tabula validate`, `run`, `simulate` or
        `compile` with --players."""
        from fuzzkinds import OTHERS, TARGETS, doc_of, dump, players_asked, semantic

        from tabula_rules.errors import TabulaError
        from tabula_rules.spec import Spec
        base = rng.choice(TARGETS) if rng.random() < 0.8 else rng.choice(OTHERS)
        doc = doc_of(base)
        done = semantic(doc, rng)
        players = players_asked(doc, rng)
        text = dump(doc)
        what = f"{base.relative_to(ROOT)}, players {players}: " + "; ".join(done) + \
            "\n" + text
        self.current = ("semantic", what)
        self.found["semantic"]["inputs"] += 1
        path = self.folder / "semantic.yaml"
        path.write_text(text, encoding="utf-8", errors="replace")
        if rng.random() < 0.4:
            command = rng.choice(["validate", "run", "run", "simulate", "compile"])
            argv = [command, str(path)]
            if players is not None and command != "validate":
                argv += ["--players", str(players)]
            if command == "simulate":
                argv += ["--games", "2", "--workers", "1"]
            return self._command(argv, what, text, "semantic")
        try:
            spec = Spec(path)
            if rng.random() < 0.5:
                spec.validate()
                self.found["semantic"]["valid"] += 1
            self.play(spec.game(players), rng, decisions=200)
        except TabulaError as e:
            return what, "error", str(e), text, "semantic"
        return what, "ok", "", text, "semantic"

    def do_endless(self, rng: random.Random, base: Path | None = None,
                   steps: list | None = None, effects: bool = True, doc: dict | None = None):
        """A shipped spec edited so that its game cannot end (fuzzkinds.endless), its
        max_steps 10,000 to 100,000 (a million too in the long run), played by `tabula
        run` in a forked process under RLIMIT_AS (--memory-mb): it must end with a
        located error (or the game still ends), never a MemoryError, a kill or a
        traceback; its memory must not grow with the game's length so that the largest
        max_steps (10^8), or when the game stops at its decision bound the largest
        max_decisions (10^6), would take it over the limit."""
        import fuzzkinds
        from fuzzkinds import OTHERS, TARGETS, doc_of, dump, endless, rss_kb

        from tabula_rules.compiler.layout import MAX_DECISIONS, MAX_STEPS
        if base is None:
            base = rng.choice(TARGETS) if rng.random() < 0.85 else rng.choice(OTHERS)
        steps = steps or [10_000, 100_000, 100_000] + \
            ([1_000_000, 1_000_000] if self.big else [])
        if doc is None:                       # (given: an endless spec made by hand)
            doc = doc_of(base)
            done = endless(doc, rng, steps, effects)
        else:
            doc.setdefault("game", {})["max_steps"] = rng.choice(steps)
            done = [f"given, max_steps {doc['game']['max_steps']}"]
        text = dump(doc)
        seed = rng.randrange(1, 1000)
        path = self.folder / "endless.yaml"
        path.write_text(text, encoding="utf-8")
        argv = ["run", str(path), "--seed", str(seed)]
        what = f"{base.relative_to(ROOT)}: {'; '.join(done)}; tabula {' '.join(argv)}\n{text}"
        self.current = ("endless", what)
        e = self.found["endless"]
        e["inputs"] += 1

        def child():
            from tabula_rules.errors import TabulaError
            from tabula_rules.spec import load_spec
            from tabula_rules.tools.cli import main
            try:
                load_spec(path).game()          # compiled first: its memory is no growth
            except TabulaError:
                pass
            base_kb = rss_kb()
            try:
                code = main(argv)
            except SystemExit as x:
                code = x.code if isinstance(x.code, int) else 2
            return {"code": code, "base_kb": base_kb}

        r = fuzzkinds.fork_call(child, self.folder, "endless", self.memory_mb,
                                int(3 * self.slow) + 1)
        output = r["out"] + r["err"]
        e["peak_mb"] = max(e["peak_mb"], r["peak_kb"] / 1024)
        code = r["code"]
        if r["signal"] is not None:
            if r["signal"] == signal.SIGXCPU:
                raise Hang()
            self.found["memory"].append(("endless", what, f"killed by signal {r['signal']} "
                                         f"(peak {r['peak_kb'] // 1024} MB)\n{output[-1500:]}"))
            return what, "error", "", text, "endless"
        if "MemoryError" in output:
            self.found["memory"].append(("endless", what, f"MemoryError (peak "
                                         f"{r['peak_kb'] // 1024} MB)\n{output[-1500:]}"))
            return what, "error", "", text, "endless"
        if code not in (0, 1, 2) or "Traceback" in output:
            raise AssertionError(f"tabula {' '.join(argv)}: exit {code}\n{output[-2000:]}")
        if code == 1 and not re.search(r"\S+:\d+:\d+: ", r["err"]):
            raise AssertionError(f"tabula {' '.join(argv)}: exit 1 without a located "
                                 f"error\n{output[-2000:]}")
        if code == 0:
            e["ended"] += 1
        else:
            e["located"] += 1
        result = r["result"] or {}
        growth = (r["peak_kb"] - result.get("base_kb", r["peak_kb"])) / 1024
        bound = re.search(r"more than (\d+) (steps|decisions) without ending", r["err"])
        if code == 1 and bound:
            e["growth_mb"] = max(e["growth_mb"], growth)
            n, unit = int(bound[1]), bound[2]
            largest = MAX_STEPS if unit == "steps" else MAX_DECISIONS
            projected = growth * largest / n
            if growth > 32 and projected > self.memory_mb:
                self.found["memory"].append((
                    "endless", what, f"memory grows with the game's length: {growth:.0f} MB "
                    f"over {n} {unit}, so max_{unit} {largest} (the largest a spec may "
                    f"set) would take {projected / 1024:.1f} GB, over RLIMIT_AS "
                    f"{self.memory_mb} MB\n{output[-800:]}"))
        return what, ("ok" if code == 0 else "error"), output, text, "endless"

    def do_adapter(self, rng: random.Random):
        """A script of OpenSpiel or PettingZoo calls with hostile arguments
        (fuzzkinds.Script), in a forked process: every call must succeed or fail with a
        clear error (fuzzkinds.judged); a tampered state that loads must be one its game
        reaches; no input may create a file (a pickle's code run)."""
        from fuzzkinds import ADAPTER_KINDS, adapter_script, fork_call
        if not getattr(self, "_adapters_imported", False):
            import pyspiel  # noqa: F401  (imported once here, so forked scripts start fast)

            import tabula_rules.openspiel
            import tabula_rules.pettingzoo  # noqa: F401
            self._adapters_imported = True
        kind = rng.choice(ADAPTER_KINDS)
        seed = rng.randrange(2 ** 32)
        secrets = [s for s in self.secrets if not s.endswith(".yaml")]
        what = f"fuzzkinds.adapter_script(random.Random({seed}), folder, secrets, {kind!r})"
        self.current = ("adapter", what)
        a = self.found["adapter"]
        a["inputs"] += 1
        r = fork_call(lambda: adapter_script(random.Random(seed), self.folder, secrets, kind),
                      self.folder, "adapter", self.memory_mb, int(3 * self.slow) + 1)
        result = r["result"]
        if r["signal"] == signal.SIGXCPU:
            raise Hang()
        if result is None:
            if "MemoryError" in r["err"]:
                self.found["memory"].append(("adapter", what, r["err"][-2000:]))
                return what, "error", "", what, "adapter"
            raise AssertionError(f"the adapter script's process ended with exit "
                                 f"{r['code']}, signal {r['signal']}\n{r['err'][-2500:]}")
        for call, outcome, detail in result["events"]:
            a["calls"] += 1
            a["refused"] += outcome != "ok"
            if outcome == "bad":
                self.found["tracebacks"].append(("adapter", f"{what}: {call}", detail))
            if "deserialize" in call:
                a["tampered"] += "(honest)" not in call
                a["tampered_loaded"] += outcome == "ok" and "(honest)" not in call
        for x in result["impossible"]:
            self.found["impossible"].append(("adapter", what, x))
        for x in result["code_run"]:
            self.found["code_run"].append(("adapter", what, x))
        # Tabula's messages are checked for the canary and Python internals; the
        # frameworks' own (pybind's "Unable to cast ... <class 'int'>") and the process's
        # stderr (pyspiel prints its errors there) for the canary only
        if self.canary in result["framework"] + r["err"]:
            self.found["leaks"].append(("adapter", f"adapter {kind}", ["the canary"], what,
                                        (result["framework"] + r["err"])[-3000:]))
        return what, "ok", result["said"], what, f"adapter {kind}"

    def do_writers(self, rng: random.Random):
        """Two `tabula simulate --out F` at once (forked processes, now and then a real
        `python -m tabula_rules`), F new or half-finished (some games of the run,
        maybe its last line cut): held, the first runs a long run while the second (the
        same run, a resume, another seed, new or resumed) starts, which must be refused
        (exit 1, 'another tabula simulate is writing it'), then the first is killed;
        raced, both start together with a few games each. Afterwards F holds records of
        one run only, keeps the lines a resumed writer found there, and a resume of its
        run completes it with every game once: none lost, none twice."""
        from fuzzkinds import LOCKED, fork_call, fork_wait, kill

        from tabula_rules.tools.cli import main
        spec, seed = rng.choice(LOG_SPECS), rng.randrange(1, 6)
        other = seed + rng.randrange(1, 5)
        path = self.folder / "writers.jsonl"
        if path.exists():
            path.unlink()
        w = self.found["writers"]
        w["inputs"] += 1

        def argv(games, s=seed, resume=False):
            return ["simulate", str(spec), "--games", str(games), "--workers", "1",
                    "--seed", str(s), "--out", str(path)] + (["--resume"] if resume else [])
        pre = 0
        if rng.random() < 0.5:
            pre = rng.randint(1, 4)
            code, _ = run_command(argv(pre))
            if code != 0:
                raise AssertionError(f"tabula {' '.join(argv(pre))}: exit {code}")
            if rng.random() < 0.3:
                data = path.read_bytes()
                path.write_bytes(data[:-rng.randint(2, 40)])
        found_before = path.read_bytes() if path.exists() else b""
        kept = found_before[:found_before.rfind(b"\n") + 1]
        mode = rng.choice(["held", "held", "race"])
        procs: list = []
        log: list = [f"{spec.name} seed {seed}, {pre} games first, {mode}"]
        self.current = ("writers", log)

        def start(args):
            if rng.random() < 0.2:
                p = subprocess.Popen([sys.executable, "-m", "tabula_rules", *args], cwd=ROOT,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
                procs.append(("popen", p, args))
            else:
                def child():
                    try:
                        return {"code": main(args)}
                    except SystemExit as x:
                        return {"code": x.code if isinstance(x.code, int) else 2}
                pid, paths = fork_call(child, self.folder, f"writer{len(procs)}",
                                       self.memory_mb, int(3 * self.slow) + 1, wait=False)
                procs.append(("fork", (pid, paths, {}), args))
            log.append("started tabula " + " ".join(args))
            return len(procs) - 1

        def alive(i):
            how, p, _ = procs[i]
            if how == "popen":
                return p.poll() is None
            pid, paths, done = p
            if done:
                return False
            got, status = os.waitpid(pid, os.WNOHANG)
            if got == 0:
                return True
            done.update(code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                        signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                        err=paths[1].read_text(encoding="utf-8", errors="replace")
                        if paths[1].exists() else "")
            return False

        def finish(i):
            how, p, _ = procs[i]
            if how == "popen":
                if not hasattr(p, "fuzz_err"):
                    p.fuzz_err = p.communicate()[1]
                return {"code": p.returncode if p.returncode >= 0 else None,
                        "signal": -p.returncode if p.returncode < 0 else None,
                        "err": p.fuzz_err}
            pid, paths, done = p
            return dict(done) if done else fork_wait(pid, paths)

        def stop(i):
            how, p, _ = procs[i]
            if how == "popen":
                if not hasattr(p, "fuzz_err"):
                    if p.poll() is None:
                        os.killpg(p.pid, signal.SIGKILL)
                    p.fuzz_err = p.communicate()[1]
            elif not p[2]:
                kill(p[0])
                p[2].update(code=None, signal=signal.SIGKILL, err="")

        def lines():
            try:
                return path.read_bytes().count(b"\n")
            except OSError:
                return 0

        def wait_lines(i, n):
            while lines() < n and alive(i):
                time.sleep(0.002)

        wrong = []
        try:
            if mode == "held":
                first = start(argv(10 ** 6, seed, resume=pre > 0))
                wait_lines(first, kept.count(b"\n") + rng.randint(1, 3))
                second_args = rng.choice([argv(10 ** 6, seed, resume=pre > 0),
                                          argv(3, seed, resume=True), argv(3, other),
                                          argv(3, other, resume=True), argv(5, seed)])
                second = start(second_args)
                r2 = finish(second)
                running = alive(first)
                log.append(f"second: exit {r2['code']}, {r2['err'].strip()[-300:]!r}; "
                           f"first running: {running}")
                if r2["code"] not in (0, 1):
                    raise AssertionError(f"tabula {' '.join(second_args)}: exit "
                                         f"{r2['code']}, signal {r2['signal']}\n"
                                         f"{r2['err'][-2000:]}")
                if running and not (r2["code"] == 1 and LOCKED in r2["err"]):
                    wrong.append("a second writer was not refused while the first wrote "
                                 f"(exit {r2['code']})")
                w["refused"] += r2["code"] == 1
                wait_lines(first, lines() + rng.randint(0, 3))
                if alive(first):
                    stop(first)
                    w["killed"] += 1
                r1 = finish(first)
                if r1["signal"] is None and r1["code"] not in (0, 1):
                    raise AssertionError(f"the first writer: exit {r1['code']}\n"
                                         f"{r1['err'][-2000:]}")
                resumed_only = pre > 0
            else:
                configs = [argv(rng.randint(2, 6), seed, resume=pre > 0 or rng.random() < 0.5),
                           rng.choice([argv(rng.randint(2, 6), seed, resume=True),
                                       argv(rng.randint(2, 6), seed),
                                       argv(rng.randint(2, 6), other),
                                       argv(rng.randint(2, 6), other, resume=True)])]
                ids = [start(c) for c in configs]
                results = [finish(i) for i in ids]
                for c, r in zip(configs, results):
                    log.append(f"exit {r['code']}: {r['err'].strip()[-300:]!r}")
                    if r["code"] not in (0, 1):
                        raise AssertionError(f"tabula {' '.join(c)}: exit {r['code']}, "
                                             f"signal {r['signal']}\n{r['err'][-2000:]}")
                    w["refused"] += r["code"] == 1
                resumed_only = pre > 0 and all(
                    "--resume" in c and c[c.index("--seed") + 1] == str(seed) or r["code"] != 0
                    for c, r in zip(configs, results))
        finally:
            for i in range(len(procs)):
                stop(i)
        wrong += writers_file(path, spec, seed, other, kept, resumed_only,
                              rng.randint(0, 2), log)
        w["resumed"] += any(x.endswith(": exit 0") for x in log[-1:])
        what = "\n".join(log) + "\n-- the file:\n" + \
            path.read_text(encoding="utf-8", errors="replace")[-3000:]
        self.current = ("writers", what)
        for x in wrong:
            self.found["records"].append(("writers", x, what))
        return what, "ok", "", what, "writers"

    def canary_route(self, text: str) -> bool:
        return any(s in text for s in self.secrets) or any(
            os.path.basename(s) in text for s in self.secrets[:-1])

    def tamper(self, rec: Recorded, rng: random.Random, kind: str | None = None) -> tuple:
        """A recorded log with one kind of edit (or 2-3 of them: 'combined'): (what was
        done, the text)."""
        tampers = list(TAMPERS)
        kind = kind or rng.choice(tampers)
        if kind == "combined":      # 1 to 3 edits of the lines, then maybe one of the text
            kinds = rng.sample([k for k in tampers if k not in _TEXT_TAMPERS + ("combined",)],
                               rng.randint(1, 3))
            if rng.random() < 0.5:
                kinds.append(rng.choice(_TEXT_TAMPERS))
        else:
            kinds = [kind]
        objs = json.loads(json.dumps(rec.objs))
        done = []
        text = None
        for k in kinds:
            if k in _TEXT_TAMPERS:
                if text is None:
                    text = "".join(json.dumps(o) + "\n" for o in objs)
                text, what = self._tamper_text(k, text, objs, rng)
            else:
                what = self._tamper_objs(k, objs, rec, rng)
            done.append(f"{k}: {what}")
        if text is None:
            text = "".join(json.dumps(o) + "\n" for o in objs)
        return ("combined: " if kind == "combined" else "") + "; ".join(done), text

    def _tamper_objs(self, kind: str, objs: list, rec: Recorded, rng: random.Random) -> str:
        from tabula_rules.tools.gamelog import header_digest
        head = objs[0] if objs and "format" in objs[0] else None
        if head is None and kind in _HEADER_TAMPERS + ("spec_path", "check"):
            return "no header left to edit"
        idx = [i for i, o in enumerate(objs) if "n" in o]      # the decisions' lines
        n = len(idx)
        k = rng.choice(idx) if idx else 0
        if kind in ("legal", "tuple", "string") and n:
            dn = objs[k]["n"]
            alts = rec.alternatives(dn) if _is_index(dn, len(rec.objs) - 2) else []
            if alts:
                t, s = rng.choice(alts)
                if kind in ("legal", "tuple"):
                    objs[k]["tuple"] = t
                if kind in ("legal", "string"):
                    objs[k]["action"] = s
                return f"decision {dn} takes {s!r} {t}"
            kind = "other"
        if kind == "other" and n > 1:
            j = rng.choice([i for i in idx if i != k])
            for key in (("action", "tuple", "player") if rng.random() < 0.3 else
                        ("action", "tuple")):
                objs[k][key] = objs[j].get(key)
            return f"line {k + 1} takes line {j + 1}'s action"
        if kind == "swap" and n > 1:
            i, j = rng.sample(idx, 2)
            if rng.random() < 0.5:
                objs[i], objs[j] = objs[j], objs[i]
                return f"lines {i + 1} and {j + 1} swapped"
            ni, nj = objs[i]["n"], objs[j]["n"]
            objs[i], objs[j] = dict(objs[j], n=ni), dict(objs[i], n=nj)
            return f"decisions of lines {i + 1} and {j + 1} swapped, renumbered"
        if kind in ("delete", "duplicate") and rng.random() < 0.2:
            k = rng.randrange(len(objs))              # any line: the header, the end line
            if kind == "delete":
                del objs[k]
            else:
                objs.insert(k, json.loads(json.dumps(objs[k])))
            return f"line {k + 1} {kind}d"
        if kind in ("delete", "duplicate") and n:
            if kind == "delete":
                del objs[k]
            else:
                objs.insert(k, json.loads(json.dumps(objs[k])))
            renumber = rng.random() < 0.5
            if renumber:
                i = 0
                for o in objs:
                    if "n" in o:
                        i += 1
                        o["n"] = i
                    elif o.get("end") is True:
                        o["decisions"] = i
            return f"line {k + 1} {kind}d" + (", renumbered" if renumber else "")
        if kind in _HEADER_TAMPERS:
            what = self._tamper_header(kind, head, rec, rng)
            if rng.random() < 0.5:
                head["check"] = header_digest(head)
                what += ", check recomputed"
            return what
        if kind == "spec_path":
            head["spec_path"] = rng.choice(
                [str(p) for p in LOG_SPECS + [LOG_SPEC_RARE]] +
                [head["spec_path"] + "/", str(Path(head["spec_path"]) /
                                              (Path(head["spec_path"]).name + ".yaml")),
                 self.secret(rng, relative=False), "/proc/self/environ", "/dev/zero",
                 "no/such/spec.yaml", "tabula:" + head["spec"]])
            return f"spec_path {head['spec_path']}"
        if kind == "version":       # a log of version 1 (no digests), and a change of game
            head["version"] = 1
            if rng.random() < 0.5:
                for o in objs:
                    o.pop("check", None)
                    o.pop("state", None)
            then = rng.choice(["legal", "legal", "swap", "seed", "other"])
            return "version 1; " + then + ": " + self._tamper_objs(then, objs, rec, rng)
        if kind == "check":
            head["check"] = _hex(rng)
            return "check " + head["check"]
        if kind == "state" and len(objs) > 1:
            target = rng.choice(objs[1:])
            target["state"] = rng.choice([_hex(rng), rng.choice(objs[1:]).get("state")])
            return f"a state digest: {target.get('state')}"
        if kind == "end":
            end = objs[-1] if objs else {}
            if end.get("end") is not True:
                return "no end line"
            field = rng.choice(["scores", "winners", "points", "decisions"])
            if field == "scores":
                end["scores"][rng.randrange(len(end["scores"]))] += rng.choice([1, -1])
            elif field == "winners":
                end["winners"] = rng.choice([[], [0], [1], [0, 1]])
            elif field == "points" and end["points"]:
                key = rng.choice(sorted(end["points"]))
                end["points"][key][0] += 1
            else:
                end["decisions"] += rng.choice([1, -1])
            return f"end {field} {end.get(field)}"
        if kind == "field" and n:
            key = rng.choice(["turn", "player", "n"])
            value = objs[k].get(key)
            objs[k][key] = rng.choice([value + 1 if isinstance(value, int) else 0,
                                       "chance", 0, 1, -1, None])
            return f"line {k + 1}: {key} {objs[k][key]!r}"
        return "nothing"

    def _tamper_header(self, kind: str, head: dict, rec: Recorded, rng: random.Random) -> str:
        if kind == "seed":
            s = head["seed"]
            head["seed"] = rng.choice([s + 1, s - 1, -s, rng.randrange(10 ** 6), 2 ** 70])
        elif kind == "players":
            head["players"] += rng.choice([1, -1])
            if rng.random() < 0.5 and head["players"] >= 1:
                head["agents"] = (head["agents"] * 3)[:head["players"]]
        elif kind == "options":
            opts = head["options"]
            if opts and rng.random() < 0.8:
                key = rng.choice(sorted(opts))
                others = [c for c in rec.choices.get(key, []) if c != opts[key]]
                opts[key] = rng.choice(others + [str(opts[key]) + "x", 1, 0, True, None])
                if opts[key] is None:
                    del opts[key]
            else:
                opts["x"] = 1
        elif kind == "spec":
            head["spec"] = rng.choice(["tiny", "kuhn_poker", "goofspiel", "medina",
                                       head["spec"] + "x"])
        elif kind == "spec_hash":
            head["spec_hash"] = rng.choice([_hex(rng)] + self.hashes)
        elif kind == "agents":
            head["agents"] = [rng.choice(["greedy", "random", "mcts:5", "x"])
                              for _ in head["agents"]]
        return f"{kind} {head.get(kind)!r}"

    def _tamper_text(self, kind: str, text: str, objs: list, rng: random.Random) -> tuple:
        if kind == "json" and objs:
            i = rng.randrange(len(objs))
            keys = list(objs[i]) + ["extra"]
            key = rng.choice(keys)
            value = rng.choice(JSON_VALUES)
            record = dict(objs[i], **{key: "@@VALUE@@"})
            lines = [json.dumps(o) for o in objs]
            lines[i] = json.dumps(record).replace('"@@VALUE@@"', value)
            return "\n".join(lines) + "\n", f"line {i + 1}: {key} is {value[:30]}"
        if kind == "char" and text:
            i = rng.randrange(len(text))
            c = chr(rng.randrange(32, 127))
            return text[:i] + c + text[i + 1:], f"character {i} is {c!r}"
        if kind == "truncate" and text:
            i = rng.randrange(len(text))
            return text[:i], f"cut at {i} of {len(text)}"
        # the same game written otherwise: compact JSON, keys in another order, blank
        # lines, a key the reader ignores
        lines = []
        for o in objs:
            keys = list(o)
            rng.shuffle(keys)
            o = {key: o[key] for key in keys}
            if "n" in o and rng.random() < 0.2:
                o["note"] = "a key the reader ignores"
            lines.append(json.dumps(o, separators=(",", ":")) if rng.random() < 0.5 else
                         json.dumps(o, ensure_ascii=False))
            if rng.random() < 0.1:
                lines.append("")
        return "\n".join(lines) + "\n", "rewritten: spacing, key order, blank lines"

    # -- running inputs

    def one(self, kind: str, rng: random.Random | None = None, **given) -> list:
        """One input of `kind` under the alarm, counted in `found`; the findings it made
        ([(what, ...)], empty when it is fine)."""
        rng = rng or self.rng
        found = self.found
        before = {k: len(found[k]) for k in self.FINDINGS}
        self.current = (kind, None)
        t0 = self.started = time.perf_counter()
        try:
            what, outcome, output, given, route = bounded(
                lambda: getattr(self, "do_" + kind)(rng, **given), self.slow)
            bad = self.leaks(output, given)
            if bad:
                found["leaks"].append((kind, route, bad, what, output[-3000:]))
            found[outcome] += 1
        except Hang:
            found["hangs"].append((kind, self.current[1], time.perf_counter() - t0))
        except MemoryError:
            found["tracebacks"].append((kind, self.current[1], "MemoryError"))
        except Exception:  # noqa: BLE001  (what we are looking for)
            found["tracebacks"].append((kind, self.current[1],
                                        traceback.format_exc()[-2000:]))
        self.started = None
        dt = time.perf_counter() - t0
        if dt > found["slowest"][0]:
            found["slowest"] = (dt, kind)
        found["inputs"] += 1
        found["kinds"][kind] = found["kinds"].get(kind, 0) + 1
        return [x for k, n in before.items() for x in found[k][n:]]

    def run(self, inputs: int, kinds: tuple | None = None) -> dict:
        kinds = kinds or self.KINDS
        written = 0
        for i in range(inputs):
            self.one(kinds[i % len(kinds)])
            total = sum(len(self.found[k]) for k in self.FINDINGS)
            if self.out is not None and total != written:    # as they come: a long
                write_findings(self.out, self.found, {})     # run stopped keeps them
                written = total
            if self.say and (i + 1) % 500 == 0:
                f = self.found
                self.say(f"{i + 1} inputs, {len(f['tracebacks'])} tracebacks, "
                         f"{len(f['hangs'])} hangs, {len(f['leaks'])} leaks, "
                         f"{len(f['accepted_tampered'])} accepted tampered logs, "
                         f"{len(f['memory'])} memory, {len(f['impossible'])} impossible "
                         f"states, {len(f['code_run'])} code run, {len(f['records'])} "
                         f"records lost or duplicated, peak {peak_mb():.0f} MB")
        self.found["max_rss_mb"] = peak_mb()
        return self.found


def writers_file(path: Path, spec: Path, seed: int, other: int, kept: bytes,
                 resumed_only: bool, more: int, log: list) -> list:
    """What is wrong with a simulate file two writers left (do_writers): a line it held
    before a resumed writer changed or dropped (when every writer that wrote resumed
    it), records of two runs (seeds `seed` and `other`), a game recorded twice; then the
    file resumed (its run, `more` games more than it holds): refused, a game lost or
    twice, a line changed."""
    from fuzzkinds import records_in

    from tabula_rules.tools.simulate import game_seed
    wrong = []
    after = path.read_bytes() if path.exists() else b""
    if resumed_only and not after.startswith(kept):
        wrong.append("a line the file held before was changed or dropped")
    _, recs = records_in(path)
    runs: dict = {}
    for r in recs:
        for s in (seed, other):
            if isinstance(r.get("seed"), int) and game_seed(s, r["index"]) == r["seed"]:
                runs.setdefault(s, []).append(r["index"])
    if len(runs) > 1:
        wrong.append(f"records of two runs in one file: {sorted(runs)}")
    for s, idx in runs.items():
        twice = sorted({i for i in idx if idx.count(i) > 1})
        if twice:
            wrong.append(f"games {twice} of the run of seed {s} recorded twice")
    if len(runs) == 1:             # resumed: every game once
        (s, idx), = runs.items()
        n = max(idx) + 1 + more
        before = path.read_bytes()
        resume = ["simulate", str(spec), "--games", str(n), "--workers", "1", "--seed",
                  str(s), "--out", str(path), "--resume"]
        code, output = run_command(resume)
        log.append(f"tabula {' '.join(resume)}: exit {code}")
        if code != 0:
            wrong.append(f"the file cannot be resumed (exit {code}): {output[-500:]}")
        else:
            _, recs = records_in(path)
            got = [r["index"] for r in recs if isinstance(r.get("seed"), int)
                   and game_seed(s, r["index"]) == r["seed"]]
            lost = sorted(set(range(n)) - set(got))
            twice = sorted({i for i in got if got.count(i) > 1})
            if lost or twice:
                wrong.append(f"resumed to {n} games: lost {lost}, twice {twice}")
            whole = before[:before.rfind(b"\n") + 1]
            if not path.read_bytes().startswith(whole):
                wrong.append("the resume changed a line the file held")
    return wrong


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def watchdog(c: Campaign, out: str, after: float) -> None:
    """A thread that ends the process (exit 3) when an input has run `after` seconds:
    the alarm could not stop it (a hang inside C code), so the campaign cannot go on.
    The input is written to `out` first, and counts as a hang."""
    def watch():
        while True:
            time.sleep(1.0)
            started = c.started
            if started is not None and time.perf_counter() - started > after:
                with open(out, "a", encoding="utf-8") as fh:
                    fh.write(f"== hang the alarm could not stop ({c.current[0]}, over "
                             f"{after:g} s)\n{c.current[1]!r}\n")
                print(f"an input ran over {after:g} s and the alarm could not stop it: "
                      f"see {out}", file=sys.stderr, flush=True)
                os._exit(3)
    threading.Thread(target=watch, daemon=True).start()


def campaign(inputs: int, seed: int, folder: Path, slow: float = 20.0, log=print,
             out: str | None = None, kinds: tuple | None = None, big: bool = True,
             memory_mb: int = 1024) -> dict:
    """`inputs` fuzz inputs, in rotation (Campaign.KINDS, or `kinds`): tampered logs,
    mutated specs, scenario files, command lines, rule text, simulate files, grammar-aware
    rule text, semantic mutations, adapter scripts, endless games and writers, in
    `folder`; what they found. With `out`, a watchdog ends the process on an input the
    alarm cannot stop."""
    c = Campaign(seed, folder, slow, log, big=big, memory_mb=memory_mb)
    c.out = out
    if out is not None:
        watchdog(c, out, WALL_FACTOR * slow)    # past the CPU alarm on a loaded machine
    try:
        return c.run(inputs, kinds)
    finally:
        c.close()


def hostile(folder: Path, slow: float = 20.0, skip: tuple = ()) -> dict:
    """Every hand-made hostile input once (but those named in `skip`), each under the
    alarm: {what: outcome ('ok', 'error'), 'hang: ...' or the traceback}."""
    out = {}
    inputs = [(what, lambda text=text: check_spec_text(text, folder))
              for what, text in hostile_specs() if what not in skip]
    inputs += [(f"rule text {text[:12]!r}...", lambda text=text: check_rule_text(text))
               for text in HOSTILE_RULES]
    for what, fn in inputs:
        t0 = time.perf_counter()
        try:
            out[what] = bounded(fn, slow)
        except Hang:
            out[what] = f"hang: stopped after {time.perf_counter() - t0:.0f} s"
        except Exception:  # noqa: BLE001
            out[what] = traceback.format_exc()[-800:]
    return out


def summary(found: dict, hostile_found: dict, slow: float, limit_mb: int, seconds: float,
            out: str) -> str:
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(found["kinds"].items()))
    bad_hostile = {k: v for k, v in hostile_found.items() if v not in ("ok", "error")}
    unproven = sum("[unproven" in desc for desc, _, _ in found["accepted_tampered"])
    routes: dict = {}
    for leak in found["leaks"]:
        routes[leak[1]] = routes.get(leak[1], 0) + 1
    return "\n".join([
        f"{found['inputs']} inputs ({kinds}) in {seconds:.0f} s: {found['ok']} ok, "
        f"{found['error']} located errors; hand-made hostile inputs: {len(hostile_found)}, "
        f"{len(bad_hostile)} not a result or a located error",
        f"tracebacks: {len(found['tracebacks'])}",
        f"hangs over {slow:g} s: {len(found['hangs'])} (slowest input "
        f"{found['slowest'][0]:.1f} s, {found['slowest'][1]})",
        f"memory: peak {found['max_rss_mb']:.0f} MB resident, under RLIMIT_AS {limit_mb} MB "
        "(a MemoryError counts as a traceback)",
        f"tampered logs: {found['tampered']} ({found['tampered_replayed']} replayed in full: "
        f"{found['tampered_refused']} refused, {found['tampered_accepted_same']} accepted as "
        f"the same game, {len(found['accepted_tampered'])} accepted as a different game, "
        f"{unproven} of them as a log of version 1, with the warning that it is unproven)",
        f"simulate --resume: {found['resumed']} damaged or foreign files resumed, "
        f"{len(found['resume'])} changed though refused, or resumed losing a line or a game",
        f"leaks: {len(found['leaks'])}" + (" (" + ", ".join(
            f"{r}: {n}" for r, n in sorted(routes.items())) + ")" if routes else ""),
        ] + new_summary(found) + [f"findings: {out}"])


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def new_summary(found: dict) -> list:
    """The summary lines of the new kinds (grammar, semantic, adapter, endless,
    writers)."""
    g, sm, e, a, w = (found[k] for k in ("grammar", "semantic", "endless", "adapter",
                                          "writers"))
    untyped = g["inputs"] - g["typed"]
    return [
        f"grammar-aware rule text: {g['inputs']} specs, {g['valid']} passed validation "
        f"({_pct(g['valid'], g['inputs'])}; typed {g['typed_valid']} of {g['typed']}, "
        f"{_pct(g['typed_valid'], g['typed'])}; hostile {g['valid'] - g['typed_valid']} of "
        f"{untyped}), {g['played']} played a bounded game to its end or 300 decisions, "
        f"{g['simulated']} simulated 2 games with exit 0",
        f"semantic mutations: {sm['inputs']} specs ({sm['valid']} validated in full)",
        f"adapters: {a['inputs']} scripts, {a['calls']} calls ({a['refused']} refused with "
        f"a clear error), {a['tampered']} tampered serializations read back "
        f"({a['tampered_loaded']} loaded, each replayed from its seed); impossible states "
        f"accepted: {len(found['impossible'])}; code run: {len(found['code_run'])}",
        f"endless games: {e['inputs']} ({e['located']} ended with a located error, "
        f"{e['ended']} ended all the same; peak {e['peak_mb']:.0f} MB in a process, "
        f"growth up to {e['growth_mb']:.0f} MB over a game); memory kills or growth: "
        f"{len(found['memory'])}",
        f"two writers: {w['inputs']} pairs ({w['refused']} refused, {w['killed']} first "
        f"writers killed, {w['resumed']} files resumed after); records lost, duplicated "
        f"or mixed: {len(found['records'])}"]


def write_findings(path: str, found: dict, hostile_found: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for kind, what, tb in found["tracebacks"]:
            fh.write(f"== traceback ({kind})\n{what!r}\n{tb}\n")
        for kind, what, dt in found["hangs"]:
            fh.write(f"== hang ({kind}, {dt:.1f} s)\n{what!r}\n")
        for kind, route, bad, what, output in found["leaks"]:
            fh.write(f"== leak ({kind}, {route}): {', '.join(bad)}\n{what!r}\n"
                     f"-- output:\n{output}\n")
        for wrong, what, output in found["resume"]:
            fh.write(f"== simulate --resume: {wrong}\n{what}\n-- output:\n{output}\n")
        for key in ("memory", "impossible", "code_run", "records"):
            for kind, what, detail in found[key]:
                fh.write(f"== {key} ({kind})\n{what if isinstance(what, str) else what!r}\n"
                         f"-- {detail}\n")
        for desc, argv, text in found["accepted_tampered"]:
            fh.write(f"== accepted tampered log ({desc}), recorded with tabula "
                     f"{' '.join(argv)}\n{text}\n")
        for what, outcome in hostile_found.items():
            if outcome not in ("ok", "error"):
                fh.write(f"== hand-made hostile input: {what}\n{outcome}\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="the long fuzz run (docs/fuzzing.md)")
    ap.add_argument("--inputs", type=int, default=10_000, help="how many inputs")
    ap.add_argument("--seed", type=int, default=1, help="the campaign's seed")
    ap.add_argument("--slow", type=float, default=20.0,
                    help="seconds after which an input is stopped and counted as a hang")
    ap.add_argument("--memory-mb", type=int, default=1024,
                    help="the process's address-space limit (RLIMIT_AS), in MB")
    ap.add_argument("--out", default="fuzz-findings.txt", help="where findings go")
    ap.add_argument("--kinds", default="all",
                    help="'all' (the rotation of Campaign.KINDS), 'old' (the first six "
                         "kinds), 'new' (grammar, semantic, adapter, endless, writers), or "
                         "kinds separated by commas (a rotation of those)")
    args = ap.parse_args(argv)
    if args.kinds == "all":
        kinds = Campaign.KINDS
    elif args.kinds == "old":
        kinds = Campaign.OLD_KINDS
    elif args.kinds == "new":
        kinds = Campaign.NEW_KINDS
    else:
        kinds = tuple(k.strip() for k in args.kinds.split(","))
        unknown = [k for k in kinds if not hasattr(Campaign, "do_" + k)]
        if unknown:
            ap.error(f"unknown kinds: {', '.join(unknown)}")
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (args.memory_mb << 20, hard))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "hostile").mkdir()
        hostile_found = hostile(Path(tmp) / "hostile", args.slow)
        Path(args.out).write_text("", encoding="utf-8")
        found = campaign(args.inputs, args.seed, Path(tmp), args.slow, out=args.out,
                         kinds=kinds, memory_mb=args.memory_mb)
    write_findings(args.out, found, hostile_found)
    print(summary(found, hostile_found, args.slow, args.memory_mb,
                  time.perf_counter() - t0, args.out))
    bad = any(found[k] for k in Campaign.FINDINGS) or \
        any(v not in ("ok", "error") for v in hostile_found.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    sys.exit(main())
