"""Chance outcomes of copies of a piece (issue 25, item 5; docs/language.md section 7,
"Copies of a piece, as chance outcomes"): copies in one slot of an unordered zone are one
outcome at their combined probability; copies at different places keep an outcome each,
their labels numbered where they coincide, so that every outcome has a name of its own
that a scenario and a game log can give. Information states keep the label unnumbered.
The spec is written here, apart from any shipped game."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from fractions import Fraction

import pytest

from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.gamelog import read_log
from tabula_rules.tools.replay import replay
from tabula_rules.tools.scenario import run_file

# A deck (ordered) of two red and two blue cards, a bag (unordered) of two red gems and
# two blue; each turn chance deals a card from anywhere in the deck, seen by its taker,
# then a gem from the bag.
COPIES = """\
game: {id: copies, name: Copies, source: none, players: {min: 2, max: 2}}
components:
  card: {name: "{colour}", for_each: {colour: "['red', 'blue']"}, count: 2, zone: deck}
  gem: {name: "{colour} gem", for_each: {colour: "['red', 'blue']"}, count: 2, zone: bag}
zones:
  deck: {kind: stack, visibility: count}
  bag: {kind: set, ordered: false, visibility: count}
  hand: {kind: set, per_player: true, visibility: owner}
play:
  - id: turn
    turns: {first: 0, until: "size(deck) == 0"}
    do:
      - choose: c in deck
        player: chance
        visible_to: current
        label: "draw {c}"
        do:
          - move c to current.hand
      - choose: g in bag
        player: chance
        @WEIGHT@
        label: "take {g}"
        do:
          - move g to current.hand
scoring:
  points:
    gems: {value: "count(g for g in player.hand where g.colour == 'red')"}
"""


def spec_path(tmp_path, weight: str = ""):
    path = tmp_path / "copies.yaml"
    text = COPIES.replace("@WEIGHT@", weight) if weight else \
        COPIES.replace("        @WEIGHT@\n", "")
    path.write_text(text)
    return path


def game(tmp_path, weight: str = "", recall: bool = False):
    return Spec(spec_path(tmp_path, weight)).game(2, recall=recall)


def odds(st) -> dict:
    return {st.action_to_string(a): p for a, p in st.chance_outcomes(exact=True)}


def assert_unique(st) -> None:
    strings = st.legal_action_strings()
    assert len(set(strings)) == len(strings), strings
    for text in strings:
        assert len(st.actions_named(text)) == 1, text


def test_copies_in_an_unordered_slot_are_one_outcome(tmp_path):
    st = game(tmp_path).new_state(seed=0)
    st.apply_string("draw red (1 of 2)")
    assert odds(st) == {"take red gem": Fraction(1, 2), "take blue gem": Fraction(1, 2)}
    st.apply_string("take red gem")
    st.apply_string("draw blue (1 of 2)")
    # one red gem left, two blue: the odds follow the bag
    assert odds(st) == {"take red gem": Fraction(1, 3), "take blue gem": Fraction(2, 3)}
    assert_unique(st)


def test_weights_of_merged_copies_add_up(tmp_path):
    st = game(tmp_path, "weight: \"if g.colour == 'red' then 3 else 1\"").new_state(seed=0)
    st.apply_string("draw blue (2 of 2)")
    assert odds(st) == {"take red gem": Fraction(6, 8), "take blue gem": Fraction(2, 8)}


def test_copies_at_different_places_are_numbered(tmp_path):
    st = game(tmp_path).new_state(seed=0)
    want = ["draw red (1 of 2)", "draw red (2 of 2)", "draw blue (1 of 2)",
            "draw blue (2 of 2)"]
    assert st.legal_action_strings() == want
    assert set(odds(st).values()) == {Fraction(1, 4)}
    assert_unique(st)
    # each name takes its own card: the deck is bottom to top red, red, blue, blue
    deck = st.prog.zones["deck"].base
    before = list(st.slots[deck])
    st.apply_string("draw red (2 of 2)")
    assert st.slots[deck] == [before[0]] + before[2:]
    # one red left: its label is as written; the blue copies are still numbered
    st.apply_string("take blue gem")
    assert st.legal_action_strings() == ["draw red", "draw blue (1 of 2)",
                                         "draw blue (2 of 2)"]


def test_a_label_that_hides_what_differs_is_numbered_too(tmp_path):
    """Not only copies: any chance outcomes whose labels coincide get numbers; a
    player's decision does not (its label must tell its actions apart)."""
    path = spec_path(tmp_path)
    path.write_text(path.read_text().replace('label: "draw {c}"', 'label: "a card"'))
    st = Spec(path).game(2).new_state(seed=0)
    assert st.legal_action_strings() == [f"a card ({k} of 4)" for k in (1, 2, 3, 4)]
    path.write_text(path.read_text().replace("        player: chance\n        visible_to",
                                             "        visible_to"))
    st = Spec(path).game(2).new_state(seed=0)
    assert st.current_player() == 0
    assert st.legal_action_strings() == ["a card"] * 4


