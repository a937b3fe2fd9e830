"""Backgammon (examples/backgammon), checked two ways.

Move for move against OpenSpiel's C++ `backgammon` (tests/openspiel_util.py): seeded random
games in lockstep, at every step the same player, the same chance outcomes with the same
probabilities (30 for the opening roll, then 36), the same plays as OpenSpiel's action ids
in OpenSpiel's order, each with OpenSpiel's string, and the same returns; with the default
parameters, with full_scoring and enable_gammons (gammons and backgammons), and with a short
turn limit (draws). A broken rule (the smaller die allowed where the larger can be played;
a checker allowed onto a point of two) must fail the comparison.

And by a referee in plain Python, which knows the rules as rules.txt states them (written
out again here, not read from the spec) and watches random games through the public API:

* every player has 15 checkers, on the points, on the bar or borne off, and no point holds
  checkers of both players;
* the opening roll is one of 30 pairs (1/30 each) and says who starts; every later roll one
  of 36 (1/36 each); the player to move is the starter, then the players alternate, and a
  double whose first play used both dice is played again by the same player;
* the legal plays are exactly the referee's: every sequence of checker moves the dice allow
  (both dice if possible, else the larger one if it can be played, else the smaller, else a
  pass), numbered as rules.txt 8.1 numbers them; the play made leaves the position the
  referee's own move makes;
* both players see the whole board;
* the game ends when a player has borne off 15 checkers or the turn limit is passed, and the
  returns, the scores and the winners are recomputed from the final position.

A copy of the spec with one rule broken (bearing off with a checker outside, a hit that
does not go to the bar, gammons not counted, the double's second play dropped) must fail the
referee (test_the_referee_catches_a_broken_rule).
"""

import os
import random
import re
import textwrap

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import GAMES, assert_mutation_caught, mutant, play_in_lockstep

SPEC = ROOT / "examples" / "backgammon" / "backgammon.yaml"
# Random games, kept to what fits the default suite's budget for this file (some 10 s of
# CPU): a game costs some 45 ms here, through the referee or in lockstep (200 of either
# would take 9 s). The referee plays 40 (TABULA_REFEREE_GAMES=200 for more), the lockstep
# a third of GAMES (66 of the default 200; TABULA_LOCKSTEP_GAMES=600 plays 200).
REFEREE_GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "40"))
LOCKSTEP_GAMES = GAMES // 3

# -- the rules, as rules.txt states them ---------------------------------------------------
CHECKERS = 15                                                   # rules.txt 1.2
HOME = (range(18, 24), range(0, 6))                             # rules.txt 1.4
START = ({0: 2, 11: 5, 16: 3, 18: 5}, {23: 2, 12: 5, 7: 3, 5: 5})   # rules.txt 2.1
ROLLS = [pair for a in range(1, 7) for b in range(a + 1, 7) for pair in ((a, b), (b, a))] \
    + [(d, d) for d in range(1, 7)]                             # rules.txt 3.1
BAR, NONE = 24, 25                                              # rules.txt 8.1
STAKES = {"winloss_scoring": (1, 1, 1), "enable_gammons": (1, 2, 2),
          "full_scoring": (1, 2, 3)}                            # rules.txt 7.3
TURN_LIMIT = 500                                                # rules.txt 7.4


class Position:
    """Checkers per player and point, on the bar and borne off."""

    def __init__(self, view: dict):
        self.count = [[0] * 24, [0] * 24]
        for k, point in enumerate(view["points"]):
            assert not ("x" in point and "o" in point), f"point {k} holds both players"
            for name in point:
                self.count["xo".index(name)][k] += 1
        self.bar = [len(view["bar"][str(p)]) for p in (0, 1)]
        self.off = [len(view["tray"][str(p)]) for p in (0, 1)]
        for p in (0, 1):
            assert set(view["bar"][str(p)]) <= {"xo"[p]}, view["bar"]
            assert set(view["tray"][str(p)]) <= {"xo"[p]}, view["tray"]
            assert sum(self.count[p]) + self.bar[p] + self.off[p] == CHECKERS, (p, view)

    def key(self) -> tuple:
        return tuple(map(tuple, self.count)), tuple(self.bar), tuple(self.off)

    def copy(self) -> "Position":
        new = Position.__new__(Position)
        new.count, new.bar, new.off = [c[:] for c in self.count], self.bar[:], self.off[:]
        return new


