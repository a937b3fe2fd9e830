"""A game played into its log, and a log replayed against its spec (`tabula replay`).

Input: a Game, its seed, agents and generators (play); or a log (gamelog.read_log) and
a spec. Output: the final state and the decisions of a game played (each told to a
gamelog.LogWriter as it is made); the verdict of a replay (every decision legal and the
final scores as logged, or the first decision that is not, and why); the analysis of a
log under a variant; the state after K decisions, as JSON or as text.
"""

from __future__ import annotations

import json
import sys

from ..bots.agents import Sight, next_action
from ..errors import TabulaError
from ..runtime.engine import Game, State
from ..runtime.model import CHANCE
from ..runtime.values import encode
from ..spec import load_spec
from .cmdutil import FOR, JSON, Command, arg, whole_arg
from .gamelog import (
    GameLog,
    Stop,
    check_header,
    legal_list,
    log_game,
    log_spec,
    logged_who,
    plain_json,
    player_log_refusal,
    read_log,
    replay_log,
    state_digest,
    who_text,
)

__all__ = ["COMMAND", "Stop", "check_full", "check_header", "check_variant", "cmd_replay",
           "format_variant", "format_view", "full_view", "play", "replay"]



# ---- playing --------------------------------------------------------------------------------

def play(game: Game, seed: int, agents: list, chance, seats: list, log=None) -> tuple:
    """Play one game: each chance decision uniformly with the generator `chance`, each
    seat's decision by its agent, acting on a View with the generator `seats[p]`; `log`
    (a LogWriter) is told every decision as it is made. Returns the final state and the
    decisions, [(player, action, action string, turn), ...] (chance as CHANCE).

    This is agents.play_game's loop: with chance_rng(seed) and agent_rng(seed, p) it plays
    the game play_game(game, seed, agents) plays. With one generator for chance and every
    seat, and random agents, it plays the games `tabula run` has always played."""
    if len(agents) != game.players:
        raise TabulaError(f"{len(agents)} agents for a game of {game.players} players")
    st = game.new_state(seed=seed)
    if log is not None:
        log.begin(st)
    record = []
    sight = Sight.of(agents, game.players)
    while not st.terminal:
        pend = st.pending
        who = pend.player
        a = next_action(st, agents, seats, chance, sight)
        text = st.action_to_string(a)
        turn = st.turn
        st.apply_unchecked(a)
        record.append((who, a, text, turn))
        if log is not None:
            log.decision(who, a, text, turn, st)
    if log is not None:
        log.end(st)
    return st, record


# ---- replaying ------------------------------------------------------------------------------

def replay(log: GameLog, game: Game, upto: int | None = None,
           by_string: bool = False) -> tuple:
    """Apply the first `upto` (default: all) decisions of a full log to a new game with the
    log's seed, checking each (gamelog.replay_log). Returns (state, None), or (state
    before the failing decision, Stop). `by_string` finds each action by its string alone
    (for another spec, whose integer tuples may differ); otherwise the tuple must be
    legal, its string the logged one, the turn the logged turn, and a proven log's
    digests the replayed states'."""
    if log.for_player is not None:
        raise TabulaError(player_log_refusal(log))
    return replay_log(log, game, log.decisions if upto is None else log.decisions[:upto],
                      by_string)


def check_full(log: GameLog, game: Game) -> State:
    """Replay a full log and check everything: each decision, that nothing is missing, that
    the game is over and its points, scores and winners are the logged ones. Returns the
    final state; any failure is a TabulaError naming the line."""
    st, stop = replay(log, game)
    if stop is not None:
        raise TabulaError(stop.text(log))
    if log.problem is not None:
        raise TabulaError(log.problem_text())
    end, where = log.end, log.where(log.end_line)
    n = len(log.decisions)
    if log.proven and state_digest(st) != end["state"]:
        if n:
            line, last = log.decisions[-1]
            raise TabulaError(f"{log.where(line)}: decision {n} ({who_text(last['player'])}, "
                              f"'{last['action']}'): the game diverges here: after it the "
                              f"state is not the logged final state (digest "
                              f"{state_digest(st)}, logged {end['state']} at line "
                              f"{log.end_line}): this decision or the end line was edited")
        raise TabulaError(f"{where}: the final state's digest {end['state']} is not the "
                          f"replayed {state_digest(st)}: the header or the end line was edited")
    if not st.terminal:
        raise TabulaError(f"{where}: the log ends after decision {n}, but the game is not "
                          f"over: {who_text(st.current_player())} is to decide; "
                          f"{legal_list(st)}")
    for key, value in (("scores", st.scores()), ("winners", st.winners()),
                       ("points", st.points())):
        if plain_json(value) != end[key]:
            raise TabulaError(f"{where}: the logged {key} {json.dumps(end[key])} are not the "
                              f"replayed {key} {json.dumps(plain_json(value))}")
    return st


