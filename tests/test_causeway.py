"""Causeway (examples/causeway), refereed in plain Python: seeded random games of 2, 3 and
4 players with 2, 3 and 4 pawns each, played through the public API only. The referee
keeps its own account of the game from rules.txt: it reads every pawn's place from the
observation, works out whose roll it is (a 6 rolls again, a third 6 in a row is lost),
lists the moves that roll allows (enter on a 6, move exactly the roll along the pawn's
route, never past or onto a block, never onto a safe space held by another colour,
capture a lone pawn elsewhere, the goal only by an exact roll) and checks that the
engine offers exactly those, to exactly that player, and that the position after a
move is the one the rules make. After every action: every pawn in exactly one place,
no space of the causeway holding pawns of two colours or more than two of one, no pawn
having passed a block (the moved pawn's path read from the positions before and after).
At the end: the game ended, the winner is the one player whose pawns are all in the
goal, and the scores are the progress totals recomputed from the final position.
A broken rule or a broken scorer in a copy of the spec makes the referee fail."""

import os
import random
from collections import Counter
from fractions import Fraction

import pytest

from tabula_rules import load_game

from conftest import ROOT
from helpers import random_trail

SPEC = ROOT / "examples" / "causeway" / "causeway.yaml"
GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "200"))

LOOP = 24                       # rules.txt 1.1: spaces of the causeway
LANE = 4                        # rules.txt 1.4: spaces of a home column
GOAL = LOOP + LANE              # the goal's step along a route (the start space is step 0)
YARD = -1                       # the step of a pawn in its yard
STARS = {3, 9, 15, 21}          # rules.txt 1.6: spaces 4, 10, 16 and 22, as slots
COLOURS = ["red", "yellow", "green", "blue"]
MAX_ACTIONS = 20000             # a game that has not ended by then never will


class Broken(AssertionError):
    """The engine did something the rules do not allow."""


def check(cond, what):
    if not cond:
        raise Broken(what)