def destination(p: int, s: int, d: int) -> int:
    """rules.txt 4.1, 4.4: X moves up and enters on d - 1, O moves down and enters on 24 - d."""
    if s == BAR:
        return d - 1 if p == 0 else 24 - d
    return s + d if p == 0 else s - d


def distance(p: int, k: int) -> int:
    return 24 - k if p == 0 else k + 1


def starts(pos: Position, p: int, d: int) -> list:
    """Where p may move a checker from with a die of d (rules.txt 4.2, 4.4, 5.1-5.3)."""
    mine, theirs = pos.count[p], pos.count[1 - p]
    if pos.bar[p]:
        return [BAR] if theirs[destination(p, BAR, d)] <= 1 else []
    home = pos.off[p] + sum(mine[k] for k in HOME[p]) == CHECKERS
    farthest = max((distance(p, k) for k in HOME[p] if mine[k]), default=0)
    found = []
    for s in range(24):
        if mine[s]:
            t = destination(p, s, d)
            if 0 <= t < 24:
                if theirs[t] <= 1:
                    found.append(s)
            elif home and (distance(p, s) == d or distance(p, s) == farthest):
                found.append(s)
    return found


def move(pos: Position, p: int, s: int, d: int) -> Position:
    """The position after p moves a checker from s with d (rules.txt 4.3: a blot hit goes
    to the bar; 5.1: past the end it is borne off)."""
    new = pos.copy()
    if s == BAR:
        new.bar[p] -= 1
    else:
        new.count[p][s] -= 1
    t = destination(p, s, d)
    if 0 <= t < 24:
        if new.count[1 - p][t] == 1:
            new.count[1 - p][t] = 0
            new.bar[1 - p] += 1
        new.count[p][t] += 1
    else:
        new.off[p] += 1
    return new


def plays(pos: Position, p: int, dice: tuple) -> dict:
    """Every legal play (rules.txt 6.1-6.3) by its number (rules.txt 8.1): its checker
    moves, (start, die) in the order they are made."""
    low, high = min(dice), max(dice)
    orders = [(high, low)] if low == high else [(high, low), (low, high)]
    found = {}
    for d1, d2 in orders:
        for a in starts(pos, p, d1):
            for b in starts(move(pos, p, a, d1), p, d2):
                found[b * 26 + a + (676 if d1 < high else 0)] = ((a, d1), (b, d2))
    if found:
        return found
    for d in (high, low):
        ones = starts(pos, p, d)
        if ones:
            return {NONE * 26 + a + (676 if d < high else 0): ((a, d),) for a in ones}
    return {1351: ()}


def result(pos: Position, scoring: str) -> list:
    """rules.txt 7.3: the winner's and the loser's returns, by the loser's position."""
    if CHECKERS not in pos.off:
        return [0, 0]
    winner = pos.off.index(CHECKERS)
    loser = 1 - winner
    backgammon = pos.off[loser] == 0 and (
        pos.bar[loser] > 0 or any(pos.count[loser][k] for k in HOME[winner]))
    kind = 2 if backgammon else 1 if pos.off[loser] == 0 else 0
    stake = STAKES[scoring][kind]
    return [stake if p == winner else -stake for p in (0, 1)]


