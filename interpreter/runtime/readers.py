"""What generated expressions call: pure helpers that read values and the state.

Input: plain values (slots, pieces, tables, positions) from generated code (see
builtins.py, which writes the calls; they are `B_<name>` in the generated source).
Output: values, or a RuleError at the given spec position. None of them changes the
state, except that B_group and B_can_choose keep what they found in the state's facts
(B_can_choose lists a decision with `current` set to the player asked for, and puts it
back).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, compress
from math import comb
from operator import ge, lt
from typing import NoReturn

from ..errors import RuleError, fail
from .geometry import NO_LINE

MAX_RANGE = 100_000
MAX_TEXT = 1_000_000       # characters of a text the rules make ('+', text(), join())
UNORDERED_HINT = ("the zone is unordered (ordered: false): its pieces are kept in piece "
                  "order, and nothing of the order they came in")


def B_zone_slot(base: int, i: int, n: int, zname: str, pos) -> int:
    if not 0 <= i < n:
        fail(f"zone '{zname}' has slots 0..{n - 1}, not {i}", pos, error=RuleError)
    return base + i


def B_grid_cell(base: int, x: int, y: int, w: int, h: int, zname: str, pos) -> int:
    if not (0 <= x < w and 0 <= y < h):
        fail(f"({x}, {y}) is off the {w}x{h} grid '{zname}'", pos, error=RuleError)
    return base + y * w + x


def B_entry(m: dict, k, pos):
    if k not in m:
        fail(f"no entry {k!r} in the table", pos, error=RuleError)
    return m[k]


def B_item(items, k, pos):
    """items[k], its failure said in the spec's terms: an index past either end of a
    list (or a text), a key missing from a table. Written for values computed when a
    spec compiles (a component's count and attributes, a zone's capacity, an initial
    value: ExprCompiler.explained), where the message is all the spec's author sees."""
    t = type(items)
    if t is list or t is tuple or t is str:
        if type(k) is int and -len(items) <= k < len(items):
            return items[k]
        if type(k) is int:
            what = "a text" if t is str else "a list"
            side = "past the end" if k >= 0 else "before the start"
            fail(f"index {k} is {side} of {what} of {len(items)}", pos,
                 f"its items are numbered 0 to {len(items) - 1}" if items
                 else "the list is empty", error=RuleError)
    elif t is dict:
        try:
            return items[k]
        except (KeyError, TypeError):
            keys = ", ".join(map(repr, list(items)[:8])) + (", ..." if len(items) > 8 else "")
            fail(f"the table has no key {k!r}", pos, f"its keys: {keys}" if items
                 else "the table is empty", error=RuleError)
    return items[k]


def B_table(box: list, pairs: tuple) -> dict:
    return {k: box[i] for k, i in pairs}



def B_table_index(where: dict, k, keys: str, pos) -> int:
    i = where.get(k)
    if i is None:
        fail(f"the table has no key {k!r} (keys: {keys})", pos, error=RuleError)
    return i


# -- bounds on the work of rule text (docs/language.md, "Bounds and safety") -------------
MAX_NUMBER = 10 ** 100     # a computed number stored beyond this is a rule error
WORK_LIMIT = 10_000_000    # items generators and comprehensions may produce between resets


def B_big(v, pos):
    """A number about to be stored (a variable, an attribute, a local), refused beyond
    MAX_NUMBER (its numerator or denominator, for a fraction): `x = x * x` in a loop would
    otherwise grow without bound. Other values pass."""
    t = type(v)
    if t is int:
        if -MAX_NUMBER <= v <= MAX_NUMBER:
            return v
    elif t is not Fraction or (-MAX_NUMBER <= v.numerator <= MAX_NUMBER
                               and v.denominator <= MAX_NUMBER):
        return v
    fail("a number beyond 10^100 is stored (it grows without bound)", pos,
         "numbers in a game stay below 10^100", error=RuleError)


def B_list_within(v, bound, name, pos):
    """A list about to be stored in a list variable declared `max_length: bound`, as a
    list of its own; a longer one is a rule error at the assignment (the bound is what
    observation tensors encode item by item)."""
    if len(v) > bound:
        fail(f"list variable '{name}' holds at most {bound} items (its max_length); "
             f"this list has {len(v)}", pos,
             "raise max_length, or keep the list shorter", error=RuleError)
    return list(v)


