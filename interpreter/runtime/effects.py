"""The primitive effects on a running state: moving, swapping and shuffling pieces.

Input: a State (interpreter/runtime/engine.py) and piece or slot indices. Output: the state,
changed in place. Compiled statements call these R_ functions by their names; they
keep `State.where` (the slot of every piece) true and enforce slot capacities. They leave
`State.facts` alone: the compiled statement drops, after the call, the facts its change
made stale (the tables its compiler knows read what it writes: docs/compiler.md).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import NOWHERE, Pos, RuleError, fail
from .frames import Frame
from .readers import slot_name, unordered
from .views import touch_piece as R_attribute_set  # noqa: F401  (a helper: HELPERS)
from .views import touch_slot, touch_slots

_new_frame = object.__new__


def shuffle_list(items: list[Any], random: Callable[[], float]) -> None:
    """Fisher-Yates driven by the state's generator: random() floats, so the result is
    the same on every machine for the same seed."""
    for i in range(len(items) - 1, 0, -1):
        j = int(random() * (i + 1))
        items[i], items[j] = items[j], items[i]


# ---- shuffles as chance draws (State.draws: the OpenSpiel adapter's chance_shuffles) -------
class Draw:
    """One draw of a shuffle in progress, as a chance decision: `pieces` are those the
    draw picks among (every piece of the shuffle not yet placed), `keys` what tells them
    apart (kind, and the changeable attributes as they are now: identical pieces are
    one outcome, as B_merge_kinds merges them), `into` the container's name."""

    __slots__ = ("pieces", "keys", "into")

    def __init__(self, pieces: list[int], keys: list[tuple[Any, ...]], into: str):
        self.pieces, self.keys, self.into = pieces, keys, into

    def outcomes(self) -> list[tuple[int, int]]:
        """[(piece, copies)]: one outcome per kind of piece left, named by its lowest
        piece number, with how many pieces it stands for (its weight), in piece order."""
        first: dict[tuple[Any, ...], int] = {}
        count: dict[tuple[Any, ...], int] = {}
        for p, k in zip(self.pieces, self.keys):
            if k not in first or p < first[k]:
                first[k] = p
            count[k] = count.get(k, 0) + 1
        return sorted((first[k], count[k]) for k in first)

    def after(self, piece: int) -> Draw | None:
        """The next draw once `piece` (an outcome) is drawn, or None when what is left is
        all of one kind (its order is no chance: nothing tells the pieces apart)."""
        i = self.pieces.index(piece)
        pieces = self.pieces[:i] + self.pieces[i + 1:]
        keys = self.keys[:i] + self.keys[i + 1:]
        return Draw(pieces, keys, self.into) if len(set(keys)) > 1 else None


class NeedDraw(Exception):      # (a signal to the driver, not an error)
    """Raised by a shuffle on a state whose draws come from a Tape that has run out: the
    driver (the OpenSpiel adapter) asks chance for the next piece (`draw`), then runs the
    same step again, from the state before it, with the longer tape. The state that
    raised it is half-changed and is thrown away."""

    def __init__(self, draw: Draw):
        super().__init__("a shuffle needs a chance draw")
        self.draw = draw


class Tape:
    """The chance draws of shuffles, given from outside (State.draws): each shuffle puts
    its pieces in place one at a time from the top (the last place) down, each piece the
    one the next entry names (an outcome of its Draw: the lowest-numbered piece of a
    kind); when the pieces left are all of one kind the shuffle is done, and when the
    tape runs out a shuffle raises NeedDraw."""

    __slots__ = ("entries", "at")

    def __init__(self, entries: Sequence[int] = ()):
        self.entries = list(entries)
        self.at = 0

    def shuffle(self, st: Any, items: list[Any], into: str) -> None:
        if None in items:
            return          # the move refuses a none (R_move_pieces), after this
        prog = st.prog
        kind, pa = prog.piece_kind, st.pa
        keys = [(kind[v], *[row[v] for row in pa]) for v in items]
        for i in range(len(items) - 1, 0, -1):
            if len(set(keys[:i + 1])) < 2:
                return
            if self.at >= len(self.entries):
                raise NeedDraw(Draw(items[:i + 1], keys[:i + 1], into))
            piece = self.entries[self.at]
            self.at += 1
            j = items.index(piece, 0, i + 1)    # a ValueError: a tape of another game
            items[i], items[j] = items[j], items[i]
            keys[i], keys[j] = keys[j], keys[i]


