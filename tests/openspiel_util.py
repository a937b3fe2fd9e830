"""Play a Tabula game and OpenSpiel's version of it in lockstep: the classic examples
(tic-tac-toe, Connect Four, ...) are checked move for move against OpenSpiel's games."""

import os
import random

import pytest

from helpers import mutant  # noqa: F401 (the lockstep tests import it from here)

# random trajectories per lockstep test: 200 in the default suite; the documented longer
# run sets TABULA_LOCKSTEP_GAMES=1000 (docs/classic-games.md)
GAMES = int(os.environ.get("TABULA_LOCKSTEP_GAMES", "200"))


def check_step(st, os_st, where="") -> None:
    """The same player to move, the same legal actions (an action's last value is
    OpenSpiel's action) with the same strings; at a chance node the same outcomes with the
    same probabilities; at a simultaneous node the same for every player."""
    assert not st.terminal, (where, str(os_st))
    if os_st.is_chance_node():
        assert st.is_chance_node(), (where, str(os_st))
        ours = [(a[-1], p) for a, p in st.chance_outcomes()]
        theirs = os_st.chance_outcomes()
        assert [a for a, _ in ours] == [a for a, _ in theirs], (where, str(os_st))
        assert all(abs(p - q) < 1e-9 for (_, p), (_, q) in zip(ours, theirs)), where
        return
    if os_st.is_simultaneous_node():
        assert st.is_simultaneous_node(), (where, str(os_st))
        for player in range(os_st.num_players()):
            legal = os_st.legal_actions(player)
            assert [a[-1] for a in st.legal_actions(player)] == legal, (where, player)
            assert st.legal_action_strings(player) == [
                os_st.action_to_string(player, a) for a in legal], (where, player)
        return
    player = os_st.current_player()
    assert st.current_player() == player, where
    legal = os_st.legal_actions()
    assert [a[-1] for a in st.legal_actions()] == legal, (where, str(os_st))
    assert st.legal_action_strings() == [os_st.action_to_string(player, a)
                                         for a in legal], (where, str(os_st))


def check_end(st, os_st, where="") -> tuple:
    """Both terminal, Tabula's returns (game.returns: scores, or win_loss) equal to
    OpenSpiel's; the returns."""
    assert st.terminal, (where, str(os_st))
    assert st.returns() == [int(x) if float(x).is_integer() else x for x in os_st.returns()], \
        (where, str(os_st))
    return tuple(st.returns())


class Partitions:
    """Checks that Tabula's information states partition states as OpenSpiel's
    information_state_string does: two states that one engine's player cannot tell apart,
    the other's cannot either. `see(st, os_st)` records both engines' strings of every
    player and fails at the first pair that maps to two different strings."""

    def __init__(self, players: int):
        self.ours = [{} for _ in range(players)]      # our string -> their string
        self.theirs = [{} for _ in range(players)]    # their string -> our string
        self.seen = 0

    def see(self, st, os_st) -> None:
        for p in range(os_st.num_players()):
            ours, theirs = st.information_state_string(p), os_st.information_state_string(p)
            assert self.ours[p].setdefault(ours, theirs) == theirs, (
                f"player {p} tells apart in OpenSpiel what it cannot in Tabula", theirs,
                self.ours[p][ours], ours)
            assert self.theirs[p].setdefault(theirs, ours) == ours, (
                f"player {p} tells apart in Tabula what it cannot in OpenSpiel", theirs,
                ours, self.theirs[p][theirs])
            self.seen += 1

    def classes(self) -> int:
        """How many information states were met (all players)."""
        return sum(len(m) for m in self.ours)


def play_in_lockstep(game, theirs, seeds, check=None, partitions=None) -> set:
    """One seeded random game per seed through both `game` (a Tabula game) and `theirs` (a
    pyspiel game), the same choice index each step (a random outcome at chance nodes, a
    random action of each player at simultaneous nodes), checked at every step
    (check_step, `check(st, os_st)` if given, and `partitions.see` at every decision of a
    player if given) and at the end (check_end). Returns the set of final returns seen
    (as tuples), to check that wins, losses and draws were all compared."""
    outcomes = set()
    for seed in seeds:
        rng = random.Random(seed)
        st, os_st = game.new_state(seed=seed), theirs.new_initial_state()
        while not os_st.is_terminal():
            check_step(st, os_st, f"seed {seed}")
            if check:
                check(st, os_st)
            if partitions is not None and not os_st.is_chance_node():
                partitions.see(st, os_st)
            if os_st.is_simultaneous_node():
                joint = []
                for p in range(os_st.num_players()):
                    k = int(rng.random() * len(os_st.legal_actions(p)))
                    joint.append((st.legal_actions(p)[k], os_st.legal_actions(p)[k]))
                st.apply_actions([a for a, _ in joint])
                os_st.apply_actions([b for _, b in joint])
                continue
            acts, legal = st.legal_actions(), os_st.legal_actions()
            k = int(rng.random() * len(acts))
            st.apply(acts[k])
            os_st.apply_action(legal[k])
        if check:
            check(st, os_st)
        outcomes.add(check_end(st, os_st, f"seed {seed}"))
    return outcomes


