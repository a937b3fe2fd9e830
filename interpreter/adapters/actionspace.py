"""A fixed action space for a game: every action numbered, the same number in every state.

Input: a Game (a spec compiled for a player count and options). Output: an ActionSpace
that turns the engine's action tuples (decision, alternative, bound values...) into
integer ids and back, as OpenSpiel and PettingZoo want them (interpreter/adapters/openspiel.py,
interpreter/adapters/pettingzoo.py). The numbering depends on the spec, the player count and the
options only, never on a state:

- the players' decisions and the chance decisions are numbered apart: `num_actions` ids
  for the players' actions, `num_outcomes` ids for chance outcomes;
- decisions in the order of their ids (the order the compiler meets them in the spec),
  and in a decision its alternatives in order, then its skip action (optional:) and
  its done action (up_to:): each alternative owns a block of consecutive ids, skip and
  done one id each;
- an alternative without bindings is one id; one with bindings is its block's first id
  plus a mixed-radix number over its bound values, the first binding the most
  significant digit. Each binding's digit is its value's index in the binding's domain,
  the one the compiler recorded for it (Alt.domains: compiler/analysis.py, docs/compiler.md
  "What the compiler records"; this module reads no generated code):

    piece            the piece number (0 .. pieces - 1)
    player           the player (0 .. players - 1)
    enum value       its index among the enum's values
    container        its index in its zone (all zones' slots for `any zone`)
    number           a constant source (range(0, 8), [64], a data list): the value's rank
                     among the source's values; otherwise an interval lo..hi the compiler
                     can bound (range(a, b) with constant ends, a piece attribute, whose
                     turn it is, + - * of these); an end it cannot bound is 0 (lo) or
                     lo + int_span - 1 (hi), int_span = 32 unless the adapter is told
                     otherwise; a value outside its domain is a clear error
    condition        false 0, true 1
    `x in [e]`       a one-value list is a function of the bindings before it: no digit
                     (its value is found among the state's legal actions)

Decoding an id needs the state (action_tuple): the legal action with that id, checked
to be legal.
"""

from __future__ import annotations

from ..errors import IllegalAction, TabulaError
from ..lang import types as T
from ..runtime.model import DONE, SKIP

DEFAULT_INT_SPAN = 32


class Domain:
    """The values one binding can take, numbered 0 .. size - 1."""

    __slots__ = ("size", "what", "lo", "table", "values")

    def __init__(self, size: int, what: str, lo: int = 0, values=None):
        self.size, self.what, self.lo = size, what, lo
        self.values = tuple(values) if values is not None else None
        self.table = {v: i for i, v in enumerate(self.values)} if self.values is not None \
            else None

    def index(self, v):
        if self.table is not None:
            return self.table.get(v)
        if type(v) is bool or not isinstance(v, int):
            return None
        i = v - self.lo
        return i if 0 <= i < self.size else None

    def value(self, i: int):
        return self.values[i] if self.values is not None else self.lo + i

    def describe(self) -> str:
        if self.values is not None:
            shown = ", ".join(map(str, self.values[:6])) + (", ..." if self.size > 6 else "")
            return f"{self.what} [{shown}]"
        return f"{self.what} {self.lo}..{self.lo + self.size - 1}"


class Block:
    """The ids of one alternative (or of a skip or done action)."""

    __slots__ = ("decision", "alt", "offset", "domains", "strides", "size", "chance")

    def __init__(self, decision, alt: int, offset: int, domains: list, chance: bool):
        self.decision, self.alt, self.offset, self.chance = decision, alt, offset, chance
        self.domains = domains            # None for a binding without a digit
        strides, size = [], 1
        for d in reversed(domains):
            strides.append(size if d is not None else 0)
            size *= d.size if d is not None else 1
        self.strides = tuple(reversed(strides))
        self.size = size


