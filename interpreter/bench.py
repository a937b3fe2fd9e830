"""Speed measurements (`tabula bench`): random playouts through the public API, the cost
of State.clone(), and yardsticks measured in the same run (a hand-written reference
program, OpenSpiel's version of a game), since absolute times drift between machines and
runs while ratios measured side by side do not.

Input: a compiled Game (one spec), or a repository root (the suite: every shipped spec).
Output: dicts of figures: one object for a spec (`bench_spec`), rows and a summary for
the suite (`suite`); `spec_text` and `suite_text` print them.

Only the public API is used: Spec.game, Game.new_state, State.legal_actions / apply /
terminal / pending.player / clone / scores, and simulate.run_batch.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .errors import TabulaError, did_you_mean, shown_path
from .model import CHANCE
from .spec import load_spec, resolve_spec_path

SPEC_GAMES = 500                 # `tabula bench SPEC` without --games
# the suite's games per player count of each shipped spec (about 1-2 minutes in all on
# the 2-core machines of 2026-11, before the speed work); --games-scale multiplies them
SUITE_GAMES = {"medang": 2000, "medang_prambanan": 1000, "medina": 30,
               "medina_bsw_dm2003": 30, "middag": 200, "tiny": 2000, "tic_tac_toe": 2000}
OTHER_SPEC_SECONDS = 3.0         # a spec not listed gets about this many seconds of games
OTHER_SPEC_GAMES = (5, 2000)     # ... but at least 5 and at most 2000
CLONE_GAMES = 2                  # State.clone() is timed on states of 2 random games,
CLONE_POINTS = (0.0, 0.25, 0.5, 0.75)   # taken at these fractions of each game,
CLONES_PER_STATE = 250           # cloned 250 times each
SUMMARY_PLAYERS = 3              # the cross-game ratios compare 3-player games
PARALLEL_GAMES = 400             # --parallel: simulate 400 Medang games, 2 workers vs 1,
PARALLEL_REPEAT = 3              # three times each (medians)
MEDANG = "medang"
REFERENCES = (MEDANG,)           # specs with a hand-written reference (--reference ID=PY)
SUMMARY_RATIOS = (("medina", MEDANG), ("middag", MEDANG))


def bot_rng(seed: int) -> random.Random:
    # the generator `tabula run` gives its random bots (cli.bot_rng), imported late: the
    # command line imports this module
    from .cli import bot_rng as rng
    return rng(seed)


# ---- one spec -----------------------------------------------------------------------------

def bench(game, games: int, seed: int) -> dict:
    """Random playouts through the public API; decisions exclude chance decisions."""
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
    dt = time.perf_counter() - t0
    return {"games": games, "seconds": dt, "playouts_per_s": games / dt,
            "decisions_per_s": decisions / dt, "decisions_per_game": decisions / games,
            "chance_per_game": chance / games,
            "mean_branching": branching / decisions if decisions else 0.0}


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
    """Run a hand-written reference's `bench --api --json` (medang_ref.py's interface):
    the same players, games, seed and options (as --KEY VALUE)."""
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
    runs, refs, ratios = [], [], []
    for _ in range(max(1, repeat)):
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


# ---- OpenSpiel ------------------------------------------------------------------------------

def openspiel():
    """pyspiel with OpenSpiel's Python games registered (python_tic_tac_toe, ...), or None."""
    try:
        import pyspiel
        import open_spiel.python.games  # noqa: F401  (registers the python_* games)
    except ImportError:
        return None
    return pyspiel


def openspiel_game(pyspiel, name: str, players: int):
    """OpenSpiel's game `name` for that many players, or None if it has no such count."""
    game = pyspiel.load_game(name)
    if game.num_players() == players:
        return game
    if "players" in game.get_type().parameter_specification:
        return pyspiel.load_game(name, {"players": players})
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