class Referee:
    """Watches one game through the public API, step by step."""

    def __init__(self, st, scoring: str = "winloss_scoring", limit: int = TURN_LIMIT):
        self.st, self.scoring, self.limit = st, scoring, limit
        self.pos = Position(st.zones_view(None))
        assert [{k: n for k, n in enumerate(c) if n} for c in self.pos.count] == list(START)
        self.mover = None          # who plays next; None before the opening roll
        self.dice = None
        self.turns = 0
        self.roll_next = True      # a roll comes next (not a play)
        self.again = False         # the next play is a double's second play

    def chance(self, rng: random.Random, all_texts: bool = False) -> None:
        """A roll: 30 pairs for the opening, 36 later, equally likely, as rules.txt 3.1
        numbers and writes them (every text checked when all_texts, else the one drawn)."""
        st = self.st
        assert st.current_player() == -1 and st.is_chance_node()
        outcomes = st.chance_outcomes()
        opening = self.mover is None
        n = 30 if opening else 36
        assert len(outcomes) == n and all(abs(pr - 1 / n) < 1e-12 for _, pr in outcomes)
        if all_texts:
            assert sum(pr for _, pr in st.chance_outcomes(exact=True)) == 1

        def text(k: int) -> str:
            a, b = ROLLS[k]
            who = (" X starts," if k % 2 == 0 else " O starts,") if opening else ""
            return f"chance outcome {k}{who} (roll: {a}{b})"
        action = st.sample_chance(rng)
        k = [a for a, _ in outcomes].index(action)
        for j in range(n) if all_texts else [k]:
            assert st.action_to_string(outcomes[j][0]) == text(j)
        self.dice = ROLLS[k]
        self.mover = k % 2 if opening else 1 - self.mover
        self.roll_next = False
        st.apply(action)
        assert Position(st.zones_view(None)).key() == self.pos.key(), "a roll moved checkers"

    def decision(self, rng: random.Random) -> None:
        st = self.st
        assert st.current_player() == self.mover
        legal = st.legal_actions()
        mine = plays(self.pos, self.mover, self.dice)
        assert sorted(a[-1] for a in legal) == sorted(mine), (self.dice, self.pos.key())
        action = legal[int(rng.random() * len(legal))]
        st.apply(action)
        after = self.pos
        for s, d in mine[action[-1]]:
            after = move(after, self.mover, s, d)
        self.pos = Position(st.zones_view(None))
        assert self.pos.key() == after.key(), (action, self.dice)
        moved = len(mine[action[-1]])
        if not self.again:
            self.turns += 1
        double = self.dice[0] == self.dice[1]
        self.again = double and moved == 2 and not self.again and not self.over()
        self.roll_next = not self.again

    def over(self) -> bool:
        return CHECKERS in self.pos.off or self.turns > self.limit

    def check_sight(self) -> None:
        """Perfect information: both players see every zone as it is; a play's text is its
        number, then its moves (rules.txt 8.2), or "Pass"."""
        st = self.st
        view = st.zones_view(None)
        for p in (0, 1):
            assert st.observation(p)["zones"] == view
        if not st.is_chance_node():
            for a, text in zip(st.legal_actions(), st.legal_action_strings()):
                assert text == "Pass" if a[-1] == 1351 else text.startswith(f"{a[-1]} - ")

    def play(self, rng: random.Random, sight: bool = False) -> list:
        st = self.st
        while not st.is_terminal():
            assert not self.over(), "the game went on after its end"
            if sight:
                self.check_sight()
            assert st.is_chance_node() == self.roll_next
            if self.roll_next:
                self.chance(rng, all_texts=sight)
            else:
                self.decision(rng)
        assert self.over(), "the game ended early"
        returns = result(self.pos, self.scoring)
        assert st.returns() == returns and st.scores() == returns
        assert st.winners() == [p for p in (0, 1) if returns[p] == max(returns)]
        return returns


def referee_games(spec=SPEC, seeds=range(REFEREE_GAMES), options=None, sight_every=10):
    options = options or {}
    game = load_game(spec, players=2, options=options)
    seen = set()
    for seed in seeds:
        ref = Referee(game.new_state(seed=seed), options.get("scoring_type", "winloss_scoring"),
                      options.get("max_player_turns", TURN_LIMIT))
        seen.add(tuple(ref.play(random.Random(seed), sight=seed % sight_every == 0)))
    return seen


# -- the referee ------------------------------------------------------------------------------
def test_the_referee_passes_random_games():
    assert {(1, -1), (-1, 1)} <= referee_games()


def test_the_referee_passes_gammons_and_draws():
    assert {(2, -2), (-2, 2), (3, -3), (-3, 3)} <= referee_games(
        seeds=range(20), options={"scoring_type": "full_scoring"})
    assert (0, 0) in referee_games(seeds=range(5), options={"max_player_turns": 30})


