"""The `tabula` command line: list, validate, run, replay, test, bench, diff, compile, ...

Input: arguments. Output: text (or JSON) on stdout, errors on stderr, a progress line on
stderr when it is a terminal. Exit codes: 0 fine, 1 the input is wrong (a located error),
2 a usage error. No Python traceback reaches a user for a bad spec, option, scenario or
log. Every option has a help text, and its default shown (HelpFormatter).

Every command is a cmdutil.Command (its arguments built from the shared ones: SPEC,
PLAYERS, SEED, OPTION, ...); commands() lists them all, this module's and those of play.py
and replay.py, in the order `tabula -h` shows. This module imports the modules of the
commands; they never import it: what they share with it (Command, the arguments, exit
codes, the bots' generator, the progress line) is in cmdutil.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..errors import IllegalAction, TabulaError, shown_path
from ..lang import catalog, rulings
from ..runtime.model import CHANCE
from ..runtime.values import encode
from ..spec import load_spec
from ..spec import parse_options as _options
from . import bench, benchconfig, gamelog, graph, play, replay, serve
from .cmdutil import (
    AGENTS,
    DISTRIBUTION,
    EXIT_INPUT,
    EXIT_OK,
    EXIT_USAGE,
    FOR,
    JSON,
    LOG,
    MAX_GAMES,
    OPTION,
    OUT,
    PLAYERS,
    REPORT,
    SEED,
    SPEC,
    SPEC_HELP,
    STRICT,
    STRICT_HELP,
    WORKERS,
    Command,
    Progress,
    arg,
    bot_rng,
    build_parser,
    positive,
    writing,
)
from .simulate import BACKENDS, DIFF_AGENTS

__all__ = ["EXIT_INPUT", "EXIT_OK", "EXIT_USAGE", "bot_rng", "main", "parser"]

# ---- commands ---------------------------------------------------------------------------


def cmd_list(args) -> int:
    """The games that come with the package: one line per spec, variants under the game
    they extend."""
    from ..lang.variants import base_of
    root = catalog.root()
    rows, bad = [], 0
    for s in catalog.shipped():
        row = {"name": s.name, "names": list(s.names), "id": s.id, "section": s.section,
               "path": str(s.path), "where": s.path.relative_to(root).as_posix(),
               "extends": None, "variants": []}
        try:
            spec = load_spec(s.path)
            lo, hi = spec.player_range
            row.update(id=spec.id, title=str(spec.doc["game"].get("name", "")),
                       players={"min": lo, "max": hi},
                       options={k: _plain(v) for k, v in spec.options().items()})
            if spec.variant_doc is not None:
                base = base_of(spec.variant_doc, spec.path)
                row["extends"] = next((b.name for b in catalog.shipped()
                                       if b.path.resolve() == base), str(base))
        except TabulaError as e:
            bad += 1
            row["error"] = str(e)
            print(str(e), file=sys.stderr)
        rows.append(row)
    by_name = {r["name"]: r for r in rows}
    for r in rows:
        if r["extends"] in by_name:
            by_name[r["extends"]]["variants"].append(r["name"])
    if args.json:
        print(json.dumps({"root": str(root) if root else None, "games": rows}, indent=1))
        return EXIT_INPUT if bad else EXIT_OK
    if not rows:
        print("no games come with this installation of tabula (no specs/ or examples/ "
              "in the package)", file=sys.stderr)
        return EXIT_INPUT
    print(f"The games that come with tabula ({len(rows)} specs in {root}):")
    table = [("NAME", "PLAYERS", "TITLE", "OPTIONS", "WHERE")]

    def add(r, depth):
        pl = r.get("players")
        players = "?" if not pl else (f"{pl['min']}" if pl["min"] == pl["max"]
                                      else f"{pl['min']}-{pl['max']}")
        table.append(("  " * depth + r["name"], players,
                      r.get("title", "(does not load: see above)"),
                      _few(list(r.get("options", {}))), r["where"]))
        for v in r["variants"]:
            add(by_name[v], depth + 1)

    for r in rows:
        if r["extends"] not in by_name:
            add(r, 0)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]) - 1)]
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1])
    print("\nIndented: a variant of the game above it (extends:). Play one by name, "
          "tabula run NAME;\nits scenarios (the rulebook's examples): tabula test NAME. A "
          "file or folder of that name\nin the current folder wins over a shipped game; "
          "tabula:NAME always means the shipped one.")
    return EXIT_INPUT if bad else EXIT_OK


def _few(names: list, most: int = 3) -> str:
    """Option names for a table's column: at most `most`, then how many more."""
    if not names:
        return "-"
    more = len(names) - most
    return ", ".join(names[:most]) + (f", +{more} more" if more > 0 else "")