def work_budget(spent: list) -> dict:
    """The work budget of one game, bound into its generated code: B_spent, its counter
    (`spent`, a one-item list: Program.work, which the engine sets to 0 at every entry
    into generated code: State._run, State._computed, a value computed when the spec
    compiles), and B_work, which counts on it. Each compiled game has its own, so games
    run in two threads never spend each other's budget (the states of one compiled game
    share it: play one game's states in one thread at a time)."""
    limit = WORK_LIMIT

    def B_work(items, pos):
        """The items a generator or comprehension is about to take, counted against the
        work budget before any is taken (nested ones count every time they run). A loop
        written as statements counts inline instead (expressions.counted_lines: B_spent,
        B_work_over)."""
        spent[0] += len(items)
        if spent[0] > limit:
            B_work_over(pos)
        return items
    return {"B_spent": spent, "B_work": B_work}


def B_work_over(pos):
    fail(f"more than {WORK_LIMIT} items taken by generators and comprehensions "
         "in one step of the game", pos,
         "a generator over a very large range, or generators nested too deeply", error=RuleError)


def B_div(a: int, b: int, pos) -> int:
    if b == 0:
        fail("division by zero", pos, error=RuleError)
    return a // b


def B_mod(a: int, b: int, pos) -> int:
    if b == 0:
        fail("division by zero", pos, error=RuleError)
    return a % b


def B_pieces(slots: list, base: int, n: int) -> list:
    out = []
    for s in slots[base:base + n]:
        out.extend(s)
    return out


def B_in_slot(where: list, piece, s: int) -> bool:
    return piece is not None and where[piece] == s


def B_in_zone(where: list, piece, base: int, n: int) -> bool:
    return piece is not None and base <= where[piece] < base + n


def B_distinct_kinds(pieces, kind: tuple) -> list:
    """The pieces, none left out, one of each kind (the first)."""
    seen = set()
    # set.add inside the test (it returns None): one pass, no second lookup
    return [v for v in pieces if v is not None
            and not (kind[v] in seen or seen.add(kind[v]))]  # type: ignore[func-returns-value]


def B_kind_now(pa: list, kind: tuple, v) -> tuple:
    """A piece's kind in a game whose pieces change: its fixed kind and its changeable
    attributes' current values (State.pa)."""
    return (kind[v], *[row[v] for row in pa])


def B_distinct_kinds_now(pieces, kind: tuple, pa: list) -> list:
    """B_distinct_kinds, kinds including what has changed."""
    seen = set()
    out = []
    for v in pieces:
        if v is not None:
            k = (kind[v], *[row[v] for row in pa])
            if k not in seen:
                seen.add(k)
                out.append(v)
    return out


def B_merge_kinds(actions: list, weights, pieces_at: list, kind: tuple, pa: list) -> tuple:
    """A distinct chance decision's outcomes: actions that bind identical pieces (the
    same kind, as they are now) and equal values are one outcome, the first, weighted by
    the sum of their weights (by how many it stands for, unweighted): the odds are those
    of drawing any one of them. -> (actions, weights)"""
    def key(a):
        flags = pieces_at[a[1]]
        return (a[1], *[((kind[v], *[row[v] for row in pa]) if flags[j] and v is not None
                         else v) for j, v in enumerate(a[2:])])
    return _merged(actions, weights, key)


def _merged(actions: list, weights, key) -> tuple:
    """Actions of equal key(action) as one, the first, weighted by the sum of their
    weights (1 each, unweighted). -> (actions, weights)"""
    first: dict = {}
    out: list = []
    total: list = []
    for i, a in enumerate(actions):
        k = key(a)
        w = 1 if weights is None else weights[i]
        at = first.get(k)
        if at is None:
            first[k] = len(out)
            out.append(a)
            total.append(w)
        else:
            total[at] += w
    return out, total


