"""Scenario files: given a position, do some decisions, expect what must hold.

Input: a scenario file (YAML, schemas/scenario.schema.json) naming a spec. Output: one
Result per scenario (passed, or failed with a located message). A scenario either plays
from the start (no `given`) or builds a position: pieces by name into zones (lists are
bottom to top), variables, then runs the spec's `play` from there.
"""

from __future__ import annotations

import os
import re
import string
from dataclasses import dataclass
from pathlib import Path

from ..bots.agents import chance_rng
from ..errors import (
    NOWHERE,
    Pos,
    SpecError,
    TabulaError,
    check_input,
    did_you_mean,
    excerpt,
    fail,
)
from ..lang import types as T
from ..lang.loader import LMap, check_schema, load_yaml, plain
from ..runtime.engine import Game, State
from ..runtime.model import CHANCE, TERMINAL
from ..runtime.readers import piece_names_now, slot_name
from ..runtime.templates import value_text
from ..runtime.values import decode, is_number
from ..spec import load_spec, resolve_spec_path
from .cmdutil import seed_problem

SCENARIO_SCHEMA = "scenario.schema.json"


@dataclass
class Result:
    """The outcome of one scenario."""
    file: str
    id: str
    passed: bool
    message: str = ""
    pos: Pos = NOWHERE

    def __str__(self) -> str:
        mark = "ok  " if self.passed else "FAIL"
        text = f"{mark} {self.file}::{self.id}"
        if not self.passed:
            text += f"\n     {self.pos}: {self.message}"
        return text


class ScenarioFailure(Exception):
    def __init__(self, message: str, pos: Pos):
        super().__init__(message)
        self.message, self.pos = message, pos


def find_scenario_files(paths) -> list:
    """Scenario files under the given paths: *.test.yaml, or any YAML in a tests/ folder."""
    out = []
    for p in map(Path, paths):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            for f in sorted(p.rglob("*.yaml")):
                if f.name.endswith(".test.yaml") or f.parent.name == "tests":
                    out.append(f)
        elif os.path.lexists(p):
            check_input(p, "scenario file")   # a FIFO, a device, a link loop: say so
        else:
            fail(f"no such file or folder: {p}")
    return out


def run_file(path, strict: bool = False) -> list:
    """Run a scenario file. strict (tabula test --strict): scenarios play strictly
    unless they (or the file) say strict: false; else as the file's and scenario's
    strict: keys say (Spec.game(strict=True))."""
    path = Path(path)
    doc = load_yaml(path, "scenario file")
    check_schema(doc, SCENARIO_SCHEMA)
    where = doc.where("spec")
    try:
        spec_path = (path.parent / str(doc["spec"])).resolve()
    except (OSError, RuntimeError, ValueError):
        fail(f"cannot follow the path of the spec {excerpt(str(doc['spec']), 120)}: a "
             "symbolic link loop or a name the system refuses", where)
    if not os.path.lexists(spec_path):
        fail(f"the spec {doc['spec']} does not exist (relative to {path.parent})", where)
    if spec_path.is_dir():
        try:
            spec_path = resolve_spec_path(spec_path)
        except SpecError as exc:
            fail(exc.message, where, exc.hint)
    check_input(spec_path, "spec", where)       # a FIFO, a device: refused, not opened
    spec = load_spec(spec_path, where)
    results = []
    file_strict = bool(doc.get("strict", strict))
    for sc in doc["scenarios"]:
        sid = str(sc["id"])
        try:
            run_scenario(spec, sc, bool(sc.get("strict", file_strict)))
            results.append(Result(str(path), sid, True))
        except ScenarioFailure as f:
            results.append(Result(str(path), sid, False, f.message, f.pos))
        except TabulaError as e:
            pos = getattr(e, "pos", None) or sc.pos
            results.append(Result(str(path), sid, False, getattr(e, "message", str(e)), pos))
    return results


def run_scenario(spec, sc: LMap, strict: bool = False) -> State | None:
    """Build the scenario's state, make its decisions, check what it expects. A scenario
    that expects an error passes when building the game or making a decision fails with
    that error (an option refused for this player count, an illegal action, ...)."""
    expect = sc.get("expect", LMap())
    want_error = expect.get("error")
    try:
        st = _play(spec, sc, want_error is not None, strict)
    except TabulaError as e:
        if want_error is not None and str(want_error) in str(e):
            return None
        if want_error is not None:
            raise ScenarioFailure(f"expected an error with '{want_error}', got: "
                                  f"{getattr(e, 'message', str(e))}",
                                  expect.where("error")) from None
        raise
    if want_error is not None:
        raise ScenarioFailure(f"expected an error with '{want_error}', but all went well",
                              expect.where("error"))
    check_expectations(st, expect)
    return st


def _play(spec, sc: LMap, error_expected: bool, strict: bool = False) -> State:
    players = int(sc.get("players", spec.player_range[0]))
    options = {str(k): plain(v) for k, v in sc.get("options", {}).items()}
    game = spec.game(players, options, strict=strict)
    seed = sc.get("seed", 0)
    why = seed_problem(seed)
    if why is not None:            # the seeds a log or the command line takes (cmdutil)
        raise ScenarioFailure(f"seed: {why}", sc.where("seed"))
    st = build_position(game, sc["given"], seed) if "given" in sc else game.new_state(seed=seed)
    steps = sc.get("do", [])
    for i, step in enumerate(steps):
        where = steps.where(i)
        if isinstance(step, dict) and "joint" in step:
            _joint(st, step["joint"], where, error_expected)
            continue
        text = str(step["action"] if isinstance(step, dict) else step)
        if isinstance(step, dict) and "player" in step:
            want = step["player"]
            want_i = CHANCE if str(want) == "chance" else \
                _player(want, st.prog.players, _pos(step, "player", where), "player")
            if st.current_player() != want_i:
                raise ScenarioFailure(f"{_who(want_i)} was to act, but it is "
                                      f"{_who(st.current_player())}'s decision", where)
        legal = st.legal_action_strings()
        if text not in legal:
            if error_expected:
                raise TabulaError(f"'{text}' is not a legal action here")
            raise ScenarioFailure(
                f"'{text}' is not legal here; legal: " + "; ".join(legal[:40]), where)
        st.apply_string(text)
    return st


