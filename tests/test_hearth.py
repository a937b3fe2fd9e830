"""Hearth (examples/hearth), a deck-builder, refereed in plain Python: seeded random games
of 2, 3 and 4 players through the public API, checked at every step against the rules
as rules.txt states them (written out again here, not read from the spec):

* every card is in exactly one place: per kind, the supply, the trash and every player's
  draw pile, hand, play area and discard pile add up to the set-up's count; the trash
  only grows and the supply only shrinks;
* a draw is a chance outcome whose probabilities are the drawing player's draw pile (each
  card equally likely), and the card drawn goes from that pile to that hand;
* what each player sees: another player's hand, every draw pile and every discard pile
  as a count only, the discard piles' top cards as they are, legal actions only for the
  player to choose; with recall, another player's draws are hidden in the history;
* the end: at every new turn the end condition (manor pile empty, three piles empty,
  20 rounds) does not hold, at the end it does; the final scores are recomputed from
  each player's cards, and the winners with the fewer-turns tie-breaker.

A copy of the spec with one rule broken (a scorer, the end, a hand shown, a chance
weight, the trash) must fail the referee (test_the_referee_catches_a_broken_rule).
"""

import functools
import os
import random
from collections import Counter

import pytest

from tabula_rules import load_game

from conftest import ROOT
from helpers import random_trail

SPEC = ROOT / "examples" / "hearth" / "hearth.yaml"
GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "200"))

# rules.txt 1.2-1.5: the cards, their counts and points
COPIES = Counter({"penny": 46, "mark": 20, "crown": 12, "plot": 20, "farm": 8, "manor": 6,
          "debt": 12, "courier": 8, "square": 8, "fair": 8, "stall": 8, "kiln": 8,
          "builder": 8, "bailiff": 8, "crier": 8})
ALL_CARDS = sorted(COPIES.elements())
ORDER = list(COPIES)        # the order of the kinds in rule 1, the cards' order
POINTS = {"plot": 1, "farm": 3, "manor": 6, "debt": -1}
STARTING_DECK = Counter(penny=7, plot=3)    # rules.txt 3.1
HAND = 5                                    # rules.txt 3.2
ROUNDS = 20                                 # rules.txt 7.2
OWN = ("deck", "hand", "play", "discard")   # rules.txt 2.4: a player's cards


def load(players: int, spec=SPEC, recall: bool = False):
    return load_game(spec, players=players, recall=recall)


def holdings(view: dict, p: int) -> Counter:
    return Counter(c for z in OWN for c in view[z][str(p)])


def points(cards: Counter) -> int:
    return sum(POINTS.get(k, 0) * n for k, n in cards.items())


def game_over(view: dict, turns: list) -> bool:
    """rules.txt 7.1, 7.2: the manor pile is empty, or three piles are, or every player
    has taken 20 turns."""
    supply = Counter(view["supply"])
    empty = sum(1 for k in COPIES if supply[k] == 0)
    return supply["manor"] == 0 or empty >= 3 or all(t >= ROUNDS for t in turns)


def turns_taken(turn: int, n: int) -> list:
    """Turns 1..turn go round the table from player 0 (rules.txt 3.3, 5.5)."""
    return [len(range(p + 1, turn + 1, n)) for p in range(n)]