BROKEN = {
    "bearing off with a checker outside": """
        override:
          functions:
            all_home: {params: [p], value: "size(p.bar) == 0"}
        """,
    "a hit checker stays on the board": """
        override:
          rules:
            play_checker:
              params: [p, s, d]
              do:
                - let t = destination(p, s, d)
                - let c = if s == bar_move then top(p.bar) else top(points[s])
                - if: t < 0 or t > 23
                  then:
                    - move c to p.tray
                  else:
                    - move c to points[t]
        """,
    "gammons not counted": """
        override:
          functions:
            gammoned: {params: [p], value: "false"}
        """,
    "no second play of a double": """
        override:
          steps:
            turn.double:
              if: "false"
              then:
                - call make_play
        """,
    "a double's plays numbered in both orders": """
        override:
          functions:
            orders: {value: "[0, 1]"}
        """,
}


@pytest.mark.parametrize("change", BROKEN, ids=list(BROKEN))
def test_the_referee_catches_a_broken_rule(tmp_path, change):
    broken = tmp_path / "broken.yaml"
    broken.write_text(f"extends: {SPEC}\ngame: {{id: broken, name: Broken}}\n"
                      + textwrap.dedent(BROKEN[change]))
    options = {"scoring_type": "enable_gammons"} if "gammon" in change else None
    with pytest.raises(AssertionError):
        referee_games(broken, seeds=range(10), options=options)


def test_a_broken_referee_is_caught():
    """The referee's own scorer, broken (a gammon counted as a single game), fails."""
    saved = dict(STAKES)
    STAKES["enable_gammons"] = (1, 1, 1)
    try:
        with pytest.raises(AssertionError):
            referee_games(seeds=range(10), options={"scoring_type": "enable_gammons"})
    finally:
        STAKES.update(saved)


# -- lockstep with OpenSpiel ------------------------------------------------------------------
@pytest.fixture(scope="module")
def games():
    return load_game(SPEC, players=2), pyspiel.load_game("backgammon")


def test_random_games_play_as_openspiel(games):
    outcomes = play_in_lockstep(*games, range(LOCKSTEP_GAMES))
    assert {(1, -1), (-1, 1)} <= outcomes          # wins of both players were compared


@pytest.mark.parametrize("scoring", ["enable_gammons", "full_scoring"])
def test_gammons_score_as_openspiel(scoring):
    game = load_game(SPEC, players=2, options={"scoring_type": scoring})
    theirs = pyspiel.load_game("backgammon", {"scoring_type": scoring})
    outcomes = play_in_lockstep(game, theirs, range(10))
    assert {2, 3 if scoring == "full_scoring" else 2} <= {abs(r[0]) for r in outcomes}


def test_the_turn_limit_draws_as_openspiel():
    game = load_game(SPEC, players=2, options={"max_player_turns": 40})
    theirs = pyspiel.load_game("backgammon", {"max_player_turns": 40})
    assert (0, 0) in play_in_lockstep(game, theirs, range(10))


def test_a_game_from_openspiels_actions(games):
    """The opening of the scenarios: X opens 2-1 (outcome 0) with 8/6 24/23 (16), O rolls
    6-6 and hits twice, then plays the second half of the double."""
    game, theirs = games
    st = game.new_state(seed=0)
    for move in (0, 16, 35, 189):
        [act] = [a for a in st.legal_actions() if a[-1] == move]
        st.apply(act)
    os_st = theirs.new_initial_state()
    for move in (0, 16, 35, 189):
        os_st.apply_action(move)
    assert st.current_player() == os_st.current_player() == 1
    assert st.legal_action_strings() == [os_st.action_to_string(1, a)
                                         for a in os_st.legal_actions()]
    assert re.fullmatch(r"168 - 13/7/1\*", st.legal_action_strings()[0])


MUTANTS = {
    "the smaller die where the larger can be played": """
        override:
          functions:
            single_order: {value: "1"}
        """,
    "a checker onto a point of two": """
        override:
          functions:
            can_move:
              params: [p, s, d]
              value: >-
                if s == bar_move then size(p.bar) > 0
                else size(p.bar) == 0 and mine(s, p) > 0 and
                  (let t = destination(p, s, d) in
                   if t < 0 or t > 23 then all_home(p) and (t == -1 or t == 24 or s == farthest(p))
                   else mine(t, opponent(p)) <= 2)
        """,
}


@pytest.mark.parametrize("change", MUTANTS, ids=list(MUTANTS))
def test_a_broken_rule_fails_the_comparison(tmp_path, games, change):
    assert_mutation_caught(mutant(tmp_path, SPEC, MUTANTS[change], players=2), games[1],
                           range(20))
