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
  significant digit. Each binding's digit is its value's index in the binding's domain:

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

import ast as pyast

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
        self.table = {v: i for i, v in enumerate(self.values)} if values is not None else None

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
            alts = [(a.index, [self._domain(dec, a, i, src, typ)
                               for i, (src, typ) in enumerate(a.binds)]) for a in dec.alts]
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
    def _domain(self, dec, alt, i: int, src: str, typ: tuple):
        prog = self.prog
        kind = typ[0]
        if kind == "piece":
            return Domain(len(prog.piece_names), "piece")
        if kind == "player":
            return Domain(prog.players, "player")
        if kind == "enum":
            return Domain(len(self._enum(typ[1])), f"{typ[1]} value", values=self._enum(typ[1]))
        if kind == "slot" and getattr(typ[1], "nslots", 0) and getattr(typ[1], "name", "") \
                and typ[1].name in prog.zones:
            z = typ[1]
            count = z.nslots * (prog.players if z.per_player else 1)
            return Domain(count, f"container of zone '{z.name}'", lo=z.base)
        try:
            tree = pyast.parse(src.strip(), mode="eval").body
        except SyntaxError:
            tree = None
        if isinstance(tree, (pyast.List, pyast.Tuple)) and len(tree.elts) == 1:
            found = self._constant(tree)
            if found is not None and len(found) == 1:     # [64]: one id, its value known
                return Domain(1, "value", values=found)
            return None                      # one value: found from the bindings before
        if kind in ("slot", "zone"):
            return Domain(prog.nslots, "container", lo=0)
        found = self._constant(tree)
        if found is not None:
            try:
                values = sorted(set(found))
            except TypeError:
                values = list(dict.fromkeys(found))
            if values and all(type(v) is int for v in values) \
                    and values[-1] - values[0] + 1 == len(values):
                return Domain(len(values), "number", lo=values[0])
            return Domain(max(len(values), 1), "value", values=values or [None])
        if kind == "bool":
            return Domain(2, "condition", values=(False, True))
        if kind not in ("int", "any"):
            raise TabulaError(f"decision '{dec.rule}' ({dec.pos}): its option {alt.index + 1} "
                              f"binds {T.describe(typ)}, which the action space cannot "
                              "number; choose from a constant list instead")
        lo, hi = _elements(tree, self._env()) if tree is not None else (None, None)
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

    def _ns(self) -> dict:
        mod = self.prog.module
        return mod.ns if mod is not None else {}

    def _env(self) -> dict:
        mod = self.prog.module
        chunks = {}
        for text in (mod.chunks if mod is not None else []):
            name = text[4:text.find("(")] if text.startswith("def ") else ""
            chunks[name] = text
        return {"ns": self._ns(), "players": self.prog.players, "vars": {},
                "chunks": chunks, "depth": 0}

    def _constant(self, tree):
        """The values of a source that reads no state and no binding, else None."""
        if tree is None:
            return None
        ns = self._ns()
        names = {n.id for n in pyast.walk(tree) if isinstance(n, pyast.Name)}
        if any(n not in ns and n not in ("range", "list", "len") for n in names) \
                or any(isinstance(n, pyast.Lambda) for n in pyast.walk(tree)):
            return None
        try:
            value = eval(compile(pyast.Expression(tree), "<domain>", "eval"), ns)  # noqa: S307
            return list(value)
        except Exception:     # a source that is not constant after all: no domain from it
            return None

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
        out = {}
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
        values = []
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