def shuffle_pieces(st: Any, items: list[Any], into: int) -> None:
    """Shuffle `items` (pieces, in place) going into slot `into`: with the state's
    generator, or, where the state takes its draws from a tape (State.draws), by it."""
    draws = st.draws
    if draws is None:
        shuffle_list(items, st.rng.random)
    else:
        draws.shuffle(st, items, slot_name(st.prog, into))


# st: an engine.State (Any: the engine imports this module)
def seen_moving(st: Any, known: list[int], piece: int, s: int, dest: int) -> None:
    """State.known after `piece` moved from slot s (-1: from nowhere) to another, `dest`.
    Who knows where it is: the seats that see either slot, and, when the move emptied s,
    those that knew it was in s (all of s went to dest). A seat that sees neither slot
    saw one piece of s leave, not which: it no longer knows that any piece left in s is
    still there (each may be the one that went). State.pinned[s] holds the seats that
    know of some piece in s without seeing into s, so that this costs nothing when none
    does (the common case: a pile drawn from a second time)."""
    seers = st.prog.slot_seers
    pinned = st.pinned
    if s < 0:
        k = seers[dest]
    else:
        seen = seers[s] | seers[dest]
        rest = st.slots[s]
        if not rest:
            k = known[piece] | seen
        else:
            k = seen
            lost = pinned[s] & ~seen
            if lost:
                keep = ~lost
                for q in rest:
                    known[q] &= keep
                pinned[s] &= keep
    known[piece] = k
    pinned[dest] |= k & ~seers[dest]


def take_out(st: Any, piece: int) -> None:
    s = st.where[piece]
    if s >= 0:
        st.slots[s].remove(piece)
        st.where[piece] = -1
        if st.tracked is not None:
            touch_slot(st, s)


def R_move_pieces(st: Any, pieces: Sequence[int | None], dest: int, bottom: bool,
                  shuffled: bool, pos: Pos) -> None:
    """Move pieces (a list, in order) onto slot `dest`, at its top or its bottom (an
    unordered zone's slot keeps them in piece order)."""
    prog = st.prog
    heap = dest in prog.heaps
    if heap and (bottom or shuffled):
        unordered(prog, dest, "moving to the bottom" if bottom else "moving shuffled", pos)
    if shuffled and len(pieces) > 1:
        pieces = list(pieces)
        shuffle_pieces(st, pieces, dest)
    slots = st.slots
    where = st.where
    target = slots[dest]
    cap = prog.slot_cap[dest]
    if cap is not None:
        incoming = sum(1 for p in pieces if where[p] != dest)
        if len(target) + incoming > cap:
            fail(f"{slot_name(prog, dest)} holds at most {cap} pieces", pos, error=RuleError)
    known = st.known
    sources: list[int] | None = [] if known is not None else None
    for p in pieces:
        if p is None:
            fail("there is no piece to move (none)", pos, error=RuleError)
        s = where[p]
        if s >= 0:
            slots[s].remove(p)
        where[p] = dest
        if sources is not None:
            sources.append(s)
        if st.tracked is not None:
            touch_slots(st, s, dest)
    if sources is not None:
        for p, s in zip(pieces, sources):
            if p is not None and s != dest:     # (a none was refused above)
                seen_moving(st, known, p, s, dest)
    if bottom:
        target[:0] = pieces
    else:
        target.extend(pieces)
        if heap:
            target.sort()


def R_move_one(st: Any, piece: int | None, dest: int, pos: Pos) -> None:
    """The common case, kept short: one piece onto the top of a slot."""
    if piece is None:
        fail("there is no piece to move (none)", pos, error=RuleError)
    prog = st.prog
    target = st.slots[dest]
    cap = prog.slot_cap[dest]
    where = st.where
    s = where[piece]
    if cap is not None and len(target) >= cap and s != dest:
        fail(f"{slot_name(prog, dest)} holds at most {cap} pieces", pos, error=RuleError)
    if s >= 0:
        source = st.slots[s]
        if source[-1] == piece:      # most moves take the top: no search of a deep pile
            source.pop()
        else:
            source.remove(piece)
    where[piece] = dest
    target.append(piece)
    if st.known is not None and s != dest:
        seen_moving(st, st.known, piece, s, dest)
    if st.tracked is not None:
        touch_slots(st, s, dest)