def suite_games(spec, game, seed: int) -> int:
    """The default games per player count: SUITE_GAMES, or for a spec not listed, as many
    as one game's time fits into OTHER_SPEC_SECONDS (two significant digits)."""
    if spec.id in SUITE_GAMES:
        return SUITE_GAMES[spec.id]
    seconds = bench(game, 1, seed)["seconds"]
    n = OTHER_SPEC_SECONDS / max(seconds, 1e-6)
    lo, hi = OTHER_SPEC_GAMES
    n = max(lo, min(hi, int(n)))
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


class Suite:
    """One run of the suite: rows as they are measured (emit(row) sees each), notes."""

    def __init__(self, root, seed: int = 1, scale: float = 1.0, games: int | None = None,
                 players: int | None = None, only=None, references: dict | None = None,
                 parallel: bool = False, emit=None):
        self.root, self.seed, self.scale, self.games = Path(root), seed, scale, games
        self.players, self.only, self.parallel = players, only, parallel
        self.references = references or {}
        self.emit = emit or (lambda row: None)
        self.rows, self.notes = [], []

    def note(self, text: str) -> None:
        self.notes.append(text)
        self.emit({"kind": "note", "text": text})

    def add(self, row: dict) -> dict:
        self.rows.append(row)
        self.emit(row)
        return row

    def specs(self) -> list:
        paths = suite_specs(self.root)
        if not paths:
            raise TabulaError(f"no specs under {self.root}/specs or {self.root}/examples")
        specs = [load_spec(p) for p in paths]
        if self.only:
            ids = [s.id for s in specs]
            for want in self.only:
                if want not in ids:
                    raise TabulaError(f"--only: no spec '{want}' here; "
                                      + (did_you_mean(want, ids) or f"the specs: {', '.join(ids)}"))
            specs = [s for s in specs if s.id in self.only]
        return specs

    def run(self) -> dict:
        t0 = time.perf_counter()
        pyspiel = openspiel()
        if pyspiel is None:
            self.note("OpenSpiel is not installed (import pyspiel failed): no OpenSpiel rows")
        specs = self.specs()
        for key, path in self.references.items():
            if path is not None and any(s.id == key for s in specs) and not Path(path).is_file():
                self.note(f"no reference for {key}: {path} not found")
                self.references[key] = None
        for spec in specs:
            self.measure(spec, pyspiel)
        summary = self.summary()
        return {"root": str(self.root), "seed": self.seed, "games_scale": self.scale,
                "commit": git_commit(self.root), "machine": machine(), "rows": self.rows,
                "summary": summary, "notes": self.notes,
                "seconds": time.perf_counter() - t0}

    def counts(self, spec) -> list:
        lo, hi = spec.player_range
        if self.players is not None:
            return [self.players] if lo <= self.players <= hi else []
        return list(range(lo, hi + 1))

    def measure(self, spec, pyspiel) -> None:
        names = []
        if pyspiel is not None:
            registered = set(pyspiel.registered_names())
            names = [n for n in (spec.id, f"python_{spec.id}") if n in registered]
        for players in self.counts(spec):
            game = spec.game(players)
            games = self.games or max(1, round(suite_games(spec, game, self.seed) * self.scale))
            row = {"kind": "tabula", "spec": spec.id, "path": shown_path(spec.path),
                   "players": players, "options": game.options, "seed": self.seed}
            row.update(bench(game, games, self.seed))
            row["clone_us"] = game_clone_us(game, self.seed)
            self.add(row)
            if spec.id in self.references:
                self.reference(spec.id, row, game)
            for name in names:
                self.openspiel_row(pyspiel, name, row)

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
        self.add({"kind": "reference", "name": Path(path).name, "path": str(path),
                  "spec": key, "players": game.players, "games": row["games"],
                  "seed": self.seed, "playouts_per_s": pps,
                  "decisions_per_s": pps * per_game if pps and per_game else None,
                  "decisions_per_game": per_game,
                  "fast_playouts_per_s": ref.get("playouts_per_s"),
                  "ratio": _ratio(row["playouts_per_s"], pps)})

    def openspiel_row(self, pyspiel, name: str, row: dict) -> None:
        game = openspiel_game(pyspiel, name, row["players"])
        if game is None:
            self.note(f"OpenSpiel's {name} has no {row['players']}-player game")
            return
        out = {"kind": "openspiel", "name": name, "spec": row["spec"],
               "players": row["players"], "seed": self.seed}
        out.update(openspiel_bench(game, row["games"], self.seed))
        out["clone_us"] = openspiel_clone_us(game, self.seed)
        out["ratio"] = _ratio(row["playouts_per_s"], out["playouts_per_s"])
        self.add(out)

    def tabula_row(self, spec_id: str, players: int):
        return next((r for r in self.rows if r["kind"] == "tabula" and r["spec"] == spec_id
                     and r["players"] == players), None)

    def summary(self) -> dict:
        out = {"players": SUMMARY_PLAYERS}
        for a, b in SUMMARY_RATIOS:
            ra, rb = self.tabula_row(a, SUMMARY_PLAYERS), self.tabula_row(b, SUMMARY_PLAYERS)
            out[f"{a}_over_{b}_decisions_per_s"] = (
                _ratio(ra["decisions_per_s"], rb["decisions_per_s"]) if ra and rb else None)
        if self.parallel:
            out["parallel"] = self.parallel_run()
        return out

    def parallel_run(self) -> dict | None:
        from .simulate import run_batch
        medang = next((p for p in suite_specs(self.root) if load_spec(p).id == MEDANG), None)
        if medang is None:
            self.note(f"--parallel: no {MEDANG} spec under {self.root}")
            return None
        spec = load_spec(medang)
        seconds = {1: [], 2: []}
        for _ in range(PARALLEL_REPEAT):      # interleaved, so that drift hits both alike
            for w in seconds:
                seconds[w].append(run_batch(spec, PARALLEL_GAMES, players=SUMMARY_PLAYERS,
                                            seed=self.seed, workers=w).seconds)
        one, two = (statistics.median(seconds[w]) for w in (1, 2))
        return {"spec": MEDANG, "games": PARALLEL_GAMES, "players": SUMMARY_PLAYERS,
                "repeat": PARALLEL_REPEAT, "seconds_1_worker": one, "seconds_2_workers": two,
                "speedup": one / two}


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