class ActionSpace:
    """The ids of one game's actions (see the module's docstring)."""

    def __init__(self, game, int_span: int = DEFAULT_INT_SPAN):
        if int(int_span) < 1:
            raise TabulaError(f"int_span must be at least 1, not {int_span}")
        self.game = game
        self.prog = prog = game.prog
        self.int_span = int(int_span)
        self.blocks: dict = {}           # (decision, alternative) -> Block
        self.player_blocks: list = []
        self.chance_blocks: list = []
        counts = {False: 0, True: 0}
        for dec in prog.decisions:
            chance = bool(getattr(dec, "chance", False))
            alts = [(a.index, [self._domain(dec, a, i, bd) for i, bd in enumerate(a.domains)])
                    for a in dec.alts]
            if dec.optional:
                alts.append((SKIP, []))
            if dec.upto:
                alts.append((DONE, []))
            for index, domains in alts:
                block = Block(dec, index, counts[chance], domains, chance)
                counts[chance] += block.size
                self.blocks[(dec.id, index)] = block
                (self.chance_blocks if chance else self.player_blocks).append(block)
        self.num_actions = counts[False]
        self.num_outcomes = counts[True]
        self.simultaneous = any(d.chooser_slot is not None for d in prog.decisions)

    # -- domains ----------------------------------------------------------------------------
    def _domain(self, dec, alt, i: int, bd):
        """The Domain of a binding from the domain the compiler recorded for it
        (Alt.domains: compiler/analysis.py BindingDomain); None: no digit."""
        prog = self.prog
        kind = bd.kind
        if kind == "piece":
            return Domain(len(prog.piece_names), "piece")
        if kind == "player":
            return Domain(prog.players, "player")
        if kind == "enum":
            return Domain(len(self._enum(bd.name)), f"{bd.name} value",
                          values=self._enum(bd.name))
        if kind == "container":
            return Domain(bd.hi - bd.lo + 1, f"container of zone '{bd.name}'", lo=bd.lo)
        if kind == "dependent":
            return None                      # one value: found from the bindings before
        if kind == "value":                  # [64]: one id, its value known
            return Domain(1, "value", values=bd.values)
        if kind == "any container":
            return Domain(prog.nslots, "container", lo=0)
        if kind == "values":
            values = list(bd.values)
            if values and all(type(v) is int for v in values) \
                    and values[-1] - values[0] + 1 == len(values):
                return Domain(len(values), "number", lo=values[0])
            return Domain(max(len(values), 1), "value", values=values or [None])
        if kind == "condition":
            return Domain(2, "condition", values=(False, True))
        if kind != "interval":
            typ = alt.binds[i][1] if i < len(alt.binds) else T.ANY
            raise TabulaError(f"decision '{dec.rule}' ({dec.pos}): its option {alt.index + 1} "
                              f"binds {T.describe(typ)}, which the action space cannot "
                              "number; choose from a constant list instead")
        lo, hi = bd.lo, bd.hi
        if lo is None and hi is None:
            lo, hi = 0, self.int_span - 1
        elif lo is None:
            lo = 0 if hi >= 0 else hi - self.int_span + 1
        elif hi is None:
            hi = lo + self.int_span - 1
        if hi < lo:
            hi = lo
        return Domain(hi - lo + 1, "number", lo=lo)

    def _enum(self, name) -> list:
        return list(self.prog.enums.get(name, ()))

    # -- ids ---------------------------------------------------------------------------------
    def action_id(self, action) -> int:
        """The id of an action tuple (chance outcomes and players' actions alike: each
        in its own numbering)."""
        action = tuple(action)
        block = self.blocks.get((action[0], action[1])) if len(action) >= 2 else None
        if block is None:
            raise IllegalAction(f"{list(action)} is not an action of this game")
        n = block.offset
        for k, (d, stride) in enumerate(zip(block.domains, block.strides)):
            if d is None:
                continue
            v = action[2 + k] if 2 + k < len(action) else None
            i = d.index(v)
            if i is None:
                dec = block.decision
                raise TabulaError(
                    f"decision '{dec.rule}' ({dec.pos}) bound the value {v!r} (binding "
                    f"{k + 1} of option {block.alt + 1}), outside its domain in the action "
                    f"space: {d.describe()}",
                ) from None
            n += i * stride
        return n

    def ids(self, state, player: int | None = None) -> dict:
        """{id: action} of the legal actions of `player` (default: the one to move, or
        chance) in `state`."""
        out: dict = {}
        for a in state.legal_actions(player):
            i = self.action_id(a)
            if i in out and out[i] != a:
                raise TabulaError(f"two legal actions have the id {i}: {list(out[i])} and "
                                  f"{list(a)} (a bug of the action space)")
            out[i] = a
        return out

    def legal_ids(self, state, player: int | None = None) -> list:
        return sorted(self.ids(state, player))

    def action_tuple(self, state, action_id, player: int | None = None) -> tuple:
        """The legal action of `state` with this id (player: the chooser at a
        simultaneous decision, default the one to move); IllegalAction if there is none."""
        if isinstance(action_id, bool) or not hasattr(action_id, "__index__"):
            raise IllegalAction(f"{action_id!r} is not an action id (a whole number)")
        n = action_id.__index__()
        found = self.ids(state, player).get(n)
        if found is None:
            chance = state.is_chance_node()
            limit = self.num_outcomes if chance else self.num_actions
            if not 0 <= n < limit:
                raise IllegalAction(f"{n} is not an id of this game's "
                                    f"{'chance outcomes' if chance else 'actions'} "
                                    f"(0..{limit - 1})")
            raise IllegalAction(f"action {n} ({self.describe(n, chance)}) is not legal here")
        return found

    def block_of(self, n: int, chance: bool = False) -> Block:
        blocks = self.chance_blocks if chance else self.player_blocks
        for b in blocks:
            if b.offset <= n < b.offset + b.size:
                return b
        raise IllegalAction(f"{n} is not an id of this game's "
                            f"{'chance outcomes' if chance else 'actions'}")

    def decode(self, n: int, chance: bool = False) -> tuple:
        """(decision, alternative, values...) of an id without a state: a binding without
        a digit (`x in [e]`) is None."""
        b = self.block_of(n, chance)
        rest = n - b.offset
        values: list = []
        for d, stride in zip(b.domains, b.strides):
            if d is None:
                values.append(None)
                continue
            i, rest = divmod(rest, stride)
            values.append(d.value(i))
        return (b.decision.id, b.alt, *values)

    def describe(self, n: int, chance: bool = False) -> str:
        """What an id stands for, in words (for messages and the docs)."""
        b = self.block_of(n, chance)
        dec = b.decision
        what = ("skip" if b.alt == SKIP else "done" if b.alt == DONE
                else f"option {b.alt + 1}")
        values = self.decode(n, chance)[2:]
        return f"decision '{dec.rule}', {what}" + (f", values {list(values)}" if values else "")

    def layout(self) -> list:
        """One row per block: (chance?, first id, size, decision rule, alternative,
        domains described), for the docs and tools."""
        rows = []
        for b in self.player_blocks + self.chance_blocks:
            rows.append((b.chance, b.offset, b.size, b.decision.rule,
                         "skip" if b.alt == SKIP else "done" if b.alt == DONE else b.alt,
                         ["(from the bindings before)" if d is None else d.describe()
                          for d in b.domains]))
        return rows