def start(seat, n):
    return seat * (LOOP // n)


def slot_of(seat, step, n):
    return (start(seat, n) + step) % LOOP


def safe(slot, n):
    return slot in STARS or slot % (LOOP // n) == 0


def name_of(seat, step, n):
    if step < LOOP:
        return f"space {slot_of(seat, step, n) + 1}"
    if step < GOAL:
        return f"lane {step - LOOP + 1}"
    return "goal"


def positions(obs, n, pawns):
    """seat -> sorted steps of its pawns, read from an observation; checks that every
    pawn is in exactly one place and that the causeway's spaces hold what they may."""
    z = obs["zones"]
    pos = {s: [] for s in range(n)}
    seen = Counter()
    for c in z["box"]:
        seen[c] += 1
        check(COLOURS.index(c) >= n, f"a {c} pawn of a seat in play is in the box")
    for s in range(n):
        for c in z["yard"][str(s)]:
            check(c == COLOURS[s], f"a {c} pawn in seat {s}'s yard")
            seen[c] += 1
            pos[s].append(YARD)
        for j, space in enumerate(z["lane"][str(s)]):
            for c in space:
                check(c == COLOURS[s], f"a {c} pawn in seat {s}'s home column")
                seen[c] += 1
                pos[s].append(LOOP + j)
        for c in z["goal"][str(s)]:
            check(c == COLOURS[s], f"a {c} pawn in seat {s}'s goal")
            seen[c] += 1
            pos[s].append(GOAL)
    check(len(z["causeway"]) == LOOP, "the causeway has 24 spaces")
    for i, space in enumerate(z["causeway"]):
        check(len(space) <= 2, f"space {i + 1} holds {space}")
        check(len(set(space)) <= 1, f"space {i + 1} holds two colours: {space}")
        for c in space:
            seen[c] += 1
            s = COLOURS.index(c)
            check(s < n, f"a {c} pawn of no player on space {i + 1}")
            pos[s].append((i - start(s, n)) % LOOP)
    check(seen == Counter({c: pawns for c in COLOURS}),
          f"pawns not conserved: {dict(seen)}")
    return {s: sorted(v) for s, v in pos.items()}


def occupants(pos, n):
    """slot -> the seats of the pawns on that space of the causeway."""
    occ = {i: [] for i in range(LOOP)}
    for s, steps in pos.items():
        for k in steps:
            if 0 <= k < LOOP:
                occ[slot_of(s, k, n)].append(s)
    return occ


def legal_moves(pos, seat, roll, n):
    """What the rules let `seat` do with `roll`: the action text -> the position after."""
    occ = occupants(pos, n)
    moves = {}

    def may_end(step):
        if step >= LOOP:
            return True                                     # rules.txt 7.4
        there = occ[slot_of(seat, step, n)]
        if len(there) == 0:
            return True
        if len(there) == 2:
            return False                                    # 7.2: never onto a block
        return there[0] == seat or not safe(slot_of(seat, step, n), n)   # 8.1, 8.3

    def after(frm, to):
        new = {s: list(v) for s, v in pos.items()}
        new[seat].remove(frm)
        new[seat].append(to)
        if to < LOOP:
            slot = slot_of(seat, to, n)
            for s in range(n):
                if s != seat:
                    for k in new[s]:
                        if 0 <= k < LOOP and slot_of(s, k, n) == slot:
                            new[s].remove(k)                # 8.2: back to the yard
                            new[s].append(YARD)
                            break
        return {s: sorted(v) for s, v in new.items()}

    if roll == 6 and YARD in pos[seat]:                     # 5.1, 5.2
        there = occ[start(seat, n)]
        if len(there) == 0 or len(there) == 1 and there[0] == seat:
            moves["enter a pawn"] = after(YARD, 0)
    for k in sorted(set(pos[seat])):
        if k == YARD or k == GOAL:
            continue
        to = k + roll
        if to > GOAL:                                       # 6.2: an exact roll home
            continue
        if any(len(occ[slot_of(seat, j, n)]) == 2 for j in range(k + 1, min(to, LOOP))):
            continue                                        # 7.2: never past a block
        if may_end(to):
            moves[f"{name_of(seat, k, n)} to {name_of(seat, to, n)}"] = after(k, to)
    return moves


def check_path(before, after, seat, roll, n):
    """The move from `before` to `after` (seat's, with `roll`), read from the positions
    alone: one pawn of seat's went `roll` steps on (or entered on a 6), passing no block
    and landing on none; at most one pawn of another colour went home to its yard, from
    the space the mover landed on."""
    gone = Counter(before[seat]) - Counter(after[seat])
    came = Counter(after[seat]) - Counter(before[seat])
    check(sum(gone.values()) == 1 and sum(came.values()) == 1,
          f"seat {seat} moved {dict(gone)} -> {dict(came)}")
    frm, to = next(iter(gone)), next(iter(came))
    if frm == YARD:
        check(roll == 6 and to == 0, f"a pawn entered to step {to} on a {roll}")
    else:
        check(to == frm + roll, f"a pawn went from step {frm} to {to} on a {roll}")
    occ = occupants(before, n)
    for j in range(max(frm, 0) + 1, min(to, LOOP)):
        check(len(occ[slot_of(seat, j, n)]) < 2,
              f"a pawn passed the block on space {slot_of(seat, j, n) + 1}")
    if to < LOOP:
        check(len(occ[slot_of(seat, to, n)]) < 2, "a pawn landed on a block")
    sent = []
    for s in range(n):
        if s == seat:
            continue
        if before[s] != after[s]:
            lost = Counter(before[s]) - Counter(after[s])
            check(sum(lost.values()) == 1 and Counter(after[s]) - Counter(before[s])
                  == Counter({YARD: 1}), f"seat {s}'s pawns moved in seat {seat}'s move")
            k = next(iter(lost))
            check(to < LOOP and 0 <= k < LOOP and slot_of(s, k, n) == slot_of(seat, to, n),
                  "a pawn went to its yard that was not landed on")
            check(not safe(slot_of(s, k, n), n), "a pawn was captured on a safe space")
            sent.append(s)
    check(len(sent) <= 1, "more than one pawn captured")


def progress(steps):
    """rules.txt 10.2: 1 for the start space up to 29 for the goal, 0 in the yard."""
    return sum(k + 1 for k in steps if k != YARD)


def referee(game, n, pawns, seed):
    """Plays one random game; returns (actions, the winner)."""
    st = game.new_state(seed=seed)
    rng = random.Random(seed)
    seat, sixes, actions = 0, 0, 0
    pos = positions(st.observation(0), n, pawns)
    check(all(p == [YARD] * pawns for p in pos.values()), "every pawn starts in its yard")
    while not st.is_terminal():
        check(actions < MAX_ACTIONS, "the game does not end")
        check(st.is_chance_node(), "a turn starts with a roll")
        outcomes = st.chance_outcomes(exact=True)
        check(sorted(st.action_to_string(a) for a, _ in outcomes)
              == [f"roll {d}" for d in range(1, 7)]
              and all(p == Fraction(1, 6) for _, p in outcomes), "the die is fair")
        a = outcomes[int(rng.random() * 6)][0]
        roll = int(st.action_to_string(a).split()[1])
        st.apply(a)
        actions += 1
        third_six = roll == 6 and sixes == 2                # rules.txt 9.2
        moves = {} if third_six else legal_moves(pos, seat, roll, n)
        if moves:
            check(st.current_player() == seat,
                  f"seat {seat} rolled, seat {st.current_player()} is asked")
            offered = st.legal_action_strings()
            check(sorted(offered) == sorted(moves),
                  f"seat {seat} rolled {roll}: offered {offered}, the rules give {sorted(moves)}")
            choice = rng.randrange(len(offered))
            st.apply(st.legal_actions()[choice])
            actions += 1
            after = positions(st.observation(seat), n, pawns)
            check_path(pos, after, seat, roll, n)
            check(after == moves[offered[choice]], f"{offered[choice]} made {after}")
            pos = after
        else:
            check(st.is_chance_node(), f"seat {seat} cannot use a {roll} and must pass")
            check(positions(st.observation(seat), n, pawns) == pos, "a pass moved pawns")
        if st.is_terminal():
            break
        check(not any(p == [GOAL] * pawns for p in pos.values()),
              "a player has every pawn home and the game goes on")
        if roll == 6 and not third_six:                     # 9.1
            sixes += 1
        else:
            sixes, seat = 0, (seat + 1) % n
    home = [s for s, p in pos.items() if p == [GOAL] * pawns]
    check(len(home) == 1, f"the game ended with {home} home")
    check(st.winners() == home, f"winners {st.winners()}, home {home}")
    check(list(st.scores()) == [progress(pos[s]) for s in range(n)],
          f"scores {st.scores()}, progress {[progress(pos[s]) for s in range(n)]}")
    views = [st.observation(p)["zones"] for p in range(n)]
    check(all(v == views[0] for v in views), "the board is public: everyone sees it alike")
    return actions, home[0]


def setting(i):
    """Game i's players and pawns: every combination of 2-4 players and 2-4 pawns."""
    return 2 + i % 3, 2 + (i // 3) % 3


def play_games(spec, count):
    games = {}
    wins = Counter()
    lengths = []
    for i in range(count):
        n, pawns = setting(i)
        key = (n, pawns)
        if key not in games:
            games[key] = load_game(spec, players=n, options={"pawns": pawns})
        length, winner = referee(games[key], n, pawns, seed=i)
        lengths.append(length)
        wins[winner] += 1
    return lengths, wins


def test_random_games_keep_the_rules():
    lengths, wins = play_games(SPEC, GAMES)
    assert len(lengths) == GAMES
    if GAMES >= 50:
        assert len(wins) == 4, "every seat wins some game"


def test_the_same_seed_gives_the_same_game():
    game = load_game(SPEC, players=3)
    assert random_trail(game, 5) == random_trail(game, 5)


MUTANTS = {
    "blocks may be passed": ("clear_way(p, k, d) and ", ""),
    "safe spaces do not protect": ("not safe(slot_of(p, k))", "true"),
    "no exact roll home": ("k + d <= finish() and ", "k + d <= finish() + 6 and "),
    "a third six is played": ("sixes == max_rolls - 1", "sixes == max_rolls + 5"),
    "nothing is captured": ("k + roll < loop and size(there) == 1",
                            "k + roll < 0 and size(there) == 1"),
    "yard pawns score": ("+ size(p.goal) * (finish() + 1)",
                         "+ size(p.goal) * (finish() + 1) + size(p.yard)"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_broken_rule_is_caught(name, tmp_path):
    old, new = MUTANTS[name]
    text = SPEC.read_text()
    assert text.count(old) == 1, old
    spec = tmp_path / "causeway.yaml"
    spec.write_text(text.replace(old, new))
    with pytest.raises(Broken):
        play_games(spec, 60)
