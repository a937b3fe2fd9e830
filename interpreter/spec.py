"""Spec files to Games: the one entry point that chains the pipeline stages.

Input: a path (a spec file, or a game's folder holding <folder>.yaml), a player count and
option values given as text or data. Output: a checked Spec, and from it compiled Games
(cached per players and options). load -> schema -> parse + check + compile (compiler.py).
"""

from __future__ import annotations

import hashlib
import numbers
import threading
from dataclasses import dataclass
from pathlib import Path

from .compiler.driver import Compiler
from .compiler.layout import MAX_PLAYERS
from .errors import (
    Pos,
    RuleError,
    SpecError,
    TabulaError,
    did_you_mean,
    excerpt,
    fail,
)
from .lang import rulings
from .lang.catalog import resolve_spec_path
from .lang.loader import LMap, check_schema, load_yaml_source, plain
from .lang.variants import resolve
from .runtime.engine import Game
from .runtime.templates import value_text

SPEC_SCHEMA = "spec.schema.json"


# ---- options typed as text (the command line, an OpenSpiel or PettingZoo game string) ---

MAX_OPTION_TEXT = 200      # characters of an option's key or value, as typed


def _option(key: str, value: str, out: dict) -> None:
    key, value = key.strip(), value.strip()
    if len(key) > MAX_OPTION_TEXT or len(value) > MAX_OPTION_TEXT:
        raise TabulaError(f"the option {excerpt(key)}={excerpt(value)} is longer than an "
                          f"option's name or value may be ({MAX_OPTION_TEXT} characters)")
    out[key] = value


def parse_options(pairs) -> dict:
    """--option KEY=VALUE pairs as a dict (values as text; the spec converts them)."""
    out: dict = {}
    for pair in pairs or ():
        if "=" not in pair:
            raise TabulaError(f"--option takes KEY=VALUE, not {excerpt(pair)}")
        key, value = pair.split("=", 1)
        if key.strip() in out:
            raise TabulaError(f"--option {excerpt(key.strip())} is given twice: give each "
                              "option once")
        _option(key, value, out)
    return out


def parse_option_text(text) -> dict:
    """'board=large;x=y' or 'board:large;x:y' (or a dict) -> {'board': 'large', 'x': 'y'}:
    the options of a game named in one string (OpenSpiel's game parameters, whose strings
    take no '=' inside a value: there, write KEY:VALUE; PettingZoo's env())."""
    if isinstance(text, dict):
        return {str(k): str(v) for k, v in text.items()}
    out: dict = {}
    for pair in str(text or "").replace(",", ";").split(";"):
        if not pair.strip():
            continue
        cut = min((i for i in (pair.find("="), pair.find(":")) if i >= 0), default=-1)
        if cut <= 0:
            raise TabulaError(f"an option is KEY=VALUE (or KEY:VALUE), not "
                              f"{excerpt(pair.strip())}")
        if pair[:cut].strip() in out:
            raise TabulaError(f"the option {excerpt(pair[:cut].strip())} is given twice "
                              f"({excerpt(str(text))}): give each option once")
        _option(pair[:cut], pair[cut + 1:], out)
    return out


@dataclass(frozen=True)
class Utility:
    """game.utility for one compiled game (its player count and options): the least and
    the greatest score a player can end with, and what the scores add up to at every end
    (None: not declared, the game is general-sum). Numbers of the language (int or
    Fraction). `where`: the key's position in the spec, for the errors of a game whose
    scores break it."""

    min: numbers.Rational
    max: numbers.Rational
    sum: numbers.Rational | None
    where: Pos

    def check(self, scores: list) -> None:
        """The scores at the end of a game against the declaration (exactly: the
        language's numbers are ints and fractions): a RuleError located at game.utility
        where they break it (the OpenSpiel adapter checks every end, since OpenSpiel
        would be told something untrue of the game)."""
        shown = "[" + ", ".join(str(x) for x in scores) + "]"
        bad = [x for x in scores if not self.min <= x <= self.max]
        if bad:
            fail(f"the scores at the end of this game, {shown}, break game.utility: "
                 f"{bad[0]} is outside its min..max ({self.min}..{self.max})", self.where,
                 "widen game.utility's range, or fix the scoring", error=RuleError)
        if self.sum is not None and sum(scores) != self.sum:
            fail(f"the scores at the end of this game, {shown}, add up to {sum(scores)}, "
                 f"not {self.sum} as game.utility's sum declares: the game is not "
                 f"{'zero' if self.sum == 0 else 'constant'}-sum", self.where,
                 "fix the scoring, or leave the sum out of game.utility (general-sum)",
                 error=RuleError)


