"""Fireworks (examples/fireworks), refereed in plain Python: seeded games of 2 to 5
players played through the public API (load_game with recall=True, legal_actions,
apply, observation, information_state, chance_outcomes, scores). The referee knows the
rules (examples/fireworks/rules.txt) and nothing of the spec: it keeps a table of its
own, played from the action strings alone (the card each draw names, who receives it,
the hints, the positions played and discarded), and checks the engine against it:

- every draw: the chance outcomes are the kinds left in the deck, each as likely as its
  share of the cards left (rules 2.1, 3.6);
- every decision: the legal actions are exactly the hints the rules allow (another
  player, a colour or a rank they hold, its positions, while a token is left: 3.2), a
  discard and a play of every position (3.3, 3.4);
- after every action: the engine's hands (in order), piles, discard pile, deck count,
  tokens and notes (rule 4: what each position was told) are the referee's; 50 cards in
  all; the tokens within 0..8 and 0..3; every player sees every hand but their own, and
  of their own only its count (2.3);
- the drawer never learns the drawn card: in their information state the draw has no
  action, and two draws of different cards give them the same information state;
- the end: at the third fuse, at five complete piles, or after one more turn each once
  the deck is empty (5.1-5.3), never before; the score is the piles' sum, 0 after the
  third fuse, the same for everyone (6.1).

The players are a simple policy that sees the hands (play a playable card, hint, or
discard a card no longer needed, with some random moves), so that games reach every
end. Rules broken on purpose in copies of the spec must each be caught; the same seed
gives the same game."""

import os
import random
import re
from collections import Counter
from fractions import Fraction

import pytest

from tabula_rules import load_game

from conftest import ROOT
from helpers import mutant

SPEC = ROOT / "examples" / "fireworks" / "fireworks.yaml"
# 24 games by default (under 2 s); TABULA_REFEREE_GAMES=400 for a long run
GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "24"))

COLOURS = ("red", "yellow", "green", "blue", "white")         # rules.txt 1.1
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}                       # rules.txt 1.2
HAND = {2: 5, 3: 5, 4: 4, 5: 4}                               # rules.txt 2.2
HINTS, FUSES = 8, 3                                           # rules.txt 1.3
DECK = Counter({f"{c}-{r}": n for c in COLOURS for r, n in COPIES.items()})
HINT = re.compile(r"^hint player (\d): (?:(\w+)|rank (\d)) at ([\d, ]+)$")
MOVE = re.compile(r"^(discard|play) position (\d)$")


def card(name: str) -> tuple:
    colour, rank = name.split("-")
    return colour, int(rank)


