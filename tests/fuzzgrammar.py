"""Grammar-aware rule texts for the fuzz campaign (tests/fuzz.py, docs/fuzzing.md).

The rule language's grammar (grammar/tabula.lark) is read with Lark and walked: a
derivation starts at `statement`, `expr` or `bindings` (the grammar's three start
symbols) and, at each nonterminal, takes one of the grammar's own productions, the
keywords and punctuation of the production coming from the grammar, to a bounded depth.
What the grammar cannot say (which names exist, what type a production gives) comes from
the target spec, asked of the compiler itself (Env: every name the spec declares, typed
by compiling it against the spec):

- typed derivations (most inputs): each production is taken only where its type fits
  (a condition where a condition is wanted, a container where a move goes, the
  arguments a builtin or a spec function takes, a generator's variable bound to the
  items of what it walks), so that most generated texts pass the compiler and reach the
  engine's deep paths;
- hostile derivations (one input in five): any production anywhere, any name the spec
  declares in any place, fresh and unknown names now and then.

`Rewriter` inserts generated steps (statements, `if`, `for`, `choose`, `repeat`,
`while`) into a spec's step lists, and replaces conditions, counts, values, statements,
the players of decisions and the bindings of `for` and `choose` with generated ones, each
with the locals in scope where it goes (a `for`'s variable, a rule's parameters, `player`
in scoring: typed by compiling them too). The spec is read and written back as YAML (the
shipped specs round-trip to the same hash).
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "grammar" / "tabula.lark"

# ---- types (lang/types.py's tuples) and what a derivation is asked for ----------------------
INT, NUM, BOOL, STR = ("int",), ("num",), ("bool",), ("str",)
PIECE, PLAYER, NONE, ANY = ("piece",), ("player",), ("none",), ("any",)
SLOT = ("slot", None)            # any container
ZONE = ("zone", None)            # any zone of several slots
CONTAINER = ("container",)       # a container or a zone
STMT = ("stmt",)                 # a statement
DEST = ("dest",)                 # where a move goes
BINDS = ("binds",)               # `x in E, y in F [while C] [where C]`


def lst(t):
    return ("list", t)


def fits(have, want) -> bool:
    """Is a value of type `have` what `want` asks for (strictly: what compiles there)?"""
    if want == ANY:
        return True
    if have is None or have == ANY:
        return False
    k = want[0]
    if k == "int":
        return have[0] in ("int", "player")
    if k == "num":
        return have[0] in ("int", "num", "player")
    if k == "bool":
        return have == BOOL
    if k == "str":
        return have[0] in ("str", "enum")
    if k == "container":
        return have[0] in ("slot", "zone")
    if k in ("slot", "zone"):
        return have[0] == k and (want[1] is None or have[1] is want[1])
    if k == "list":
        return have[0] == "list" and (want[1] == ANY or fits(have[1], want[1]))
    if k in ("map", "counts"):
        return have[0] in ("map", "counts") and (len(want) == 1 or have == want)
    return have == want


def elem(t):
    """What walking a value of type t gives."""
    if t[0] == "list":
        return t[1]
    if t[0] in ("slot", "zone"):
        return PIECE
    if t[0] in ("map", "counts"):
        return t[1]
    if t[0] == "enumtype":
        return ("enum", t[1])
    return ANY


def key_of(t) -> tuple:
    """A hashable key of a type (zone types hold their ZoneInfo: by identity)."""
    return tuple(id(x) if not isinstance(x, (str, tuple, type(None))) else
                 (key_of(x) if isinstance(x, tuple) else x) for x in t)


# ---- the grammar -------------------------------------------------------------------------------

class Grammar:
    """grammar/tabula.lark as Lark compiles it: every nonterminal's productions, the text
    of every keyword, the alternatives of the operator terminals, and for each
    nonterminal the productions it reaches through unit rules (`expr` reaches `or_`,
    `compare`, `arith`, `attr`, `name`, ...; `product` reaches no `or_`: precedence is
    the grammar's)."""

    _loaded = None

    def __init__(self, path: Path = GRAMMAR):
        from lark import Lark
        from lark.lexer import PatternStr
        text = path.read_text(encoding="utf-8")
        lark = Lark(text, start=["start_statement", "start_expression", "start_bindings"],
                    parser="lalr", maybe_placeholders=True)
        self.rules: dict = {}
        for r in lark.rules:
            self.rules.setdefault(r.origin.name, []).append(r)
        self.literal: dict = {}       # keyword / punctuation terminal -> its text
        self.choices: dict = {}       # operator terminal -> its alternatives
        for t in lark.terminals:
            if isinstance(t.pattern, PatternStr):
                self.literal[t.name] = t.pattern.value
            elif t.name.endswith("_OP"):
                body = t.pattern.value
                body = body[3:-1] if body.startswith("(?:") else body
                self.choices[t.name] = [re.sub(r"\\(.)", r"\1", a) for a in body.split("|")]
        self.reach: dict = {}
        for name in self.rules:
            self.reach[name] = self._reach(name)

    @classmethod
    def load(cls) -> Grammar:
        if cls._loaded is None:
            cls._loaded = cls()
        return cls._loaded

    @staticmethod
    def unit(rule) -> bool:
        """A chain rule (`?expr: or_expr`): one nonterminal, no alias."""
        return (rule.alias is None and len(rule.expansion) == 1
                and not rule.expansion[0].is_term and not rule.origin.name.startswith("__")
                and rule.origin.name not in ("start_statement", "start_expression",
                                             "start_bindings"))

    def _reach(self, name: str) -> list:
        out, seen, todo = [], {name}, [name]
        while todo:
            n = todo.pop()
            for r in self.rules.get(n, []):
                if self.unit(r):
                    sub = r.expansion[0].name
                    if sub not in seen:
                        seen.add(sub)
                        todo.append(sub)
                else:
                    out.append(r)
        return out

    @staticmethod
    def key(rule) -> str:
        """What a production is: its alias (`compare`, `func`, ...), else its nonterminal
        (`atom` is the parenthesised expression, `bindings`, `generator`, ...)."""
        return rule.alias or rule.origin.name


# ---- the spec's names, typed by the compiler ------------------------------------------------

class Env:
    """The names a spec declares, each with its type as the compiler gives it (the spec
    compiled for its smallest player count and default options): variables, zones, data,
    enums, `current`, `players`, per-player zones and variables (`p.NAME`), piece
    attributes, options, spec functions (their parameters' types found by compiling calls)
    and rules (their parameters' types, as the compiler recorded them); `rep(t)` is an
    expression of type t, with which a local is typed in an expression compiled alone."""

    def __init__(self, path: Path):
        from tabula_rules.compiler.driver import Compiler
        from tabula_rules.lang import rulings
        from tabula_rules.spec import Spec
        spec = Spec(path)
        lo, _ = spec.player_range
        opts = spec.options(None, lo)
        switchable = rulings.declared(spec.base_doc)
        doc = spec.doc_for({k: v for k, v in opts.items() if k in switchable})
        shown = {k: v for k, v in opts.items()
                 if k not in switchable or v != str(switchable[k]["default"])}
        self.compiler = Compiler(doc, lo, shown, str(spec.path))
        self.prog = prog = self.compiler.compile()
        self.spec = spec
        self._types: dict = {}
        d = spec.doc
        self.atoms: list = []          # (text, type) of names read alone
        self.pattrs: list = []         # (name, type) of p.NAME
        self.assignable: list = []     # (text pattern, type): NAME, or {p}.NAME
        for name, v in d.get("variables", {}).items():
            per = isinstance(v, dict) and v.get("per_player")
            t = self.type_of(f"current.{name}" if per else str(name))
            if t:
                (self.pattrs if per else self.atoms).append((str(name), t))
                self.assignable.append(("{p}." + str(name) if per else str(name), t))
        for name, z in d.get("zones", {}).items():
            per = isinstance(z, dict) and z.get("per_player")
            t = self.type_of(f"current.{name}" if per else str(name))
            if t:
                (self.pattrs if per else self.atoms).append((str(name), t))
        for name in d.get("data", {}):
            t = self.type_of(str(name))
            if t:
                self.atoms.append((str(name), t))
        self.enum_values: list = []
        for name, values in d.get("enums", {}).items():
            self.atoms.append((str(name), ("enumtype", str(name))))
            for v in values:
                self.atoms.append((str(v), ("enum", str(name))))
                self.enum_values.append(str(v))
        self.atoms += [("current", PLAYER), ("players", lst(PLAYER))]
        self.piece_attrs = [(a, t) for a, t in prog.attr_types.items()]
        self.changeable = [(a, t) for a, t in prog.attr_types.items() if a in prog.changeable]
        self.options = []
        for name in d.get("options", {}):
            t = self.type_of(f"option.{name}")
            if t:
                self.options.append((str(name), t))
        self.zones = [z for z in prog.zones.values()]
        self.grids = [z for z in self.zones if z.nslots > 1 and not z.per_player]
        self.decision_ids = sorted(_decision_ids(d))
        self.rules = {name: [tuple(t) for t in proc.param_types]
                      for name, proc in prog.procs.items()}
        # expressions of each type, to type locals by
        self.reps: dict = {}
        catalog = [("0", INT), ("true", BOOL), ("'x'", STR), ("none", NONE)]
        catalog += self.atoms + [(f"current.{n}", t) for n, t in self.pattrs]
        catalog += [(f"option.{n}", t) for n, t in self.options]
        more = []
        for text, t in catalog:
            if t[0] in ("slot", "zone", "list", "map", "counts") and t != lst(ANY):
                e = self.type_of(f"first(list(fz_r for fz_r in ({text})))")
                if e:
                    more.append((f"first(list(fz_r for fz_r in ({text})))", e))
            if t[0] == "zone":
                s = self.type_of(f"{text}[0]")
                if s:
                    more.append((f"{text}[0]", s))
        for text, t in catalog + more:
            self.reps.setdefault(key_of(t), text)
        self.types = [t for _, t in catalog + more]
        self.iterables = []
        seen = set()
        for t in self.types + [lst(INT), lst(PLAYER)]:
            if t[0] in ("slot", "zone", "list", "map", "counts", "enumtype") \
                    and key_of(t) not in seen and elem(t) not in (ANY, NONE) \
                    and elem(t)[0] != "list":
                seen.add(key_of(t))
                self.iterables.append(t)
        self.functions = self._functions(d.get("functions", {}))

    def type_of(self, text: str):
        """The type the compiler gives `text` (an expression compiled alone), or None if
        it does not compile."""
        from tabula_rules.errors import TabulaError
        if text not in self._types:
            try:
                self._types[text] = tuple(self.compiler.expression(text)[1])
            except (TabulaError, RecursionError):
                self._types[text] = None
        return self._types[text]

    def rep(self, t):
        return self.reps.get(key_of(t))

    def wrap(self, scope, text: str) -> str:
        """`text` with the locals of `scope` bound to expressions of their types (so that
        it compiles alone, as it would where it stands)."""
        lets, seen = [], set()
        for name, t in reversed(scope):
            if name in seen:
                continue
            seen.add(name)
            r = self.rep(t) if t is not None else None
            if r is not None:
                lets.append(f"{name} = ({r})")
        return f"let {', '.join(reversed(lets))} in ({text})" if lets else text

    def typed(self, scope, text: str):
        return self.type_of(self.wrap(scope, text))

    def _functions(self, decl) -> list:
        """(name, [parameter types], result type) of each spec function, its parameters'
        types found by compiling a call with candidate arguments (at most 60 tries)."""
        out = []
        cands, seen = [], set()
        for t in [INT, PLAYER, PIECE, STR, BOOL] + self.types:
            r = self.rep(t)
            if r is not None and key_of(t) not in seen:
                seen.add(key_of(t))
                cands.append((r, t))
        cands = cands[:12]
        for name, f in decl.items():
            params = f.get("params", []) if isinstance(f, dict) else []
            if not params:
                t = self.type_of(f"{name}()")
                if t:
                    out.append((str(name), [], t))
                continue
            for combo in itertools.islice(itertools.product(cands, repeat=len(params)), 60):
                t = self.type_of(f"{name}({', '.join(f'({r})' for r, _ in combo)})")
                if t:
                    out.append((str(name), [ct for _, ct in combo], t))
                    break
        return out


def _decision_ids(doc) -> set:
    """The ids of the steps that are decisions (what can_choose names)."""
    out: set = set()
    todo = [doc.get("setup", []), doc.get("play", []), list(doc.get("rules", {}).values())]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if ("choose" in x or "choose_one" in x) and isinstance(x.get("id"), str):
                out.add(x["id"])
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return out


# ---- derivations -----------------------------------------------------------------------------

DIRECTIONS = ["'n'", "'ne'", "'e'", "'se'", "'s'", "'sw'", "'w'", "'nw'"]
LEAVES = {"name", "int_", "string", "none", "true", "false"}
STRUCTURE = {"bindings", "binding", "generator", "args", "let_values", "let_value", "lets",
             "let_binding", "effects", "rule_name"}
RARE = {"after", "let_in", "region", "path", "slice", "index2", "not_in"}
AGGREGATES = ("sum", "count", "max", "min", "any", "all", "list", "first", "tally")
WORDS = ["x", "nope", "deck", "hand", "current", "player", "players", "option", "size",
         "self", "move", "to", "in", "Sun", "none", "p", "c", "k", "_"]


class Deriver:
    """Derivations of the grammar for one spec (Env), typed or hostile (see the module's
    docstring). `derive(symbol, want, depth, scope)` gives the text; names bound by a
    `let`, a binding or a generator are collected in `bound`."""

    def __init__(self, env: Env, rng: random.Random, typed: bool = True, depth: int = 4):
        self.g = Grammar.load()
        self.env = env
        self.rng = rng
        self.typed = typed
        self.limit = depth
        self.fresh_n = 0
        self.bound: list = []
        self.trying = False         # inside `after`: nothing that draws or ends the game
        self.used: set = set()      # the productions taken (Grammar.key)

    # -- the walk
    def derive(self, sym: str, want, depth: int, scope) -> str:
        if want[0] == "lit":
            return want[1]
        rules = self.g.reach[sym]
        rng = self.rng
        weighted = []
        for r in rules:
            k = Grammar.key(r)
            if depth > self.limit + 3 and k not in LEAVES and k not in STRUCTURE \
                    and want not in (STMT, DEST, BINDS):
                continue
            w = 1.0
            if k in LEAVES:
                w = 1.0 + 2 * max(0, depth - 1)
            elif depth >= self.limit:
                w = 0.15
            if k in RARE:
                w *= 0.3
            weighted.append((rng.random() ** (1.0 / w), r))
        weighted.sort(key=lambda x: -x[0])
        for _, r in weighted:
            out = self.production(r, want, depth + 1, scope)
            if out is not None:
                return out
        return self.fallback(want)

    def production(self, rule, want, depth, scope):
        k = Grammar.key(rule)
        if not self.typed:
            return self.untyped(rule, depth, scope)
        plan = getattr(self, "p_" + k, None)
        if plan is None:
            return None
        parts = plan(rule, want, depth, scope)
        if parts is None:
            return None
        self.used.add(k)
        return self.emit(rule, parts)

    def emit(self, rule, parts: list) -> str:
        """The production's text: its keywords from the grammar, `parts` in the places of
        its nonterminals and its other terminals, in order."""
        out, it = [], iter(parts)
        for s in rule.expansion:
            if s.is_term and s.name in self.g.literal:
                out.append(self.g.literal[s.name])
            else:
                out.append(next(it))
        return join(out)

    def nts(self, rule) -> list:
        return [s.name for s in rule.expansion if not s.is_term]

    def fresh(self) -> str:
        self.fresh_n += 1
        return f"fz{self.fresh_n}"

    def fallback(self, want) -> str:
        if want == ANY:
            return self.rng.choice(["0", "none", "true", "current"])
        r = self.env.rep(want) if want[0] not in ("stmt", "dest", "binds") else None
        if r is not None:
            return f"({r})"
        for text, t in self.env.atoms:
            if fits(t, want):
                return text
        if want == STMT:
            names = [n for n, t in self.env.assignable if "{" not in n]
            return f"{names[0]} = {names[0]}" if names else "end game"
        return {"int": "0", "num": "0", "bool": "true", "str": "'x'", "list": "[]",
                "player": "current"}.get(want[0], "none")

    # -- hostile: any production, any name
    def untyped(self, rule, depth, scope):
        self.used.add(Grammar.key(rule))
        parts = []
        for s in rule.expansion:
            if s.is_term:
                if s.name in self.g.literal:
                    continue
                parts.append(self.terminal_any(s.name, scope))
            elif s.name.startswith("__"):            # a repetition: one or two more
                parts.append(self.derive_seq_any(s.name, depth, scope))
            else:
                parts.append(self.derive(s.name, ANY, depth, scope))
        return self.emit(rule, parts)

    def derive_seq_any(self, sym, depth, scope):
        rules = self.g.rules[sym]
        r = min(rules, key=lambda r: len(r.expansion)) if depth > self.limit or \
            self.rng.random() < 0.7 else max(rules, key=lambda r: len(r.expansion))
        return self.untyped(r, depth + 1, scope)

    def terminal_any(self, name, scope) -> str:
        rng = self.rng
        if name in self.g.choices:
            return rng.choice(self.g.choices[name])
        if name == "INT":
            return rng.choice(["0", "1", "2", "7", "99", "100000", "9" * 18])
        if name == "STRING":
            return rng.choice(["'x'", "''", '"sun"', "'ne'", "'turn'"] +
                              [f"'{v}'" for v in self.env.enum_values[:4]])
        pool = [n for n, _ in scope] + [n for n, _ in self.env.atoms] + \
            [n for n, _ in self.env.pattrs] + [a for a, _ in self.env.piece_attrs] + \
            [n for n, _, _ in self.env.functions] + list(self.env.rules) + \
            ["size", "top", "range", "first", "sum", "count", "cells", "group", "reaches",
             "option"]
        if rng.random() < 0.1:
            return rng.choice(WORDS)
        if rng.random() < 0.1:
            return self.fresh()
        return rng.choice(pool)

    # -- sequences (args, let_values, lets, effects, bindings' repetitions)
    def seq(self, sym: str, items: list, depth: int, scope, item) -> str:
        """The nonterminal `sym` of the grammar (a list: `args`, `effects`, ... or its
        repetition `__args_star_2`) holding len(items) items, each made by
        item(symbol, its want, scope so far)."""
        rules = self.g.rules[sym]
        one = [r for r in rules if len(self.nts(r)) == 1]
        two = [r for r in rules if len(self.nts(r)) == 2]
        rule = one[0] if len(items) == 1 or not two else two[0]
        kids = self.nts(rule)
        parts = []
        if len(kids) == 2 and (kids[0] == sym or kids[0].startswith("__")):
            parts.append(self.seq(kids[0], items[:-1], depth, scope, item))
            parts.append(item(kids[1], items[-1], scope + tuple(self.bound)))
        elif len(kids) == 2:
            parts.append(item(kids[0], items[0], scope))
            parts.append(self.seq(kids[1], items[1:], depth, scope, item))
        else:
            parts.append(item(kids[0], items[-1], scope + tuple(self.bound)))
        out = []
        it = iter(parts)
        for s in rule.expansion:
            out.append(self.g.literal[s.name] if s.is_term and s.name in self.g.literal
                       else next(it))
        return join(out)

    def args(self, wants: list, depth: int, scope) -> str:
        return self.seq("args", wants, depth, scope,
                        lambda sym, w, sc: self.derive(sym, w, depth, sc))

    def pick_rule(self, rule_list, pred):
        found = [r for r in rule_list if pred(r)]
        return self.rng.choice(found) if found else None

    # -- names
    def names(self, want, scope) -> list:
        out, seen = [], set()
        for name, t in reversed(scope):
            if name in seen:
                continue
            seen.add(name)
            if t is not None and fits(t, want):
                out.append(name)
        out += [n for n, t in self.env.atoms if n not in seen and fits(t, want)
                and (t[0] != "enumtype" or want[0] == "enumtype")]
        return out

    def itype(self, scope):
        """A type to walk (its items bind a variable): a container, a zone, a list, a
        table, from what the spec has."""
        rng = self.rng
        if rng.random() < 0.3:
            return rng.choice([SLOT, SLOT, ZONE, lst(INT), lst(PLAYER)])
        local = [t for _, t in scope if t is not None and t[0] in ("list", "slot", "zone")
                 and elem(t) != ANY]
        return rng.choice(self.env.iterables + local)

    def value_type(self):
        """A type for a new local (a let): mostly numbers and players."""
        return self.rng.choice([INT, INT, INT, PLAYER, BOOL, PIECE, SLOT, lst(INT)])

    # -- expressions
    def p_name(self, rule, want, d, sc):
        if want == ANY:
            pool = [n for n, _ in sc] + [n for n, _ in self.env.atoms]
            return [self.rng.choice(pool)]
        found = self.names(want, sc)
        return [self.rng.choice(found)] if found else None

    def p_int_(self, rule, want, d, sc):
        if want not in (INT, NUM, ANY):
            return None
        return [str(self.rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 7, 10, 100]))]

    def p_string(self, rule, want, d, sc):
        if want == STR or want == ANY:
            vals = self.env.enum_values or ["x"]
            return [f"'{self.rng.choice(vals + ['x', ''])}'"]
        if want[0] == "enum" and self.rng.random() < 0.3:
            vals = [n for n, t in self.env.atoms if t == want]
            return [f"'{self.rng.choice(vals)}'"] if vals else None
        return None

    def p_none(self, rule, want, d, sc):
        return [] if want in (NONE, ANY) or want == PIECE and self.rng.random() < 0.05 \
            else None

    def p_true(self, rule, want, d, sc):
        return [] if want in (BOOL, ANY) else None

    p_false = p_true

    def p_atom(self, rule, want, d, sc):            # ( expr )
        if want[0] in ("stmt", "dest", "binds"):
            return None
        return [self.derive("expr", want, d, sc)]

    def p_list_(self, rule, want, d, sc):
        if want[0] != "list":
            return None
        n = len(self.nts(rule))
        if n == 0:
            return [] if self.rng.random() < 0.3 else None
        item = want[1] if want[1] != ANY else INT
        k = self.rng.choice([1, 1, 2, 3])
        return [self.args([item] * k, d, sc)]

    def p_listcomp(self, rule, want, d, sc):
        if want[0] != "list":
            return None
        item = want[1] if want[1] != ANY else INT
        return [self.generator(item, d, sc)]

    def p_cond(self, rule, want, d, sc):
        if want[0] in ("stmt", "dest", "binds"):
            return None
        return [self.derive("expr", BOOL, d, sc), self.derive("expr", want, d, sc),
                self.derive("expr", want, d, sc)]

    def p_let_in(self, rule, want, d, sc):
        if want[0] in ("stmt", "dest", "binds"):
            return None
        k = self.rng.choice([1, 1, 2])
        mark = len(self.bound)
        lets = self.seq("let_values", [None] * k, d, sc, self._let_value)
        inner = sc + tuple(self.bound[mark:])
        del self.bound[mark:]
        return [lets, self.derive("expr", want, d, inner)]

    def _let_value(self, sym, _, sc):
        t = self.value_type()
        value = self.derive("sum", t, self.limit, sc)
        name = self.fresh()
        self.bound.append((name, t))
        return self.emit(self.g.rules[sym][0], [name, value])

    def p_after(self, rule, want, d, sc):
        if want[0] in ("stmt", "dest", "binds"):
            return None
        effects = self.effects(self.rng.choice([1, 1, 2]), d, sc)
        return [effects, self.derive("expr", want, d, sc)]

    def effects(self, k, d, sc) -> str:
        """The statements `after` tries (on a copy: no chance, no end of the game)."""
        mark = len(self.bound)
        trying, self.trying = self.trying, True
        out = self.seq("effects", [STMT] * k, d, sc,
                       lambda sym, w, s: self.derive(sym, w, d, s))
        self.trying = trying
        del self.bound[mark:]
        return out

    def p_or_(self, rule, want, d, sc):
        if want not in (BOOL, ANY):
            return None
        return [self.derive(k, BOOL, d, sc) for k in self.nts(rule)]

    p_and_ = p_or_
    p_not_ = p_or_

    def p_compare(self, rule, want, d, sc):
        if want not in (BOOL, ANY):
            return None
        kinds = [INT, INT, INT, PLAYER, PIECE] + [t for t in self.env.types if t[0] == "enum"]
        t = self.rng.choice(kinds)
        ops = self.g.choices["COMP_OP"] if t in (INT, PLAYER) else ["==", "!="]
        a, b = self.nts(rule)
        right = "none" if t == PIECE and self.rng.random() < 0.4 else self.derive(b, t, d, sc)
        return [self.derive(a, t, d, sc), self.rng.choice(ops), right]

    def p_in_(self, rule, want, d, sc):
        if want not in (BOOL, ANY):
            return None
        it = self.itype(sc)
        a, b = self.nts(rule)
        return [self.derive(a, elem(it), d, sc), self.derive(b, it, d, sc)]

    p_not_in = p_in_

    def p_arith(self, rule, want, d, sc):
        if want not in (INT, NUM, ANY):
            return None
        op = "ADD_OP" if any(s.name == "ADD_OP" for s in rule.expansion) else "MUL_OP"
        ops = [o for o in self.g.choices[op] if o != "/" or want != INT]
        a, b = self.nts(rule)
        return [self.derive(a, INT, d, sc), self.rng.choice(ops), self.derive(b, INT, d, sc)]

    def p_neg(self, rule, want, d, sc):
        if want not in (INT, NUM, ANY):
            return None
        return [self.derive(self.nts(rule)[0], INT, d, sc)]

    def p_attr(self, rule, want, d, sc):
        if want[0] in ("stmt", "dest", "binds"):
            return None
        env = self.env
        cands = [("player", n) for n, t in env.pattrs if fits(t, want)]
        cands += [("piece", n) for n, t in env.piece_attrs if fits(t, want)]
        cands += [("option", n) for n, t in env.options if fits(t, want)]
        if not cands:
            return None
        base, name = self.rng.choice(cands)
        if base == "option":
            return ["option", name]
        return [self.derive("postfix", PLAYER if base == "player" else PIECE, d, sc), name]

    def p_index(self, rule, want, d, sc):
        if want[0] in ("stmt", "dest", "binds", "enumtype"):
            return None
        env = self.env
        if want[0] == "slot" and self.rng.random() < 0.7:
            zones = [t for t in env.types if t[0] == "zone"
                     and (want[1] is None or t[1] is want[1])]
            if zones:
                return [self.derive("postfix", self.rng.choice(zones), d, sc),
                        self.derive("expr", INT, d, sc)]
        maps = [t for t in env.types if t[0] in ("map", "counts") and fits(t[2], want)]
        if maps and self.rng.random() < 0.6:
            t = self.rng.choice(maps)
            return [self.derive("postfix", t, d, sc), self.derive("expr", t[1], d, sc)]
        if want == ANY:
            return None
        return [self.derive("postfix", lst(want), d, sc), self.derive("expr", INT, d, sc)]

    def p_index2(self, rule, want, d, sc):
        grids = [z for z in self.env.grids if z.kind == "grid"]
        if want[0] != "slot" or not grids:
            return None
        z = self.rng.choice([g for g in grids if want[1] is None or g is want[1]] or [None])
        if z is None:
            return None
        return [self.derive("postfix", ("zone", z), d, sc), self.derive("expr", INT, d, sc),
                self.derive("expr", INT, d, sc)]

    def p_slice(self, rule, want, d, sc):
        if want[0] != "list":
            return None
        kids = self.nts(rule)
        parts = [self.derive("postfix", want if want[1] != ANY else lst(INT), d, sc)]
        parts += [self.derive("expr", INT, d, sc) for _ in kids[1:]]
        return parts

    def _cell(self, sc):
        if not self.env.grids:
            return None, None
        z = self.rng.choice(self.env.grids)
        return z, ("slot", z)

    def p_region(self, rule, want, d, sc):          # group(c from s where COND)
        z, cell = self._cell(sc)
        if z is None or not fits(lst(cell), want):
            return None
        name = self.fresh()
        inner = sc + ((name, cell),)
        return [self.rng.choice(["group", "group_around"]), name,
                self.derive("expr", cell, d, sc), self.derive("expr", BOOL, d, inner)]

    def p_path(self, rule, want, d, sc):            # reaches(c from s to GOAL where COND)
        z, cell = self._cell(sc)
        if z is None:
            return None
        kinds = [(f, t) for f, t in (("reaches", BOOL), ("distance_to", INT),
                                     ("path_to", lst(cell))) if fits(t, want)]
        if not kinds:
            return None
        f, _ = self.rng.choice(kinds)
        f += self.rng.choice(["", "", "_around"])
        step = any(s.name == "STEP" for s in rule.expansion)
        a = self.fresh()
        if step:
            b = self.fresh()
            inner = sc + ((a, cell), (b, cell))
            return [f, a, b, self.derive("expr", cell, d, sc),
                    self.derive("expr", BOOL, d, inner), self.derive("expr", BOOL, d, inner)]
        inner = sc + ((a, cell),)
        return [f, a, self.derive("expr", cell, d, sc), self.derive("expr", BOOL, d, inner),
                self.derive("expr", BOOL, d, inner)]

    def builtins(self, want) -> list:
        """(name, [argument wants]) of the builtins that give `want`."""
        out = []
        rng = self.rng
        env = self.env

        def add(name, args, res):
            if fits(res, want) or want == ANY:
                out.append((name, args))
        add("size", [rng.choice([CONTAINER, lst(ANY)])], INT)
        capped = [t for t in env.types if t[0] in ("slot", "zone")
                  and all(c is not None for c in t[1].caps)]
        if capped:
            add("capacity", [rng.choice([t for t in capped if t[0] == "slot"] or [SLOT])], INT)
            add("full", [rng.choice(capped)], BOOL)
        for f in ("top", "bottom"):
            add(f, [SLOT], PIECE)
            add(f, [SLOT, INT], lst(PIECE))
        add("first", [SLOT], PIECE)
        if want not in (ANY, NONE) and want[0] != "container" and want[1:2] != (None,):
            add("first", [lst(want)], want)
            if want[0] == "list" and want[1] != ANY:
                add("sorted", [want], want)
                if want[1][0] == "list" and want[1][1] != ANY:
                    add("combinations", [want[1], INT], want)
        for f in ("slots", "open_slots", "levels"):
            add(f, [ZONE], lst(INT))
        add("row", [ZONE, INT], lst(PIECE))
        for f in ("column", "level"):
            add(f, [PIECE], INT)
        add("under", [PIECE], lst(PIECE))
        for f in ("below", "above", "left", "right"):
            add(f, [PIECE], PIECE)
        for t in env.types:
            if t[0] == "enumtype":
                add("values", [t], lst(("enum", t[1])))
            if t[0] in ("map", "counts"):
                add("keys", [t], lst(t[1]))
                add("leaders", [t], lst(t[1]))
                add("values", [t], lst(t[2]))
        for f in ("rank", "dense_rank"):
            add(f, [INT, lst(INT)], INT)
        add("next_player", [PLAYER], PLAYER)
        add("players_after", [PLAYER], lst(PLAYER))
        add("text", [rng.choice([INT, PLAYER, PIECE, STR])], STR)
        add("join", [lst(INT), ("lit", rng.choice(["', '", "'/'", "''"]))], STR)
        add("abs", [INT], INT)
        add("range", [INT, INT], lst(INT))
        for f in ("max", "min"):
            add(f, [INT, INT], INT)
        if env.decision_ids:
            add("can_choose", [("lit", f"'{rng.choice(env.decision_ids)}'"), PLAYER], BOOL)
        for z in env.grids:
            cell, zone = ("slot", z), ("zone", z)
            add("cells", [zone], lst(cell))
            for f in ("x", "y"):
                add(f, [cell], INT)
            add("cell", [PIECE], cell)
            for f in ("adjacent", "around"):
                add(f, [cell], lst(cell))
            for f in ("distance", "orthogonal_distance"):
                add(f, [cell, cell], INT)
            for f in ("on_edge", "corner"):
                add(f, [cell], BOOL)
            for f in ("directions", "orthogonal", "diagonal"):
                add(f, [zone], lst(STR))
            direction = ("lit", rng.choice(DIRECTIONS))
            add("opposite", [direction], STR)
            add("neighbour", [cell, direction], cell)
            add("ray", [cell, direction], lst(cell))
            add("at", [zone, INT, INT], cell)
        for name, params, res in env.functions:
            add(name, list(params), res)
        return out

    def p_func(self, rule, want, d, sc):
        if want[0] in ("stmt", "dest", "binds"):
            return None
        empty = len(self.nts(rule)) == 0
        cands = [(n, a) for n, a in self.builtins(want) if (len(a) == 0) == empty]
        if not cands:
            return None
        name, args = self.rng.choice(cands)
        return [name] if empty else [name, self.args(args, d, sc)]

    def p_aggregate(self, rule, want, d, sc):
        if want[0] in ("stmt", "dest", "binds"):
            return None
        default = len(self.nts(rule)) == 2
        cands = []
        if fits(INT, want):
            cands += [("sum", INT), ("count", None), ("max", INT), ("min", INT)]
        if want in (BOOL, ANY):
            cands += [("any", BOOL), ("all", BOOL)]
        if want[0] == "list" and want[1] != ANY:
            cands.append(("list", want[1]))
        if want not in (ANY, BOOL) and want[0] in ("int", "player", "piece", "enum", "str"):
            cands.append(("first", want))
        if default:
            cands = [c for c in cands if c[0] in ("max", "min")]
        if not cands:
            return None
        name, item = self.rng.choice(cands)
        # `max(x for x in s let y = 1, 0)`: the grammar derives it, but the parser (LALR)
        # reads `, 0` as another let: a generator before a default takes no let
        gen = self.generator(item, d, sc, lets=not default)
        return [name, gen, self.derive("expr", INT, d, sc)] if default else [name, gen]

    def generator(self, item, d, sc, lets: bool = True) -> str:
        """`E for x in S [while C] [where C] [let y = F]`: x bound to S's items, E of type
        `item` (None: the variable itself, as count() takes it)."""
        rng = self.rng
        rules = [r for r in self.g.rules["generator"]
                 if lets or "LET" not in [s.name for s in r.expansion]]
        rule = self.pick_rule(rules, lambda r: len(r.expansion) <= 7) if rng.random() < 0.6 \
            else rng.choice(rules)
        syms = [s.name for s in rule.expansion]
        it = self.itype(sc)
        name = self.fresh()
        inner = sc + ((name, elem(it)),)
        source = self.derive("or_expr", it, d, sc)
        parts = {"source": source}
        if "WHILE" in syms:
            parts["while"] = self.derive("expr", BOOL, d, inner)
        if "WHERE" in syms:
            parts["where"] = self.derive("expr", BOOL, d, inner)
        if "LET" in syms:
            k = rng.choice([1, 1, 2])
            mark = len(self.bound)
            parts["lets"] = self.seq("lets", [None] * k, d, inner, self._let_binding)
            inner = inner + tuple(self.bound[mark:])
            del self.bound[mark:]
        value = name if item is None else self.derive("expr", item, d, inner)
        out = [value, name, parts["source"]]
        out += [parts[k] for k in ("while", "where", "lets") if k in parts]
        return self.emit(rule, out)

    def _let_binding(self, sym, _, sc):
        t = self.value_type()
        value = self.derive("or_expr", t, self.limit, sc)
        name = self.fresh()
        self.bound.append((name, t))
        return self.emit(self.g.rules[sym][0], [name, value])

    # -- statements
    def p_move(self, rule, want, d, sc):
        if want != STMT:
            return None
        if self.trying and any(s.name == "SHUFFLED" for s in rule.expansion):
            return None
        src = self.rng.choice([PIECE, PIECE, lst(PIECE), SLOT])
        parts = [self.derive("expr", src, d, sc), self.derive("dest", DEST, d, sc)]
        return parts

    def p_dest_top(self, rule, want, d, sc):
        return [self.derive("expr", SLOT, d, sc)] if want == DEST else None

    p_dest_bottom = p_dest_top

    def p_swap(self, rule, want, d, sc):
        if want != STMT:
            return None
        return [self.derive("expr", PIECE, d, sc), self.derive("expr", PIECE, d, sc)]

    def p_shuffle(self, rule, want, d, sc):
        return [self.derive("expr", SLOT, d, sc)] if want == STMT and not self.trying else None

    def p_refill(self, rule, want, d, sc):
        if want != STMT:
            return None
        capped = [("slot", z) for z in self.env.zones if any(c is not None for c in z.caps)
                  and z.nslots == 1]
        target = self.rng.choice(capped) if capped and self.rng.random() < 0.8 else SLOT
        return [self.derive("expr", target, d, sc), self.derive("expr", SLOT, d, sc)]

    def p_end_game(self, rule, want, d, sc):
        return [] if want == STMT and not self.trying and self.rng.random() < 0.1 else None

    def p_call(self, rule, want, d, sc):
        if want != STMT or not self.env.rules or self.trying:
            return None
        name = self.rng.choice(sorted(self.env.rules))
        params = self.env.rules[name]
        kids = self.nts(rule)
        if params and kids != ["rule_name", "args"]:
            return None
        if not params and kids == ["rule_name", "args"]:
            return None
        rn = self.emit(self.pick_rule(self.g.rules["rule_name"],
                                      lambda r: len(r.expansion) == 1), [name])
        return [rn, self.args(params, d, sc)] if params else [rn]

    def p_let(self, rule, want, d, sc):
        if want != STMT or self.trying:
            return None
        t = self.value_type()
        name = self.fresh()
        value = self.derive("expr", t, d, sc)
        self.bound.append((name, t))
        return [name, value]

    def p_next_turn(self, rule, want, d, sc):
        if want != STMT or self.rng.random() < 0.5:
            return None
        return [self.derive("expr", PLAYER, d, sc)]

    def p_assign(self, rule, want, d, sc):
        if want != STMT:
            return None
        env = self.env
        cands = list(env.assignable)
        cands += [("{c}." + a, t) for a, t in env.changeable]
        if not cands:
            return None
        pattern, t = self.rng.choice(cands)
        if "{p}" in pattern:
            target = pattern.replace("{p}", self.derive("postfix", PLAYER, d, sc))
        elif "{c}" in pattern:
            target = pattern.replace("{c}", self.derive("postfix", PIECE, d, sc))
        else:
            target = pattern
        ops = ["=", "+=", "-="] if t[0] == "int" else ["="]
        return [target, self.rng.choice(ops), self.derive("expr", t, d, sc)]

    # -- bindings
    def p_bindings(self, rule, want, d, sc, names=None):
        if want != BINDS:
            return None
        kids = self.nts(rule)
        syms = [s.name for s in rule.expansion]
        many = "__bindings_star_1" in kids
        if names is not None and (len(names) > 1) != many:
            return None
        k = len(names) if names is not None else (self.rng.choice([2, 2, 3]) if many else 1)
        items = list(names) if names is not None else [None] * k
        mark = len(self.bound)
        first = self._binding("binding", items[0], sc)
        parts = [first]
        if many:
            parts.append(self.seq("__bindings_star_1", items[1:], d, sc, self._binding))
        inner = sc + tuple(self.bound[mark:])
        if "WHILE" in syms:
            parts.append(self.derive("expr", BOOL, d, inner))
        if "WHERE" in syms:
            parts.append(self.derive("expr", BOOL, d, inner))
        return parts

    def _binding(self, sym, given, sc):
        """`x in S`: given, (name, item type) of a binding to keep (its name and the type
        of its items); else a fresh name over a walkable type."""
        if given is not None:
            name, t = given
            if t == PIECE:
                it = self.rng.choice([SLOT, SLOT, lst(PIECE), ZONE])
            elif t is None or t == ANY:
                it = self.itype(sc)
            else:
                it = lst(t)
        else:
            name, it = self.fresh(), self.itype(sc)
        source = self.derive("expr", it, self.limit - 1, sc + tuple(self.bound))
        self.bound.append((name, elem(it) if given is None or given[1] is None else given[1]))
        return self.emit(self.g.rules["binding"][0], [name, source])

    def bindings(self, sc, names=None, step: str = "for") -> tuple:
        """Generated bindings of a `for` (one binding; `while` and `where`) or a `choose`
        (several; `where` only) step: (text, the names bound)."""
        self.bound = []
        rules = self.g.rules["bindings"]
        for rule in self.rng.sample(rules, len(rules)):
            syms = [s.name for s in rule.expansion]
            if self.typed and (step == "for" and "__bindings_star_1" in syms
                               or step == "choose" and "WHILE" in syms):
                continue
            if self.rng.random() < 0.5 and len(rule.expansion) > 2:
                continue
            parts = self.p_bindings(rule, BINDS, 1, sc, names)
            if parts is not None:
                text = self.emit(rule, parts)
                return text, list(self.bound)
        self.bound = []
        text = self._binding("binding", names[0] if names else None, sc)
        return text, list(self.bound)

    def statement(self, sc) -> tuple:
        """A generated statement: (text, names it binds)."""
        self.bound = []
        text = self.derive("statement", STMT if self.typed else ANY, 1, sc)
        return text, list(self.bound)

    def expression(self, want, sc) -> str:
        self.bound = []
        return self.derive("expr", want if self.typed else ANY, 1, sc)


