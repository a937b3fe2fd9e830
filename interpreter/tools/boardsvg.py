"""The table as a seat sees it, drawn as SVG from the spec's zones (tabula serve).

Input: a State and a seat (or None: a referee, who sees everything). Output: `draw`, an
SVG document of every zone: a grid or hex board as a board of cells with their pieces,
a zone of several containers (columns, a track, a chain, a market) as a row of boxes,
a zone of one container (a hand, a pile) as a box of pieces, and a container the seat
sees only the count of as that count, face down. Containers and pieces carry their
numbers (data-slot, data-piece) so that a page can make the places of the legal actions
(tools/placing.py) clickable.

Each piece carries its full name as its tooltip (an SVG <title>): the text drawn on it
is cut to its width. Only what State.zones_view(seat) gives is drawn: the names of the
pieces where the seat may look, a count where it sees only how many, nothing where it
sees nothing. Pieces carry their number (data-piece) only where the seat sees them.
"""

from __future__ import annotations

import zlib
from html import escape

CELL = 46           # a board cell's side, in pixels
BOX = 56            # a container's box in a row
CARD_W, CARD_H = 62, 26
ROW_MAX = 12        # boxes of a row before it wraps
WIDTH = 860


def colour(name: str) -> str:
    """A piece's fill: a hue fixed by its kind's name (the name without its digits), so
    that pieces of one kind look alike; the spec says nothing of colours, and their
    names are not read for any."""
    kind = "".join(ch for ch in name if not ch.isdigit()).strip("-_ ") or name
    hue = zlib.crc32(kind.encode("utf-8")) % 360
    return f"hsl({hue},55%,78%)"


class _Canvas:
    def __init__(self):
        self.parts: list = []
        self.y = 8

    def add(self, text: str) -> None:
        self.parts.append(text)


def _piece(c: _Canvas, x: float, y: float, name: str, piece, w=CARD_W, h=CARD_H) -> None:
    data = f' data-piece="{piece}"' if piece is not None else ""
    # the full name as the piece's tooltip: the text drawn on it may be cut short
    c.add(f'<g class="piece"{data}><title>{escape(name)}</title>'
          f'<rect x="{x:.0f}" y="{y:.0f}" width="{w}" height="{h}" '
          f'rx="5" fill="{colour(name)}" stroke="#555"/><text x="{x + w / 2:.0f}" '
          f'y="{y + h / 2 + 4:.0f}" text-anchor="middle" font-size="11" '
          f'fill="#000">'
          f'{escape(_short(name, w))}</text></g>')