def B_merge_copies(actions: list, weights, pieces_at: list, kind: tuple, pa: list,
                   where: list, heaps) -> tuple:
    """A chance decision's outcomes (not distinct): actions that bind identical pieces
    (the same kind, as they are now) lying in the same slot of an unordered zone, and
    equal values otherwise, are one outcome, the first, weighted by the sum of their
    weights (by how many it stands for, unweighted). Nothing tells such copies apart: the
    zone keeps no order, so which one is taken changes only its piece number. The
    actions and weights as they were when nothing merges. -> (actions, weights)"""
    if len(pieces_at) == 1 and pieces_at[0] == (True,) and \
            len({kind[a[2]] for a in actions}) == len(actions):
        return actions, weights        # one piece each, no two of a kind (the common case)

    def key(a):
        flags = pieces_at[a[1]]
        return (a[1], *[((where[v], kind[v], *[row[v] for row in pa])
                         if flags[j] and v is not None and where[v] in heaps else v)
                        for j, v in enumerate(a[2:])])
    out, total = _merged(actions, weights, key)
    if len(out) == len(actions):
        return actions, weights
    return out, total


def B_distinct(values) -> list:
    """The values, none left out, each once (the first)."""
    seen = set()
    return [v for v in values if v is not None
            and not (v in seen or seen.add(v))]  # type: ignore[func-returns-value]  # as above


def B_tally(values) -> dict:
    """How many times each value occurs, in order of first occurrence."""
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def B_best(f, values, name: str, pos, hint: str):
    if not values:
        fail(f"{name}() of nothing{hint}", pos,
             f"write {name}(... , 0) to give a default" if hint else "", error=RuleError)
    return f(values)


def B_once(cell: list, value):
    """A loop's shared part, computed the first time an item needs it: kept in its cell
    (a list of one item) for the items after (compiler/expressions.py, shared_parts)."""
    cell[0] = value
    return value


def B_top(s: list):
    return s[-1] if s else None


def B_bottom(s: list):
    return s[0] if s else None


def B_top_n(s: list, k: int) -> list:
    return s[:-k - 1:-1] if k > 0 else []


# the zone helpers below loop in C (map, compress): they run at every move of a game
def B_zone_size(slots: list, base: int, n: int) -> int:
    return sum(map(len, slots[base:base + n]))


def B_full(slots: list, base: int, n: int, cap) -> bool:
    return all(map(ge, map(len, slots[base:base + n]), cap[base:base + n]))


def B_open_slots(slots: list, base: int, n: int, cap) -> list:
    return list(compress(range(n), map(lt, map(len, slots[base:base + n]), cap[base:base + n])))


def B_levels(slots: list, base: int, n: int) -> list:
    return list(range(1, max(map(len, slots[base:base + n])) + 1))


def B_row(slots: list, base: int, n: int, h: int) -> list:
    i = h - 1
    return [s[i] for s in slots[base:base + n] if 0 <= i < len(s)]


def B_level(st, p) -> int:
    return st.slots[st.where[p]].index(p) + 1


def B_under(st, p) -> list:
    s = st.slots[st.where[p]]
    return s[:s.index(p)]


def B_neighbour(st, p, dslot: int, dlevel: int, column: tuple, width: tuple):
    """The piece beside p: the same level of the next slot in the row (dslot), or the
    next level of p's own slot (dlevel); a grid's rows do not wrap."""
    if p is None:
        return None
    s = st.where[p]
    col = st.slots[s]
    i = col.index(p) + dlevel
    if dslot:
        j = column[s] % width[s] + dslot
        if not 0 <= j < width[s]:
            return None
        col = st.slots[s + dslot]
    return col[i] if 0 <= i < len(col) else None


def B_distance(xy: tuple, board: tuple, a: int, b: int, orthogonal: bool) -> int:
    g = board[a]
    if g is not None and g[0].kind == "hex" and board[b] == g:    # steps across sides
        return g[0].distance(a - g[1], b - g[1])
    (ax, ay), (bx, by) = xy[a], xy[b]
    dx, dy = abs(ax - bx), abs(ay - by)
    return dx + dy if orthogonal else max(dx, dy)


def _line_fault(g, d) -> tuple | None:
    """(message, hint) when a cell of board g (None: a zone of one slot) has no line in
    direction d, else None: B_step's and Line's words."""
    if g is None:
        return "a zone of one slot has no directions", None
    if d not in g[0].step:
        return (f"'{d}' is not a direction of a {g[0].kind} board",
                f"its directions: {', '.join(g[0].directions)}")
    return None


def _board_line(board: tuple, c, d, pos):
    """(geometry, first slot) of c's board, checking that d is one of its directions."""
    g = board[c]
    fault = _line_fault(g, d)
    if fault is not None:
        fail(fault[0], pos, fault[1], error=RuleError)
    return g


