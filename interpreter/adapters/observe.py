"""A fixed-size numeric encoding of what a player observes, for learning code.

Input: a Game. Output: an Encoder whose `encode(state, player, out)` writes a float32
vector of a size fixed by the spec, the player count and the options (`size`), made only
of what State.observation(player) shows, and all of it but the legal actions (which the
frameworks give apart: OpenSpiel's legal_actions, PettingZoo's action mask): two states
whose observations are the same for a player give that player the same vector, and two
whose observations differ give different vectors, except where they differ only in the
items of a list variable without max_length. A list variable declared `type: list of T`
with `max_length: L` (Program.list_bounds) is written as its length, then its items one
by one (an assignment beyond L is a rule error); one without max_length is written as its
length only, so [1, 2] and [2, 1] give the same vector (`tabula validate` warns of a
`type: list of T` without max_length; a variable that is a list by its initial value
alone, with no type, is written by its length too, without the warning). numpy is
imported by the adapters that use this (adapters/openspiel.py, adapters/pettingzoo.py),
not here: `encode` fills any writable sequence of floats.

The vector is a sequence of parts (`Encoder.parts`, each a Part: its name, offset, shape
and what it means; `tabula compile --tensor` prints them for a spec). With P players, S
containers (slots), K piece kinds (the spec's distinct piece names, sorted), N pieces:

    observer           [P]       the observing player, one-hot
    to_choose          [P + 2]   each player still to choose (several at a simultaneous
                                 decision), then chance, then the end of the game
    turn               [1]       the turn number
    seen               [S]       1 where the observer sees how many pieces a container
                                 holds (every zone but a `hidden` one)
    count              [S]       how many pieces it holds, where seen
    kinds              [S, K]    how many pieces of each kind it holds, where the observer
                                 sees its pieces
    places             [N, 2]    where each piece the observer sees lies: rows grouped by
                                 kind (as many rows as the kind has pieces), each row a
                                 seen piece's container + 1 and its place in it + 1 (the
                                 order State.observation lists it in), in that order;
                                 rows of pieces not seen are 0
    attributes         [N, W]    the same rows: each seen piece's changeable attributes,
                                 each encoded by its type (below); left out (as any
                                 part of no size) when the spec has none
    variable NAME      [w]       a global variable that is not hidden (0 where the
                                 observer does not see it)
    player variable NAME [P, w]  a per-player variable that is not hidden, per player,
                                 where the observer sees it
    scores             [P]       the scores, once the game is over

A value is encoded by its declared type (Program.var_types, attr_types), in w floats:

    a number, a condition   2   the value (a condition 0 or 1), then 1 if it is none
    a text                  1   a number in (0, 1] fixed by its characters (crc32), 0 none
    an enum's value         1 + E  one-hot: none, then each value in the enum's order
    a player                1 + P  one-hot: none, then each player
    a piece                 1 + N  one-hot: none, then each piece by its number
    a cell (a container)    1 + S  one-hot: none, then each container
    a list with max_length L  1 + L*w(item)  its length, then each item (0 past it)
    a list without one      1   its length only: its items are not encoded

Nothing is normalised. A table variable is one variable per key, named NAME[key] as
observations show it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from ..runtime.model import CHANCE, sees


@dataclass(frozen=True)
class Part:
    """A slice of the vector: out[offset:offset + size] is `name`, of `shape`."""
    name: str
    offset: int
    shape: tuple
    meaning: str

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def text_code(value: str) -> float:
    """A text's code: a number in (0, 1] fixed by its characters."""
    return (zlib.crc32(value.encode("utf-8")) + 1) / 2.0 ** 32


