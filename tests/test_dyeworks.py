"""Dyeworks (examples/dyeworks), an engine-builder, refereed in plain Python: seeded
random games of 2, 3 and 4 players through the public API, checked at every step against
the rules as rules.txt states them (the cards, costs, patrons and numbers written out
again here, not read from the spec):

* tokens are conserved: per kind, the bank and every player's tokens add up to the
  set-up's bank (rule 1.2, 1.3); nobody holds a negative count;
* cards are conserved: each of the 45 cards is in exactly one place (a deck, a market,
  a player's cards, reserved face up or face down); each of the 10 patrons too; decks
  only shrink and hold their own tier, a market holds at most 4 of its own tier;
* every player decision's legal actions are recomputed from the position: the ways to
  take tokens (three colours, fewer when fewer are left, two from 4), the cards that may
  be reserved (at most 3 reserved), the cards the player can afford with their bonuses
  and alum; the give-backs over 10 tokens; the patrons met when several are;
* every action's effect is recomputed: the tokens taken, the price paid (bonus first,
  coloured tokens, then alum for what is lacking), the alum got for a reservation, the
  card moved; a chance draw offers the deck's cards, each equally likely;
* at the end of every turn: at most 10 tokens, and a patron visited exactly when one was
  met (one at most); a turn in which the player decided nothing is a pass, and only a
  player who could do nothing passes;
* the end: no turn ends the game before its time; the last one meets the end (12 points
  at the end of a round, the 30th round, or every player passing in a row); the scores
  are recomputed from the cards and patrons, the winners with the fewer-cards tie-breaker;
* a card reserved face down is never in another player's observation (nor in their
  information state, with recall) until it is bought.

A copy of the spec with one rule broken must fail the referee
(test_the_referee_catches_a_broken_rule), and so must a broken scorer of the referee's
own (test_a_broken_scorer_fails).

The referee's checks run at every step of every game, so pytest's rewriting of asserts
(a third more time here) is turned off for this file: PYTEST_DONT_REWRITE. The asserts
carry their own messages.
"""

import functools
import itertools
import json
import os
import random
from collections import Counter

import pytest

from tabula_rules import load_game

from conftest import ROOT
from helpers import random_trail

SPEC = ROOT / "examples" / "dyeworks" / "dyeworks.yaml"
# 150 by default: the file then costs about 10 CPU seconds here (200 games: about 12.5);
# TABULA_REFEREE_GAMES=200 (or more) plays more
GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "150"))

# rules.txt 1.1-1.5
COLOURS = ["red", "blue", "yellow", "green", "black"]
KINDS = COLOURS + ["alum"]
DYES_BY_PLAYERS = {2: 4, 3: 5, 4: 7}
ALUM = 5
DESIGNS = {     # design: (tier, points, {offset from the card's colour: count})
    "1a": (1, 0, {1: 1, 2: 1, 3: 1}),
    "1b": (1, 0, {1: 2, 3: 1}),
    "1c": (1, 0, {2: 3}),
    "1d": (1, 1, {4: 4}),
    "2a": (2, 1, {1: 3, 2: 2, 3: 2}),
    "2b": (2, 2, {2: 1, 3: 4, 4: 2}),
    "2c": (2, 2, {1: 5}),
    "3a": (3, 3, {1: 3, 2: 3, 4: 3}),
    "3b": (3, 4, {3: 6}),
}
CARDS = {f"{c}-{d}": (c, d) for c in COLOURS for d in DESIGNS}
PATRONS = {
    "abbess": {"red": 3, "blue": 3, "yellow": 3},
    "bishop": {"blue": 3, "yellow": 3, "green": 3},
    "captain": {"yellow": 3, "green": 3, "black": 3},
    "duchess": {"green": 3, "black": 3, "red": 3},
    "envoy": {"black": 3, "red": 3, "blue": 3},
    "factor": {"red": 4, "green": 4},
    "governor": {"blue": 4, "black": 4},
    "harbourmaster": {"yellow": 4, "red": 4},
    "infanta": {"green": 4, "blue": 4},
    "judge": {"black": 4, "yellow": 4},
}
PATRON_POINTS = 3
MARKET = 4              # rule 2.3
RESERVE = 3             # rule 3.4
PAIR = 4                # rule 3.3
LIMIT = 10              # rule 5.1
TARGET = 12             # rule 7.1
ROUNDS = 30             # the spec's max_rounds (assumed; RULINGS.md)
PLACES = ("cards", "reserved", "hidden")


