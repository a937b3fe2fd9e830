"""Saved states read back: a state's JSON checked before the engine uses any of it.

Input: the JSON data of a state (State.to_json, as read back from a file, a socket or an
OpenSpiel serialization: untrusted) and the Game it is loaded into. Output: nothing, or a
TabulaError that says what no game of this spec reaches ("the saved state is not one this
game can reach: piece 7 (red1) is in two places, ..."), never a KeyError, IndexError,
TypeError or AttributeError of the data's shape. State.from_json (runtime/engine.py)
calls, in order:

- `check(game, d, fmt)`, on the JSON data, before anything is built: the type of every
  field (an int is an int, not a bool or a float; a list is a list), and the invariants of
  any state of the game: every piece in exactly one slot (none lost, none twice: the
  counts are conserved), each slot within its capacity, the variables' counts, the
  current player, the player to act and the chooser of every decision seen in range,
  every frame's block, program counter, locals and loop in range, the first frame the
  game's root and the pending decision's frame the last, frames exactly when the game is
  not over, a generator state the Mersenne Twister can have, every action of the history
  a decision, alternative and count of values of this game;
- `check_loaded(st)`, on the state built: a piece whose component declares no
  changeable attribute keeps its value of the spec;
- `check_relisted(st, d)`, once the pending decision is listed again: the state is the one
  saved (listing has no side effects, so a frame that does not stop at a decision, a
  forced end or a forged field shows here);
- `replay(game, st, seed)`, when the caller knows the seed the game started from (the
  OpenSpiel adapter does): the state its history plays from Game.new_state(seed) must be
  this very state, so only a state the game reaches by those decisions loads.

Without a seed, a state that holds together but that no play reaches (a piece moved by
hand to another zone of the right capacity, a frame dropped from the middle of the
stack, values of the wrong type inside variables) is not detected: that needs `replay`.

This module imports nothing of the runtime (the engine imports it), so the few constants
it needs of runtime/model.py are repeated below (a test holds them equal).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import TabulaError

__all__ = ["UNREACHABLE", "check", "check_loaded", "check_relisted", "differences",
           "replay"]

UNREACHABLE = "the saved state is not one this game can reach"

# runtime/model.py's CHANCE (a chance decision's player), SKIP and DONE (the alternative
# of an optional decision's skip and of an up_to decision's done)
CHANCE, SKIP, DONE = -1, -1, -2

# a Mersenne Twister state as random.Random.getstate() gives it: version 3, 624 words of
# 32 bits and the index of the next word (0 .. 624), then the kept gaussian or None
MT_WORDS = 624

FIELDS = {"format", "spec", "players", "options", "slots", "globals", "player_vars",
          "current", "turn", "terminal", "steps", "history", "locals", "frames",
          "pending_frame", "rng", "to_act", "attributes", "fired", "seen", "chosen",
          "chosen_seen", "known"}
FRAME_FIELDS = {"block", "pc", "locals", "loop", "a", "b"}


class _Refused(Exception):
    """What is wrong, raised inside the checks and told as one TabulaError."""


def _refuse(what: str) -> Any:
    raise _Refused(what)


def _is_int(x: Any) -> bool:
    return type(x) is int


def _int(x: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """x, a JSON integer (not a bool, not a float) with lo <= x <= hi."""
    if not _is_int(x):
        _refuse(f"{what} is {_shown(x)}, not a whole number")
    if lo is not None and hi is not None and not lo <= x <= hi:
        _refuse(f"{what} is {x}, " + (f"not {lo}" if lo == hi else f"outside {lo} to {hi}"))
    if lo is not None and x < lo:
        _refuse(f"{what} is {x}, below {lo}")
    if hi is not None and x > hi:
        _refuse(f"{what} is {x}, above {hi}")
    return x


def _list(x: Any, what: str, size: int | None = None) -> list:
    if type(x) is not list:
        _refuse(f"{what} is {_shown(x)}, not a list")
    if size is not None and len(x) != size:
        _refuse(f"{what} has {len(x)} entries, not this game's {size}")
    return x


def _shown(x: Any) -> str:
    """A short description of a JSON value for a message (never its whole text)."""
    if x is None:
        return "null"
    if type(x) is bool:
        return "true" if x else "false"
    if type(x) in (int, float):
        text = repr(x)
        return text if len(text) <= 24 else text[:20] + "..."
    if type(x) is str:
        return repr(x) if len(x) <= 24 else repr(x[:20]) + "..."
    if type(x) is list:
        return "a list"
    return "an object" if type(x) is dict else f"a {type(x).__name__}"


def _slot_name(prog, s: int) -> str:
    """A slot as the spec names it: its zone, its owner's copy and its index there."""
    z = prog.zone_list[prog.slot_zone[s]]
    owner = prog.slot_owner[s]
    where = z.name + (f" of player {owner}" if z.per_player and owner >= 0 else "")
    return where + (f" (slot {prog.slot_index[s]})" if z.nslots > 1 else "")