def R_move_sorted(st: Any, piece: int | None, dest: int, pos: Pos) -> None:
    """R_move_one onto a slot that may be an unordered zone's: there the piece goes to its
    place in piece order (a bisection), not on top."""
    R_move_one(st, piece, dest, pos)
    if dest in st.prog.heaps:
        target = st.slots[dest]
        target.pop()
        insort(target, piece)      # (R_move_one touched the slot)


def R_swap_pieces(st: Any, a: int | None, b: int | None, pos: Pos) -> None:
    if a is None or b is None:
        fail("swap needs two pieces (one of them is none)", pos, error=RuleError)
    sa, sb = st.where[a], st.where[b]
    if sa < 0 or sb < 0:
        fail("swap needs two pieces that are in zones", pos, error=RuleError)
    la, lb = st.slots[sa], st.slots[sb]
    ia, ib = la.index(a), lb.index(b)
    la[ia], lb[ib] = b, a
    st.where[a], st.where[b] = sb, sa
    known = st.known
    if known is not None and sa != sb:
        seers = st.prog.slot_seers
        seen = seers[sa] | seers[sb]
        known[a] = known[b] = seen
        st.pinned[sa] |= seen & ~seers[sa]
        st.pinned[sb] |= seen & ~seers[sb]
    if st.tracked is not None:
        touch_slots(st, sa, sb)
    heaps = st.prog.heaps
    if heaps:                        # an unordered zone keeps its pieces in piece order
        if sa in heaps:
            la.sort()
        if sb in heaps:
            lb.sort()


def R_shuffle_slot(st: Any, s: int, pos: Pos = NOWHERE) -> None:
    if s in st.prog.heaps:
        unordered(st.prog, s, "shuffle", pos)
    shuffle_pieces(st, st.slots[s], s)
    if st.tracked is not None:
        touch_slot(st, s)


def R_refill(st: Any, dest: int, source: int, pos: Pos) -> None:
    """Move pieces from the top of `source` onto `dest` until it is full."""
    cap = st.prog.slot_cap[dest]
    if cap is None:
        fail("refill needs a zone with a capacity", pos, error=RuleError)
    if source in st.prog.heaps:
        unordered(st.prog, source, "refill (it takes the top pieces)", pos)
    if source == dest:      # a slot refilled from itself: nothing moves (the loop below
        return              # would take its top and put it back for ever)
    move = R_move_sorted if dest in st.prog.heaps else R_move_one
    target, pile = st.slots[dest], st.slots[source]
    while len(target) < cap and pile:
        move(st, pile[-1], dest, pos)


def R_call(st: Any, proc: Any, args: list[Any], pos: Pos) -> None:
    """Call a rule: its frame (with its own locals) runs next."""
    stack = st._stack
    if len(stack) > st.prog.max_depth:
        fail(f"rules nest deeper than {st.prog.max_depth} calls", pos,
             "a rule that calls itself needs a way to stop", error=RuleError)
    if proc.pad:            # the rule's locals past its parameters (args: one per parameter)
        args.extend(proc.pad)
    block = proc.block
    # Frame(block.ins, 0, args, None, None, None, block), built field by field: a class
    # call costs more than the rest of a call (engine.State._apply, measured)
    fr = _new_frame(Frame)
    fr.ins = block.ins
    fr.pc = 0
    fr.L = args
    fr.loop = fr.data = fr.at = None
    fr.block = block
    stack.append(fr)


def R_next_turn(st: Any, player: Any, pos: Pos) -> None:
    """`next turn to p`: the nearest turns step running gives its next turn to p (its
    frame's data, read when the turn ends: Steps.step_turns)."""
    n = st.prog.players
    if type(player) is not int or not 0 <= player < n:
        fail(f"the next turn goes to player {player!r}, but this game has {n} players "
             f"(0 to {n - 1})", pos, "players are numbered from 0", error=RuleError)
    for fr in reversed(st._stack):
        loop = fr.loop
        if loop is not None and loop.kind == "turns":
            fr.data = player
            return
    fail("`next turn to` needs a turns step around it: no turn is being played here", pos,
         "give the turns in a `turns:` step (docs/language.md 3.6)", error=RuleError)


def R_finish(st: Any) -> None:
    """The game ends here (a compiled `end` step)."""
    st.terminal = True
    st._stack.clear()
    st.pending = None


# the effects generated code calls, found by their prefix (as the readers' B_): a new
# effect is one function here, with no list to update
HELPERS = {name: value for name, value in globals().items() if name.startswith("R_")}