def _plain(value):
    return value if isinstance(value, (bool, int, float, str)) or value is None else str(value)


def _warnings(spec, games) -> list:
    """What validate warns of: a choice that shows every player a piece some may not see
    (each compile's, once), then data no rule reads."""
    from ..compiler.deadcode import dead_data
    seen: dict = {}
    for g in games:
        for w in g.prog.usage.warnings:
            seen.setdefault((w.message, w.pos), w)
    return list(seen.values()) + dead_data(spec.doc, [g.prog for g in games])


def cmd_validate(args) -> int:
    bad = 0
    for path in args.paths:
        try:
            spec = load_spec(path)
            games = spec.validate()
            for warning in _warnings(spec, games):       # warnings: exit 0
                print(str(warning), file=sys.stderr)
            if args.play:
                bad += _play_check(spec, args)
            else:
                print(f"ok   {shown_path(spec.path)} ({spec.id}"
                      + "".join(f"; ruling {k}: {'|'.join(rulings.readings(r))}"
                                for k, r in rulings.declared(spec.base_doc).items()) + ")")
        except TabulaError as e:
            bad += 1
            print(str(e), file=sys.stderr)
    return EXIT_INPUT if bad else EXIT_OK


def _play_check(spec, args) -> int:
    """validate --play N: random games of each player count play_counts picks (every
    count of a small range); 1 if any failed."""
    from .simulate import play_check, play_counts
    lo, hi = spec.player_range
    counts = play_counts(lo, hi)
    progress = Progress(args.play * len(counts), Progress.on_terminal()).begin()
    r = play_check(spec, args.play, seed=args.seed, workers=args.workers, progress=progress,
                   strict=args.strict)
    progress.finish()
    groups: dict = {}                     # the same error in many games: said once
    for rec in r["failed"]:
        groups.setdefault((rec.get("error_at", ""), rec["error"]), []).append(rec)
    for (at, error), recs in groups.items():
        first = recs[0]
        print(f"{at + ': ' if at else ''}error: {error}\n  in {len(recs)} of the games "
              f"of --play; the first: tabula run {shown_path(spec.path)} "
              f"--players {first['players']} --seed {first['seed']} --agents random"
              + (" --strict" if args.strict else ""), file=sys.stderr)
    never = r["never_fired"]
    status = "ok  " if not r["failed"] else "FAIL"
    print(f"{status} {shown_path(spec.path)} ({spec.id}): {r['games']} random games, "
          f"{len(r['failed'])} failed")
    if len(counts) < hi - lo + 1:
        print(f"     player counts played: {', '.join(map(str, counts))} ({len(counts)} of "
              f"the {hi - lo + 1} from {lo} to {hi})")
    if never:
        print(f"     never fired in those games: {', '.join(never)}")
    empty = r["empty_choices"]
    if empty:
        print("     choices that came up empty with no else: (skipped), in how many games: "
              + ", ".join(f"{k} ({n})" for k, n in empty.items()))
    return 1 if r["failed"] else 0