def _joint(st: State, joint, where: Pos, error_expected: bool) -> None:
    """A joint move at a simultaneous decision: {player: action string, ...}."""
    if not st.is_simultaneous_node():
        raise ScenarioFailure(f"a joint move, but it is {_who(st.current_player())}'s "
                              "decision, not a simultaneous one", where)
    chosen = {}
    if not isinstance(joint, dict):
        raise ScenarioFailure("joint: give a map from player number to action string", where)
    for who, text, _, k in _per_player(joint, st.prog.players, where, "joint"):
        text = str(text)
        found = [a for a in st.legal_actions(who) if st.action_to_string(a, who) == text]
        if not found:
            legal = st.legal_action_strings(who)
            if error_expected:
                raise TabulaError(f"'{text}' is not a legal action of player {who} here")
            raise ScenarioFailure(f"'{text}' is not legal for player {who} here; legal: "
                                  + "; ".join(legal[:40]), joint.where(k))
        chosen[who] = found[0]
    missing = [p for p in st.choosers() if p not in chosen]
    if missing:
        raise ScenarioFailure(f"players {missing} choose at this decision too", where)
    st.apply_actions(chosen)


def _who(p: int) -> str:
    return {CHANCE: "chance", TERMINAL: "nobody (the game is over)"}.get(p, f"player {p}")


def _key_pos(table, k, default: Pos) -> Pos:
    """Where a key of a scenario's map is written (the key itself, else its value)."""
    for name in ("where_key", "where"):
        if hasattr(table, name):
            try:
                return getattr(table, name)(k)
            except (KeyError, TypeError, AttributeError):
                pass
    return default


def _player(k, players: int, where: Pos, what: str) -> int:
    """A player key of a scenario (a seat number, 0 to players - 1; "2" as 2), checked:
    anything else (null, a map, true, a name, 99) is a ScenarioFailure at `where`."""
    n = k
    if isinstance(k, str) and k.strip().isdecimal() and len(k.strip()) <= 18:
        n = int(k.strip())      # "2" as 2; never int() of "²" or of 5,000 digits
    if type(n) is not int or not 0 <= n < players:
        shown = "null" if k is None else str(k) if type(k) is int else _shown_value(k)
        raise ScenarioFailure(f"{what}: {shown} is not a player of this game (a player number "
                              f"0 to {players - 1})", where)
    return n


def _per_player(table, players: int, where: Pos, what: str) -> list:
    """A per-player table of a scenario ({player: value, ...}), checked: [(player, value,
    position of the value, the key as written), ...]; not a map, or a key that is not a
    player, is a ScenarioFailure."""
    if not isinstance(table, dict):
        raise ScenarioFailure(f"{what} is per player: give a map from player number (0 to "
                              f"{players - 1}) to a value, not {_shown_value(table)}",
                              where)
    out = []
    for k, v in table.items():
        at = _key_pos(table, k, where)
        out.append((_player(k, players, at, what), v, _pos(table, k, at), k))
    return out


def _shown_value(x) -> str:
    text = "null" if x is None else repr(str(x)) if isinstance(x, str) else repr(plain(x))
    return text if len(text) <= 40 else text[:37] + "..."


# ---- building a position ---------------------------------------------------------------

def build_position(game: Game, given: LMap, seed: int) -> State:
    if "after" in given:
        return _after_setup(game, given, seed)
    prog = game.prog
    st = game.blank_state(seed)
    free: dict = {}
    for pid, name in enumerate(prog.piece_names):
        free.setdefault(name, []).append(pid)
    placed = []
    zones = given.get("zones", LMap())
    listed_slots = set()
    for zname, content in zones.items():
        for slot, names, where in _slots_of(prog, str(zname), content, zones.where(zname)):
            listed_slots.add(slot)
            pieces = []
            for j, n in enumerate(names):
                pieces.append(_take(st, free, n, _pos(names, j, where)))
            placed.append((slot, pieces, where))
    aside = _rest_slot(prog, given)
    st.slots = [[] for _ in range(prog.nslots)]
    st.where = [-1] * len(prog.piece_names)
    for slot, pieces, _ in placed:
        st.slots[slot].extend(pieces)
        for p in pieces:
            st.where[p] = slot
    # pieces not named go home, under what was listed there; with rest:, those whose
    # home is listed go there instead
    rest: dict = {}
    for pids in free.values():
        for pid in pids:
            home = prog.piece_home[pid]
            if aside is not None and home in listed_slots:
                home = aside
            rest.setdefault(home, []).append(pid)
    for slot, pids in rest.items():
        pids.sort()
        st.slots[slot][:0] = pids
        for p in pids:
            st.where[p] = slot
    for slot in prog.heaps:          # an unordered zone keeps its pieces in piece order
        st.slots[slot].sort()
    _check_emptied(st, placed, given)
    for slot, where in [(s, w) for s, _, w in placed] + \
            ([(aside, given.where("rest"))] if aside is not None else []):
        cap = prog.slot_cap[slot]
        if cap is not None and len(st.slots[slot]) > cap:
            raise ScenarioFailure(f"{slot_name(prog, slot)} holds at most {cap} pieces", where)
    _set_variables(st, given.get("variables", LMap()))
    _set_current(st, given)
    game.start_play(st, setup=str(given.get("start", "play")) == "setup")
    return st


def _rest_slot(prog, given: LMap) -> int | None:
    """given: rest: the zone (of one slot, not per player) that takes the pieces whose
    home zone is listed and that no zone lists, instead of their home; None without it."""
    if "rest" not in given:
        return None
    name, where = given["rest"], given.where("rest")
    z = prog.zones.get(str(name)) if isinstance(name, str) else None
    if z is None:
        hint = did_you_mean(str(name), prog.zones) if isinstance(name, str) else ""
        raise ScenarioFailure(f"rest: {_shown_value(name)} is not a zone of this game"
                              + (f" ({hint})" if hint else ""), where)
    if z.per_player or z.nslots != 1:
        what = "one zone per player" if z.per_player else f"a zone of {z.nslots} slots"
        raise ScenarioFailure(f"rest: '{name}' is {what}: name a zone of one slot (a box, "
                              "a discard pile) for the pieces no zone lists", where)
    return z.slot(0, 0)


