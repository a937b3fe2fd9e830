"""Simultaneous decisions, weighted chance and information states (perfect recall), on
small specs apart from any game."""

import json
import random
import subprocess
import sys
import textwrap
from collections import Counter
from fractions import Fraction

import pytest

from tabula_rules import SpecError
from tabula_rules.bots.agents import RandomAgent, play_game
from tabula_rules.errors import IllegalAction, RuleError, TabulaError
from tabula_rules.runtime.engine import State
from tabula_rules.spec import Spec

# Two players each hold the cards 1, 2 and 3, and bid one at once, face down; the higher
# bid scores the prize (drawn by chance: 1, 2 or 3 points, weighted 1:2:3); ties score
# nothing. The bids are revealed after both chose.
BID = """\
game: {id: bid, name: Bid, source: none, players: {min: 2, max: 3}}
components:
  card:
    name: "c{rank}"
    for_each: {rank: "range(1, 3)"}
    count: 3
    zone: box
zones:
  box: {kind: stack, visibility: count}
  hand: {kind: set, per_player: true, visibility: public}
  bid: {kind: set, per_player: true, visibility: owner}
  shown: {kind: set, per_player: true, visibility: public}
variables:
  prize: {value: 0}
  points: {value: 0, per_player: true}
functions:
  best: {value: "max(top(p.shown).rank for p in players)"}
setup:
  - for: p in players
    do:
      - for: r in range(1, 3)
        do:
          - move first(c for c in box where c.rank == r) to p.hand
play:
  - id: round
    repeat: 3
    do:
      - id: prize
        choose: k in range(1, 3)
        player: chance
        weight: k
        label: "prize {k}"
        do:
          - prize = k
      - id: bids
        choose: c in p.hand
        simultaneous: p in players
        visible_to: p
        label: "bid {c}"
        do:
          - move c to p.bid
      - for: p in players
        do:
          - move p.bid to p.shown
      - for: p in players where top(p.shown).rank == best() and count(q for q in players where top(q.shown).rank == best()) == 1
        do:
          - p.points += prize
      - for: p in players
        do:
          - move p.shown to box
scoring:
  points:
    total: {value: player.points}
"""  # noqa: E501  spec text, kept as written


def game(tmp_path, text=BID, players=2, recall=True):
    path = tmp_path / "g.yaml"
    path.write_text(textwrap.dedent(text))
    return Spec(path).game(players, recall=recall)


def hand(st, p):
    return st.observation(p)["zones"]["hand"][str(p)]


@pytest.fixture
def bid(tmp_path):
    return game(tmp_path)


def to_bids(st, rng=None):
    """Past the chance decision to the bids."""
    assert st.is_chance_node()
    st.apply(st.sample_chance(rng or random.Random(0)))


# ---- simultaneous decisions ------------------------------------------------------------------

def test_a_simultaneous_decision_asks_every_player_at_once(bid):
    st = bid.new_state(seed=1)
    to_bids(st)
    assert st.is_simultaneous_node() and st.choosers() == [0, 1]
    assert st.legal_action_strings(0) == ["bid c1", "bid c2", "bid c3"]
    assert st.legal_action_strings(1) == ["bid c1", "bid c2", "bid c3"]
    # the sequential view: player 0, then player 1
    assert st.current_player() == 0
    st.apply(st.legal_actions(0)[2])
    assert st.current_player() == 1 and st.choosers() == [1]
    assert st.legal_actions(0) == ()
    # nothing of player 0's choice shows before the reveal: hand, bid zone, observation
    assert hand(st, 0) == ["c1", "c2", "c3"]
    assert "c3" not in json.dumps(st.observation(1)["zones"]["bid"])
    st.apply(st.legal_actions(1)[0])
    # revealed and applied together: 3 beats 1
    assert not st.is_simultaneous_node()
    assert hand(st, 0) == ["c1", "c2"] and hand(st, 1) == ["c2", "c3"]
    assert st.observation(1)["player_variables"]["points"]["0"] > 0


def test_apply_actions_is_the_joint_move(bid):
    a, b = bid.new_state(seed=2), bid.new_state(seed=2)
    to_bids(a)
    to_bids(b)
    a.apply_actions([a.legal_actions(0)[1], a.legal_actions(1)[2]])
    b.apply(b.legal_actions(0)[1])
    b.apply(b.legal_actions(1)[2])
    assert a.to_json_text() == b.to_json_text()
    with pytest.raises(IllegalAction):
        a.apply_actions([None, None])          # no simultaneous decision pending now
    to_bids(a)
    with pytest.raises(IllegalAction, match="player 1"):
        a.apply_actions({0: a.legal_actions(0)[0], 1: (99, 0, 0)})
    assert a.choosers() == [0, 1]              # nothing was applied


