"""The compiled program: what the engine executes.

Input: nothing (definitions only; interpreter/compiler/driver.py fills them). Output: the
static tables of a game (pieces, zones and their slots, variables) and the executable
pieces (blocks of instructions, loops, decisions, procedures), each with an id so that a
running state can be written to JSON and read back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import NOWHERE, Pos, TabulaError
from .templates import render_template, template_parts

CHANCE = -1          # current_player() while chance acts
TERMINAL = -2        # current_player() once the game is over
# an observation's current_player at a simultaneous decision (State.deciding: who chooses)
SIMULTANEOUS = "simultaneous"
SKIP = -1            # alternative index of an optional decision's "skip"
DONE = -2            # alternative index of an up_to decision's "done"


@dataclass(eq=False)
class ZoneInfo:
    """A zone: its slots are base .. base + nslots*owners - 1 in State.slots."""
    name: str
    kind: str
    per_player: bool
    nslots: int
    base: int
    visibility: str
    caps: list            # capacity per slot of one owner's copy (None: unbounded)
    pos: Pos = NOWHERE
    width: int = 1        # slots per row: a grid's width; other zones are one row
    height: int = 1
    ordered: bool = True  # False: a multiset, kept in piece order (arrival is not kept)

    def slot(self, owner: int = 0, i: int = 0) -> int:
        return self.base + owner * self.nslots + i

    def shows(self, owner: int, player: int | None) -> bool:
        """Does `player` see the pieces of `owner`'s copy of this zone (sees())?"""
        return sees(self.visibility, owner, player)


# A seed is a whole number from 0 to 2^53 - 1 (exact in a JSON number: a log's header and a
# simulate record hold it; every game seed simulate derives is one), and no alias: Python's
# random.Random seeds an integer by its 32-bit words, and the key [a] and the key
# [a, a - 1] give one generator (its seeding adds word j plus j, cycling over the words),
# so the seed a + (a - 1) * 2^32 deals the game of seed a (4294967298 that of 2). Those
# 2^21 - 1 seeds are refused, as a negative seed is (-S deals the game of S): every seed
# accepted gives a generator of its own (docs/cli.md, Seeds; docs/logs.md).
SEED_LIMIT = 2 ** 53
SEED_RANGE = f"a seed is a whole number from 0 to {SEED_LIMIT - 1} (2^53 - 1)"


def seed_alias(seed: int) -> int | None:
    """The smaller seed whose generator random.Random gives `seed` too, or None."""
    high, low = seed >> 32, seed & 0xFFFF_FFFF
    return low if high and high == (low - 1) & 0xFFFF_FFFF else None