def _check_emptied(st: State, placed: list, given: LMap) -> None:
    """A slot given empty holds nothing once the position is built: the pieces whose
    home it is and that no zone lists would stay in it, so they need a `rest:` zone (or
    a place in the listing). A located failure otherwise."""
    prog = st.prog
    for slot, pieces, where in placed:
        if pieces or not st.slots[slot]:
            continue
        n = len(st.slots[slot])
        why = ("it is the zone rest: names" if "rest" in given and
               _rest_slot(prog, given) == slot else
               f"{n} piece{'s' if n > 1 else ''} whose home it is ("
               f"{', '.join(sorted(set(piece_names_now(st)[q] for q in st.slots[slot])))})"
               " no zone lists")
        raise ScenarioFailure(
            f"{slot_name(prog, slot)} is given empty, but {why}: give `rest: ZONE` beside "
            "zones: (a zone of one slot, such as a box, that takes the pieces no zone "
            "lists instead of their home), or list them in another zone", where)


def _set_current(st: State, given: LMap) -> None:
    """given: current: who acts; also where the turns begin (the first `turns` loop
    starts with them)."""
    if "current" in given:
        who, players = given["current"], st.prog.players
        if type(who) is not int or not 0 <= who < players:
            raise ScenarioFailure(f"current: a player of this game is 0 to {players - 1}, "
                                  f"not {who!r}", given.where("current"))
        st.current = st.to_act = who


# ---- a position after the set-up, or after one of its steps -----------------------------

MAX_SETUP_CHANCE = 100_000     # chance decisions a set-up may draw before a scenario's stop


def _after_setup(game: Game, given: LMap, seed: int) -> State:
    """given: after: the set-up run (its chance drawn from the seed) up to the end of the
    step named (Game.new_state(until=...)), the differences applied there, then the game
    goes on from that point (Game.go_on)."""
    after, at = str(given["after"]), given.where("after")
    if "start" in given:
        raise ScenarioFailure("after: runs the set-up already: start: does not go with it",
                              given.where_key("start"))
    ids = list(game.prog.stops)
    if after != "setup" and after not in ids:
        hint = did_you_mean(after, ids + ["setup"])
        raise ScenarioFailure(
            f"after: '{after}' is not a step of the set-up; write setup (after the whole "
            f"set-up) or the id of one of its steps" + (f" ({', '.join(ids)})" if ids else
                                                        " (it has no step with an id)")
            + (f"; {hint}" if hint else ""), at)
    st = game.new_state(seed, until=after)
    chance = chance_rng(seed)
    for _ in range(MAX_SETUP_CHANCE):
        if st.stopped():
            break
        if st.is_terminal():
            raise ScenarioFailure(f"the game ended before the set-up reached the end of "
                                  f"'{after}'", at)
        if st.is_chance_node():
            st.apply(st.sample_chance(chance))
            continue
        who = st.current_player()
        legal = st.legal_action_strings(st.choosers()[0] if st.choosers() else None)
        raise ScenarioFailure(
            f"before the end of '{after}' the set-up asks {_who(who)} to decide ("
            + "; ".join(legal[:5]) + ("; ..." if len(legal) > 5 else "")
            + "): after: draws the set-up's chance from the seed, but makes no player's "
            "decision; name an earlier step and make the decisions in do:", at)
    else:
        raise ScenarioFailure(f"the set-up drew more than {MAX_SETUP_CHANCE} chance "
                              f"decisions before the end of '{after}'", at)
    _rearrange(st, given.get("zones", LMap()), given)
    _set_variables(st, given.get("variables", LMap()))
    _set_current(st, given)
    game.go_on(st)                     # the position was set by hand: on to a decision
    return st


def _rearrange(st: State, zones: LMap, given: LMap) -> None:
    """given: zones: applied to a position the set-up made. Each slot listed holds what
    is listed, bottom to top; a piece is taken, by its name, first from that slot itself,
    then from what the other listed slots no longer hold, then from the pieces at home
    (in the zone their component names), then from any other zone not listed (the top
    first). What a listed slot held and no slot lists goes home, under what is there (with
    `rest:`, to that zone when its home is listed)."""
    prog = st.prog
    listed = [(slot, items, where) for zname, content in zones.items()
              for slot, items, where in _slots_of(prog, str(zname), content,
                                                  zones.where(zname))]
    slots_listed = {slot for slot, _, _ in listed}
    now = piece_names_now(st)
    chosen: dict = {}
    used: set = set()
    for li, (slot, items, _) in enumerate(listed):      # first: what lies there already
        for j, item in enumerate(items):
            name = _wanted(item)
            name = name[0] if isinstance(name, tuple) else name
            q = next((q for q in st.slots[slot] if q not in used and now[q] == name), None)
            if q is not None:
                chosen[li, j] = q
                used.add(q)
    order = [q for slot in dict.fromkeys(s for s, _, _ in listed)
             for q in reversed(st.slots[slot]) if q not in used]
    rest = [q for s in range(prog.nslots) if s not in slots_listed
            for q in reversed(st.slots[s])]
    order += [q for q in rest if st.where[q] == prog.piece_home[q]]
    order += [q for q in rest if st.where[q] != prog.piece_home[q]]
    rank = {q: i for i, q in enumerate(order)}
    free: dict = {}
    for q in order:
        free.setdefault(prog.piece_names[q], []).append(q)
    placed = []
    for li, (slot, items, where) in enumerate(listed):
        pieces = []
        for j, item in enumerate(items):
            pos = _pos(items, j, where)
            q = chosen.get((li, j))
            if q is not None:
                pieces.append(_take(st, free, item, pos, pid=q))
                continue
            q = _take(st, free, item, pos, rank=rank)
            for pids in free.values():        # taken by its shown name: not free any more
                if q in pids:
                    pids.remove(q)
            pieces.append(q)
        placed.append((slot, pieces, where))
    taken = {q for _, pieces, _ in placed for q in pieces}
    old = st.slots
    st.slots = [[] if s in slots_listed else [q for q in pieces if q not in taken]
                for s, pieces in enumerate(old)]
    for slot, pieces, _ in placed:
        st.slots[slot].extend(pieces)
    aside = _rest_slot(prog, given)
    home: dict = {}
    for s in slots_listed:
        for q in old[s]:
            if q not in taken:
                to = prog.piece_home[q]
                if aside is not None and to in slots_listed:
                    to = aside
                home.setdefault(to, []).append(q)
    for s, pids in home.items():
        st.slots[s][:0] = sorted(pids)
    for s in prog.heaps:
        st.slots[s].sort()
    for s, pieces in enumerate(st.slots):
        for q in pieces:
            st.where[q] = s
    _check_emptied(st, placed, given)
    for slot, where in [(s, w) for s, _, w in placed] + [(s, NOWHERE) for s in home]:
        cap = prog.slot_cap[slot]
        if cap is not None and len(st.slots[slot]) > cap:
            where = given.where("rest") if slot == aside else where
            raise ScenarioFailure(f"{slot_name(prog, slot)} holds at most {cap} pieces",
                                  where if where is not NOWHERE else zones.pos)