TIER = {c: DESIGNS[d][0] for c, (_, d) in CARDS.items()}
ALL_CARDS, ALL_PATRONS = sorted(CARDS), sorted(PATRONS)


def tier(card: str) -> int:
    return TIER[card]


def cost(card: str) -> dict:
    """rules.txt 1.4: the design's cost read from the card's own colour on."""
    colour, design = CARDS[card]
    at = COLOURS.index(colour)
    return {COLOURS[(at + off) % 5]: n for off, n in DESIGNS[design][2].items()}


COST = {c: cost(c) for c in CARDS}


def bonus(cards) -> Counter:
    return Counter(CARDS[c][0] for c in cards)


def payment(card: str, have: Counter, tokens: dict):
    """rules.txt 4.2, 4.3: what a player with these bonuses and tokens pays per kind,
    or None if they cannot."""
    pay = {"alum": 0}
    for k, n in COST[card].items():
        price = max(0, n - have[k])
        own = min(price, tokens[k])
        pay[k] = own
        pay["alum"] += price - own
    return pay if pay["alum"] <= tokens["alum"] else None


def meets(cards, patron: str) -> bool:
    have = bonus(cards)
    return all(have[k] >= n for k, n in PATRONS[patron].items())


def score(view: dict, p: int) -> int:
    """rules.txt 7.2, written again: the cards' points and 3 a patron."""
    key = str(p)
    return (sum(DESIGNS[CARDS[c][1]][1] for c in view["cards"][key])
            + PATRON_POINTS * len(view["patrons"][key]))


def tokens_of(obs: dict, p: int) -> dict:
    pv = obs["player_variables"]
    return {k: pv[f"tokens[{k}]"][str(p)] for k in KINDS}


def bank_of(obs: dict) -> dict:
    return {k: obs["variables"][f"bank[{k}]"] for k in KINDS}


