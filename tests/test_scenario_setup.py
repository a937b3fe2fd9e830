"""Scenarios from the set-up (given: after:), table and list variables in scenarios,
and initial values computed from options (initial:). docs/scenarios.md, docs/language.md
1.7 and 8."""

import textwrap
from pathlib import Path

import pytest

from tabula_rules.bots.agents import chance_rng
from tabula_rules.lang.loader import load_yaml
from tabula_rules.spec import Spec, load_spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.scenario import run_file, run_scenario

from helpers import at, check, raised, write

# Gems: chips of two colours dealt two to a hand; a turn puts a chip on a column and
# banks its colour. A global table (bank), a per-player one (prey), lists, and values
# computed from options.
GEMS = """\
game: {id: gems, name: Gems, source: gems.txt, players: {min: 2, max: 3}}
options:
  coins: {default: 3, choices: [3, 5]}
enums:
  colour: [red, blue]
data:
  extra: {value: {3: 1, 5: 2}}
components:
  chip:
    name: "{colour}"
    for_each: {colour: values(colour)}
    count: 3
    zone: bag
  crown: {zone: stand}
zones:
  bag: {kind: stack, visibility: public}
  stand: {kind: set, visibility: public}
  board: {kind: columns, capacities: [6, 6], visibility: public}
  hand: {kind: set, per_player: true, visibility: public}
variables:
  bank: {value: {red: 0, blue: 0}}
  prey: {value: {1: 0, 2: 0}, per_player: true}
  purse: {initial: option.coins, per_player: true}
  cards: {initial: "2 * option.coins + extra[option.coins]"}
  marked: {value: [], type: list of piece}
  nums: {value: [1, 2], type: list of int}
  start: {value: 0, type: player}
setup:
  - id: setup.shuffle
    do:
      - shuffle bag
  - id: setup.deal
    for: p in players
    do:
      - move top(bag, 2) to p.hand
  - id: setup.first
    choose: p in players
    player: chance
    label: "player {p} starts"
    do:
      - start = p
play:
  - turns: {first: start, until: "size(bag) == 0 and all(size(p.hand) == 0 for p in players)"}
    do:
      - choose: c in current.hand, k in [0, 1]
        label: "{c} on {k}"
        do:
          - move c to board[k]
          - bank[c.colour] += 1
          - current.prey[k + 1] += 1
          - if: size(bag) > 0
            then:
              - move top(bag) to current.hand
        else: []
"""


def scenarios(tmp_path, body: str, spec: str = GEMS):
    (tmp_path / "gems.yaml").write_text(spec)
    text = "spec: gems.yaml\nscenarios:\n" + textwrap.dedent(body)
    path = tmp_path / "gems.test.yaml"
    path.write_text(text)
    return path, text


def outcomes(path):
    return [(r.passed, "" if r.passed else str(r)) for r in run_file(path)]


# ---- table and list variables ---------------------------------------------------------

def test_tables_and_lists_given_and_expected(tmp_path):
    path, _ = scenarios(tmp_path, """
      - id: tables
        given:
          zones: {hand: {0: [red], 1: [blue]}}
          variables:
            bank: {red: 2}                  # a global table: the keys written
            "bank[blue]": 1                 # one entry, as observations name it
            prey: {0: {1: 4}, 1: {2: 1}}    # a per-player table: player -> key -> value
            "prey[2]": {0: 7}
            nums: [7, 8]
            marked: [blue, red]             # pieces by name
          current: 0
        do: [red on 0]
        expect:
          variables:
            bank: {red: 3, blue: 1}
            prey: {0: {1: 5, 2: 7}, 1: {1: 0, 2: 1}}
            "prey[1]": {0: 5}
            nums: [7, 8]
            marked: [blue, red]
            purse: {0: 3, 1: 3}
            cards: 7
    """)
    assert outcomes(path) == [(True, "")]


def test_a_zone_of_several_slots_given_slot_by_slot(tmp_path):
    """board: {1: [...]}: that slot alone, given and expected; a slot the zone does not
    have is a located failure."""
    path, _ = scenarios(tmp_path, """
      - id: one-column
        given:
          zones: {board: {1: [red, blue]}, hand: {0: [red]}}
          current: 0
        do: [red on 1]
        expect:
          zones: {board: {0: [], 1: [red, blue, red]}}
      - id: no-such-column
        given:
          zones: {board: {2: [red]}}
    """)
    results = outcomes(path)
    assert results[0] == (True, "")
    assert not results[1][0] and "'board' has slots 0 to 1: a key here is one of them, " \
        "not 2" in results[1][1]