KEYWORDS = {"move", "to", "bottom", "of", "shuffled", "swap", "with", "shuffle", "refill",
            "from", "end", "game", "call", "let", "next", "turn", "in", "while", "where",
            "if", "then", "else", "after", "or", "and", "not", "for"}
_GLUE_AFTER = {"(", "[", "."}
_GLUE_BEFORE = {")", "]", ",", ".", "(", "[", ":", ";"}


def join(parts: list) -> str:
    """Tokens joined as a person writes them (`f(x, y)`, `p.hand`, `a[1]`), with a space
    elsewhere."""
    out = ""
    prev = ""
    for p in parts:
        if not p:
            continue
        if not out:
            out = p
        elif p[0] in _GLUE_BEFORE and p not in ("(",) or prev in _GLUE_AFTER:
            out += p
        elif p == "(" and re.search(r"[A-Za-z0-9_]+$", out) \
                and re.search(r"[A-Za-z0-9_]+$", out)[0] not in KEYWORDS:
            out += p
        else:
            out += " " + p
        prev = p[-1:]
    return out


# ---- where generated text goes into a spec ------------------------------------------------------

@dataclass
class Site:
    kind: str            # steps (insert), stmt, cond, count, value, bindings, player
    holder: object       # the list or mapping
    key: object          # the index or key
    scope: tuple         # ((name, type), ...) of the locals there
    names: list = field(default_factory=list)     # bindings: (name, type) kept