def _piece_name(prog, p: int) -> str:
    return f"piece {p} ({prog.piece_names[p]})"


# ---- the JSON data, before anything is built -------------------------------------------------

def check(game, d: Any, fmt: int) -> None:
    """Refuse saved data `d` that no state of `game` has (see the module's docstring)."""
    if not isinstance(d, dict):
        raise TabulaError(f"a saved state is a JSON object of its fields, not {_shown(d)}")
    prog = game.prog
    if _is_int(d.get("format")) and 1 <= d["format"] < fmt and d.get("spec") == prog.spec_id:
        raise TabulaError(f"this state was saved in format {d['format']}, by an older "
                          f"Tabula whose saved tables lost their keys' types; this one "
                          f"reads format {fmt}: play the game's log again and save it anew")
    if d.get("format") != fmt or d.get("spec") != prog.spec_id \
            or not _is_int(d.get("players")) or d.get("players") != prog.players:
        raise TabulaError("this state was saved for another spec, player count or format "
                          f"(this game: spec '{prog.spec_id}', {prog.players} players, "
                          f"format {fmt})")
    try:
        _check(game, d)
    except _Refused as exc:
        raise TabulaError(f"{UNREACHABLE}: {exc}") from None
    except RecursionError:
        raise TabulaError(f"{UNREACHABLE}: its data nests too deeply") from None