def cmd_run(args) -> int:
    from ..bots.agents import RandomAgent, agent_rng, chance_rng, make_agents
    if args.for_player is not None and not args.log:
        print("tabula run: --for needs --log FILE", file=sys.stderr)
        return EXIT_USAGE
    spec = load_spec(args.spec)
    game = spec.game(args.players, _options(args.option), strict=args.strict)
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
        st, decisions = replay.play(game, args.seed, agents, chance, seats, log)
    record = [(p, text, turn) for p, _, text, turn in decisions]
    result = {
        "spec": spec.id, "spec_hash": spec.hash, "players": game.players,
        "options": game.options, "seed": args.seed, "agents": header["agents"],
        "decisions": [{"player": "chance" if p == CHANCE else p, "action": a}
                      for p, a, _ in record],
        "points": encode(st.points()), "scores": encode(st.scores()),
        "winners": st.winners(), "returns": encode(st.returns()),
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
        print(f"  {rid:>12}: " + "  ".join(f"{v!s:>4}" for v in row))
    print(f"  {'total':>12}: " + "  ".join(f"{v!s:>4}" for v in st.scores()))
    print("winner" + ("s" if len(st.winners()) > 1 else "") + ": " +
          ", ".join(f"player {w}" for w in st.winners()))
    return EXIT_OK


def cmd_test(args) -> int:
    from .scenario import find_scenario_files, run_file
    files = []
    for path in args.paths:          # a path; else a shipped game's name: its scenarios
        shipped = None if Path(path).exists() and not path.startswith(catalog.PREFIX) \
            else catalog.find(path)
        if shipped is None and not Path(path).exists() and catalog.is_name(path):
            raise TabulaError(f"no such file, folder or shipped game: {path} (hint: "
                              f"{catalog.unknown_hint(path)})")
        files += catalog.scenario_files(shipped) if shipped else find_scenario_files([path])
    passed = failed = 0
    for f in files:
        try:
            results = run_file(f, strict=args.strict)
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
        if args.instructions or args.profile:
            args.usage_error("--instructions and --profile are for one SPEC, not --suite")
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
    if args.instructions or args.profile:
        return _bench_measure(args)
    if args.long:
        args.usage_error("--long goes with --instructions")
    spec = load_spec(args.spec)
    game = spec.game(args.players, _options(args.option))
    out = bench.bench_spec(spec, game, args.games or bench.SPEC_GAMES, args.seed, args.repeat,
                           args.reference[0] if args.reference else None)
    print(json.dumps(out) if args.json else bench.spec_text(out))
    return EXIT_OK


def _bench_measure(args) -> int:
    """bench SPEC --instructions (callgrind's counts) or --profile (cProfile, in the spec's
    words): valgrind is looked for and the games bounded before the spec is compiled."""
    if args.instructions and args.profile:
        args.usage_error("--instructions or --profile, not both (a profile under valgrind "
                         "would take hours)")
    if args.reference or args.repeat != 1:
        args.usage_error("--reference and --repeat measure time: not with --instructions "
                         "or --profile")
    if args.instructions:
        games = args.games or bench.INSTRUCTION_GAMES
        why = bench.valgrind_missing()
        if why:
            raise TabulaError(why)
        try:
            bench.check_instruction_games(games, args.long)
        except TabulaError as e:
            args.usage_error(str(e))
    elif args.long:
        args.usage_error("--long goes with --instructions")
    spec = load_spec(args.spec)
    game = spec.game(args.players, _options(args.option))
    if args.instructions:
        out = bench.instructions(spec, game, games, args.seed, args.long)
        print(json.dumps(out) if args.json else bench.instructions_text(out))
    else:
        out = bench.profile(spec, game, args.games or bench.PROFILE_GAMES, args.seed)
        print(json.dumps(out) if args.json else bench.profile_text(out))
    return EXIT_OK


def _bench_suite(args) -> int:
    from .simulate import run_batch  # what the suite's parallel run measures
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
    root = Path(args.root) if args.root else _suite_root()
    config = benchconfig.load(benchconfig.find(root, args.config))
    progress = Progress(0, Progress.on_terminal(), unit="measurements")

    def emit(row):
        if not args.json:
            progress.clear()
            print(bench.row_text(row), flush=True)
        if row.get("kind") == "tabula":
            progress(progress.done + 1, f"(last: {row['spec']}, {row['players']} players)")

    suite = bench.Suite(root, config, seed=args.seed, scale=args.games_scale or 1.0,
                        games=args.games, players=args.players, only=_ids(args.only),
                        references=refs, parallel=args.parallel, emit=emit,
                        batch=run_batch)
    suite.prepare()
    progress.total = sum(len(suite.counts(s)) for s in suite.specs)
    if not args.json:
        print(bench.header_text(suite), flush=True)
    progress.begin()
    out = suite.run()
    progress.finish()
    print(json.dumps(out) if args.json else bench.summary_text(out))
    return EXIT_OK


def _ids(text) -> list | None:
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


def _suite_root() -> Path:
    """bench --suite without --root: the current folder when it holds specs/ or examples/
    (a checkout), else the games that come with the package."""
    here = Path(".")
    if any((here / s).is_dir() for s in catalog.SECTIONS):
        return here
    return catalog.root() or here


def _check_folders(*paths) -> None:
    """Output files must go to folders that exist: said before a long run, not after."""
    for path in paths:
        if path and not Path(path).resolve().parent.is_dir():
            raise TabulaError(f"cannot write {path}: no such folder")


def cmd_simulate(args) -> int:
    from .simulate import run_batch
    _check_folders(args.report, args.out)
    progress = Progress(args.games, Progress.on_terminal()).begin()
    summary = run_batch(args.spec, args.games, players=args.players,
                        options=_options(args.option), agents=args.agents, seed=args.seed,
                        workers=args.workers, out=args.out, resume=args.resume,
                        progress=progress, backend=args.backend, address=args.address,
                        rotate=args.rotate, strict=args.strict, depth=args.depth or 0)
    progress.finish()
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
    both = _options(args.option)          # readings of switchable rulings: their changes
    docs = (rulings.doc_with(spec_a, {**both, **_options(args.option_a)}),
            rulings.doc_with(spec_b, {**both, **_options(args.option_b)}))
    d = diff_specs(spec_a, spec_b, docs)
    if args.simulate is None:
        for flag in ("report", "players", "agents", "workers", "address", "option",
                     "option_a", "option_b", "by_change", "no_mirror"):
            if getattr(args, flag):
                raise TabulaError(f"--{flag.replace('_', '-')} is for --simulate N: name the "
                                  "number of games")
        print(to_json(d) if args.json else format_diff(d))
        return EXIT_OK
    if args.no_mirror and not args.by_change:
        raise TabulaError("--no-mirror is for --by-change: it skips the changes removed "
                          "alone from B")
    from .simulate import compare_variants
    _check_folders(args.report)
    progress = Progress(2 * args.simulate, Progress.on_terminal()).begin()
    c = compare_variants(spec_a, spec_b, args.simulate, players=args.players,
                         options=_options(args.option), options_a=_options(args.option_a),
                         options_b=_options(args.option_b), agents=args.agents, seed=args.seed,
                         workers=args.workers, backend=args.backend,
                         address=args.address, progress=progress)
    progress.finish()
    by_change = None
    if args.by_change:
        from .bychange import toggles_of
        from .simulate import by_change as measure
        from .simulate import mirror_count
        n = len(toggles_of(d, docs)) + (0 if args.no_mirror else mirror_count(d, docs))
        progress = Progress(n * args.simulate, Progress.on_terminal()).begin()
        by_change = measure(spec_a, d, docs, c.summary_a, c.metrics, run_b=c.summary_b,
                            games=args.simulate,
                            players=c.players,
                            options={**_options(args.option), **_options(args.option_a)},
                            options_b={**_options(args.option), **_options(args.option_b)},
                            agents=c.bots["agents"], rotate=c.bots["rotate"],
                            spec_b=spec_b, mirror=not args.no_mirror,
                            seed=args.seed, workers=args.workers, backend=args.backend,
                            address=args.address, progress=progress)
        progress.finish()
    if args.report:
        from .report import write_comparison_report
        write_comparison_report(c, args.report, rule_diff=format_diff(d), by_change=by_change)
    if args.json:
        data = json.loads(to_json(d))
        data["play"] = c.to_dict()
        if by_change is not None:
            data["play"].update(by_change)
        print(json.dumps(data, sort_keys=True))
    else:
        print(format_diff(d))
        print()
        print(c.table())
        if by_change is not None:
            from .bychange import format_by_change
            print()
            print(format_by_change(by_change))
    return EXIT_OK


def cmd_ladder(args) -> int:
    """Rate agents against each other (tools/ladder.py), on simulate's seeds."""
    from . import ladder
    from .simulate import game_seed
    _check_folders(args.plot, args.report)
    if args.agents is None:
        raise TabulaError("a ladder needs --agents A,B[,C...]: the agents to rate")
    shown: list = []              # the progress line, once the schedule's size is known

    def progress(total: int) -> Progress:
        shown.append(Progress(total, Progress.on_terminal()).begin())
        return shown[0]

    lad = ladder.run_ladder(args.spec, args.agents, args.games, game_seed,
                            players=args.players, options=_options(args.option),
                            seed=args.seed, workers=args.workers, progress=progress)
    for p in shown:
        p.finish()
    if args.plot:
        ladder.write_svg(lad, args.plot)
    if args.report:
        ladder.write_html(lad, args.report)
    print(json.dumps(lad.to_dict(), sort_keys=True) if args.json else lad.table())
    return EXIT_OK


def cmd_compile(args) -> int:
    """Print the Python the compiler generated for a game (to read why a rule is slow),
    or with --tensor the layout of its observation tensor."""
    spec = load_spec(args.spec)
    game = spec.game(args.players, _options(args.option))
    options = ", ".join(f"{k}={v}" for k, v in game.options.items())
    title = f"{spec.id}, {game.players} players" + (f", {options}" if options else "")
    if args.tensor:
        text = _tensor_layout(game, title, args.json)
    elif args.json:
        raise TabulaError("--json goes with --tensor (the code is printed as text)")
    else:
        text = game.prog.module.source(title)
    _write_text(text, args.out)
    return EXIT_OK


def _tensor_layout(game, title: str, as_json: bool) -> str:
    """The observation tensor's parts (adapters/observe.py): which slice means what."""
    from ..adapters.observe import Encoder
    enc = Encoder(game)
    if as_json:
        return json.dumps({"game": title, "size": enc.size, "kinds": enc.kinds,
                           "containers": enc.containers(), "parts": enc.layout()},
                          indent=1) + "\n"
    lines = [f"# the observation tensor of {title}: {enc.size} floats",
             "# offset  part  [shape]  what it holds", ""]
    for p in enc.parts:
        shape = " x ".join(map(str, p.shape))
        lines.append(f"{p.offset:>6}  {p.name}  [{shape}]  {p.meaning}")
    lines += ["", "# kinds, in order: " + ", ".join(enc.kinds), "# containers, in order:"]
    for c in enc.containers():
        last = c["first"] + c["count"] - 1
        where = str(c["first"]) + (f"-{last}" if last > c["first"] else "")
        owner = "" if c["owner"] is None else f" of player {c['owner']}"
        lines.append(f"#   {where}  {c['zone']}{owner}")
    return "\n".join(lines) + "\n"


def _write_text(text: str, out: str | None) -> None:
    """A command's text to the file --out names (a clear error if it cannot be written),
    else to standard output."""
    if not out:
        sys.stdout.write(text)
        return
    with writing(out):
        Path(out).write_text(text, encoding="utf-8")


# ---- tabula graph --------------------------------------------------------------------------------


def cmd_graph(args) -> int:
    try:
        if args.out and not Path(args.out).resolve().parent.is_dir():
            raise TabulaError(f"cannot write {args.out}: no such folder")
        game = load_spec(args.spec).game(args.players, _options(args.option))
        fmt = args.format or graph.SUFFIXES.get(Path(args.out or "").suffix.lower(), "dot")
        _write_text(graph.render(game, fmt), args.out)
    except TabulaError as e:
        print(str(e), file=sys.stderr)
        return EXIT_INPUT
    return EXIT_OK


# -- tabula rulings ---------------------------------------------------------------------------

def cmd_rulings(args) -> int:
    try:
        spec = load_spec(args.spec)
        rows = rulings.listing(spec.base_doc)
    except TabulaError as e:
        print(str(e), file=sys.stderr)
        return EXIT_INPUT
    if args.switchable:
        rows = [r for r in rows if r["switchable"]]
    if args.json:
        print(json.dumps({"spec": spec.id, "path": str(spec.path), "rulings": rows}, indent=1))
        return EXIT_OK
    n_sw = sum(r["switchable"] for r in rows)
    print(f"{spec.id} ({shown_path(spec.path)}): {len(rows)} rulings, {n_sw} switchable "
          f"(--option NAME=READING)")
    for r in rows:
        print()
        if r["switchable"]:
            print(f"{r['id']}  [switchable, default {r['default']}]  {r['pos']}")
        else:
            print(f"{r['id']}  [{r['kind']}]  {r['pos']}")
        if r["source"]:
            print(f"  source:  {r['source']}")
        print(f"  ruling:  {r['ruling']}")
        for rd in r.get("readings", []):
            mark = " (default)" if rd["name"] == r["default"] else ""
            print(f"  reading {rd['name']}{mark}: "
                  f"{', '.join(rd['changes']) or 'the spec as written'}")
            if rd["source"]:
                print(f"    source:   {rd['source']}")
            if rd["argument"]:
                print(f"    argument: {rd['argument']}")
    return EXIT_OK


# ---- the commands ---------------------------------------------------------------------------

def commands() -> tuple:
    """Every `tabula` command, in the order `tabula -h` lists them (built when the parser
    is, so that each names its function as the module holds it then)."""
    batch = (AGENTS, WORKERS)
    ray = (arg("--backend", choices=BACKENDS, default="local",
               help="local: a process pool (default); ray: Ray tasks (pip install "
                    f"'{DISTRIBUTION}[ray]')"),
           arg("--address", metavar="ADDR",
               help="with --backend ray: the cluster to join (default: start Ray here)"))
    game = (SPEC, PLAYERS, SEED, OPTION.but(
        help="a game option, KEY=VALUE (repeatable; default: the spec's defaults; tabula "
             "list names each game's options)"), JSON)
    return (
        Command("list", cmd_list, "the games that come with tabula: names, players, "
                "options, where, variants", (
                    JSON.but(help="print one JSON object: root, and games (each with name, "
                                  "names, id, title, players, options, path, extends, "
                                  "variants)"),)),
        Command("validate", cmd_validate, "check specs; located errors, exit 1 if any", (
            arg("paths", nargs="+", metavar="PATH",
                help="spec files, games' folders or shipped games' names"),
            arg("--play", type=positive(int, MAX_GAMES), default=None, metavar="N",
                help="also play N random games of every player count: a game that fails or "
                     "never ends is an error; list ids that never fired (default: no games)"),
            SEED.but(help="with --play: the run's seed"),
            WORKERS.but(help="with --play: " + WORKERS.kw["help"]),
            STRICT.but(help="with --play: " + STRICT_HELP))),
        Command("run", cmd_run, "play one game with bots", game + (
            AGENTS, LOG, FOR, STRICT)),
        replay.COMMAND,
        Command("graph", cmd_graph, "draw the action graph: DOT, Mermaid, JSON or SVG", (
            SPEC.but(help="a spec file, a game's folder, or a shipped game's name"),
            PLAYERS.but(help="the player count to compile for (default: the least)"),
            OPTION,
            arg("--format", choices=graph.FORMATS, default=None,
                help="dot (Graphviz), mermaid (a flowchart), json (node-link) or svg (a "
                     "drawing, by matplotlib: no Graphviz needed) (default: from the "
                     "suffix of --out, .svg .mmd .json, else dot)"),
            OUT),
            description="The action graph of a spec (for a player count and options): "
                        "phases and rules as clusters, steps and decisions with their ids "
                        "and citations, the flow between them. Drawn without Graphviz: "
                        "tabula graph SPEC --out graph.svg (matplotlib); with Graphviz, more "
                        "compact: tabula graph SPEC | dot -Tsvg > graph.svg"),
        play.COMMAND,
        serve.COMMAND,
        Command("rulings", cmd_rulings, "list a spec's rulings: switchable ones with "
                "readings and default", (
                    SPEC.but(help="a spec file, a game's folder, or a shipped game's name"),
                    arg("--switchable", action="store_true",
                        help="only the switchable rulings"),
                    JSON.but(help="print one JSON object: spec, path, rulings (id, kind, "
                                  "switchable, source, ruling, pos; default and readings "
                                  "when switchable)")),
                description="Every ruling of a spec (each ruling: text next to a step, rule, "
                            "data entry, zone, ..., with its id and source) and its "
                            "switchable rulings (rulings:), with their readings, each "
                            "reading's changes by id, and the default. Pick a reading with "
                            "--option NAME=READING (run, simulate, diff "
                            "--option-a/--option-b)."),
        Command("test", cmd_test, "run scenario files", (
            arg("paths", nargs="+", metavar="PATH",
                help="scenario files, folders holding them, or shipped games' names "
                     "(their scenarios)"),
            arg("-v", "--verbose", action="store_true",
                help="print every scenario, not only those that fail"),
            STRICT.but(help=STRICT_HELP + " (in every scenario that does not say "
                                          "strict: false)"))),
        Command("bench", cmd_bench, "random playouts per second; --suite: every shipped "
                "spec", (
                    SPEC.but(nargs="?", help=SPEC_HELP + " (not with --suite)"),
                    PLAYERS.but(help="players (default: the least; with --suite: only this "
                                     "count)"),
                    SEED.but(help="the seed of the random games"),
                    OPTION, JSON,
                    arg("--games", type=positive(int, MAX_GAMES), default=None, metavar="G",
                        help=f"random games (default {bench.SPEC_GAMES}; with --suite: for "
                             "every spec, instead of its own count)"),
                    arg("--repeat", type=positive(int), default=1, metavar="R",
                        help="run R times (interleaved with the reference); report medians"),
                    arg("--reference", metavar="PY", action="append",
                        help="a hand-written reference (a Python script with the same "
                             "'bench --api --json' interface) to run in the same run, for a "
                             "ratio; with --suite: ID=PY for spec ID, replacing the suite "
                             "file's (repeatable)"),
                    arg("--instructions", action="store_true",
                        help=f"count the instructions of the playouts under valgrind's "
                             f"callgrind instead of timing them: per decision and per game, "
                             f"the same on a busy machine (default {bench.INSTRUCTION_GAMES} "
                             f"games, at most {bench.INSTRUCTION_MAX} without --long)"),
                    arg("--long", action="store_true",
                        help=f"with --instructions: allow more than {bench.INSTRUCTION_MAX} "
                             "games (callgrind runs about 50 times slower)"),
                    arg("--profile", action="store_true",
                        help=f"profile the playouts (cProfile): the time of the spec's own "
                             f"functions, rules and decisions, named as the spec names them, "
                             f"then the interpreter's (default {bench.PROFILE_GAMES} games)"),
                    arg("--suite", action="store_true",
                        help="every spec of specs/ and examples/ (variants too), every "
                             "player count, with State.clone() times, references and "
                             "OpenSpiel; what else it measures and its targets: the suite "
                             "file"),
                    arg("--root", metavar="DIR",
                        help="with --suite: the folder holding specs/ and examples/ "
                             "(default: the current folder if it holds them, else the games "
                             "that come with tabula)"),
                    arg("--config", metavar="FILE",
                        help=f"with --suite: the suite file (default "
                             f"ROOT/{benchconfig.FILE_NAME} if there is one): games per spec, "
                             "references, ratios, the parallel run, targets"),
                    arg("--games-scale", type=positive(float), metavar="F",
                        help="with --suite: multiply every spec's default games by F"),
                    arg("--only", metavar="ID[,ID]", help="with --suite: only these spec ids"),
                    arg("--parallel", action="store_true",
                        help="with --suite: also simulate the suite file's parallel: games "
                             "with 2 workers and with 1"))),
        Command("simulate", cmd_simulate, "many games with bots: statistics", game + (
            arg("--games", type=positive(int, MAX_GAMES), default=100, metavar="N",
                help="how many games"),
            *batch, REPORT, *ray,
            arg("--rotate", action="store_true",
                help="game i seats the bots shifted by i: every bot plays every seat"),
            arg("--out", metavar="FILE.jsonl", help="append every finished game to FILE"),
            arg("--resume", action="store_true",
                help="complete --out without playing its finished games again"),
            STRICT.but(help=STRICT_HELP + " (a game that hits one is recorded as failed)"),
            arg("--depth", type=positive(int, MAX_GAMES), metavar="N",
                help="strategic depth: N more games, mcts in one seat and random in the "
                     "others (seats rotated): mcts's win rate"))),
        Command("ladder", cmd_ladder, "rate bots against each other: Bradley-Terry "
                "ratings with intervals, seats rotated", game + (
                    AGENTS.but(help="the agents to rate, two or more, each once: random, "
                                    "greedy, mcts[:N|Ns[:DEPTH|end]]"),
                    arg("--games", type=positive(int, MAX_GAMES), default=20, metavar="N",
                        help="games per table (every pair of agents; for more players "
                             "every set of PLAYERS agents), rounded up to a multiple of "
                             "the players so that seats rotate evenly"),
                    WORKERS,
                    arg("--plot", metavar="FILE.svg",
                        help="write the ratings and their intervals as an SVG plot"),
                    REPORT.but(help="write the ladder's tables and plot as one "
                                    "self-contained HTML file"))),
        Command("compile", cmd_compile, "print the Python code generated for a game", (
            SPEC,
            PLAYERS.but(help="the player count to compile for (default: the spec's "
                             "minimum)"),
            OPTION,
            arg("--tensor", action="store_true",
                help="print the layout of the observation tensor instead: each part's "
                     "offset, shape and meaning"),
            JSON.but(help="with --tensor: one JSON object (game, size, kinds, parts)"),
            OUT.but(help="write the code to FILE instead"))),
        Command("diff", cmd_diff, "what differs between two specs: rules, action graph, "
                "play", (
                    arg("a", metavar="A", help="the first spec (" + SPEC_HELP + ")"),
                    arg("b", metavar="B", help="the second spec, compared with A"),
                    JSON.but(help="one JSON object: added, removed, changed (each with an "
                                  "id)"),
                    arg("--simulate", type=positive(int, MAX_GAMES), metavar="N",
                        help="also play N games of each on the same seeds and bots; "
                             "compare"),
                    PLAYERS.but(help="with --simulate: the player count (default: the "
                                     "least)"),
                    SEED.but(help="with --simulate: the run's seed"),
                    OPTION.but(help="with --simulate: an option of both A and B (each plays "
                                    "with its own defaults otherwise; repeatable)"),
                    arg("--option-a", action="append", metavar="K=V", default=[],
                        help="with --simulate: an option of A only (over --option)"),
                    arg("--option-b", action="append", metavar="K=V", default=[],
                        help="with --simulate: an option of B only (over --option)"),
                    arg("--by-change", action="store_true",
                        help="with --simulate: also play each change of the rule diff "
                             "applied alone to A, and removed alone from B (N games "
                             "each, the same seeds and bots), and measure what each does"),
                    arg("--no-mirror", action="store_true",
                        help="with --by-change: play the changes on A only, not removed "
                             "from B (half the toggles' games)"),
                    AGENTS.but(help="with --simulate: one bot per seat, or one for all: "
                                    "random, greedy, mcts[:N|Ns[:DEPTH|end]] (default: "
                                    f"{DIFF_AGENTS[0]} in one seat, {DIFF_AGENTS[1]} in the "
                                    "others, seats rotated game by game)"),
                    WORKERS,
                    REPORT.but(help="with --simulate: the comparison and its plots as one "
                                    "HTML page"),
                    *ray)),
    )


def parser() -> argparse.ArgumentParser:
    return build_parser(
        commands(), prog="tabula",
        description="Tabula: board games as text. A game is a spec (YAML and rules); SPEC "
                    "is its file, its folder, or the name of a game that comes with tabula "
                    "(tabula list).",
        epilog="tabula COMMAND -h: a command's options and their defaults. Exit codes: 0 "
               "fine, 1 a bad input (a located error), 2 a usage error.")


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except (TabulaError, IllegalAction) as e:
        Progress.wipe()                   # a progress line cut short: the error replaces it
        print(str(e), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        Progress.wipe()
        return 130
    except BrokenPipeError:           # `tabula run ... | head`: the reader has gone
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except OSError as e:              # a file no command wraps itself: still no traceback
        Progress.wipe()
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"tabula: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())
