"""Hamlet (examples/hamlet), refereed in plain Python: seeded random games of 2, 3 and 4
players played through the public API (load_game, legal_actions, apply, observation,
chance_outcomes, scores, winners). The referee knows the rules (examples/hamlet/rules.txt)
and nothing of the spec: it keeps a table of its own, played from the action strings
alone (the kind drawn, where the tile went and turned how, where a steward went), and
checks the engine against it:

- every draw: the chance outcomes are the kinds left in the hidden stack, each with the
  probability of its share of the tiles left; every player sees the same table, and of
  the stack only its count;
- every lay: the legal actions are exactly the empty spaces beside a tile, in every
  rotation that looks different, whose touching sides all match (rules 3.2, 3.3), and a
  tile that fits nowhere is put out of the game (3.4);
- every steward: offered on the town or road of the new tile only if no steward stands
  in its region (3.5);
- after every turn: the regions the tile completed are scored for the players with the
  most stewards in them and their stewards go home (4.2-4.5); the engine's board, posts,
  supplies, tiles put out, stack count and points are the referee's; tiles and stewards
  are conserved;
- at the end: the stack is empty (5.1), every pair of touching sides on the final board
  matches, the completed regions of the final board are exactly those scored during the
  game (their points recomputed from the final board), the open regions are scored
  (4.6), the scores and the winners (5.2) follow.

Rules broken on purpose in copies of the spec must each be caught; the same seed gives
the same game."""

import os
import random
import re
from fractions import Fraction

import pytest

from tabula_rules import load_game

from conftest import ROOT
from helpers import mutant

SPEC = ROOT / "examples" / "hamlet" / "hamlet.yaml"
GAMES = int(os.environ.get("TABULA_REFEREE_GAMES", "200"))

# rules.txt 1.3: sides north, east, south, west as printed, and how many of each
SIDES = {
    "cap": ("town", "field", "field", "field"),
    "corner": ("town", "town", "field", "field"),
    "bridge": ("town", "field", "town", "field"),
    "keep": ("town", "town", "town", "field"),
    "fort": ("town", "town", "town", "town"),
    "straight": ("road", "field", "road", "field"),
    "bend": ("field", "field", "road", "road"),
    "well": ("road", "field", "field", "field"),
    "gate": ("town", "road", "field", "road"),
    "fork": ("field", "road", "road", "road"),
}
COPIES = {"cap": 3, "corner": 3, "bridge": 2, "keep": 2, "fort": 1, "straight": 3,
          "bend": 3, "well": 3, "gate": 3, "fork": 1}
N = 9                                            # rules.txt 1.5
STEWARDS = 4                                     # rules.txt 1.4
CLOSED = {"town": 2, "road": 1}                  # rules.txt 4.4
OPEN = {"town": 1, "road": 1}                    # rules.txt 4.6
STEPS = [(0, -1), (1, 0), (0, 1), (-1, 0)]       # north, east, south, west
LAY = re.compile(r"^(\w+) at (\d),(\d) turn (\d)$")


def shown(kind: str, turn: int, d: int) -> str:
    """What a tile turned `turn` quarter turns clockwise shows on side d."""
    return SIDES[kind][(d - turn) % 4]


def looks(kind: str) -> list:
    """The rotations that show different sides (each look once)."""
    seen, turns = set(), []
    for r in range(4):
        look = tuple(shown(kind, r, d) for d in range(4))
        if look not in seen:
            seen.add(look)
            turns.append(r)
    return turns


LOOKS = {kind: looks(kind) for kind in SIDES}