def _check(game, d: dict) -> None:
    prog = game.prog
    players = prog.players
    extra = sorted(str(k) for k in d if k not in FIELDS)
    if extra:
        _refuse(f"it has a field no saved state has: {_shown(extra[0])}")
    missing = sorted(k for k in ("options", "slots", "globals", "player_vars", "current",
                                 "turn", "terminal", "steps", "history", "locals",
                                 "frames", "pending_frame", "rng") if k not in d)
    if missing:
        _refuse(f"its field '{missing[0]}' is missing")
    if d["options"] != game.options:
        _refuse(f"it was saved with the options {_shown(d['options'])} "
                f"({_options(d['options'])}), not this game's ({_options(game.options)})")
    _check_pieces(prog, d)
    _list(d["globals"], "its list of global variables", len(prog.gvar_init))
    _list(d["player_vars"], "its list of per-player variables", players)
    for p, row in enumerate(d["player_vars"]):
        _list(row, f"player {p}'s variables", len(prog.pvar_init))
    _int(d["current"], "its current player", 0, players - 1)
    if d.get("to_act") is not None:
        _int(d["to_act"], "its player to act first", 0, players - 1)
    _int(d["turn"], "its turn", 0)
    _int(d["steps"], "its count of steps", 0, prog.max_steps)
    if type(d["terminal"]) is not bool:
        _refuse(f"its field 'terminal' is {_shown(d['terminal'])}, not true or false")
    if len(_list(d["history"], "its history")) > prog.max_decisions:
        _refuse(f"its history holds {len(d['history'])} decisions, more than this game "
                f"makes (game.max_decisions: {prog.max_decisions})")
    for i, action in enumerate(d["history"]):
        _check_action(prog, action, f"decision {i + 1} of its history")
    _check_frames(prog, d)
    _check_rng(d["rng"])
    if prog.changeable or "attributes" in d:
        _check_attributes(prog, d.get("attributes"))
    if "known" in d:            # who knows where each piece is (State.known)
        if prog.slot_seers is None:
            _refuse("it says who knows where the pieces are, and this game hides none")
        for i, k in enumerate(_list(d["known"], "its field 'known'", len(prog.piece_names))):
            _int(k, f"the seats that know where piece {i} is", 0, (1 << players) - 1)
    if "fired" in d:
        fired = d["fired"]
        if type(fired) is not dict:
            _refuse(f"its counts of ids reached are {_shown(fired)}, not an object")
        for k, v in fired.items():
            _int(v, f"the count of id {_shown(k)} reached", 0)
    for key in ("seen", "chosen_seen"):
        for i, e in enumerate(_list(d.get(key, []), f"its field '{key}'")):
            _check_entry(players, e, f"entry {i + 1} of its decisions seen")
    chosen = _list(d.get("chosen", []), "its choices at the simultaneous decision")
    for i, action in enumerate(chosen):
        try:
            _check_action(prog, action, f"choice {i + 1} at its simultaneous decision")
        except _Refused as exc:
            _refuse(f"{exc} (not a legal choice)")
    if chosen and d["terminal"]:
        _refuse("it is over, yet holds choices at a simultaneous decision")


def _options(options: Any) -> str:
    if type(options) is not dict or not options:
        return "none"
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items(), key=lambda kv: str(kv[0])))


def _check_pieces(prog, d: dict) -> None:
    """Every piece in exactly one slot, each slot within its capacity."""
    slots = _list(d["slots"], "its list of zones' slots", prog.nslots)
    n = len(prog.piece_names)
    seen: dict = {}
    for s, content in enumerate(slots):
        _list(content, f"the slot of {_slot_name(prog, s)}")
        for piece in content:
            _int(piece, f"a piece in {_slot_name(prog, s)}", 0, n - 1)
            if piece in seen:
                _refuse(f"{_piece_name(prog, piece)} is in two places: "
                        + (f"twice in {_slot_name(prog, s)}" if seen[piece] == s else
                           f"{_slot_name(prog, seen[piece])} and {_slot_name(prog, s)}"))
            seen[piece] = s
        cap = prog.slot_cap[s]
        if cap is not None and len(content) > cap:
            _refuse(f"{_slot_name(prog, s)} holds {len(content)} pieces, more than its "
                    f"capacity of {cap}")
    if len(seen) < n:
        lost = [p for p in range(n) if p not in seen]
        _refuse(f"{_piece_name(prog, lost[0])} is nowhere"
                + (f" ({len(lost)} pieces are missing of the game's {n})" if len(lost) > 1
                   else ""))


def _check_action(prog, action: Any, what: str) -> None:
    """An action of this game: [decision, alternative, values...] with one value for each
    binding of the alternative (none for skip and done)."""
    _list(action, what)
    if len(action) < 2:
        _refuse(f"{what} is {action!r:.40}, not [decision, option, values...]")
    did = _int(action[0], f"the decision of {what}", 0, len(prog.decisions) - 1)
    dec = prog.decisions[did]
    alt = _int(action[1], f"the option of {what}", DONE, len(dec.alts) - 1)
    if alt == SKIP and not dec.optional:
        _refuse(f"{what} skips decision {did} ({dec.rule}), which is not optional")
    if alt == DONE and not dec.upto:
        _refuse(f"{what} ends decision {did} ({dec.rule}), which is not an up_to decision")
    count = len(dec.alts[alt].slots) if alt >= 0 else 0
    if len(action) - 2 != count:
        _refuse(f"{what} binds {len(action) - 2} values where its option of decision {did} "
                f"({dec.rule}) binds {count}")


