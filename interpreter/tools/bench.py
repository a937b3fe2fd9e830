"""Speed measurements (`tabula bench`): random playouts through the public API, the cost
of State.clone(), and yardsticks measured in the same run (a hand-written reference
program, OpenSpiel's version of a game), since absolute times drift between machines and
runs while ratios measured side by side do not.

Input: a compiled Game (one spec), or a repository root and its suite file (the suite:
every shipped spec, plus what bench.yaml asks: see benchconfig.py).
Output: dicts of figures: one object for a spec (`bench_spec`), rows and a summary with
each target met or missed for the suite (`suite`); `spec_text` and `suite_text` print them.

Only the public API is used: Spec.game, Game.new_state, State.legal_actions / apply /
terminal / pending.player / clone / scores, and the batch runner the command line gives
the suite for its parallel run (simulate.run_batch: bench imports no runner, so that the
runner and bench stay side by side, each imported by the command line only).
"""

from __future__ import annotations

import cProfile
import json
import operator
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..compiler.codegen import FILENAME as CODE_FILE  # generated code's file, in tracebacks
from ..errors import TabulaError, did_you_mean, shown_path
from ..runtime.model import CHANCE
from ..spec import load_spec, resolve_spec_path
from .benchconfig import CLONE_TARGET, FILE_NAME, SuiteFile
from .cmdutil import bot_rng, games_count  # bot_rng: the generator `tabula run` gives its bots

SPEC_GAMES = 500                 # `tabula bench SPEC` without --games
SUITE_SECONDS = 3.0              # the suite: a spec bench.yaml gives no games gets about
SUITE_GAMES = (5, 2000)          # this many seconds of games, at least 5 and at most 2000
CLONE_GAMES = 2                  # State.clone() is timed on states of 2 random games,
CLONE_POINTS = (0.0, 0.25, 0.5, 0.75)   # taken at these fractions of each game,
CLONES_PER_STATE = 250           # cloned 250 times each


# ---- one spec -----------------------------------------------------------------------------

def bench(game, games: int, seed: int) -> dict:
    """Random playouts through the public API; decisions exclude chance decisions."""
    games_count(games, "games")
    decisions, chance, branching, dt = playouts(game, games, seed)
    return {"games": games, "seconds": dt, "playouts_per_s": games / dt,
            "decisions_per_s": decisions / dt, "decisions_per_game": decisions / games,
            "chance_per_game": chance / games,
            "mean_branching": branching / decisions if decisions else 0.0}


def playouts(game, games: int, seed: int) -> tuple:
    """bench's random playouts, any number of them, 0 included (the run --instructions
    subtracts): -> (decisions, chance decisions, summed branching, seconds)."""
    rng = bot_rng(seed)
    decisions = chance = branching = 0
    t0 = time.perf_counter()
    for i in range(games):
        st = game.new_state(seed=seed + i)
        rnd = rng.random
        while not st.terminal:
            acts = st.legal_actions()
            n = len(acts)
            if st.pending.player == CHANCE:
                chance += 1
            else:
                decisions += 1
                branching += n
            st.apply(acts[int(rnd() * n)])
        st.scores()
    return decisions, chance, branching, max(time.perf_counter() - t0, 1e-9)


def clone_us(new_state, apply, terminal, seed: int = 1, games: int = CLONE_GAMES,
             clones: int = CLONES_PER_STATE) -> float:
    """The mean time of one clone() in microseconds, over states taken at CLONE_POINTS of
    `games` random games: new_state(i) starts game i, apply(state, action) plays, and
    terminal(state) tells the end (so that OpenSpiel's states are measured alike). Each
    game is played once to learn its length, then again to the chosen points."""
    rng = random.Random(seed)
    spent, done = 0.0, 0
    for i in range(games):
        st, moves = new_state(i), []
        while not terminal(st):
            acts = st.legal_actions()
            moves.append(acts[int(rng.random() * len(acts))])
            apply(st, moves[-1])
        at = {int(p * len(moves)) for p in CLONE_POINTS}
        st = new_state(i)
        for k, a in enumerate(moves):
            if k in at:
                clone = st.clone
                t0 = time.perf_counter()
                for _ in range(clones):
                    clone()
                spent += time.perf_counter() - t0
                done += clones
            apply(st, a)
    return spent / done * 1e6 if done else 0.0


def game_clone_us(game, seed: int) -> float:
    return clone_us(lambda i: game.new_state(seed=seed + i), lambda st, a: st.apply(a),
                    lambda st: st.terminal, seed)


