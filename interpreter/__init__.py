"""Tabula: a declarative rules language for board games, and its generic interpreter.

    from tabula_rules import load_game
    game = load_game("specs/GAME", players=3)
    state = game.new_state(seed=1)
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    print(state.scores(), state.winners())
"""

from .errors import IllegalAction, RuleError, SpecError, TabulaError
from .runtime.engine import Game, State
from .runtime.model import CHANCE, TERMINAL
from .spec import Spec, load_game, load_spec

__all__ = ["CHANCE", "TERMINAL", "Game", "IllegalAction", "RuleError", "Spec", "SpecError",
           "State", "TabulaError", "load_game", "load_spec"]