UTILITY_KEYS = ("min", "max", "sum")


def _check_utility(decl: LMap, values: dict, players: int | None = None) -> None:
    """The declared numbers hold together: min below max, and a sum that P scores within
    min..max can make (with `players`; without, only min and max are checked)."""
    lo, hi = values.get("min"), values.get("max")
    if lo is not None and hi is not None and not lo < hi:
        fail(f"game.utility: min ({lo}) must be less than max ({hi})", decl.where("max"))
    total = values.get("sum")
    if players is not None and total is not None and lo is not None and hi is not None \
            and not players * lo <= total <= players * hi:
        fail(f"game.utility: the scores of {players} players, each from {lo} to {hi}, "
             f"cannot add up to {total}", decl.where("sum"))


class Spec:
    """A loaded, schema-checked spec; .game(players, options) compiles it."""

    def __init__(self, path: str | Path, where: Pos | None = None):
        """where: the position of the key naming the spec in another file (a scenario's
        `spec:`): the file is then not trusted to be a spec (loader.load_yaml)."""
        self.path = resolve_spec_path(path)
        self.doc, text = load_yaml_source(self.path, "spec", where)
        self.text = text.replace("\r\n", "\n").replace("\r", "\n")   # as read_text gave
        if not isinstance(self.doc, LMap):
            fail("a spec is a mapping of sections (game:, zones:, rules:, ...)",
                 getattr(self.doc, "pos", Pos(str(self.path), 1, 1)))
        check_schema(self.doc, SPEC_SCHEMA)
        self.variant_doc = self.doc if "extends" in self.doc else None
        self.doc = resolve(self.doc, self.path)
        if self.variant_doc is not None:
            check_schema(self.doc, SPEC_SCHEMA)
        players = self.doc["game"].get("players")
        if isinstance(players, dict) and int(players["min"]) > int(players["max"]):
            fail(f"game.players: min ({players['min']}) is greater than max ({players['max']})",
                 self.doc["game"].where("players"))
        if isinstance(players, dict) and int(players["max"]) > MAX_PLAYERS:
            # the schema says so too; held here for a document it did not check
            fail(f"game.players: a game is for at most {MAX_PLAYERS} players, not "
                 f"{players['max']}", players.where("max") if isinstance(players, LMap)
                 else self.doc["game"].where("players"))
        utility = self.doc["game"].get("utility")
        if isinstance(utility, LMap):       # constant numbers checked now, rule text per game
            _check_utility(utility, {k: v for k, v in utility.items()
                                     if isinstance(v, int) and not isinstance(v, bool)})
        rulings.check(self.doc)             # every reading of every ruling applies
        self.base_doc = self.doc            # the spec as written; .doc: default readings
        self._docs: dict = {(): self.doc}
        self.doc = self.doc_for(rulings.selection(self.doc))
        self.hash = hashlib.sha256(canonical_text(self.doc).encode()).hexdigest()[:16]
        self._games: dict = {}

    def __getstate__(self) -> dict:
        """Pickled without its compiled games (closures): a worker process or a cluster
        node receives the checked spec, needing neither its files nor a new parse, and
        compiles the game it plays."""
        state = dict(self.__dict__)
        state["_games"] = {}
        return state

    def doc_for(self, chosen: dict) -> LMap:
        """The document with the chosen readings of its switchable rulings (cached)."""
        key = tuple(sorted(chosen.items()))
        if key not in self._docs:
            self._docs[key] = rulings.apply(self.base_doc, chosen)
        return self._docs[key]

    @property
    def id(self) -> str:
        return str(self.doc["game"]["id"])

    @property
    def player_range(self) -> tuple:
        pl = self.doc["game"]["players"]
        return int(pl["min"]), int(pl["max"])

    def options(self, given: dict | None = None, players: int | None = None) -> dict:
        """Option values: defaults, overridden by `given` (text from the command line is
        converted to the option's type). Unknown options and bad values are errors."""
        decl = self.doc.get("options", LMap())
        out = {str(k): plain(v.get("default")) for k, v in decl.items()}
        switchable = rulings.declared(self.base_doc)
        given = dict(given or {})
        out.update(rulings.selection(self.base_doc, {k: given.pop(k) for k in list(given)
                                                     if k in switchable}))
        for key, value in given.items():
            if key not in decl:
                where = (self.doc.where_key("options") if "options" in self.doc
                         else self.doc.where_key("game"))
                fail(f"unknown option '{key}'", where,
                     did_you_mean(key, list(decl) + list(switchable)) or
                     f"this game's options: {', '.join(list(decl) + list(switchable)) or 'none'}")
            choices = [plain(c) for c in decl[key].get("choices", [])]
            try:
                value = _convert(value, out[key], choices)
            except SpecError as e:
                at = "choices" if "choices" in decl[key] else "default"
                fail(f"option {key}: {e.message}", decl[key].where(at),
                     f"its values: {', '.join(map(str, choices))}" if choices else
                     f"its default is {out[key]}")
            if choices and value not in choices:
                fail(f"option {key}={value} is not one of {', '.join(map(str, choices))}",
                     decl[key].where("choices"), did_you_mean(str(value), map(str, choices)))
            out[key] = value
        if players is not None:
            for key, value in out.items():
                if key in switchable:
                    continue
                rng = decl[key].get("players", {}).get(value)
                if rng and not int(rng["min"]) <= players <= int(rng["max"]):
                    fail(f"option {key}={value} is for {rng['min']} to {rng['max']} players, "
                         f"not {players}", decl[key]["players"].where(value))
        # plain values (a scenario's are the YAML loader's text): a game's options are
        # saved with its states and logs, and read back as JSON's own types
        return {k: plain(v) for k, v in out.items()}

    def game(self, players: int | None = None, options: dict | None = None,
             trace: bool = False, cache: bool = True, recall: bool = False,
             strict: bool = False, views: bool = True) -> Game:
        """The game compiled for a player count and options (cached). With trace, its
        states count in `state.fired` how often each id'd step, option and rule was
        reached (an `if` step: when its condition held); untraced games pay nothing.
        cache=False compiles it without the facts cache (spec functions and groups
        computed at every use): the same games, slower; for checking the cache. With
        recall, its states keep every player's information state (the decisions made as
        each saw them: State.information_state), at the cost of an action string per
        decision. With strict, a mandatory choice with nothing legal and no `else:` is a
        rule error at the decision (docs/language.md 3.11); compiled in, so a game that
        is not strict pays nothing. With views (the default; views=False: without), a
        generator over a board's cells whose cells' conditions read pieces at fixed
        steps from the cell is kept up to date across moves (runtime/views.py): the same
        games, faster."""
        lo, hi = self.player_range
        players = lo if players is None else int(players)
        if not lo <= players <= hi:
            fail(f"{self.id} is for {lo} to {hi} players, not {players}",
                 self.doc["game"].where("players"))
        opts = self.options(options, players)
        key = (players, tuple(sorted(opts.items())), bool(trace), bool(cache), bool(strict),
               bool(views))
        game = self._games.get(key)
        if game is None:
            switchable = rulings.declared(self.base_doc)
            doc = self.doc_for({k: v for k, v in opts.items() if k in switchable})
            # game.options (a log's header, run's and diff's reports) names a ruling only
            # when a reading other than its default is played
            shown = {k: v for k, v in opts.items()
                     if k not in switchable or v != str(switchable[k]["default"])}
            prog = Compiler(doc, players, shown, str(self.path), trace=trace,
                            cache=cache, strict=strict, views=views).compile()
            game = self._games[key] = Game(prog, self)
        return Game(game.prog, self, recall=True) if recall else game

    def utility(self, game: Game) -> Utility | None:
        """game.utility for `game` (compiled from this spec), or None if the spec declares
        none: each value a number, or rule text evaluated for the game's options and
        player count (in a state where nothing has run). A value that is not a number,
        a min not below max, a sum the players' scores cannot make: a located error."""
        decl = self.doc["game"].get("utility")
        if not isinstance(decl, LMap):
            return None
        values: dict = {}
        blank = None
        for key in UTILITY_KEYS:
            if key not in decl:
                continue
            value = decl[key]
            if isinstance(value, str):
                if blank is None:
                    blank = game.blank_state()
                value = game.prog.compile_expression(value)(blank)
            if isinstance(value, bool) or not isinstance(value, numbers.Rational):
                fail(f"game.utility.{key} is a number, not {excerpt(value_text(value))}",
                     decl.where(key))
            values[key] = value
        _check_utility(decl, values, game.players)
        return Utility(values["min"], values["max"], values.get("sum"),
                       self.doc["game"].where_key("utility"))

    def validate(self) -> list:
        """Compile for every player count and every option choice: every rule is checked,
        and game.utility evaluated for each (Spec.utility).
        -> the games compiled (each once)."""
        lo, hi = self.player_range
        decl = self.doc.get("options", LMap())
        games = [self.game(lo)]
        for key, o in decl.items():
            for choice in o.get("choices", []):
                rng = o.get("players", {}).get(choice)
                n = int(rng["min"]) if rng else lo
                games.append(self.game(n, {str(key): plain(choice)}))
        for name, r in rulings.declared(self.base_doc).items():
            for reading in rulings.readings(r):
                games.append(self.game(lo, {str(name): reading}))
        if hi != lo:
            games.append(self.game(hi))
        games = list({id(g): g for g in games}.values())
        for g in games:
            self.utility(g)
        return games


