"""Views: generators over a board's cells kept up to date across moves, by what each
cell's condition reads.

Input: a State, and what the generated code hands over (a view's key, its function, its
cells, and its stencil's tables). Output: a View, whose passing cells and values are
those the generator would give now. What the compiler decides and the rules it follows:
docs/compiler.md, "Views".

A view is a generator over a board's cells whose parts read the pieces of cells at fixed
steps from its own cell only (the cell, its neighbours, their neighbours: the stencil,
compiler/stencil.py), and maybe other zones whole: `any(fresh(c) for c in cells(board))`,
`[c for c in cells(board) where new_street(c)]`, a choice `c in cells(board) where ...`.
The compiler turns the stencil into a table, `near[slot]`: the cells whose condition
reads that slot. The first time a view is asked for in a state every cell is computed;
after that a change of pieces (effects.py: a move, a swap, a shuffle; an attribute set,
by the generated assignment) touches the slots it changed, and the cells `near` them, or
every cell if the slot is one of a zone the view reads whole, are marked dirty and
computed again when the view is next asked for. The cells are computed by the same
generated code as the loop they replace, on the state itself.

A group whose condition reads only the cell it tests is kept across moves too (B_group_kept:
it lists the slots its flood read, its cells and their neighbours, and a touch of one
drops it); a view's cell that asks for such a group, flooded or found, is told what it
read through State.gather (B_group_seen), and is marked dirty when one of those slots is
touched.

Everything else a view reads (variables, whose turn it is, tables, per-player variables)
is the compiler's business: a statement that writes it drops the view, as it drops any
kept fact (Facts.stale); the view is then built again. A clone starts without views.
"""

from __future__ import annotations

from typing import Any

SKIP = object()             # an item's function: this item does not pass
ALL = -2                    # a view's cell read every slot (not a slot number)
GROUP_LIMIT = 100_000       # slots listed for a group's table before it starts over
NOTHING: frozenset = frozenset()


class View:
    """The passing items of a generator over a board's cells and each one's value, in
    the cells' order; dirty items are computed again when the view is next asked for."""
    __slots__ = ("fn", "items", "near", "whole", "vals", "dirty", "_order", "_values",
                 "groups", "watch", "reads", "args", "mine")

    def __init__(self, fn, items: tuple, near: dict, whole: frozenset, groups: bool,
                 args: tuple = ()):
        self.fn = fn
        self.args = args             # the values of the locals its conditions read
        self.items = items           # the cells, in order (slot numbers, ascending)
        self.near = near             # slot -> the cells whose value reads it
        self.whole = whole           # slots of zones read whole: any change, every cell
        self.groups = groups         # cells read kept groups: what they read is gathered
        self.watch: dict = {}        # slot -> the cells whose groups read it
        self.reads: dict = {}        # cell -> the slots its groups read
        self.mine: set = set()       # the slots of `watch` whose sets no copy shares
        self.vals: dict = {}
        self.dirty: set = set(items)
        self._order: list | None = None
        self._values: list | None = None

    def touch(self, slot: int) -> None:
        found = self.near.get(slot)
        if found is not None:
            self.dirty.update(found)
        elif slot in self.whole:
            self.dirty.update(self.items)
        if self.groups:
            found = self.watch.get(slot)
            if found:
                self.dirty.update(found)
            found = self.watch.get(ALL)
            if found:
                self.dirty.update(found)

    def refresh(self, st: Any) -> None:
        fn = self.fn
        vals = self.vals
        changed = False
        items = self.dirty
        self.dirty = set()
        st.prog.work[0] += len(items)     # as many as a loop over them would count
        groups = self.groups
        args = self.args
        for item in items:
            if groups:
                outer = st.gather
                st.gather = set()
                try:
                    v = fn(st, item, *args)
                    read = st.gather
                    self._watch(item, frozenset(read))
                finally:
                    st.gather = outer
                if outer is not None:
                    outer |= read
            else:
                v = fn(st, item, *args)
            if v is SKIP:
                if item in vals:
                    del vals[item]
                    changed = True
            elif item not in vals or vals[item] is not v:
                vals[item] = v
                changed = True
        if changed:
            self._order = self._values = None

    def _watch(self, item, new: frozenset) -> None:
        old = self.reads.get(item, NOTHING)
        if new == old:
            return
        watch = self.watch
        mine = self.mine              # the sets of `watch` no copy of the view shares
        for s in old - new:
            if s not in mine:
                watch[s] = watch[s].copy()
                mine.add(s)
            watch[s].discard(item)
        for s in new - old:
            found = watch.get(s)
            if found is None:
                watch[s] = {item}
                mine.add(s)
            elif s in mine:
                found.add(item)
            else:
                watch[s] = found | {item}
                mine.add(s)
        self.reads[item] = new

    def copy(self) -> View:
        """A copy for a copy of the state: what changes in place (the values, the dirty
        cells, what each cell's groups read) is copied, the rest shared (the cells'
        order and values lists are replaced, never changed in place)."""
        new = View.__new__(View)
        new.fn, new.args, new.items, new.near, new.whole, new.groups = (
            self.fn, self.args, self.items, self.near, self.whole, self.groups)
        new.vals = self.vals.copy()
        new.dirty = self.dirty.copy()
        new.watch = self.watch.copy()    # its sets shared until either side changes one
        new.mine = set()
        self.mine = set()
        new.reads = self.reads.copy()
        new._order, new._values = self._order, self._values
        return new

    def order(self) -> list:
        """The passing items, in the cells' order."""
        o = self._order
        if o is None:
            o = self._order = sorted(self.vals)
        return o

    def values(self) -> list:
        """The passing items' values, in the cells' order."""
        v = self._values
        if v is None:
            vals = self.vals
            v = self._values = [vals[i] for i in self.order()]
        return v


