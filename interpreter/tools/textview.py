"""The table drawn as text, as one seat sees it (the board of `tabula play`).

Input: a State and a viewer (a player, or None for a referee who sees everything).
Output: lines of text for an 80-100 column terminal. Everything drawn comes from the
viewer's observation (State.observation) and from the spec's static tables (each zone's
kind, shape and visibility, each variable's type): a zone the viewer may not look into
is drawn as its count or as hidden, exactly as the observation gives it. Nothing here
knows a game: grids are drawn as grids (hex boards with odd rows offset), zones of
several slots as labelled rows, per-player zones and variables grouped by player.

Grid cells show short codes for piece names (`abbreviate`): a name of 3 characters or
less stands for itself; otherwise every name gets a code made of its initials or first
letters, unique among the game's names, and a legend under the grid names the codes of
the pieces on it.
"""

from __future__ import annotations

import json
import random
import re

from ..errors import TabulaError
from ..runtime.model import CHANCE, TERMINAL, sees
from ..runtime.readers import piece_names_now

__all__ = ["SEVERAL", "Drawer", "abbreviate", "grouped", "known_scores", "wrap"]

BOARDS = ("grid", "hex")
EMPTY = "-"          # an empty zone or slot
CELL_EMPTY = "."     # an empty grid cell
SEP = " | "         # between the items of a line
SHORT = 3            # names this long or shorter stand for themselves in grid cells
SCORE_SAMPLES = 8    # sampled worlds that must agree before a score is shown
SEVERAL = "*"        # a marked cell where several choices place


# ---- text helpers ---------------------------------------------------------------------------

def wrap(head: str, text: str, width: int, indent: int | None = None) -> list:
    """`head` + `text` in lines of at most `width` characters, broken after the commas
    and dots that separate items (inside an item only if it is longer than a line); the
    lines after the first are indented under the text (or by `indent`)."""
    pad = " " * (len(head) if indent is None else indent)
    items = re.split(r"(?<=,) |(?<= \|) ", text)
    lines, line, fresh = [], head, True
    for item in items:
        if not fresh and len(line) + 1 + len(item) > width:
            lines.append(line.rstrip())
            line, fresh = pad, True
        if fresh and len(line) + len(item) > width:        # an item longer than a line
            for w in item.split(" "):
                if not fresh and len(line) + 1 + len(w) > width:
                    lines.append(line.rstrip())
                    line, fresh = pad, True
                line += ("" if fresh else " ") + w
                fresh = False
            continue
        line += ("" if fresh else " ") + item
        fresh = False
    lines.append(line.rstrip())
    return lines


def grouped(names: list, runs_only: bool = False) -> str:
    """Piece names as text, each name once with its count, "stone (3), star": in order of
    first appearance, or (runs_only: where order matters, a pile) runs of one name."""
    out: list = []
    index: dict = {}
    for name in names:
        if runs_only:
            if out and out[-1][0] == name:
                out[-1][1] += 1
            else:
                out.append([name, 1])
        elif name in index:
            out[index[name]][1] += 1
        else:
            index[name] = len(out)
            out.append([name, 1])
    return ", ".join(f"{n} ({k})" if k > 1 else str(n) for n, k in out)


# ---- short codes for grid cells ------------------------------------------------------------

def _candidates(name: str) -> list:
    """Codes a name could have, the shortest and most natural first."""
    words = [w for w in re.split(r"[\s_\-.:/,]+", name) if w] or [name or "?"]

    def head(w):
        return w if w.isdigit() else w[0]
    out = []
    if len(name) <= SHORT:
        out.append(name)
    out.append("".join(head(w) for w in words))
    if len(words) > 1:
        out.append(words[0][:2] + "".join(head(w) for w in words[1:]))
    squeezed = "".join(words)
    out += [squeezed[:k] for k in (2, 3, 4)]
    if len(words) > 1:
        out.append(words[0][:3] + "".join(head(w) for w in words[1:]))
    seen, unique = set(), []
    for c in out:
        if c and c not in seen:
            seen.add(c)
            unique.append(c)
    return unique


