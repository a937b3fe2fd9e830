"""Hearts (examples/hearts) played move for move against OpenSpiel's C++ `hearts`, and
refereed on its own.

The lockstep tests: seeded random games through both engines (at every step the same
player, the same chance outcomes with the same probabilities, the same legal actions with
the same ids and strings; at the end the same returns), with the default parameters and
with every parameter of OpenSpiel's game flipped; a broken rule that the comparison
catches; and information states that partition states as OpenSpiel's do.

OpenSpiel's information_state_string is not perfect recall: it shows a player's hand, the
cards they passed and received (sorted), the tricks and the points, so it forgets in which
order the player was dealt their cards and chose their passes, during the pass how many
cards the others have set aside (a player's string does not change while the others
pass), and who is to lead the first trick. Tabula's information state remembers the first
three, and its observation shows whose turn it is. `Recalled` adds exactly those to
OpenSpiel's string (the number of moves made and the player to move, which all know; the
player's own deal and passes in order, which only they know), and the partitions are
compared with that. Random games
never meet the same deal twice, so the comparison plays groups of games that share the
chance outcomes (the direction and the deal), each player choosing by one of two seeded
generators: every player's view is shared by many games that differ in what the others
did. A pass shown to everyone, or shown to its receiver before the last pass, plays move
for move as OpenSpiel's and is caught there alone.

The referee: plain Python that keeps its own table from the action strings (the deal in
OpenSpiel's order, the passes, the tricks), checks who is to move and the legal actions
at every step with its own reading of the rules, the chance odds, that the cards are all
there, what every player sees (no other hand, no other player's pass until it is received,
in the observation and in the information state) and the returns recomputed from its own
tricks (the moon, the jack of diamonds, the bonus for taking no trick)."""

import os
import random

import pyspiel
import pytest

from tabula_rules import load_game

from conftest import ROOT
from openspiel_util import (
    GAMES,
    Partitions,
    assert_mutation_caught,
    check_end,
    check_step,
    mutant,
    play_in_lockstep,
)

