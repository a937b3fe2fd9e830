"""Pig (examples/pig) played move for move against OpenSpiel's C++ `pig`, and refereed in
plain Python.

Lockstep (tests/openspiel_util.py): seeded random games through both engines at once, in
four settings (OpenSpiel's defaults; Piglet to 10; three players with a four-sided die and
a horizon of 50 moves, so that games also end in a draw; four players to 20): at every
step the same player to move, the same legal actions with the same ids and strings
("roll" 0, "stop" 1), at every throw the same outcomes ("Roll f", outcome f - 1; Piglet's
"Roll 0" and "Roll 1") with the same probabilities, the banked points and the turn total
that OpenSpiel's observation string shows, and at the end the same returns. One game from
a fixed list of OpenSpiel's actions, and broken rules that the comparison catches.

Referee: seeded random games of the same settings, played through the public API only,
with the game kept on the side from rules.txt alone: whose turn it is, the turn total,
the banked points and the moves made are recomputed from the rolls, the throws and the
stops; at every step the engine must offer exactly the actions the rules allow (roll and
stop, or stop alone at the winning score; the faces of the die with their odds), show
every player the same banked points and turn total, and end exactly when the rules end
the game; at the end the returns (the scores) are recomputed from the banked totals. A
broken rule or a broken scorer in a copy of the spec makes the referee fail."""

import os
import random
import re
from fractions import Fraction

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from helpers import random_trail
from openspiel_util import (
    GAMES,
    assert_mutation_caught,
    check_step,
    mutant,
    play_in_lockstep,
    play_moves_in_lockstep,
)

SPEC = ROOT / "examples" / "pig" / "pig.yaml"
REFEREE_GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "200"))

# (players, options): OpenSpiel's parameters of the same names
SETTINGS = [
    (2, {}),
    (2, {"piglet": True, "winscore": 10}),
    (3, {"horizon": 50, "winscore": 20, "diceoutcomes": 4}),
    (4, {"winscore": 20}),
]
IDS = ["default", "piglet", "three_horizon", "four"]
DEFAULTS = {"winscore": 100, "diceoutcomes": 6, "horizon": 1000, "piglet": False}


def load(players, options, spec=SPEC):
    return load_game(spec, players=players, options=options)


def theirs(players, options):
    return pyspiel.load_game("pig", dict(options, players=players))


# ---- lockstep -------------------------------------------------------------------------------

def same_table(st, os_st):
    """The banked points and the turn total OpenSpiel's observation string shows are
    Tabula's, as the players see them (one observer a step, each in turn)."""
    text = os_st.observation_string(0)
    m = re.match(r"Scores: ([\d ]+), Turn total: (\d+)", text)
    assert m, text
    banked = [int(x) for x in m.group(1).split()]
    obs = st.observation(len(os_st.history()) % os_st.num_players())
    assert [obs["player_variables"]["banked"][str(q)] for q in range(len(banked))] \
        == banked, text
    assert obs["variables"]["turn_total"] == int(m.group(2)), text


def play_in_lockstep_approx(game, os_game, seeds):
    """play_in_lockstep for returns that are thirds (four players): OpenSpiel's floats
    compared with Tabula's fractions to 1e-9. The set of returns seen."""
    outcomes = set()
    for seed in seeds:
        rng = random.Random(seed)
        st, os_st = game.new_state(seed=seed), os_game.new_initial_state()
        while not os_st.is_terminal():
            check_step(st, os_st, f"seed {seed}")
            same_table(st, os_st)
            acts, legal = st.legal_actions(), os_st.legal_actions()
            k = int(rng.random() * len(acts))
            st.apply(acts[k])
            os_st.apply_action(legal[k])
        assert st.is_terminal(), seed
        ours, os_returns = st.returns(), os_st.returns()
        assert all(abs(float(a) - b) < 1e-9 for a, b in zip(ours, os_returns)), seed
        outcomes.add(tuple(ours))
    return outcomes


@pytest.mark.parametrize("players, options", SETTINGS, ids=IDS)
def test_random_games_play_as_openspiel(players, options):
    if players == 4:
        outcomes = play_in_lockstep_approx(load(players, options),
                                           theirs(players, options), range(GAMES))
    else:
        outcomes = play_in_lockstep(load(players, options), theirs(players, options),
                                    range(GAMES), check=same_table)
    winners = {r.index(1) for r in outcomes if 1 in r}
    if GAMES >= 100:
        assert winners == set(range(players)), "every seat wins some game"
        if "horizon" in options:
            assert (0,) * players in outcomes, "some game ends at the horizon"


def test_a_game_from_openspiels_actions():
    """Player 0 rolls 6, 5, 1 (bust); player 1 rolls 4, stops; then with a horizon of 6
    player 0's roll is the sixth move and ends the game before its die."""
    moves = [0, 5, 0, 4, 0, 0,       # roll, Roll 6, roll, Roll 5, roll, Roll 1
             0, 3, 1,                # player 1: roll, Roll 4, stop
             0]                      # player 0: roll, the sixth move
    options = {"horizon": 6}
    assert play_moves_in_lockstep(load(2, options), theirs(2, options), moves,
                                  check=same_table) == (0, 0)