def abbreviate(names) -> dict:
    """A short code for every name, unique among them: the names themselves when all are
    short; otherwise initials or first letters, lengthened where two names would share a
    code ("stone", "star" -> "sto", "sta"; "piece 1" -> "p1"; "red token" -> "rt")."""
    names = sorted(set(str(n) for n in names))
    if all(len(n) <= SHORT for n in names):
        return {n: n for n in names}
    cands = {n: _candidates(n) for n in names}
    level = {n: 0 for n in names}
    while True:
        code = {n: cands[n][min(level[n], len(cands[n]) - 1)] for n in names}
        by_code: dict = {}
        for n, c in code.items():
            by_code.setdefault(c, []).append(n)
        clashes = [g for g in by_code.values() if len(g) > 1]
        if not clashes:
            return code
        moved = False
        for group in clashes:
            for n in group:
                if level[n] < len(cands[n]) - 1:
                    level[n] += 1
                    moved = True
        if not moved:
            break
    # names alike to the last candidate: numbered
    taken, out = set(), {}
    for n in names:
        base = code[n][:3]
        c, k = base, 1
        while c in taken:
            k += 1
            c = f"{base}{k}"
        taken.add(c)
        out[n] = c
    return out


# ---- scores the viewer may know ------------------------------------------------------------

def _perturbable(prog, viewer) -> list | None:
    """The variables the viewer cannot see, as (kind, index, player) to change in sampled
    worlds; None if one of them is of a type that cannot be changed blindly."""
    types = prog.var_types
    if not types and (prog.gvar_names or prog.pvar_names):
        return None
    out = []
    for i, vis in enumerate(prog.gvar_vis):
        if vis != "public":
            out.append(("g", i, None, types[prog.gvar_names[i]]))
    for i, vis in enumerate(prog.pvar_vis):
        for p in range(prog.players):
            if not sees(vis, p, viewer):
                out.append(("p", i, p, types[prog.pvar_names[i]]))
    if any(t[0] not in ("int", "bool", "player") for *_, t in out):
        return None
    return out


def known_scores(st, viewer) -> list | None:
    """Each player's score as far as `viewer` can know it, or None where it may depend on
    what the viewer cannot see; None for all if the spec's scoring cannot be computed
    here. A score is shown when it is the same in the true state and in SCORE_SAMPLES
    worlds the viewer cannot tell from it: the pieces it cannot see redistributed
    (State.resample) and the variables it cannot see changed. A referee (viewer None)
    and a finished game's observation know every score."""
    try:
        true = st.scores()
    except TabulaError:
        return None
    if viewer is None or st.terminal:
        return list(true)
    prog = st.prog
    hidden = [s for s in st.hidden_slots(viewer) if st.slots[s]]
    unseen = _perturbable(prog, viewer)
    if unseen is None:
        return [None] * prog.players
    if not hidden and not unseen:
        return list(true)
    known = list(true)
    rng = random.Random(f"tabula-scores:{len(st.history)}")
    for _ in range(SCORE_SAMPLES):
        try:
            world = st.resample(viewer, rng)
            for kind, i, p, t in unseen:
                row = world.gv if kind == "g" else world.pv[p]
                v = row[i]
                if t[0] == "bool":
                    row[i] = not v
                elif t[0] == "player":
                    row[i] = rng.randrange(prog.players)
                elif isinstance(v, int):
                    row[i] = v + rng.choice([-3, -2, -1, 1, 2, 3, 7, 11])
            world.changed()
            sampled = world.scores()
        except TabulaError:
            return [None] * prog.players
        except (TypeError, ValueError, IndexError, KeyError, AttributeError):
            return [None] * prog.players
        known = [k if k is not None and k == s else None for k, s in zip(known, sampled)]
    return known


# ---- the drawer ------------------------------------------------------------------------------