def check_variant(log: GameLog, game: Game, spec) -> dict:
    """The analysis of a full log under another spec (a variant): whether its decisions,
    found by their strings, stay legal, the first that does not and why, whether the game
    ends with them and whether the final scores and winners would differ."""
    st, stop = replay(log, game, by_string=True)
    end = log.end or {}
    out = {"log": log.path, "log_spec": log.header["spec"],
           "log_spec_hash": log.header["spec_hash"], "spec": game.id,
           "spec_hash": spec.hash, "spec_path": str(spec.path),
           "decisions": len(log.decisions), "legal": stop is None, "first_illegal": None,
           "over": None, "scores": {"logged": end.get("scores"), "variant": None},
           "winners": {"logged": end.get("winners"), "variant": None},
           "scores_differ": None, "winners_differ": None}
    if stop is not None:
        r = stop.record
        out["first_illegal"] = {"decision": stop.k, "line": stop.line,
                                "player": r["player"], "action": r["action"],
                                "why": stop.why}
        return out
    out["over"] = st.terminal
    if st.terminal:
        out["scores"]["variant"] = plain_json(st.scores())
        out["winners"]["variant"] = plain_json(st.winners())
        out["scores_differ"] = out["scores"]["variant"] != out["scores"]["logged"]
        out["winners_differ"] = out["winners"]["variant"] != out["winners"]["logged"]
    else:
        out["to_decide"] = logged_who(st.current_player())
    return out


def format_variant(report: dict) -> str:
    """The analysis of check_variant as text."""
    n = report["decisions"]
    out = [(f"{report['log']}: a log of {report['log_spec']} (spec hash "
            f"{report['log_spec_hash']}), checked against {report['spec_path']} "
            f"({report['spec']}, spec hash {report['spec_hash']})")]
    stop = report["first_illegal"]
    if stop is not None:
        out.append(f"  decision {stop['decision']} (line {stop['line']}, "
                   f"{who_text(stop['player'])}, '{stop['action']}'): {stop['why']}")
        out.append(f"  the logged decisions stop being legal at decision {stop['decision']} "
                   f"of {n}; the final scores cannot be compared")
        return "\n".join(out)
    if not report["over"]:
        out.append(f"  all {n} decisions stay legal, but the game is not over after them "
                   f"({who_text(report['to_decide'])} to decide); the final scores cannot "
                   "be compared")
        return "\n".join(out)
    out.append(f"  all {n} decisions stay legal, and the game ends with them")

    def row(values):
        return ", ".join(str(v) for v in values)
    sc, wi = report["scores"], report["winners"]
    out.append(f"  final scores: logged {row(sc['logged'])}; under this spec "
               f"{row(sc['variant'])}: " + ("they differ" if report["scores_differ"]
                                            else "the same"))
    out.append("  winners: logged " + row(f"player {w}" for w in wi["logged"]) +
               "; under this spec " + row(f"player {w}" for w in wi["variant"]) + ": " +
               ("they differ" if report["winners_differ"] else "the same"))
    return "\n".join(out)


# ---- showing a state ------------------------------------------------------------------------

def full_view(st: State) -> dict:
    """Everything in a state, in the shape of an observation: every zone's pieces, every
    variable, the pending decision's actions (chance's outcomes too) and the scores."""
    prog = st.prog
    view = {"player": None, "current_player": st.current_player(), "turn": st.turn,
            "terminal": st.terminal, "zones": st.zones_view(None),
            "variables": encode(dict(zip(prog.gvar_names, st.gv))),
            "player_variables": {n: {str(p): encode(st.pv[p][i]) for p in range(prog.players)}
                                 for i, n in enumerate(prog.pvar_names)}}
    if st.pending is not None:
        view["legal_actions"] = st.legal_action_strings()
    view["scores"] = encode(st.scores())
    return view


def _names(names: list) -> str:
    """Piece names in order, a run of one name once with its count: "wall (3), well"."""
    out = []
    for name in names:
        if out and out[-1][0] == name:
            out[-1][1] += 1
        else:
            out.append([name, 1])
    return ", ".join(f"{name} ({k})" if k > 1 else str(name) for name, k in out)


def _pieces(value) -> str:
    """One zone's content as text: names (by slot, numbered from 0, when the zone has
    several), a count, or hidden."""
    if value is None:
        return "hidden"
    if isinstance(value, dict):           # {"count": n or [n, ...]}: seen as a count only
        c = value.get("count")
        if isinstance(c, list):
            slots = [f"slot {i}: {k}" for i, k in enumerate(c) if k]
            return ("face down, " + "; ".join(slots)) if slots else "empty"
        return f"{c} face down" if c else "empty"
    if value and all(isinstance(s, list) for s in value):       # slots
        slots = [f"slot {i}: {_names(s)}" for i, s in enumerate(value) if s]
        return "; ".join(slots) if slots else "empty"
    return _names(value) if value else "empty"