class NoLine(KeyError):
    """A line read in place (Line, Lines) that a cell or a direction does not have: a rule
    failure, located by the engine at the generated line that read it, and told as its
    text (values.explain)."""

    spec_words = True               # its text is already in the spec's terms

    def __str__(self) -> str:
        return str(self.args[0])


class Line(dict):
    """One direction's neighbours (or rays) of every cell of a board that has that direction,
    and None (or ()) for none: generated code reads `line[c]` in place of B_step/B_ray's
    call. A cell without the line, or a value that is not a cell, is told by __missing__
    in B_step's words."""

    __slots__ = ("direction", "board")
    direction: str
    board: tuple

    def __missing__(self, c):
        board = self.board
        if type(c) is not int or not 0 <= c < len(board):
            raise NoLine(f"{c!r} is not a cell")
        message, hint = _line_fault(board[c], self.direction) or (
            f"no line '{self.direction}' from {c}", None)
        raise NoLine(f"{message} ({hint})" if hint else message)


class Lines(dict):
    """Direction -> its Line, for a direction known only when the rule runs:
    `lines[d][c]`."""

    __slots__ = ()

    def __missing__(self, d):
        raise NoLine(f"{d!r} is not a direction")


def lines_in_place(table: dict, board: tuple, empty) -> Lines:
    """The Lines of a table of lines over every slot (layout.py's steps or rays: a tuple
    per direction, NO_LINE where a slot has no such line); `empty` is the value for
    none (None for a step, () for a ray)."""
    out = Lines()
    for d, row in table.items():
        line = out[d] = Line((s, n) for s, n in enumerate(row) if n is not NO_LINE)
        line[None] = empty
        line.direction, line.board = d, board
    return out


def B_step(steps: dict, board: tuple, c, d, pos):
    """The cell next to c in direction d, or None off the board."""
    if c is None:
        return None
    row = steps.get(d)
    n = NO_LINE if row is None else row[c]
    if n is NO_LINE:
        _board_line(board, c, d, pos)          # says what is wrong
    return n


def B_ray(rays: dict, board: tuple, c, d, pos):
    """The cells from c (not included) to the board's edge in direction d (a tuple)."""
    if c is None:
        return ()
    row = rays.get(d)
    line = NO_LINE if row is None else row[c]
    if line is NO_LINE:
        g, base = _board_line(board, c, d, pos)      # or boards too large to lay out
        return tuple(base + n for n in g.ray[d][c - base])
    return line


def B_opposite(opposite: dict, d, pos):
    back = opposite.get(d)
    if back is None:
        fail(f"{d!r} is not a direction", pos, error=RuleError)
    return back


def B_at(base: int, x: int, y: int, w: int, h: int):
    """The cell at (x, y) of a w x h board, or None off it."""
    return base + y * w + x if 0 <= x < w and 0 <= y < h else None


def B_leaders(m: dict) -> list:
    """The keys of a table holding its greatest value (sorted), [] if empty."""
    if not m:
        return []
    top = max(m.values())
    return sorted(k for k, v in m.items() if v == top)


def B_combinations(items: list, k: int, pos) -> list:
    """The lists of k of the items, in the items' order (itertools' order), refused before
    it is made when there would be more than MAX_RANGE of them."""
    n = len(items)
    if k < 0:
        fail(f"combinations() of {k} items: the count must be 0 or more", pos, error=RuleError)
    if comb(n, k) > MAX_RANGE:
        fail(f"combinations() of {k} of {n} items would be more than {MAX_RANGE} lists",
             pos, error=RuleError)
    return [list(c) for c in combinations(items, k)]


def B_sorted(items: list, order: dict | None, pos) -> list:
    """sorted(items): increasing; an enum's values (`order`: their places) in their
    declared order, lists item by item; values that cannot be compared (a number and a
    text, none) are a rule error."""
    def key(v):
        if isinstance(v, list):
            return tuple(key(x) for x in v)
        if order is not None and isinstance(v, str):
            return order.get(v, v)
        if v is None:
            raise TypeError("none")
        return v
    try:
        return sorted(items, key=key)
    except TypeError:
        kinds = {bool: "truth values", int: "numbers", Fraction: "numbers", str: "texts",
                 list: "lists", type(None): "none"}
        found = sorted({kinds.get(type(v), type(v).__name__) for v in items})
        fail("sorted() cannot order these values together: " + ", ".join(found), pos,
             "sort numbers, texts, players, pieces or an enum's values, or lists of them",
             error=RuleError)