def _take(st: State, free: dict, item, pos: Pos, pid: int | None = None,
          rank: dict | None = None) -> int:
    """A free piece for a name of `given` (or {piece: NAME, attributes: {...}}): one
    named so; else one whose name shows a changeable attribute and can read so, that
    attribute set to what the name says. The attributes given are set too. `pid`: the
    piece, chosen already (seen under that name); `rank`: piece -> preference, lowest
    first (else the lowest piece)."""
    prog = st.prog
    attrs = {}
    if isinstance(item, dict):
        if "piece" not in item:
            raise ScenarioFailure("a piece given as a mapping needs piece: (its name)", pos)
        attrs = item.get("attributes", {}) or {}
        n = str(item["piece"])
    else:
        n = str(item)
    if pid is not None:
        pass
    elif free.get(n):
        pid = free[n].pop(0)
    else:
        found = _shown_as(prog, free, n, rank)
        if found is None:
            if n not in free:
                raise ScenarioFailure(f"no piece is named '{n}'", pos)
            raise ScenarioFailure(f"no piece named '{n}' is left to place", pos)
        pid, shown = found
        free[prog.piece_names[pid]].remove(pid)
        for a, v in shown.items():
            st.pa[prog.changeable.index(a)][pid] = v
    for a, v in attrs.items():
        a = str(a)
        if a not in prog.changeable or not prog.changeable_by[a][pid]:
            raise ScenarioFailure(f"'{n}' cannot be given its {a}: its component does not "
                                  "declare it changeable", attrs.where_key(a)
                                  if hasattr(attrs, "where_key") else pos)
        value = _value(st, v, prog.attr_types[a])
        if not _fits(prog, a, value):
            raise ScenarioFailure(f"'{v}' is not a value of {a} (as its component gives it: "
                                  f"{prog.piece_attrs[a][pid]!r})", attrs.where(a)
                                  if hasattr(attrs, "where") else pos)
        st.pa[prog.changeable.index(a)][pid] = value
    shown_now = piece_names_now(st)[pid]
    if attrs and shown_now != n:
        raise ScenarioFailure(f"with these attributes, the piece is named '{shown_now}', "
                              f"not '{n}'", pos)
    return pid


def _wanted(item):
    """A piece as an expectation names it: its name, or (name, attributes)."""
    if isinstance(item, dict):
        return (str(item.get("piece")),
                {str(a): plain(v) for a, v in (item.get("attributes") or {}).items()})
    return str(item)


def _seen(st: State, names, pid: int, like):
    """Piece pid as it is now (names: piece_names_now), in the shape of the expectation
    `like`."""
    name = names[pid]
    if isinstance(like, str):
        return name
    prog = st.prog
    values = {}
    for a in like[1]:
        if a in prog.changeable:
            values[a] = st.pa[prog.changeable.index(a)][pid]
        else:
            values[a] = prog.piece_attrs.get(a, (None,) * (pid + 1))[pid]
    return name, values


def _fits(prog, attr: str, value) -> bool:
    """Can a changeable attribute hold this value (its type: its initial value's)?"""
    typ = prog.attr_types[attr]
    if value is None or typ == T.ANY:
        return True
    if typ[0] == "enum":
        return value in prog.enums[typ[1]]
    return T.compatible(typ, T.type_of_value(value))


def _shown_as(prog, free: dict, name: str, rank: dict | None = None):
    """The free piece (the first, or the first by `rank`) whose name template, with its
    changeable attributes set, reads `name`: (piece, {attribute: value}), or None."""
    tried = set()
    for namer in prog.piece_namer:
        if namer is None or id(namer) in tried:
            continue
        tried.add(id(namer))
        values = _read_name(prog, namer, name)
        if values is None:
            continue
        pid = min((q for pids in free.values() for q in pids if prog.piece_namer[q] is namer),
                  default=None, key=None if rank is None else rank.__getitem__)
        if pid is not None:
            return pid, values
    return None


def _read_name(prog, namer, name: str):
    """The changeable attributes' values that make `namer` give `name`, or None."""
    pattern, fields = "", []
    shown = dict(namer.rows)
    try:
        for literal, field, spec, conv in string.Formatter().parse(namer.template):
            pattern += re.escape(literal)
            if field is None:
                continue
            if field in shown:
                if field in fields:             # shown twice: the same text twice
                    pattern += f"(?P=f{fields.index(field)})"
                else:
                    pattern += f"(?P<f{len(fields)}>.+?)"
                    fields.append(field)
            else:
                pattern += re.escape(("{" + field + (f"!{conv}" if conv else "")
                                      + (f":{spec}" if spec else "") + "}").format(**namer.fixed))
        m = re.fullmatch(pattern, name)
    except (KeyError, IndexError, ValueError, AttributeError):  # a field it cannot read
        return None
    if m is None:
        return None
    values = {}
    for i, field in enumerate(fields):
        text = m.group(f"f{i}")
        typ = prog.attr_types[field]
        if typ == T.INT:
            if not re.fullmatch(r"-?[0-9]{1,4000}", text):    # int() refuses 4,300 digits
                return None
            value = int(text)
        elif typ == T.BOOL:
            if text not in ("True", "False"):
                return None
            value = text == "True"
        else:
            value = text
        if not _fits(prog, field, value):
            return None
        values[field] = value
    trial = {**namer.fixed, **values}       # the values give back the name (formats)
    try:
        return values if namer.template.format(**trial) == name else None
    except (KeyError, IndexError, ValueError, TypeError):
        return None


