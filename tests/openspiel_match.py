"""OpenSpiel's MCTS bot against Tabula's bots, on any spec (the longer runs of
docs/ecosystem.md):

    python tests/openspiel_match.py specs/medang --players 3 --games 30 --simulations 100 \
        --opponents greedy,random

The seats rotate from game to game; the OpenSpiel bot (MCTSBot with a random-rollout
evaluator, uct_c 2, on the game with win_loss returns) sees a determinisation of the state
(tabula_rules.adapters.openspiel.play_game, fair=True). Prints one line per game and the wins per
bot (a shared victory split between its winners).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from open_spiel.python.algorithms import mcts

from tabula_rules.adapters.openspiel import load, play_game
from tabula_rules.bots.agents import make_agent

BOT = "openspiel-mcts"


def match(spec, players: int, games: int, simulations: int, opponents: list,
          first_seed: int = 0, verbose: bool = False) -> dict:
    """{bot name: wins} over `games` games (seeds first_seed ..)."""
    game = load(spec, players, returns="win_loss")
    names = [BOT] + [opponents[i % len(opponents)] for i in range(players - 1)]
    wins = {n: 0.0 for n in names}
    start = time.time()
    for g in range(games):
        seed = first_seed + g
        k = g % players
        seating = names[-k:] + names[:-k] if k else names[:]
        rng = np.random.RandomState(seed)
        bot = mcts.MCTSBot(game, uct_c=2, max_simulations=simulations,
                           evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng,
                           solve=False)
        seats = [bot if n == BOT else make_agent(n) for n in seating]
        st = play_game(game, seats, seed)
        won = st.winners()
        for p in won:
            wins[seating[p]] += 1 / len(won)
        if verbose:
            print(f"game {g} seed {seed}: seats {seating} scores {st.scores()} winners "
                  f"{[seating[p] for p in won]} ({time.time() - start:.0f}s)", flush=True)
    return wins


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spec")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--simulations", type=int, default=50)
    ap.add_argument("--opponents", default="greedy")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    start = time.time()
    wins = match(a.spec, a.players, a.games, a.simulations, a.opponents.split(","), a.seed,
                 verbose=True)
    print(f"wins over {a.games} games ({time.time() - start:.0f}s): {wins}")


if __name__ == "__main__":
    main()
