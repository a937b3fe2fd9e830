"""The `tabula` command line: validate, run, replay, test, bench, diff, compile.

Input: arguments. Output: text (or JSON) on stdout, errors on stderr. Exit codes: 0 fine,
1 the input is wrong (a located error), 2 a usage error. No Python traceback reaches a
user for a bad spec, option, scenario or log.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from . import bench, benchconfig, gamelog
from .graph import add_command as graph_command
from .simulate import BACKENDS
from .errors import IllegalAction, TabulaError, shown_path
from .model import CHANCE
from .spec import load_spec

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


def _options(pairs) -> dict:
    out = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise TabulaError(f"--option takes KEY=VALUE, not '{pair}'")
        k, v = pair.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def bot_rng(seed: int) -> random.Random:
    """The random bots' own generator: separate from the game's, derived from the seed."""
    return random.Random(f"tabula-bots:{seed}")


def _positive(kind):
    """An argparse type: a number greater than 0."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: '{text}'") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, not {text}")
        return value
    return parse


AGENTS_HELP = ("one bot per seat, or one for all: random, greedy, mcts[:N[:DEPTH|end]] "
               "(default random)")

# ---- commands ---------------------------------------------------------------------------


def cmd_validate(args) -> int:
    bad = 0
    for path in args.paths:
        try:
            spec = load_spec(path)
            spec.validate()
            if args.play:
                bad += _play_check(spec, args)
            else:
                print(f"ok   {shown_path(spec.path)} ({spec.id})")
        except TabulaError as e:
            bad += 1
            print(str(e), file=sys.stderr)
    return EXIT_INPUT if bad else EXIT_OK


def _play_check(spec, args) -> int:
    """validate --play N: random games of every player count; 1 if any failed."""
    from .compare import play_check
    if args.play < 0:
        raise TabulaError(f"--play needs 0 games or more, not {args.play}")
    r = play_check(spec, args.play, seed=args.seed, workers=args.workers)
    groups: dict = {}                     # the same error in many games: said once
    for rec in r["failed"]:
        groups.setdefault((rec.get("error_at", ""), rec["error"]), []).append(rec)
    for (at, error), recs in groups.items():
        first = recs[0]
        print(f"{at + ': ' if at else ''}error: {error}\n  in {len(recs)} of the games "
              f"of --play; the first: tabula run {shown_path(spec.path)} --players {first['players']} "
              f"--seed {first['seed']} --agents random", file=sys.stderr)
    never = r["never_fired"]
    status = "ok  " if not r["failed"] else "FAIL"
    print(f"{status} {shown_path(spec.path)} ({spec.id}): {r['games']} random games, "
          f"{len(r['failed'])} failed")
    if never:
        print(f"     never fired in those games: {', '.join(never)}")
    empty = r["empty_choices"]
    if empty:
        print("     choices that came up empty with no else: (skipped), in how many games: "
              + ", ".join(f"{k} ({n})" for k, n in empty.items()))
    return 1 if r["failed"] else 0


def cmd_run(args) -> int:
    from .agents import RandomAgent, agent_rng, chance_rng, make_agents
    if args.for_player is not None and not args.log:
        print("tabula run: --for needs --log FILE", file=sys.stderr)
        return EXIT_USAGE
    spec = load_spec(args.spec)
    game = spec.game(args.players, _options(args.option))
    n = game.players
    if args.agents:        # agents.play_game's generators: the game play_game plays
        agents = make_agents(args.agents, n)
        chance, seats = chance_rng(args.seed), [agent_rng(args.seed, p) for p in range(n)]
    else:                  # one generator for all, as `run` has always played
        agents = [RandomAgent()] * n
        chance = bot_rng(args.seed)
        seats = [chance] * n
    header = gamelog.log_header(spec, game, args.spec, args.seed, agents)
    with gamelog.open_log(args.log, header, args.for_player) as log:
        st, decisions = gamelog.play(game, args.seed, agents, chance, seats, log)
    record = [(p, text, turn) for p, _, text, turn in decisions]
    result = {
        "spec": spec.id, "spec_hash": spec.hash, "players": game.players,
        "options": game.options, "seed": args.seed, "agents": header["agents"],
        "decisions": [{"player": "chance" if p == CHANCE else p, "action": a}
                      for p, a, _ in record],
        "points": st.points(), "scores": st.scores(), "winners": st.winners(),
        "returns": st.returns(),
    }
    if args.json:
        print(json.dumps(result))
        return EXIT_OK
    print(f"{spec.id}: {game.players} players, options "
          f"{', '.join(f'{k}={v}' for k, v in game.options.items()) or 'none'}, seed {args.seed}"
          + (f", agents {', '.join(header['agents'])}" if args.agents else ""))
    last_turn = None
    for p, a, turn in record:
        if turn != last_turn and turn:
            print(f"-- turn {turn}")
            last_turn = turn
        who = "chance" if p == CHANCE else f"player {p}"
        print(f"  {who}: {a}")
    print("final scores:")
    for rid, row in st.points().items():
        print(f"  {rid:>12}: " + "  ".join(f"{v:>4}" for v in row))
    print(f"  {'total':>12}: " + "  ".join(f"{v:>4}" for v in st.scores()))
    print("winner" + ("s" if len(st.winners()) > 1 else "") + ": " +
          ", ".join(f"player {w}" for w in st.winners()))
    return EXIT_OK


