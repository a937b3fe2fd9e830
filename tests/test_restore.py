"""A saved state restores exactly (issue 25, 1): State.to_json, written out as JSON text
and read back by State.from_json, is the very state, every value of the same type (a
table's number keys, enums, pieces, fractions, tuples), so the game goes on as it would
have. Every shipped spec and example is played at random points, saved as text, restored,
and the restored state and a clone of the original are played on with the same choices:
the same legal actions, state and, at the end, scores and winners.

The default suite takes some 200 restore points; `TABULA_RESTORE_POINTS=20000 pytest
tests/test_restore.py` takes that many in all (docs/ecosystem.md, README.md)."""

from __future__ import annotations

import json
import os
import random
from fractions import Fraction

import pytest

from tabula_rules.runtime.engine import State
from tabula_rules.runtime.values import restored, saved
from tabula_rules.spec import load_game, load_spec

from conftest import EXAMPLES, SPEC_FILES

GAMES = [*SPEC_FILES, *(e / f"{e.name}.yaml" if (e / f"{e.name}.yaml").exists()
                        else next(e.glob("*.yaml")) for e in EXAMPLES)]
POINTS = int(os.environ.get("TABULA_RESTORE_POINTS", "200"))
PER_GAME = max(2, POINTS // len(GAMES))
ONWARD = 40                   # decisions played on from each restore point


def through_text(game, st: State) -> State:
    """`st` saved as JSON text and read back, as a file or a socket would carry it."""
    return State.from_json(game, json.loads(st.to_json_text()))


def play_on(a: State, b: State, rng: random.Random, decisions: int) -> None:
    """Play `a` and `b` on with the same choices, checking they agree at every step."""
    for _ in range(decisions):
        assert a.to_json_text() == b.to_json_text()
        if a.is_terminal():
            break
        acts = a.legal_actions()
        assert acts == b.legal_actions()
        assert a.legal_action_strings() == b.legal_action_strings()
        k = rng.randrange(len(acts))
        a.apply(acts[k])
        b.apply(b.legal_actions()[k])
    assert a.scores() == b.scores()
    if a.is_terminal():
        assert a.winners() == b.winners() and a.returns() == b.returns()


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_a_state_saved_as_text_restores_exactly_and_plays_on_the_same(path):
    spec = load_spec(path)
    lo, hi = spec.player_range
    rng = random.Random(path.stem)
    points = 0
    for k in range(PER_GAME):
        game = spec.game(lo if k % 2 == 0 else hi)
        st = game.new_state(seed=rng.randrange(2 ** 32))
        stop = rng.randrange(0, 120)
        for _ in range(stop):
            if st.is_terminal():
                break
            st.apply(rng.choice(st.legal_actions()))
        back = through_text(game, st)
        points += 1
        play_on(back, st.clone(), random.Random(k), ONWARD)
    assert points == PER_GAME


TALLY_SPEC = """\
game: {id: keep, name: Keep, source: keep.txt, players: {min: 2, max: 2}}
data:
  bonus:
    value: {1: 10, 2: 20}
variables:
  got: {value: 0, per_player: true}
play:
  - id: rounds
    repeat: 2
    do:
      - let n = tally(x for x in [1, 1, 2])
      - let t = bonus
      - id: pick
        choose_one:
          - label: a
            do: ["current.got += n[1] + t[2]"]
          - label: b
            do: ["current.got += n[2]"]
scoring:
  points:
    got: {value: player.got}
"""


def test_a_tally_and_a_data_table_held_across_a_decision_keep_their_number_keys(tmp_path):
    """The issue's reproducer: a `let` of a tally and of a data table with number keys,
    alive at a decision, came back from JSON text with text keys ("no entry 2 in the
    table", or a game that silently played otherwise)."""
    path = tmp_path / "keep.yaml"
    path.write_text(TALLY_SPEC, encoding="utf-8")
    game = load_game(path)
    st = game.new_state(seed=1)
    back = through_text(game, st)
    for s in (st, back):
        s.apply_string("a")
        s.apply_string("b")
    assert back.scores() == st.scores() == [23, 0]     # 3 + 20, then + 1 (no turns)


@pytest.mark.parametrize("value", [
    {1: 2, "1": 3}, {Fraction(1, 3): "x", None: 1, True: 0}, (1, 2, (3,)), [{2: [1]}],
    "7/3", "\\7/3", {"#table": 1}, {"#tuple": [1]}, Fraction(-7, 3), [], {}, (),
])
def test_saved_values_come_back_with_their_types(value):
    back = restored(json.loads(json.dumps(saved(value))))
    assert back == value and repr(back) == repr(value)


@pytest.mark.parametrize("data", [{"x": 1}, {"#table": [[1]]}, {"#table": [[[1], 2]]},
                                  {"#table": 3}, {"#tuple": [1], "#table": []}])
def test_data_saved_does_not_write_is_refused(data):
    with pytest.raises(ValueError):
        restored(data)


def test_a_state_of_the_older_format_is_refused_saying_so():
    """Format 1 wrote tables as JSON objects (their number keys became texts): such a
    state is refused by its format, not read wrongly."""
    game = load_game(EXAMPLES[0] if (EXAMPLES[0] / f"{EXAMPLES[0].name}.yaml").exists()
                     else next(EXAMPLES[0].glob("*.yaml")))
    d = game.new_state(seed=1).to_json()
    d["format"] = 1
    with pytest.raises(Exception, match="saved in format 1, by an older Tabula"):
        State.from_json(game, d)


def test_a_game_whose_options_came_from_a_file_restores_too():
    """Options read from a scenario file are the YAML loader's text (LStr): kept so in
    the game, a state saved as JSON text came back with plain text there and was refused
    ("listing it again changes its options"), depending on which test compiled the game
    first. A game's options are plain values."""
    from tabula_rules.errors import NOWHERE
    from tabula_rules.lang.loader import LStr
    medang = next(p for p in SPEC_FILES if p.stem == "medang")
    game = load_spec(medang).game(3, {"temple": LStr.at("sewu", NOWHERE)})
    assert type(game.options["temple"]) is str
    st = game.new_state(seed=1)
    play_on(through_text(game, st), st.clone(), random.Random(1), 10)