def test_the_choosers_observations_before_the_reveal_are_equal(bid):
    """Whatever player 0 chose, player 1 sees the same (observation and information
    state): the choices are revealed together."""
    seen = set()
    for k in range(3):
        st = bid.new_state(seed=5)
        to_bids(st)
        st.apply(st.legal_actions(0)[k])
        seen.add((json.dumps(st.observation(1), sort_keys=True),
                  st.information_state_string(1)))
        mine = st.information_state(0)["history"][-1]
        assert mine["pending"] and mine["action"] == f"bid c{k + 1}"
    assert len(seen) == 1


def test_a_simultaneous_state_clones_and_saves_mid_move(bid):
    st = bid.new_state(seed=3)
    to_bids(st)
    st.apply(st.legal_actions(0)[0])
    copy = st.clone()
    saved = State.from_json(bid, json.loads(st.to_json_text()))
    assert saved.to_json_text() == st.to_json_text()
    assert saved.information_state(0) == st.information_state(0)
    for s in (st, copy, saved):
        s.apply(s.legal_actions(1)[1])
    assert st.to_json_text() == copy.to_json_text() == saved.to_json_text()
    # a forged choice is refused
    bad = json.loads(st.to_json_text())
    to_bids(st)
    bad = json.loads(st.to_json_text())
    bad["chosen"] = [[99, 0, 1]]
    with pytest.raises(TabulaError, match="legal choice"):
        State.from_json(bid, bad)


def test_determinizing_forgets_the_others_secret_choice(bid):
    """An agent's sampled world does not tell it what the other player bid."""
    st = bid.new_state(seed=4)
    to_bids(st)
    st.apply(st.legal_actions(0)[2])              # player 0 bids c3
    bids = Counter()
    for i in range(200):
        world = st.resample(1, random.Random(i))
        assert world.current_player() == 1
        world.apply(world.legal_actions(1)[0])
        bids[tuple(world.observation(1)["zones"]["hand"]["0"])] += 1
    assert len(bids) == 3 and min(bids.values()) > 30


def test_random_games_with_simultaneous_moves_end_and_conserve_cards(bid):
    for seed in range(20):
        out = play_game(bid, seed, [RandomAgent(), RandomAgent()])
        assert sum(out["scores"]) <= 9


def test_three_players_choose_at_once(tmp_path):
    g = game(tmp_path, players=3)
    st = g.new_state(seed=0)
    to_bids(st)
    assert st.choosers() == [0, 1, 2]
    st.apply_actions([st.legal_actions(p)[p] for p in range(3)])
    assert [hand(st, p) for p in range(3)] == [["c2", "c3"], ["c1", "c3"], ["c1", "c2"]]


def test_a_player_with_nothing_to_choose_takes_no_part(tmp_path):
    g = game(tmp_path, BID.replace("choose: c in p.hand", "choose: c in p.hand where p == 1"))
    st = g.new_state(seed=0)
    to_bids(st)
    assert st.is_simultaneous_node() and st.choosers() == [1]


@pytest.mark.parametrize("change, message", [
    ("        visible_to: p\n", "        visible_to: p\n        player: 0\n"),
    ("simultaneous: p in players", "simultaneous: p in [1, 2] where p > 0"),
    ("simultaneous: p in players", "simultaneous: p in 3"),
])
def test_simultaneous_misuse_is_a_located_error(tmp_path, change, message):
    with pytest.raises(SpecError) as err:
        game(tmp_path, BID.replace(change, message))
    assert err.value.pos.line > 0


# ---- weighted chance -----------------------------------------------------------------------

def test_weighted_chance_outcomes_and_draws(bid):
    st = bid.new_state(seed=1)
    assert [p for _, p in st.chance_outcomes(exact=True)] == [Fraction(1, 6), Fraction(1, 3),
                                                              Fraction(1, 2)]
    assert sum(p for _, p in st.chance_outcomes()) == pytest.approx(1)
    rng = random.Random(7)
    drawn = Counter(st.action_to_string(st.sample_chance(rng)) for _ in range(6000))
    assert drawn["prize 3"] == pytest.approx(3000, rel=0.08)
    assert drawn["prize 1"] == pytest.approx(1000, rel=0.15)


def test_equal_chance_outcomes_draw_as_before(tmp_path):
    """Without weights, sample_chance picks legal_actions()[int(r * n)]: seeds that drove
    uniform chance before keep giving the same games."""
    st = game(tmp_path, BID.replace("        weight: k\n", "")).new_state(seed=1)
    assert [p for _, p in st.chance_outcomes()] == [1 / 3] * 3
    for seed in range(20):
        r = random.Random(seed).random()
        assert st.sample_chance(random.Random(seed)) == st.legal_actions()[int(r * 3)]