def format_view(view: dict) -> str:
    """An observation (State.observation) or a full_view, as text: whose decision, the
    zones (per player where they are per player), the variables, the legal actions and,
    when known, the scores."""
    out = []
    cur = view.get("current_player")
    status = ("the game is over" if view.get("terminal") else
              f"{who_text(cur)} to decide")
    out.append(f"turn {view.get('turn')}: {status}")
    out.append("zones:")
    for zname, value in view.get("zones", {}).items():
        if isinstance(value, dict) and "count" not in value:
            out.append(f"  {zname}:")
            for o, v in value.items():
                out.append(f"    player {o}: {_pieces(v)}")
        else:
            out.append(f"  {zname}: {_pieces(value)}")
    if view.get("variables"):
        out.append("variables:")
        out += [f"  {k} = {json.dumps(v)}" for k, v in view["variables"].items()]
    if view.get("player_variables"):
        out.append("player variables:")
        for k, per in view["player_variables"].items():
            out.append(f"  {k}: " + ", ".join(f"player {p} = {json.dumps(v)}"
                                             for p, v in per.items()))
    if "legal_actions" in view:
        acts = view["legal_actions"]
        out.append(f"legal actions ({who_text(cur)}):" if cur != CHANCE else "outcomes:")
        out += [f"  {a}" for a in acts]
    if "scores" in view:
        out.append("scores: " + ", ".join(map(str, view["scores"])))
    return "\n".join(out)


# ---- the command ----------------------------------------------------------------------------

def cmd_replay(args) -> int:
    """`tabula replay`: check a log (exit 0: "ok: ..."), show the state after --at K
    decisions, or, given --spec with another hash, analyse the log under that spec."""
    log = read_log(args.log)
    if log.for_player is not None:
        raise TabulaError(player_log_refusal(log))
    if not log.proven:
        if not args.unproven:
            raise TabulaError(f"{log.path}: a log of version {log.header.get('version')} "
                              "carries no state digests, so a replay cannot prove it is the "
                              "game that was played (an edit that keeps every decision legal "
                              "would pass); give --unproven to check its legality and final "
                              "scores only")
        print(log.unproven_warning(), file=sys.stderr)
    head = log.header
    spec = load_spec(args.spec) if args.spec else log_spec(log, load_spec,
                                                            "; give --spec PATH")
    variant = spec.hash != head["spec_hash"]
    game = log_game(log, spec)
    n = len(log.decisions)
    at = args.at
    if args.for_player is not None:
        if not 0 <= args.for_player < game.players:
            raise TabulaError(f"--for {args.for_player}: the players of this game are 0 to "
                              f"{game.players - 1}")
        if at is None:                  # the player's view at the end of the game
            if log.problem is not None:
                raise TabulaError(log.problem_text())
            at = n
    if at is not None:
        if at < 0:
            raise TabulaError(f"--at {at}: a number of decisions, 0 or more")
        if at > n:
            raise TabulaError(log.problem_text() if log.problem is not None else
                              f"{log.path}: --at {at}, but the log holds {n} decisions")
        st, stop = replay(log, game, at, by_string=variant)
        if stop is not None:
            raise TabulaError(stop.text(log) + (" (under this spec)" if variant else ""))
        if log.problem is not None:
            print(f"note: {log.problem_text()} (the first {at} decisions are sound)",
                  file=sys.stderr)
        _show(args, log, game, st, at)
        return 0
    if variant:
        if log.problem is not None:
            raise TabulaError(log.problem_text())
        report = check_variant(log, game, spec)
        print(json.dumps(report) if args.json else format_variant(report))
        return 0
    st = check_full(log, game)
    if args.json:
        print(json.dumps({"ok": True, "log": log.path, "spec": game.id,
                          "spec_hash": spec.hash, "decisions": n,
                          "scores": plain_json(st.scores()), "winners": plain_json(st.winners())}))
    else:
        print(f"ok: {n} decisions replayed, scores match")
    return 0


def _show(args, log: GameLog, game: Game, st: State, at: int) -> None:
    p = args.for_player
    if args.json:
        print(json.dumps(st.observation(p) if p is not None else st.to_json()))
        return
    opts = ", ".join(f"{k}={v}" for k, v in game.options.items()) or "no options"
    who = f"player {p}'s view" if p is not None else "the full state"
    print(f"{log.path}: {game.id}, {game.players} players, {opts}: {who} after decision "
          f"{at} of {len(log.decisions)}")
    print(format_view(st.observation(p) if p is not None else full_view(st)))


COMMAND = Command(
    "replay", cmd_replay, "re-play a game log, checking every decision", (
        arg("log", metavar="LOG", help="a game log (tabula run --log)"),
        arg("--spec", metavar="SPEC",
            help="the spec to replay with (default: the log's); a spec with another hash is "
                 "checked as a variant"),
        arg("--at", type=whole_arg, metavar="K", help="show the state after K decisions"),
        FOR.but(help="show that player's observation (at --at K, or at the end)"),
        JSON.but(help="print JSON: the state or observation, the verdict or the analysis"),
        arg("--unproven", action="store_true",
            help="replay a log of version 1 (no state digests): legality and the final "
                 "scores only, which cannot prove the game")))