def test_initial_values_follow_the_options(tmp_path):
    game = Spec(write(tmp_path, GEMS, "gems.yaml")).game(2, {"coins": 5})
    st = game.new_state()
    prog = game.prog
    assert st.gv[prog.gvar_names.index("cards")] == 12
    assert [row[prog.pvar_names.index("purse")] for row in st.pv] == [5, 5]
    path, _ = scenarios(tmp_path, """
      - id: five
        options: {coins: 5}
        expect: {variables: {cards: 12, purse: {0: 5, 1: 5}}}
    """)
    assert outcomes(path) == [(True, "")]


BAD_VARIABLES = [
    # (id, the variables written, where the failure points, what it says)
    ("unknown-key", "bank: {green: 1}", ("green", None),
     "'bank': 'green' is not one of its keys (red, blue)"),
    ("key-type", "prey: {0: {hare: 1}}", ("hare", None),
     "is keyed by numbers: 'hare' is not one of its keys (1, 2)"),
    ("value-type", "bank: {red: lots}", ("lots", None),
     "bank[red] holds a whole number, not 'lots'"),
    ("per-player-value", "prey: {1: {2: true}}", ("true", None),
     "prey[2] of player 1 holds a whole number, not True"),
    ("not-a-table", "bank: 3", ("3", None), "'bank' is a table: give a map from key to value"),
    ("not-a-player", "prey: {red: {1: 1}}", ("red", None), "'red' is not a player of this game"),
    ("unknown", "bnak: {red: 1}", ("bnak", None), "unknown variable 'bnak' (did you mean 'bank'?)"),
    ("list", "nums: 3", ("3", None), "nums holds a list (a whole number each)"),
    ("list-item", "nums: [1, x]", ("x]", "x"), "nums[1] holds a whole number, not 'x'"),
    ("player", "start: 7", ("7", None), "start: 7 is not a player of this game"),
    ("bool-key", "bank: {true: 1}", ("true", None), "is not one of its keys"),
]


@pytest.mark.parametrize("key, written, where, message", BAD_VARIABLES,
                         ids=[row[0] for row in BAD_VARIABLES])
@pytest.mark.parametrize("section", ["given", "expect"])
def test_bad_variables_are_located(tmp_path, section, key, written, where, message):
    body = f"- id: {key}\n  {section}:\n    variables: {{{written}}}\n"
    path, text = scenarios(tmp_path, body)
    (result,) = run_file(path)
    needle, token = where
    line_text = f"    variables: {{{written}}}"
    line, col = at(text, line_text, needle if token is None else token)
    assert not result.passed
    assert message in result.message, result.message
    assert (result.pos.file, result.pos.line, result.pos.col) == (str(path), line, col), \
        str(result)


def test_an_expected_table_that_differs_says_which_entry(tmp_path):
    path, text = scenarios(tmp_path, """
      - id: differs
        expect:
          variables:
            prey: {1: {2: 3}}
            marked: [red]
    """)
    (result,) = run_file(path)
    assert result.message == "prey[2] of player 1: expected 3, found 0"
    assert (result.pos.line, result.pos.col) == at(text, "{2: 3}", "3}")


def test_a_bad_scenario_exits_1_with_a_located_message(tmp_path, capsys):
    path, text = scenarios(tmp_path, """
      - id: bad
        given: {variables: {bank: {green: 1}}}
    """)
    assert main(["test", str(path)]) == 1
    out = capsys.readouterr()
    line, col = at(text, "green")
    assert f"{path}:{line}:{col}: 'bank': 'green' is not one of its keys" in out.out
    assert "Traceback" not in out.out + out.err


# ---- after: the position the set-up makes -----------------------------------------------

def test_after_setup_is_the_position_of_the_seed(tmp_path):
    path, _ = scenarios(tmp_path, """
      - id: after
        players: 3
        seed: 4
        given: {after: setup}
    """)
    assert outcomes(path) == [(True, "")]
    spec = load_spec(tmp_path / "gems.yaml")
    st = run_scenario(spec, load_yaml(path)["scenarios"][0])
    plain = spec.game(3).new_state(4)
    rng = chance_rng(4)
    while plain.is_chance_node():
        plain.apply(plain.sample_chance(rng))
    assert (st.slots, st.gv, st.pv, st.current_player()) == \
        (plain.slots, plain.gv, plain.pv, plain.current_player())
    assert st.legal_action_strings() == plain.legal_action_strings()


def test_after_a_step_the_rest_of_the_setup_runs(tmp_path):
    # after the deal: the chance of the first player is still to come, with the hands given
    path, _ = scenarios(tmp_path, """
      - id: after-deal
        given:
          after: setup.deal
          zones: {hand: {0: [red, red]}}
        expect:
          current: chance
          legal: [player 0 starts, player 1 starts]
          zones: {hand: {0: [red, red]}}
          sizes: {hand: {0: 2}, board: 0}
    """)
    assert outcomes(path) == [(True, "")]