def split_top(text: str, sep: str = ",") -> list:
    """`text` split at `sep` outside brackets and quotes."""
    out, depth, cur, quote = [], 0, "", None
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


class Sites:
    """Every place of a spec (as plain data) where generated rule text can go, each with
    the locals in scope there, typed by the compiler (Env.typed)."""

    def __init__(self, doc: dict, env: Env):
        self.env = env
        self.out: list = []
        for key in ("setup", "play"):
            if isinstance(doc.get(key), list):
                self.steps(doc[key], ())
        for name, body in (doc.get("rules") or {}).items():
            if not isinstance(body, dict):
                continue
            params = body.get("params") or []
            types = env.rules.get(str(name), [])
            scope = tuple((str(p), types[i] if i < len(types) else None)
                          for i, p in enumerate(params))
            self.step(body, scope)
        for name, f in (doc.get("functions") or {}).items():
            if not isinstance(f, dict) or not isinstance(f.get("value"), (str, int)):
                continue
            sig = next((s for s in env.functions if s[0] == str(name)), None)
            params = f.get("params") or []
            if params and sig is None:
                continue
            scope = tuple(zip(map(str, params), sig[1])) if params else ()
            self.out.append(Site("value", f, "value", scope))
        scoring = doc.get("scoring") or {}
        player = (("player", PLAYER),)
        for p in (scoring.get("points") or {}).values():
            if isinstance(p, dict) and "value" in p:
                self.out.append(Site("value", p, "value", player))
        for p in scoring.get("tiebreak") or []:
            if isinstance(p, dict) and "value" in p:
                self.out.append(Site("value", p, "value", player))

    def steps(self, lst_, scope):
        for i, step in enumerate(list(lst_)):
            self.out.append(Site("steps", lst_, i, scope))
            if isinstance(step, str):
                self.out.append(Site("stmt", lst_, i, scope))
                m = re.match(r"\s*let\s+([A-Za-z]\w*)\s*=\s*(.*)$", step)
                if m:
                    scope = scope + ((m[1], self.env.typed(scope, m[2])),)
            elif isinstance(step, dict):
                self.step(step, scope)
        self.out.append(Site("steps", lst_, len(lst_), scope))

    def bind(self, text: str, scope) -> tuple:
        """The scope after bindings `text` (`x in E, y in F where C`): (scope, [(name,
        type)])."""
        parts = split_top(text)
        last = parts[-1]
        for word in (" while ", " where "):
            last = last.split(word)[0]
        parts[-1] = last
        names = []
        for part in parts:
            m = re.match(r"\s*([A-Za-z]\w*)\s+in\s+(.*)$", part, re.S)
            if not m:
                continue
            t = self.env.typed(scope, f"list(fz_e for fz_e in ({m[2]}))")
            t = t[1] if t is not None and t[0] == "list" else None
            scope = scope + ((m[1], t),)
            names.append((m[1], t))
        return scope, names

    def step(self, step: dict, scope):
        outer = scope
        if isinstance(step.get("simultaneous"), str):
            scope, _ = self.bind(step["simultaneous"], scope)
        for key in ("for", "choose"):
            if isinstance(step.get(key), str):
                inner, names = self.bind(step[key], scope)
                self.out.append(Site("bindings", step, key, scope, names))
                scope = inner
        for key in ("if", "while"):
            if key in step and isinstance(step[key], (str, bool)):
                self.out.append(Site("cond", step, key, outer))
        if isinstance(step.get("turns"), dict):
            t = step["turns"]
            if "until" in t:
                self.out.append(Site("cond", t, "until", outer))
            if "first" in t:
                self.out.append(Site("player", t, "first", outer))
        for key in ("repeat", "up_to"):
            if isinstance(step.get(key), (str, int)) and not isinstance(step.get(key), bool):
                self.out.append(Site("count", step, key, outer))
        if isinstance(step.get("player"), str) and step["player"] != "chance":
            self.out.append(Site("player", step, "player", outer))
        for key in ("do", "then"):
            if isinstance(step.get(key), list):
                self.steps(step[key], scope)
        if isinstance(step.get("else"), list):
            self.steps(step["else"], outer)
        if isinstance(step.get("cases"), dict):
            for v in step["cases"].values():
                if isinstance(v, list):
                    self.steps(v, scope)
        if isinstance(step.get("choose_one"), list):
            for alt in step["choose_one"]:
                if isinstance(alt, dict):
                    self.step(alt, scope)