def B_order(order: dict, value, pos) -> int:
    """The place of an enum's value in its declaration (for <, <=, > and >=)."""
    i = order.get(value) if isinstance(value, str) else None
    if i is None:
        fail(f"{value!r} is not a value of the enum compared here ({', '.join(order)})",
             pos, error=RuleError)
    return i


def B_seat(player, n: int, what: str, pos) -> int:
    """`player`, a seat of a game of n players (0 to n - 1), else a rule error: the
    argument of next_player() or players_after() is a player, never wrapped round."""
    if type(player) is not int or not 0 <= player < n:
        fail(f"{what} takes a player, and this game has {n} players (0 to {n - 1}), not "
             f"{B_text(player, pos)}", pos, "players are numbered from 0", error=RuleError)
    return player


def B_text(value, pos) -> str:
    """A value as text, as the rules write it: 7/3, true, none, items by ', '. A list's
    (a table's) text is made part by part and refused as it passes MAX_TEXT: a list may
    hold one list many times over, and its text would be that list's as many times."""
    if value is None:
        return "none"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return B_join("", _text_parts(value), pos)
    return str(value)


def _text_parts(value):
    """The parts of a list's or a table's text, in order (B_text)."""
    first = True
    for k, v in value.items() if isinstance(value, dict) else ((None, v) for v in value):
        if not first:
            yield ", "
        first = False
        if isinstance(value, dict):
            yield from _text_parts([k]) if isinstance(k, (list, dict)) else (_scalar_text(k),)
            yield ": "
        if isinstance(v, (list, dict)):
            yield from _text_parts(v)
        else:
            yield _scalar_text(v)


def _scalar_text(v) -> str:
    if v is None:
        return "none"
    if v is True or v is False:
        return "true" if v else "false"
    return str(v)


def B_join(sep: str, texts, pos) -> str:
    """sep.join(texts) for join() and text(): the texts taken one by one and refused as
    their length passes MAX_TEXT, before the whole is made."""
    out: list = []
    size = 0
    for t in texts:
        size += len(t) + len(sep)
        if size > MAX_TEXT + len(sep):
            _text_too_long(pos)
        out.append(t)
    return sep.join(out)


def B_concat(a, b, pos):
    """a + b of two texts, refused beyond MAX_TEXT characters (`let b = a + a in ...`
    doubles a text with every let)."""
    if type(a) is str and type(b) is str and len(a) + len(b) > MAX_TEXT:
        _text_too_long(pos)
    return a + b


def _text_too_long(pos) -> NoReturn:
    fail(f"a text of more than {MAX_TEXT} characters is made", pos,
         "texts are made by '+', text() and join(): a text that grows without bound, or "
         "the text of a very large list", error=RuleError)


def B_range(lo: int, hi: int, pos) -> list:
    """range(lo, hi) as a list: lo to hi, both included."""
    return list(B_span(lo, hi, pos))


def B_span(lo: int, hi: int, pos) -> range:
    """range(lo, hi) for a loop to go over (no list made: B_range)."""
    if hi - lo > MAX_RANGE:
        fail(f"range() of more than {MAX_RANGE} numbers", pos, error=RuleError)
    return range(lo, hi + 1)


def B_ordered(st, s: int, what: str, pos) -> int:
    """Slot s, if its zone keeps an order (a cell of any zone, known only when it runs)."""
    if s in st.prog.heaps:
        unordered(st.prog, s, what, pos)
    return s


def B_ordered_piece(st, p, what: str, pos):
    """Piece p, if it is not in an unordered zone (where it has no level)."""
    if p is not None and st.where[p] in st.prog.heaps:
        unordered(st.prog, st.where[p], what, pos)
    return p


def B_piece_name(names: tuple, piece) -> str:
    return names[piece] if piece is not None else "none"


def B_piece_name_now(st, piece) -> str:
    """A piece's name as it is now: its template may show a changeable attribute."""
    if piece is None:
        return "none"
    namers = st.prog.piece_namer         # () when no name shows a changeable attribute
    namer = namers[piece] if namers else None
    return st.prog.piece_names[piece] if namer is None else namer.name(st.pa, piece)