class Referee:
    """Watches one game through the public API, step by step."""

    def __init__(self, st, n: int):
        self.st, self.n = st, n
        self.view = self.checked = st.zones_view(None)
        self.turn = 0
        self.ends_checked = 0
        self.decisions = 0
        self.check_cards(None)
        start = [holdings(self.view, p) for p in range(n)]
        assert all(c == STARTING_DECK for c in start), start

    def check_cards(self, before) -> None:
        view = self.view
        places = view["supply"] + view["trash"]
        for z in OWN:
            for cards in view[z].values():
                places += cards
        places.sort()
        assert places == ALL_CARDS, Counter(places) - COPIES or COPIES - Counter(places)
        if before is not None and (view["supply"] != before["supply"]
                                   or view["trash"] != before["trash"]):
            assert Counter(view["trash"]) >= Counter(before["trash"]), "a card left the trash"
            assert Counter(view["supply"]) <= Counter(before["supply"]), \
                "a card went back to the supply"

    def drawer(self) -> int:
        if self.turn == 0:      # the set-up: each player draws 5, in seat order
            return next(p for p in range(self.n) if len(self.view["hand"][str(p)]) < HAND)
        return (self.turn - 1) % self.n

    def check_chance(self):
        """The outcomes are the drawer's draw pile, each card equally likely."""
        p = self.drawer()
        pile = Counter(self.view["deck"][str(p)])
        assert pile, "a draw from an empty draw pile"
        # an outcome's last value is the kind drawn (its label is "draw KIND")
        shown = dict((a[-1], pr) for a, pr in self.st.chance_outcomes())
        total = len(self.view["deck"][str(p)])
        assert shown.keys() == pile.keys(), (shown, pile)
        assert all(abs(pr * total - pile[k]) < 1e-9 for k, pr in shown.items()), (shown, pile)
        return p

    def check_draw(self, before: dict, p: int, kind: str) -> None:
        """The card drawn left the drawer's draw pile, and stayed the drawer's; if the
        pile then ran out, the discard pile became the new one (rules.txt 4.1, 4.2)."""
        # a draw pile is unordered: the view lists it in card order, so lists compare as
        # the cards they hold
        key, view = str(p), self.view
        assert sum(len(view[z][key]) for z in OWN) == sum(len(before[z][key]) for z in OWN)
        left = list(before["deck"][key])
        left.remove(kind)
        if not left and before["discard"][key] and not view["discard"][key]:
            # the reshuffle before the next draw
            left = sorted(before["discard"][key], key=ORDER.index)
        assert view["deck"][key] == left

    def check_sight(self, o: int) -> None:
        st, view = self.st, self.view
        obs = st.observation(o)
        zones = obs["zones"]
        for p in range(self.n):
            key = str(p)
            deck, hand, discard = view["deck"][key], view["hand"][key], view["discard"][key]
            assert zones["deck"][key] == {"count": len(deck)}
            assert zones["discard"][key] == {"count": len(discard)}
            assert zones["hand"][key] == (hand if p == o else {"count": len(hand)})
            assert obs["player_variables"]["discard_top"][key] == \
                (discard[-1] if discard else None)
        assert ("legal_actions" in obs) == (o in st.choosers())

    def step(self, rng: random.Random) -> None:
        st = self.st
        before = self.view
        if st.is_chance_node():
            p = self.check_chance()
            action = st.sample_chance(rng)
            kind = action[-1]
        else:
            p, kind = None, None
            legal = st.legal_actions()
            action = legal[int(rng.random() * len(legal))]
        st.apply(action)
        self.view = self.st.zones_view(None)
        if p is not None:
            self.check_draw(before, p, kind)
        if not st.is_chance_node():
            # at every decision and at the end: the cards (a draw between two decisions
            # is checked by check_draw), and what the players see, one player a decision
            # in turn
            self.check_cards(self.checked)
            self.checked = self.view
            self.decisions += 1
            self.check_sight(self.decisions % self.n)
        turn = st.turn
        if turn != self.turn and not st.is_terminal():
            # a new turn began: the last one did not end the game
            assert turn == self.turn + 1
            if self.turn > 0:
                assert not game_over(self.view, turns_taken(self.turn, self.n)), self.turn
                self.ends_checked += 1
            self.turn = turn

    def check_end(self) -> tuple:
        st, view, n = self.st, self.view, self.n
        turns = turns_taken(self.turn, n)
        assert game_over(view, turns), (self.turn, Counter(view["supply"]))
        scores = [points(holdings(view, p)) for p in range(n)]
        assert st.scores() == scores
        best = max((scores[p], -turns[p]) for p in range(n))
        assert st.winners() == [p for p in range(n) if (scores[p], -turns[p]) == best]
        supply = Counter(view["supply"])
        if supply["manor"] == 0:
            return "manor"
        if sum(1 for k in COPIES if supply[k] == 0) >= 3:
            return "piles"
        return "rounds"


