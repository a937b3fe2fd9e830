"""Steps and statements to code: straight-line rules as Python, decisions as pauses.

Input: the spec's step lists (setup, play, rule bodies, option bodies) with a Scope.
Output: Blocks (interpreter/runtime/model.py) of instructions fn(state, frame) for the engine's
run loop. A state must be able to stop at a decision, be copied and be written to JSON,
so the engine keeps its own stack of frames; but most of a rule cannot stop. Every run
of steps that cannot reach a decision (moves, assignments, ifs, loops and matches made
only of such steps) is generated as one Python function, control flow included; only
decisions, rule calls, turns and the loops and branches around them are frames.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import NOWHERE, Pos, RuleError, did_you_mean, fail
from ..lang import ast
from ..lang import types as T
from ..lang.loader import LList, LMap
from ..runtime.frames import start
from ..runtime.model import Block, Loop
from ..runtime.readers import B_piece_name_now, new_turn
from .codegen import MISSING, Stale, paren
from .common import Part, Scope
from .flowgraph import Flow

STEP_SHAPES = ("choose_one", "choose", "turns", "match", "repeat", "while", "for", "if", "do")
MAX_WHILE = 10_000
MAX_RULE_CHAIN = 50     # rules compiled each inside the one that first calls it
# a turns step whose players made no decision for this many rounds of turns is stuck: no
# decision will ever come (a choice every player finds empty, an until that never holds)
EMPTY_ROUNDS = 100


@dataclass
class Body:
    """A compiled list of steps, before it becomes a Block or lines of its parent."""
    parts: list
    flow: Flow
    name: str

    @property
    def native(self) -> bool:
        return all(p.native for p in self.parts)

    @property
    def tail(self) -> bool:
        """Native but for a last part that hands over to a called rule: the whole body
        can be the end of a generated function."""
        return (bool(self.parts) and self.parts[-1].tail
                and all(p.native for p in self.parts[:-1]))

    def lines(self) -> list:
        return [line for p in self.parts for line in p.lines]


def _indent(lines, by: int = 1) -> list:
    return [(i + by, text, pos) for i, text, pos in lines]


def _copied(value: str, typ) -> str:
    """A list variable gets a list of its own (states share lists, never change them)."""
    return f"list({value})" if T.is_list(typ) else value


def _mark(rid: str):
    """A traced game's instruction: count that the game reached `rid`."""
    def mark(st, fr):
        st.fired[rid] = st.fired.get(rid, 0) + 1
    return mark


def _count_down(st, fr) -> bool:
    """`again` of a counted loop: fr.data runs left."""
    fr.data -= 1
    if fr.data > 0:
        fr.pc = 0
        return True
    return False


def _again(st, fr) -> bool:
    """`again` of a loop its player leaves by choice: always one more round."""
    fr.pc = 0
    return True


UNROLLED = 4      # at most this many tables dropped (or kept) one by one, else a loop


def stale_lines(facts, mod):
    """lines_for(writes) for Module.refine: the generated lines, [(indent, text)], after
    a statement that writes `writes`, dropping the kept facts whose unit reads any of it
    (Facts.stale). The cheapest form, as measured (a pop costs about the clear of an empty
    table; a loop over a constant tuple a dozen nanoseconds a key more): none; the clear
    where every kept table is stale; a few pops, or the few tables that stay saved around
    the clear, under `if st.facts:` (they are often empty just after another change);
    else a loop over the stale keys, under the same test."""
    found: dict = {}

    def lines_for(writes) -> list:
        out = found.get(writes)
        if out is None:
            out = found[writes] = _stale_form(facts, mod, facts.stale(writes))
        return out
    return lines_for


def _stale_form(facts, mod, keys: tuple) -> list:
    """The lines dropping the kept tables `keys` (stale_lines)."""
    stay = [k for k in facts.kept if k not in keys]
    if not keys:
        return []
    if not stay:
        return [(0, "st.facts.clear()")]
    if len(keys) == 1:
        return [(0, f"st.facts.pop({mod.const(keys[0])}, None)")]
    if len(keys) <= UNROLLED:
        return [(0, "if st.facts: " + "; ".join(f"st.facts.pop({mod.const(k)}, None)"
                                               for k in keys))]
    if len(stay) <= UNROLLED:         # the few that stay, saved around the clear
        names = [(mod.fresh("t"), mod.const(k)) for k in stay]     # fresh scratch names
        return [(0, "if st.facts:"),
                (1, "; ".join(f"{v} = st.facts.get({k})" for v, k in names)
                 + "; st.facts.clear()")] + [
                (1, f"if {v} is not None: st.facts[{k}] = {v}") for v, k in names]
    k = mod.fresh("t")
    return [(0, "if st.facts:"), (1, f"for {k} in {mod.const(keys)}: st.facts.pop({k}, None)")]