def piece_names_now(st):
    """Every piece's name as it is now (by piece index): the compiled names when no
    name shows a changeable attribute."""
    prog = st.prog
    if not prog.piece_namer:
        return prog.piece_names
    pa = st.pa
    return [n if namer is None else namer.name(pa, i)
            for i, (n, namer) in enumerate(zip(prog.piece_names, prog.piece_namer))]


def B_too_many_actions(limit: int, pos):
    fail(f"a decision with more than {limit} actions", pos, error=RuleError)


# -- `after ... then ...`: a value on a copy of the state (ExprCompiler.x_After) ----------
def B_imagine(st):
    """The copy the statements of an `after` change (State.imagine)."""
    return st.imagine()


def B_settle(st, pos) -> None:
    """Run the rule an `after` called on its copy, to its end. It may not stop at a
    decision nor draw randomness: the value must be known now, the same for every
    player who asks."""
    work = st.prog.work[0]
    st._run()                       # (which starts a fresh work budget: carried on)
    st.prog.work[0] += work
    st.terminal = False             # its frames ran out: the game itself goes on
    if st.pending is not None:
        fail("a rule called in `after` stops at a decision", pos,
             "`after` tries statements that need no choice: call a rule without "
             "choose steps there", error=RuleError)
    if not st._rng_shared:
        fail("a rule called in `after` draws randomness", pos,
             "`after` tries statements that need no chance: no shuffle there",
             error=RuleError)


# -- what effects.py and the readers share (effects imports them from here) --------------
def slot_name(prog, s: int) -> str:
    z = prog.zone_list[prog.slot_zone[s]]
    name = z.name
    if z.per_player:
        name = f"player {prog.slot_owner[s]}'s {name}"
    if z.nslots > 1:
        name += f"[{prog.slot_index[s]}]"
    return name


def unordered(prog, s: int, what: str, pos):
    """The error of an operation that needs an order, on an unordered zone's slot."""
    fail(f"{what} needs an order, and {slot_name(prog, s)} keeps none", pos,
         UNORDERED_HINT, error=RuleError)


def B_one_key(table: dict, key) -> tuple:
    """(key,) if it is a key of the table, else (): `j in keys(t) where j == key`."""
    return (key,) if key in table else ()


def B_near(cells, adj, lo: int, hi: int) -> list:
    """The neighbours (by the per-slot table adj) of the cells, those of slots lo to hi - 1,
    in slot order, once each (compiler/narrowing.py)."""
    out: set = set()
    for c in cells:
        if c is not None:
            out.update(adj[c])
    return sorted(n for n in out if lo <= n < hi)


def new_turn(st) -> None:
    """Whose turn it is has changed: the facts that read it are stale, the others not."""
    facts = st.facts
    if facts:
        for key in st.prog.turn_facts:
            facts.pop(key, None)


def B_can_choose(st, h, p, pos) -> bool:
    """can_choose(id, p): would decision h (a model.Listing) list an action were it
    player p's turn, in this state? Its listing is kept in the facts by player; the
    decision, reached in the same state on p's turn, takes it from there instead of
    listing again."""
    if type(p) is not int or not 0 <= p < st.prog.players:
        fail(f"can_choose() asks for player {p!r}, but this game has {st.prog.players} "
             f"players (0 to {st.prog.players - 1})", pos, error=RuleError)
    if not h.key:                                  # facts off: listed each time
        return bool(_listing_for(st, h, p))
    known = st.facts.get(h.key)
    if known is None:
        known = st.facts[h.key] = {}
    found = known.get(p)
    if found is None:
        found = known[p] = tuple(_listing_for(st, h, p))
    return bool(found)


def _listing_for(st, h, p) -> list:
    """Decision h's actions were it p's turn: listed with `current` p, the facts that read
    whose turn it is dropped before and after (as at a new turn), so none of them is kept
    for the wrong player."""
    was = st.current
    if p == was:
        return h.actions(st, None)
    new_turn(st)
    st.current = p
    try:
        return h.actions(st, None)
    finally:
        st.current = was
        new_turn(st)


HELPERS = {name: value for name, value in globals().items() if name.startswith("B_")}