class Rewriter:
    """Generated rule text put into a spec (plain data from its YAML): 1 to 3 edits, each
    a generated step inserted into a step list, or a condition, count, value, statement,
    player or binding replaced. `edit(doc)` changes doc in place; its description."""

    def __init__(self, env: Env, rng: random.Random, typed: bool = True):
        self.env = env
        self.rng = rng
        self.typed = typed
        self.d = Deriver(env, rng, typed, depth=rng.choice([2, 3, 3, 4, 5]))

    def edit(self, doc: dict) -> list:
        sites = Sites(doc, self.env).out
        if not sites:
            return []
        rng = self.rng
        chosen = rng.sample(sites, min(len(sites), rng.choice([1, 1, 2, 3])))
        # replacements first (they shift nothing), then insertions from the end
        chosen.sort(key=lambda s: (s.kind == "steps", -(s.key if s.kind == "steps" else 0)))
        done = []
        for site in chosen:
            done.append(self.apply(site))
        return done

    def apply(self, site: Site) -> str:
        d, env = self.d, self.env
        sc = site.scope
        if site.kind == "steps":
            step = self.step(sc)
            site.holder.insert(site.key, step)
            return f"inserted {step!r}"
        if site.kind == "stmt":
            text, _ = d.statement(sc)
            site.holder[site.key] = text
            return f"statement {site.key}: {text!r}"
        if site.kind == "cond":
            text = d.expression(BOOL, sc)
        elif site.kind == "count":
            text = d.expression(INT, sc)
        elif site.kind == "player":
            text = d.expression(PLAYER, sc)
        elif site.kind == "value":
            old = site.holder.get(site.key)
            t = env.typed(sc, str(old)) if isinstance(old, str) else INT
            text = d.expression(t if t and t != ANY else INT, sc)
        else:                                               # bindings, names kept
            text, _ = d.bindings(sc, site.names or None, site.key)
        site.holder[site.key] = text
        return f"{site.kind} {site.key}: {text!r}"

    def block(self, sc, k=None) -> list:
        out = []
        for _ in range(k or self.rng.choice([1, 1, 2])):
            text, bound = self.d.statement(sc)
            sc = sc + tuple(bound)
            out.append(text)
        return out

    def step(self, sc):
        rng, d = self.rng, self.d
        r = rng.random()
        if r < 0.4:
            return d.statement(sc)[0]
        if r < 0.58:
            step = {"if": d.expression(BOOL, sc), "then": self.block(sc)}
            if rng.random() < 0.4:
                step["else"] = self.block(sc)
            return step
        if r < 0.72 or r >= 0.86 and r < 0.9:
            text, bound = d.bindings(sc, step="for" if r < 0.72 else "choose")
            body = self.block(sc + tuple(bound))
            if r < 0.72:
                return {"for": text, "do": body}
            return {"choose": text, "label": "fz " + " ".join("{" + n + "}" for n, _ in bound),
                    "optional": "pass", "do": body}
        if r < 0.86:
            text, bound = d.bindings(sc, step="choose")
            step = {"choose": text,
                    "label": "fz " + " ".join("{" + n + "}" for n, _ in bound),
                    "do": self.block(sc + tuple(bound))}
            if rng.random() < 0.3:
                step["player"] = d.expression(PLAYER, sc)
            return step
        if r < 0.95:
            return {"repeat": d.expression(INT, sc), "do": self.block(sc)}
        return {"while": d.expression(BOOL, sc), "max": rng.choice([1, 3, 20]),
                "do": self.block(sc)}