# -- bounds of a number source, from its generated Python ---------------------------------
def _elements(node, env) -> tuple:
    """(lo, hi) of the values a number source gives, each None where unknown."""
    if isinstance(node, pyast.Call):
        f = node.func
        if isinstance(f, pyast.Name) and f.id == "B_range" and len(node.args) >= 2:
            return _bound(node.args[0], env)[0], _bound(node.args[1], env)[1]
        if isinstance(f, pyast.Name) and f.id == "range" and 1 <= len(node.args) <= 2:
            if len(node.args) == 1:
                hi = _bound(node.args[0], env)[1]
                return 0, None if hi is None else hi - 1
            hi = _bound(node.args[1], env)[1]
            return _bound(node.args[0], env)[0], None if hi is None else hi - 1
        if isinstance(f, pyast.Name) and f.id == "B_open_slots" and len(node.args) >= 3:
            hi = _bound(node.args[2], env)[1]
            return 0, None if hi is None else hi - 1
        if isinstance(f, pyast.Name) and f.id in env["chunks"] and env["depth"] < 8:
            # a spec function: its value is its first return (generated by builtins.py)
            try:
                fn = pyast.parse(env["chunks"][f.id]).body[0]
            except SyntaxError:
                return None, None
            returns = [n for n in pyast.walk(fn) if isinstance(n, pyast.Return)]
            first = min(returns, key=lambda n: n.lineno) if returns else None
            if first is not None and first.value is not None:
                params = [a.arg for a in fn.args.args]
                inner = dict(env, depth=env["depth"] + 1,
                             vars={p: (None, None) for p in params})
                return _elements(first.value, inner)
        if isinstance(f, pyast.Lambda) and len(f.args.args) == len(node.args):
            inner = dict(env, vars=dict(env["vars"]))
            for param, arg in zip(f.args.args, node.args):
                inner["vars"][param.arg] = _bound(arg, env)
            return _elements(f.body, inner)
    if isinstance(node, (pyast.List, pyast.Tuple)) and node.elts:
        bounds = [_bound(e, env) for e in node.elts]
        return _union(bounds)
    if isinstance(node, pyast.IfExp):
        return _union([_elements(node.body, env), _elements(node.orelse, env)])
    if isinstance(node, pyast.Name) and node.id in env["ns"]:
        value = env["ns"][node.id]
        if isinstance(value, (list, tuple)) and value and all(type(v) is int for v in value):
            return min(value), max(value)
    return None, None


def _union(bounds) -> tuple:
    los, his = [b[0] for b in bounds], [b[1] for b in bounds]
    return (None if None in los else min(los)), (None if None in his else max(his))


def _bound(node, env) -> tuple:
    """(lo, hi) of a number expression's value, each None where unknown."""
    if isinstance(node, pyast.Constant) and type(node.value) is int:
        return node.value, node.value
    names = {n.id for n in pyast.walk(node) if isinstance(n, pyast.Name)}
    if names and names <= (set(env["ns"]) | {"len", "min", "max", "abs"}) - set(env["vars"]) \
            and not any(isinstance(n, pyast.Lambda) for n in pyast.walk(node)):
        try:
            value = eval(compile(pyast.Expression(node), "<domain>", "eval"), env["ns"])  # noqa: S307
        except Exception:      # not a constant after all
            value = None
        if type(value) is int:
            return value, value
    if isinstance(node, pyast.Name):
        if node.id in env["vars"]:
            return env["vars"][node.id]
        value = env["ns"].get(node.id)
        if type(value) is int:
            return value, value
        return None, None
    if isinstance(node, pyast.Attribute) and node.attr == "current" \
            and isinstance(node.value, pyast.Name) and node.value.id == "st":
        return 0, env["players"] - 1
    if isinstance(node, pyast.Subscript) and isinstance(node.value, pyast.Name):
        table = env["ns"].get(node.value.id)
        if isinstance(table, (list, tuple)) and table \
                and all(type(v) is int for v in table):
            return min(table), max(table)
        return None, None
    if isinstance(node, pyast.UnaryOp) and isinstance(node.op, pyast.USub):
        lo, hi = _bound(node.operand, env)
        return (None if hi is None else -hi), (None if lo is None else -lo)
    if isinstance(node, pyast.BinOp):
        a, b = _bound(node.left, env), _bound(node.right, env)
        if isinstance(node.op, pyast.Add):
            return _add(a[0], b[0]), _add(a[1], b[1])
        if isinstance(node.op, pyast.Sub):
            return _add(a[0], None if b[1] is None else -b[1]), \
                _add(a[1], None if b[0] is None else -b[0])
        if isinstance(node.op, pyast.Mult) and None not in a + b:
            products = [x * y for x in a for y in b]
            return min(products), max(products)
    return None, None


def _add(x, y):
    return None if x is None or y is None else x + y