def B_too_long(limit: int, pos):
    fail(f"the game ran more than {limit} steps without ending", pos,
         "a loop never ends, or raise game.max_steps", error=RuleError)


def B_stuck(rounds: int, pos):
    fail(f"no player can decide any more: {rounds} rounds of turns went by without a "
         "decision", pos, "every player's choices come up empty (and are skipped), or the "
         "until condition never holds: `tabula validate SPEC --play N` lists the choices "
         "that came up empty", error=RuleError)


def B_too_many(limit: int, pos):
    fail(f"this loop ran more than {limit} times", pos,
         "raise its max: or check its condition", error=RuleError)


def B_unchangeable(st, attr: str, piece, pos):
    comp = st.prog.piece_component[piece]
    fail(f"'{B_piece_name_now(st, piece)}' cannot change its {attr}: component "
         f"'{comp}' does not declare it changeable", pos,
         f"declare it under component '{comp}': changeable: [{attr}] (with its "
         "initial value under attributes:), or change only pieces that can", error=RuleError)


HELPERS = {"B_too_long": B_too_long, "B_too_many": B_too_many,
           "B_unchangeable": B_unchangeable}


class Steps:
    """Compiles step lists for one Compiler (decisions: decisions.py)."""

    def __init__(self, comp):
        self.c = comp
        self.g = comp.flow
        self.mod = comp.mod
        self._stale: Stale | None = None     # the statement being compiled: its facts' line
        # (what, the visibility of the zone it goes to; None: not known) of every move
        # compiled, and ("call", rule, its arguments) of every call: does a chosen piece
        # end where everyone sees it? (Decisions.check_private)
        self.moved: list = []
        self.rule_moves: dict = {}           # a rule -> its own `moved` (its body's)

    # -- bodies and blocks ------------------------------------------------------------------
    def body(self, steps, scope: Scope, name: str, positions=None) -> Body:
        if not isinstance(steps, list):
            fail("expected a list of steps", getattr(steps, "pos", NOWHERE))
        parts: list = []
        self.g.stack.append(Flow())
        try:
            for i, step in enumerate(steps):
                where = positions[i] if positions else (
                    steps.where(i) if isinstance(steps, LList) else NOWHERE)
                part = self.step(step, scope, where)
                if parts and parts[-1].ends_game:
                    first = (part.lines[0][2] if part.lines else
                             part.items[0][1] if part.items else NOWHERE)
                    fail("unreachable step: the game has already ended here",
                         first if first is not NOWHERE else where,
                         "remove it, or move it before `end game`")
                parts.append(part)
        finally:
            flow = self.g.stack.pop()
        return Body(parts, flow, name)

    def instructions(self, parts, name: str) -> list:
        """Engine instructions for compiled parts: each run of native parts becomes one
        generated function. -> [(instruction, position)]"""
        out: list = []
        run: list = []

        def flush():
            if run:
                lines = [line for part in run for line in part.lines]
                first = next((p for _, _, p in lines if p is not None), NOWHERE)
                fn = self.mod.function("I", "st, fr", [(0, "L = fr.L", None)] + lines,
                                       first, name)
                out.append((fn, first))
                run.clear()
        for part in parts:
            if part.native:
                run.append(part)
            elif part.tail:          # runs after the run before it, then hands over
                run.append(part)
                flush()
            else:
                flush()
                out.extend(part.items)
        flush()
        return out

    def block(self, body: Body, prefix: list | tuple = ()) -> Block:
        """A Body as an engine block (a frame runs it)."""
        items = list(prefix) + self.instructions(body.parts, body.name)
        b = Block(len(self.c.prog.blocks), tuple(fn for fn, _ in items),
                  tuple(p for _, p in items), body.name,
                  native=len(items) == 1 and all(p.native for p in body.parts))
        self.c.prog.blocks.append(b)
        return b

    def compile_block(self, steps, scope: Scope, name: str, positions=None,
                      trace_id: str = "", trace_pos: Pos = NOWHERE) -> tuple:
        """-> (Block, Flow); in a traced game the block first counts `trace_id`."""
        body = self.body(steps, scope, name, positions)
        prefix = [(_mark(trace_id), trace_pos)] if trace_id and self.c.trace else []
        return self.block(body, prefix), body.flow

    # -- one step ---------------------------------------------------------------------------
    def step(self, step, scope: Scope, where: Pos) -> Part:
        if isinstance(step, str):
            node = self.c.parse(step, "statement")
            return self.statement(node, scope)
        if not isinstance(step, LMap):
            fail("a step is a statement or a mapping", where)
        g = self.g
        node_name = g.register_id(step, g.current) if "id" in step else None
        shape = next((s for s in STEP_SHAPES if s in step), None)
        if shape is None:
            fail("this step has nothing to do", step.pos,
                 f"give it one of: {', '.join(STEP_SHAPES)}")
        outer = g.current
        if node_name:
            g.current = node_name
            g.stack.append(Flow())     # its body: the step is one node outside
        try:
            if shape in ("choose", "choose_one"):
                part = self.c.decisions.step(step, shape, scope, step.pos)
            else:
                part = getattr(self, "step_" + shape)(step, scope, step.pos)
        finally:
            g.current = outer
            if node_name:
                g.mark_entries(node_name, g.stack.pop())
        if node_name:
            g.then(Flow.node(node_name))
        if self.c.trace and node_name and shape != "if":     # an if step: see step_if
            self.traced(part, str(step["id"]), step.pos)
        return part

    def traced(self, part: Part, rid: str, pos: Pos) -> None:
        """In a traced game, `part` first counts `rid`."""
        if part.native or part.tail:
            key = self.mod.const(rid)
            part.lines.insert(0, (0, f"st.fired[{key}] = st.fired.get({key}, 0) + 1", pos))
        else:
            part.items.insert(0, (_mark(rid), pos))

    def expr(self, text, scope, what="a condition", want=None) -> str:
        """The source of rule text (a YAML number or boolean is a constant)."""
        if isinstance(text, (bool, int)):
            return self.mod.literal(text)
        node = self.c.parse(text, "expression")
        if want is not None:
            return self.c.x.expect(node, scope, want, what)
        return self.c.x.compile(node, scope)[0]

    def expr_fn(self, text, scope, what="a condition", want=None, pos: Pos = NOWHERE):
        """The same as fn(st, L)."""
        return self.mod.expression(self.expr(text, scope, what, want),
                                   getattr(text, "pos", pos))

    def step_do(self, step, scope, pos) -> Part:
        body = self.body(step["do"], scope, "do")
        self.g.then(body.flow)
        return self._inline(body, pos)

    def _round(self, pos, body: Body) -> list:
        """The first lines of a generated loop's body: each round is a step of the game,
        counted against game.max_steps as the engine counts its instructions (a runaway
        is reported at the body's first statement)."""
        limit = self.c.prog.max_steps
        pos = next((p for _, _, p in body.lines() if p is not None), pos)
        return [(0, "st.steps += 1", None),
                (0, f"if st.steps > {limit}:", None),
                (1, f"B_too_long({limit}, {self.mod.const(pos)})", pos)]

    def _inline(self, body: Body, pos) -> Part:
        """A `do` step's body, run in place (no frame of its own)."""
        ends = any(p.ends_game for p in body.parts)
        if body.native or body.tail:
            return Part(lines=body.lines(), ends_game=ends, native=body.native,
                        tail=body.tail)
        return Part(items=self.instructions(body.parts, body.name), native=False,
                    ends_game=ends)

    def step_if(self, step, scope, pos) -> Part:
        test = self.expr(step["if"], scope, "an if condition", T.BOOL)
        then = self.body(step.get("then", LList()), scope.child(), "then")
        orelse = self.body(step.get("else", LList()), scope.child(), "else")
        self.g.then(Flow.either([then.flow, orelse.flow]))
        rid = str(step["id"]) if "id" in step and self.c.trace else ""
        if (then.native or then.tail) and (orelse.native or orelse.tail):
            tl, el = then.lines(), orelse.lines()
            if rid:                      # an if step fires when its condition holds
                key = self.mod.const(rid)
                tl = [(0, f"st.fired[{key}] = st.fired.get({key}, 0) + 1", pos)] + tl
            lines = [(0, f"if {test}:", pos)] + _indent(tl or [(0, "pass", None)])
            if el:
                lines += [(0, "else:", None)] + _indent(el)
            tail = then.tail or orelse.tail
            return Part(lines=lines, native=not tail, tail=tail)
        tb = self.block(then, [(_mark(rid), pos)] if rid else [])
        eb = self.block(orelse)
        fn = self.mod.expression(test, pos)

        def if_(st, fr):
            b = tb if fn(st, fr.L) else eb
            if b.ins:
                st._stack.append(start(b, fr.L))
        return Part(items=[(if_, pos)], native=False)

    def step_for(self, step, scope, pos) -> Part:
        node = self.c.parse(step["for"], "bindings")
        if len(node.items) != 1:
            fail("for takes one binding (x in ...)", node.pos)
        b = node.items[0]
        src, styp = self.c.x.compile(b.source, scope)
        if not T.iterable(styp):
            fail(f"cannot iterate over {T.describe(styp)}", b.source.pos,
                 "iterate over a list, a zone, a table or an enum")
        items = f"list({self.c.builtins.items(styp, src)})"     # the body may move them
        inner = scope.child()
        var = inner.add(b.var, T.elem(styp))
        cond = self.c.x.expect(node.cond, inner, T.BOOL, "a where condition") \
            if node.cond else None
        take = self.c.x.expect(node.take, inner, T.BOOL, "a while condition") \
            if node.take else None
        body = self.body(step["do"], inner, "for")
        self.g.loop(body.flow)
        if body.native:
            lines = [(0, f"for L[{var}] in {items}:", pos)]
            if take is not None:            # the walk ends at the first item that fails
                lines.append((1, f"if not {paren(take)}:", pos))
                lines.append((2, "break", None))
            if cond is not None:
                lines.append((1, f"if not {paren(cond)}:", pos))
                lines.append((2, "continue", None))
            return Part(lines=lines + _indent(self._round(pos, body) + body.lines()))
        loop = self._new_loop("for", pos)
        items_fn = self.mod.expression(items, pos)
        cond_fn = self.mod.expression(cond, pos) if cond is not None else None
        take_fn = self.mod.expression(take, pos) if take is not None else None

        def again(st, fr):
            todo, i = fr.data, fr.at
            L = fr.L
            while i < len(todo):
                L[var] = todo[i]
                i += 1
                if take_fn is not None and not take_fn(st, L):
                    return False
                if cond_fn is None or cond_fn(st, L):
                    fr.at = i
                    fr.pc = 0
                    return True
            return False
        loop.again = again
        blk = self.block(body)

        def for_(st, fr):
            frame = start(blk, fr.L, loop, items_fn(st, fr.L), 0)
            if again(st, frame):
                st._stack.append(frame)
        return Part(items=[(for_, pos)], native=False)

    def _new_loop(self, kind: str, pos: Pos, again=None) -> Loop:
        loop = Loop(len(self.c.prog.loops), again, kind, pos)
        self.c.prog.loops.append(loop)
        return loop

    def counted(self, count_fn, blk: Block, kind: str, pos: Pos):
        """An instruction running `blk` count(...) times (repeat, up_to)."""
        loop = self._new_loop(kind, pos, _count_down)

        def counted(st, fr):
            n = count_fn(st, fr.L)
            if n > 0:
                st._stack.append(start(blk, fr.L, loop, n))
        return counted

    def until_left(self, blk: Block, kind: str, pos: Pos):
        """An instruction running `blk` round after round until its choice's `done`
        action (or an empty choice) leaves the loop (`up_to: any`). Each round is a
        decision of a player, so the game's step bound (game.max_steps) bounds it."""
        loop = self._new_loop(kind, pos, _again)

        def until_left(st, fr):
            st._stack.append(start(blk, fr.L, loop))
        return until_left

    def step_repeat(self, step, scope, pos) -> Part:
        count = self.expr(step["repeat"], scope, "a repeat count", T.INT)
        body = self.body(step["do"], scope.child(), "repeat")
        self.g.loop(body.flow)
        if body.native:
            r = self.mod.fresh("r")
            return Part(lines=[(0, f"for {r} in range({count}):", pos)]
                        + _indent(self._round(pos, body) + body.lines()))
        return Part(items=[(self.counted(self.mod.expression(count, pos), self.block(body),
                                         "repeat", pos), pos)], native=False)

    def step_while(self, step, scope, pos) -> Part:
        test = self.expr(step["while"], scope, "a while condition", T.BOOL)
        limit = int(step.get("max", MAX_WHILE))
        body = self.body(step["do"], scope.child(), "while")
        self.g.loop(body.flow)
        if body.native:
            w = self.mod.fresh("w")
            return Part(lines=[(0, f"{w} = 0", pos), (0, f"while {test}:", pos),
                               (1, f"{w} += 1", None),
                               (1, f"if {w} > {limit}:", None),
                               (2, f"B_too_many({limit}, {self.mod.const(pos)})", pos)]
                        + _indent(self._round(pos, body) + body.lines()))
        loop = self._new_loop("while", pos)
        fn = self.mod.expression(test, pos)

        def again(st, fr):
            if not fn(st, fr.L):
                return False
            fr.data += 1
            if fr.data > limit:
                B_too_many(limit, pos)
            fr.pc = 0
            return True
        loop.again = again
        blk = self.block(body)

        def while_(st, fr):
            if fn(st, fr.L):
                st._stack.append(start(blk, fr.L, loop, 1))
        return Part(items=[(while_, pos)], native=False)

    def step_turns(self, step, scope, pos) -> Part:
        spec = step["turns"] if isinstance(step["turns"], dict) else LMap()
        first = self.expr_fn(spec.get("first", "0"), scope, "the first player", T.INT, pos)
        until = self.expr_fn(spec["until"], scope, "an until condition", T.BOOL, pos) \
            if "until" in spec else None
        body = self.body(step["do"], scope.child(), "turn")
        self.g.loop(body.flow, runs_once=True)
        n = self.c.prog.players
        self.c.usage.turns()
        loop = self._new_loop("turns", pos)

        def again(st, fr):
            if until is not None and until(st, fr.L):
                return False
            made, (mark, last) = len(st.history), fr.at
            if made != mark:                        # a decision in the turn
                fr.at = (made, st.turn)
            elif st.turn - last >= EMPTY_ROUNDS * n:
                B_stuck(EMPTY_ROUNDS, pos)
            given, fr.data = fr.data, None          # `next turn to p` in the turn
            st.current = (st.current + 1) % n if given is None else given
            st.turn += 1
            new_turn(st)
            fr.pc = 0
            return True
        loop.again = again
        blk = self.block(body)

        def turns(st, fr):
            if st.to_act is None:
                st.current = first(st, fr.L) % n
            else:                       # a position given with its player to act
                st.current, st.to_act = st.to_act, None
            st.turn += 1
            new_turn(st)
            st._stack.append(start(blk, fr.L, loop, None, (len(st.history), st.turn)))
        return Part(items=[(turns, pos)], native=False)

    def step_match(self, step, scope, pos) -> Part:
        subject, styp = self.c.x.compile(self.c.parse(step["match"], "expression"), scope)
        enums = self.c.enums
        cases = {}
        for key, body in step["cases"].items():
            k = self.c.plain(key)
            if styp[0] == "enum" and k not in enums[styp[1]]:
                fail(f"'{k}' is not a {styp[1]}", step["cases"].where_key(key),
                     did_you_mean(str(k), enums[styp[1]]) or
                     f"one of: {', '.join(enums[styp[1]])}")
            cases[k] = self.body(body, scope.child(), f"case {k}")
        orelse = self.body(step.get("else", LList()), scope.child(), "else")
        self.g.then(Flow.either([b.flow for b in cases.values()] + [orelse.flow]))
        if all(b.native or b.tail for b in list(cases.values()) + [orelse]):
            m = self.mod.fresh("m")
            lines = [(0, f"{m} = {subject}", pos)]
            word = "if"
            for k, b in cases.items():
                lines.append((0, f"{word} {m} == {self.mod.literal(k)}:", None))
                lines += _indent(b.lines() or [(0, "pass", None)])
                word = "elif"
            if orelse.lines():
                lines += [(0, "else:", None)] + _indent(orelse.lines())
            tail = any(b.tail for b in list(cases.values()) + [orelse])
            return Part(lines=lines, native=not tail, tail=tail)
        blocks = {k: self.block(b) for k, b in cases.items()}
        eb = self.block(orelse)
        fn = self.mod.expression(subject, pos)

        def match(st, fr):
            b = blocks.get(fn(st, fr.L), eb)
            if b.ins:
                st._stack.append(start(b, fr.L))
        return Part(items=[(match, pos)], native=False)

    # -- statements ---------------------------------------------------------------------------
    def statement(self, node, scope: Scope) -> Part:
        outer = self._stale            # (a call compiles its rule's statements inside)
        self._stale = stale = Stale("st.facts.clear()")
        try:
            with self.c.usage.statement(node, scope):     # what it reads and writes
                part = getattr(self, "s_" + type(node).__name__)(node, scope)
        finally:
            self._stale = outer
        stale.writes = self.c.usage.statements[-1].writes
        return part

    def stale(self) -> tuple:
        """The line after a change to the state: it drops the facts the statement made
        stale (decided once the program is compiled: Module.refine, Program.stale)."""
        return (0, self._stale, None)

    def _dest(self, node, scope, order: str = "") -> str:
        return self._container(node, scope, order)[0]

    def _container(self, node, scope, order: str = "") -> tuple:
        """A container's (source, type); `order`: what is done with it that needs an
        order (an unordered zone is then refused: when it is compiled or, if only the
        running game knows which zone it is, when it runs)."""
        src, typ = self.c.x.compile(node, scope)
        if typ[0] != "slot":
            hint = ("name one of its slots, e.g. zone[i]" if typ[0] == "zone"
                    else "pieces go to a zone (a pile, a hand, zone[i], p.hand)")
            fail(f"cannot move pieces to {T.describe(typ)}", node.pos, hint)
        if order:
            src = self.c.builtins.ordered(node, src, typ, order)
        return src, typ

    def s_Move(self, node: ast.Move, scope) -> Part:
        what, wtyp = self.c.x.compile(node.what, scope)
        order = "moving to the bottom" if node.bottom else "moving shuffled" \
            if node.shuffled else ""
        dest, dtyp = self._container(node.dest, scope, order)
        self.moved.append((what, getattr(dtyp[1], "visibility", None)))
        pos = self.mod.const(node.pos)
        if wtyp in (T.PIECE, T.NONE) and not node.bottom:
            # onto an unordered zone (or one that may be): to its place in piece order
            move = "R_move_sorted" if self.c.builtins.may_be_unordered(dtyp) else "R_move_one"
            return Part(lines=[(0, f"{move}(st, {what}, {dest}, {pos})", node.pos),
                               self.stale()])
        if wtyp in (T.PIECE, T.NONE):
            get = f"[{what}]"
        elif wtyp[0] == "slot":
            get = f"list(st.slots[{what}])"
        elif wtyp[0] == "zone":
            get = f"B_pieces(st.slots, {what}, {wtyp[1].nslots})"
        elif wtyp[0] == "list" and wtyp[1] in (T.PIECE, T.ANY):
            get = what
        else:
            fail(f"cannot move {T.describe(wtyp)}", node.what.pos,
                 "move a piece, a list of pieces or a zone's contents")
        return Part(lines=[(0, f"R_move_pieces(st, {get}, {dest}, {node.bottom}, "
                               f"{node.shuffled}, {pos})", node.pos), self.stale()])

    def s_Swap(self, node, scope) -> Part:
        a = self.c.x.expect(node.a, scope, T.PIECE, "what is swapped")
        b = self.c.x.expect(node.b, scope, T.PIECE, "what is swapped")
        return Part(lines=[(0, f"R_swap_pieces(st, {a}, {b}, {self.mod.const(node.pos)})",
                            node.pos), self.stale()])

    def s_Shuffle(self, node, scope) -> Part:
        dest = self._dest(node.zone, scope, "shuffle")
        return Part(lines=[(0, f"R_shuffle_slot(st, {dest}, {self.mod.const(node.pos)})",
                            node.pos), self.stale()])

    def s_Refill(self, node, scope) -> Part:
        z = self._dest(node.zone, scope)
        src = self._dest(node.source, scope, "refill (it takes the top pieces)")
        return Part(lines=[(0, f"R_refill(st, {z}, {src}, {self.mod.const(node.pos)})",
                            node.pos), self.stale()])

    def s_EndGame(self, node, scope) -> Part:
        return Part(lines=[(0, "R_finish(st)", node.pos), (0, "return True", None)],
                    ends_game=True)

    def s_Call(self, node: ast.Call, scope) -> Part:
        c = self.c
        proc = c.prog.procs.get(node.name)
        if proc is None:
            fail(f"call of an undefined rule '{node.name}'", node.name_pos,
                 did_you_mean(node.name, c.prog.procs) or
                 "rules are declared under rules:")
        if len(node.args) != len(proc.params):
            fail(f"rule '{node.name}' takes {len(proc.params)} argument"
                 f"{'s' if len(proc.params) != 1 else ''}, not {len(node.args)}",
                 node.name_pos, f"its parameters: {', '.join(proc.params) or 'none'}")
        self.g.calls(node.name)
        compiled = [c.x.compile(a, scope) for a in node.args]
        types = [t for _, t in compiled]
        if proc.block is None:
            if len(c.compiling) >= MAX_RULE_CHAIN:
                chain = " -> ".join(c.compiling[:3] + ["..."] + c.compiling[-2:] + [node.name])
                fail(f"rules call one another more than {MAX_RULE_CHAIN} deep, each "
                     f"at its first call ({chain})", node.name_pos,
                     "a chain of calls this long is refused (docs/language.md 9)")
            proc.param_types = types
            outer_moves, self.moved = self.moved, []
            try:
                c.compile_proc(node.name, proc, types)
            finally:
                moved, self.moved = self.moved, outer_moves
            self.rule_moves[node.name] = moved
        else:
            for pname, want, got, a in zip(proc.params, proc.param_types, types, node.args):
                if got == T.NUM and want in (T.INT, T.BOOL, T.PLAYER):
                    fail(f"rule '{node.name}' takes a whole number as {pname} (from "
                         "its first call), not a number that may be a fraction",
                         a.pos, "make its first call pass a fraction, or pass "
                         f"{pname} // 1")
                if not T.compatible(want, got) and T.NONE not in (want, got):
                    fail(f"rule '{node.name}' takes {T.describe(want)} as {pname} "
                         f"(from its first call), not {T.describe(got)}", a.pos)
        args = "[" + "".join(f"{src}, " for src, _ in compiled) + "]"
        self.moved.append(("call", node.name, tuple(src for src, _ in compiled)))
        line = f"R_call(st, {self.mod.const(proc)}, {args}, {self.mod.const(node.pos)})"
        # the called rule's frame runs next: this ends the generated function
        return Part(lines=[(0, line, node.pos)], native=False, tail=True)

    def s_NextTurn(self, node: ast.NextTurn, scope) -> Part:
        player = self.c.x.expect(node.player, scope, T.PLAYER, "who takes the next turn")
        return Part(lines=[(0, f"R_next_turn(st, {player}, {self.mod.const(node.pos)})",
                            node.pos)])

    def s_Let(self, node: ast.Let, scope) -> Part:
        src, typ = self.c.x.compile(node.value, scope)
        slot = scope.add(node.name, typ)
        return Part(lines=[(0, f"L[{slot}] = {src}", node.pos)])

    def s_Assign(self, node: ast.Assign, scope) -> Part:
        c = self.c
        value = c.x.expect(node.value, scope, T.NUM if node.op != "=" else T.ANY, "the value")
        _, vtyp = c.x.compile(node.value, scope)
        exact = vtyp == T.NUM        # a fraction added to a fraction may be whole
        self._numeric = vtyp in (T.INT, T.NUM, T.ANY)
        p = c.prog
        t = node.target
        if isinstance(t, ast.Index):
            ref = c.names.table_ref(t.obj, scope)
            if ref is None:
                fail("only a table variable's entry can be assigned to", t.pos,
                     "declare it with a mapping as its value (prey: {value: {hare: 0}})")
            self._check_assign(node, ref.vtyp, vtyp)
            key = c.x.compile(t.key, scope)[0]
            target = c.names.table_entry(ref, key, t.pos)
            return self._assign(target, node, value, state=True, exact=exact)
        if isinstance(t, ast.Name):
            var = scope.names.get(t.id)
            if var is not None and var.slot is not None:
                self._check_whole(node, var.typ, vtyp, "local")
                return self._assign(var.src, node, value, state=False, exact=exact)
            if t.id in p.gvar_names:
                i = p.gvar_names.index(t.id)
                self._check_assign(node, c.gvar_types[i], vtyp)
                return self._assign(f"st.gv[{i}]", node,
                                    self._copied(value, c.gvar_types[i], t.id, node),
                                    state=True, exact=exact)
            fail(f"'{t.id}' is not a variable", t.pos,
                 did_you_mean(t.id, p.gvar_names + list(scope.names)) or
                 "declare it under variables:")
        assert isinstance(t, ast.Attr)   # the grammar's targets: an entry, a name, an attribute
        obj, otyp = c.x.compile(t.obj, scope)
        if otyp == T.PIECE:
            return self._assign_attribute(node, obj, value, vtyp)
        if otyp != T.PLAYER or t.name not in p.pvar_names:
            fail(f"cannot assign to '{t.name}' here", t.pos,
                 did_you_mean(t.name, p.pvar_names) or
                 "assign to a player's variable: p.NAME")
        i = p.pvar_names.index(t.name)
        self._check_assign(node, c.pvar_types[i], vtyp)
        return self._assign(f"st.pv[{obj}][{i}]", node,
                            self._copied(value, c.pvar_types[i], t.name, node),
                            state=True, exact=exact)

    def _copied(self, value: str, typ, name: str, node) -> str:
        """A list variable gets a list of its own (states share lists, never change them),
        checked against its max_length where it has one (readers.B_list_within)."""
        bound = self.c.prog.list_bounds.get(name)
        if bound is None:
            return _copied(value, typ)
        return (f"B_list_within({value}, {bound}, {self.mod.const(name)}, "
                f"{self.mod.const(node.pos)})")

    def _assign_attribute(self, node, obj: str, value: str, vtyp) -> Part:
        """t.NAME = VALUE: a piece's changeable attribute, kept in the state (State.pa)."""
        c = self.c
        p = c.prog
        t = node.target
        name = t.name
        if name not in p.piece_attrs:
            fail(f"pieces have no attribute '{name}'", t.pos,
                 did_you_mean(name, p.piece_attrs) or
                 f"attributes: {', '.join(sorted(p.piece_attrs)) or 'none'}")
        if name not in p.changeable:
            having = [str(cn) for cn, comp in c.doc.get("components", LMap()).items()
                      if name in comp.get("attributes", {}) or name in comp.get("for_each", {})]
            fail(f"a piece's {name} cannot change: no component declares it "
                 "changeable", t.pos,
                 f"list it under the component whose pieces change it: "
                 f"changeable: [{name}] (in {', '.join(having)})")
        want = c.attr_types[name]
        self._check_assign(node, want, vtyp, f"a piece's {name} holds",
                           "an attribute keeps the type of its initial value")
        c.x._check_enum_literal(node.value, vtyp, want)
        lines = []
        if not re.fullmatch(r"L\[[0-9]+\]|v[0-9]+", obj):
            piece = c.scratch()
            lines.append((0, f"{piece} = {obj}", node.pos))
            obj = piece
        if not all(p.changeable_by[name]):     # some pieces may not change it: check
            lines += [(0, f"if not {self.mod.const(p.changeable_by[name])}[{obj}]:", node.pos),
                      (1, f"B_unchangeable(st, {self.mod.const(name)}, {obj}, "
                          f"{self.mod.const(node.pos)})", node.pos)]
        target = f"st.pa[{p.changeable.index(name)}][{obj}]"
        part = self._assign(target, node, value, state=True, exact=vtyp == T.NUM)
        # the views that read the piece's attribute see it change (runtime/views.py)
        part.lines[:0] = lines
        touch = f"if st.tracked is not None: R_attribute_set(st, {obj})"
        part.lines.insert(len(lines) + 1, (0, touch, node.pos))
        return part

    def _assign(self, target: str, node, value: str, state: bool, exact: bool = False) -> Part:
        # a computed number is bounded where it is stored (readers.B_big); adding or
        # removing a constant (score += 1) grows it by a bit a step at most: unchecked
        bounded = self._bounded(node, value)
        if exact and node.op != "=":     # 1/2 + 1/2 is the int 1
            result = f"B_num({target} {node.op[0]} {paren(value)})"
            lines = [(0, f"{target} = {self._big(result, node) if bounded else result}",
                      node.pos)]
        elif bounded:
            result = (value if node.op == "=" else
                      f"{target} {node.op[0]} {paren(value)}")
            lines = [(0, f"{target} = {self._big(result, node)}", node.pos)]
        else:
            lines = [(0, f"{target} {node.op} {value}", node.pos)]
        if state:                       # the state changed: the facts it made stale go
            lines.append(self.stale())
        return Part(lines=lines)

    def _bounded(self, node, value: str) -> bool:
        """Whether an assignment stores a computed number that may grow: a number that
        is not a constant, unless a constant is added or removed (score += 1)."""
        if not getattr(self, "_numeric", False):
            return False
        constant = self.c.x.constant(value) is not MISSING
        return not (constant and node.op in ("=", "+=", "-="))

    def _big(self, src: str, node) -> str:
        return f"B_big({src}, {self.mod.const(node.value.pos)})"

    @staticmethod
    def _check_whole(node, want, got, what: str = "variable") -> None:
        """A number that may be a fraction cannot go where whole numbers are kept."""
        if got == T.NUM and want in (T.INT, T.BOOL, T.PLAYER):
            held = "whole numbers" if want == T.INT else T.describe(want)
            fail(f"this {what} holds {held}, not a number that may be a fraction",
                 node.value.pos,
                 "let it start from a fraction (let n = 0 / 1)" if what == "local"
                 else "declare the variable with type: number")

    @classmethod
    def _check_assign(cls, node, want, got, what="this variable holds",
                      hint="declare its type: (type: player, piece, ...)"):
        cls._check_whole(node, want, got)
        if not T.compatible(want, got) and T.NONE not in (want, got):
            fail(f"{what} {T.describe(want)}, not {T.describe(got)}",
                 node.value.pos, hint)
