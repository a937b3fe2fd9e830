"""Scenarios (issue 25, item 7; docs/scenarios.md): list variables given and expected,
sizes slot by slot, and a starting zone emptied by `given:` (rest:). Every bad input is
a failure located at its place in the scenario file (the CLI: exit 1, no traceback). The
spec is written here, apart from any shipped game."""

from __future__ import annotations

import textwrap

import pytest

from tabula_rules.tools.cli import main
from tabula_rules.tools.scenario import run_file

from helpers import at

# Shelf: cards of two colours and ranks 1 to 3, two copies each, in a deck; coins in a
# bank. A turn takes a card from the top of the deck (while it lasts) and notes it: in
# the player's list of pieces, the global list of ranks and texts; the card may instead
# be laid on a column of the board. Lists of every kind of item, per player and global.
SHELF = """\
game: {id: shelf, name: Shelf, source: none, players: {min: 2, max: 3}}
enums:
  colour: [red, blue]
components:
  card:
    name: "{colour}{rank}"
    for_each: {colour: "['red', 'blue']", rank: "[1, 2, 3]"}
    count: 2
    zone: deck
  coin: {name: coin, count: 4, zone: bank}
zones:
  deck: {kind: stack, visibility: count}
  bank: {kind: set, visibility: public}
  box: {kind: set, visibility: hidden, capacity: 20}
  tray: {kind: set, visibility: public, capacity: 2}
  hand: {kind: set, per_player: true, visibility: owner}
  board: {kind: columns, size: 4, visibility: public}
  rows: {kind: columns, size: 3, per_player: true, visibility: public}
variables:
  ranks: {value: [], type: list of int}
  shares: {value: [], type: list of number}
  words: {value: [], type: list of text}
  flags: {value: [], type: list of bool}
  colours: {value: [], type: list of colour}
  order: {value: [], type: list of player}
  spots: {value: [], type: list of cell}
  marked: {value: [], type: list of piece}
  taken: {value: [], type: list of piece, per_player: true}
  tallies: {value: [0], type: list of int, per_player: true}
play:
  - turns: {first: 0, until: "size(deck) == 0"}
    do:
      - choose_one:
          - choose: c in [top(deck)]
            label: "take {c}"
            do:
              - move c to current.hand
              - current.taken = current.taken + [c]
              - ranks = ranks + [c.rank]
              - words = words + [text(c)]
              - colours = colours + [c.colour]
              - order = order + [current]
              - current.tallies = current.tallies + [size(current.hand)]
          - choose: c in [top(deck)], k in slots(board)
            label: "lay {c} on {k}"
            do:
              - move c to board[k]
              - spots = spots + [board[k]]
scoring:
  points:
    cards: {value: "size(player.hand)"}
"""


def scenario_file(tmp_path, body: str, spec: str = SHELF):
    (tmp_path / "shelf.yaml").write_text(spec)
    text = "spec: shelf.yaml\nscenarios:\n" + textwrap.dedent(body)
    path = tmp_path / "shelf.test.yaml"
    path.write_text(text)
    return path, text


def results(path) -> list:
    return run_file(path)


def passed(path) -> None:
    for r in run_file(path):
        assert r.passed, str(r)


def failed(path, text: str, needle: str, token: str, message: str) -> None:
    """The file's one scenario fails with `message`, located at `token` in `needle`."""
    (r,) = run_file(path)
    assert not r.passed, "the scenario passed"
    assert message in r.message, r.message
    assert (r.pos.line, r.pos.col) == at(text, needle, token), (str(r), at(text, needle,
                                                                           token))


# ---- list variables ------------------------------------------------------------------------

def test_lists_of_every_kind_given_and_expected(tmp_path):
    path, _ = scenario_file(tmp_path, """
      - id: lists
        given:
          zones: {deck: [blue2, red3], hand: {1: [red1]}}
          variables:
            ranks: [5, 6]
            shares: ['7/3', 2]
            words: [a, b]
            flags: [true, false]
            colours: [blue]
            order: [1]
            spots: ["board[3]"]
            marked: [red1, red1, "top(players[1].hand)"]
            taken: {0: [], 1: [red1]}
            tallies: {0: [], 1: [7, 8]}
          current: 0
        do: [take red3]
        expect:
          variables:
            ranks: [5, 6, 3]
            shares: ['7/3', 2]
            words: [a, b, red3]
            flags: [true, false]
            colours: [blue, red]
            order: [1, 0]
            spots: ["board[3]"]
            marked: [red1, red1, red1]
            taken: {0: [red3], 1: [red1]}
            tallies: {0: [1], 1: [7, 8]}
      - id: emptied-and-computed
        given:
          variables:
            ranks: []
            taken: {1: "[top(deck)]"}
            order: "[p for p in players where p != 0]"
        expect:
          variables:
            ranks: []
            taken: {0: [], 1: [blue3]}
            order: [1]
            tallies: {0: [0], 1: [0]}
    """)
    passed(path)


