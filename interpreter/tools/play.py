"""`tabula play`: humans at the table, in the terminal, against bots (or hot-seat).

Input: a spec, its players and options, one seat kind per seat (`human`, or a bot by
its name: random, greedy, mcts[:N|Ns[:DEPTH|end]]), a seed, and the humans' typed choices.
Output: the table drawn as each human seat sees it (interpreter/tools/textview.py) before each
of their decisions, the legal actions to choose from by number or by a prefix, every
move as it is made (as far as the human may see it), the result at the end, and
optionally the game log (`tabula run --log`'s format, which `tabula replay` checks).

The boards are drawn last, next to the choices, and a placement's cells carry the
numbers of the choices that place there (`placements`). The line saying whose decision
it is, the boards and the choices are fitted to the terminal's height (24 lines when it
is not known): the boards side by side where the width allows, else those no choice
acts on as a line saying what is on them (`board` draws every one), the choices
summarized or paged; when the whole table does not fit, its other zones and the
players' blocks come before that line.

Chance and the bots draw from the generators `tabula run --agents` uses
(agents.chance_rng(seed), agents.agent_rng(seed, seat)), so a game with no human is the
game `run --agents` plays. `undo` restores a copy of the game saved at the human's
previous decision, the generators of chance and of every bot included: the same move
then brings the same replies, and the log forgets the decisions taken back.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import sys
from dataclasses import dataclass, field

from ..bots.agents import AGENTS, View, agent_rng, chance_rng, make_agent
from ..errors import IllegalAction, TabulaError, did_you_mean, excerpt
from ..runtime.model import CHANCE
from ..runtime.readers import piece_names_now
from .cmdutil import EXIT_INPUT, EXIT_OK, LOG, OPTION, PLAYERS, SEED, SPEC, Command, arg, typed_int
from .gamelog import LogWriter, log_header
from .placing import bindings, placements
from .textview import BOARDS, SEP, SEVERAL, Drawer, grouped, known_scores, wrap

__all__ = ["COMMAND", "HUMAN", "Session", "cmd_play", "parse_seats", "placements"]

HUMAN = "human"
DEFAULT_BOT = "mcts"
DEFAULT_HINT = "mcts"
LIST_LINES = 16      # more lines than this for the legal actions: similar ones grouped
SHOWN = 15           # matches of an ambiguous prefix listed
PUBLIC = -99         # a viewer who is no player: sees what every player sees
HEIGHT = 24          # the terminal's lines when it does not say
LEAST_LIST = 4       # lines kept for the choices however tall the boards
GAP = 3              # spaces between boards drawn side by side

HELP = """\
  NUMBER        choose the action with that number
  TEXT          choose the action that starts with TEXT (any case); if several do,
                they are listed
  Enter         choose the only legal action, when there is one
  hint [BOT]    ask a bot what it would play here (default {hint}; e.g. hint greedy,
                hint mcts:1000); nothing is played
  undo          take back your last decision: the game as it was saved then is
                restored, with the bots' and chance's generators, so the same move
                brings the same replies; the log forgets what was taken back
  board         draw the table again, every board in full, without the numbers on
                the cells (to see the pieces under them)
  more          the next page of the choices, under the boards
  actions       list every legal action, numbered
  help          this text
  quit          leave the game (Ctrl-D too); the log keeps the decisions made