def test_weight_zero_leaves_an_outcome_out_and_negative_is_an_error(tmp_path):
    st = game(tmp_path, BID.replace("weight: k", "weight: k - 1")).new_state(seed=1)
    assert st.legal_action_strings() == ["prize 2", "prize 3"]
    with pytest.raises(RuleError, match="negative weight"):
        game(tmp_path, BID.replace("weight: k", "weight: k - 2")).new_state(seed=1)


@pytest.mark.parametrize("change, new, message", [
    ("        player: chance\n", "", "only a chance decision"),
    ("        weight: k\n", "        weight: k\n        optional: no prize\n",
     "cannot take optional"),
])
def test_weights_belong_to_chance_decisions(tmp_path, change, new, message):
    with pytest.raises(SpecError, match=message) as err:
        game(tmp_path, BID.replace(change, new))
    assert err.value.pos.line > 0


# ---- information states ----------------------------------------------------------------------

def test_information_states_remember_what_each_player_saw(bid):
    st = bid.new_state(seed=1)
    to_bids(st)
    st.apply_actions([st.legal_actions(0)[0], st.legal_actions(1)[1]])
    h0 = st.information_state(0)["history"]
    h1 = st.information_state(1)["history"]
    assert h0[0] == h1[0] and h0[0]["player"] == "chance" and "action" in h0[0]
    assert h0[1:] == [{"player": 0, "rule": "step:bids", "action": "bid c1"},
                      {"player": 1, "rule": "step:bids"}]
    assert h1[1:] == [{"player": 0, "rule": "step:bids"},
                      {"player": 1, "rule": "step:bids", "action": "bid c2"}]
    # the table shows the bids once revealed; the history keeps them even after they
    # leave the table (perfect recall)
    assert st.information_state(0)["observation"] == st.observation(0)


def test_information_state_strings_tell_histories_apart(bid):
    """Two histories that end on the same table differ in the information state."""
    def play(k0, k1):
        st = bid.new_state(seed=9)
        for a0, a1 in ((k0, k1), (k1, k0)):
            to_bids(st, random.Random(1))
            st.apply_actions([st.legal_actions(0)[a0], st.legal_actions(1)[a1]])
        return st
    a, b = play(0, 1), play(1, 0)
    assert a.information_state_string(0) != b.information_state_string(0)
    same = play(0, 1)
    assert same.information_state_string(0) == a.information_state_string(0)


def test_information_states_need_recall(tmp_path):
    st = game(tmp_path, recall=False).new_state(seed=1)
    with pytest.raises(TabulaError, match="recall=True"):
        st.information_state(0)
    st = game(tmp_path).new_state(seed=1)
    with pytest.raises(TabulaError, match="no player 5"):
        st.information_state(5)


def test_recall_does_not_change_the_game(tmp_path):
    with_recall, without = game(tmp_path), game(tmp_path, recall=False)
    for seed in range(5):
        a = play_game(with_recall, seed, [RandomAgent(), RandomAgent()])
        b = play_game(without, seed, [RandomAgent(), RandomAgent()])
        assert a == b


def test_validate_accepts_the_new_keys(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text(BID)
    out = subprocess.run([sys.executable, "-m", "tabula_rules", "validate", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    path.write_text(BID.replace("visible_to: p", "visible_to: 'x'"))
    out = subprocess.run([sys.executable, "-m", "tabula_rules", "validate", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 1 and "visible_to" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


# ---- scenarios ---------------------------------------------------------------------------

def test_a_scenario_gives_a_joint_move_and_checks_each_chooser(tmp_path):
    (tmp_path / "g.yaml").write_text(BID)
    (tmp_path / "s.yaml").write_text(textwrap.dedent("""\
        spec: g.yaml
        scenarios:
          - id: both-bid
            do: [prize 2]
            expect:
              choosers: [0, 1]
              legal: {0: [bid c1, bid c2, bid c3], 1: [bid c1, bid c2, bid c3]}
          - id: joint
            do: [prize 2, {joint: {0: bid c3, 1: bid c1}}]
            expect:
              variables: {points: {0: 2, 1: 0}}
              choosers: []
          - id: a-joint-move-needs-every-chooser
            do: [prize 2, {joint: {0: bid c3}}]
            expect:
              current: 0
          - id: not-legal-for-player-1
            do: [prize 2, {joint: {0: bid c3, 1: bid c9}}]
            expect:
              current: 0
        """))
    out = subprocess.run([sys.executable, "-m", "tabula_rules", "test", str(tmp_path / "s.yaml")],
                         capture_output=True, text=True)
    lines = out.stdout + out.stderr
    assert out.returncode == 1, lines
    assert "2 passed, 2 failed" in lines
    assert "players [1] choose at this decision too" in lines
    assert "'bid c9' is not legal for player 1" in lines
    assert "Traceback" not in lines