def play_moves_in_lockstep(game, theirs, moves, check=None) -> tuple:
    """One game through both from OpenSpiel's actions `moves`: a number is the move of
    the player to move (or a chance outcome), a tuple a joint move at a simultaneous node
    (one action per player); Tabula plays the actions whose last value is the move. Checked
    as play_in_lockstep checks; the final returns."""
    st, os_st = game.new_state(seed=0), theirs.new_initial_state()
    for i, move in enumerate(moves):
        check_step(st, os_st, f"move {i}")
        if check:
            check(st, os_st)
        if isinstance(move, tuple):
            st.apply_actions([next(a for a in st.legal_actions(p) if a[-1] == m)
                              for p, m in enumerate(move)])
            os_st.apply_actions(list(move))
        else:
            [act] = [a for a in st.legal_actions() if a[-1] == move]
            st.apply(act)
            os_st.apply_action(move)
    if check:
        check(st, os_st)
    return check_end(st, os_st, "the last move")


def assert_leak_caught(game, theirs, seeds, play_seeds=None) -> None:
    """A visibility mistake (a private card, die or bid shown to others): the game still
    plays move for move as OpenSpiel's (over `play_seeds`, default `seeds`), and only the
    partition check of information states fails."""
    play_in_lockstep(game, theirs, seeds if play_seeds is None else play_seeds)
    with pytest.raises(AssertionError, match="tells apart in Tabula"):
        play_in_lockstep(game, theirs, seeds, partitions=Partitions(theirs.num_players()))


def assert_mutation_caught(game, theirs, seeds, check=None) -> None:
    """A game with a broken rule (see mutant) must fail the lockstep comparison."""
    with pytest.raises(AssertionError):
        play_in_lockstep(game, theirs, seeds, check=check)


def walk_in_lockstep(game, theirs) -> tuple:
    """Every history of the game through both engines at once (depth first, a clone per
    action), each node checked as play_in_lockstep checks a step and its information
    states seen by a Partitions; the Partitions, the acting player's information states
    (OpenSpiel's strings) and the number of terminal histories per returns."""
    partitions, acting, ends = Partitions(theirs.num_players()), set(), {}
    stack = [(game.new_state(seed=0), theirs.new_initial_state())]
    while stack:
        st, os_st = stack.pop()
        if os_st.is_terminal():
            returns = check_end(st, os_st)
            ends[returns] = ends.get(returns, 0) + 1
            continue
        check_step(st, os_st)
        if not os_st.is_chance_node():
            partitions.see(st, os_st)
            acting.add(os_st.information_state_string())
        for ours, their in zip(st.legal_actions(), os_st.legal_actions()):
            child = st.clone()
            child.apply(ours)
            stack.append((child, os_st.child(their)))
    return partitions, acting, ends


def walk_adapted(ours, theirs) -> tuple:
    """Every history of a Tabula game as OpenSpiel sees it (adapters/openspiel.py) and of
    an OpenSpiel game at once: the same players, legal actions (ids),
    strings, chance outcomes and returns; the information states partitioned alike:
    (terminal histories, their Partitions)."""
    parts = Partitions(2)
    ends = 0
    stack = [(ours.new_initial_state(), theirs.new_initial_state())]
    while stack:
        a, b = stack.pop()
        assert a.current_player() == b.current_player()
        if b.is_terminal():
            assert a.is_terminal() and a.returns() == b.returns()
            ends += 1
            continue
        if b.is_chance_node():
            ours, theirs_ = a.chance_outcomes(), b.chance_outcomes()
            assert [x for x, _ in ours] == [x for x, _ in theirs_]
            assert [p for _, p in ours] == pytest.approx([p for _, p in theirs_])
        else:
            assert a.legal_actions() == b.legal_actions()
            assert [a.action_to_string(x) for x in a.legal_actions()] == \
                [b.action_to_string(x) for x in b.legal_actions()]
            parts.see(a, b)
        for x in b.legal_actions():
            stack.append((a.child(x), b.child(x)))
    return ends, parts