An action whose text is a command word is chosen by its number."""


class HumanSeat:
    """A seat played at the keyboard (named "human" in the log's agents)."""

    name = HUMAN


class Quit(Exception):
    """The human leaves (quit, end of input)."""


def parse_seats(text: str | None, players: int | None, least: int) -> list:
    """The seats from --seats: one name per seat, or one name for every seat; without
    it, a human in seat 0 and DEFAULT_BOT in the others. Returns a HumanSeat or an Agent
    per seat; a bad name is a TabulaError that lists the seat kinds."""
    if text is None:
        n = players or least
        names = [HUMAN] + [DEFAULT_BOT] * (n - 1)
    else:
        names = [t.strip() for t in str(text).split(",")]
        if not all(names):
            raise TabulaError(f"--seats '{text}': an empty seat; name one per seat, "
                              f"separated by commas (e.g. human,mcts)")
        if len(names) == 1:
            names = names * (players or least)
        elif players is not None and players != len(names):
            raise TabulaError(f"--seats names {len(names)} seats, --players {players}: "
                              "name one seat per player, or one for every seat")
    seats = []
    kinds = [HUMAN] + list(AGENTS.values())
    for name in names:
        if name.lower() == HUMAN:
            seats.append(HumanSeat())
            continue
        try:
            seats.append(make_agent(name))
        except TabulaError as e:
            head = name.partition(":")[0].strip().lower()
            if head in AGENTS:        # a known bot with a bad argument: its own message
                raise TabulaError(f"--seats: {e}") from None
            hint = did_you_mean(head, [HUMAN] + list(AGENTS))
            raise TabulaError(f"--seats: unknown seat '{name}'; a seat is "
                              + ", ".join(kinds) + (f" ({hint})" if hint else "")) from None
    return seats


# ---- one game at the table ---------------------------------------------------------------

@dataclass
class Snapshot:
    """The game at a human's decision: what `undo` goes back to."""
    state: object
    decisions: int
    chance: tuple
    seats: list
    held: list
    queues: dict
    turn_shown: int


@dataclass
class Event:
    """A move as the table learns it: who, its text, and the human seats from whom the
    text is kept (see Session.kept_from)."""
    who: int
    text: str
    hidden_for: frozenset = frozenset()
    kind: str = "move"          # move, chosen (a simultaneous choice not yet revealed:
                                # told to its chooser alone), revealed (that choice, once
                                # all have chosen), turn, note


@dataclass
class Session:
    """One game played at the terminal. `ask(prompt)` reads a line (raising EOFError at
    the end of input), `say(text)` prints."""

    spec: object
    game: object
    spec_path: str
    seed: int
    seats: list
    log_path: str | None = None
    hint_bot: str = DEFAULT_HINT
    width: int = 100
    height: int = HEIGHT
    ask: object = input
    say: object = print
    tty: bool = False
    seed_drawn: bool = False
    st: object = None
    record: list = field(default_factory=list)
    snapshots: list = field(default_factory=list)

    def __post_init__(self):
        n = self.game.players
        self.humans = [p for p, s in enumerate(self.seats) if isinstance(s, HumanSeat)]
        self.names = [s.name for s in self.seats]
        self.crng = chance_rng(self.seed)
        self.rngs = [agent_rng(self.seed, p) for p in range(n)]
        self.header = log_header(self.spec, self.game, self.spec_path, self.seed, self.seats)
        title = str(self.spec.doc.get("game", {}).get("name") or self.game.id)
        self.drawer = Drawer(self.game, self.width, title)
        self.held: list = []            # choices of a simultaneous decision, until revealed
        self.queues = {h: [] for h in self.humans}      # hot-seat: news for each human
        self.shown_seat = None          # hot-seat: the seat whose view is on the screen
        self.turn_shown = -1
        self.patterns: dict = {}        # piece names -> the pattern that finds them (_mentioned)
        self.pages: list = [[]]         # the choices of the decision on screen, in pages
        self.page = 0
        self.asking = ""                # "your decision, ..." above them
        self.boards: list = []          # the boards' lines, as drawn with the choices
        self.st = self.game.new_state(seed=self.seed)

    # -- who sees what ------------------------------------------------------------------------
    @property
    def hot_seat(self) -> bool:
        return len(self.humans) > 1

    @property
    def viewer(self):
        """The seat whose view the screen shows between decisions: the single human, or
        nobody (a referee's full view) when only bots play."""
        if len(self.humans) == 1:
            return self.humans[0]
        return None

    def who(self, p: int, viewer=None) -> str:
        if p == CHANCE:
            return "chance"
        if p == viewer:
            return "you"
        return f"player {p} ({self.names[p]})"

    def event_text(self, e: Event, viewer) -> str:
        if e.kind == "turn":
            return f"-- turn {e.text}"
        if e.kind == "note":
            return e.text
        name = self.who(e.who, viewer)
        if e.kind == "chosen":
            if e.who == viewer:
                return (f"  you chose: {e.text} (kept from the others until everyone has "
                        "chosen)")
            return f"  {name} has chosen"
        if viewer in e.hidden_for:
            return f"  {name}: (hidden from you)"
        return f"  {name}: {e.text}"

    def tell(self, e: Event) -> None:
        """Show an event now (one human, or only bots); in a hot-seat game, show a
        human's own move to them at once and keep every other event for each human
        until their turn. A choice at a simultaneous decision is told to its chooser
        alone (and to the referee of a game of bots): every seat sees the decision as one
        node (docs/language.md, section 3.13), so no seat learns that another has chosen
        before the reveal, when the last chooser has chosen."""
        if e.kind == "chosen" and self.humans:
            if e.who in self.humans:
                self.say(self.event_text(e, e.who))
            return
        if not self.hot_seat:
            self.say(self.event_text(e, self.viewer))
            return
        own = e.who in self.humans and e.kind in ("move", "chosen")
        for h in self.humans:
            if not (own and e.who == h):
                self.queues[h].append(e)
        if own:
            self.say(self.event_text(e, e.who))

    # -- the log ---------------------------------------------------------------------------------
    def write_log(self) -> None:
        """Write the whole log again: the header, the decisions not taken back, and the
        end line once the game is over (written aside, then renamed: never half a log)."""
        if not self.log_path:
            return
        tmp = f"{self.log_path}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                w = LogWriter(fh, self.header)
                st = self.game.new_state(seed=self.seed)    # each decision's state, again
                w.begin(st)
                for who, action, text, turn in self.record:
                    st.apply_unchecked(action)
                    w.decision(who, action, text, turn, st)
                if self.st.terminal:
                    w.end(self.st)
            os.replace(tmp, self.log_path)
        except OSError as e:
            raise TabulaError(f"cannot write the log {self.log_path}: "
                              f"{e.strerror or e}") from None

    # -- playing ---------------------------------------------------------------------------------
    def apply(self, action: tuple) -> None:
        """Apply the pending decision's action; log it; tell the table."""
        st = self.st
        pend = st.pending
        who = pend.player
        text = st.action_to_string(action)
        turn = st.turn
        visible = st.who_sees(action)
        joint = pend.joint is not None
        last = joint and len(pend.chosen) + 1 == len(pend.joint)
        before = self.sight(st)
        st.apply_unchecked(action)
        self.record.append((who, action, text, turn))
        self.write_log()
        e = Event(who, text, self.kept_from(who, action, text, visible, before,
                                             self.sight(st)))
        if joint:
            self.held.append(e)
            self.tell(Event(who, text, e.hidden_for, "chosen"))
            if last:
                held, self.held = self.held, []
                self.tell(Event(-3, "  the choices, revealed:", kind="note"))
                for h in held:
                    self.tell(Event(h.who, h.text, h.hidden_for, "revealed"))
        else:
            self.tell(e)
        if not st.terminal and st.turn != self.turn_shown and st.turn:
            self.turn_shown = st.turn
            self.tell(Event(-3, str(st.turn), kind="turn"))

    # -- what a move's text may tell ------------------------------------------------------------
    def sight(self, st) -> tuple:
        """What the humans see of the pieces: every piece's place and name now, and for
        each human the pieces in the places they can see into."""
        names = list(piece_names_now(st))
        where = list(st.where)
        seen = {}
        for h in self.humans:
            hidden = set(st.hidden_slots(h))
            seen[h] = {p for p, s in enumerate(where) if s >= 0 and s not in hidden}
        return where, names, seen

    def kept_from(self, who: int, action: tuple, text: str, visible, before: tuple,
                  after: tuple) -> frozenset:
        """The human seats that may not read a move's text: those its decision's
        `visible_to` leaves out, and those for whom it names a piece they can see neither
        before nor after the move. The language does not filter labels (docs/language.md,
        section 8), so a label may name a tile discarded face down from a hand; the table
        keeps such a name from a seat rather than show what its observation does not. A
        piece the action binds is judged by itself (played from a hand onto the board:
        seen after the move, so named); another name in the text is kept if no piece of
        that name is in sight of the seat and one is out of it."""
        where0, names0, seen0 = before
        where1, names1, seen1 = after
        out = set()
        mentioned = None
        for h in self.humans:
            if h == who:
                continue
            if visible is not None and h not in visible:
                out.add(h)
                continue
            if mentioned is None:
                mentioned = _mentioned(text, set(names0) | set(names1), self.patterns)
            if not mentioned:
                continue
            left = set(mentioned)
            secret = False
            for v in action[2:]:
                if type(v) is int and 0 <= v < len(names0) and names0[v] in mentioned:
                    left.discard(names0[v])
                    if v not in seen0[h] and v not in seen1[h]:
                        secret = True
            if not secret and left:
                shown = {names0[p] for p in seen0[h]} | {names1[p] for p in seen1[h]}
                unseen = {names1[p] for p in range(len(names1))
                          if p not in seen0[h] and p not in seen1[h]}
                secret = bool(left & (unseen - shown))
            if secret:
                out.add(h)
        return frozenset(out)

    def bot_move(self, who: int) -> tuple:
        agent = self.seats[who]
        pend = self.st.pending
        # not at a simultaneous decision a human has still to take: it would say that
        # this seat chooses before them
        quiet = pend.joint is not None and any(
            w in self.humans for w, _ in pend.joint[len(pend.chosen) + 1:])
        if self.tty and not self.hot_seat and not quiet:
            sys.stdout.write(f"  ({self.who(who)} is thinking...)")
            sys.stdout.flush()
        a = agent.act(View(self.st, who, self.rngs[who]))
        if self.tty and not self.hot_seat and not quiet:
            sys.stdout.write("\r\033[K")
            sys.stdout.flush()
        try:
            a = tuple(a)
        except TypeError:
            a = None
        if a not in self.st.pending.actions:
            raise IllegalAction(f"the bot {agent.name} (player {who}) chose {a!r}, which is "
                                "not a legal action here")
        return a

    def play(self) -> int:
        """Play to the end (or until the human leaves); the exit code."""
        self.intro()
        self.write_log()
        try:
            while True:
                st = self.st
                if st.terminal:
                    self.finish()
                    if not self.after_end():
                        return 0
                    continue
                who = st.pending.player
                if who == CHANCE:
                    self.apply(st.sample_chance(self.crng))
                elif not isinstance(self.seats[who], HumanSeat):
                    self.apply(self.bot_move(who))
                    if not self.humans:
                        self.say(self.drawer.draw(self.st, None, self.names,
                                                  known_scores(self.st, None)))
                else:
                    self.human_turn(who)
        except Quit:
            if not self.st.terminal:
                self.leave()
            return 0

    # -- a human's decision ------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        return Snapshot(self.st.clone(), len(self.record), self.crng.getstate(),
                        [r.getstate() for r in self.rngs], list(self.held),
                        {h: list(q) for h, q in self.queues.items()}, self.turn_shown)

    def restore(self, snap: Snapshot) -> None:
        self.st = snap.state
        del self.record[snap.decisions:]
        self.crng.setstate(snap.chance)
        for r, s in zip(self.rngs, snap.seats):
            r.setstate(s)
        self.held = list(snap.held)
        self.queues = {h: list(q) for h, q in snap.queues.items()}
        self.turn_shown = snap.turn_shown
        self.write_log()

    def read(self, prompt: str) -> str:
        try:
            line = self.ask(prompt)
        except EOFError:
            self.say("")
            raise Quit() from None
        if not self.tty:            # a script's lines, echoed: the transcript reads well
            shown = "".join(c if c.isprintable() else "?" for c in line[:200])
            self.say(shown + ("..." if len(line) > 200 else ""))
        return line

    def show_to(self, who: int) -> None:
        """Hot-seat: hand the terminal to `who`, clear the screen, and tell them what
        happened since their last decision, as they may see it."""
        if not self.hot_seat:
            return
        if self.shown_seat != who:
            self.read(f"-- player {who}'s turn: pass the keyboard to player {who}, "
                      "then press Enter --")
            if self.tty:
                self.say("\033[2J\033[3J\033[H", end="")
            self.shown_seat = who
        news = self.queues.get(who, [])
        if news:
            self.say(f"since your last decision (player {who}):")
            for e in news:
                self.say(self.event_text(e, who))
            news.clear()

    def human_turn(self, who: int) -> None:
        self.snapshots.append(self.snapshot())
        self.show_to(who)
        st = self.st
        actions = list(st.legal_actions())
        strings = [st.action_to_string(a) for a in actions]
        order = self.draw_turn(who, strings, actions)
        while True:
            line = self.read(f"player {who}> ").strip()
            choice = self.interpret(line, who, strings, order)
            if choice is None:
                continue
            if choice == "undo":
                self.undo(who)
                return
            self.apply(actions[choice])
            return

    def draw_turn(self, who: int, strings: list, actions: list) -> list:
        """The table, its boards last with the numbers of the choices that place on their
        cells, and the numbered legal actions under them, summarized or paged to fit
        the screen (see choice_lines); the display order of the actions.

        The boards, the choices and the line saying whose decision it is should fit the
        terminal's height together: when they do not, the boards are drawn side by side
        where the width allows, then the boards that no choice acts on shrink to a line
        each (`board` draws them); and when the whole table does not fit, its other
        zones and the players' blocks come first and the line saying whose decision it is
        right above the boards."""
        st = self.st
        marks: dict = {}
        marked: dict = {}        # the choices numbered on a cell: {index: (alternative, zone)}
        cells = placements(st, who, actions, random.Random(f"tabula-marks:{len(st.history)}"))
        if cells:
            by_cell: dict = {}
            for i, cell in cells.items():
                by_cell.setdefault(cell, []).append(i)
            for (zone, k, _), members in by_cell.items():
                alone = len(members) == 1
                marks.setdefault(zone, {})[k] = str(members[0] + 1) if alone else SEVERAL
                if alone:
                    marked[members[0]] = (actions[members[0]][1], zone)
            widest = max(len(t) for m in marks.values() for t in m.values())
            if any(widest > self.drawer.cell_room(st.prog.zones[z]) for z in marks):
                marks, marked = {}, {}      # numbers too wide for the cells: a list
        status, rest, full = self.drawer.draw_parts(st, who, self.names,
                                                    known_scores(st, who), marks)
        rule = st.pending.decision.rule
        self.asking = (f"your decision, player {who} ({len(strings)} legal action"
                       f"{'s' if len(strings) != 1 else ''}; {rule}):")
        layouts: list = [(full, None)]      # (lines, the boards drawn; None: all of them)
        boards = self.board_parts(st, who, marks) if full else []
        if len(boards) > 1:
            layouts.append((side_by_side(boards, self.width), None))
            touched = set(marks) | self.touched(st, who, actions)
            first = ([b for b in boards if b.name in touched] +
                     [b for b in boards if b.name not in touched])
            for k in range(len(boards) - 1, 0, -1):
                names = {b.name for b in first[:k]}
                drawn = [b for b in boards if b.name in names]
                brief = wrap("the other boards ('board' draws them): ",
                             SEP.join(b.summary for b in boards if b.name not in names),
                             self.width, indent=2)
                layouts += [(brief + [x for b in drawn for x in b.grid + b.notes], names),
                            (brief + side_by_side(drawn, self.width), names)]
        def numbered_on(names) -> dict:     # the choices numbered on the boards drawn
            return {i: m for i, m in marked.items() if names is None or m[1] in names}

        chosen = paged = None       # the first layout whose choices fit one page, or pages
        for lines, names in layouts:
            budget = self.height - len(status) - len(lines) - 2
            if budget < 1:
                continue
            order, head, items = self.choice_lines(strings, numbered_on(names), budget)
            pages = self.paginate(head, items, budget)
            if len(pages) == 1:
                chosen = lines, order, pages
                break
            if paged is None and budget >= LEAST_LIST:
                paged = lines, order, pages
        if chosen is None:
            chosen = paged
        if chosen is None:              # the boards leave too few lines: the fewest
            lines, names = min(layouts, key=lambda layout: len(layout[0]))
            order, head, items = self.choice_lines(strings, numbered_on(names), LEAST_LIST)
            chosen = lines, order, self.paginate(head, items, LEAST_LIST)
        lines, order, self.pages = chosen
        self.page = 0
        self.boards = status + lines
        shown = len(self.pages[0]) + (len(self.pages) > 1)
        if lines and len(status) + len(rest) + len(lines) + 2 + shown > self.height:
            self.say("\n".join(rest + status + lines))
        else:
            self.say("\n".join(status + rest + lines))
        self.show_page()
        return order

    def board_parts(self, st, who: int, marks: dict) -> list:
        """The boards the table draws (Drawer.draw_parts), each as a Board."""
        prog = st.prog
        zones = st.observation(who)["zones"]
        out = []
        for z in prog.zone_list:
            if z.per_player or z.kind not in BOARDS:
                continue
            value = zones.get(z.name)
            lines = self.drawer.zone_lines(z, value, "", 0, marks.get(z.name))
            grid = lines[:2 + z.height] if value is not None else lines
            if value is None:
                content = "hidden"
            elif isinstance(value, dict):
                n = sum(value.get("count") or [])
                content = f"{n} face down" if n else "empty"
            else:
                content = grouped([name for cell in value for name in cell]) or "empty"
            room = max(12, self.width // 2)
            if len(content) > room:
                content = content[:room - 4].rstrip(" ,") + " ..."
            out.append(Board(z.name, grid, lines[len(grid):], f"{lines[0]} {content}"))
        return out

    def touched(self, st, who: int, actions: list) -> set:
        """The boards whose cells or pieces the actions bind."""
        prog = st.prog
        out = set()
        for slots, pieces in bindings(st, who, actions):
            for s in list(slots) + [st.where[p] for p in pieces]:
                if 0 <= s < prog.nslots:
                    z = prog.zone_list[prog.slot_zone[s]]
                    if z.kind in BOARDS:
                        out.add(z.name)
        return out

    def paginate(self, head: list, items: list, budget: int) -> list:
        """The lines `head` then the numbered `items` in columns, in pages of `budget`
        lines at most, the last line of each kept for the line saying which page it is:
        each page's items in columns of their own, so a page holds a run of numbers."""
        whole = head + columns(items, self.width)
        if len(whole) <= budget:
            return [whole]
        size = max(1, budget - 1)
        across = 1
        if items:
            nw = len(str(max(k for k, _ in items)))
            cw = max(len(f"{k:>{nw}}) {t}") for k, t in items) + 3
            across = max(1, (self.width - 2) // cw)
        pages, lines, rest = [], list(head), list(items)
        while len(lines) >= size:
            pages.append(lines[:size])
            lines = lines[size:]
        while rest:
            take = (size - len(lines)) * across
            lines += columns(rest[:take], self.width)
            rest = rest[take:]
            pages.append(lines)
            lines = []
        if lines:
            pages.append(lines)
        return pages

    def show_page(self) -> None:
        """The header and the current page of the choices (with a line saying which page
        it is, when there are several)."""
        self.say(self.asking)
        for line in self.pages[self.page]:
            self.say(line)
        if len(self.pages) > 1:
            nxt = "next" if self.page + 1 < len(self.pages) else "first again"
            self.say(f"  (page {self.page + 1} of {len(self.pages)}: 'more' shows the {nxt}; "
                     "'actions' lists every choice)")

    def choice_lines(self, strings: list, marked: dict, budget: int) -> tuple:
        """The legal actions to list: all of them, numbered in order, when they fit
        `budget` lines (and LIST_LINES) in columns; else, when some are numbered on the
        board (`marked`: {index into strings: (its decision's alternative, the board)}),
        those as one line per alternative and board ("1-131  orange building at ...: the
        numbers on the board"; the board named when there are several) and the others
        numbered; else the actions alike grouped on a line each (grouped_lines) and the
        others. Returns the display order (indices into strings), the lines before the
        numbered items, and the items ([(number, text)], for columns)."""
        n = len(strings)
        plain = list(range(n))
        items = [(k + 1, strings[k]) for k in plain]
        if len(columns(items, self.width)) <= min(budget, LIST_LINES):
            return plain, [], items
        if not marked:
            order, head, rest = grouped_lines(strings, self.width)
            head = [line.replace("\u00a0", " ") for line in head]
            if head:
                head.append("  (actions alike share a line; 'actions' lists each one)")
            return order, head, rest
        kinds: dict = {}
        for i in sorted(marked):
            kinds.setdefault(marked[i], []).append(i)
        several = len({zone for _, zone in marked.values()}) > 1
        head = []
        for (_, zone), members in kinds.items():
            start = _common_start([strings[i] for i in members])
            text = (f"{start} ...: " if start else "") + \
                f"the numbers on {zone if several else 'the board'}"
            head += wrap(f"  {_ranges([i + 1 for i in members])}  ", text, self.width,
                         indent=4)
        return plain, head, [(k + 1, strings[k]) for k in plain if k not in marked]

    def action_lines(self, strings: list, full: bool = False) -> tuple:
        """The legal actions as numbered lines, in columns; when they would take more
        than LIST_LINES lines, actions alike but for their numbers on one line each
        ("12-20 play the card on column [2 3 5 6 7 8 9 10 11]"). Returns the display
        order (indices into strings) and the lines."""
        n = len(strings)
        plain = list(range(n))
        lines = columns([(k + 1, strings[i]) for k, i in enumerate(plain)], self.width)
        if full or len(lines) <= LIST_LINES:
            return plain, lines
        order, out, items = grouped_lines(strings, self.width)
        out += columns(items, self.width)
        out = [line.replace("\u00a0", " ") for line in out]
        out.append("  (actions alike share a line; 'actions' lists each one)")
        return order, out

    def interpret(self, line: str, who: int, strings: list, order: list):
        """The typed line: an index into strings, "undo", or None (handled here)."""
        n = len(strings)
        low = line.lower()
        word, _, arg = low.partition(" ")
        if not line:
            if n == 1:
                return 0
            self.say(f"type a number from 1 to {n}, the start of an action, or help")
            return None
        if low in ("help", "?"):
            self.say(HELP.format(hint=self.hint_bot))
            return None
        if low in ("quit", "exit"):
            raise Quit()
        if low == "undo":
            if len(self.snapshots) < 2:
                self.say("nothing to undo: this is the first decision of "
                         + ("yours" if not self.hot_seat else "a human") + " in this game")
                return None
            return "undo"
        if word == "hint":
            self.hint(who, arg.strip() or self.hint_bot, strings, order)
            return None
        if low == "board":
            status, rest, boards = self.drawer.draw_parts(self.st, who, self.names,
                                                          known_scores(self.st, who))
            self.say("\n".join(status + rest + boards))
            self.show_page()
            return None
        if low == "more":
            if len(self.pages) == 1:
                self.say("every choice is on the screen ('actions' lists them again)")
                return None
            self.page = (self.page + 1) % len(self.pages)
            self.say("\n".join(self.boards))
            self.show_page()
            return None
        if low in ("actions", "list"):
            _, lines = self.action_lines(strings, full=True)
            for text in lines:
                self.say(text)
            order[:] = list(range(n))
            self.pages, self.page = [lines], 0      # the numbers from now on: these
            return None
        if re.fullmatch(r"[+-]?\d+", line):
            # a number of any length is bad input, never int()'s ValueError past 4,300
            # digits (cmdutil.typed_int reads a short number only)
            k = typed_int(line)
            if k is not None and 1 <= k <= n:
                return order[k - 1]
            self.say(f"no action {k if k is not None else excerpt(line)}: choose a number "
                     f"from 1 to {n}")
            return None
        want = " ".join(low.split())
        norm = [" ".join(s.lower().split()) for s in strings]
        exact = [i for i in order if norm[i] == want]
        if len(exact) == 1:
            return exact[0]
        found = exact or [i for i in order if norm[i].startswith(want)]
        if len(found) == 1:
            return found[0]
        number = {i: k + 1 for k, i in enumerate(order)}
        if found:
            self.say(f"{excerpt(line)} could be {len(found)} actions; "
                     "type more of it, or a number:")
            for i in found[:SHOWN]:
                self.say(f"  {number[i]:>4}) {strings[i]}")
            if len(found) > SHOWN:
                self.say(f"  ... and {len(found) - SHOWN} more")
            return None
        inside = [i for i in order if want in norm[i]]
        if inside:
            self.say(f"no legal action starts with {excerpt(line)}; these contain it:")
            for i in inside[:SHOWN]:
                self.say(f"  {number[i]:>4}) {strings[i]}")
            if len(inside) > SHOWN:
                self.say(f"  ... and {len(inside) - SHOWN} more")
            return None
        self.say(f"no legal action starts with {excerpt(line)}: type a number from 1 to {n}, "
                 "the start of an action, or help")
        return None

    def hint(self, who: int, bot: str, strings: list, order: list) -> None:
        """What a bot would play here, on the seat's view, with a generator of its own
        (the bots' and chance's draws are not touched): shown, not played."""
        try:
            agent = make_agent(bot)
            # seeded by the decisions before this node: not by the others' choices held
            # at a simultaneous decision (the hint would tell whether they have chosen)
            done = len(self.record) - len(self.held)
            rng = random.Random(f"tabula-hint:{self.seed}:{done}:{agent.name}")
            a = tuple(agent.act(View(self.st, who, rng)))
            i = list(self.st.legal_actions()).index(a)
        except (TabulaError, ValueError, TypeError) as e:
            self.say(f"hint: {e}" if isinstance(e, TabulaError) else
                     f"hint: the bot {bot} gave no legal action")
            return
        self.say(f"hint ({agent.name}): {order.index(i) + 1}) {strings[i]}   (not played)")

    def undo(self, who: int) -> None:
        self.snapshots.pop()                 # this decision
        snap = self.snapshots.pop()          # the previous one: played again from there
        self.restore(snap)
        self.shown_seat = None if self.hot_seat else self.shown_seat
        p = self.st.pending.player
        whose = "your" if p == who else f"player {p}'s"
        stand = len(self.record) - len(self.held)   # not the others' choices held there
        self.say(f"undone: back to {whose} previous decision ({stand} decisions stand)")

    # -- the start and the end ---------------------------------------------------------------------
    def intro(self) -> None:
        g = self.game
        opts = ", ".join(f"{k}={v}" for k, v in g.options.items()) or "none"
        again = f" (--seed {self.seed} plays this game again)" if self.seed_drawn else ""
        self.say("\n".join(wrap(f"{self.drawer.title}: ", f"{g.players} players, options "
                                f"{opts}, seed {self.seed}{again}", self.width, indent=2)))
        self.say("seats: " + ", ".join(f"player {p} {'(you)' if p == self.viewer else ''}"
                                       f"{'' if p == self.viewer else self.names[p]}".rstrip()
                                       for p in range(g.players)))
        if self.humans:
            self.say("type a number or the start of an action; help lists the commands")
        if self.log_path:
            self.say(f"the log: {self.log_path}")

    def finish(self) -> None:
        """The final table (the single human's view; with several humans, what all of
        them see; with bots only, everything), the points, the winners."""
        st = self.st
        n = st.prog.players
        view = self.viewer if self.humans else None
        shown = PUBLIC if self.hot_seat else view
        self.say(self.drawer.draw(st, shown, self.names, st.scores()))
        self.say("game over. points:")
        points = st.points()
        totals = st.scores()
        lw = max([len(r) for r in points] + [7])
        cw = max([len(_num(v)) for row in points.values() for v in row] +
                 [len(_num(v)) + 1 for v in totals] + [len(str(n - 1)) + 1])
        self.say(f"  {'':>{lw}}  " + "  ".join(f"{'p' + str(p):>{cw}}" for p in range(n)))
        for rid, row in points.items():
            self.say(f"  {rid:>{lw}}  " + "  ".join(f"{_num(v):>{cw}}" for v in row))
        self.say(f"  {'total':>{lw}}  " + "  ".join(f"{_num(v):>{cw}}" for v in totals))
        if st.prog.returns != "scores":
            self.say(f"  {'returns':>{lw}}  " + "  ".join(
                f"{'+' if v > 0 else ''}{_num(v):>{cw - (1 if v > 0 else 0)}}"
                for v in st.returns()))
        won = st.winners()
        self.say(("winners: " if len(won) > 1 else "winner: ") +
                 ", ".join(self.who(w, view) for w in won)
                 + (" (a draw)" if len(won) == n and n > 1 else ""))
        if self.log_path:
            self.say(f"the log: {self.log_path} ({len(self.record)} decisions; "
                     f"tabula replay {self.log_path} checks it)")

    def after_end(self) -> bool:
        """At the end: True if the human takes the last decision back."""
        if not self.humans or not self.snapshots:
            return False
        while True:
            line = self.read("game over: undo takes your last decision back; Enter or "
                             "quit leaves> ").strip().lower()
            if line in ("", "quit", "exit", "q"):
                return False
            if line == "undo":
                snap = self.snapshots.pop()
                self.restore(snap)
                self.shown_seat = None
                self.say(f"undone: back to the last human decision "
                         f"({len(self.record)} decisions stand)")
                return True
            self.say("the game is over: undo, or Enter to leave")

    def leave(self) -> None:
        n = len(self.record) - len(self.held)   # not the others' choices held (as undo)
        self.say(f"left the game after {n} decisions")
        if self.log_path:
            self.say(f"the log {self.log_path} holds them, without an end line: the game is "
                     "not over")


def _mentioned(text: str, names: set, patterns: dict) -> set:
    """The piece names a text names, as whole words, the longest first ("rakai-monk" is
    not also "rakai"). patterns: the caller's (a Session's) compiled patterns, by names."""
    key = frozenset(names)
    rx = patterns.get(key)
    if rx is None:
        if len(patterns) > 64:
            patterns.clear()
        alts = "|".join(re.escape(n) for n in sorted(key, key=len, reverse=True) if n)
        rx = patterns[key] = re.compile(rf"(?<![\w])(?:{alts})(?![\w])") if alts else None
    if rx is None:
        return set()
    return set(rx.findall(text))


def grouped_lines(strings: list, width: int) -> tuple:
    """Actions alike but for their numbers (three or more) as one line each, then the
    others: (display order, the groups' lines, the others' [(number, text)])."""
    n = len(strings)
    groups: dict = {}
    for i, s in enumerate(strings):
        nums = list(re.finditer(r"\d+", s))
        if nums:
            a, b = nums[0].start(), nums[-1].end()
            key = (s[:a], re.sub(r"\d+", "#", s[a:b]), s[b:])
            groups.setdefault(key, []).append((i, s[a:b]))
        else:
            groups.setdefault((s,), []).append((i, None))
    order: list = []
    out: list = []
    singles: list = []
    nw = len(str(n))
    for key, members in groups.items():
        if len(members) < 3 or len(key) == 1:
            for i, _ in members:
                singles.append(i)
            continue
        lo = len(order) + 1
        order += [i for i, _ in members]
        hi = len(order)
        label = f"{lo:>{nw}}-{hi:<{nw}}  "
        text = key[0] + "[" + " ".join(m for _, m in members) + "]" + key[2]
        out += wrap("  " + label, text.replace(", ", ",\u00a0"), width)
    start = len(order) + 1
    order += singles
    return order, out, [(start + k, strings[i]) for k, i in enumerate(singles)]


def _common_start(strings: list) -> str:
    """The words the strings all start with, up to their first number: "orange building
    at" for "orange building at 3,4" and "orange building at 5,6"; "" for "c4", "d5"."""
    start = os.path.commonprefix(strings)
    if start[-1:].isalnum() and any(len(s) > len(start) and s[len(start)].isalnum()
                                    for s in strings):
        start = start[:start.rfind(" ") + 1]        # a word cut short: without it
    number = re.search(r"\d", start)
    return (start[:number.start()] if number else start).rstrip()


@dataclass
class Board:
    """A board as the table draws it: its title and grid (a line per row), the notes
    under it (its legend, what the numbers in its cells are), and what stands for it
    when it is not drawn (its title and the pieces on it)."""
    name: str
    grid: list
    notes: list
    summary: str


def side_by_side(boards: list, width: int) -> list:
    """Boards next to each other, as many in a row as fit `width`, GAP apart, each row's
    notes merged under it (a legend naming each code once)."""
    rows: list = []
    for b in boards:
        w = max(len(x) for x in b.grid)
        if rows and rows[-1][1] + GAP + w <= width:
            rows[-1][0].append(b)
            rows[-1][1] += GAP + w
        else:
            rows.append([[b], w])
    out = []
    for row, _ in rows:
        widths = [max(len(x) for x in b.grid) for b in row]
        for k in range(max(len(b.grid) for b in row)):
            out.append((" " * GAP).join(f"{b.grid[k] if k < len(b.grid) else '':<{w}}"
                                        for b, w in zip(row, widths)).rstrip())
        if len(row) == 1:
            out += row[0].notes
            continue
        notes: dict = {}            # "legend" -> its items, "numbered" -> its clauses
        for line in (x for b in row for x in b.notes):
            m = re.match(r"  (\w+): (.*)", line)
            if m:
                label = m.group(1)
                notes.setdefault(label, []).append(m.group(2))
            elif notes:
                last = notes[label]
                last[-1] += " " + line.strip()
            else:                   # a note of no label before any: kept as it is
                out.append(line)
        for label, texts in notes.items():
            sep = ", " if label == "legend" else "; "
            items: list = []
            for item in (x for text in texts for x in text.split(sep)):
                if item not in items:
                    items.append(item)
            if label == "legend":               # by code, as each board's legend
                items.sort(key=lambda item: item.split(" ", 1)[0])
            out += wrap(f"  {label}: ", sep.join(items), width,
                        indent=len(label) + 4 if label == "legend" else 4)
    return out


def _ranges(numbers: list) -> str:
    """Sorted numbers as runs: "1-40, 45, 47-131"."""
    out, start = [], 0
    for k in range(1, len(numbers) + 1):
        if k == len(numbers) or numbers[k] != numbers[k - 1] + 1:
            a, b = numbers[start], numbers[k - 1]
            out.append(str(a) if a == b else f"{a}-{b}")
            start = k
    return ", ".join(out)


def _num(x) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def columns(items: list, width: int) -> list:
    """Numbered items ([(number, text)]) in as many columns as fit, down then across."""
    if not items:
        return []
    nw = len(str(max(k for k, _ in items)))
    cells = [f"{k:>{nw}}) {t}" for k, t in items]
    cw = max(len(c) for c in cells) + 3
    ncols = max(1, (width - 2) // cw)
    rows = math.ceil(len(cells) / ncols)
    out = []
    for r in range(rows):
        row = [cells[c * rows + r] for c in range(ncols) if c * rows + r < len(cells)]
        out.append("  " + "".join(f"{c:<{cw}}" for c in row).rstrip())
    return out


# ---- the command -------------------------------------------------------------------------------

def _width() -> int:
    cols = shutil.get_terminal_size((100, HEIGHT)).columns
    return max(60, min(cols, 120))


def _height() -> int:
    return max(12, shutil.get_terminal_size((100, HEIGHT)).lines)


def cmd_play(args) -> int:
    from ..spec import load_spec
    from ..spec import parse_options as _options
    try:
        spec = load_spec(args.spec)
        least = spec.player_range[0]
        if args.players is not None and args.players < 1:
            raise TabulaError(f"--players {args.players}: a number of players, 1 or more")
        seats = parse_seats(args.seats, args.players, least)
        low, high = spec.player_range
        if args.seats and not low <= len(seats) <= high:
            raise TabulaError(f"--seats names {len(seats)} seats, but {spec.id} is for "
                              + (f"{low}" if low == high else f"{low} to {high}")
                              + " players")
        game = spec.game(len(seats), _options(args.option))
        if args.log:
            folder = os.path.dirname(os.path.abspath(args.log))
            if not os.path.isdir(folder):
                raise TabulaError(f"cannot write the log {args.log}: no such folder")
        if args.hint:
            try:
                make_agent(args.hint)
            except TabulaError as e:
                raise TabulaError(f"--hint: {e}") from None
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    except TabulaError as e:
        print(str(e), file=sys.stderr)
        return EXIT_INPUT
    try:
        sys.stdout.reconfigure(errors="replace")
    except (AttributeError, ValueError):
        pass
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    if tty:
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:
            pass

    def say(text="", end="\n"):
        print(text, end=end, flush=True)
    session = Session(spec, game, args.spec, seed, seats, log_path=args.log,
                      hint_bot=args.hint or DEFAULT_HINT, width=_width(), height=_height(),
                      say=say, tty=tty,
                      seed_drawn=args.seed is None)
    try:
        return session.play()
    except (TabulaError, IllegalAction) as e:
        sys.stdout.flush()
        print(str(e), file=sys.stderr)
        if args.log:
            print(f"the log {args.log} holds the {len(session.record)} decisions made "
                  "before", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("\ninterrupted", flush=True)
        session.leave()
        return 130
    except BrokenPipeError:          # `tabula play ... | head`: tabula's main quiets it
        raise
    except Exception as e:  # never a traceback at the table
        if os.environ.get("TABULA_DEBUG"):
            raise
        print(f"tabula play: internal error ({type(e).__name__}: {e}); set TABULA_DEBUG=1 "
              "to see where", file=sys.stderr)
        return EXIT_INPUT
    return EXIT_OK


COMMAND = Command(
    "play", cmd_play, "play a game in the terminal against bots (or hot-seat)", (
        SPEC.but(help="a spec file, a game's folder, or a shipped game's name (tabula list)"),
        PLAYERS.but(help="players (default: as many as --seats names, else the least)"),
        arg("--seats", metavar="S,S,...",
            help=f"who plays each seat: {HUMAN}, random, greedy, mcts[:N|Ns[:DEPTH|end]]; one "
                 f"name for every seat (default: {HUMAN} in seat 0, {DEFAULT_BOT} in the "
                 "others); several humans play hot-seat"),
        OPTION,
        SEED.but(default=None, help="the game's seed (default: a new one, printed at the "
                                    "start)"),
        LOG.but(help="write the game log (tabula run --log's format) to FILE"),
        arg("--hint", metavar="BOT", default=None,
            help=f"the bot that answers 'hint' (default {DEFAULT_HINT})")),
    description="Play a game at the terminal: the table drawn as your seat sees it, the "
                "legal actions chosen by number or by the start of their text; undo, hint, "
                "help, quit.")
