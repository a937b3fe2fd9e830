"""A fixed-size numeric encoding of what a player observes, for learning code.

Input: a Game. Output: an Encoder whose `encode(state, player)` writes a float32 vector
of a size fixed by the spec, the player count and the options (`size`), made only of
what State.observation(player) shows: a zone the player may not look into adds nothing
but, where its visibility shows them, how many pieces it holds. numpy is imported by the
adapters that use this (interpreter/adapters/openspiel.py, interpreter/adapters/pettingzoo.py),
not here: `encode` fills any writable sequence of floats.

The vector, in order (P players, S containers, K piece kinds = distinct piece names of
the spec, A changeable attributes, G global and V per-player variables):

    [P]      the observing player, one-hot
    [P + 2]  who is to choose: each player still to choose (several at a simultaneous
             decision), then chance, then the end of the game
    [S]      1 where the observer sees how many pieces a container holds (every
             zone but a `hidden` one, as State.zones_view)
    [S]      how many pieces it holds, where seen (else 0)
    [S * K]  how many pieces of each kind it holds, where the observer sees them (a
             piece's kind is its name in the spec; a piece keeps its kind when a
             changeable attribute changes)
    [S * A]  per container and changeable attribute: the sum of the attribute's code
             over the pieces the observer sees there
    [G]      each public global variable's code (0 for a hidden one)
    [V * P]  each per-player variable's code per player, where the observer sees it

A value's code: a number itself, a condition 0 or 1, none 0, a text (an enum value)
a number in (0, 1] fixed by its characters (crc32), a list or table its length.
"""

from __future__ import annotations

import zlib

from ..runtime.model import CHANCE, sees


def code(value) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return (zlib.crc32(value.encode()) % 1000 + 1) / 1000.0
    try:
        return float(len(value))
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
        S, K, A = prog.nslots, len(self.kinds), len(prog.changeable)
        self.S, self.K, self.A = S, K, A
        # each container's zone's visibility and owner
        self.slot_vis, self.slot_owner = [], []
        for s in range(S):
            z = prog.zone_list[prog.slot_zone[s]] if prog.zone_list else None
            self.slot_vis.append(z.visibility if z is not None else "public")
            self.slot_owner.append(prog.slot_owner[s] if prog.slot_owner else -1)
        G, V = len(prog.gvar_names), len(prog.pvar_names)
        self.parts = [("observer", P), ("to_choose", P + 2), ("seen", S), ("count", S),
                      ("kinds", S * K), ("attributes", S * A), ("globals", G),
                      ("player_variables", V * P)]
        self.size = sum(n for _, n in self.parts)

    def shapes(self) -> list:
        """[(name, shape)] of the parts, in order."""
        S, K, A, P = self.S, self.K, self.A, self.players
        shapes = {"kinds": (S, K), "attributes": (S, A),
                  "player_variables": (len(self.prog.pvar_names), P)}
        return [(n, shapes.get(n, (size,))) for n, size in self.parts]

    def encode(self, state, player: int, out) -> None:
        """Write player's observation of state into out (size floats, zeroed here)."""
        for i in range(self.size):
            out[i] = 0.0
        prog, P, S, K, A = self.prog, self.players, self.S, self.K, self.A
        out[player] = 1.0
        base = P
        if state.terminal:
            out[base + P + 1] = 1.0
        elif state.is_chance_node():
            out[base + P] = 1.0
        else:
            for who in state.deciding():    # a simultaneous node's every chooser
                out[base + who] = 1.0
        seen, count = base + P + 2, base + P + 2 + S
        kinds = count + S
        attrs = kinds + S * K
        rows = [(a, state.pa[r]) for r, a in enumerate(prog.changeable)]
        for s in range(S):
            vis, owner = self.slot_vis[s], self.slot_owner[s]
            if vis == "hidden":
                continue
            content = state.slots[s]
            out[seen + s] = 1.0
            out[count + s] = float(len(content))
            if not sees(vis, owner, player):
                continue                         # only how many (as zones_view shows)
            for piece in content:
                out[kinds + s * K + self.piece_kind[piece]] += 1.0
                for j, (_, row) in enumerate(rows):
                    out[attrs + s * A + j] += code(row[piece])
        g = attrs + S * A
        for i, (v, vis) in enumerate(zip(state.gv, prog.gvar_vis)):
            if vis == "public":
                out[g + i] = code(v)
        pv = g + len(prog.gvar_names)
        for i, vis in enumerate(prog.pvar_vis):
            if vis == "hidden":
                continue
            for p in range(P):
                if sees(vis, p, player):
                    out[pv + i * P + p] = code(state.pv[p][i])


__all__ = ["CHANCE", "Encoder", "code"]