def _pos(container, i, default):
    return container.where(i) if hasattr(container, "where") else default


def _slots_of(prog, zname: str, content, where: Pos):
    """(slot index, list of names, position) for each slot a `zones:` entry fills."""
    z = prog.zones.get(zname)
    if z is None:
        raise ScenarioFailure(f"unknown zone '{zname}'", where) if not prog.zones else \
            SpecError(f"unknown zone '{zname}'", where, did_you_mean(zname, prog.zones))
    owners = [None]
    if z.per_player:
        if not isinstance(content, dict):
            raise ScenarioFailure(f"'{zname}' belongs to each player: give a map from player "
                                  "number to its contents", where)
        owners = [(o, v, pos) for o, v, pos, _ in
                  _per_player(content, prog.players, where, f"'{zname}'")]
    else:
        owners = [(0, content, where)]
    for o, value, pos in owners:
        if isinstance(value, dict) and "map" in value:
            for i, names, cell_pos in _map_slots(z, value, pos):
                yield z.slot(o, i), names, cell_pos
            continue
        if z.nslots == 1:
            if not isinstance(value, list):
                raise ScenarioFailure("give a list of piece names (bottom to top)", pos)
            yield z.slot(o, 0), value, pos
        elif isinstance(value, dict):        # some slots by number: {23: [...], 0: [...]}
            for i, names in value.items():
                at = value.where(i) if hasattr(value, "where") else pos
                if type(i) is not int or not 0 <= i < z.nslots:
                    raise ScenarioFailure(f"'{zname}' has slots 0 to {z.nslots - 1}: a key "
                                          f"here is one of them, not {i!r}",
                                          value.where_key(i) if hasattr(value, "where_key")
                                          else pos)
                if not isinstance(names, list):
                    raise ScenarioFailure("give a list of piece names (bottom to top)", at)
                yield z.slot(o, i), names, at
        else:
            if not isinstance(value, list) or len(value) > z.nslots or \
                    not all(isinstance(c, list) for c in value):
                raise ScenarioFailure(f"'{zname}' has {z.nslots} slots: give a list of up to "
                                      f"{z.nslots} lists of piece names, or a map from "
                                      "slot number to a list", pos)
            for i, names in enumerate(value):
                yield z.slot(o, i), names, value.where(i) if hasattr(value, "where") else pos


def _map_slots(z, value, pos: Pos):
    """(slot index, piece names, position) for each slot of a zone drawn as a map.

    `map` is one line per row of the zone (a grid: its height; another zone of several
    slots: one line), each line one token per slot: a line holding spaces is split at
    them (tokens of any length), otherwise each character is a token. `legend` maps a
    token to a piece name, a list of names (bottom to top) or nothing ("" or []); "." is
    an empty slot unless the legend says otherwise."""
    if z.nslots == 1:
        raise ScenarioFailure(f"'{z.name}' has one slot: give a list of piece names, "
                              "not a map", pos)
    text = value["map"]
    legend = value.get("legend", {})
    if not isinstance(text, str) or not isinstance(legend, dict):
        raise ScenarioFailure("a map is text (one line per row) with a legend: a mapping "
                              "from each token to piece names", pos)
    width = z.width if z.height > 1 else z.nslots
    height = z.nslots // width
    rows = []
    offset = 0
    for line in text.split("\n"):
        start = offset
        offset += len(line) + 1
        if line.strip():
            rows.append((line, start))
    if len(rows) != height:
        raise ScenarioFailure(f"the map of '{z.name}' has {len(rows)} rows; the zone has "
                              f"{height}", _text_pos(text, 0, pos))
    for y, (line, start) in enumerate(rows):
        if any(c.isspace() for c in line.strip()):
            tokens = [(m.group(), start + m.start()) for m in re.finditer(r"\S+", line)]
        else:
            lead = len(line) - len(line.lstrip())
            tokens = [(c, start + lead + k) for k, c in enumerate(line.strip())]
        if len(tokens) != width:
            raise ScenarioFailure(f"row {y} of the map of '{z.name}' has {len(tokens)} "
                                  f"slots; the zone is {width} wide",
                                  _text_pos(text, start, pos))
        for x, (token, at) in enumerate(tokens):
            if token in legend:
                names = legend[token]
            elif token == ".":
                names = []
            else:
                raise ScenarioFailure(f"'{token}' is not in the map's legend",
                                      _text_pos(text, at, pos))
            if names is None or names == "":
                names = []
            elif isinstance(names, (str, dict)):
                names = [names]
            elif not isinstance(names, list):
                raise ScenarioFailure(f"the legend gives '{token}' as a piece name or a "
                                      "list of names", legend.where(token)
                                      if hasattr(legend, "where") else pos)
            yield y * width + x, names, _text_pos(text, at, pos)


def _text_pos(text, offset: int, default: Pos) -> Pos:
    return text.pos_at(offset) if hasattr(text, "pos_at") else default


def _value(st: State, value, typ):
    """A variable's value in a scenario: as written, or, for a variable that holds a
    player, a piece or a cell, rule text evaluated in the position (`board[5, 4]`)."""
    if isinstance(value, str) and typ[0] in ("slot", "piece", "player"):
        return st.prog.compile_expression(value)(st)
    if typ == T.NUM and isinstance(value, str):
        return _number(value, getattr(value, "pos", NOWHERE))
    return plain(value)


def _number(x, where):
    """A number of a scenario: an integer, or a fraction written as the text "7/3"."""
    if type(x) is int or (isinstance(x, str) and is_number(str(x))):
        return decode(x if type(x) is int else str(x))
    raise ScenarioFailure(f"{x!r} is not a number (an integer, or a fraction as '7/3')", where)


def _shown(numbers: list) -> str:
    """Numbers as a list is shown, a fraction as 7/3: [25, 7/3]."""
    return "[" + ", ".join(map(str, numbers)) + "]"


def _numbers(row, where) -> list:
    return [_number(x, row.where(i) if hasattr(row, "where") else where)
            for i, x in enumerate(row)]