def test_information_states_keep_the_label_unnumbered(tmp_path):
    st = game(tmp_path, recall=True).new_state(seed=0)
    st.apply_string("draw red (2 of 2)")
    mine = st.information_state(0)["history"]
    assert mine == [{"player": "chance", "rule": "step:turn", "action": "draw red"}]
    theirs = st.information_state(1)["history"]
    assert theirs == [{"player": "chance", "rule": "step:turn"}]
    other = game(tmp_path, recall=True).new_state(seed=0)
    other.apply_string("draw red (1 of 2)")
    assert other.information_state_string(0) == st.information_state_string(0)


def test_distinct_still_merges_copies_wherever_they_are(tmp_path):
    path = spec_path(tmp_path)
    path.write_text(path.read_text().replace("        visible_to: current\n",
                                             "        visible_to: current\n"
                                             "        distinct: true\n"))
    st = Spec(path).game(2).new_state(seed=0)
    assert odds(st) == {"draw red": Fraction(1, 2), "draw blue": Fraction(1, 2)}


def test_a_scenario_names_each_outcome(tmp_path):
    spec_path(tmp_path)
    text = textwrap.dedent("""\
        spec: copies.yaml
        scenarios:
          - id: the-second-red
            do:
              - {action: draw red (2 of 2), player: chance}
            expect:
              legal: [take red gem, take blue gem]
              sizes: {hand: {0: 1}, deck: 3}
          - id: the-plain-label-names-none
            do:
              - draw red
            expect:
              current: chance
        """)
    path = tmp_path / "copies.test.yaml"
    path.write_text(text)
    first, second = run_file(path)
    assert first.passed, str(first)
    assert not second.passed
    assert "'draw red' is not legal here; legal: draw red (1 of 2); draw red (2 of 2)" \
        in second.message
    assert second.pos.line == text.splitlines().index("      - draw red") + 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_log_names_each_outcome(tmp_path, capsys, seed):
    """tabula run --log writes the numbered labels; the log replays, by its tuples and
    by its strings alone, and each logged chance outcome names one outcome."""
    spec = spec_path(tmp_path)
    log = tmp_path / "game.jsonl"
    assert main(["run", str(spec), "--seed", str(seed), "--log", str(log)]) == 0
    records = [json.loads(line) for line in log.read_text().splitlines()]
    dealt = [r["action"] for r in records if r.get("player") == "chance"]
    assert any(" of 2)" in a for a in dealt), dealt
    assert main(["replay", str(log)]) == 0
    read = read_log(log)
    g = Spec(spec).game(2)
    st, stop = replay(read, g, by_string=True)
    assert stop is None and st.is_terminal()
    capsys.readouterr()


def test_outcomes_are_drawn_at_their_odds(tmp_path):
    """sample_chance over the merged outcomes: the gem drawn first is red about half the
    time (two red gems of four), not as often as one outcome in four."""
    import random
    g = game(tmp_path)
    rng = random.Random(5)
    seen: Counter = Counter()
    for seed in range(400):
        st = g.new_state(seed=seed)
        st.apply(st.sample_chance(rng))
        seen[st.action_to_string(st.sample_chance(rng))] += 1
    assert set(seen) == {"take red gem", "take blue gem"}
    assert 160 <= seen["take red gem"] <= 240, seen