def seed_problem(seed) -> str | None:
    """Why `seed` is not a seed (None if it is), as the end of a sentence `seed S: ...`."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        return f"not a whole number; {SEED_RANGE}"
    if seed < 0:
        return (f"a negative seed deals the game of its opposite (random.Random drops the "
                f"sign); {SEED_RANGE}")
    if seed >= SEED_LIMIT:
        return f"too large; {SEED_RANGE}"
    alias = seed_alias(seed)
    if alias is not None:
        return (f"it deals the game of seed {alias} (random.Random seeds the two alike: "
                f"{alias} + {alias - 1} * 2^32); {SEED_RANGE}, and not such an alias")
    return None


def check_seed(seed: int) -> None:
    """A game's seed (a whole number), else a TabulaError: a negative seed (random.Random
    folds the sign: -S would deal the game of S under another name), a seed past 2^53 or
    an alias of another (seed_problem). The engine checks every game's; the adapters
    check theirs where they are given, before a game is made."""
    if seed < 0:
        raise TabulaError(f"seed {seed}: a game's seed is a whole number, 0 or more")
    why = seed_problem(seed)
    if why is not None:
        raise TabulaError(f"seed {seed}: {why}")


def sees(visibility: str, owner: int, player: int | None) -> bool:
    """Does `player` see what `owner` holds under `visibility` (a zone's copy, or a
    per-player variable's value; owner -1: shared, no owner)? Player None is a referee,
    who sees everything. `public`: everyone; `owner`: its owner alone; `others`: every
    player but its owner; `count` and `hidden`: nobody (`count` shows how many)."""
    if player is None or visibility == "public":
        return True
    if owner < 0:
        return False
    if visibility == "owner":
        return owner == player
    return visibility == "others" and owner != player


@dataclass(eq=False)
class Namer:
    """The name of pieces whose name template shows a changeable attribute: the
    template, the attributes that stay fixed, and the rows of State.pa it reads. Names
    already made are kept (a bounded table), so a name is formatted once per look."""
    template: str
    fixed: dict
    rows: tuple                     # ((attribute, row of State.pa), ...)
    made: dict = field(default_factory=dict)
    parts: tuple = ()               # the template read (names.template_parts)

    def __post_init__(self):
        if not self.parts:
            self.parts = template_parts(self.template)

    def name(self, pa: list, piece: int) -> str:
        values = tuple([pa[r][piece] for _, r in self.rows])
        found = self.made.get(values)
        if found is None:
            attrs = dict(self.fixed)
            attrs.update(zip([a for a, _ in self.rows], values))
            found = render_template(self.parts, attrs)
            if len(self.made) >= 4096:
                self.made.clear()
            self.made[values] = found
        return found


@dataclass
class Block:
    """A straight sequence of instructions; frames run blocks. `native`: the block is
    one generated function that neither pauses nor calls a rule (compiler/steps.py), so
    the engine may run it without a frame of its own (State._apply)."""
    id: int
    ins: tuple = ()
    pos: tuple = ()
    name: str = ""
    native: bool = False


@dataclass
class Loop:
    """What happens when a block run by a looping frame reaches its end."""
    id: int
    again: object = None   # callable(state, frame) -> bool: run the block once more?
    kind: str = ""
    pos: Pos = NOWHERE


@dataclass
class Alt:
    """One alternative of a decision: a fixed option, or one action per binding (its
    actions are listed by the decision's generated function: decisions.py)."""
    index: int
    label: object            # callable(state, locals) -> str
    slots: tuple = ()        # local slots the bound values go to
    body: Block | None = None
    source: str = ""
    weight: object = None    # callable(state, locals) -> a chance outcome's weight
    visible: object = None   # callable(state, locals) -> who sees the action (visible_to)
    # each binding's compiled source and static type, in order
    binds: tuple = ()
    # each binding's domain, in order: the values it can take, as the compiler bounds them
    # (compiler/analysis.py BindingDomain; what interpreter/adapters/actionspace.py numbers
    # the bound values by)
    domains: tuple = ()


class Listing:
    """A decision with an id as can_choose(id, p) names it, filled in when the decision
    compiles (a name may come first): its id, its listing function (`actions(st, L)`),
    why it cannot be asked from elsewhere ("" if it can), and the key of its listings
    by player in State.facts ("" while nothing asks it, or facts are off)."""

    __slots__ = ("did", "actions", "why", "key")

    def __init__(self):
        self.did: int | None = None
        self.actions: Any = None
        self.why = ""
        self.key = ""


@dataclass
class Decision:
    """A point where a player (or chance) picks one of the legal actions."""
    id: int
    rule: str
    alts: list
    player: Any = None       # callable(state, locals) -> player index or CHANCE
    optional: str = ""       # label of the skip action ("" = not optional)
    done: str = ""           # label of the done action of an up_to decision
    upto: bool = False
    pos: Pos = NOWHERE
    weighted: bool = False   # a chance decision whose outcomes have weights
    chance: bool = False     # `player: chance`
    merge: bool = False      # a distinct chance decision: identical pieces are one outcome
    copies: bool = False     # another chance decision over pieces: identical pieces in one
                             # slot of an unordered zone are one outcome
    player_pos: Pos = NOWHERE  # where the player expression is (its rule errors)
    # a simultaneous decision: the frame slot of its player variable, and the callable
    # (state, frame, [(player, action), ...]) that runs every player's choice at once
    chooser_slot: int | None = None
    reveal: object = None


@dataclass
class Proc:
    """A rule that can be called: its parameters and its body."""
    name: str
    params: tuple
    nlocals: int = 0
    pad: tuple = ()          # None for each local past the parameters (effects.R_call)
    block: Block | None = None
    pos: Pos = NOWHERE
    source: str = ""
    param_types: list = field(default_factory=list)


@dataclass
class Program:
    """Everything the engine needs to run one game (spec + players + options)."""
    spec_id: str
    players: int
    options: dict
    # pieces
    piece_names: list = field(default_factory=list)
    piece_kind: list = field(default_factory=list)
    piece_component: list = field(default_factory=list)
    piece_attrs: dict = field(default_factory=dict)     # attribute -> tuple over pieces
    piece_home: list = field(default_factory=list)      # initial slot of each piece
    # attributes some component declares changeable: row i of State.pa holds the current
    # value of changeable[i] for every piece (a piece whose component does not declare it
    # keeps its value there, and changeable_by says it may not change it)
    changeable: list = field(default_factory=list)
    changeable_by: dict = field(default_factory=dict)  # attribute -> tuple of bools over pieces
    piece_namer: tuple = ()      # per piece: None or the Namer of a name that shows a change
                                 # (empty when no name does)
    # per piece: the (row of State.pa, attribute) pairs its component may change, () for
    # none (observations; engine._changing fills it at the first one)
    changing: list | None = None
    # per slot, the seats that see its pieces as a bitmask (bit p: player p), or None
    # when every seat sees every slot (nothing to keep track of): Game.__init__
    slot_seers: list | None = None
    seers_known: bool = False          # slot_seers computed
    # zones
    zones: dict = field(default_factory=dict)
    zone_list: list = field(default_factory=list)      # zones by index (slot_zone)
    nslots: int = 0
    slot_zone: list = field(default_factory=list)
    slot_owner: list = field(default_factory=list)
    slot_index: list = field(default_factory=list)
    slot_cap: list = field(default_factory=list)
    heaps: frozenset = frozenset()   # slots of unordered zones (kept in piece order)
    adj4: list = field(default_factory=list)            # orthogonal neighbour slots
    adj8: list = field(default_factory=list)            # neighbours, diagonals included
    # variables
    gvar_names: list = field(default_factory=list)
    gvar_init: list = field(default_factory=list)
    gvar_vis: list = field(default_factory=list)
    pvar_names: list = field(default_factory=list)
    pvar_init: list = field(default_factory=list)
    pvar_vis: list = field(default_factory=list)
    # code
    blocks: list = field(default_factory=list)
    loops: list = field(default_factory=list)
    decisions: list = field(default_factory=list)
    procs: dict = field(default_factory=dict)
    root_full: Block | None = None
    root_play: Block | None = None
    root_nlocals: int = 0
    stops: tuple = ()        # the ids of the top-level set-up steps a game can stop after
    points: list = field(default_factory=list)     # [(rule id, fn(state, locals))]
    tiebreaks: list = field(default_factory=list)  # [(rule id, fn)]
    invariants: list = field(default_factory=list)  # [(id, fn, locals size)]
    score_nlocals: int = 1
    max_steps: int = 1_000_000
    # the decisions one game may make (its history's length: State._apply)
    max_decisions: int = 100_000
    returns: str = "scores"   # game.returns: what State.returns() gives (scores, win_loss)
    traced: bool = False      # compiled with trace: states count the ids they reach
    cache: bool = True        # spec functions' results kept in State.facts (see builtins.py)
    views: bool = True        # generators over a board's cells kept as views (views.py)
    turn_facts: tuple = ()    # the keys of State.facts that read whose turn it is (facts)
    max_depth: int = 200
    # the work budget's counter, this game's own (readers.work_budget: B_spent)
    work: list = field(default_factory=lambda: [0])
    graph: object = None
    module: Any = None        # the generated code (codegen.Module): source and line table
    # what the compiler tells the tools (compiler/driver.py fills these when it is done):
    # a tool reads them here and never reaches into the compiler. Types are lang/types.py's
    attr_types: dict = field(default_factory=dict)   # piece attribute -> its static type
    var_types: dict = field(default_factory=dict)    # variable (global or per player) -> type
    # a list variable declared with `max_length: N` -> N (observation tensors encode its
    # items one by one within it; an assignment beyond it is a rule error)
    list_bounds: dict = field(default_factory=dict)
    enums: dict = field(default_factory=dict)        # enum -> its values (texts), in order
    step_ids: dict = field(default_factory=dict)     # id of a step or option -> graph node
    usage: object = None      # what the rules read of data and attributes (analysis.Usage)
    # rule text compiled against this program, after the fact (scenarios, tools):
    # compile_expression(text) -> fn(state) -> value; a located SpecError if it is wrong
    compile_expression: Any = None
    # what the compiler records of the rules (compiler/analysis.py Facts): randomness, the
    # read/write summary of every function, group, decision, rule, scoring expression and
    # statement (docs/compiler.md, "What the compiler records")
    facts: Any = None
    # generated function name (F4, E15, ...) -> what it comes from in the spec, in words
    # with its file and line (compiler/codegen.py Module.origins): profiles name them so
    origins: dict = field(default_factory=dict)

    def origin(self, name: str) -> str | None:
        """What the generated function `name` comes from: "function best
        (game.yaml:120)", "decision of rule turn (game.yaml:300)"; None if no
        generated function has that name."""
        return self.origins.get(name)

    def reads(self, unit: str) -> frozenset:
        """What a unit (function:NAME, group:N, decision:N, rule:NAME, setup, play,
        score:ID, tiebreak:ID, invariant:ID) reads, through what it calls."""
        return self.facts.reads(unit)

    def writes(self, unit: str) -> frozenset:
        """What a unit writes, through what it calls."""
        return self.facts.writes(unit)