def cmd_test(args) -> int:
    from .scenario import find_scenario_files, run_file
    files = find_scenario_files(args.paths)
    passed = failed = 0
    for f in files:
        try:
            results = run_file(f)
        except TabulaError as e:
            failed += 1
            print(str(e), file=sys.stderr)
            continue
        for r in results:
            if r.passed:
                passed += 1
                if args.verbose:
                    print(r)
            else:
                failed += 1
                print(r)
    print(f"{passed} passed, {failed} failed")
    return EXIT_INPUT if failed or not (passed or failed) else EXIT_OK


def cmd_bench(args) -> int:
    if args.suite:
        return _bench_suite(args)
    for flag in ("root", "config", "games_scale", "only"):
        if getattr(args, flag) is not None:
            args.usage_error(f"--{flag.replace('_', '-')} goes with --suite")
    if args.parallel:
        args.usage_error("--parallel goes with --suite")
    if args.spec is None:
        args.usage_error("name a SPEC, or give --suite for every shipped spec")
    if len(args.reference or ()) > 1:
        args.usage_error("--reference: one script for one spec")
    spec = load_spec(args.spec)
    game = spec.game(args.players, _options(args.option))
    out = bench.bench_spec(spec, game, args.games or bench.SPEC_GAMES, args.seed, args.repeat,
                           args.reference[0] if args.reference else None)
    print(json.dumps(out) if args.json else bench.spec_text(out))
    return EXIT_OK


def _bench_suite(args) -> int:
    if args.spec is not None:
        args.usage_error("--suite measures every shipped spec: give no SPEC (--only ID limits it)")
    if args.option or args.repeat != 1:
        args.usage_error("--option and --repeat are for one SPEC, not --suite")
    refs = {}
    for pair in args.reference or ():
        key, sep, path = pair.partition("=")
        if not (key and sep and path):
            args.usage_error(f"--reference with --suite takes ID=SCRIPT (a spec id and its "
                             f"reference program), not '{pair}'")
        refs[key] = Path(path)
    root = Path(args.root or ".")
    config = benchconfig.load(benchconfig.find(root, args.config))
    emit = None if args.json else (lambda row: print(bench.row_text(row), flush=True))
    suite = bench.Suite(root, config, seed=args.seed, scale=args.games_scale or 1.0,
                        games=args.games, players=args.players, only=_ids(args.only),
                        references=refs, parallel=args.parallel, emit=emit)
    suite.prepare()
    if not args.json:
        print(bench.header_text(suite), flush=True)
    out = suite.run()
    print(json.dumps(out) if args.json else bench.summary_text(out))
    return EXIT_OK


def _ids(text) -> list | None:
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


