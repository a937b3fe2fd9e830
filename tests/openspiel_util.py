"""Play a Tabula game and OpenSpiel's version of it in lockstep: the classic examples
(tic-tac-toe, Connect Four, ...) are checked move for move against OpenSpiel's games."""

import os
import random
import textwrap

import pytest

from interpreter import load_game

# random trajectories per lockstep test: 200 in the default suite; the documented longer
# run is `TABULA_LOCKSTEP_GAMES=1000 pytest tests -k openspiel` (docs/openspiel.md)
GAMES = int(os.environ.get("TABULA_LOCKSTEP_GAMES", "200"))


def check_step(st, os_st, where="") -> None:
    """The same player to move, the same legal actions (an action's last value is
    OpenSpiel's action) with the same strings."""
    assert not st.terminal, (where, str(os_st))
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
    assert st.returns() == [int(x) for x in os_st.returns()], (where, str(os_st))
    return tuple(st.returns())


def play_in_lockstep(game, theirs, seeds, check=None) -> set:
    """One seeded random game per seed through both `game` (a Tabula game) and `theirs` (a
    pyspiel game), the same choice index each step, checked at every step (check_step,
    and `check(st, os_st)` if given) and at the end (check_end). Returns the set of final
    returns seen (as tuples), to check that wins, losses and draws were all compared."""
    outcomes = set()
    for seed in seeds:
        rng = random.Random(seed)
        st, os_st = game.new_state(seed=seed), theirs.new_initial_state()
        while not os_st.is_terminal():
            check_step(st, os_st, f"seed {seed}")
            if check:
                check(st, os_st)
            acts, legal = st.legal_actions(), os_st.legal_actions()
            k = int(rng.random() * len(acts))
            st.apply(acts[k])
            os_st.apply_action(legal[k])
        if check:
            check(st, os_st)
        outcomes.add(check_end(st, os_st, f"seed {seed}"))
    return outcomes


def play_moves_in_lockstep(game, theirs, moves, check=None) -> tuple:
    """One game through both, OpenSpiel's actions `moves` in turn (Tabula plays the action
    whose last value is the move), checked as play_in_lockstep checks; the final scores."""
    st, os_st = game.new_state(seed=0), theirs.new_initial_state()
    for i, move in enumerate(moves):
        check_step(st, os_st, f"move {i}")
        if check:
            check(st, os_st)
        [act] = [a for a in st.legal_actions() if a[-1] == move]
        st.apply(act)
        os_st.apply_action(move)
    if check:
        check(st, os_st)
    return check_end(st, os_st, "the last move")


def mutant(tmp_path, spec_path, change: str, players: int | None = None):
    """The game of a variant of `spec_path` made by `change` (the variant's YAML below
    `extends:`, e.g. an `override:` of one function): the mutation check loads a spec
    with one rule broken, to show that the lockstep test notices."""
    variant = tmp_path / "mutant.yaml"
    variant.write_text(f"extends: {spec_path}\ngame: {{id: mutant, name: Mutant}}\n"
                       + textwrap.dedent(change))
    return load_game(variant, players=players)


def assert_mutation_caught(game, theirs, seeds, check=None) -> None:
    """A game with a broken rule (see mutant) must fail the lockstep comparison."""
    with pytest.raises(AssertionError):
        play_in_lockstep(game, theirs, seeds, check=check)