def B_view(st: Any, key: str, fn, items: tuple, near: dict, whole: frozenset,
           groups: bool = False, args: tuple = ()) -> View:
    """The view `key` of this state (for the values `args` of the players or enum values
    its cells' conditions read: a table of views under the key), brought up to date."""
    table: dict = st.facts
    at: Any = key
    if args:
        table = st.facts.get(key)
        if table is None:
            table = st.facts[key] = {}
        at = args
    v = table.get(at)
    if v is None:
        v = table[at] = View(fn, items, near, whole, groups, args)
        views = st.tracked
        if views is None:
            views = st.tracked = {}
        # (a view dropped and built again replaces its entry)
        views[(key, args) if args else key] = v
        v.refresh(st)
    elif v.dirty:
        v.refresh(st)
    return v


def touch_slots(st: Any, a: int, b: int) -> None:
    """The pieces of slots a and b changed (a move from a to b; a may be -1)."""
    for v in st.tracked.values():
        v.touch(a)
        v.touch(b)


def touch_slot(st: Any, slot: int) -> None:
    for v in st.tracked.values():
        v.touch(slot)


def touch_piece(st: Any, piece: int) -> None:
    """A piece's changeable attribute changed: its slot reads differently."""
    if st.tracked is not None:
        s = st.where[piece]
        if s >= 0:
            touch_slot(st, s)


class _Groups:
    """A group's table kept across moves (State.tracked[its key]): for each slot, the
    groups whose flood read it (their cells and the cells next to them), by the keys they
    are kept under, and what each key's flood read; a touch of the slot drops them."""
    __slots__ = ("known", "by_slot", "reads", "count", "mine")

    def __init__(self, known: dict):
        self.known = known
        self.by_slot: dict = {}
        self.reads: dict = {}        # key -> the slots its group's flood read
        self.count = 0
        self.mine: set = set()       # the slots of `by_slot` whose lists no copy shares

    def touch(self, slot: int) -> None:
        found = self.by_slot.pop(slot, None)
        if found:
            known = self.known
            reads = self.reads
            for keys in found:
                for k in keys:
                    known.pop(k, None)
                    reads.pop(k, None)

    def copy(self, known: dict) -> _Groups:
        """A copy listing for the copy `known` of its table."""
        new = _Groups(known)
        new.by_slot = self.by_slot.copy()    # its lists shared until either side adds
        self.mine = set()
        new.reads = self.reads.copy()
        new.count = self.count
        return new


def copy_facts(facts: dict, tracked: dict | None) -> tuple[dict, dict | None]:
    """Copies of a state's facts and of the views and kept groups' listings among them
    (State.tracked), for a copy of the state that goes on from the same position: a table
    is copied (entries are added and dropped in place), its entries shared (a fact's value
    is never changed in place), a view or a listing copied whole. What `tracked` holds
    that the facts no longer do (a view dropped by a change) is left behind."""
    new: dict = {}
    copied: dict = {}                # id of a view or table of the facts -> its copy
    for key, value in facts.items():
        if isinstance(value, View):
            copied[id(value)] = new[key] = value.copy()
        elif isinstance(value, dict):  # a table (of results, a group's, listings, views)
            table = value.copy()
            for k, v in table.items():
                if isinstance(v, View):
                    copied[id(v)] = table[k] = v.copy()
            copied[id(value)] = new[key] = table
        else:
            new[key] = value
    if not tracked:
        return new, None
    kept: dict = {}
    for key, w in tracked.items():
        if isinstance(w, _Groups):
            known = copied.get(id(w.known))
            if known is not None:
                kept[key] = w.copy(known)
        else:
            v = copied.get(id(w))
            if v is not None:
                kept[key] = v
    return new, kept or None


def B_group_seen(st: Any, key: str, at) -> None:
    """A kept group was found in its table while a view's cell is computed: what its
    flood read is the cell's too."""
    found = st.tracked[key].reads.get(at)
    if found is None:                # (not listed: say it read every slot)
        st.gather.add(ALL)
    else:
        st.gather.update(found)


def B_group_kept(st: Any, key: str, known: dict, cells, extra: tuple | None, adj) -> None:
    """A group just flooded and kept in `known` under each of `cells` (and the other
    values `extra` its key holds first): the slots it read are its cells and their
    neighbours (its condition reads the cell it tests only: compiler/boards.py)."""
    tracked = st.tracked
    if tracked is None:
        tracked = st.tracked = {}
    w = tracked.get(key)
    if w is None or w.known is not known:
        w = tracked[key] = _Groups(known)
    elif w.count > GROUP_LIMIT:          # what was dropped is still listed: start over
        known.clear()
        w.by_slot.clear()
        w.reads.clear()
        w.count = 0
        if st.gather is not None:
            st.gather.add(ALL)
        return
    keys = tuple(cells) if extra is None else tuple(extra + (c,) for c in cells)
    near = set(cells)
    for c in cells:
        near.update(adj[c])
    reads = frozenset(near)
    if st.gather is not None:        # a view's cell is being computed: it read these
        st.gather.update(reads)
    for k in keys:
        w.reads[k] = reads
    by = w.by_slot
    mine = w.mine
    for s in reads:
        found = by.get(s)
        if found is None:
            by[s] = [keys]
            mine.add(s)
        elif s in mine:
            found.append(keys)
        else:                        # shared with a copy: copied first
            by[s] = found + [keys]
            mine.add(s)
    w.count += len(reads)


HELPERS = {"B_view": B_view, "B_VIEW_SKIP": SKIP, "B_group_kept": B_group_kept,
           "B_group_seen": B_group_seen}