def _check_frames(prog, d: dict) -> None:
    """The stack: frames of this program's blocks and loops, the root first, the pending
    decision's frame last; none once the game is over."""
    locals_list = _list(d["locals"], "its list of locals")
    for i, L in enumerate(locals_list):
        _list(L, f"its locals {i}")
    frames = _list(d["frames"], "its list of frames")
    for i, f in enumerate(frames):
        what = f"frame {i}"
        if type(f) is not dict:
            _refuse(f"{what} is {_shown(f)}, not an object")
        if set(f) != FRAME_FIELDS:
            _refuse(f"{what} has the fields {sorted(map(str, f))}, not "
                    f"{sorted(FRAME_FIELDS)}")
        block = prog.blocks[_int(f["block"], f"the block of {what}", 0, len(prog.blocks) - 1)]
        _int(f["pc"], f"the program counter of {what}", 0, len(block.ins))
        _int(f["locals"], f"the locals of {what}", 0, len(locals_list) - 1)
        if f["loop"] is not None:
            _int(f["loop"], f"the loop of {what}", 0, len(prog.loops) - 1)
    pending = d["pending_frame"]
    if d["terminal"]:
        if frames or pending is not None:
            _refuse("it is over (terminal), yet its frames still run"
                    if frames else "it is over (terminal), yet a decision is pending")
        return
    if not frames:
        _refuse("it is not over, yet nothing runs (its frames are gone)")
    roots = {b.id for b in (prog.root_full, prog.root_play) if b is not None}
    if frames[0]["block"] not in roots:
        _refuse("its first frame is not the game's (a frame below it is missing)")
    if pending is None:
        _refuse("it is not over, yet no decision is pending")
    _int(pending, "its pending decision's frame", len(frames) - 1, len(frames) - 1)
    if frames[-1]["pc"] >= len(prog.blocks[frames[-1]["block"]].ins):
        _refuse("its pending decision's frame has run to its end")


def _check_rng(r: Any) -> None:
    """A state random.Random.setstate takes and a Mersenne Twister can be in."""
    _list(r, "its generator's state", 3)
    version, words, gauss = r
    if version != 3 or not _is_int(version):
        _refuse(f"its generator's state is of version {_shown(version)}, not 3")
    _list(words, "its generator's words", MT_WORDS + 1)
    for i, w in enumerate(words[:MT_WORDS]):
        _int(w, f"word {i} of its generator", 0, 2 ** 32 - 1)
    _int(words[MT_WORDS], "its generator's index", 0, MT_WORDS)
    if words[0] & 0x8000_0000 == 0 and not any(words[1:MT_WORDS]):
        _refuse("its generator's words are all zero (a Mersenne Twister never is)")
    if gauss is not None and (type(gauss) is not float or not math.isfinite(gauss)):
        _refuse(f"its generator's kept gaussian is {_shown(gauss)}, not a number or null")


def _check_attributes(prog, saved: Any) -> None:
    if not prog.changeable:
        _refuse("it has changeable attributes, and this game has none")
    if type(saved) is not dict:
        _refuse("its pieces' changeable attributes are missing" if saved is None else
                f"its pieces' changeable attributes are {_shown(saved)}, not an object")
    if set(saved) != set(prog.changeable):
        _refuse(f"its changeable attributes are {sorted(map(str, saved))}, not this "
                f"game's {sorted(prog.changeable)}")
    for a in prog.changeable:
        _list(saved[a], f"the values of attribute '{a}'", len(prog.piece_names))