class Referee:
    """The table by the rules, from the action strings alone."""

    def __init__(self, players: int, seed: int):
        self.players, self.seed = players, seed
        self.deck = Counter(DECK)
        self.hands = [[] for _ in range(players)]        # names, position 1 first
        self.colour_notes = [[] for _ in range(players)]  # a colour or None a position
        self.rank_notes = [[] for _ in range(players)]    # a rank or 0 a position
        self.piles = {c: 0 for c in COLOURS}
        self.discard = []
        self.hints, self.fuses = HINTS, FUSES
        self.turns_left = None          # turns still to play once the deck is empty
        self.over = False
        # the deal: each player's hand whole, in seat order (rule 2.2; ruled)
        self.receivers = [p for p in range(players) for _ in range(HAND[players])]
        self.log = []                   # (player or "chance", action, receiver)
        self.current = 0

    def where(self) -> str:
        return f"{self.players} players, seed {self.seed}, decision {len(self.log)}"

    # -- what the rules allow --------------------------------------------------------
    def outcomes(self) -> dict:
        total = sum(self.deck.values())
        return {f"draw {n}": Fraction(k, total) for n, k in self.deck.items() if k}

    def legal(self) -> set:
        me = self.current
        out = {f"{verb} position {k}" for verb in ("discard", "play")
               for k in range(1, len(self.hands[me]) + 1)}
        if self.hints > 0:
            for q in range(self.players):
                if q == me:
                    continue
                hand = [card(n) for n in self.hands[q]]
                for colour in COLOURS:
                    at = [str(i + 1) for i, (c, _) in enumerate(hand) if c == colour]
                    if at:
                        out.add(f"hint player {q}: {colour} at {', '.join(at)}")
                for rank in COPIES:
                    at = [str(i + 1) for i, (_, r) in enumerate(hand) if r == rank]
                    if at:
                        out.add(f"hint player {q}: rank {rank} at {', '.join(at)}")
        return out

    # -- what happens ------------------------------------------------------------------
    def drew(self, action: str) -> None:
        name = action.split()[1]
        assert self.deck[name] > 0, self.where()
        self.deck[name] -= 1
        p = self.receivers.pop(0)
        self.hands[p].append(name)                  # at the right end (rule 3.6)
        self.colour_notes[p].append(None)           # no note (rule 4.2)
        self.rank_notes[p].append(0)
        self.log.append(("chance", action, p))

    def acted(self, action: str) -> None:
        me = self.current
        self.log.append((me, action, None))
        m = HINT.match(action)
        if m:
            q, colour, rank, at = m.groups()
            q, at = int(q), [int(k) for k in at.split(", ")]
            self.hints -= 1
            hand = [card(n) for n in self.hands[q]]
            for i, (c, r) in enumerate(hand):
                told = c == colour if colour else r == int(rank)
                assert told == (i + 1 in at), self.where()
                if told and colour:
                    self.colour_notes[q][i] = colour
                elif told:
                    self.rank_notes[q][i] = r
        else:
            verb, k = MOVE.match(action).groups()
            k = int(k)
            name = self.hands[me].pop(k - 1)
            del self.colour_notes[me][k - 1], self.rank_notes[me][k - 1]
            colour, rank = card(name)
            if verb == "discard":                       # rule 3.3
                self.discard.append(name)
                self.hints = min(self.hints + 1, HINTS)
            elif rank == self.piles[colour] + 1:        # rule 3.4
                self.piles[colour] = rank
                if rank == 5 and self.hints < HINTS:    # rule 3.5
                    self.hints += 1
                if all(h == 5 for h in self.piles.values()):
                    self.over = True                    # rule 5.2
            else:
                self.discard.append(name)
                self.fuses -= 1
                if self.fuses == 0:
                    self.over = True                    # rule 5.1
            if not self.over and sum(self.deck.values()):
                self.receivers.append(me)               # rule 3.6: drawn next
        # rule 5.3: one more turn each once the deck is empty, counted from the end of
        # the turn that drew the last card (that draw is still to come here)
        if self.turns_left is not None:
            self.turns_left -= 1
            self.over = self.over or self.turns_left == 0
        elif sum(self.deck.values()) == len(self.receivers):
            self.turns_left = self.players
        self.current = (me + 1) % self.players

    def score(self) -> int:
        return 0 if self.fuses == 0 else sum(self.piles.values())   # rules 5.1, 6.1

    # -- the engine against the referee ------------------------------------------------
    def compare(self, st) -> None:
        w = self.where()
        assert 0 <= self.hints <= HINTS and 0 <= self.fuses <= FUSES, w
        # 50 cards, every one somewhere (rule 1.1)
        held = Counter(n for h in self.hands for n in h)
        piled = Counter(f"{c}-{r}" for c, h in self.piles.items() for r in range(1, h + 1))
        assert held + piled + Counter(self.discard) + self.deck == DECK, w
        for p in range(self.players):
            obs = st.observation(p)
            z = obs["zones"]
            for q in range(self.players):
                # rule 2.3: every hand but one's own, in order; of one's own, the count
                seen = {"count": len(self.hands[q])} if q == p else self.hands[q]
                assert z["hand"][str(q)] == seen, (w, p, q)
            assert z["deck"] == {"count": sum(self.deck.values())}, w
            assert z["fireworks"] == [[f"{c}-{r}" for r in range(1, self.piles[c] + 1)]
                                      for c in COLOURS], w
            assert z["discard"] == self.discard, w
            assert z["box"] is None, w
            v, pv = obs["variables"], obs["player_variables"]
            assert (v["hint_tokens"], v["fuse_tokens"]) == (self.hints, self.fuses), w
            # rule 4: the notes, public, position by position
            for q in range(self.players):
                assert pv["known_colour"][str(q)] == self.colour_notes[q], (w, q)
                assert pv["known_rank"][str(q)] == self.rank_notes[q], (w, q)
        assert st.is_terminal() == self.over, w

    def recall(self, st) -> None:
        """Each player's history is the game's decisions in order, every one seen but a
        card drawn into the player's own hand."""
        for p in range(self.players):
            info = st.information_state(p)
            assert len(info["history"]) == len(self.log), self.where()
            for entry, (who, action, receiver) in zip(info["history"], self.log):
                assert entry["player"] == who, self.where()
                if receiver == p:
                    assert "action" not in entry, (self.where(), p, action)
                else:
                    assert entry["action"] == action, (self.where(), p, action)
            assert info["observation"]["zones"]["hand"][str(p)] == \
                {"count": len(self.hands[p])}, self.where()