def header_text(root, seed: int, scale: float) -> str:
    m = machine()
    return (f"tabula bench --suite: {shown_path(Path(root).resolve())}, commit "
            f"{git_commit(root) or '?'}, seed {seed}, games x{scale:g}; Python {m['python']}, "
            f"{m['cpus']} cpus\n{HEADER}")


def summary_text(out: dict) -> str:
    s = out["summary"]
    lines = [f"summary ({s['players']} players; decisions/s exclude chance):"]
    for a, b in SUMMARY_RATIOS:
        value = s.get(f"{a}_over_{b}_decisions_per_s")
        lines.append(f"  {a} / {b} decisions/s: "
                     + (f"{value:.4f}" if value is not None else
                        f"- (needs {a} and {b} at {s['players']} players)"))
    for row in out["rows"]:
        if row["kind"] in ("reference", "openspiel") and row.get("ratio") is not None:
            what = "reference api" if row["kind"] == "reference" else "openspiel"
            lines.append(f"  {row['spec']} / {what} {row['name']} playouts/s, "
                         f"{row['players']} players: {row['ratio']:.4f}")
    par = s.get("parallel")
    if par:
        lines.append(f"  simulate {par['spec']}, {par['games']} games, {par['players']} players:"
                     f" 1 worker {par['seconds_1_worker']:.2f} s, 2 workers "
                     f"{par['seconds_2_workers']:.2f} s (medians of {par['repeat']}), "
                     f"speed-up {par['speedup']:.2f}")
    lines.append(f"({out['seconds']:.0f} s in all)")
    return "\n".join(lines)
