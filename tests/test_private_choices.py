"""`tabula validate` warns of a choice that names a piece not every player may see (a
card of a hand, of a face-down deck) in its action and has no visible_to: every player's
information state would show it. A piece that the choice puts face up (itself, or through
the rules it calls) is no secret; visible_to says who sees it."""

import textwrap

import pytest

from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main

GAME = """\
game: {id: pass, name: Pass, source: none, players: {min: 2, max: 3}}
components:
  card: {name: "c{n}", for_each: {n: "range(1, 9)"}, attributes: {n: n}, zone: deck}
zones:
  deck: {kind: stack, visibility: count}
  hand: {kind: set, per_player: true, visibility: owner}
  table: {kind: set, visibility: public}
  box: {kind: set, visibility: hidden}
@RULES@
setup:
  - for: p in players
    do:
      - repeat: 2
        do:
          - choose: c in deck
            player: chance
@DEAL@
            label: "deal {c} to {p}"
            do:
              - move c to p.hand
play:
  - id: turn
    turns: {first: 0, until: "size(table) + size(box) >= 2"}
    do:
      - choose: c in current.hand
@EXTRA@
        label: "give {c}"
        do:
          - @EFFECT@
scoring:
  points:
    n: {value: "sum(c.n for c in player.hand)"}
"""


DEAL = "            visible_to: p"


# the rules a call may name: show puts its card face up, lay asks show to
RULES = """rules:
  show:
    params: [c]
    do:
      - move c to table
  lay:
    params: [c]
    do:
      - call show(c)
"""


def spec(effect: str, extra: str = "", deal: str = DEAL) -> str:
    rules = RULES if "call lay" in effect else RULES[:RULES.index("  lay:")] \
        if "call show" in effect else ""
    return (GAME.replace("@EFFECT@", effect).replace("@EXTRA@", extra)
            .replace("@DEAL@", deal).replace("@RULES@\n", rules))


def warnings(tmp_path, effect: str, extra: str = "", deal: str = DEAL):
    path = tmp_path / "pass.yaml"
    path.write_text(spec(effect, extra, deal))
    games = Spec(path).validate()
    found = {(w.message, w.pos.line, w.pos.col) for g in games for w in g.prog.usage.warnings}
    return sorted(found), textwrap.dedent(path.read_text()).splitlines()


@pytest.mark.parametrize("effect", [
    "move c to next_player(current).hand",       # a pass: the others should not see it
    "move c to box",                             # laid face down
    "move c to bottom of deck",                  # put back under the deck
])
def test_a_private_choice_without_visible_to_is_warned_of(tmp_path, effect):
    found, lines = warnings(tmp_path, effect)
    assert len(found) == 1
    message, line, col = found[0]
    assert "names a piece of 'hand' (owner visibility)" in message
    assert lines[line - 1].strip() == "- choose: c in current.hand" and col == 9


@pytest.mark.parametrize("effect, extra", [
    ("move c to table", ""),                                # played face up
    ("call show(c)", ""),                                   # face up by a rule
    ("call lay(c)", ""),                                    # ... by a rule's rule
    ("move c to next_player(current).hand",
     "        visible_to: '[current, next_player(current)]'"),
    ("move c to box", "        visible_to: current"),
])
def test_a_choice_that_shows_its_piece_or_says_who_sees_it_is_not(tmp_path, effect, extra):
    assert warnings(tmp_path, effect, extra)[0] == []


def test_a_deal_face_down_without_visible_to_is_warned_of(tmp_path):
    """A chance deal from a face-down deck to a hand: the receiver only should see it."""
    found, lines = warnings(tmp_path, "move c to table", deal="")
    assert [lines[line - 1].strip() for _, line, _ in found] == ["- choose: c in deck"]
    assert "names a piece of 'deck' (count visibility)" in found[0][0]


def test_validate_prints_the_warning_and_succeeds(tmp_path, capsys):
    path = tmp_path / "pass.yaml"
    path.write_text(spec("move c to box"))
    assert main(["validate", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("warning: this choice names a piece of 'hand'") == 1
    assert "visible_to: current" in captured.err and "ok   " in captured.out