def _check_entry(players: int, e: Any, what: str) -> None:
    """[player, rule, action text, players who saw it or null] (the information states)."""
    _list(e, what, 4)
    who, rule, text, visible = e
    if who != CHANCE:
        _int(who, f"the player of {what}", 0, players - 1)
    if type(rule) is not str or type(text) is not str:
        _refuse(f"the rule and action of {what} are not texts")
    if visible is not None:
        for p in _list(visible, f"the players who saw {what}"):
            if p != CHANCE:                 # a chance decision's chooser sees it too
                _int(p, f"a player who saw {what}", 0, players - 1)


# ---- the state built ---------------------------------------------------------------------------

def check_loaded(st) -> None:
    """What only the decoded values show: a piece whose component does not declare a
    changeable attribute holds the spec's value of it."""
    prog = st.prog
    for row, a in enumerate(prog.changeable):
        values, may, initial = st.pa[row], prog.changeable_by[a], prog.piece_attrs[a]
        for p in range(len(prog.piece_names)):
            if not may[p] and (type(values[p]) is not type(initial[p])
                               or values[p] != initial[p]):
                raise TabulaError(f"{UNREACHABLE}: {_piece_name(prog, p)} has {a} "
                                  f"{_shown(values[p])}, which it may not change from "
                                  f"{_shown(initial[p])}")


def differences(a: dict, b: dict) -> list:
    """The fields of two saved states (to_json) that differ, in order. Data nested past
    Python's recursion limit (which json.loads reads) is refused as a TabulaError."""
    try:
        return sorted(k for k in set(a) | set(b) if k not in a or k not in b
                      or a[k] != b[k] or _kinds(a[k]) != _kinds(b[k]))
    except RecursionError:
        raise TabulaError(f"{UNREACHABLE}: its data nests too deeply") from None


def _kinds(x: Any) -> Any:
    """The shape of a JSON value with the type of every leaf (1 and true are not equal
    here, as they are for ==)."""
    if type(x) is list:
        return [_kinds(v) for v in x]
    if type(x) is dict:
        return {k: _kinds(v) for k, v in x.items()}
    return type(x).__name__


def check_relisted(st, d: dict) -> None:
    """The state, its pending decision listed again, is the one saved: listing has no
    side effects, so anything else is a frame that does not stop at a decision, or a
    field no play gives."""
    expect = dict(d)
    prog = st.prog
    expect["slots"] = [sorted(s) if i in prog.heaps else s for i, s in enumerate(d["slots"])]
    got = st.to_json()
    for key, default in (("to_act", None), ("fired", {}), ("seen", []), ("chosen", []),
                         ("chosen_seen", [])):
        if key not in got:
            expect.pop(key, None)
        elif key not in expect:
            expect[key] = default
    if got.get("to_act", None) is None:
        expect.pop("to_act", None)
    if not got.get("chosen"):
        for key in ("chosen", "chosen_seen"):
            if not expect.get(key):
                expect.pop(key, None)
    wrong = differences(got, expect)
    if wrong:
        raise TabulaError(f"{UNREACHABLE}: its frames do not stop at the decision it waits "
                          f"on (listing it again changes its {', '.join(wrong)})")


def replay(game, st, seed: int):
    """The state `st`'s history plays from game.new_state(seed), which must be `st`
    itself (its position, variables, frames, generator, counters): then it is returned,
    a state reached by the game's own play. Costs what playing the history costs."""
    if not _is_int(seed) or seed < 0:
        raise TabulaError(f"seed {seed!r}: a game's seed is a whole number, 0 or more")
    again = game.new_state(seed=seed)
    for i, action in enumerate(st.history):
        if action not in again.legal_actions():
            raise TabulaError(f"{UNREACHABLE}: decision {i + 1} of its history, "
                              f"{list(action)!r:.60}, is not legal there (its history "
                              f"played from seed {seed})")
        again.apply(action)
    wrong = differences(again.to_json(), st.to_json())
    if wrong:
        raise TabulaError(f"{UNREACHABLE}: its {', '.join(wrong)} differ from the state its "
                          f"history of {len(st.history)} decisions plays from seed {seed}")
    return again
