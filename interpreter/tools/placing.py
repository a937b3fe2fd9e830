"""Where a legal action has its place on the table: the containers and pieces it binds,
or the board cell it puts a piece on.

Input: a State, a seat and its legal actions. Output: `places` (for a page: tabula serve
outlines them, tools/serve.py), `placements` (the board cells of the actions that
place one piece: tabula play numbers them, tools/play.py) and `bindings` (the containers
and pieces they bind: tabula play draws the boards they touch in full). A place never
tells a seat what it may not know: a piece is named only where the seat sees it, and a
cell only when the action puts a piece there in a world redealt from what the seat
cannot see too.
"""

from __future__ import annotations

import random

from ..errors import TabulaError
from ..runtime.model import DONE, SKIP
from .textview import BOARDS

__all__ = ["MAX_TRIED", "bindings", "placements", "places"]


MAX_TRIED = 400     # legal actions tried on a copy to find where they put a piece


def places(st, seat) -> list:
    """For each legal action of `seat` (State.legal_actions order): (containers, pieces),
    its place on the table. The containers and pieces it binds, as the compiler recorded
    its bindings' domains (Alt.domains: a container binding its slot, a piece binding the
    piece, where the seat sees it); for an action that binds neither (a cell chosen by
    its number), the board cell `placements` finds (when there are at most MAX_TRIED
    actions)."""
    actions = st.legal_actions(seat)
    out = bindings(st, seat, actions)
    if len(actions) <= MAX_TRIED and any(not s and not p for s, p in out):
        rng = random.Random(f"tabula-places:{len(st.history)}")
        cells = placements(st, seat, actions, rng)
        for i, (s, p) in enumerate(out):
            if not s and not p and i in cells:
                s.append(cells[i][2])
    return out


def bindings(st, seat, actions: list) -> list:
    """For each of `actions`: (containers, pieces), the slots and the pieces it binds, as
    the compiler recorded its bindings' domains (a piece only where the seat sees it)."""
    prog = st.prog
    hidden = set(st.hidden_slots(seat)) if seat is not None else set()
    out = []
    for action in actions:
        slots: list = []
        pieces: list = []
        did, alt = action[0], action[1]
        if alt not in (SKIP, DONE) and 0 <= did < len(prog.decisions):
            alts = prog.decisions[did].alts
            domains = alts[alt].domains if 0 <= alt < len(alts) else ()
            for dom, v in zip(domains, action[2:]):
                kind = getattr(dom, "kind", "")
                if kind in ("container", "any container") and type(v) is int:
                    slots.append(v)
                elif kind == "piece" and type(v) is int and 0 <= v < len(st.where):
                    if st.where[v] >= 0 and st.where[v] not in hidden:
                        pieces.append(v)
        out.append((slots, pieces))
    return out


def placements(st, who: int, actions: list, rng: random.Random) -> dict:
    """{index into actions: (board zone's name, cell index, slot)}: the actions that place a
    piece on one cell of a board (grid or hex) the seat sees. An action is tried on a
    copy of the state: it places on a cell when, played up to the next decision, it
    puts a piece on that cell and on no other, without shuffling (a draw would be
    chance's, not the action's). When the seat cannot see some pieces it is tried on a
    world redealt from what the seat cannot see too (State.resample), and must place on
    the same cell there: a cell never tells what the seat may not know."""
    prog = st.prog
    hidden = set(st.hidden_slots(who))
    cells = [s for s in range(prog.nslots)
             if prog.zone_list[prog.slot_zone[s]].kind in BOARDS and s not in hidden]
    if not cells or st.is_simultaneous_node():
        return {}
    worlds = [st]
    if any(st.slots[s] for s in hidden):
        try:
            worlds.append(st.resample(who, rng))
        except TabulaError:
            return {}
    draws = [w.rng.getstate() for w in worlds]
    out = {}
    for i, a in enumerate(actions):
        found = set()
        for w, before in zip(worlds, draws):
            c = w.clone()
            try:
                c.apply(a)
            except TabulaError:
                found.add(None)
                break
            if c.rng.getstate() != before:
                found.add(None)
                break
            gained = [s for s in cells if c.slots[s] != w.slots[s]
                      and any(p not in w.slots[s] for p in c.slots[s])]
            found.add(gained[0] if len(gained) == 1 else None)
        if len(found) == 1 and None not in found:
            s = found.pop()
            z = prog.zone_list[prog.slot_zone[s]]
            out[i] = (z.name, prog.slot_index[s], s)
    return out