class Drawer:
    """Draws states of one game (compiled for its players and options) as text."""

    def __init__(self, game, width: int = 100, title: str | None = None):
        self.game = game
        self.prog = game.prog
        self.width = max(60, int(width))
        self.title = title or game.id
        self.codes = abbreviate(self.prog.piece_names)
        types = self.prog.var_types
        self.gtypes = [types.get(n, ("any",)) for n in self.prog.gvar_names]
        self.ptypes = [types.get(n, ("any",)) for n in self.prog.pvar_names]

    # -- codes --------------------------------------------------------------------------------
    def code(self, name: str) -> str:
        c = self.codes.get(name)
        if c is None:                   # a name made during play (a changed attribute)
            self.codes = abbreviate(list(self.codes) + [name])
            c = self.codes[name]
        return c

    # -- values ------------------------------------------------------------------------------
    def slot_name(self, s) -> str:
        prog = self.prog
        if not isinstance(s, int) or not 0 <= s < prog.nslots:
            return str(s)
        z = prog.zone_list[prog.slot_zone[s]]
        i = prog.slot_index[s]
        o = prog.slot_owner[s]
        name = z.name if o < 0 else f"player {o}'s {z.name}"
        if z.kind in BOARDS:
            return f"{name}[{i % z.width},{i // z.width}]"
        return f"{name}[{i}]" if z.nslots > 1 else name

    def value(self, v, t, st, viewer) -> str:
        """A variable's value as text, by its type: players, cells and pieces by name (a
        piece the viewer cannot see stays unnamed)."""
        kind = t[0] if t else "any"
        if v is None:
            return "none"
        if isinstance(v, bool):
            return "true" if v else "false"
        if kind == "list" and isinstance(v, list):
            return "[" + ", ".join(self.value(x, t[1], st, viewer) for x in v) + "]"
        if kind == "player" and isinstance(v, int):
            return f"player {v}" if 0 <= v < self.prog.players else "none"
        if kind in ("slot", "zone") and isinstance(v, int):
            return self.slot_name(v)
        if kind == "piece" and isinstance(v, int):
            if not 0 <= v < len(st.where):
                return "none"
            s = st.where[v]
            if viewer is not None and s in st.hidden_slots(viewer):
                return "a piece you cannot see"
            return piece_names_now(st)[v]
        if isinstance(v, (dict, list)):
            return json.dumps(v)
        return str(v)

    def variables(self, names: list, values: dict, types: dict, st, viewer) -> list:
        """name value pairs as text; the entries of a table variable (`stock[wood]`) as one
        item: "stock: wood 3, clay 1"."""
        items: list = []
        tables: dict = {}
        for n in names:
            if n not in values:
                continue
            text = self.value(values[n], types.get(n), st, viewer)
            m = re.fullmatch(r"(.+)\[(.+)\]", n)
            if m:
                key = m.group(1)
                if key not in tables:
                    tables[key] = []
                    items.append((key, tables[key]))
                tables[key].append(f"{m.group(2)} {text}")
            else:
                items.append((n, text))
        return [f"{n} {v}" if isinstance(v, str) else f"{n}: {', '.join(v)}"
                for n, v in items]

    # -- zones ---------------------------------------------------------------------------------
    def pieces(self, value, zone) -> str:
        """One slot's content as the viewer sees it."""
        if value is None:
            return "hidden"
        if isinstance(value, dict):
            k = value.get("count", 0)
            return f"{k} face down" if k else EMPTY
        if not value:
            return EMPTY
        text = grouped(value, runs_only=zone.kind != "set")
        if zone.kind == "stack" and len(set(value)) > 1:
            text += f"  (top: {value[-1]})"
        return text

    def slot_rows(self, value, zone, indent: str) -> list:
        """A zone of several slots: one labelled row per slot, numbered from 1 as a
        rulebook numbers its spaces (zone[0] is 1); a run of three or more empty slots
        on one row ("4-9  -")."""
        if value is None:
            return [f"{indent}hidden"]
        n = zone.nslots
        if isinstance(value, dict):
            counts = value.get("count") or [0] * n
            contents = [{"count": k} for k in counts]
        else:
            contents = value
        texts = [self.pieces(c, zone) for c in contents]
        runs, i = [], 0
        while i < n:
            j = i
            while j + 1 < n and texts[j + 1] == EMPTY and texts[i] == EMPTY:
                j += 1
            if texts[i] == EMPTY and j - i >= 2:
                runs.append((f"{i + 1}-{j + 1}", EMPTY))
                i = j + 1
            else:
                runs.append((str(i + 1), texts[i]))
                i += 1
        width = max(len(label) for label, _ in runs)
        out = []
        for label, text in runs:
            out += wrap(f"{indent}{label:>{width}}  ", text, self.width)
        return out

    def cell_room(self, zone) -> int:
        """The most characters a cell of this board can show at this width."""
        label = len(str(zone.height - 1))
        room = self.width - label - 3 - (1 if zone.kind == "hex" else 0)
        return max(1, room // zone.width - 1)

    def grid(self, value, zone, marks: dict | None = None) -> list:
        """A grid or hex board: rows and columns with their coordinates (x across, y
        down, as board[x, y]); each cell its pieces' codes, bottom first. marks: {cell
        index: text} shown in those cells instead of their pieces (the numbers of the
        choices that place there: tabula play), with a line under the grid saying so."""
        w, h = zone.width, zone.height
        if value is None:
            return ["  hidden"]
        if isinstance(value, dict):
            counts = value.get("count") or [0] * (w * h)
            cells = [str(k) if k else CELL_EMPTY for k in counts]
            present: list = []
        else:
            cells, present = [], []
            for content in value:
                codes = []
                for name in content:
                    c = self.code(name)
                    if name not in present:
                        present.append(name)
                    if codes and codes[-1][0] == c:
                        codes[-1][1] += 1
                    else:
                        codes.append([c, 1])
                cells.append("+".join(c if k == 1 else f"{c}*{k}" for c, k in codes)
                             or CELL_EMPTY)
        covered = False             # a number over pieces
        for i, text in (marks or {}).items():
            if 0 <= i < len(cells):
                covered = covered or cells[i] != CELL_EMPTY
                cells[i] = text
        label = len(str(h - 1))
        hex_board = zone.kind == "hex"
        natural = max([len(c) for c in cells] + [len(str(w - 1))])
        cap = self.cell_room(zone)
        cw = min(natural, cap)
        if hex_board and cw % 2 == 0 and cw < cap:
            cw += 1             # an odd width: the offset of half a cell is whole
        shift = " " * ((cw + 1) // 2) if hex_board else ""

        def fit(text):
            return text if len(text) <= cw else text[:max(cw - 1, 0)] + "~"
        out = [" " * (label + 3) + " ".join(f"{x:<{cw}}"[:cw] if len(str(x)) <= cw
                                           else str(x)[-cw:] for x in range(w)).rstrip()]
        for y in range(h):
            row = " ".join(f"{fit(cells[y * w + x]):<{cw}}" for x in range(w))
            out.append(f"  {y:>{label}} " + (shift if y % 2 else "") + row.rstrip())
        legend = [f"{self.code(n)} {n}" for n in sorted(present, key=self.code)
                  if self.code(n) != n]
        if legend:
            out += wrap("  legend: ", ", ".join(legend), self.width, indent=10)
        if marks:
            several = any(t == SEVERAL for t in marks.values())
            out += wrap("  numbered: ", "the choice that places there" +
                        (f"; {SEVERAL}: several do (listed below)" if several else "") +
                        ("; 'board' shows the pieces under the numbers" if covered else ""),
                        self.width, indent=4)
        return out

    def zone_lines(self, zone, value, indent: str, lw: int, marks: dict | None = None) -> list:
        """A zone's lines: its name and content on one line, or its name and then a
        grid (marks: as for grid) or its slots' rows."""
        if zone.kind in BOARDS:
            return [f"{indent}{zone.name} ({zone.width} x {zone.height}"
                    f"{', hex' if zone.kind == 'hex' else ''})"] + \
                   [indent + line for line in self.grid(value, zone, marks)]
        if zone.nslots > 1:
            return [f"{indent}{zone.name} ({zone.kind}: {zone.nslots} slots, "
                    "numbered from 1, pieces bottom first)"] + \
                self.slot_rows(value, zone, indent + "  ")
        return wrap(f"{indent}{zone.name:<{lw}}  ", self.pieces(value, zone), self.width)

    # -- the whole table -----------------------------------------------------------------------
    def status(self, st, seats: list, viewer) -> str:
        """Whose decision it is, in a line."""
        if st.terminal:
            return "the game is over"
        who = st.current_player()
        if who == CHANCE:
            return "chance to decide"
        if who == TERMINAL:
            return "nobody to decide"
        if st.is_simultaneous_node():
            # a seat sees one node where every chooser chooses at once: who has chosen
            # already is not its to know (its own choice aside); a referee sees all
            p = st.pending
            done = [w for w, _ in p.joint[:len(p.chosen)]]
            todo = st.deciding() if viewer is not None else st.choosers()
            text = ("simultaneous decision: " + ", ".join(self.seat(q, seats, viewer)
                                                          for q in todo) + " to choose")
            if viewer is None and done:
                text += " (" + ", ".join(f"player {q}" for q in done) + " has chosen)"
            elif viewer in done:
                text += " (you have chosen)"
            return text
        return f"{self.seat(who, seats, viewer)} to decide"

    def seat(self, p: int, seats: list, viewer) -> str:
        name = seats[p] if seats and p < len(seats) else ""
        if p == viewer:
            return f"player {p} (you)"
        return f"player {p}" + (f" ({name})" if name else "")

    def draw(self, st, viewer, seats: list | None = None, scores: list | None = None) -> str:
        """The table as `viewer` sees it (None: everything), with whose decision it is,
        the shared zones (boards first), the public variables, then one block per
        player: their seat, score, variables and zones."""
        status, rest, boards = self.draw_parts(st, viewer, seats, scores)
        return "\n".join(status + boards + rest)

    def draw_parts(self, st, viewer, seats: list | None = None, scores: list | None = None,
                   marks: dict | None = None) -> tuple:
        """The table in three parts, as lists of lines: whose decision it is; the shared
        zones that are not boards, the public variables and the players' blocks; the
        boards. draw() puts the boards second; `tabula play` puts them last, next to the
        choices, so that they stay on the screen. marks: {zone name: {cell index:
        text}} (see grid)."""
        prog = self.prog
        obs = st.observation(viewer) if viewer is not None else _referee_view(st)
        seats = seats or []
        status = wrap("== ", SEP.join([self.title, f"turn {st.turn}",
                                       self.status(st, seats, viewer)]
                                      + ([] if viewer is not None else ["full view"])),
                      self.width, indent=3)
        lines: list = []
        zones = obs["zones"]
        shared = [z for z in prog.zone_list if not z.per_player]
        boards = [z for z in shared if z.kind in BOARDS]
        rest = [z for z in shared if z.kind not in BOARDS]
        board_lines: list = []
        for z in boards:
            board_lines += self.zone_lines(z, zones.get(z.name), "", 0,
                                           (marks or {}).get(z.name))
        lw = min(18, max([len(z.name) for z in rest if z.nslots == 1] + [0]))
        for z in rest:
            lines += self.zone_lines(z, zones.get(z.name), "", lw)
        gnames = [n for n, vis in zip(prog.gvar_names, prog.gvar_vis)]
        gtypes = dict(zip(prog.gvar_names, self.gtypes))
        gv = self.variables(gnames, obs.get("variables", {}), gtypes, st, viewer)
        if gv:
            lines += wrap("variables: ", SEP.join(gv), self.width, indent=2)
        ptypes = dict(zip(prog.pvar_names, self.ptypes))
        pvars = obs.get("player_variables", {})
        mine = [z for z in prog.zone_list if z.per_player]
        plw = min(18, max([len(z.name) for z in mine if z.nslots == 1] + [0]))
        order = list(range(prog.players))
        if viewer is not None and 0 <= viewer < prog.players:
            order = [viewer] + [p for p in order if p != viewer]
        for p in order:
            head = [self.seat(p, seats, viewer)]
            if scores is not None and p < len(scores):
                head.append(f"score {'?' if scores[p] is None else _num(scores[p])}")
            values = {n: per[str(p)] for n, per in pvars.items() if str(p) in per}
            head += self.variables(list(prog.pvar_names), values, ptypes, st, viewer)
            lines += wrap("", SEP.join(head), self.width, indent=2)
            for z in mine:
                lines += self.zone_lines(z, zones.get(z.name, {}).get(str(p)), "  ", plw)
        if scores is not None and any(s is None for s in scores) and not st.terminal:
            lines.append("(score ?: it depends on what you cannot see)")
        return status, lines, board_lines


def _num(x) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _referee_view(st) -> dict:
    """Everything in a state, in the shape of an observation."""
    prog = st.prog
    return {"zones": st.zones_view(None),
            "variables": dict(zip(prog.gvar_names, st.gv)),
            "player_variables": {n: {str(p): st.pv[p][i] for p in range(prog.players)}
                                 for i, n in enumerate(prog.pvar_names)}}