class Progress:
    """One line on stderr: games done, games per second, time left; only on a terminal."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled = total, enabled
        self.start = time.perf_counter()

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = done / elapsed
        left = (self.total - done) / rate if rate else 0.0
        width = 30
        bar = "#" * int(width * done / max(self.total, 1))
        sys.stderr.write(f"\r[{bar:<{width}}] {done}/{self.total} games  "
                         f"{rate:6.1f} games/s  {left:5.0f} s left ")
        if done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _check_folders(*paths) -> None:
    """Output files must go to folders that exist: said before a long run, not after."""
    for path in paths:
        if path and not Path(path).resolve().parent.is_dir():
            raise TabulaError(f"cannot write {path}: no such folder")


def cmd_simulate(args) -> int:
    from .simulate import run_batch
    _check_folders(args.report, args.out)
    progress = Progress(args.games, sys.stderr.isatty() and not args.json)
    summary = run_batch(args.spec, args.games, players=args.players,
                        options=_options(args.option), agents=args.agents, seed=args.seed,
                        workers=args.workers, out=args.out, resume=args.resume,
                        progress=progress, backend=args.backend, address=args.address,
                        rotate=args.rotate)
    if args.report:
        from .report import write_report
        write_report(summary, args.report)
    if args.json:
        print(json.dumps(summary.to_dict(), sort_keys=True))
    else:
        print(summary.table())
    return EXIT_OK


def cmd_diff(args) -> int:
    from .diff import diff_specs, format_diff, to_json
    spec_a, spec_b = load_spec(args.a), load_spec(args.b)
    d = diff_specs(spec_a, spec_b)
    if args.simulate is None:
        for flag in ("report", "players", "agents", "workers", "address", "option",
                     "option_a", "option_b"):
            if getattr(args, flag):
                raise TabulaError(f"--{flag.replace('_', '-')} is for --simulate N: name the "
                                  "number of games")
        print(to_json(d) if args.json else format_diff(d))
        return EXIT_OK
    from .compare import compare_variants
    _check_folders(args.report)
    progress = Progress(2 * args.simulate, sys.stderr.isatty() and not args.json)
    c = compare_variants(spec_a, spec_b, args.simulate, players=args.players,
                         options=_options(args.option), options_a=_options(args.option_a),
                         options_b=_options(args.option_b), agents=args.agents, seed=args.seed,
                         workers=args.workers, backend=args.backend,
                         address=args.address, progress=progress)
    if args.report:
        from .report import write_comparison_report
        write_comparison_report(c, args.report, rule_diff=format_diff(d))
    if args.json:
        data = json.loads(to_json(d))
        data["play"] = c.to_dict()
        print(json.dumps(data, sort_keys=True))
    else:
        print(format_diff(d))
        print()
        print(c.table())
    return EXIT_OK


def cmd_compile(args) -> int:
    """Print the Python the compiler generated for a game (to read why a rule is slow)."""
    spec = load_spec(args.spec)
    game = spec.game(args.players, _options(args.option))
    options = ", ".join(f"{k}={v}" for k, v in game.options.items())
    text = game.prog.module.source(f"{spec.id}, {game.players} players"
                                   + (f", {options}" if options else ""))
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as e:
            raise TabulaError(f"cannot write {args.out}: {e.strerror}") from None
    else:
        sys.stdout.write(text)
    return EXIT_OK


# ---- entry -------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tabula", description="Tabula: board games as text.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("validate", help="check specs; located errors, exit 1 if any")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--play", type=int, default=0, metavar="N",
                   help="also play N random games of every player count: a game that "
                        "fails or never ends is an error; list ids that never fired")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=None)
    p.set_defaults(fn=cmd_validate)

    def game_args(p):
        p.add_argument("spec", metavar="SPEC", help="a spec file or a game's folder")
        p.add_argument("--players", type=int, default=None)
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--option", action="append", metavar="K=V", default=[])
        p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("run", help="play one game with bots")
    game_args(p)
    p.add_argument("--agents", metavar="A,B,...", help=AGENTS_HELP)
    p.add_argument("--log", metavar="FILE", help="write the game log (JSON lines) to FILE")
    p.add_argument("--for", dest="for_player", type=int, metavar="PLAYER",
                   help="with --log: write what PLAYER saw instead of the full log")
    p.set_defaults(fn=cmd_run)
    gamelog.add_command(sub)
    graph_command(sub)

    p = sub.add_parser("test", help="run scenario files")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(fn=cmd_test)

    p = sub.add_parser("bench", help="random playouts per second; --suite: every shipped spec")
    p.add_argument("spec", metavar="SPEC", nargs="?",
                   help="a spec file or a game's folder (not with --suite)")
    p.add_argument("--players", type=int, default=None,
                   help="players (default: the least; with --suite: only this count)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", metavar="K=V", default=[])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--games", type=_positive(int), default=None,
                   help=f"random games (default {bench.SPEC_GAMES}; with --suite: for every "
                        "spec, instead of its own count)")
    p.add_argument("--repeat", type=int, default=1,
                   help="run R times (interleaved with the reference); report medians")
    p.add_argument("--reference", metavar="PY", action="append",
                   help="a hand-written reference (a Python script with the same 'bench --api "
                        "--json' interface) to run in the same run, for a ratio; with "
                        "--suite: ID=PY for spec ID, replacing the suite file's (repeatable)")
    p.add_argument("--suite", action="store_true",
                   help="every spec of specs/ and examples/ (variants too), every player "
                        "count, with State.clone() times, references and OpenSpiel; what else "
                        "it measures and its targets: the suite file")
    p.add_argument("--root", metavar="DIR", help="with --suite: the repository (default .)")
    p.add_argument("--config", metavar="FILE",
                   help=f"with --suite: the suite file (default ROOT/{benchconfig.FILE_NAME} "
                        "if there is one): games per spec, references, ratios, the parallel "
                        "run, targets")
    p.add_argument("--games-scale", type=_positive(float), metavar="F",
                   help="with --suite: multiply every spec's default games by F")
    p.add_argument("--only", metavar="ID[,ID]", help="with --suite: only these spec ids")
    p.add_argument("--parallel", action="store_true",
                   help="with --suite: also simulate the suite file's parallel: games with 2 "
                        "workers and with 1")
    p.set_defaults(fn=cmd_bench, usage_error=p.error)

    def batch_args(p, report: str):
        """The flags of a batch of games (simulate, diff --simulate)."""
        p.add_argument("--agents", metavar="A,B,...", help=AGENTS_HELP)
        p.add_argument("--workers", type=int, default=None,
                       help="processes (default: all cores); results do not depend on it")
        p.add_argument("--report", metavar="FILE.html", help=report)
        p.add_argument("--backend", choices=BACKENDS, default="local",
                       help="local: a process pool (default); ray: Ray tasks (pip install "
                            "'tabula[ray]')")
        p.add_argument("--address", metavar="ADDR",
                       help="with --backend ray: the cluster to join (default: start Ray "
                            "here)")

    p = sub.add_parser("simulate", help="many games with bots: statistics")
    game_args(p)
    p.add_argument("--games", type=int, default=100)
    batch_args(p, "write the summary and its plots as one self-contained HTML file")
    p.add_argument("--rotate", action="store_true",
                   help="game i seats the bots shifted by i: every bot plays every seat")
    p.add_argument("--out", metavar="FILE.jsonl", help="append every finished game to FILE")
    p.add_argument("--resume", action="store_true",
                   help="complete --out without playing its finished games again")
    p.set_defaults(fn=cmd_simulate)

    p = sub.add_parser("compile", help="print the Python code generated for a game")
    p.add_argument("spec", metavar="SPEC", help="a spec file or a game's folder")
    p.add_argument("--players", type=int, default=None,
                   help="the player count to compile for (default: the spec's minimum)")
    p.add_argument("--option", action="append", metavar="K=V", default=[])
    p.add_argument("--out", metavar="FILE", help="write the code to FILE instead")
    p.set_defaults(fn=cmd_compile)

    p = sub.add_parser("diff", help="what differs between two specs: rules, action graph, play")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--json", action="store_true",
                   help="one JSON object: added, removed, changed (each with an id)")
    p.add_argument("--simulate", type=int, metavar="N",
                   help="also play N games of each on the same seeds and bots; compare")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", metavar="K=V", default=[],
                   help="with --simulate: an option of both A and B (each plays with its "
                        "own defaults otherwise)")
    p.add_argument("--option-a", action="append", metavar="K=V", default=[],
                   help="with --simulate: an option of A only (over --option)")
    p.add_argument("--option-b", action="append", metavar="K=V", default=[],
                   help="with --simulate: an option of B only (over --option)")
    batch_args(p, "with --simulate: the comparison and its plots as one HTML page")
    p.set_defaults(fn=cmd_diff)
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except (TabulaError, IllegalAction) as e:
        print(str(e), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:           # `tabula run ... | head`: the reader has gone
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