def _set_variables(st: State, variables: LMap) -> None:
    """given: variables: each entry set to its value, checked against its type."""
    for flat, who, value, where, label in _variable_entries(st.prog, variables):
        typ = st.prog.var_types[flat]
        bound = st.prog.list_bounds.get(flat)
        if bound is not None and isinstance(value, list) and len(value) > bound:
            raise ScenarioFailure(f"{label}: {len(value)} items, beyond the variable's "
                                  f"max_length {bound}", where)
        if who is None:
            st.gv[st.prog.gvar_names.index(flat)] = _given_value(st, value, typ, where, label)
        else:
            st.pv[who][st.prog.pvar_names.index(flat)] = _given_value(st, value, typ, where,
                                                                      label)


# ---- variables: scalars, tables (NAME[key] in the state), lists ------------------------

_FLAT = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\[(.*)\]")


def _tables(prog) -> dict:
    """The table variables, from the names they are stored under (NAME[key], one
    variable per key, as observations show them): name -> (per player, {key text: the
    stored name})."""
    out: dict = {}
    for per, names in ((False, prog.gvar_names), (True, prog.pvar_names)):
        for flat in names:
            m = _FLAT.fullmatch(flat)
            if m:
                out.setdefault(m.group(1), (per, {}))[1][m.group(2)] = flat
    return out


def _variable_entries(prog, variables) -> list:
    """The entries of a given: or expect: variables map, checked: [(stored name, player
    or None, value as written, its position, how to name it)]. A variable is written by
    its name (per player: player -> value); a table by its name with a map key -> value
    (per player: player -> such a map), or one entry as NAME[key] (as observations show
    it); unknown names, keys that are not the table's and players that are not the
    game's are a ScenarioFailure where they are written."""
    if not isinstance(variables, dict):
        raise ScenarioFailure("variables: give a map from variable name to value, not "
                              f"{_shown_value(variables)}", getattr(variables, "pos", NOWHERE))
    tables = _tables(prog)
    out = []
    for name, value in variables.items():
        at_key, at = _key_pos(variables, name, NOWHERE), _pos(variables, name, NOWHERE)
        name = str(name)
        if name in prog.gvar_names:
            out.append((name, None, value, at, name))
        elif name in prog.pvar_names:
            for k, v, pos, _ in _per_player(value, prog.players, at, f"'{name}'"):
                out.append((name, k, v, pos, f"{name} of player {k}"))
        elif name in tables:
            per, keys = tables[name]
            if not per:
                out += [(flat, None, v, pos, flat)
                        for flat, v, pos in _table_entries(name, keys, value, at)]
                continue
            for k, row, pos, _ in _per_player(value, prog.players, at, f"'{name}'"):
                out += [(flat, k, v, vpos, f"{flat} of player {k}")
                        for flat, v, vpos in _table_entries(name, keys, row, pos, k)]
        else:
            known = list(prog.gvar_names) + list(prog.pvar_names) + list(tables)
            hint = did_you_mean(name, known)
            raise ScenarioFailure(f"unknown variable '{name}'" + (f" ({hint})" if hint else ""),
                                  at_key)
    return out


def _table_entries(name: str, keys: dict, table, where: Pos, player=None) -> list:
    """[(stored name, value, position)] of a table written as a map key -> value."""
    whose = "" if player is None else f" of player {player}"
    if not isinstance(table, dict):
        sample = next(iter(keys))
        raise ScenarioFailure(f"'{name}'{whose} is a table: give a map from key to value "
                              f"({{{sample}: ...}}; its keys: {', '.join(keys)}), not "
                              f"{_shown_value(table)}", where)
    out = []
    for k, v in table.items():
        at = _key_pos(table, k, where)
        text = None if k is None or isinstance(k, (bool, list, dict)) else str(plain(k))
        if text not in keys:
            numbers = all(re.fullmatch(r"-?[0-9]+", x) for x in keys)
            kind = " is keyed by numbers:" if numbers and text is not None \
                and not re.fullmatch(r"-?[0-9]+", text) else ":" if text is not None \
                else " is keyed by names and numbers:"
            hint = did_you_mean(text or "", keys) if text is not None else ""
            raise ScenarioFailure(f"'{name}'{whose}{kind} {_shown_value(plain(k))} is not one "
                                  f"of its keys ({', '.join(keys)})"
                                  + (f"; {hint}" if hint else ""), at)
        out.append((keys[text], v, _pos(table, k, at)))
    return out