def test_copies_named_in_a_list_are_different_pieces(tmp_path):
    """Two red1 cards: a list naming red1 twice holds both; a third is a failure. An
    item written as rule text names the copy where it lies."""
    path, text = scenario_file(tmp_path, """
      - id: three-red1
        given:
          variables:
            marked: [red1, red1, red1]
    """)
    failed(path, text, "[red1, red1, red1]", "red1]", "no piece named 'red1' is left for "
           "marked")
    path, _ = scenario_file(tmp_path, """
      - id: the-copy-in-the-hand
        given:
          zones: {hand: {1: [red1]}}
          variables:
            marked: ["top(players[1].hand)"]
        expect:
          variables:
            marked: ["top(players[1].hand)"]
    """)
    passed(path)


@pytest.mark.parametrize("value, token, message", [
    ("ranks: [3, x]", "x]", "ranks[1] holds a whole number, not 'x'"),
    ("shares: [1, '1/0']", "'1/0'", "shares[1] holds a number (a fraction as the text '7/3')"),
    ("colours: [red, green]", "green", "colours[1] holds a colour value (one of red, blue), "
     "not 'green'"),
    ("order: [0, 5]", "5]", "order[1]: 5 is not a player of this game"),
    ("marked: [red1, rde2]", "rde2", "marked[1]: no piece is named 'rde2' (did you mean "
     "'red2'?)"),
    ("marked: 5", "5", "marked holds a list (a piece each): give a list, or rule text that "
     "computes one, not 5"),
    ("taken: [red1]", "[red1]", "'taken' is per player: give a map from player number"),
    ("taken: {7: [red1]}", "7:", "'taken': 7 is not a player of this game"),
    ("ranks: \"size(deck)\"", "\"size(deck)\"", "ranks holds a list (a whole number each); "
     "the rule text 'size(deck)' gives 12"),
])
def test_a_bad_list_is_located(tmp_path, value, token, message):
    path, text = scenario_file(tmp_path, f"""
      - id: bad
        given:
          variables:
            {value}
    """)
    failed(path, text, value, token, message)


def test_an_expected_list_that_differs_is_located(tmp_path):
    path, text = scenario_file(tmp_path, """
      - id: differs
        given:
          zones: {deck: [blue2, red3]}
          current: 0
        do: [take red3]
        expect:
          variables:
            taken: {0: [blue2]}
    """)
    failed(path, text, "{0: [blue2]}", "[blue2]", "taken of player 0: expected [blue2], "
           "found [red3]")
    path, text = scenario_file(tmp_path, """
      - id: unknown-name
        expect:
          variables:
            marked: [blue7]
    """)
    failed(path, text, "[blue7]", "blue7", "marked[0]: no piece is named 'blue7'")


# ---- sizes slot by slot -----------------------------------------------------------------------

def test_sizes_slot_by_slot(tmp_path):
    path, _ = scenario_file(tmp_path, """
      - id: per-slot
        given:
          zones:
            board: {1: [red1, blue1], 3: [coin]}
            rows: {1: [[], [red2]]}
        expect:
          sizes:
            board: [0, 2, 0, 1]             # one number per slot
            deck: 9
            rows: {0: [0, 0, 0], 1: {1: 1}} # per player: a list, or slot -> number
      - id: some-slots
        given:
          zones: {board: {2: [red1]}}
          current: 0
        do: [lay blue3 on 2]
        expect:
          sizes:
            board: {2: 2, 0: 0}             # those slots only
            rows: {0: 0, 1: 0}              # a per-player total, as before
    """)
    passed(path)


@pytest.mark.parametrize("sizes, needle, token, message", [
    ("board: [0, 2, 0, 1]", "[0, 2, 0, 1]", "2", "board[1]: expected 2 pieces, found 0"),
    ("board: {3: 1}", "{3: 1}", "1}", "board[3]: expected 1 pieces, found 0"),
    ("board: [0, 0, 0]", "[0, 0, 0]", None, "board has 4 slots: the list gives 3 numbers"),
    ("board: {4: 0}", "{4: 0}", "4", "board has slots 0 to 3: a key here is one of them, "
     "not 4"),
    ("rows: {1: [0, 5, 0]}", "[0, 5, 0]", "5", "rows of player 1[1]: expected 5 pieces, "
     "found 0"),
    ("rows: {1: {2: 1}}", "{2: 1}", "1}", "rows of player 1[2]: expected 1 pieces, found 0"),
    ("rows: 0", "rows: 0", "0", "'rows' belongs to each player: give a map from player "
     "number to its number of pieces"),
    ("hand: {3: 0}", "{3: 0}", "3", "sizes of 'hand': 3 is not a player of this game"),
    ("shelf: 0", "shelf: 0", "shelf", "unknown zone 'shelf'"),
    ("bank: [4]", "bank: [4]", "[4]", "'bank' is one zone, not one per player, and has one "
     "slot: give its number of pieces, not [4]"),
    ("hand: {1: {0: 1}}", "{1: {0: 1}}", "{0: 1}", "hand of player 1 has one slot: give its "
     "number of pieces"),
])
def test_a_wrong_size_is_located(tmp_path, sizes, needle, token, message):
    path, text = scenario_file(tmp_path, f"""
      - id: sizes
        expect:
          sizes:
            {sizes}
    """)
    failed(path, text, needle, token, message)