def board_of(obs) -> dict:
    """{(x, y): (kind, turn)} from an observation's board (row by row)."""
    out = {}
    for i, slot in enumerate(obs["zones"]["board"]):
        if slot:
            [name] = slot
            kind, turn = name.split("/")
            out[(i % N, i // N)] = (kind, int(turn))
    return out


def posts_of(obs) -> dict:
    """{(x, y, terrain): owner} of the stewards on the board."""
    out = {}
    for terrain in ("town", "road"):
        for i, slot in enumerate(obs["zones"][f"{terrain}_posts"]):
            if slot:
                [name] = slot
                out[(i % N, i // N, terrain)] = int(name.split()[1])
    return out


def fits(board, kind, x, y, r) -> bool:
    return all(shown(kind, r, d) == shown(*board[(x + dx, y + dy)], (d + 2) % 4)
               for d, (dx, dy) in enumerate(STEPS) if (x + dx, y + dy) in board)


def lays(board, kind) -> set:
    """The legal lays of a tile of this kind (rules 3.2, 3.3): an empty space of the
    table beside a tile, in every look whose touching sides match."""
    spaces = {(x + dx, y + dy) for x, y in board for dx, dy in STEPS} - set(board)
    return {f"{kind} at {x},{y} turn {r}" for x, y in spaces if 0 <= x < N and 0 <= y < N
            for r in LOOKS[kind] if fits(board, kind, x, y, r)}


def region(board, cell, terrain) -> tuple:
    """(the spaces of the region of `terrain` holding `cell`, whether it is complete):
    a tile's lands of one terrain are one (rule 1.2); tiles join across a side showing
    the terrain (4.1); a side with no tile against it is open (4.2)."""
    seen, todo, closed = {cell}, [cell], True
    while todo:
        x, y = todo.pop()
        for d, (dx, dy) in enumerate(STEPS):
            if shown(*board[(x, y)], d) != terrain:
                continue
            nxt = (x + dx, y + dy)
            if nxt not in board:
                closed = False
            elif nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen), closed


def regions(board) -> dict:
    """{(terrain, spaces): complete} of every town and road on the board."""
    out = {}
    for cell, (kind, _) in board.items():
        for terrain in ("town", "road"):
            if terrain in SIDES[kind]:
                spaces, closed = region(board, cell, terrain)
                out[(terrain, spaces)] = closed
    return out


def holders(posts, spaces, terrain) -> list:
    """The owners with the most stewards in a region (rule 4.5; ties: each of them)."""
    counts = {}
    for (x, y, t), owner in posts.items():
        if t == terrain and (x, y) in spaces:
            counts[owner] = counts.get(owner, 0) + 1
    most = max(counts.values(), default=0)
    return sorted(o for o, n in counts.items() if n == most and most > 0)


class Referee:
    """Plays the game on a board of its own from the action strings alone (what was
    drawn, where it was laid and how, where a steward went), by the rules, and compares
    the engine's legal actions at every decision and its observation after every turn."""

    def __init__(self, players: int, seed: int):
        self.players, self.seed = players, seed
        self.left = dict(COPIES)
        self.board = {(N // 2, N // 2): ("gate", 0)}     # rule 2.1
        self.left["gate"] -= 1
        self.posts = {}                                  # (x, y, terrain) -> owner
        self.supply = [STEWARDS] * players
        self.out = []
        self.closed = [0] * players
        self.scored = {}                     # (terrain, spaces) -> holders, when completed
        self.drawn = None                    # the kind drawn this turn, until it is laid
        self.laid = None                     # (player, cell) of this turn's tile

    def where(self) -> str:
        return f"{self.players} players, seed {self.seed}"

    def draw(self, st) -> str:
        """Rule 3.1: the chance outcomes are the kinds left, as likely as their tiles."""
        total = sum(self.left.values())
        outcomes = {st.action_to_string(a): p for a, p in st.chance_outcomes(exact=True)}
        assert outcomes == {f"draw {k}": Fraction(n, total)
                            for k, n in self.left.items() if n}, self.where()
        return "draw"

    def drew(self, action: str) -> None:
        kind = action.split()[1]
        self.left[kind] -= 1
        self.drawn = kind

    def lay(self, st) -> None:
        """Rules 3.2, 3.3: every legal lay, and nothing else, is offered."""
        assert set(st.legal_action_strings()) == lays(self.board, self.drawn), self.where()

    def lays_at(self, player: int, action: str) -> None:
        kind, x, y, r = LAY.match(action).groups()
        assert kind == self.drawn, self.where()
        self.board[(int(x), int(y))] = (kind, int(r))
        self.drawn, self.laid = None, (player, (int(x), int(y)))

    def steward(self, st) -> None:
        """Rule 3.5: on the town or road of the new tile, if its region has no steward."""
        p, cell = self.laid
        kind = self.board[cell][0]
        expected = {f"steward on the {t}" for t in ("town", "road")
                    if t in SIDES[kind] and self.supply[p]
                    and not holders(self.posts, region(self.board, cell, t)[0], t)}
        assert expected, self.where()          # a decision with nothing legal is not asked
        assert set(st.legal_action_strings()) == expected | {"no steward"}, self.where()

    def posted(self, action: str) -> None:
        if action != "no steward":
            p, cell = self.laid
            self.posts[(*cell, action.split()[-1])] = p
            self.supply[p] -= 1

    def end_turn(self) -> None:
        """Rule 3.4: a tile that fits nowhere is put out; rules 3.6, 4.2-4.5: the regions
        the new tile completed are scored and their stewards go home."""
        if self.drawn is not None:
            assert not lays(self.board, self.drawn), self.where()
            self.out.append(self.drawn)
            self.drawn = None
        if self.laid is None:
            return
        (_, cell), self.laid = self.laid, None
        for terrain in ("town", "road"):
            if terrain not in SIDES[self.board[cell][0]]:
                continue
            spaces, closed = region(self.board, cell, terrain)
            if not closed:
                continue
            owners = holders(self.posts, spaces, terrain)
            self.scored[(terrain, spaces)] = owners
            for o in owners:
                self.closed[o] += CLOSED[terrain] * len(spaces)
            for key in [k for k in self.posts if k[2] == terrain and k[:2] in spaces]:
                self.supply[self.posts.pop(key)] += 1

    def compare(self, obs) -> None:
        """The engine's table is the referee's, and nothing is lost or made."""
        z = obs["zones"]
        assert board_of(obs) == self.board, self.where()
        assert posts_of(obs) == self.posts, self.where()
        assert sorted(n.split("/")[0] for n in z["out"]) == sorted(self.out), self.where()
        assert z["stack"] == {"count": sum(self.left.values())}, self.where()
        assert z["drawn"] == [], self.where()
        assert [obs["player_variables"]["closed_points"][str(q)] for q in range(self.players)] \
            == self.closed, self.where()
        for p in range(self.players):
            assert z["supply"][str(p)] == [f"steward {p}"] * self.supply[p], self.where()
        # conservation: tiles (rule 1.1) and stewards (rule 1.4)
        assert len(self.board) + len(self.out) + sum(self.left.values()) == sum(COPIES.values())
        assert all(self.supply[p] + list(self.posts.values()).count(p) == STEWARDS
                   for p in range(self.players)), self.where()

    def hidden(self, st) -> None:
        """Every player sees the same table, and of the stack only its count."""
        seen = [st.observation(p) for p in range(self.players)]
        for obs in seen:
            assert obs["zones"] == seen[0]["zones"], self.where()
            assert obs["zones"]["stack"] == {"count": sum(self.left.values())}, self.where()
            assert obs["zones"]["net"] is None, self.where()

    def final(self, st, obs) -> None:
        board, posts = board_of(obs), posts_of(obs)
        assert obs["zones"]["stack"] == {"count": 0} and not obs["zones"]["drawn"], self.where()
        # every pair of touching sides matches (rule 3.3)
        for (x, y), tile in board.items():
            for d, (dx, dy) in enumerate(STEPS):
                if (x + dx, y + dy) in board:
                    assert shown(*tile, d) == shown(*board[(x + dx, y + dy)], (d + 2) % 4), \
                        (self.where(), x, y, d)
        found = regions(board)
        # the completed regions of the final board are those scored when they completed,
        # and their points, recomputed from the final board, are the closed points
        assert {r for r, closed in found.items() if closed} == set(self.scored), self.where()
        closed = [0] * self.players
        for (terrain, spaces), owners in self.scored.items():
            for o in owners:
                closed[o] += CLOSED[terrain] * len(spaces)
        pv = obs["player_variables"]
        assert [pv["closed_points"][str(q)] for q in range(self.players)] == closed, self.where()
        assert not any(k[:2] in spaces and k[2] == terrain
                       for (terrain, spaces) in self.scored for k in posts), self.where()
        # rule 4.6: the open regions, for the players with the most stewards in them
        opened = [0] * self.players
        for (terrain, spaces), complete in found.items():
            if not complete:
                for o in holders(posts, spaces, terrain):
                    opened[o] += OPEN[terrain] * len(spaces)
        assert [pv["open_points"][str(q)] for q in range(self.players)] == opened, self.where()
        scores = [closed[q] + opened[q] for q in range(self.players)]
        assert st.scores() == scores, self.where()
        # rule 5.2: the most points, then the most points from completed regions
        best = max((scores[q], closed[q]) for q in range(self.players))
        assert st.winners() == [q for q in range(self.players)
                                if (scores[q], closed[q]) == best], self.where()


def play(game, players: int, seed: int) -> Referee:
    """One seeded random game, refereed."""
    ref, rng = Referee(players, seed), random.Random(seed)
    st = game.new_state(seed=seed)
    turns = 0
    while True:
        if st.is_terminal() or st.is_chance_node():
            ref.end_turn()
            ref.compare(st.observation(0))
            if turns == 12 or st.is_terminal():
                ref.hidden(st)
        if st.is_terminal():
            break
        player = st.current_player()
        if st.is_chance_node():
            ref.draw(st)
            act = st.sample_chance(rng)
            ref.drew(st.action_to_string(act))
            turns += 1
        else:
            if ref.drawn is not None:
                ref.lay(st)
            else:
                ref.steward(st)
            acts = st.legal_actions()
            act = acts[int(rng.random() * len(acts))]
        text = st.action_to_string(act)
        st.apply(act)
        if player >= 0:
            if ref.drawn is not None:
                ref.lays_at(player, text)
            else:
                ref.posted(text)
    # rule 5.1: one turn a tile, until the stack is empty
    assert turns == sum(COPIES.values()) - 1, ref.where()
    ref.final(st, st.observation(0))
    return ref


@pytest.fixture(scope="module")
def games():
    return {n: load_game(SPEC, players=n) for n in (2, 3, 4)}


def test_random_games_follow_the_rules(games):
    completed = scored = put_out = 0
    for seed in range(GAMES):
        players = 2 + seed % 3
        ref = play(games[players], players, seed)
        completed += len(ref.scored)
        scored += any(ref.closed)
        put_out += len(ref.out)
    # the games reached what the referee checks: regions completed, some of them scored
    # for a player, tiles put out of the game
    assert completed and scored and put_out, (completed, scored, put_out)


def test_the_same_seed_gives_the_same_game(games):
    from helpers import random_game
    assert random_game(games[3], 5) == random_game(games[3], 5)
    assert random_game(games[3], 5) != random_game(games[3], 6)


BROKEN = {
    # the west side of a new tile is not checked
    "west_side_unchecked": """
        override:
          functions:
            fits:
              params: [k, c, r]
              value: >-
                all(n == none or size(n) == 0 or d == 3
                or shows(k, r, d) == side_of(top(n), (d + 2) % 4)
                for d in [0, 1, 2, 3] let n = neighbour(c, compass[d]))
        """,
    # a completed town scores 3 a tile
    "town_worth_three": """
        override:
          data:
            closed_value: {value: {town: 3, road: 1}}
        """,
    # a seam with one tile only counts as closed
    "open_sides_close": """
        override:
          functions:
            sealed:
              params: [g]
              value: >-
                count(h for h in adjacent(g) where middle(h)
                and tile_at((x(h) - 1) // 2, (y(h) - 1) // 2) != none) >= 1
        """,
    # a steward may join a region that has one
    "stewards_crowd": """
        override:
          steps:
            turn.claim:
              choose: k in scored where holds(top(c), k) and size(current.supply) > 0
              optional: no steward
              label: "steward on the {k}"
              do:
                - move first(s for s in current.supply) to post_of(c, k)
        """,
    # ties in a region score for nobody
    "ties_score_nothing": """
        override:
          functions:
            holders:
              params: [reg, k]
              value: >-
                let l = leaders(tally(s.owner for s in stewards_in(reg, k))) in
                if size(l) == 1 then l else []
        """,
}


@pytest.mark.parametrize("change", BROKEN.values(), ids=BROKEN.keys())
def test_broken_rules_are_caught(tmp_path, change):
    broken = {}                              # compiled for a player count when first played
    with pytest.raises(AssertionError):
        for seed in range(GAMES):
            players = 2 + seed % 3
            if players not in broken:
                broken[players] = mutant(tmp_path, SPEC, change, players)
            play(broken[players], players, seed)