def play(game, n: int, seed: int, max_steps: int = 20_000) -> Referee:
    st = game.new_state(seed=seed)
    ref = Referee(st, n)
    rng = random.Random(seed)
    for _ in range(max_steps):
        if st.is_terminal():
            break
        ref.step(rng)
    assert st.is_terminal(), f"seed {seed}: no end after {max_steps} steps"
    return ref


def referee_games(games, seeds) -> Counter:
    """One game per seed, 2, 3 and 4 players in turn (games(n): the game of n players);
    how the games ended."""
    ends = Counter()
    for seed in seeds:
        n = 2 + seed % 3
        ref = play(games(n), n, seed)
        ends[ref.check_end()] += 1
        assert ref.ends_checked > 0
    return ends


@pytest.fixture(scope="module")
def games():
    return functools.cache(load)


def test_random_games_keep_the_rules(games):
    ends = referee_games(games, range(GAMES))
    assert sum(ends.values()) == GAMES
    if GAMES >= 100:    # both ways random games end were met (and checked)
        assert set(ends) >= {"piles", "rounds"}, ends


def test_the_same_seed_plays_the_same_game(games):
    assert random_trail(games(3), 7) == random_trail(load(3), 7)    # compiled twice


def test_draws_are_hidden_from_the_others():
    """With recall, a player's history shows another player's draw without its card, and
    their own draws with it."""
    game = load(3, recall=True)
    st, rng = game.new_state(seed=5), random.Random(5)
    for _ in range(200):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        st.apply(st.sample_chance(rng) if st.is_chance_node() else
                 legal[int(rng.random() * len(legal))])
    seen = [st.information_state(p)["history"] for p in range(3)]
    draws = [i for i, e in enumerate(seen[0]) if e["player"] == "chance"]
    assert len(draws) > 30
    for i in draws:
        shown = [p for p in range(3) if "action" in seen[p][i]]
        assert len(shown) == 1, seen[0][i]    # the drawer alone
        assert seen[shown[0]][i]["action"].startswith("draw ")


def variant(tmp_path, change: str) -> str:
    path = tmp_path / "broken.yaml"
    path.write_text(f"extends: {SPEC}\ngame: {{id: broken, name: Broken}}\n{change}")
    return path


BROKEN = {
    "debts score nothing": """
override:
  data:
    points:
      value: {penny: 0, mark: 0, crown: 0, plot: 1, farm: 3, manor: 6, debt: 0, courier: 0,
              square: 0, fair: 0, stall: 0, kiln: 0, builder: 0, bailiff: 0, crier: 0}
""",
    "two empty piles end the game": """
override:
  data:
    piles_to_end: {value: 2}
""",
    "hands shown to all": """
override:
  zones:
    hand: {kind: set, per_player: true, visibility: public, ordered: false}
""",
    "draws not weighted by the cards": """
override:
  steps:
    draw.card:
      choose: k in values(kind) where pile[k] > 0
      player: chance
      visible_to: p
      label: "draw {k}"
      do:
        - move first(c for c in p.deck where c.kind == k) to p.hand
      else: []
""",
    "the kiln puts cards back in the supply": """
override:
  steps:
    kiln.trash:
      choose: t in current.hand
      up_to: trash_limit
      distinct: true
      done: stop trashing
      label: "trash {t}"
      do:
        - move t to supply
""",
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_referee_catches_a_broken_rule(tmp_path, name):
    path = variant(tmp_path, BROKEN[name])
    broken = functools.cache(lambda n: load(n, path))     # compiled when first played
    with pytest.raises(AssertionError):
        referee_games(broken, range(60))