def canonical_text(doc) -> str:
    """The resolved spec as canonical JSON: the same game gives the same hash, however
    it is split into variants and however it is formatted."""
    import json
    return json.dumps(_key_ordered(plain(doc)), separators=(",", ":"), default=str)


def _key_ordered(data):
    """Mappings with their keys in order (what json's sort_keys gives), also when a
    mapping mixes keys of different types ({1: a, x: b}, null): those are ordered by type
    name, then text, instead of failing to compare. Walked without recursion."""
    def order(m: dict) -> dict:
        items = list(m.items())
        try:
            items.sort(key=lambda kv: kv[0])
        except TypeError:
            items.sort(key=lambda kv: (type(kv[0]).__name__, str(kv[0])))
        return dict(items)

    root = [data]
    stack: list = [(root, 0)]
    while stack:
        holder, i = stack.pop()
        value = holder[i]
        if isinstance(value, dict):
            value = holder[i] = order(value)
            keys = list(value)
            stack.extend((value, k) for k in keys)
        elif isinstance(value, list):
            value = holder[i] = list(value)
            stack.extend((value, j) for j in range(len(value)))
    return root[0]


def _convert(value, default, choices):
    if not isinstance(value, str):
        return value
    sample = default if default is not None else (choices[0] if choices else None)
    if isinstance(sample, bool):
        if value.lower() in ("true", "yes", "1"):
            return True
        if value.lower() in ("false", "no", "0"):
            return False
        fail(f"'{value}' is not true or false")
    if isinstance(sample, int):
        try:
            return int(value)
        except ValueError:
            fail(f"'{value}' is not a number")
    return value