SPEC = ROOT / "examples" / "hearts" / "hearts.yaml"
REFEREE_GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "200"))
# deals of the partition check; each is played 16 times (every player with one of two
# generators of their own)
DEALS = max(1, GAMES // 50)

RANKS, SUITS = "23456789TJQKA", "CDHS"
DIRECTIONS = ["No Pass", "Left", "Across", "Right"]
HEARTS, QS, JD, TWO_CLUBS = 2, 43, 37, 0
OPTIONS = {"pass_cards": True, "no_pts_on_first_trick": True, "can_lead_any_club": False,
           "jd_bonus": False, "avoid_all_tricks_bonus": False, "must_break_hearts": True,
           "qs_breaks_hearts": True, "can_lead_hearts_instead_of_qs": False}


def card_name(n: int) -> str:
    return RANKS[n // 4] + SUITS[n % 4]


def card_number(name: str) -> int:
    return RANKS.index(name[0]) * 4 + SUITS.index(name[1])


def theirs(options=None):
    return pyspiel.load_game("hearts", options or {})


@pytest.fixture(scope="module")
def game():
    return load_game(SPEC)


@pytest.fixture(scope="module")
def recall_game():
    return load_game(SPEC, recall=True)


# ---- lockstep --------------------------------------------------------------------------

def test_random_games_play_as_openspiel(game):
    """200 random games: moves, chance, strings and returns as OpenSpiel's; a moon shot
    (one player 26, the others 0) is among the returns compared."""
    outcomes = play_in_lockstep(game, theirs(), range(GAMES))
    assert len(outcomes) > GAMES // 2
    assert any(sorted(r) == [0, 0, 0, 26] for r in outcomes), "no moon shot compared"
    assert all(sum(r) == 4 * 26 - 26 or sorted(r) == [0, 0, 0, 26] for r in outcomes)


@pytest.mark.parametrize("flip", [k for k in OPTIONS if k != "pass_cards"] + ["all"])
def test_every_parameter_plays_as_openspiel(flip):
    """Each of OpenSpiel's parameters flipped from its default (and all of them at once),
    the same option of the spec: random games in lockstep."""
    options = {k: (not v if flip in (k, "all") else v) for k, v in OPTIONS.items()
               if k != "pass_cards"}
    ours = load_game(SPEC, options=options)
    play_in_lockstep(ours, theirs(options), range(1000, 1000 + max(5, GAMES // 10)))


def test_without_passing_plays_as_openspiel():
    """pass_cards false: the direction's only legal outcome is No Pass, in both engines.
    OpenSpiel's chance_outcomes() there still lists all four directions at 0.25 (its
    ChanceOutcomes does not read pass_cards), the spec's lists No Pass at 1: the games
    are compared from the deal on."""
    ours, os_game = load_game(SPEC, options={"pass_cards": False}), theirs({"pass_cards": False})
    st, os_st = ours.new_state(seed=0), os_game.new_initial_state()
    assert os_st.legal_actions() == [0] and len(os_st.chance_outcomes()) == 4
    assert [(a[-1], p) for a, p in st.chance_outcomes()] == [(0, 1.0)]
    assert st.legal_action_strings() == ["No Pass"]
    for seed in range(max(5, GAMES // 10)):
        st, os_st = ours.new_state(seed=seed), os_game.new_initial_state()
        st.apply(st.legal_actions()[0])
        os_st.apply_action(0)
        drive(st, os_st, random.Random(seed), [random.Random(seed)] * 4)


def drive(st, os_st, chance_rng, player_rngs, partitions=None) -> tuple:
    """Plays one game through both engines from the given states, as play_in_lockstep
    does, chance drawn with chance_rng and each player's choice with their own
    generator; the returns."""
    while not os_st.is_terminal():
        check_step(st, os_st)
        chance = os_st.is_chance_node()
        if partitions is not None and not chance:
            partitions.see(st, Recalled(os_st))
        rng = chance_rng if chance else player_rngs[os_st.current_player()]
        acts, legal = st.legal_actions(), os_st.legal_actions()
        k = int(rng.random() * len(acts))
        st.apply(acts[k])
        os_st.apply_action(legal[k])
    return check_end(st, os_st)


def test_a_broken_rule_is_caught(tmp_path):
    """A player who cannot follow suit in the first trick may throw a heart or the queen
    of spades (no_pts_on_first_trick ignored): the lockstep comparison must fail."""
    broken = mutant(tmp_path, SPEC, """
        override:
          functions:
            playable:
              params: [p]
              value: >-
                if not leading() and any(c.suit == led() for c in p.hand)
                  then [c for c in p.hand where c.suit == led()]
                else if played == 0 then [c for c in p.hand where c.number == two_of_clubs]
                else if leading() and any(may_lead(c) for c in p.hand)
                  then [c for c in p.hand where may_lead(c)]
                else list(p.hand)
        """)
    assert_mutation_caught(broken, theirs(), range(GAMES))


def test_a_broken_moon_is_caught(tmp_path):
    """The moon shot charges nobody (the shooter keeps 26 points): the returns differ."""
    broken = mutant(tmp_path, SPEC, """
        override:
          points:
            moon:
              value: "0"
        """)
    assert_mutation_caught(broken, theirs(), range(GAMES))


# ---- information states ----------------------------------------------------------------

class Recalled:
    """An OpenSpiel state whose information_state_string is made perfect recall: its own
    string, the number of moves made and the player to move (which every player knows:
    OpenSpiel's string does not say who holds the two of clubs until it is played, while
    everyone at the table sees who leads), and the player's own dealt cards and passes in
    the order they came (which only the player knows)."""

    def __init__(self, os_st):
        self.os_st = os_st

    def num_players(self) -> int:
        return self.os_st.num_players()

    def information_state_string(self, p: int) -> str:
        h = self.os_st.history()
        passes = h[53 + 3 * p:56 + 3 * p] if h[0] != 0 else []
        return (f"{self.os_st.information_state_string(p)}\nmove {len(h)}, "
                f"to move {self.os_st.current_player()}, dealt {h[1 + p:53:4]}, "
                f"passed {passes}")


def play_groups(game, deals, partitions) -> None:
    """For each deal seed, 16 games with the same chance outcomes (the direction and the
    deal), each player choosing with one of two generators of their own (game j gives
    player p generator bit p of j): any two games share the view of a player who chose
    alike while the others did not."""
    os_game = theirs()
    for deal in deals:
        for j in range(16):
            rngs = [random.Random(deal * 8 + 2 * p + (j >> p & 1)) for p in range(4)]
            drive(game.new_state(seed=deal), os_game.new_initial_state(),
                  random.Random(deal), rngs, partitions)


def test_information_states_partition_as_openspiels(recall_game):
    """Tabula's information states tell states apart exactly as OpenSpiel's (made
    perfect recall) do, over games that share their deals; many states are met by one
    player in several games."""
    partitions = Partitions(4)
    play_groups(recall_game, range(DEALS), partitions)
    print(f"{partitions.classes()} information states met, {partitions.seen} compared")
    assert partitions.seen - partitions.classes() > partitions.classes() // 10


def test_openspiel_forgets_the_others_passes():
    """Why Recalled: while North chooses its three cards, East's OpenSpiel string stays
    the same, and Tabula's (which counts the cards North set aside, unseen) does not."""
    st, os_st = load_game(SPEC, recall=True).new_state(seed=0), theirs().new_initial_state()
    for a in [1] + list(range(52)):       # Left, then 2C to North, 2D to East, ...
        [ours] = [x for x in st.legal_actions() if x[-1] == a]
        st.apply(ours)
        os_st.apply_action(a)
    seen = []
    for _ in range(3):
        seen.append((os_st.information_state_string(1), st.information_state_string(1),
                     Recalled(os_st).information_state_string(1)))
        a = os_st.legal_actions()[0]
        [ours] = [x for x in st.legal_actions() if x[-1] == a]
        st.apply(ours)
        os_st.apply_action(a)
    assert len({s[0] for s in seen}) == 1
    assert len({s[1] for s in seen}) == len({s[2] for s in seen}) == 3


def assert_leak_caught_in_groups(broken) -> None:
    """A visibility mistake: the game plays move for move as OpenSpiel's, and only the
    partition check of the grouped games fails, on a state that Tabula's player tells
    apart and OpenSpiel's cannot."""
    play_in_lockstep(broken, theirs(), range(max(5, GAMES // 20)))
    with pytest.raises(AssertionError, match="tells apart in Tabula"):
        play_groups(broken, range(DEALS), Partitions(4))


PASS_CARD = """
    override:
      steps:
        pass.card:
          choose: c in p.hand
          player: p
          {visible}
          label: "{{c}}"
          do:
            - move c to p.passed
    """


def test_a_pass_shown_to_all_is_caught(tmp_path):
    """The pass without visible_to (everyone sees the card set aside): caught by the
    information states alone."""
    broken = mutant(tmp_path, SPEC, PASS_CARD.format(visible=""), recall=True)
    assert_leak_caught_in_groups(broken)


def test_a_pass_shown_to_its_receiver_at_once_is_caught(tmp_path):
    """The pass seen by its giver and its receiver as it is chosen (visible_to: [p,
    receiver(p)]): the receiver would know what comes before choosing their own cards,
    which OpenSpiel's receiver does not. Caught by the information states alone."""
    broken = mutant(tmp_path, SPEC, PASS_CARD.format(visible='visible_to: "[p, receiver(p)]"'),
                    recall=True)
    assert_leak_caught_in_groups(broken)


def test_hands_shown_to_all_are_caught(tmp_path):
    """The hands public (the deal and the pass still hidden in the history)."""
    broken = mutant(tmp_path, SPEC, """
        override:
          zones:
            hand: {kind: set, per_player: true, visibility: public, ordered: false}
        """, recall=True)
    assert_leak_caught_in_groups(broken)


# ---- the referee -----------------------------------------------------------------------

class Table:
    """The referee's own game, kept from the action strings alone."""

    def __init__(self, options):
        self.o = options
        self.direction = None
        self.dealt = 0
        self.hands = [set() for _ in range(4)]
        self.deal = [[] for _ in range(4)]
        self.passed = [[] for _ in range(4)]
        self.tricks = []            # (leader, [cards]) in play order
        self.broken = not options["must_break_hearts"]
        self.played = 0
        self.to_move = None

    # who moves, and what may be done
    def expected(self):
        """('chance', outcomes) or (player, legal card numbers in order), or None at the
        end."""
        if self.direction is None:
            return "chance", list(range(4)) if self.o["pass_cards"] else [0]
        if self.dealt < 52:
            return "chance", sorted(set(range(52)) - set().union(*self.hands)
                                    - {c for _, t in self.tricks for c in t})
        if self.direction and sum(map(len, self.passed)) < 12:
            p = sum(map(len, self.passed)) // 3
            return p, sorted(self.hands[p])
        if self.played == 52:
            return None
        p = self.to_move
        return p, self.legal(p)

    def legal(self, p):
        hand = sorted(self.hands[p])
        o = self.o
        trick = self.tricks[-1][1] if self.tricks and len(self.tricks[-1][1]) < 4 else None
        if trick:
            follow = [c for c in hand if c % 4 == trick[0] % 4]
            if follow:
                return follow
        if self.played == 0:
            return [c for c in hand if c == TWO_CLUBS or (o["can_lead_any_club"] and c % 4 == 0)]
        if o["no_pts_on_first_trick"] and self.played < 4:
            clean = [c for c in hand if c % 4 != HEARTS and c != QS]
            if clean:
                return clean
        if trick is None:
            lead = [c for c in hand if c % 4 != HEARTS or self.broken]
            if o["can_lead_hearts_instead_of_qs"] and lead == [QS]:
                lead = []
            if lead:
                return lead
        return hand

    def apply(self, who, text):
        if self.direction is None:
            self.direction = DIRECTIONS.index(text)
            return
        c = card_number(text)
        if self.dealt < 52:
            self.hands[self.dealt % 4].add(c)
            self.deal[self.dealt % 4].append(c)
            self.dealt += 1
            if self.dealt == 52 and not self.direction:
                self.to_move = self.holder(TWO_CLUBS)
            return
        self.hands[who].remove(c)
        if self.direction and sum(map(len, self.passed)) < 12:
            self.passed[who].append(c)
            if sum(map(len, self.passed)) == 12:
                for p in range(4):
                    self.hands[(p + self.direction) % 4] |= set(self.passed[p])
                self.to_move = self.holder(TWO_CLUBS)
            return
        if not self.tricks or len(self.tricks[-1][1]) == 4:
            self.tricks.append((who, []))
        leader, trick = self.tricks[-1]
        trick.append(c)
        self.played += 1
        if c % 4 == HEARTS or (self.o["qs_breaks_hearts"] and c == QS):
            self.broken = True
        self.to_move = (who + 1) % 4
        if len(trick) == 4:
            self.to_move = self.winner(leader, trick)

    def holder(self, card):
        return next(p for p in range(4) if card in self.hands[p])

    @staticmethod
    def winner(leader, trick):
        best = max((c for c in trick if c % 4 == trick[0] % 4), key=lambda c: c // 4)
        return (leader + trick.index(best)) % 4

    def passing(self):
        """Cards are being set aside and not yet handed over."""
        return self.dealt == 52 and bool(self.direction) and sum(map(len, self.passed)) < 12

    def card_points(self, c):
        if c % 4 == HEARTS:
            return 1
        if c == QS:
            return 13
        return -10 if c == JD and self.o["jd_bonus"] else 0

    def returns(self):
        points, taken = [0] * 4, [[] for _ in range(4)]
        for leader, trick in self.tricks:
            w = self.winner(leader, trick)
            taken[w] += trick
            points[w] += sum(self.card_points(c) for c in trick)
        penalty = {c for c in range(52) if c % 4 == HEARTS} | {QS}
        shooter = [p for p in range(4) if penalty <= set(taken[p])]
        for p in range(4):
            if shooter:
                points[p] += -26 if p == shooter[0] else 26
            elif self.o["avoid_all_tricks_bonus"] and not taken[p]:
                points[p] -= 5
        return [26 - x for x in points]


def referee(game, seed, options=OPTIONS, recall=False) -> tuple:
    """One random game refereed; the returns."""
    rng, st, table = random.Random(seed), game.new_state(seed=seed), Table(options)
    while True:
        exp = table.expected()
        if exp is None:
            break
        who, legal = exp
        assert not st.is_terminal(), seed
        strings = st.legal_action_strings()
        if who == "chance":
            assert st.is_chance_node()
            odds = [p for _, p in st.chance_outcomes()]
            assert all(abs(p - 1 / len(legal)) < 1e-9 for p in odds), seed
            assert strings == ([DIRECTIONS[d] for d in legal] if table.direction is None
                               else [card_name(c) for c in legal]), seed
        else:
            assert st.current_player() == who, seed
            assert strings == [card_name(c) for c in legal], (seed, who, strings)
            see(st, table, who, recall)
        # the referee's cards are all there: in the deck, in hands, set aside, played
        aside = sum(map(len, table.passed)) if table.passing() else 0
        assert sum(map(len, table.hands)) + aside + table.played + 52 - table.dealt == 52
        k = int(rng.random() * len(strings))
        table.apply(who, strings[k])
        st.apply(st.legal_actions()[k])
    assert st.is_terminal()
    assert all(not h for h in table.hands)
    expected = table.returns()
    assert st.returns() == st.scores() == expected, (seed, st.scores(), expected)
    best = max(expected)
    assert st.winners() == [p for p in range(4) if expected[p] == best]
    if recall:
        see_history(st, table)
    return tuple(expected)


def see(st, table, who, recall):
    """What the player to move sees: their own hand by name, every other hand as a count
    only, the others' passed cards as counts; in the information state, no card of
    another hand (nor passed by another player and not yet received)."""
    obs = st.observation(who)
    zones = obs["zones"]
    # Tabula's cards are all there: the deck (unseen: 52 less those dealt), the hands, the
    # cards set aside, on the table and taken, as this player sees them (names or counts)
    assert zones["deck"] is None
    assert 52 - table.dealt + sum(
        len(z) if isinstance(z, list) else z["count"]
        for name in ("hand", "passed", "table", "won") for z in zones[name].values()) == 52
    assert sum(map(len, zones["table"].values())) + sum(
        map(len, zones["won"].values())) == table.played
    hands = zones["hand"]
    assert sorted(map(card_number, hands[str(who)])) == sorted(table.hands[who])
    for q in range(4):
        if q != who:
            assert hands[str(q)] == {"count": len(table.hands[q])}
            assert isinstance(obs["zones"]["passed"][str(q)], dict)
    if recall:
        text = st.information_state_string(who)
        mine = set(table.deal[who]) | table.hands[who]
        for q in range(4):
            for c in table.hands[q] | (set(table.passed[q]) if table.passing() else set()):
                if c not in mine:
                    assert f'"{card_name(c)}"' not in text, (who, card_name(c))


def see_history(st, table):
    """At the end: each player's history names the cards dealt to them and the cards
    they passed, and no one else's deal or pass."""
    for p in range(4):
        info = st.information_state(p)
        dealt = [e["action"] for e in info["history"]
                 if e["rule"] == "step:deal" and "action" in e]
        passed = [e["action"] for e in info["history"]
                  if e["rule"] == "step:pass.card" and "action" in e]
        assert dealt == [card_name(c) for c in table.deal[p]]
        assert passed == [card_name(c) for c in table.passed[p]]


def test_the_referee_plays_random_games(game):
    """200 random games refereed; moons and plain hands among them."""
    outcomes = [referee(game, seed) for seed in range(REFEREE_GAMES)]
    assert any(sorted(r) == [0, 0, 0, 26] for r in outcomes)
    assert len(set(outcomes)) > REFEREE_GAMES // 2


def test_the_referee_sees_what_each_player_sees(recall_game):
    """Information states too (they cost an action string a decision): fewer games."""
    for seed in range(max(5, REFEREE_GAMES // 10)):
        referee(recall_game, seed, recall=True)


@pytest.mark.parametrize("flip", ["jd_bonus", "avoid_all_tricks_bonus", "can_lead_any_club",
                                  "must_break_hearts", "qs_breaks_hearts",
                                  "no_pts_on_first_trick", "can_lead_hearts_instead_of_qs",
                                  "pass_cards"])
def test_the_referee_with_each_option(flip):
    options = dict(OPTIONS, **{flip: not OPTIONS[flip]})
    ours = load_game(SPEC, options={flip: options[flip]})
    for seed in range(max(5, REFEREE_GAMES // 20)):
        referee(ours, seed, options)


def test_the_same_seed_plays_the_same_game(game):
    def play(seed):
        rng, st, out = random.Random(seed), game.new_state(seed=seed), []
        while not st.is_terminal():
            strings = st.legal_action_strings()
            k = int(rng.random() * len(strings))
            out.append(strings[k])
            st.apply(st.legal_actions()[k])
        return out, st.returns()
    assert play(7) == play(7) != play(8)


@pytest.mark.parametrize("change", [
    # a heart never breaks hearts: leads differ
    """
    override:
      steps:
        trick.break:
          if: option.qs_breaks_hearts and c.number == queen_of_spades
          then:
            - broken = true
    """,
    # the jack of diamonds always counts -10
    """
    override:
      points:
        cards:
          value: >-
            -taken(player)
            + (if any(c.number == jack_of_diamonds for c in player.won) then 10 else 0)
    """,
])
def test_the_referee_catches_a_broken_copy(tmp_path, change):
    broken = mutant(tmp_path, SPEC, change)
    with pytest.raises(AssertionError):
        for seed in range(REFEREE_GAMES):
            referee(broken, seed)