def policy(ref: Referee, rng: random.Random, legal: list) -> str:
    """A player who sees the hands (the referee's): plays a playable card, hints, or
    discards a card that is no longer needed; now and then (one game in three, often)
    any legal action."""
    if rng.random() < (0.3 if ref.seed % 3 == 2 else 0.03):
        return rng.choice(legal)
    hand = [card(n) for n in ref.hands[ref.current]]
    playable = [i for i, (c, r) in enumerate(hand) if r == ref.piles[c] + 1]
    if playable and rng.random() < 0.9:
        return f"play position {rng.choice(playable) + 1}"
    hints = [a for a in legal if a.startswith("hint")]
    if hints and rng.random() < 0.5:
        return rng.choice(hints)
    gone = Counter(ref.discard)
    dead = [i for i, (c, r) in enumerate(hand) if r <= ref.piles[c]]
    spare = [i for i, (c, r) in enumerate(hand)
             if COPIES[r] - gone[f"{c}-{r}"] > 1 or hand.count((c, r)) > 1]
    pick = dead or spare or list(range(len(hand)))
    return f"discard position {rng.choice(pick) + 1}"


def play(game, players: int, seed: int) -> Referee:
    """One seeded game, refereed."""
    ref, rng = Referee(players, seed), random.Random(seed)
    st = game.new_state(seed=seed)
    checked_draw = False
    while not st.is_terminal():
        if st.is_chance_node():
            got = {st.action_to_string(a): p for a, p in st.chance_outcomes(exact=True)}
            assert got == ref.outcomes(), ref.where()
            acts = st.legal_actions()
            if not checked_draw and ref.hands[0] and len(acts) > 1:
                # the drawer cannot tell two draws apart; the others can
                checked_draw = True
                p = ref.receivers[0]
                a, b = st.clone(), st.clone()
                a.apply(acts[0])
                b.apply(acts[1])
                assert a.information_state_string(p) == b.information_state_string(p)
                other = (p + 1) % players
                assert a.information_state_string(other) != b.information_state_string(other)
            act = st.sample_chance(rng)
            ref.drew(st.action_to_string(act))
            st.apply(act)
            continue
        assert st.current_player() == ref.current, ref.where()
        legal = st.legal_action_strings()
        assert set(legal) == ref.legal() and len(legal) == len(set(legal)), ref.where()
        choice = policy(ref, rng, legal)
        st.apply(st.legal_actions()[legal.index(choice)])
        ref.acted(choice)
        ref.compare(st)
    assert ref.over, ref.where()
    ref.recall(st)
    assert st.scores() == [ref.score()] * players, ref.where()         # rule 6.1
    return ref


@pytest.fixture(scope="module")
def games():
    return {n: load_game(SPEC, players=n, recall=True) for n in (2, 3, 4, 5)}


def test_random_games_follow_the_rules(games):
    ends = Counter()
    for seed in range(GAMES):
        players = 2 + seed % 4
        ref = play(games[players], players, seed)
        ends["fuse" if ref.fuses == 0 else "fives" if ref.score() == 25 else "deck"] += 1
    # the games reached every end the rules give
    assert set(ends) == {"fuse", "fives", "deck"}, ends


def test_the_same_seed_gives_the_same_game(games):
    from helpers import random_game
    assert random_game(games[3], 5) == random_game(games[3], 5)
    assert random_game(games[3], 5) != random_game(games[3], 6)


BROKEN = {
    # the drawer sees the card drawn (in their history)
    "drawer_sees_the_draw": """
        override:
          rules:
            draw_card:
              params: [p]
              if: size(deck) > 0
              then:
                - choose: c in deck
                  player: chance
                  label: "draw {c}"
                  do:
                    - move c to p.hand
                    - p.known_colour = p.known_colour + [none]
                    - p.known_rank = p.known_rank + [0]
        """,
    # a card that leaves takes its colour note but leaves its rank note behind
    "rank_notes_do_not_move": """
        override:
          rules:
            forget:
              params: [k]
              do:
                - current.known_colour = current.known_colour[:k - 1] + current.known_colour[k:]
                - current.known_rank = current.known_rank[:-1]
        """,
    # a discard takes back a token past 8
    "tokens_past_eight": """
        override:
          rules:
            discard_at:
              params: [k]
              do:
                - move list(current.hand)[k - 1] to discard
                - call forget(k)
                - hint_tokens += 1
                - call draw_card(current)
        """,
    # the game ends as soon as the deck is empty: no last round
    "no_last_round": """
        override:
          steps:
            turn.last_round:
              do:
                - if: size(deck) == 0
                  then:
                    - turns_left = 0
        """,
}


@pytest.mark.parametrize("change", BROKEN.values(), ids=BROKEN.keys())
def test_broken_rules_are_caught(tmp_path, change):
    # one player count: a compile costs 0.25 s
    broken = mutant(tmp_path, SPEC, change, 3, recall=True)
    with pytest.raises(AssertionError):
        for seed in range(GAMES):
            play(broken, 3, seed)