def _short(name: str, w: int) -> str:
    most = max(3, w // 7)
    return name if len(name) <= most else name[:most - 1] + "\u2026"


def _slot_box(c: _Canvas, x, y, w, h, slot: int, label: str = "", shape="rect") -> None:
    title = f"<title>{escape(label)}</title>" if label else ""
    if shape == "hex":
        r = w / 2
        pts = " ".join(f"{x + r + r * dx:.1f},{y + r + r * dy:.1f}" for dx, dy in
                       ((0, -1), (0.87, -0.5), (0.87, 0.5), (0, 1), (-0.87, 0.5),
                        (-0.87, -0.5)))
        c.add(f'<polygon class="slot" data-slot="{slot}" points="{pts}" fill="#f4efe4" '
              f'stroke="#8a7f6a">{title}</polygon>')
    else:
        c.add(f'<rect class="slot" data-slot="{slot}" x="{x:.0f}" y="{y:.0f}" width="{w}" '
              f'height="{h}" fill="#f4efe4" stroke="#8a7f6a">{title}</rect>')


def _contents(c: _Canvas, x, y, w, h, value, pieces) -> None:
    """What one container shows: its pieces' names, or its count face down, or nothing."""
    if value is None:
        c.add(f'<text x="{x + 4:.0f}" y="{y + 14:.0f}" font-size="10" fill="#999">hidden</text>')
        return
    if isinstance(value, dict):
        n = value.get("count", 0)
        c.add(f'<g class="count"><rect x="{x + 3:.0f}" y="{y + 3:.0f}" width="{w - 6}" '
              f'height="{min(h - 6, CARD_H)}" rx="4" fill="#5b6b8c" stroke="#333"/>'
              f'<text x="{x + w / 2:.0f}" y="{y + 20:.0f}" text-anchor="middle" '
              f'font-size="11" fill="#fff">{n} face down</text></g>')
        return
    pw = w - 6
    ph = min(CARD_H, max(10, (h - 6) // max(1, len(value))))
    for k, name in enumerate(value):
        py = y + 3 + k * ph
        if py + ph > y + h:
            c.add(f'<text x="{x + 4:.0f}" y="{y + h - 3:.0f}" font-size="10">'
                  f'+{len(value) - k} more</text>')
            break
        _piece(c, x + 3, py, name, pieces[k] if k < len(pieces) else None, pw, ph)


def _owned(zone, view, owner):
    """A zone's value for one owner's copy (zones_view shapes a per-player zone by owner)."""
    return view.get(str(owner)) if zone.per_player else view


def draw(st, seat, title: str = "", names: list | None = None) -> str:
    """The SVG of the table as `seat` sees it (None: every piece)."""
    prog = st.prog
    view = st.zones_view(seat)
    hidden = set(st.hidden_slots(seat)) if seat is not None else set()
    c = _Canvas()
    if title:
        c.add(f'<text x="8" y="{c.y + 14}" font-size="16" font-weight="bold">'
              f'{escape(title)}</text>')
        c.y += 26
    for zname, z in prog.zones.items():
        owners = list(range(prog.players)) if z.per_player else [-1]
        for o in owners:
            value = _owned(z, view[zname], o)
            base = z.base + max(o, 0) * z.nslots
            who = ""
            if o >= 0:
                who = f" of {names[o]}" if names else f" of player {o}"
            label = f"{zname}{who}"
            c.add(f'<text x="8" y="{c.y + 12}" font-size="12" fill="#444">'
                  f'{escape(label)}</text>')
            c.y += 16
            slots = list(range(base, base + z.nslots))
            if z.nslots == 1:
                values = [value]
            elif isinstance(value, dict):
                counts = value.get("count", [])
                values = [{"count": n} for n in counts]
            elif value is None:
                values = [None] * z.nslots
            else:
                values = value
            seen = [[p for p in st.slots[s]] if s not in hidden else [] for s in slots]
            if z.kind in ("grid", "hex") and z.width > 1 and z.height > 1:
                _board(c, z, slots, values, seen)
            elif z.nslots == 1:
                n = len(values[0]) if isinstance(values[0], list) else 1
                per_row = max(1, (WIDTH - 20) // (CARD_W + 4))
                rows = max(1, -(-n // per_row))
                h = rows * (CARD_H + 4) + 6
                _slot_box(c, 8, c.y, WIDTH - 16, h, slots[0], label)
                if isinstance(values[0], list):
                    for k, name in enumerate(values[0]):
                        px = 12 + (k % per_row) * (CARD_W + 4)
                        py = c.y + 3 + (k // per_row) * (CARD_H + 4)
                        _piece(c, px, py, name, seen[0][k] if k < len(seen[0]) else None)
                else:
                    _contents(c, 8, c.y, 140, h, values[0], [])
                c.y += h + 10
            else:
                _row(c, z, slots, values, seen, label)
    c.y += 4
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{c.y}" '
            f'viewBox="0 0 {WIDTH} {c.y}" font-family="sans-serif">' + "".join(c.parts)
            + "</svg>")


def _board(c: _Canvas, z, slots, values, seen) -> None:
    hexes = z.kind == "hex"
    step_x = CELL * (0.87 if hexes else 1)
    for i, s in enumerate(slots):
        x, y = i % z.width, i // z.width
        px = 8 + x * step_x * (1.0 if not hexes else 1.15) + (CELL / 2 if hexes and y % 2 else 0)
        py = c.y + y * (CELL * 0.87 if hexes else CELL)
        _slot_box(c, px, py, CELL, CELL, s, f"{z.name}[{i}]", "hex" if hexes else "rect")
        v = values[i] if i < len(values) else None
        if isinstance(v, list) and v:
            _piece(c, px + 4, py + CELL / 2 - 10, v[-1], seen[i][-1] if seen[i] else None,
                   CELL - 8, 20)
            if len(v) > 1:
                c.add(f'<text x="{px + CELL - 4:.0f}" y="{py + 11:.0f}" font-size="9" '
                      f'text-anchor="end">{len(v)}</text>')
        elif isinstance(v, dict):
            _contents(c, px, py, CELL, CELL, v, [])
    rows = z.height
    c.y += rows * (CELL * 0.87 if hexes else CELL) + (CELL * 0.3 if hexes else 0) + 10


def _row(c: _Canvas, z, slots, values, seen, label) -> None:
    tallest = max([len(v) if isinstance(v, list) else 1 for v in values] + [1])
    h = max(BOX, 6 + min(tallest, 6) * (CARD_H - 6))
    for i, s in enumerate(slots):
        x = 8 + (i % ROW_MAX) * (BOX + 14)
        if i and i % ROW_MAX == 0:
            c.y += h + 8
        _slot_box(c, x, c.y, BOX + 10, h, s, f"{label}[{i}]")
        _contents(c, x, c.y, BOX + 10, h, values[i] if i < len(values) else None, seen[i])
    c.y += h + 10


__all__ = ["colour", "draw"]