class Referee:
    """Watches one game through the public API, step by step. The referee's view of
    every zone is taken after every step; the rest (tokens, what a player sees, cards
    and tokens conserved, the actions' effects) at every state where a player decides,
    and at the end: a chance state between two of them is passing (a card turned up),
    and what it shows persists to the next (a face-down card stays face down)."""

    def __init__(self, st, n: int, scorer=score):
        self.st, self.n, self.scorer = st, n, scorer
        self.total = {k: DYES_BY_PLAYERS[n] for k in COLOURS} | {"alum": ALUM}
        self.turn = 0
        self.passes = 0             # turns passed in a row, by the referee's count
        self.decided = False        # the player of this turn made the turn's action
        self.turn_start = None      # the position when this turn began
        self.steps = 0
        self.done = []              # actions since the last state observed: (text, player)
        self.view = st.zones_view(None)
        self.observe()
        self.check_places(None)
        self.boundaries = 0

    def observe(self) -> None:
        """The position as one player sees it (each player in turn), and the tokens."""
        self.seen = self.view           # the referee's view when last observed
        self.observer = self.steps % self.n
        self.obs = self.st.observation(self.observer)
        self.bank = bank_of(self.obs)
        self.tokens = [tokens_of(self.obs, p) for p in range(self.n)]

    # ---- what never changes -------------------------------------------------------------
    def check_places(self, before) -> None:
        view = self.view
        for k in KINDS:
            held = self.bank[k] + sum(t[k] for t in self.tokens)
            assert held == self.total[k], (k, self.bank, self.tokens)
            assert self.bank[k] >= 0 and all(t[k] >= 0 for t in self.tokens), k
        where = list(view["workshop_box"])
        for t in range(3):
            deck, market = view["decks"][t], view["market"][t]
            where += deck
            where += market
            assert {TIER[c] for c in deck + market} <= {t + 1}
            assert len(market) <= MARKET
            if before is not None and deck != before["decks"][t]:
                assert set(deck) <= set(before["decks"][t]), "a card went back"
        for z in PLACES:
            for cards in view[z].values():
                where += cards
        where.sort()
        assert where == ALL_CARDS, Counter(where) - Counter(CARDS)
        patrons = view["patron_box"] + view["court"] + sum(view["patrons"].values(), [])
        patrons.sort()
        assert patrons == ALL_PATRONS
        for p in range(self.n):
            assert len(view["reserved"][str(p)]) + len(view["hidden"][str(p)]) <= RESERVE

    # ---- what a player may do -----------------------------------------------------------
    def main_actions(self, p: int) -> set:
        """rules.txt 3.1-3.5: the legal actions of a turn, from the position."""
        view, bank, key = self.view, self.bank, str(p)
        legal = set()
        left = [k for k in COLOURS if bank[k] > 0]
        if len(left) >= 3:
            legal |= {"take " + " + ".join(c) for c in itertools.combinations(left, 3)}
        elif left:     # ruling take.fewer
            legal.add("take " + " + ".join(left))
        legal |= {f"take two {k}" for k in COLOURS if bank[k] >= PAIR}
        market = [c for t in range(3) for c in view["market"][t]]
        if len(view["reserved"][key]) + len(view["hidden"][key]) < RESERVE:
            legal |= {f"reserve {c}" for c in market}
            legal |= {f"reserve the top card of deck {t + 1}" for t in range(3)
                      if view["decks"][t]}
        mine, tokens = bonus(view["cards"][key]), self.tokens[p]
        legal |= {f"buy {c}" for c in market if payment(c, mine, tokens) is not None}
        legal |= {f"buy reserved {c}" for c in view["reserved"][key] + view["hidden"][key]
                  if payment(c, mine, tokens) is not None}
        return legal

    def check_decision(self) -> str:
        """The decision pending is one of the three a player makes; its actions are the
        rules'. Returns its kind."""
        st, p = self.st, self.st.current_player()
        assert p == (st.turn - 1) % self.n, (p, st.turn)
        self.strings = st.legal_action_strings()
        legal = set(self.strings)
        held = sum(self.tokens[p].values())
        if any(a.startswith("give back ") for a in legal):
            assert held > LIMIT, held
            assert legal == {f"give back {k}" for k in KINDS if self.tokens[p][k] > 0}
            return "give"
        assert held <= LIMIT
        if any(a.endswith(" visits") for a in legal):
            met = {n for n in self.view["court"] if meets(self.view["cards"][str(p)], n)}
            assert len(met) >= 2 and legal == {f"{n} visits" for n in met}, (legal, met)
            return "visit"
        assert legal == self.main_actions(p), (legal ^ self.main_actions(p))
        return "main"

    def check_chance(self, action) -> str:
        """A card turned up or reserved face down: as many outcomes as the deck has
        cards, each equally likely, and the one drawn is one of them (a patron of the
        set-up: one of those in the box). Returns the outcome's text."""
        st = self.st
        outcomes = st.chance_outcomes()
        text = st.action_to_string(action)
        if text.endswith(" comes"):                 # the set-up's patrons
            pile, drawn = self.view["patron_box"], text[:-len(" comes")]
        else:
            drawn = text.split()[-1] if text.startswith("turn up ") else text.split()[1]
            pile = self.view["decks"][tier(drawn) - 1]
        assert drawn in pile and len(outcomes) == len(pile), (text, pile)
        assert all(abs(pr * len(pile) - 1) < 1e-9 for _, pr in outcomes)
        return text

    # ---- what an action does ------------------------------------------------------------
    def check_effects(self, before: dict, bank: dict, tokens: list) -> None:
        """The tokens each player has now are those they had at the last state observed
        plus what the actions since then gave them; the cards named went where they go."""
        view = self.view
        gain = [Counter() for _ in range(self.n)]
        for text, p in self.done:
            key = str(p)
            if text.startswith("take two "):
                gain[p][text.split()[-1]] += 2
            elif text.startswith("take "):
                gain[p].update(text[len("take "):].split(" + "))
            elif text.startswith("give back "):
                gain[p][text.split()[-1]] -= 1
            elif text.endswith(" face down"):
                # the card comes by chance, then the alum (reserve.deck.card)
                gain[p]["alum"] += 1 if bank["alum"] > 0 else 0
                assert text.split()[1] in view["hidden"][key]
            elif text.startswith("reserve the top card of deck "):
                pass
            elif text.startswith("reserve "):
                card = text.split()[-1]
                gain[p]["alum"] += 1 if bank["alum"] > 0 else 0
                assert card in view["reserved"][key]
                assert card in before["market"][tier(card) - 1]
                self.check_refill(before, tier(card) - 1)
            elif text.startswith("buy "):
                card = text.split()[-1]
                if not text.startswith("buy reserved "):
                    self.check_refill(before, tier(card) - 1)
                pay = payment(card, bonus(before["cards"][key]), tokens[p])
                assert pay is not None
                gain[p].subtract(Counter(pay))
                assert card in view["cards"][key]
                source = (before["reserved"][key] + before["hidden"][key]
                          if text.startswith("buy reserved ")
                          else before["market"][tier(card) - 1])
                assert card in source
            elif text.startswith("turn up "):
                card = text.split()[-1]
                assert card in view["market"][tier(card) - 1] or card in sum(
                    (view[z][str(q)] for z in PLACES for q in range(self.n)), [])
        for p in range(self.n):
            delta = {k: self.tokens[p][k] - tokens[p][k] for k in KINDS}
            assert delta == {k: gain[p][k] for k in KINDS}, (self.done, p, delta, gain[p])

    def check_refill(self, before: dict, t: int) -> None:
        """rules.txt 3.6: a card left market t; its deck's top card took its place, or
        the place stays empty when the deck is empty."""
        deck, market = before["decks"][t], before["market"][t]
        assert len(self.view["market"][t]) == len(market) - (0 if deck else 1)
        assert len(self.view["decks"][t]) == max(0, len(deck) - 1)

    # ---- turns ----------------------------------------------------------------------------
    def end_of_turn(self, p: int) -> None:
        """The turn of p ended (the position is the one it left)."""
        view, key = self.view, str(p)
        start = self.turn_start
        assert sum(self.tokens[p].values()) <= LIMIT
        gained = set(view["patrons"][key]) - set(start["patrons"][key])
        met = {n for n in set(view["court"]) | gained if meets(view["cards"][key], n)}
        assert len(gained) == (1 if met else 0) and gained <= met, (gained, met)
        if self.decided:
            self.passes = 0
        else:
            # ruling turn.pass: only a player with nothing to do passes
            assert not self.main_actions(p), p
            self.passes += 1

    def over(self, turns: int) -> bool:
        """rules.txt 7.1, and the rulings: is the game over after this many turns?"""
        if self.passes >= self.n:
            return True
        if turns % self.n:
            return False
        return (max(self.scorer(self.view, p) for p in range(self.n)) >= TARGET
                or turns // self.n >= ROUNDS)

    def step(self, rng: random.Random) -> None:
        st = self.st
        if st.is_chance_node():
            action = st.sample_chance(rng)
            text = self.check_chance(action)
            who = (st.turn - 1) % self.n        # the player whose turn it is
        else:
            kind = self.check_decision()
            legal = st.legal_actions()
            i = int(rng.random() * len(legal))
            action, text = legal[i], self.strings[i]
            self.decided = self.decided or kind == "main"
            who = st.current_player()
        st.apply(action)
        self.steps += 1
        self.view = st.zones_view(None)
        if self.turn > 0:
            self.done.append((text, who))
        if st.is_chance_node():
            return
        before, bank, tokens = self.seen, self.bank, self.tokens
        self.observe()
        self.check_places(before)
        self.check_sight()
        self.check_effects(before, bank, tokens)
        self.done = []
        if self.turn == 0:
            # the set-up is over: the bank, 4 cards a market, a patron more than players
            assert st.turn == 1
            assert self.bank == self.total
            assert all(len(m) == MARKET for m in self.view["market"])
            assert len(self.view["court"]) == self.n + 1
            self.turn, self.turn_start = 1, self.view
            return
        last = st.turn if st.is_terminal() else st.turn - 1
        if self.turn > last:
            return
        while self.turn <= last:
            # turn self.turn ended: its player's, or a pass of the next ones
            self.end_of_turn((self.turn - 1) % self.n)
            self.boundaries += 1
            ended = st.is_terminal() and self.turn == last
            assert self.over(self.turn) == ended, (self.turn, ended, self.passes)
            self.turn += 1
            self.turn_start = self.view
            self.decided = False
        if not st.is_terminal():    # a new turn: the passes in a row before it
            assert self.obs["variables"]["passes"] == self.passes
        self.check_scores()

    def check_scores(self) -> list:
        """rules.txt 7.2, 7.3: the scores, and who would win if the game ended now."""
        st, view, n = self.st, self.view, self.n
        scores = [self.scorer(view, p) for p in range(n)]
        assert st.scores() == scores, (st.scores(), scores)
        best = max((scores[p], -len(view["cards"][str(p)])) for p in range(n))
        assert st.winners() == [p for p in range(n)
                                if (scores[p], -len(view["cards"][str(p)])) == best]
        return scores

    def check_sight(self) -> None:
        """What the observer sees: others' face-down cards as a count, never by name."""
        o, obs = self.observer, self.obs
        zones = obs["zones"]
        text = json.dumps(obs) if any(self.view["hidden"].values()) else ""
        for q in range(self.n):
            secret = self.view["hidden"][str(q)]
            if q == o:
                assert zones["hidden"][str(q)] == secret
            else:
                assert zones["hidden"][str(q)] == {"count": len(secret)}
                assert not any(c in text for c in secret), (o, secret)
        assert zones["decks"] == {"count": [len(d) for d in self.view["decks"]]}
        assert ("legal_actions" in obs) == (o in self.st.choosers())

    def check_end(self) -> str:
        scores = self.check_scores()
        if self.passes >= self.n:
            return "passes"
        return "target" if max(scores) >= TARGET else "rounds"


def play(game, n: int, seed: int, scorer=score, max_steps: int = 20_000) -> Referee:
    st = game.new_state(seed=seed)
    ref = Referee(st, n, scorer)
    rng = random.Random(seed)
    for _ in range(max_steps):
        if st.is_terminal():
            break
        ref.step(rng)
    assert st.is_terminal(), f"seed {seed}: no end after {max_steps} steps"
    return ref


def referee_games(games, seeds, scorer=score, counts=(2, 3, 4)) -> Counter:
    """One game per seed, the player counts in turn (games(n): the game of n players);
    how the games ended."""
    ends = Counter()
    for seed in seeds:
        n = counts[seed % len(counts)]
        ref = play(games(n), n, seed, scorer)
        ends[ref.check_end()] += 1
        assert ref.boundaries > 0
    return ends


def load(players: int, spec=SPEC, recall: bool = False):
    return load_game(spec, players=players, recall=recall)


@pytest.fixture(scope="module")
def games():
    return functools.cache(load)


def test_random_games_keep_the_rules(games):
    ends = referee_games(games, range(GAMES))
    assert sum(ends.values()) == GAMES
    if GAMES >= 100:    # the ways random games end were met (and checked)
        assert set(ends) >= {"target", "rounds"}, ends


def test_the_same_seed_plays_the_same_game(games):
    assert random_trail(games(3), 7) == random_trail(load(3), 7)    # compiled twice


def hidden_in_history(game, seeds) -> int:
    """With recall, a card reserved face down is in its owner's information state and in
    no other player's, until it is bought (its purchase names it to all). Returns the
    number of checks."""
    checked = 0
    for seed in seeds:
        st, rng = game.new_state(seed=seed), random.Random(seed)
        while not st.is_terminal():
            legal = st.legal_actions()
            st.apply(st.sample_chance(rng) if st.is_chance_node() else
                     legal[int(rng.random() * len(legal))])
            hidden = st.zones_view(None)["hidden"]
            for q in range(3):
                text = st.information_state_string(q)
                for p in range(3):
                    for c in hidden[str(p)]:
                        assert (c in text) == (p == q), (seed, p, q, c)
                        checked += 1
    return checked


def test_face_down_cards_stay_hidden_in_the_history():
    assert hidden_in_history(load(3, recall=True), range(5)) > 100


def test_a_face_down_card_shown_in_the_history_fails(tmp_path):
    """The card reserved face down, its chance outcome seen by all (no visible_to)."""
    path = variant(tmp_path, """
override:
  steps:
    reserve.deck.card:
      choose: c in decks[t]
      player: chance
      label: "reserve {c} face down"
      do:
        - move c to current.hidden
""")
    with pytest.raises(AssertionError):
        hidden_in_history(load(3, path, recall=True), range(5))


def variant(tmp_path, change: str):
    path = tmp_path / "broken.yaml"
    path.write_text(f"extends: {SPEC}\ngame: {{id: broken, name: Broken}}\n{change}")
    return path


BROKEN = {
    "two of a colour from 3": """
override:
  data:
    pair_minimum: {value: 3}
""",
    "reserved face down in sight": """
override:
  zones:
    hidden: {kind: set, per_player: true, visibility: public, ordered: false}
""",
    "alum never paid": """
override:
  functions:
    affordable:
      params: [p, c]
      value: lacking(p, c) <= p.tokens[alum] + 1
""",
    "no bonus": """
override:
  functions:
    bonus:
      params: [p]
      value: tally(c.colour for c in p.hidden)
""",
    "the round is not finished": """
override:
  functions:
    game_over:
      value: >-
        passes >= size(players) or any(score(p) >= target for p in players)
        or current == size(players) - 1 and rounds >= max_rounds
""",
    "the alum paid is lost": """
override:
  rules:
    pay:
      params: [c]
      do:
        - for: k in dyes()
          do:
            - let due = price(current, c, k)
            - let own = min(due, current.tokens[k])
            - current.tokens[k] -= own
            - bank[k] += own
            - current.tokens[alum] -= due - own
        - move c to current.cards
""",
    "no card turned up after a purchase": """
override:
  steps:
    buy.market:
      choose: c in market where affordable(current, c)
      label: "buy {c}"
      do:
        - call pay(c)
""",
    "eleven tokens": """
override:
  data:
    token_limit: {value: 11}
""",
    "patrons worth 4": """
override:
  data:
    patron_points: {value: 4}
""",
    "no tie-breaker": """
remove:
  - tiebreak.fewer_cards
""",
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_referee_catches_a_broken_rule(tmp_path, name):
    path = variant(tmp_path, BROKEN[name])
    broken = functools.cache(lambda n: load(n, path))     # compiled when first played
    with pytest.raises(AssertionError):     # two players: one game compiled, not three
        referee_games(broken, range(60), counts=(2,))


def test_a_broken_scorer_fails(games):
    """The referee's own scorer, wrong (it counts the cards reserved face up, which
    rule 7.2 does not), fails on the same games."""
    def wrong(view, p):
        return score(view, p) + sum(DESIGNS[CARDS[c][1]][1] for c in view["reserved"][str(p)])
    with pytest.raises(AssertionError):
        referee_games(games, range(60), wrong)