class _Codec:
    """How the values of one static type are written: width floats, and write(out, at, v)."""

    def __init__(self, typ, prog, bound: int | None = None):
        self.typ = typ
        kind = typ[0]
        self.index: dict | None = None       # a one-hot's value -> its position (from 1)
        self.item: _Codec | None = None
        self.bound = 0
        self.width: int = 1
        if kind == "list":
            self.item = _Codec(typ[1], prog)
            self.bound = bound or 0
            self.width = 1 + self.bound * self.item.width
            self.write = self._list
            return
        if kind == "enum":
            values = prog.enums.get(typ[1], ())
            self.index = {v: i + 1 for i, v in enumerate(values)}
        elif kind == "player":
            self.index = {p: p + 1 for p in range(prog.players)}
        elif kind == "piece":
            self.index = {p: p + 1 for p in range(len(prog.piece_names))}
        elif kind in ("slot", "zone"):
            self.index = {s: s + 1 for s in range(prog.nslots)}
        if self.index is not None:
            self.width = 1 + len(self.index)
            self.write = self._one_hot
        elif kind == "str":
            self.width = 1
            self.write = self._text
        else:                                  # a number, a condition, or any value
            self.width = 2
            self.write = self._number

    def describe(self) -> str:
        kind = self.typ[0]
        if kind == "list":
            assert self.item is not None
            if not self.bound:
                return "its length (no max_length)"
            return (f"its length, then {self.bound} items of {self.item.width} "
                    f"({self.item.describe()})")
        if self.index is not None:
            return "one-hot: none, then " + {
                "enum": "each value of the enum", "player": "each player",
                "piece": "each piece by number", "slot": "each container",
                "zone": "each container"}[kind]
        if kind == "str":
            return "a code of the text in (0, 1], 0 for none"
        return "the value, then 1 if none"

    def _one_hot(self, out, at: int, v) -> None:
        assert self.index is not None
        if v is None:
            out[at] = 1.0
            return
        try:
            i = self.index.get(v)
        except TypeError:                       # an unhashable value: none of the known
            i = None
        if i is not None:
            out[at + i] = 1.0

    @staticmethod
    def _text(out, at: int, v) -> None:
        if isinstance(v, str):
            out[at] = text_code(v)
        elif v is not None:
            out[at] = _number(v)

    @staticmethod
    def _number(out, at: int, v) -> None:
        if v is None:
            out[at + 1] = 1.0
        elif isinstance(v, str):
            out[at] = text_code(v)
        else:
            out[at] = _number(v)

    def _list(self, out, at: int, v) -> None:
        if v is None:
            return
        out[at] = float(len(v))
        item = self.item
        assert item is not None
        w = item.width
        for j, x in enumerate(v[:self.bound]):
            item.write(out, at + 1 + j * w, x)