def test_after_setup_only_the_differences(tmp_path):
    spec = Spec(write(tmp_path, GEMS, "gems.yaml"))
    base = spec.game(2).new_state(0)
    rng = chance_rng(0)
    while base.is_chance_node():
        base.apply(base.sample_chance(rng))
    names = base.prog.piece_names
    zones = base.prog.zones
    hand0 = [names[q] for q in base.slots[zones["hand"].slot(0, 0)]]
    hand1 = sorted(names[q] for q in base.slots[zones["hand"].slot(1, 0)])
    bag = [names[q] for q in base.slots[zones["bag"].base]]
    start = base.gv[base.prog.gvar_names.index("start")]
    # the blue comes from what hand 0 gives up first, else from the bag (its home); what
    # hand 0 gives up and nothing takes goes home to the bag
    bag_after = len(bag) + 1 if "blue" in hand0 else len(bag) + 2 - 1
    path, _ = scenarios(tmp_path, f"""
      - id: differences
        given:
          after: setup
          zones:
            hand: {{0: [crown]}}         # the crown from its home; the hand's chips go home
            board: [[blue]]
          variables: {{bank: {{blue: 1}}}}
        expect:
          zones:
            hand: {{0: [crown], 1: {hand1}}}
            stand: []
          variables: {{bank: {{red: 0, blue: 1}}, start: {start}}}
          sizes: {{bag: {bag_after}}}
    """)
    assert outcomes(path) == [(True, "")]


@pytest.mark.parametrize("given, needle, message", [
    ("{after: setup.dael}", "setup.dael", "after: 'setup.dael' is not a step of the set-up; "
     "write setup (after the whole set-up) or the id of one of its steps (setup.shuffle, "
     "setup.deal, setup.first); did you mean 'setup.deal'?"),
    ("{after: setup, start: setup}", "start", "after: runs the set-up already"),
])
def test_after_refused(tmp_path, given, needle, message):
    path, text = scenarios(tmp_path, f"- id: bad\n  given: {given}\n")
    (result,) = run_file(path)
    assert not result.passed and message in result.message, result.message
    assert (result.pos.line, result.pos.col) == at(text, "given: " + given, needle)


def test_after_does_not_make_players_decisions(tmp_path):
    spec = GEMS.replace("""    choose: p in players
    player: chance""", """    choose: p in players
    player: players[1]""")
    path, text = scenarios(tmp_path, "- id: decides\n  given: {after: setup}\n", spec)
    (result,) = run_file(path)
    assert "before the end of 'setup' the set-up asks player 1 to decide (player 0 " \
        "starts; player 1 starts)" in result.message
    assert (result.pos.line, result.pos.col) == at(text, "setup}", "setup")
    path, text = scenarios(tmp_path, """
      - id: earlier
        given: {after: setup.deal, zones: {hand: {1: [blue]}}}
        do: [player 1 starts]
        expect: {current: 1, zones: {hand: {1: [blue]}}}
    """, spec)
    assert outcomes(path) == [(True, "")]


# ---- initial: errors --------------------------------------------------------------------

@pytest.mark.parametrize("initial, needle, token, message, hint", [
    ('"size(bag) + 1"', "size(bag)", "bag", "it cannot read a zone ('bag')", "setup"),
    ('"cards + 1"', '"cards + 1"', "cards", "it cannot read a variable ('cards')", ""),
    ('"current"', '"current"', "current", "cannot read the current player", ""),
    ('"coins"', '"coins"', "coins", "unknown name 'coins'", "option.coins"),
])
def test_initial_values_are_computed_before_the_game(tmp_path, initial, needle, token,
                                                     message, hint):
    text = GEMS.replace('marked: {value: [], type: list of piece}',
                        f'marked: {{initial: {initial}}}')
    path = write(tmp_path, text, "gems.yaml")
    err = raised(lambda: Spec(path).validate())
    check(err, path, text, at(text, f"marked: {{initial: {initial}", token), message,
          hint or None)


def test_initial_or_value_not_both(tmp_path):
    text = GEMS.replace("cards: {initial:", "cards: {value: 1, initial:")
    path = write(tmp_path, text, "gems.yaml")
    err = raised(lambda: Spec(path).validate())
    check(err, path, text, at(text, "cards: {value: 1, initial:", "initial"), "not both")


def test_the_example_of_docs_scenarios(tmp_path):
    # docs/scenarios.md, "given after the set-up", on Tiny
    tiny = (Path(__file__).resolve().parents[1] / "examples" / "tiny" / "tiny.yaml")
    path = tmp_path / "tiny.test.yaml"
    path.write_text(f"spec: {tiny}\nscenarios:\n" + textwrap.dedent("""
      - id: market-after-the-deal
        seed: 3
        given:
          after: setup.deal
          zones:
            hand: {0: [sun-5, moon-1]}
          variables: {played: {1: 2}}
        do:
          - keep the hand
        expect:
          zones: {hand: {0: [sun-5, moon-1]}}
          variables: {played: {0: 0, 1: 2}}
          current: 1
    """))
    assert outcomes(path) == [(True, "")]