def _given_value(st: State, value, typ, where: Pos, label: str):
    """A variable's value as a scenario writes it, checked against the variable's type: a
    number (a fraction as the text '7/3' where the type is number), a condition, a text,
    an enum's value; a player as its number; a player, piece or cell as rule text
    evaluated in the position (top(deck), board[5, 4]), a piece also by its name when one
    piece alone has it; a list as a list of such values, or rule text giving the list.
    null is none. A value of another type is a ScenarioFailure at `where`."""
    prog = st.prog
    kind = typ[0]
    if value is None or kind == "any":
        return plain(value)
    if kind == "list":
        if isinstance(value, str):
            got = _evaluated(st, value)
            if not isinstance(got, (list, tuple)):
                raise ScenarioFailure(f"{label} holds {_describe(typ)}; the rule text "
                                      f"{_shown_value(value)} gives {_shown_value(got)}", where)
            return list(got)
        if not isinstance(value, list):
            raise ScenarioFailure(f"{label} holds {_describe(typ)}: give a list, or rule "
                                  f"text that computes one, not {_shown_value(value)}", where)
        out: list = []
        for i, x in enumerate(value):
            at = _pos(value, i, where)
            if typ[1][0] == "piece" and isinstance(x, str):   # names: distinct pieces
                named = [q for q, n in enumerate(piece_names_now(st)) if n == x and q not in out]
                if named:
                    out.append(named[0])
                    continue
                if x in piece_names_now(st):
                    raise ScenarioFailure(f"no piece named '{x}' is left for {label}", at)
            out.append(_given_value(st, x, typ[1], at, f"{label}[{i}]"))
        return out
    if kind == "piece" and isinstance(value, str):
        named = [i for i, n in enumerate(piece_names_now(st)) if n == value]
        if named:           # by its name: the first piece of that name
            return named[0]
    if kind in ("slot", "zone", "piece", "player") and isinstance(value, str):
        try:
            got = _evaluated(st, value)
        except SpecError as exc:
            if kind != "piece":
                raise
            names = sorted(set(piece_names_now(st)))
            hint = did_you_mean(str(value), names)
            raise ScenarioFailure(f"{label}: no piece is named {_shown_value(value)}"
                                  + (f" ({hint})" if hint else "") + "; read as rule text, "
                                  + exc.message, where) from None
        limit = {"piece": len(prog.piece_names), "player": prog.players}.get(kind, prog.nslots)
        if got is not None and (type(got) is not int or not 0 <= got < limit):
            raise ScenarioFailure(f"{label} holds {_describe(typ)}; the rule text "
                                  f"{_shown_value(value)} gives {_shown_value(got)}", where)
        return got
    if kind == "player" and type(value) is int:
        return _player(value, prog.players, where, label)
    if kind == "num" and (type(value) is int or isinstance(value, str)):
        try:
            return _number(value, where)
        except ScenarioFailure:
            pass
    elif (kind == "int" and type(value) is int) or (kind == "bool" and type(value) is bool) \
            or (kind == "str" and isinstance(value, str)):
        return plain(value)
    elif kind == "enum" and isinstance(value, str) and str(value) in prog.enums.get(typ[1], ()):
        return str(value)
    what = _describe(typ)
    if kind == "enum":
        what += f" (one of {', '.join(prog.enums.get(typ[1], ()))})"
    elif kind == "num":
        what += " (a fraction as the text '7/3')"
    elif kind in ("slot", "zone", "piece", "player"):
        what += " (rule text evaluated in the position" + \
            (", or a player's number)" if kind == "player" else ")")
    raise ScenarioFailure(f"{label} holds {what}, not {_shown_value(value)}", where)


def _describe(typ) -> str:
    """A variable's type in words."""
    if typ[0] == "list":
        return f"a list ({_describe(typ[1])} each)"
    return {"int": "a whole number", "num": "a number"}.get(typ[0]) or T.describe(typ)


def _evaluated(st: State, text):
    """Rule text of a scenario evaluated in the position (a located error if it is wrong)."""
    return st.prog.compile_expression(text)(st)


def _expect_value(st: State, got, value, typ, where: Pos, label: str) -> None:
    """expect: one variable's value; a piece may be expected by its name (as it is seen
    now), a list of pieces by their names."""
    names = piece_names_now(st)

    def seen(v, t):
        if v is None:
            return None
        if t[0] == "piece" and type(v) is int and 0 <= v < len(names):
            return names[v]
        if t[0] == "list" and isinstance(v, (list, tuple)):
            return [seen(x, t[1]) for x in v]
        if t[0] == "slot" and type(v) is int and 0 <= v < st.prog.nslots:
            return slot_name(st.prog, v)
        return v

    def by_name(v, t) -> bool:
        """The expectation names pieces: compare names."""
        if t[0] == "piece":
            return isinstance(v, str) and v in names
        return t[0] == "list" and isinstance(v, list) and len(v) > 0 \
            and all(by_name(x, t[1]) for x in v)

    if by_name(value, typ):
        want, found = plain(value), seen(got, typ)
    else:
        want = seen(_given_value(st, value, typ, where, label), typ)
        found = seen(got, typ)
    if isinstance(found, tuple):
        found = list(found)
    if found != want:
        raise ScenarioFailure(f"{label}: expected {_text(want)}, found {_text(found)}", where)


def _text(v) -> str:
    """A value as a scenario shows it: none, true, 7/3, [a, b]."""
    if isinstance(v, list):
        return "[" + ", ".join(map(_text, v)) + "]"
    return value_text(v)


# ---- expectations ------------------------------------------------------------------------

def check_expectations(st: State, expect: LMap) -> None:
    for key in ("legal", "legal_includes", "legal_excludes"):
        if key not in expect:
            continue
        if isinstance(expect[key], dict):       # per player: {0: [...], 1: [...]}
            for k, want, at, _ in _per_player(expect[key], st.prog.players,
                                              expect.where(key), key):
                if not isinstance(want, list):
                    raise ScenarioFailure(f"{key} of player {k}: give a list of action "
                                          f"strings, not {_shown_value(want)}", at)
                _check_legal(key, st.legal_action_strings(k), [str(x) for x in want],
                             at, f" of player {k}")
        else:
            _check_legal(key, st.legal_action_strings(), [str(x) for x in expect[key]],
                         expect.where(key))
    if "choosers" in expect:
        want = _players_listed(st, expect, "choosers")
        if st.choosers() != want:
            raise ScenarioFailure(f"expected players {want} to choose, but it is "
                                  f"{st.choosers()}", expect.where("choosers"))
    _check_table(st, expect)


def _players_listed(st: State, expect: LMap, key: str) -> list:
    """expect: choosers or winners, a list of players, each checked."""
    value, where = expect[key], expect.where(key)
    if not isinstance(value, list):
        raise ScenarioFailure(f"{key}: give a list of player numbers, not "
                              f"{_shown_value(value)}", where)
    return [_player(x, st.prog.players, _pos(value, i, where), key)
            for i, x in enumerate(value)]


def _check_legal(key: str, legal: list, want: list, where: Pos, whose: str = "") -> None:
    """expect: legal (exactly these), legal_includes or legal_excludes."""
    if key == "legal" and sorted(legal) != sorted(want):
        missing = [w for w in want if w not in legal]
        extra = [x for x in legal if x not in want]
        raise ScenarioFailure(f"legal actions{whose} differ; missing: {missing}; "
                              f"unexpected: {extra}", where)
    if key == "legal_includes":
        missing = [w for w in want if w not in legal]
        if missing:
            raise ScenarioFailure(f"not legal{whose}, but expected to be: {missing}; "
                                  f"legal: {legal}", where)
    if key == "legal_excludes":
        extra = [w for w in want if w in legal]
        if extra:
            raise ScenarioFailure(f"legal{whose}, but expected not to be: {extra}", where)