def _number(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        try:
            return float(len(v))
        except TypeError:
            return 0.0


class Encoder:
    """The observation vector of one game (see the module's docstring)."""

    def __init__(self, game):
        prog = game.prog
        self.prog = prog
        self.players = P = prog.players
        self.kinds = sorted(set(prog.piece_names))
        kind_index = {n: i for i, n in enumerate(self.kinds)}
        self.piece_kind = [kind_index[n] for n in prog.piece_names]
        S, K, N = prog.nslots, len(self.kinds), len(prog.piece_names)
        self.S, self.K, self.N = S, K, N
        # the first row of each kind in places and attributes
        per_kind = [0] * K
        for k in self.piece_kind:
            per_kind[k] += 1
        self.kind_row, row = [], 0
        for n in per_kind:
            self.kind_row.append(row)
            row += n
        # each container's zone and owner
        self.slot_zone = [prog.zone_list[prog.slot_zone[s]] for s in range(S)] \
            if prog.zone_list else []
        self.slot_owner = [prog.slot_owner[s] if prog.slot_owner else -1 for s in range(S)]
        self.attrs = [(r, _Codec(prog.attr_types[a], prog))
                      for r, a in enumerate(prog.changeable)]
        # per piece, per changeable attribute: does its component declare it (as the
        # observation's attributes show it)
        self.has_attr = [tuple(bool(prog.changeable_by[a][piece]) for a in prog.changeable)
                         for piece in range(N)] if prog.changeable else []
        self.W = sum(c.width for _, c in self.attrs)
        parts: list = []
        end = [0]

        def part(name, shape, meaning):      # a part of no size is left out of the list
            new = Part(name, end[0], tuple(shape), meaning)
            if new.size:
                parts.append(new)
                end[0] += new.size
            return new.offset

        self._observer = part("observer", (P,), "the observing player, one-hot")
        self._choose = part("to_choose", (P + 2,), "each player still to choose, then "
                            "chance, then the end of the game")
        self._turn = part("turn", (1,), "the turn number")
        self._seen = part("seen", (S,), "per container: 1 where its count is seen")
        self._count = part("count", (S,), "per container: how many pieces, where seen")
        self._kinds = part("kinds", (S, K), "per container and kind: how many pieces, "
                           "where its pieces are seen")
        self._places = part("places", (N, 2), "per piece of each kind (rows by kind): a "
                            "seen piece's container + 1 and place + 1")
        self._attributes = part("attributes", (N, self.W), "the same rows: each seen "
                                "piece's changeable attributes (" + ", ".join(
                                    f"{a}: {c.describe()}" for a, (_, c) in
                                    zip(prog.changeable, self.attrs)) + ")")
        self.globals = []
        for i, (name, vis) in enumerate(zip(prog.gvar_names, prog.gvar_vis)):
            if vis == "hidden":
                continue
            codec = _Codec(prog.var_types[name], prog, prog.list_bounds.get(name))
            at = part(f"variable {name}", (codec.width,), codec.describe())
            self.globals.append((i, at, codec))
        self.per_player = []
        for i, (name, vis) in enumerate(zip(prog.pvar_names, prog.pvar_vis)):
            if vis == "hidden":
                continue
            codec = _Codec(prog.var_types[name], prog, prog.list_bounds.get(name))
            at = part(f"player variable {name}", (P, codec.width),
                      f"per player, where seen: {codec.describe()}")
            self.per_player.append((i, vis, at, codec))
        self._scores = part("scores", (P,), "the scores, once the game is over")
        self.parts: list[Part] = parts
        self.size = end[0]

    def shapes(self) -> list:
        """[(name, shape)] of the parts, in order."""
        return [(p.name, p.shape) for p in self.parts]

    def containers(self) -> list:
        """Which containers the slot numbers are: [{zone, owner (None if shared), first,
        count}] in slot order (container s is row s of seen, count and kinds)."""
        out = []
        for name, z in self.prog.zones.items():
            for o in (range(self.players) if z.per_player else [None]):
                out.append({"zone": name, "owner": o,
                            "first": z.base + (o or 0) * z.nslots, "count": z.nslots})
        return sorted(out, key=lambda c: c["first"])

    def layout(self) -> list:
        """The parts as plain data: [{name, offset, size, shape, meaning}], in order."""
        return [{"name": p.name, "offset": p.offset, "size": p.size,
                 "shape": list(p.shape), "meaning": p.meaning} for p in self.parts]

    def encode(self, state, player: int, out) -> None:
        """Write player's observation of state into out (size floats, zeroed here)."""
        for i in range(self.size):
            out[i] = 0.0
        P, S, K = self.players, self.S, self.K
        out[self._observer + player] = 1.0
        choose = self._choose
        if state.terminal:
            out[choose + P + 1] = 1.0
        elif state.is_chance_node():
            out[choose + P] = 1.0
        else:
            for who in state.deciding():    # a simultaneous node's every chooser
                out[choose + who] = 1.0
        out[self._turn] = float(state.turn)
        seen, count, kinds = self._seen, self._count, self._kinds
        places, attributes, W = self._places, self._attributes, self.W
        piece_kind, next_row = self.piece_kind, list(self.kind_row)
        zones, owners = self.slot_zone, self.slot_owner
        attrs, has_attr, pa = self.attrs, self.has_attr, state.pa
        for s in range(S):
            z = zones[s]
            if z.visibility == "hidden":
                continue
            content = state.slots[s]
            out[seen + s] = 1.0
            out[count + s] = float(len(content))
            if not z.shows(owners[s], player):
                continue                         # only how many (as zones_view shows)
            for place, piece in enumerate(content):
                k = piece_kind[piece]
                out[kinds + s * K + k] += 1.0
                row = next_row[k]               # containers and places come in order
                next_row[k] = row + 1
                out[places + 2 * row] = s + 1.0
                out[places + 2 * row + 1] = place + 1.0
                at = attributes + row * W
                for j, (r, codec) in enumerate(attrs):
                    if has_attr[piece][j]:
                        codec.write(out, at, pa[r][piece])
                    at += codec.width
        for i, at, codec in self.globals:
            codec.write(out, at, state.gv[i])
        for i, vis, at, codec in self.per_player:
            for p in range(P):
                if sees(vis, p, player):
                    codec.write(out, at + p * codec.width, state.pv[p][i])
        if state.terminal:
            for p, v in enumerate(state.scores()):
                out[self._scores + p] = _number(v)


__all__ = ["CHANCE", "Encoder", "Part", "text_code"]
