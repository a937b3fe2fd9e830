"""`tabula play`: a human at the terminal. The first tests drive the real command through
a pseudo-terminal (the `pty` module): a whole game of tic-tac-toe by numbers and prefixes,
with bad input, hint and undo, its log replayed; Kuhn poker's hidden card; the end of
input. The others play a Session in-process, with typed lines from a list: simultaneous
decisions, hot-seat, hidden discards, the drawing rules, the command's errors."""

import json
import os
import pty
import random
import re
import select
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from tabula_rules.spec import load_spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.play import Session, parse_seats
from tabula_rules.tools.textview import Drawer, abbreviate, grouped, known_scores

from conftest import ROOT
from helpers import MORRA

TIC = "examples/tic_tac_toe"
KUHN = "examples/kuhn_poker"


# ---- a pseudo-terminal ---------------------------------------------------------------------

class Terminal:
    """`tabula play ARGS` on a pseudo-terminal: what it prints, and lines typed in."""

    def __init__(self, *args, timeout: float = 180.0):
        # timeout: only a guard against a hung program (a wait that long fails the test),
        # never a measure of speed: a loaded machine is slow, not wrong
        master, slave = pty.openpty()
        env = dict(os.environ, COLUMNS="100", LINES="24", TERM="dumb", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "tabula_rules", "play", *args],
                                     stdin=slave, stdout=slave, stderr=slave, cwd=ROOT,
                                     env=env, close_fds=True)
        os.close(slave)
        self.fd = master
        self.out = ""
        self.pos = 0
        self.timeout = timeout

    def _read(self, wait: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:          # the other end closed: the program has ended
            data = b""
        if not data:
            return False
        self.out += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, text: str) -> str:
        """Wait for `text`; return everything printed since the last expect, up to it."""
        end = time.monotonic() + self.timeout
        while text not in self.out[self.pos:]:
            if not self._read(0.05) or time.monotonic() > end:
                raise AssertionError(f"{text!r} never came; the screen ends with:\n"
                                     + self.out[-1500:])
        i = self.out.index(text, self.pos) + len(text)
        seen, self.pos = self.out[self.pos:i], i
        return seen

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def eof(self) -> None:
        os.write(self.fd, b"\x04")            # Ctrl-D on an empty line

    def finish(self) -> int:
        """Read to the end; the exit code."""
        end = time.monotonic() + self.timeout
        while self._read(0.05) and time.monotonic() < end:
            if self.proc.poll() is not None and not select.select([self.fd], [], [], 0)[0]:
                break
        code = self.proc.wait(timeout=self.timeout)
        os.close(self.fd)
        return code


def actions_on(screen: str) -> dict:
    """The numbered legal actions on the last list of a screen: {number: text}."""
    part = screen[screen.rindex("your decision"):]
    return {int(k): t for k, t in re.findall(r"(\d+)\) (\S+)", part)}


def replay(capsys, path) -> str:
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


# ---- through a pseudo-terminal ---------------------------------------------------------------