BROKEN = {
    "a roll at the winning score": """
        override:
          functions:
            may_roll: {value: "current.banked + turn_total <= option.winscore"}
        """,
    "the last roll is thrown": """
        override:
          steps:
            turn.roll.horizon: {if: "moves > option.horizon", then: [end game]}
        """,
    "every loser gets -1": """
        override:
          points:
            result:
              value: "if winner() == none then 0 else if player == winner() then 1 else -1"
        """,
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_rule_fails_the_comparison(name, tmp_path):
    players, options = 3, {"horizon": 40, "winscore": 20}
    game = mutant(tmp_path, SPEC, BROKEN[name], players=players, options=options)
    assert_mutation_caught(game, theirs(players, options), range(GAMES))


# ---- referee --------------------------------------------------------------------------------

class Broken(AssertionError):
    """The engine did something the rules do not allow."""


def check(cond, what):
    if not cond:
        raise Broken(what)


def referee(game, players, options, seed):
    """One random game, checked against rules.txt at every step; its returns."""
    o = dict(DEFAULTS, **options)
    win, faces, horizon, piglet = o["winscore"], o["diceoutcomes"], o["horizon"], o["piglet"]
    banked, total, turn, moves, rolling = [0] * players, 0, 0, 0, False
    rng = random.Random(seed)
    st = game.new_state(seed=seed)
    while True:
        over = moves >= horizon or any(b >= win for b in banked)
        check(st.is_terminal() == over, f"seed {seed}: the end at move {moves}")
        if over:
            break
        for p in range(players):                        # rules.txt 5.1: all see it all
            obs = st.observation(p)
            check([obs["player_variables"]["banked"][str(q)] for q in range(players)]
                  == banked, f"seed {seed}: banked points {banked}")
            check(obs["variables"]["turn_total"] == total, f"seed {seed}: turn total")
        acts = st.legal_actions()
        names = [st.action_to_string(a) for a in acts]
        if rolling:                                     # a throw: rules.txt 2.4, 4.2, 6.2
            check(st.is_chance_node(), f"seed {seed}: a throw is chance")
            odds = {st.action_to_string(a): Fraction(p).limit_denominator(1000)
                    for a, p in st.chance_outcomes()}
            if piglet:
                expected = {"Roll 0": Fraction(1, faces), "Roll 1": 1 - Fraction(1, faces)}
            else:
                expected = {f"Roll {f}": Fraction(1, faces) for f in range(1, faces + 1)}
            check(odds == expected, f"seed {seed}: the die's odds {odds}")
            a = rng.choices(acts, [p for _, p in st.chance_outcomes()])[0]
            face = int(st.action_to_string(a).split()[1])
            st.apply(a)
            rolling = False
            if face == (0 if piglet else 1):            # a bust: rules.txt 2.4
                total, turn = 0, (turn + 1) % players
            else:
                total += 1 if piglet else face
            continue
        check(st.current_player() == turn, f"seed {seed}: player {turn} is to move")
        allowed = ["roll", "stop"] if banked[turn] + total < win else ["stop"]
        check(names == allowed, f"seed {seed}: {names} instead of {allowed}")
        a = acts[rng.randrange(len(acts))]
        move = st.action_to_string(a)
        st.apply(a)
        moves += 1
        if move == "stop":                              # rules.txt 2.3
            banked[turn] += total
            total, turn = 0, (turn + 1) % players
        else:
            rolling = moves < horizon                   # rules.txt 3.2: not thrown
    winner = next((p for p in range(players) if banked[p] >= win), None)
    expected = [0] * players if winner is None else [
        1 if p == winner else Fraction(-1, players - 1) for p in range(players)]
    check(st.returns() == expected, f"seed {seed}: returns {st.returns()} for {banked}")
    check(st.scores() == expected, f"seed {seed}: scores {st.scores()}")
    best = [winner] if winner is not None else list(range(players))
    check(sorted(st.winners()) == best, f"seed {seed}: winners {st.winners()}")
    return tuple(expected)


def play_games(spec, count):
    """`count` games, the settings in turn; the returns seen in each setting."""
    games = {}
    outcomes = [set() for _ in SETTINGS]
    for i in range(count):
        key = i % len(SETTINGS)
        players, options = SETTINGS[key]
        if key not in games:
            games[key] = load(players, options, spec)
        outcomes[key].add(referee(games[key], players, options, seed=i))
    return outcomes


def test_random_games_keep_the_rules():
    outcomes = play_games(SPEC, REFEREE_GAMES)
    print([sorted(o) for o in outcomes])
    if REFEREE_GAMES >= 100:
        # every seat wins some game in every setting, and some game ends in a draw
        assert [len(o) for o in outcomes] == [2, 2, 4, 4], outcomes


def test_the_same_seed_gives_the_same_game():
    game = load(3, {"horizon": 40})
    assert random_trail(game, 5) == random_trail(game, 5)


MUTANTS = {
    "a one does not bust": ("if: outcome == 0\n", "if: outcome == 99\n"),
    "a stop banks nothing": ("current.banked += turn_total", "current.banked += 0"),
    "a roll at the winning score": ("current.banked + turn_total < option.winscore",
                                    "current.banked + turn_total <= option.winscore"),
    "the last roll is thrown": ("if: moves >= option.horizon", "if: moves > option.horizon"),
    "piglet counts the face": ("turn_total += 1\n", "turn_total += 2\n"),
    "every loser gets -1 (a broken scorer)": ("else -1 / (size(players) - 1)", "else -1"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_broken_rule_is_caught(name, tmp_path):
    old, new = MUTANTS[name]
    text = SPEC.read_text()
    assert text.count(old) == 1, old
    spec = tmp_path / "pig.yaml"
    spec.write_text(text.replace(old, new))
    with pytest.raises(Broken):
        play_games(spec, 40)
