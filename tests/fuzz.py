"""Fuzzing Tabula with hostile input: mutated specs, rule text, scenarios and command lines.

Every input must give a result or a located error (a TabulaError, exit code 1 or 2 from
the command line): never another exception, never a traceback. The default test suite
runs a short, bounded campaign (tests/test_fuzz.py); the long run is this file as a
script, which prints what it found:

    python tests/fuzz.py --inputs 10000 --seed 1      # about an hour on 2 cores

It reports tracebacks (with the input that caused them, written to --out), inputs that
took longer than --slow seconds, and the peak memory of the process (ru_maxrss).
"""

from __future__ import annotations

import argparse
import io
import random
import resource
import sys
import tempfile
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = [ROOT / "specs" / "medang" / "medang.yaml", ROOT / "specs" / "medina" / "medina.yaml",
         ROOT / "examples" / "tiny" / "tiny.yaml", ROOT / "examples" / "kuhn_poker" /
         "kuhn_poker.yaml", ROOT / "examples" / "goofspiel" / "goofspiel.yaml"]
# pieces of text a mutation inserts: rule-language words, YAML structure, hostile values
TOKENS = ["not ", "(", ")", "[", "]", "{", "}", ":", "- ", "  ", "\n", "#", "'", '"', "&a",
          "*a", "!!python/object", "9" * 60, "-1", "0", "none", "current", "players",
          "size(", "sum(", "for x in ", " where ", " and ", " or ", "/", "//", "%",
          "{n.__class__}", "{n:>99}", "\x00", "\x0c", "\t", "é", "move ", " to ", "let ",
          "end game", "call ", "range(1, 100000)", "choose: ", "player: 7", "max_steps: 0"]


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
    ]


def mutate(text: str, rng: random.Random) -> str:
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
            lines[i] = lines[i][:k] + rng.choice(TOKENS) + lines[i][k:]
        elif lines[i]:
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k] + chr(rng.randrange(32, 127)) + lines[i][k + 1:]
    return "\n".join(lines)


def check_spec_text(text: str, folder: Path, name: str = "fuzz.yaml") -> str:
    """Validate and (if valid) play a short random game of a spec text; the outcome:
    'ok', 'error' (a located error), or raises what escaped."""
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
            st.apply(st.legal_actions()[0])
            st.observation(0)
        st.scores()
        return "ok"
    except TabulaError:
        return "error"


def check_rule_text(text: str) -> str:
    from tabula_rules.errors import TabulaError
    from tabula_rules.parser import parse
    for what in ("expression", "statement", "bindings"):
        try:
            parse(text, what)
        except TabulaError:
            pass
    return "ok"


def check_command(argv: list) -> int:
    """Run `tabula ARGV` in-process; its exit code (a usage error's SystemExit counts)."""
    from tabula_rules.cli import main
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
    if "Traceback" in err.getvalue():
        raise AssertionError("a traceback reached the user:\n" + err.getvalue()[-2000:])
    return code


def hostile(folder: Path, slow: float = 20.0) -> dict:
    """Every hand-made hostile input once: {what: outcome or the traceback}."""
    out = {}
    for what, text in hostile_specs():
        t0 = time.perf_counter()
        try:
            out[what] = check_spec_text(text, folder)
        except Exception:  # noqa: BLE001
            out[what] = traceback.format_exc()[-800:]
        if time.perf_counter() - t0 > slow:
            out[what] = f"slow: {time.perf_counter() - t0:.0f} s"
    for text in HOSTILE_RULES:
        try:
            out[f"rule text {text[:12]!r}..."] = check_rule_text(text)
        except Exception:  # noqa: BLE001
            out[f"rule text {text[:12]!r}..."] = traceback.format_exc()[-800:]
    return out


def campaign(inputs: int, seed: int, folder: Path, slow: float = 20.0, log=print) -> dict:
    """`inputs` fuzz inputs, in rotation: mutated specs (written to `folder`), rule text,
    command lines."""
    rng = random.Random(seed)
    texts = [p.read_text(encoding="utf-8") for p in SPECS]
    found = {"inputs": 0, "ok": 0, "error": 0, "tracebacks": [], "slow": []}
    for i in range(inputs):
        kind = i % 3
        t0 = time.perf_counter()
        try:
            if kind == 0:
                base = rng.randrange(len(SPECS))
                text = mutate(texts[base], rng)
                outcome = check_spec_text(text, folder)
                what = text
            elif kind == 1:
                what = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 30)))
                outcome = check_rule_text(what)
            else:
                spec = str(rng.choice(SPECS))
                words = ["run", "validate", "test", "bench", "simulate", "rulings", "list",
                         "--games", "--players", "--seed", "--option", "-3", "0", "7",
                         "x=y", "temple=nowhere", spec, "/dev/null", "--json", "--strict"]
                what = [rng.choice(["run", "validate", "rulings", "list"])] + \
                    [rng.choice(words) for _ in range(rng.randint(0, 5))]
                if "simulate" in what or "bench" in what:
                    what = [w for w in what if w not in ("simulate", "bench")]
                outcome = "exit %d" % check_command(what)
            found[outcome if outcome in ("ok", "error") else "ok"] += 1
        except Exception:  # noqa: BLE001  (what we are looking for)
            found["tracebacks"].append((kind, what, traceback.format_exc()[-1500:]))
        dt = time.perf_counter() - t0
        if dt > slow:
            found["slow"].append((kind, what, dt))
        found["inputs"] += 1
        if log and (i + 1) % 500 == 0:
            log(f"{i + 1} inputs, {len(found['tracebacks'])} tracebacks, "
                f"{len(found['slow'])} slow")
    found["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="the long fuzz run (docs: tests/fuzz.py)")
    ap.add_argument("--inputs", type=int, default=10_000, help="how many inputs")
    ap.add_argument("--seed", type=int, default=1, help="the campaign's seed")
    ap.add_argument("--slow", type=float, default=20.0, help="seconds that count as a hang")
    ap.add_argument("--out", default="fuzz-findings.txt", help="where findings go")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        found = campaign(args.inputs, args.seed, Path(tmp), args.slow)
    with open(args.out, "w", encoding="utf-8") as fh:
        for kind, what, tb in found["tracebacks"]:
            fh.write(f"== kind {kind}\n{what!r}\n{tb}\n")
    print(f"{found['inputs']} inputs: {found['ok']} ok, {found['error']} located errors, "
          f"{len(found['tracebacks'])} tracebacks, {len(found['slow'])} over "
          f"{args.slow:g} s, peak memory {found['max_rss_mb']:.0f} MB (findings: {args.out})")
    return 1 if found["tracebacks"] or found["slow"] else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    sys.exit(main())