class SpecCache:
    """Loaded specs by file: a spec is loaded again when its file changes (its
    modification time or size), else the Spec loaded before is given back, with the games
    it compiled. Safe across threads: a lock makes two threads that load the same file
    at once share one load (the lock is per cache, and a load takes milliseconds). A
    Spec and its games hold no per-run state (the work budget is each compiled game's
    own, runtime/readers.work_budget), so sharing them is sharing read-only data."""

    def __init__(self):
        self._specs: dict = {}          # resolved path -> ((mtime, size), Spec)
        self._lock = threading.RLock()   # re-entrant: a load may load another spec

    def load(self, path: str | Path, where: Pos | None = None) -> Spec:
        p = resolve_spec_path(path)
        try:
            p = p.resolve()
            st = p.stat()
        except (OSError, RuntimeError, ValueError):
            return Spec(p, where)           # unreadable: Spec reports why, located
        version = (st.st_mtime_ns, st.st_size)
        with self._lock:
            cached = self._specs.get(p)
            if cached is not None and cached[0] == version:
                return cached[1]
            spec = Spec(p, where)
            self._specs[p] = (version, spec)
            return spec

    def clear(self) -> None:
        with self._lock:
            self._specs.clear()


SPECS = SpecCache()
"""The cache load_spec uses (a SpecCache of its own: SpecCache().load(path))."""


def load_spec(path: str | Path, where: Pos | None = None) -> Spec:
    """Load (once per file version: SPECS, a SpecCache) and check a spec. where: as for
    Spec."""
    return SPECS.load(path, where)


def load_game(path: str | Path, players: int | None = None, options: dict | None = None,
              recall: bool = False, strict: bool = False) -> Game:
    """The usual entry point: load_game('specs/GAME', players=3).new_state(seed=1).
    recall=True keeps information states (State.information_state); strict=True makes
    a mandatory choice with nothing legal a rule error (Spec.game)."""
    return load_spec(path).game(players, options, recall=recall, strict=strict)