def _check_size(st: State, z, owner: int, want, where: Pos, label: str) -> None:
    """expect: sizes: of one zone (one player's, of a per-player zone): a number, the
    pieces in all its slots; a list, one number per slot; a map from slot number to a
    number, those slots only. Anything else is a failure where it is written."""
    def counted(n, at: Pos, what: str) -> int:
        if type(n) is not int or n < 0:
            raise ScenarioFailure(f"{what}: a number of pieces (0 or more), not "
                                  f"{_shown_value(n)}", at)
        return n

    slots = [z.slot(owner, i) for i in range(z.nslots)]
    if type(want) is int:
        n = counted(want, where, label)
        got = sum(len(st.slots[s]) for s in slots)
        if got != n:
            raise ScenarioFailure(f"{label}: expected {n} pieces, found {got}", where)
        return
    if z.nslots == 1:
        whose = f"'{label}' is one zone, not one per player, and has" if not z.per_player \
            else f"{label} has"
        raise ScenarioFailure(f"{whose} one slot: give its number of pieces, not "
                              f"{_shown_value(want)}", where)
    many = (f"a number of pieces, a list of one number per slot ({z.nslots} of them), or "
            f"a map from slot number (0 to {z.nslots - 1}) to a number")
    if isinstance(want, list):
        if len(want) != z.nslots:
            raise ScenarioFailure(f"{label} has {z.nslots} slots: the list gives {len(want)} "
                                  f"numbers; give {many}", where)
        rows = [(i, n, _pos(want, i, where)) for i, n in enumerate(want)]
    elif isinstance(want, dict):
        rows = []
        for i, n in want.items():
            if type(i) is not int or not 0 <= i < z.nslots:
                raise ScenarioFailure(f"{label} has slots 0 to {z.nslots - 1}: a key here is "
                                      f"one of them, not {_shown_value(i)}",
                                      _key_pos(want, i, where))
            rows.append((i, n, _pos(want, i, where)))
    else:
        raise ScenarioFailure(f"{label}: give {many}, not {_shown_value(want)}", where)
    for i, n, at in rows:
        name = f"{label}[{i}]"
        n = counted(n, at, name)
        got = len(st.slots[slots[i]])
        if got != n:
            raise ScenarioFailure(f"{name}: expected {n} pieces, found {got}", at)


def _check_table(st: State, expect: LMap) -> None:
    prog = st.prog
    now = piece_names_now(st)
    for zname, content in expect.get("zones", LMap()).items():
        z = prog.zones.get(str(zname))
        zwhere = expect["zones"].where(zname)
        for slot, names, where in _slots_of(prog, str(zname), content, zwhere):
            want = [_wanted(n) for n in names]
            shown = st.slots[slot]
            # shown as each is wanted
            if len(shown) == len(want) and z.kind != "set" and z.ordered:
                actual = [_seen(st, now, p, w) for p, w in zip(shown, want)]
            else:
                like = next((w for w in want if not isinstance(w, str)), "")
                actual = [_seen(st, now, p, like) for p in shown]
            same = sorted(actual, key=repr) == sorted(want, key=repr) \
                if z.kind == "set" or not z.ordered \
                else actual == want
            if not same:
                raise ScenarioFailure(f"{zname}: expected {want}, found {actual}", where)
    sizes = expect.get("sizes", LMap())
    for zname, size in sizes.items():
        where = sizes.where(zname)
        z = prog.zones.get(str(zname))
        if z is None:
            hint = did_you_mean(str(zname), prog.zones)
            raise ScenarioFailure(f"unknown zone '{zname}'" + (f" ({hint})" if hint else ""),
                                  _key_pos(sizes, zname, where))
        if not z.per_player:
            _check_size(st, z, 0, size, where, str(zname))
            continue
        if not isinstance(size, dict):
            raise ScenarioFailure(f"'{zname}' belongs to each player: give a map from player "
                                  f"number to its number of pieces ({{0: 3}}), not "
                                  f"{_shown_value(size)}", where)
        for k, n, at, _ in _per_player(size, prog.players, where, f"sizes of '{zname}'"):
            _check_size(st, z, k, n, at, f"{zname} of player {k}")
    for flat, who, value, where, label in _variable_entries(prog, expect.get("variables",
                                                                             LMap())):
        got = st.gv[prog.gvar_names.index(flat)] if who is None \
            else st.pv[who][prog.pvar_names.index(flat)]
        _expect_value(st, got, value, prog.var_types[flat], where, label)
    if "current" in expect:
        want = expect["current"]
        got = st.current_player()
        want_i = {"chance": CHANCE, "terminal": TERMINAL}.get(str(want))
        if want_i is None:
            want_i = _player(want, prog.players, expect.where("current"), "current")
        if got != want_i:
            raise ScenarioFailure(f"expected {_who(int(want_i))} to act, but it is {_who(got)}",
                                  expect.where("current"))
    if "terminal" in expect and st.is_terminal() != bool(expect["terminal"]):
        raise ScenarioFailure(f"expected the game {'over' if expect['terminal'] else 'going on'}"
                              f", but it is {'over' if st.is_terminal() else 'going on'}",
                              expect.where("terminal"))
    if "points" in expect:
        pts = st.points()
        for rid, row in expect["points"].items():
            where = expect["points"].where(rid)
            if str(rid) not in pts:
                raise ScenarioFailure(f"no scoring rule '{rid}'", where)
            if pts[str(rid)] != _numbers(row, where):
                raise ScenarioFailure(f"points for {rid}: expected {list(row)}, "
                                      f"found {_shown(pts[str(rid)])}", where)
    if "scores" in expect and st.scores() != _numbers(expect["scores"], expect.where("scores")):
        raise ScenarioFailure(f"scores: expected {list(expect['scores'])}, "
                              f"found {_shown(st.scores())}", expect.where("scores"))
    if "returns" in expect and st.returns() != _numbers(expect["returns"],
                                                        expect.where("returns")):
        raise ScenarioFailure(f"returns: expected {list(expect['returns'])}, "
                              f"found {_shown(st.returns())}", expect.where("returns"))
    if "winners" in expect and st.winners() != sorted(_players_listed(st, expect, "winners")):
        raise ScenarioFailure(f"winners: expected {list(expect['winners'])}, "
                              f"found {st.winners()}", expect.where("winners"))