def test_a_size_the_schema_refuses_is_a_located_error(tmp_path, capsys):
    path, text = scenario_file(tmp_path, """
      - id: sizes
        expect:
          sizes:
            board: [0, many, 0, 0]
    """)
    assert main(["test", str(path)]) == 1
    err = capsys.readouterr()
    out = err.out + err.err
    line, col = at(text, "[0, many, 0, 0]", "many")
    assert f"{path}:{line}:{col}: error:" in out, out
    assert "Traceback" not in out


# ---- a starting zone emptied: rest: --------------------------------------------------------

def test_rest_empties_a_starting_zone(tmp_path):
    path, _ = scenario_file(tmp_path, """
      - id: empty-deck
        given:
          zones: {deck: [], hand: {0: [red1]}}
          rest: box
        expect:
          terminal: true
          zones: {deck: [], hand: {0: [red1], 1: []}}
          sizes: {box: 11, bank: 4}         # the coins' home is not listed: they stay
      - id: exactly-what-is-listed
        given:
          zones: {deck: [blue3, red2], box: [coin]}
          rest: box
          current: 1
        do: [take red2]
        expect:
          zones: {deck: [blue3], hand: {1: [red2]}}
          sizes: {box: 11, bank: 3}
      - id: without-rest-the-rest-stays-home
        given:
          zones: {deck: [red2]}
          current: 0
        expect:
          sizes: {deck: 12}
          legal_includes: [take red2]
    """)
    passed(path)


def test_a_zone_given_empty_needs_a_rest(tmp_path):
    path, text = scenario_file(tmp_path, """
      - id: no-rest
        given:
          zones: {deck: []}
    """)
    failed(path, text, "{deck: []}", "[]", "deck is given empty, but 12 pieces whose home "
           "it is (blue1, blue2, blue3, red1, red2, red3) no zone lists: give `rest: ZONE`")


@pytest.mark.parametrize("rest, message", [
    ("boxx", "rest: 'boxx' is not a zone of this game (did you mean 'box'?)"),
    ("rows", "rest: 'rows' is one zone per player: name a zone of one slot"),
    ("board", "rest: 'board' is a zone of 4 slots: name a zone of one slot"),
    ("tray", "tray holds at most 2 pieces"),
    ("deck", "deck is given empty, but it is the zone rest: names"),
])
def test_a_bad_rest_is_located(tmp_path, rest, message):
    path, text = scenario_file(tmp_path, f"""
      - id: bad-rest
        given:
          zones: {{deck: []}}
          rest: {rest}
    """)
    needle, token = (("{deck: []}", "[]") if rest == "deck" else (f"rest: {rest}", rest))
    failed(path, text, needle, token, message)


def test_rest_after_the_set_up(tmp_path):
    spec = SHELF.replace("play:\n", "setup:\n  - id: setup.deal\n    for: p in players\n"
                         "    do:\n      - move top(deck) to p.hand\nplay:\n")
    path, text = scenario_file(tmp_path, """
      - id: after-deal
        given:
          after: setup
          zones: {deck: [red1]}
          rest: box
        expect:
          zones: {deck: [red1]}
          sizes: {box: 9, hand: {0: 1, 1: 1}}
      - id: after-deal-no-rest
        given:
          after: setup
          zones: {deck: []}
    """, spec)
    first, second = run_file(path)
    assert first.passed, str(first)
    assert not second.passed and "deck is given empty, but 10 pieces whose home it is" \
        in second.message
    assert (second.pos.line, second.pos.col) == at(text, "zones: {deck: []}", "[]")


def test_the_command_line_reports_a_failure_located_without_a_traceback(tmp_path, capsys):
    path, text = scenario_file(tmp_path, """
      - id: bad-rest
        given:
          zones: {deck: []}
          rest: board
    """)
    assert main(["test", str(path)]) == 1
    out = capsys.readouterr().out
    line, col = at(text, "rest: board", "board")
    assert f"{path}:{line}:{col}: rest: 'board' is a zone of 4 slots" in out, out
    assert "Traceback" not in out