def test_a_whole_game_by_numbers_and_prefixes_with_undo_hint_and_bad_input(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    t = Terminal(TIC, "--seats", "human,mcts:50", "--seed", "5", "--log", str(log))
    screen = t.expect("player 0> ")
    # the board: a grid with its coordinates, every cell empty and so numbered with the
    # choice that places there
    assert "board (3 x 3)" in screen and "    0 1 2" in screen
    assert re.search(r"^  0 1 2 3$", screen, re.M) and "numbered: the choice" in screen
    assert actions_on(screen)[1] == "x(0,0)"

    # bad input re-prompts with a message, never a traceback
    t.send("zzz")
    assert "no legal action starts with 'zzz'" in t.expect("player 0> ")
    t.send("42")
    assert "no action 42: choose a number from 1 to 9" in t.expect("player 0> ")
    t.send("x(1")                          # a prefix of three actions: they are listed
    seen = t.expect("player 0> ")
    assert "could be 3 actions" in seen and "x(1,0)" in seen and "x(1,2)" in seen
    t.send("")
    assert "type a number from 1 to 9" in t.expect("player 0> ")
    t.send("undo")
    assert "nothing to undo" in t.expect("player 0> ")

    # a hint is shown, not played
    t.send("hint greedy")
    seen = t.expect("player 0> ")
    assert re.search(r"hint \(greedy\): \d+\) x\(\d,\d\)   \(not played\)", seen)
    assert "you:" not in seen

    # a move by number, the bot's reply; undo brings the same reply to the same move
    t.send("1")
    first = t.expect("player 0> ")
    assert "you: x(0,0)" in first
    reply = re.search(r"player 1 \(mcts:50:8\): (o\(\d,\d\))", first).group(1)
    assert re.search(r"^  0 x", first, re.M)             # the board drawn after the moves
    t.send("undo")
    again = t.expect("player 0> ")
    assert "undone: back to your previous decision (0 decisions stand)" in again
    assert len(actions_on(again)) == 9
    t.send("x(0,0)")                                    # the same move, by its text
    seen = t.expect("player 0> ")
    assert f"player 1 (mcts:50:8): {reply}" in seen

    # and now a move taken back for good: the log must forget it
    acts = actions_on(seen)
    t.send(acts[len(acts)].lower())                     # a whole action, in another case
    seen = t.expect("player 0> ")
    taken_back = acts[len(acts)]
    assert f"you: {taken_back}" in seen
    t.send("undo")
    seen = t.expect("player 0> ")
    assert "(2 decisions stand)" in seen

    # play to the end: by number and by prefix, in turn
    by_number = True
    while "game over" not in seen:
        acts = actions_on(seen)
        if by_number:
            t.send(str(min(acts)))
        else:                                   # the shortest prefix that is unique
            text = acts[max(acts)]
            prefix = next(text[:k] for k in range(1, len(text) + 1)
                          if sum(a.startswith(text[:k]) for a in acts.values()) == 1)
            t.send(prefix)
        by_number = not by_number
        seen = t.expect("> ")
    if "leaves> " not in seen:
        seen += t.expect("leaves> ")
    assert "game over. points:" in seen and re.search(r"winners?: ", seen)
    t.send("")
    assert t.finish() == 0
    assert "Traceback" not in t.out

    assert replay(capsys, log).startswith("ok: ")
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert lines[0]["agents"] == ["human", "mcts:50:8"] and lines[-1]["end"] is True
    decisions = [x for x in lines if "n" in x]
    assert decisions[0]["action"] == "x(0,0)" and decisions[1]["action"] == reply
    assert decisions[2]["player"] == 0 and decisions[2]["action"] != taken_back


def test_a_bot_bidding_before_you_is_not_seen_thinking():
    """At a terminal a bot's move is announced while it thinks ("(player 0 (random) is
    thinking...)"), but not at a simultaneous decision a human has still to take: it
    would say that the bot bids first (issue 25). After the human's bid it may."""
    t = Terminal("goofspiel", "--seats", "random,human", "--option", "num_cards=3",
                 "--seed", "3")
    assert "is thinking" not in t.expect("player 1> ")
    t.send("1")
    assert "is thinking" not in t.expect("player 1> ")
    t.eof()
    assert t.finish() == 0
    t = Terminal("goofspiel", "--seats", "human,random", "--option", "num_cards=3",
                 "--seed", "3")
    t.expect("player 0> ")
    t.send("1")
    assert "(player 1 (random) is thinking...)" in t.expect("player 0> ")
    t.eof()
    assert t.finish() == 0


def test_kuhn_poker_hides_the_other_hand_and_end_of_input_leaves(tmp_path, capsys):
    log = tmp_path / "kuhn.jsonl"
    t = Terminal(KUHN, "--seats", "human,mcts:20", "--seed", "3", "--log", str(log))
    screen = t.expect("player 0> ")
    mine = re.search(r"chance: (Deal:\d)", screen).group(1)
    assert "chance: (hidden from you)" in screen
    own_hand = re.search(r"^  hand  ([JQK])$", screen, re.M).group(1)
    assert re.search(r"^player 1 \(mcts:20:8\) \| .*\n  hand  1 face down$", screen, re.M)
    t.eof()
    assert t.finish() == 0
    assert "left the game after 2 decisions" in t.out
    assert "Traceback" not in t.out
    # the other card, as the log knows it, was never shown
    deals = [json.loads(x) for x in log.read_text().splitlines()[1:3]]
    theirs = [d["action"] for d in deals if d["action"] != mine]
    assert len(theirs) == 1 and theirs[0] not in t.out
    faces = "JQK"
    other = faces[int(theirs[0].split(":")[1])]
    assert other != own_hand and not re.search(rf"^\s*hand\s+{other}$", t.out, re.M)


# ---- in-process sessions ------------------------------------------------------------------

def session(spec_path, seats, lines, seed=1, players=None, log=None, options=None,
            width=100, height=24):
    """A Session whose human types `lines` (then the end of input); its printed text."""
    spec = load_spec(spec_path if os.path.isabs(spec_path) else ROOT / spec_path)
    agents = parse_seats(seats, players, spec.player_range[0])
    game = spec.game(len(agents), options or {})
    typed = list(lines)
    out = []

    def ask(prompt):
        out.append(prompt)
        if not typed:
            raise EOFError
        return typed.pop(0)

    def say(text="", end="\n"):
        out.append(str(text) + end)
    s = Session(spec, game, str(spec_path), seed, agents, log_path=log, ask=ask, say=say,
                width=width, height=height)
    code = s.play()
    return s, code, "".join(out)


def test_simultaneous_choices_are_kept_until_the_reveal():
    s, code, out = session("examples/goofspiel", "greedy,human", ["1"], seed=2)
    assert code == 0
    before, after = out.split("player 1> ", 1)
    assert "has chosen" not in before                # not even that the bot has bid
    assert "[P0]Bid" not in before                   # the bot's bid is not shown yet
    assert "you chose: [P1]Bid: 1" in after
    reveal = after[after.index("the choices, revealed:"):]
    assert re.search(r"player 0 \(greedy\): \[P0\]Bid: \d+", reveal)
    assert "you: [P1]Bid: 1" in reveal




@pytest.mark.parametrize("seats", ["random,human", "human,human"])
def test_a_seat_cannot_tell_whether_another_has_chosen_before_its_own_choice(tmp_path, seats):
    """Issue 25: a simultaneous decision is one node to every seat. The engine takes the
    choices one at a time, in the order the spec lists the choosers: listed first,
    player 1 bids before player 0 has; listed second, after. What player 1 is shown
    before its bid (the moves told, the hand-over, the table, a hint, and leaving there)
    is the same both ways, but for the order in which the header names the choosers; no
    "has chosen" line for another seat appears before the reveal."""
    seen: dict = {}
    for choosers in ("players", "[players[1], players[0]]"):
        folder = tmp_path / ("first" if choosers == "players" else "second")
        folder.mkdir()
        spec = folder / "morra.yaml"
        spec.write_text(MORRA.replace("CHOOSERS", choosers), encoding="utf-8")
        hot = seats == "human,human"
        first = hot and choosers == "players"       # player 0 bids before player 1
        typed = ["", "1"] * first + [""] * hot + ["hint random", "1"]
        runs = {"bid": typed + ["hint random", "1"] * (1 + hot),     # to the end
                "left": typed[:-1]}                 # player 1 leaves at its first bid
        for run, lines in runs.items():
            s, code, out = session(str(spec), seats, lines, seed=5)
            assert code == 0
            # nothing before the reveal tells anyone that another seat has chosen
            assert not re.search(r"\bplayer \d \(\w+\) has chosen",
                                 out.split("the choices, revealed:", 1)[0])
            if run == "bid":
                out = out[:out.index("player 1> 1\n")]     # a hint asked, not the bid
            if hot:                                 # from the hand-over to player 1
                out = out[out.index("-- player 1's turn"):]
            assert "has chosen" not in out and "the choices, revealed:" not in out
            seen.setdefault(run, []).append(
                re.sub(r"player 1 \(you\), (player 0 \(\w+\))", r"\1, player 1 (you)", out))
    assert seen["bid"][0] == seen["bid"][1]
    assert seen["left"][0] == seen["left"][1]
    assert "left the game after 0 decisions" in seen["left"][0]


def test_a_huge_or_control_character_line_is_shown_cut_and_printable():
    """Typed (or piped) text is never echoed whole or raw: a 100,000-character line is
    cut, and an escape sequence cannot reach the terminal."""
    s, code, out = session("examples/tic_tac_toe", "human,random",
                           ["a" * 100_000, "x\x1b[31mred"], seed=2)
    assert code == 0 and "\x1b" not in out
    assert "a" * 1000 not in out and "more characters" in out
    assert "no legal action starts with 'x?[31mred'" in out


def test_hot_seat_shows_each_seat_its_own_view_after_a_pause():
    s, code, out = session(KUHN, "human", ["", "Pass", ""], seed=4)
    assert code == 0
    assert "pass the keyboard to player 0" in out and "pass the keyboard to player 1" in out
    first, second = out.split("pass the keyboard to player 1", 1)
    hands = s.st.zones_view(None)["hand"]
    card0, card1 = hands["0"][0], hands["1"][0]
    assert re.search(rf"^  hand  {card0}$", first, re.M)
    assert not re.search(rf"^  hand  {card1}$", first, re.M)
    assert re.search(rf"^  hand  {card1}$", second, re.M)
    assert not re.search(rf"^  hand  {card0}$", second, re.M)
    assert "since your last decision (player 1):" in second and "player 0 (human): Pass" in second


def test_medang_hides_the_bots_hands_and_discards():
    s, code, out = session("specs/medang", "human,random,random", ["keep"], seed=3)
    assert code == 0
    assert re.search(r"^player 1 \(random\) \| .*\n  hand    4 face down$", out, re.M)
    assert "dynasty_pool  hidden" in out
    assert "temple (columns: 11 slots, numbered from 1" in out
    bot_lines = [x for x in out.splitlines() if re.match(r"  player [12] \(random\): ", x)]
    assert bot_lines and not any("discard " in x for x in bot_lines)
    discarded = [d for d in s.record if d[0] in (1, 2) and d[2].startswith("discard ")]
    hidden = [x for x in bot_lines if x.endswith("(hidden from you)")]
    assert len(hidden) == len(discarded)
    # played tiles are seen: a bot's tile played onto the temple is named
    assert any(" on column " in x for x in bot_lines)


def test_medina_board_is_a_grid_with_a_legend():
    s, code, out = session("specs/medina", "human,greedy,greedy", ["1"] * 12, seed=2)
    assert code == 0
    board = out[out.rindex("board ("):]
    header = board.splitlines()[1]
    assert header.split() == [str(x) for x in range(s.st.prog.zones["board"].width)]
    assert "legend: " in board and "t1 tower 1" in board
    assert re.search(r"^player 1 \(greedy\) \| score \d+ \| turns_taken \d+\n  screen  \d+ "
                     r"face down$", out, re.M)
    assert max(len(x) for x in out.splitlines()) <= 100


def test_many_actions_alike_are_listed_on_one_line_by_the_numbers_that_differ():
    strings = [f"orange building at {x},{y}" for y in range(8) for x in range(12)]
    strings += ["pass", "wall at 3,4"]
    table = SimpleNamespace(width=100)
    order, lines = Session.action_lines(table, strings)
    assert lines[0].startswith("   1-96  orange building at [0,0 1,0 2,0")
    assert sorted(order) == list(range(len(strings)))
    assert any(re.search(r"97\) pass", x) for x in lines)
    assert strings[order[97]] == "wall at 3,4" and max(len(x) for x in lines) <= 100
    order, lines = Session.action_lines(table, strings, full=True)
    assert order == list(range(len(strings))) and len(lines) > 16


def test_a_bots_only_game_plays_as_run_agents_plays_it(tmp_path, capsys):
    log = tmp_path / "bots.jsonl"
    s, code, out = session(TIC, "greedy,random", [], seed=9, log=str(log))
    assert code == 0 and s.st.terminal and "full view" in out
    assert replay(capsys, log).startswith("ok: ")
    assert main(["run", TIC, "--agents", "greedy,random", "--seed", "9", "--json"]) == 0
    ran = json.loads(capsys.readouterr().out)
    assert [d["action"] for d in ran["decisions"]] == [d[2] for d in s.record]


def test_undo_at_the_end_and_the_log(tmp_path, capsys):
    log = tmp_path / "t.jsonl"
    moves = ["5", "1", "1", "1", "1"]
    s, code, out = session(TIC, "human,greedy", moves + ["undo", "1", ""], seed=1,
                           log=str(log))
    assert code == 0 and s.st.terminal
    assert "undone: back to the last human decision" in out
    assert replay(capsys, log).startswith("ok: ")
    n = sum(1 for x in log.read_text().splitlines() if '"n":' in x)
    assert n == len(s.record)


def test_the_drawing_rules():
    assert abbreviate(["x", "o"]) == {"x": "x", "o": "o"}
    codes = abbreviate(["wall", "well", "tower 1", "tower 2", "red rooftop", "brown",
                        "blue rooftop"])
    assert codes["wall"] != codes["well"] and codes["tower 1"] == "t1"
    assert codes["red rooftop"] == "rr" and len(set(codes.values())) == len(codes)
    assert grouped(["a", "b", "a"]) == "a (2), b"
    assert grouped(["a", "a", "b", "a"], runs_only=True) == "a (2), b, a"


def test_hex_boards_are_offset(tmp_path):
    (tmp_path / "hexes.yaml").write_text(
        "game: {id: hexes, name: Hexes, source: h.txt, players: {min: 2, max: 2}}\n"
        "components:\n  disc: {name: disc, count: 4, zone: supply}\n"
        "zones:\n  supply: {kind: set, visibility: public}\n"
        "  board: {kind: hex, width: 4, height: 3, visibility: public}\n"
        "play:\n  - turns: {first: 0, until: 'size(supply) == 0'}\n    do:\n"
        "      - choose: c in cells(board) where size(c) == 0\n"
        "        label: 'disc at {x(c)},{y(c)}'\n        do:\n"
        "          - move first(t for t in supply) to c\n"
        "scoring:\n  points:\n    none: {value: '0'}\n")
    game = load_spec(tmp_path / "hexes.yaml").game(2, {})
    st = game.new_state(seed=1)
    st.apply_string("disc at 1,1")
    text = Drawer(game, 100).draw(st, 0, ["human", "random"], known_scores(st, 0))
    rows = [x for x in text.splitlines() if re.match(r"  \d ", x)]
    assert rows[0].startswith("  0 . ") and rows[1].startswith("  1  . d . .")
    assert "board (4 x 3, hex)" in text


def test_scores_hidden_where_they_depend_on_what_the_seat_cannot_see():
    game = load_spec(ROOT / "specs" / "medang").game(3, {})
    st = game.new_state(seed=1)
    rng = random.Random(1)
    unknown = 0
    for _ in range(60):
        known = known_scores(st, 0)
        true = st.scores()
        assert known[0] == true[0]                # its own secret is seen
        assert all(k is None or k == t for k, t in zip(known, true))
        unknown += known[1] is None or known[2] is None
        acts = st.legal_actions()
        st.apply(acts[int(rng.random() * len(acts))])
    assert unknown                                # the others' secrets score for them
    assert known_scores(st, None) == st.scores()


def test_command_errors(capsys):
    assert main(["play", TIC, "--seats", "humn,mcts"]) == 1
    err = capsys.readouterr().err
    assert "unknown seat 'humn'" in err and "did you mean 'human'" in err
    assert main(["play", TIC, "--seats", "human,mcts,greedy"]) == 1
    assert "--seats names 3 seats, but tic_tac_toe is for 2 players" in capsys.readouterr().err
    assert main(["play", TIC, "--seats", "human,mcts:0"]) == 1
    assert "--seats: 'mcts:0'" in capsys.readouterr().err
    assert main(["play", TIC, "--option", "nope=1"]) == 1
    assert "unknown option 'nope'" in capsys.readouterr().err
    assert main(["play", TIC, "--log", "/no/such/folder/x.jsonl"]) == 1
    assert main(["play", "no/such/spec"]) == 1
    with pytest.raises(SystemExit) as e:
        main(["play", TIC, "--seed", "x"])
    assert e.value.code == 2


# ---- the board kept in view --------------------------------------------------------------------

def screens(out: str, prompt: str = "player 0> ") -> list:
    """What was on the screen when each line was typed: the text before each prompt."""
    return out.split(prompt)[:-1]


def tail(screen: str) -> list:
    """The lines from the last board's title to the prompt (the prompt's line too)."""
    lines = screen.split("\n")
    return lines[max([i for i, x in enumerate(lines) if x.startswith("board (")] + [0]):]


def board_cells(screen: str) -> dict:
    """{(x, y): text} of the last grid drawn on a screen."""
    lines = tail(screen)
    cells = {}
    for row in lines[2:]:
        parts = row.split()
        if not parts or not parts[0].isdigit():
            break
        for x, text in enumerate(parts[1:]):
            cells[x, int(parts[0])] = text
    return cells


def test_a_placement_is_numbered_on_the_board_and_fits_80x24():
    """Medina at 80x24: a building's cells carry the numbers of the choices that place
    there (the number on a cell chooses it), and the board and the choices fit the last
    24 lines before every prompt; `board` draws it without the numbers."""
    s, code, out = session("specs/medina", "human,random", ["1", "17", "board", "more", "1"],
                           seed=1, width=80, height=24)
    assert code == 0 and max(len(x) for x in out.splitlines()) <= 80
    shown = screens(out)
    assert len(shown) == 6 and all(len(tail(x)) <= 24 for x in shown)
    put = shown[1]                         # where to put the orange building chosen
    assert "numbered: the choice that places there" in put
    assert re.search(r"^  1-(\d+)  orange building at \.\.\.: the numbers on the board$",
                     put, re.M)
    numbered = {text: xy for xy, text in board_cells(put).items() if text.isdigit()}
    count = int(re.search(r"\((\d+) legal actions; rule:put\)", put).group(1))
    assert sorted(map(int, numbered)) == list(range(1, count + 1))  # each on its cell
    x, y = numbered["17"]
    assert f"  you: orange building at {x},{y}\n" in shown[2]
    assert board_cells(shown[2])[x, y] == "o"            # now a piece, and no number
    assert "numbered:" not in shown[3] and board_cells(shown[3])[x, y] == "o"  # `board`
    assert "every choice is on the screen" in shown[4]
    assert "numbered: the choice that places there" in shown[5]


PAGES = """\
game: {id: pages, name: Pages, source: p.txt, players: {min: 2, max: 2}}
components:
  disc: {name: disc, count: 9, zone: supply}
zones:
  supply: {kind: set, visibility: public}
  board: {kind: grid, width: 3, height: 3, visibility: public}
play:
  - turns: {first: 0, until: 'size(supply) == 0'}
    do:
      - choose_one:
          - choose: c in cells(board) where size(c) == 0
            label: 'disc at {x(c)},{y(c)}'
            do:
              - move first(t for t in supply) to c
          - choose: n in range(1, 60)
            label: 'ponder {n}'
            do: []
scoring:
  points:
    none: {value: '0'}
"""


def test_long_choice_lists_are_paged_under_the_board(tmp_path):
    """At 80x14, nine cells numbered and sixty other choices: the cells' choices are one
    line, the others in pages under the board, each page a run of numbers; `more` draws
    the board and the next page; a number from any page chooses; after `actions` (every
    choice listed) there are no pages."""
    (tmp_path / "pages.yaml").write_text(PAGES)
    s, code, out = session(tmp_path / "pages.yaml", "human,random",
                           ["more", "more", "40", "actions", "more"], seed=1, width=80,
                           height=14)
    assert code == 0
    first, second, third, after, listed, last = screens(out)
    assert re.search(r"^  1-9  disc at \.\.\.: the numbers on the board$", first, re.M)
    assert "(page 1 of 4: 'more' shows the next" in first
    assert "(page 2 of 4" in second and "(page 3 of 4" in third
    runs = []
    for screen in (first, second, third):
        assert len(tail(screen)) <= 14
        assert board_cells(screen)[0, 0] == "1" and board_cells(screen)[2, 2] == "9"
        runs.append(sorted(int(k) for k in re.findall(r"(\d+)\) ponder", screen)))
    assert runs[0][0] == 10 and all(r == list(range(r[0], r[-1] + 1)) for r in runs)
    assert runs[1][0] == runs[0][-1] + 1 and runs[2][0] == runs[1][-1] + 1
    assert "you: ponder 31" in after and "(page 1 of 4" in after
    # `actions` lists every one, numbered in order: no pages any more
    assert "  1) disc at 0,0" in listed and "69) ponder 60" in listed
    assert "every choice is on the screen" in last


def shipped() -> list:
    """Every shipped spec and example: its folder, as `tabula play` takes it."""
    return [f"{d}/{p.name}" for d in ("specs", "examples") for p in sorted((ROOT / d).iterdir())
            if (p / f"{p.name}.yaml").is_file()]


@pytest.mark.parametrize("path", shipped())
def test_the_first_decision_fits_80x24(path):
    """At a game's first human decision at 80x24 (the least players, the others random),
    every line fits 80 columns; where the table has a board, the lines from the turn's
    header (whose decision it is) to the prompt fit 24: the boards, and the choices."""
    least = load_spec(ROOT / path).player_range[0]
    s, code, out = session(path, ",".join(["human"] + ["random"] * (least - 1)), ["quit"],
                           width=80, height=24)
    assert code == 0 and max(len(x) for x in out.splitlines()) <= 80
    boards = any(not z.per_player and z.kind in ("grid", "hex") for z in s.st.prog.zone_list)
    assert boards or path not in ("examples/quoridor", "examples/hamlet", "specs/medina")
    if boards:
        lines = screens(out)[0].split("\n")
        header = max(i for i, x in enumerate(lines) if x.startswith("== "))
        assert len(lines[header:]) <= 24, "\n".join(lines[header:])


def test_several_boards_side_by_side_and_their_numbers_by_kind():
    """Quoridor: the pawn's board and the two boards of walls, too tall one under the
    other, are drawn side by side, a legend for them all; where the choices are too many
    to list, those numbered on the boards are one line per alternative and board."""
    s, code, out = session("examples/quoridor", "human,random", ["quit"], width=80, height=16)
    screen = screens(out)[0]
    assert re.search(r"^board \(5 x 5\) +hwalls \(4 x 4\) +vwalls \(4 x 4\)$", screen, re.M)
    assert re.search(r"^  0 \.  \.  p1 \.  \. +0 4  5  6  7 +0 20 21 22 23$", screen, re.M)
    assert screen.count("legend: ") == 1 and screen.count("numbered: ") == 1
    assert re.findall(r"^  (\S+)  (.*)$", screen[screen.index("your decision"):], re.M) == [
        ("1-3", "the numbers on board"), ("4-19", "the numbers on hwalls"),
        ("20-35", "the numbers on vwalls")]
    lines = screen.split("\n")
    assert len(lines[max(i for i, x in enumerate(lines) if x.startswith("== ")):]) <= 16


def test_boards_no_choice_acts_on_are_a_line_when_all_do_not_fit():
    """Hamlet at 80x24: four boards, too tall together. The tile is laid on the board,
    drawn in full; what does not fit beside it is named on a line with what is on it;
    `board` draws every board in full."""
    s, code, out = session("examples/hamlet", "human,random", ["board"], width=80, height=24)
    first, again = screens(out)
    titles = ["board (9 x 9)", "net (19 x 19)", "town_posts (9 x 9)", "road_posts (9 x 9)"]
    brief = re.search(r"^the other boards \('board' draws them\): (.*)$", first, re.M)
    assert brief and "road_posts (9 x 9) empty" in brief.group(1)
    assert re.search(r"^board \(9 x 9\) ", first, re.M)          # drawn, numbered
    drawn = [t for t in titles if re.search(rf"^(\S.*   )?{re.escape(t)}( |$)", first, re.M)]
    named = [t for t in titles if t in brief.group(1)]
    assert sorted(drawn + named) == sorted(titles)
    assert all(re.search(rf"^{re.escape(t)}$", again, re.M) for t in titles)