def run_reference(script, players: int, games: int, seed: int, options: dict) -> dict:
    """Run a hand-written reference's `bench --api --json`: the same players, games, seed
    and options (as --KEY VALUE); its JSON has playouts_per_s, mean_decisions and api
    (playouts_per_s, mean_decisions: through its public legal moves / apply)."""
    cmd = [sys.executable, str(script), "bench", "--players", str(players),
           "--games", str(games), "--seed", str(seed), "--api", "--json"]
    for key, value in options.items():
        cmd += [f"--{key}", str(value)]
    try:
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True,
                                         timeout=3600).stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        raise TabulaError(f"the reference benchmark failed: {e}") from None


def bench_spec(spec, game, games: int, seed: int, repeat: int = 1, reference=None) -> dict:
    """`tabula bench SPEC`: playouts (the median of `repeat` runs, each interleaved with
    the reference's, so that drift hits both alike) and the ratio to the reference."""
    out = {"spec": spec.id, "players": game.players, "options": game.options, "seed": seed,
           "repeat": repeat}
    games_count(games, "games")
    games_count(repeat, "repeat")
    runs, refs, ratios = [], [], []
    for _ in range(repeat):
        runs.append(bench(game, games, seed))
        if reference:
            ref = run_reference(reference, game.players, games, seed, game.options)
            refs.append(ref)
            if ref.get("api", {}).get("playouts_per_s"):
                ratios.append(runs[-1]["playouts_per_s"] / ref["api"]["playouts_per_s"])
    out.update(sorted(runs, key=lambda r: r["playouts_per_s"])[len(runs) // 2])
    if refs:
        med = statistics.median
        out["reference"] = {
            "path": reference,
            "playouts_per_s": med(r["playouts_per_s"] for r in refs),
            "api_playouts_per_s": med(r.get("api", {}).get("playouts_per_s", 0) for r in refs),
            "decisions_per_game": refs[0].get("mean_decisions")}
        if ratios:
            out["ratio_to_reference_api"] = med(ratios)
            out["ratios_to_reference_api"] = ratios
        out["ratio_to_reference_fast"] = med(
            a["playouts_per_s"] / r["playouts_per_s"] for a, r in zip(runs, refs))
    return out


def spec_text(out: dict) -> str:
    lines = [f"{out['spec']}, {out['players']} players, {out['games']} random playouts "
             f"(seed {out['seed']})",
             f"  playouts/s        {out['playouts_per_s']:10.1f}",
             f"  decisions/s       {out['decisions_per_s']:10.1f}",
             f"  decisions/game    {out['decisions_per_game']:10.2f}  "
             f"(+ {out['chance_per_game']:.2f} chance)",
             f"  mean branching    {out['mean_branching']:10.2f}"]
    if "reference" in out:
        r = out["reference"]
        ratios = out.get("ratios_to_reference_api", [])
        lines.append(f"reference {r['path']}: api {r['api_playouts_per_s']:.1f} playouts/s, "
                     f"fast {r['playouts_per_s']:.1f}, {r['decisions_per_game']:.2f} "
                     "decisions/game")
        lines.append(f"  ratio to the reference api: {out.get('ratio_to_reference_api', 0):.3f}"
                     + (f" (median of {len(ratios)}: " + ", ".join(f"{x:.3f}" for x in ratios)
                        + ")" if len(ratios) > 1 else ""))
    return "\n".join(lines)


# ---- instructions under callgrind ---------------------------------------------------------------

INSTRUCTION_GAMES = 10     # `tabula bench SPEC --instructions` without --games
INSTRUCTION_MAX = 300      # more only when asked (--long): callgrind runs about 50x slower
# the child run under valgrind: this module's instruction_child, with its job as JSON
CHILD = "import sys; from {module} import instruction_child; instruction_child(sys.argv[1])"
# callgrind counts only inside this C function (operator.call, which runs the playouts):
# a whole run's count also holds the imports and the compiling, whose instructions vary
# by a few in 10,000 from run to run under callgrind (lark builds its parser with sets
# ordered by address, and the addresses the allocator gets vary under callgrind)
TOGGLE = "_operator_call"
PACKAGE_DIR = Path(__file__).resolve().parents[1]     # interpreter/: the package's code
DETERMINISM = ("the same spec, players, options, games and seed, PYTHONHASHSEED=0, "
               "no bytecode written (python -B){aslr}, only the playouts counted (inside "
               "operator.call): the same count to about 1 in 10,000 (what is left: addresses "
               "under callgrind), unlike a time")


def valgrind_missing() -> str | None:
    """Why --instructions cannot run here (None: valgrind is on PATH)."""
    if shutil.which("valgrind"):
        return None
    return ("--instructions counts instructions with valgrind's callgrind, and valgrind is "
            "not installed here (no valgrind on PATH): install it (apt-get install valgrind), "
            "or measure time without --instructions")


def check_instruction_games(games: int, long: bool = False) -> None:
    """A bound on the games played under valgrind, unless asked (long)."""
    games_count(games, "games")
    if games > INSTRUCTION_MAX and not long:
        raise TabulaError(f"--instructions plays its games under valgrind, about 50 times "
                          f"slower than without: at most {INSTRUCTION_MAX} games, not {games} "
                          f"(give --long to play them anyway)")


def instruction_child(job_text: str) -> None:
    """The program valgrind runs (CHILD): load and compile the spec, play job["games"]
    games (0: none) as bench plays them, print what was played as JSON."""
    from ..spec import load_spec as load
    job = json.loads(job_text)
    game = load(job["spec"]).game(job["players"], job["options"])
    # through operator.call: callgrind counts inside it only (TOGGLE), not the imports
    decisions, chance, _, _ = operator.call(playouts, game, job["games"], job["seed"])
    print(json.dumps({"decisions": decisions, "chance": chance, "options": game.options,
                      "package": str(PACKAGE_DIR)}))


def _no_aslr() -> list:
    """setarch's prefix that turns address randomization off for the child (the order of
    sets of objects hashed by address, and so the instructions, then repeat), if setarch
    is here and allowed to; else nothing."""
    setarch = shutil.which("setarch")
    if setarch is None:
        return []
    cmd = [setarch, platform.machine(), "-R"]
    try:
        ok = subprocess.run(cmd + ["true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return cmd if ok else []


def callgrind(job: dict, prefix: list) -> tuple:
    """Run instruction_child(job) under valgrind --tool=callgrind: -> (the instructions of
    the whole run, the child's JSON)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory(prefix="tabula-callgrind-") as tmp:
        out_file = Path(tmp) / "callgrind.out"
        cmd = prefix + ["valgrind", "-q", "--tool=callgrind", "--collect-atstart=no",
                        f"--toggle-collect={TOGGLE}", f"--callgrind-out-file={out_file}",
                        sys.executable, "-B", "-c",
                        CHILD.format(module=__name__), json.dumps(job)]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, env=env)
        except OSError as e:
            raise TabulaError(f"cannot run valgrind: {e.strerror or e}") from None
        if run.returncode:
            last = (run.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise TabulaError(f"the run under valgrind failed (exit {run.returncode}): "
                              f"{last}")
        try:
            text = out_file.read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            raise TabulaError(f"valgrind wrote no callgrind output: {e.strerror or e}") from None
    totals = [line.split()[1] for line in text.splitlines()
              if line.startswith(("totals:", "summary:")) and len(line.split()) > 1]
    try:
        return int(totals[-1]), json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise TabulaError("valgrind's callgrind output has no total of instructions") from None


def instructions(spec, game, games: int, seed: int, long: bool = False) -> dict:
    """`tabula bench SPEC --instructions`: the instructions of `games` random playouts, as
    `bench` plays them, counted by valgrind's callgrind in a child process (this Python,
    this package): a run of `games` games less a run of none (import and compile), over
    the decisions and the games. Deterministic (DETERMINISM), unlike a time."""
    why = valgrind_missing()
    if why:
        raise TabulaError(why)
    check_instruction_games(games, long)
    prefix = _no_aslr()
    job = {"spec": str(spec.path), "players": game.players, "options": game.options,
           "seed": seed}
    whole, played = callgrind({**job, "games": games}, prefix)
    none, _ = callgrind({**job, "games": 0}, prefix)
    if played.get("package") != str(PACKAGE_DIR) or played.get("options") != game.options:
        raise TabulaError(f"the run under valgrind measured another package or game "
                          f"({played.get('package')}, options {played.get('options')}), "
                          f"not this one ({PACKAGE_DIR})")
    if not whole:
        raise TabulaError(f"callgrind counted no instructions inside operator.call "
                          f"({TOGGLE}): this Python's symbols may be stripped")
    decisions, spent = played["decisions"], whole - none
    return {"spec": spec.id, "players": game.players, "options": game.options, "seed": seed,
            "games": games, "decisions": decisions,
            "decisions_per_game": decisions / games,
            "chance_per_game": played["chance"] / games,
            "instructions_per_decision": spent / decisions if decisions else None,
            "instructions_per_game": spent / games,
            "instructions_playouts": spent, "instructions_run": whole,
            "instructions_none": none, "tool": f"{valgrind_version()} --tool=callgrind",
            "python": platform.python_version(),
            "repeatable": DETERMINISM.format(
                aslr=", address randomization off (setarch -R)" if prefix else "")}


def valgrind_version() -> str:
    try:
        return subprocess.run(["valgrind", "--version"], capture_output=True, text=True,
                              timeout=30).stdout.strip() or "valgrind"
    except (OSError, subprocess.SubprocessError):
        return "valgrind"


def instructions_text(out: dict) -> str:
    per = out["instructions_per_decision"]
    return "\n".join([
        f"{out['spec']}, {out['players']} players, {out['games']} random playouts "
        f"(seed {out['seed']}) under {out['tool']}",
        "  instructions/decision " + (f"{per:14,.0f}" if per is not None else
                                      f"{'-':>14} (no decisions)"),
        f"  instructions/game     {out['instructions_per_game']:14,.0f}",
        f"  decisions/game        {out['decisions_per_game']:14.2f}  "
        f"(+ {out['chance_per_game']:.2f} chance)",
        f"  counted: {out['games']} games {out['instructions_run']:,}, none "
        f"{out['instructions_none']:,} instructions (the playouts' call only: not the "
        "imports, not the compiling)",
        f"  repeatable: {out['repeatable']}"])


# ---- a profile in the spec's words -------------------------------------------------------------

PROFILE_GAMES = 100        # `tabula bench SPEC --profile` without --games
PROFILE_TOP = 15           # the spec's entries shown (text); the interpreter's, Python's:
PROFILE_TOP_OTHER = 10     # this many
SECTIONS = ("spec", "interpreter", "python")
ADDRESS = re.compile(r" at 0x[0-9a-f]+")       # a builtin's name may hold an address


def _where(code, prog, inside: dict) -> tuple:
    """-> (section, the entry's name, the generated function's name or None) of a code
    object cProfile saw (a text for a builtin): the spec's generated code (named by
    Program.origin; a comprehension by the generated function that runs it, `inside`),
    the interpreter's own code (grouped by name and module), or Python's."""
    if isinstance(code, str):                    # a builtin: its name says where it is
        return "python", ADDRESS.sub("", code), None
    name = code.co_name
    if code.co_filename == CODE_FILE:
        if name.startswith("<") and code in inside:      # <listcomp>, <genexpr>, ...
            fn = inside[code]
            return "spec", f"{name[1:-1]} in {prog.origin(fn) or fn}", fn
        return "spec", prog.origin(name) or name, name
    path = Path(code.co_filename)
    # a comprehension or lambda is named by its line, a function by its name alone
    at = f":{code.co_firstlineno}" if name.startswith("<") else ""
    if path.is_absolute() and PACKAGE_DIR in path.resolve().parents:
        return "interpreter", f"{name} ({path.resolve().relative_to(PACKAGE_DIR)}{at})", None
    return "python", f"{name} ({path.name}{at})", None


def _inside(entries) -> dict:
    """comprehension code of generated code -> the generated function that calls it (the
    one calling it most), from the profile's own record of who called what."""
    seen: dict = {}
    for e in entries:
        if isinstance(e.code, str) or e.code.co_filename != CODE_FILE \
                or e.code.co_name.startswith("<"):
            continue
        for sub in e.calls or ():
            code = sub.code
            if not isinstance(code, str) and code.co_filename == CODE_FILE \
                    and code.co_name.startswith("<"):
                if sub.callcount > seen.get(code, ("", -1))[1]:
                    seen[code] = (e.code.co_name, sub.callcount)
    return {code: fn for code, (fn, _) in seen.items()}


def profile(spec, game, games: int, seed: int) -> dict:
    """`tabula bench SPEC --profile`: bench's playouts under cProfile, every entry named by
    what it comes from: the spec's functions, rules and decisions (Program.origin), the
    interpreter's helpers and engine grouped by name, Python's; own time and cumulative
    time as shares of the time profiled."""
    games_count(games, "games")
    prof = cProfile.Profile()
    decisions, chance, _, seconds = prof.runcall(playouts, game, games, seed)
    entries = [e for e in prof.getstats()
               if e.code != "<method 'disable' of '_lsprof.Profiler' objects>"]
    inside = _inside(entries)
    rows: dict = {}
    for e in entries:
        section, shown, fn = _where(e.code, game.prog, inside)
        row = rows.setdefault((section, shown, fn), {"name": shown, "function": fn,
                                                     "calls": 0, "own_s": 0.0, "cum_s": 0.0})
        row["calls"] += e.callcount
        row["own_s"] += e.inlinetime
        row["cum_s"] += e.totaltime
    total = sum(r["own_s"] for r in rows.values()) or 1e-9
    out: dict = {s: [] for s in SECTIONS}
    for (section, _, _), row in rows.items():
        # entries grouped by name may nest (a function calling another of its name)
        row["own_share"], row["cum_share"] = row["own_s"] / total, min(row["cum_s"] / total, 1)
        if section != "spec":
            del row["function"]
        out[section].append(row)
    for section in SECTIONS:
        out[section].sort(key=lambda r: (-r["own_s"], r["name"]))
    shares = {s: sum(r["own_s"] for r in out[s]) / total for s in SECTIONS}
    return {"spec": spec.id, "players": game.players, "options": game.options, "seed": seed,
            "games": games, "seconds": seconds, "decisions_per_game": decisions / games,
            "chance_per_game": chance / games, "shares": shares,
            "spec_entries": out["spec"],
            "interpreter_entries": out["interpreter"], "python_entries": out["python"]}


def _profile_rows(title: str, rows: list, top: int) -> list:
    lines = [f"  {'own %':>6} {'cum %':>6} {'calls':>11}  {title}"]
    for r in rows[:top]:
        fn = f"  [{r['function']}]" if r.get("function") and r["function"] != r["name"] else ""
        lines.append(f"  {100 * r['own_share']:6.1f} {100 * r['cum_share']:6.1f} "
                     f"{r['calls']:11,}  {r['name']}{fn}")
    if len(rows) > top:
        rest = rows[top:]
        lines.append(f"  {100 * sum(r['own_share'] for r in rest):6.1f} {'':>6} "
                     f"{sum(r['calls'] for r in rest):11,}  ({len(rest)} more)")
    return lines


def profile_text(out: dict) -> str:
    sh = out["shares"]
    lines = [f"{out['spec']}, {out['players']} players, {out['games']} random playouts "
             f"(seed {out['seed']}) under cProfile: {out['seconds']:.1f} s, "
             f"{out['decisions_per_game']:.2f} decisions/game",
             "(the profiler slows every call: read the shares, not the speed)",
             f"own time: the spec's generated code {100 * sh['spec']:.1f}%, the interpreter "
             f"{100 * sh['interpreter']:.1f}%, Python's builtins and library "
             f"{100 * sh['python']:.1f}%", ""]
    lines += _profile_rows(f"the spec's functions, rules and decisions (top {PROFILE_TOP} "
                           "by own time)", out["spec_entries"], PROFILE_TOP)
    lines += _profile_rows("the interpreter's helpers and engine, by name",
                           out["interpreter_entries"], PROFILE_TOP_OTHER)
    lines += _profile_rows("Python", out["python_entries"], PROFILE_TOP_OTHER // 2)
    return "\n".join(lines)


# ---- OpenSpiel ------------------------------------------------------------------------------

def openspiel():
    """pyspiel with OpenSpiel's Python games registered (python_NAME), or None."""
    try:
        import open_spiel.python.games  # noqa: F401  (registers the python_* games)
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def openspiel_game(pyspiel, name: str, players: int, options: dict | None = None):
    """OpenSpiel's game `name` for that many players, or None if it has no such count;
    the spec's options that are parameters of OpenSpiel's game too (of the same name, a
    number or a truth value: `board_size`) are given to it, so that both play one game."""
    declared = pyspiel.load_game(name).get_type().parameter_specification
    params = {k: v for k, v in (options or {}).items()
              if k in declared and k != "players" and type(v) in (int, bool)}
    game = pyspiel.load_game(name, params)
    if game.num_players() == players:
        return game
    if "players" in declared:
        return pyspiel.load_game(name, {**params, "players": players})
    return None


def openspiel_bench(game, games: int, seed: int) -> dict:
    """Random playouts of an OpenSpiel game, measured as `bench` measures Tabula's: the
    player picks legal_actions()[int(r.random() * n)], chance samples its outcomes with
    their probabilities; decisions exclude chance."""
    rnd = random.Random(seed).random
    decisions = chance = 0
    t0 = time.perf_counter()
    for _ in range(games):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                chance += 1
                x, acc = rnd(), 0.0
                outcomes = st.chance_outcomes()
                pick = outcomes[-1][0]
                for action, p in outcomes:
                    acc += p
                    if x < acc:
                        pick = action
                        break
                st.apply_action(pick)
            else:
                acts = st.legal_actions()
                decisions += 1
                st.apply_action(acts[int(rnd() * len(acts))])
        st.returns()
    dt = time.perf_counter() - t0
    return {"games": games, "seconds": dt, "playouts_per_s": games / dt,
            "decisions_per_s": decisions / dt, "decisions_per_game": decisions / games,
            "chance_per_game": chance / games}


def openspiel_clone_us(game, seed: int) -> float:
    return clone_us(lambda i: game.new_initial_state(), lambda st, a: st.apply_action(a),
                    lambda st: st.is_terminal(), seed)


# ---- the suite --------------------------------------------------------------------------------

def is_spec_file(path: Path) -> bool:
    """A YAML file with a top-level game: section (not a scenario file)."""
    if path.name.endswith(".test.yaml"):
        return False
    try:
        return any(line.startswith("game:") for line in path.read_text(encoding="utf-8")
                   .splitlines())
    except (OSError, UnicodeDecodeError):
        return False


def suite_specs(root) -> list:
    """Every shipped spec under root: each folder of specs/ and examples/ gives its spec
    (as load_spec(folder) resolves it) and the other spec files beside it (variants)."""
    found = []
    for top in ("specs", "examples"):
        base = Path(root) / top
        if not base.is_dir():
            continue
        for folder in sorted(p for p in base.iterdir() if p.is_dir()):
            try:
                own = [resolve_spec_path(folder)]
            except TabulaError:      # notes only, or several specs none named after it
                own = []
            for f in own + sorted(folder.glob("*.yaml")):
                if f not in found and is_spec_file(f):
                    found.append(f)
    return found


def timed_games(game, seed: int) -> int:
    """Games per player count for a spec bench.yaml gives none: as many as one game's time
    fits into SUITE_SECONDS, within SUITE_GAMES (two significant digits)."""
    seconds = bench(game, 1, seed)["seconds"]
    lo, hi = SUITE_GAMES
    n = max(lo, min(hi, int(SUITE_SECONDS / max(seconds, 1e-6))))
    return int(float(f"{n:.2g}"))


def git_commit(root) -> str | None:
    """The commit of the tree measured (+dirty when tracked files differ from it)."""
    try:
        run = lambda *a: subprocess.run(["git", *a], cwd=root, capture_output=True,  # noqa
                                        text=True, timeout=10)
        head = run("rev-parse", "--short", "HEAD")
        if head.returncode:
            return None
        dirty = run("status", "--porcelain", "--untracked-files=no").stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def _ratio(a, b):
    return a / b if a and b else None


def mark(value, target, at_most: bool = False) -> dict:
    """A target beside its measured value: met is None when either is missing."""
    if target is None or value is None:
        return {"target": target, "met": None}
    return {"target": target, "met": value <= target if at_most else value >= target}


class Suite:
    """One run of the suite: rows as they are measured (emit(row) sees each), notes.
    config is the suite file (benchconfig.SuiteFile); references (spec id -> script)
    override its own; batch plays the parallel run (simulate.run_batch, or anything with
    its signature and its Summary's seconds)."""

    def __init__(self, root, config: SuiteFile | None = None, seed: int = 1,
                 scale: float = 1.0, games: int | None = None, players: int | None = None,
                 only=None, references: dict | None = None, parallel: bool = False,
                 emit=None, batch=None):
        self.root, self.seed, self.scale, self.games = Path(root), seed, scale, games
        self.players, self.only, self.parallel = players, only, parallel
        self.batch = batch
        self.config = config or SuiteFile()
        self.references = {**self.config.references, **(references or {})}
        self.emit = emit or (lambda row: None)
        self.rows, self.notes = [], []
        self.all_specs = self.specs = None

    def note(self, text: str) -> None:
        self.notes.append(text)
        self.emit({"kind": "note", "text": text})

    def add(self, row: dict) -> dict:
        self.rows.append(row)
        self.emit(row)
        return row

    def prepare(self) -> None:
        """Load every spec; check the suite file and the arguments against them."""
        paths = suite_specs(self.root)
        if not paths:
            raise TabulaError(f"no specs under {self.root}/specs or {self.root}/examples")
        self.all_specs = [load_spec(p) for p in paths]
        ranges = {s.id: s.player_range for s in self.all_specs}
        self.config.check_specs(ranges)
        self.check_arguments(ranges)
        self.specs = [s for s in self.all_specs if not self.only or s.id in self.only]

    def check_arguments(self, ranges: dict) -> None:
        for flag, ids in (("--reference", self.references), ("--only", self.only or ())):
            for want in ids:
                if want not in ranges:
                    raise TabulaError(f"{flag}: no spec '{want}' here; " + (
                        did_you_mean(want, ranges) or f"the specs: {', '.join(ranges)}"))
        if self.parallel and self.config.parallel is None:
            raise TabulaError("--parallel: " + (
                f"{self.config_shown()} has no parallel: entry" if self.config.path
                else f"no {FILE_NAME} in {shown_path(self.root)} (or --config FILE) to name "
                     "what to simulate"))
        if self.parallel and self.batch is None:     # a caller's mistake, said before the run
            raise TabulaError("--parallel: this suite was given no batch runner to measure "
                              "(Suite's batch: simulate.run_batch)")

    def run(self) -> dict:
        t0 = time.perf_counter()
        if self.specs is None:
            self.prepare()
        pyspiel = openspiel()
        if pyspiel is None:
            self.note("OpenSpiel is not installed (import pyspiel failed): no OpenSpiel rows")
        for key, path in self.references.items():
            if any(s.id == key for s in self.specs) and not Path(path).is_file():
                self.note(f"no reference for {key}: {shown_path(path)} not found")
                self.references[key] = None
        for spec in self.specs:
            self.measure(spec, pyspiel)
        summary = self.summary()
        return {"root": str(self.root), "config": self.config_shown(), "seed": self.seed,
                "games_scale": self.scale, "commit": git_commit(self.root),
                "machine": machine(), "rows": self.rows, "summary": summary,
                "notes": self.notes, "seconds": time.perf_counter() - t0}

    def config_shown(self) -> str | None:
        return shown_path(self.config.path) if self.config.path else None

    def counts(self, spec) -> list:
        lo, hi = spec.player_range
        if self.players is not None:
            return [self.players] if lo <= self.players <= hi else []
        return list(range(lo, hi + 1))

    def game_count(self, spec, game) -> int:
        if self.games:
            return self.games
        games = self.config.games.get(spec.id) or timed_games(game, self.seed)
        return max(1, round(games * self.scale))

    def measure(self, spec, pyspiel) -> None:
        yardsticks = []
        if pyspiel is not None:
            registered = set(pyspiel.registered_names())
            yardsticks = [(key, name) for key, name in (("openspiel", spec.id),
                                                        ("openspiel_python", f"python_{spec.id}"))
                          if name in registered]
        for players in self.counts(spec):
            game = spec.game(players)
            row = {"kind": "tabula", "spec": spec.id, "path": shown_path(spec.path),
                   "players": players, "options": game.options, "seed": self.seed}
            row.update(bench(game, self.game_count(spec, game), self.seed))
            row["clone_us"] = game_clone_us(game, self.seed)
            self.add(row)
            if spec.id in self.references:
                self.reference(spec.id, row, game)
            for key, name in yardsticks:
                self.openspiel_row(pyspiel, key, name, row)

    def reference(self, key: str, row: dict, game) -> None:
        path = self.references[key]
        if path is None:        # not found: noted once
            return
        try:
            ref = run_reference(path, game.players, row["games"], self.seed, game.options)
        except TabulaError as e:
            self.note(f"{key} reference, {game.players} players: {e}")
            return
        api = ref.get("api", {})
        pps, per_game = api.get("playouts_per_s"), api.get("mean_decisions")
        self.add({"kind": "reference", "yardstick": "reference", "name": Path(path).name,
                  "path": str(path), "spec": key, "players": game.players,
                  "games": row["games"], "seed": self.seed, "playouts_per_s": pps,
                  "decisions_per_s": pps * per_game if pps and per_game else None,
                  "decisions_per_game": per_game,
                  "fast_playouts_per_s": ref.get("playouts_per_s"),
                  "ratio": _ratio(row["playouts_per_s"], pps)})

    def openspiel_row(self, pyspiel, key: str, name: str, row: dict) -> None:
        game = openspiel_game(pyspiel, name, row["players"], row.get("options"))
        if game is None:
            self.note(f"OpenSpiel's {name} has no {row['players']}-player game")
            return
        out = {"kind": "openspiel", "yardstick": key, "name": name, "spec": row["spec"],
               "players": row["players"], "seed": self.seed}
        out.update(openspiel_bench(game, row["games"], self.seed))
        out["clone_us"] = openspiel_clone_us(game, self.seed)
        out["ratio"] = _ratio(row["playouts_per_s"], out["playouts_per_s"])
        self.add(out)

    def tabula_row(self, spec_id: str, players: int):
        return next((r for r in self.rows if r["kind"] == "tabula" and r["spec"] == spec_id
                     and r["players"] == players), None)

    def target(self, spec_id: str, key: str):
        return self.config.targets.get(spec_id, {}).get(key)

    def summary(self) -> dict:
        """The suite file's ratios, every yardstick's ratio, the clone times that have a
        target, the parallel run: each with its target and whether it was met."""
        out = {"ratios": [self.cross_ratio(r) for r in self.config.ratios],
               "yardsticks": [{k: r[k] for k in ("spec", "players", "kind", "yardstick", "name",
                                                 "ratio")}
                              | mark(r["ratio"], self.target(r["spec"], r["yardstick"]))
                              for r in self.rows if r["kind"] in ("reference", "openspiel")],
               "clone_us": [{"spec": r["spec"], "players": r["players"], "clone_us": r["clone_us"]}
                            | mark(r["clone_us"], self.target(r["spec"], CLONE_TARGET), True)
                            for r in self.rows if r["kind"] == "tabula"
                            and self.target(r["spec"], CLONE_TARGET) is not None]}
        if self.parallel:
            out["parallel"] = self.parallel_run()
        out["targets"] = target_counts(out)
        return out

    def cross_ratio(self, r) -> dict:
        a, b = self.tabula_row(r.spec, r.players), self.tabula_row(r.over, r.players)
        value = _ratio(a["decisions_per_s"], b["decisions_per_s"]) if a and b else None
        return {"spec": r.spec, "over": r.over, "players": r.players,
                "decisions_per_s_ratio": value} | mark(value, r.target)

    def parallel_run(self) -> dict:
        """simulate the suite file's parallel: games with 2 workers and with 1, interleaved
        (so that drift hits both alike), `repeat` times each; the medians."""
        run_batch = self.batch
        p = self.config.parallel
        spec = next(s for s in self.all_specs if s.id == p.spec)
        seconds = {1: [], 2: []}
        for _ in range(p.repeat):
            for w in seconds:
                seconds[w].append(run_batch(spec, p.games, players=p.players, seed=self.seed,
                                            workers=w).seconds)
        one, two = (statistics.median(seconds[w]) for w in (1, 2))
        return {"spec": p.spec, "games": p.games, "players": p.players, "repeat": p.repeat,
                "seconds_1_worker": one, "seconds_2_workers": two,
                "speedup": one / two} | mark(one / two, p.target)


def target_counts(summary: dict) -> dict:
    """How many of the summary's targets were met, missed, or not measured."""
    marks = summary["ratios"] + summary["yardsticks"] + summary["clone_us"]
    marks += [summary["parallel"]] if summary.get("parallel") else []
    met = [m["met"] for m in marks if m["target"] is not None]
    return {"met": met.count(True), "missed": met.count(False), "not_measured": met.count(None)}


def machine() -> dict:
    return {"cpus": os.cpu_count(), "python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "platform": platform.platform(terse=True), "machine": platform.machine()}


def suite(root, **kwargs) -> dict:
    """Run the suite (see Suite) and return its one JSON-ready object."""
    return Suite(root, **kwargs).run()


# ---- the suite as text ----------------------------------------------------------------------

HEADER = (f"{'spec / yardstick':<32} {'players':>7} {'games':>6} {'playouts/s':>11} "
          f"{'decisions/s':>12} {'dec/game':>9} {'clone us':>9} {'tabula/x':>9}")


def _num(x, fmt: str) -> str:
    return format(x, fmt) if x is not None else format("-", f">{int(float(fmt[:-1]))}")


def row_text(row: dict) -> str:
    """One line of the suite's table (a note is its text)."""
    if row["kind"] == "note":
        return f"  note: {row['text']}"
    if row["kind"] == "tabula":
        name = row["spec"]
    elif row["kind"] == "reference":
        name = f"  {row['name']} (api)"
    else:
        name = f"  openspiel {row['name']}"
    return (f"{name:<32} {row['players']:>7} {row['games']:>6} "
            f"{_num(row['playouts_per_s'], '11.1f')} {_num(row['decisions_per_s'], '12.0f')} "
            f"{_num(row['decisions_per_game'], '9.1f')} {_num(row.get('clone_us'), '9.1f')} "
            f"{_num(row.get('ratio'), '9.3f')}")


def header_text(suite_run: Suite) -> str:
    m, root = machine(), suite_run.root
    config = suite_run.config_shown() or "no suite file"
    return (f"tabula bench --suite: {shown_path(Path(root).resolve())} ({config}), commit "
            f"{git_commit(root) or '?'}, seed {suite_run.seed}, games x{suite_run.scale:g}; "
            f"Python {m['python']}, {m['cpus']} cpus\n{HEADER}")


def _measured(value, entry: dict, fmt: str, unit: str = "", at_most: bool = False,
              needs: str = "not measured") -> str:
    """A measured figure and its target if it has one: met or missed."""
    goal = (f"target {'<=' if at_most else '>='} {entry['target']:g}{unit}"
            if entry["target"] is not None else "")
    if value is None:
        return f"- ({needs}; {goal})" if goal else f"- ({needs})"
    text = format(value, fmt) + unit
    return f"{text}  ({goal}: {'met' if entry['met'] else 'missed'})" if goal else text


def summary_text(out: dict) -> str:
    s = out["summary"]
    lines = []
    for r in s["ratios"]:
        lines.append(f"  {r['spec']} / {r['over']} decisions/s, {r['players']} players: "
                     + _measured(r["decisions_per_s_ratio"], r, ".4f", needs=f"needs {r['spec']} "
                                 f"and {r['over']} at {r['players']} players"))
    for y in s["yardsticks"]:
        what = "reference api" if y["kind"] == "reference" else "openspiel"
        lines.append(f"  {y['spec']} / {what} {y['name']} playouts/s, {y['players']} players: "
                     + _measured(y["ratio"], y, ".4f"))
    for c in s["clone_us"]:
        lines.append(f"  {c['spec']} State.clone(), {c['players']} players: "
                     + _measured(c["clone_us"], c, ".1f", unit=" us", at_most=True))
    par = s.get("parallel")
    if par:
        lines.append(f"  simulate {par['spec']}, {par['games']} games, {par['players']} players:"
                     f" 1 worker {par['seconds_1_worker']:.2f} s, 2 workers "
                     f"{par['seconds_2_workers']:.2f} s (medians of {par['repeat']}), "
                     "speed-up " + _measured(par["speedup"], par, ".2f"))
    t = s["targets"]
    if any(t.values()):
        lines.append(f"  targets: {t['met']} met, {t['missed']} missed"
                     + (f", {t['not_measured']} not measured" if t["not_measured"] else ""))
    head = ["summary (decisions/s exclude chance):"] if lines else []
    return "\n".join(head + lines + [f"({out['seconds']:.0f} s in all)"])
