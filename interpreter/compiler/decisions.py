"""Decisions to code: who chooses, among which actions, and what each action does.

Input: a `choose:` or `choose_one:` step of the spec with its Scope. Output: a Decision
(interpreter/runtime/model.py) with its alternatives, and the engine instruction that asks it.
The legal actions of a decision are listed by one generated function: guards, bindings
(nested loops, a source hoisted out of the loops when it does not depend on them),
`where` conditions and `distinct` in one piece of Python. Actions are tuples
(decision, alternative, bound values...), in a fixed order (the bindings' order, then
the sources' order), so that the same seed and decisions give the same game.
"""

from __future__ import annotations

import re

from ..errors import NOWHERE, RuleError, SpecError, did_you_mean, fail
from ..lang import ast
from ..lang import types as T
from ..lang.ast import name_uses
from ..lang.loader import LList, LMap, LStr
from ..runtime.frames import start
from ..runtime.model import CHANCE, DONE, SKIP, Alt, Decision, Listing
from ..runtime.readers import WORK_LIMIT, B_merge_copies, B_merge_kinds
from .codegen import is_unique, paren
from .common import Part, Scope, call_params, counted_lines, reads_frame
from .flowgraph import Flow

MAX_ACTIONS = 100_000
_THIN_FIRST = True       # distinct before a `where` that reads only the key (tests turn it off)
_FIELD = re.compile(r"\{([^{}]*)\}")


class Decisions:
    """Compiles decision steps for one Compiler."""

    def __init__(self, comp):
        self.c = comp
        self.g = comp.flow
        self.mod = comp.mod
        self.listings: dict = {}       # a decision's id -> its Listing (can_choose)
        self._asked: list = []         # (id, the call's position) of each can_choose
        self._sources: list = []       # (slot, source type, binding) of the option compiling
        self._private: list = []       # (sources, moves, option) of choices to check
        self._chance = False           # the decision compiling is chance's
        # (decision, option) -> per binding: a piece that may lie in an unordered zone
        # (its source is one, or may be: a list, any zone), where copies can merge
        self._loose: dict = {}

    def f_can_choose(self, node, args):
        """can_choose(id, p): the decision step `id` (a text) would list an action were
        it p's turn, in this state. It lists as the decision would, with `current` p;
        the listing is the decision's when it is reached in the same state."""
        if len(args) != 2:
            fail(f"can_choose() takes 2 arguments (a decision's id and a player), not "
                 f"{len(args)}", node.pos, "can_choose('turn.place', next_player(current))")
        rid = self.c.x.constant(args[0][0])
        if not isinstance(rid, str):
            fail("can_choose() names a decision by its id, as a text: "
                 "can_choose('turn.place', p)", node.args[0].pos)
        if not self.c.x.fits(args[1][1], T.PLAYER):
            fail(f"can_choose() asks for a player, not {T.describe(args[1][1])}",
                 node.args[1].pos)
        self._asked.append((rid, node.args[0].pos))
        h = self.listings.setdefault(rid, Listing())
        return (f"B_can_choose(st, {self.mod.const(h)}, {args[1][0]}, "
                f"{self.mod.const(node.pos)})"), T.BOOL

    def check_asked(self) -> None:
        """After every decision has compiled: each can_choose names a decision that can be
        asked from elsewhere, and its listings are kept facts (by player)."""
        for rid, pos in self._asked:
            h = self.listings[rid]
            if h.did is None:
                ids = [k for k, v in self.listings.items() if v.did is not None]
                fail(f"can_choose(): no decision step has the id '{rid}'", pos,
                     did_you_mean(rid, ids) or "name a step with choose: or choose_one: "
                     "by its id")
            if h.why:
                fail(f"can_choose('{rid}'): {h.why}", pos)
            if self.c.prog.cache and not h.key:
                h.key = f"listing:{h.did}"
                self.c.usage.keep_listing(h.key, f"decision:{h.did}")
                self.c.builtins.keep(h.key, h.actions.__name__)

    def step(self, step, shape: str, scope: Scope, pos) -> Part:
        if shape == "choose":
            return self.decision(step, [step], scope, pos)
        options = step["choose_one"]
        if not isinstance(options, list) or not options:
            fail("choose_one needs a list of options", step.where("choose_one"))
        return self.decision(step, list(options), scope, pos)

    def decision(self, step, options, scope: Scope, pos) -> Part:
        c = self.c
        p = c.prog
        g = self.g
        did = len(p.decisions)
        p.decisions.append(None)          # reserve the id: nested decisions come first
        dnode = f"decision:{did}"
        g.node(dnode, kind="decision", rule=g.current, **self._attributes(step, options))
        g.contains(g.current, dnode)
        outer = g.current
        g.current = dnode
        alts, listing, flows, option_nodes = [], [], [], []
        # a distinct chance decision lists every piece, and merges identical ones when it
        # is asked, an outcome weighted by how many it stands for (B_merge_kinds)
        chance = str(step.get("player", "")).strip() == "chance"
        outer_scope = scope
        chooser_slot = choosers = None
        if "simultaneous" in step:
            scope, chooser_slot, choosers = self._simultaneous(step, scope)
        try:
            for i, opt in enumerate(options):
                oid = node = None
                if opt is not step and isinstance(opt, dict) and "id" in opt:
                    node = g.register_id(opt, dnode)
                    oid = str(opt["id"])
                self._chance = chance        # (a decision nested in an option resets it)
                alt, lines, flow = self._alternative(did, i, opt, scope, pos, oid, step)
                alts.append(alt)
                listing += lines
                flows.append(flow)
                option_nodes.append(node)
        finally:
            g.current = outer
        upto = "up_to" in step
        g.decision(dnode, option_nodes, flows, upto)
        player = None
        if "player" in step:
            if chance:
                player = lambda st, L: CHANCE  # noqa: E731
            else:
                player = c.steps.expr_fn(step["player"], scope, "the deciding player", T.INT,
                                         pos)
                self._check_constant_player(step, p.players)
        if upto and "optional" in step:
            fail("an up_to decision ends with its `done` action; it cannot also be "
                 "optional", step.where_key("optional"), "remove optional:, "
                 "and name the done action with done:")
        merge = chance and any(isinstance(o, dict) and o.get("distinct") for o in options)
        # any other chance decision over pieces: copies in one slot of an unordered zone
        # are one outcome (B_merge_copies), in a game that has such a zone
        copies = chance and not merge and bool(p.heaps) and \
            any(any(self._loose.get((did, i), ())) for i in range(len(alts)))
        self._check_weights(step, options, chance)
        if chance:
            c.usage.draw("chance decision", pos, f"decision:{did}")
        dec = Decision(did, g.current, alts, player,
                       optional=str(step.get("optional", "")),
                       done=str(step.get("done", "done")) if upto else "", upto=upto, pos=pos,
                       weighted=any(a.weight is not None for a in alts),
                       chance=chance, chooser_slot=chooser_slot, merge=merge,
                       copies=copies,
                       player_pos=step.where("player") if "player" in step else pos)
        p.decisions[did] = dec
        actions = self.mod.function("D", "st, L", [(0, "out = []", None)] + listing
                                    + [(0, "return out", None)], pos, f"decision {did}")
        named = None
        if "id" in step:           # can_choose(id, p) may ask it (check_asked)
            named = self.listings.setdefault(str(step["id"]), Listing())
            named.did, named.actions = did, actions
            if choosers is not None:
                named.why = ("a simultaneous decision lists every chooser's actions at "
                             "once; can_choose asks one player's turn")
            elif any(reads_frame(text) for _, text, _ in listing):
                named.why = ("its choice reads the rule's own values (a let, a for, a "
                             "rule's parameter), which a condition elsewhere has not")
        else_body = c.steps.body(step.get("else", LList()), outer_scope.child(), "else")
        g.then(else_body.flow.maybe())
        orelse = c.steps.block(else_body)
        if choosers is not None:
            dec.reveal = self._reveal(dec, pos)
            return Part(items=[(self._ask_joint(dec, actions, choosers, orelse), pos)],
                        native=False)
        ask = self._ask(dec, actions, orelse, "else" in step, named)
        if not upto:
            return Part(items=[(ask, pos)], native=False)
        inner = c.steps.block(_Single(ask, pos))
        if _as_wanted(step):                 # as many times as the player wants
            return Part(items=[(c.steps.until_left(inner, "up_to", pos), pos)], native=False)
        count = c.steps.expr_fn(step["up_to"], scope, "up_to", T.INT, pos)
        return Part(items=[(c.steps.counted(count, inner, "up_to", pos), pos)], native=False)

    @staticmethod
    def _attributes(step, options) -> dict:
        """What the action graph says of a decision: who decides (`chance`, `current` or
        the player expression), its options (label, and id, bindings, source if given),
        its skip action and its up_to count."""
        def text(value) -> str:
            return " ".join(str(value).split())
        described = []
        for opt in options:
            if not isinstance(opt, dict):
                continue
            keys = ("label", "choose") if opt is step else ("id", "label", "choose", "source")
            described.append({k: text(opt[k]) for k in keys if k in opt})
        player = (f"simultaneous: {text(step['simultaneous'])}" if "simultaneous" in step
                  else text(step.get("player", "current")))
        return {"player": player,
                "shape": "choose" if "choose" in step else "choose_one",
                "options": described, "optional": text(step.get("optional", "")),
                "up_to": text(step.get("up_to", ""))}

    # -- simultaneous decisions, weights, visibility -------------------------------------------
    def _simultaneous(self, step, scope: Scope):
        """`simultaneous: p in PLAYERS`: the scope of the options with p bound (a frame
        slot, set to each chooser in turn), the slot, and the function listing the
        players who choose."""
        for key in ("player", "up_to"):
            if key in step:
                fail(f"a simultaneous decision cannot take {key}: (its players "
                     "are the ones named by simultaneous:)", step.where_key(key),
                     "remove " + key + ":")
        where = step.where("simultaneous")
        node = self.c.parse(step["simultaneous"], "bindings")
        if len(node.items) != 1 or node.cond is not None or node.take is not None:
            fail("simultaneous: takes one binding, e.g. `p in players`", node.pos)
        b = node.items[0]
        src, typ = self.c.x.compile(b.source, scope)
        if not T.is_list(typ) or T.elem(typ) not in (T.PLAYER, T.INT, T.ANY):
            fail(f"simultaneous: needs a list of players, not {T.describe(typ)}",
                 b.source.pos, "e.g. simultaneous: p in players")
        inner = scope.child()
        slot = inner.add(b.var, T.PLAYER)
        return inner, slot, self.mod.expression(f"list({src})", where, "simultaneous")

    def _check_weights(self, step, options, chance: bool) -> None:
        """weight: belongs to chance decisions, and on every option if on one."""
        weighted = [o for o in options if isinstance(o, LMap) and "weight" in o]
        if not weighted:
            return
        if not chance:
            fail("only a chance decision has weights: a player picks freely",
                 weighted[0].where_key("weight"), "remove weight:, or make the "
                 "decision player: chance")
        for key in ("optional", "up_to"):
            if key in step:
                fail(f"a weighted chance decision cannot take {key}:",
                     step.where_key(key), "remove " + key + ":")
        missing = [o for o in options if isinstance(o, dict) and "weight" not in o]
        if missing:
            fail("every option of a weighted chance decision needs a weight",
                 getattr(missing[0], "pos", step.pos), "add weight: to it")

    def _weight(self, opt, inner: Scope):
        if "weight" not in opt:
            return None
        src = self.c.x.expect(self.c.parse(opt["weight"], "expression"), inner, T.INT,
                              "a chance outcome's weight")
        return self.mod.expression(src, opt.where("weight"), "weight")

    def check_private(self) -> None:
        """After every rule has compiled: warn of a choice that names a piece not every
        player may see (from a hand, a face-down deck, a hidden box), has no visible_to,
        and does not put the piece where everyone sees it, itself or through the rules it
        calls: every player's information state would show what was chosen (a card
        passed, a card dealt face down)."""
        for sources, moved, opt in self._private:
            for slot, styp, b in sources:
                z = styp[1] if styp[0] in ("slot", "zone") else None
                if z is None or getattr(z, "visibility", "public") == "public" \
                        or T.elem(styp) != T.PIECE or self._shown(moved, f"L[{slot}]"):
                    continue
                self.c.usage.warnings.append(SpecError(
                    f"this choice names a piece of '{z.name}' ({z.visibility} visibility) "
                    "in its action, which every player's information state shows",
                    opt.where_key("choose"),
                    f"if only some players may see what {b.var} is, say who: visible_to: "
                    "current (to the giver and a receiver: visible_to: '[current, p]'); if "
                    "all may, a ruling saying so, and visible_to: players", kind="warning"))

    def _shown(self, moved, what: str, seen: frozenset = frozenset()) -> bool:
        """Do the moves (and the rules called with `what`) put `what` in a zone everyone
        sees (or one known only when the game runs)?"""
        for m in moved:
            if len(m) == 2:
                if m[0] == what and m[1] in ("public", None):
                    return True
                continue
            _, rule, args = m
            for j, a in enumerate(args):
                if a == what and (rule, j) not in seen and self._shown(
                        self.c.steps.rule_moves.get(rule, ()), f"L[{j}]", seen | {(rule, j)}):
                    return True
        return False

    def _visible(self, step, inner: Scope):
        """visible_to: who sees the chosen action in their information state (a player
        or a list of players, evaluated with the bindings bound); None: everyone."""
        if "visible_to" not in step:
            return None
        src, typ = self.c.x.compile(self.c.parse(step["visible_to"], "expression"), inner)
        if typ not in (T.PLAYER, T.INT, T.ANY) and not (
                T.is_list(typ) and T.elem(typ) in (T.PLAYER, T.INT, T.ANY)):
            fail(f"visible_to: names a player or a list of players, not "
                 f"{T.describe(typ)}", step.where("visible_to"),
                 "e.g. visible_to: p, or visible_to: [p, current]")
        return self.mod.expression(src, step.where("visible_to"), "visible_to")

    def _reveal(self, dec: Decision, pos):
        """The function that runs a simultaneous decision's choices, once every player
        has chosen: a loop over [(player, action), ...] in the players' order, which binds
        the player and the action's values and runs the chosen option's block."""
        c = self.c
        slot = dec.chooser_slot
        alts = dec.alts

        def again(st, fr):
            i = fr.at
            if i < len(fr.data):
                fr.at = i + 1
                fr.pc = 0
                return True
            return False

        def bind(st, fr):
            who, action = fr.data[fr.at - 1]
            L = fr.L
            L[slot] = who
            if action[1] >= 0:
                a = alts[action[1]]
                for s, v in zip(a.slots, action[2:]):
                    L[s] = v
                if a.body.ins:
                    st._stack.append(start(a.body, L))
        loop = c.steps._new_loop("simultaneous", pos, again)
        blk = c.steps.block(_Single(bind, pos))

        def reveal(st, fr, chosen):
            frame = start(blk, fr.L, loop, [[who, list(a)] for who, a in chosen], 0)
            if again(st, frame):
                st._stack.append(frame)
        return reveal

    def _ask_joint(self, dec: Decision, actions, choosers, orelse):
        """The instruction of a simultaneous decision: every chooser's actions listed
        (a chooser with none takes no part), then the state waits for all of them."""
        slot = dec.chooser_slot
        skip = (dec.id, SKIP)
        optional = bool(dec.optional)
        else_ins = orelse.ins

        def ask(st, fr):
            L = fr.L
            joint = []
            for who in choosers(st, L):
                L[slot] = who
                found = actions(st, L)
                if found:
                    if optional:
                        found.insert(0, skip)
                    joint.append((who, found))
            if not joint:
                if else_ins:
                    st._stack.append(start(orelse, L))
                return None
            fr.pc -= 1
            st._pause_joint(dec, fr, joint)
            return True
        return ask

    # -- one alternative ----------------------------------------------------------------------
    def _alternative(self, did, i, opt, scope: Scope, pos, oid=None, step=None):
        """-> (Alt, its lines of the listing function, the Flow of its body)."""
        if not isinstance(opt, LMap):
            fail("an option is a mapping with a label and what it does", pos)
        c = self.c
        inner = scope.child()
        slots: tuple = ()
        binds: tuple = ()
        domains: tuple = ()
        self._sources = []
        with c.usage.unit(f"decision:{did}"):     # the legal actions' reads (analysis.py)
            guard = c.steps.expr(opt["if"], scope, "an option's condition", T.BOOL) \
                if "if" in opt else None
            if "choose" in opt:
                lines, slots, binds, domains = self._enumerator(did, i, opt, scope, inner)
            else:
                lines = [(0, f"out.append(({did}, {i}))", None)]
        if guard is not None:
            lines = [(0, f"if {guard}:", getattr(opt["if"], "pos", pos))] + [
                (ind + 1, text, p) for ind, text, p in lines]
        sources, outer_moves, c.steps.moved = self._sources, c.steps.moved, []
        body, flow = c.steps.compile_block(opt.get("do", LList()), inner, "option",
                                           trace_id=oid or "", trace_pos=opt.pos)
        moved, c.steps.moved = c.steps.moved, outer_moves + c.steps.moved
        if "visible_to" not in (step if step is not None else opt) and sources:
            self._private.append((sources, moved, opt))
        label = self._label(opt.get("label"), inner, slots, opt, i)
        return Alt(i, label, slots, body, str(opt.get("source", "")), self._weight(opt, inner),
                   self._visible(step if step is not None else opt, inner),
                   binds, domains), lines, flow

    def _enumerator(self, did, alt, opt, scope: Scope, inner: Scope):
        """The listing lines of an option with bindings, the frame slots its values go
        to (the option's body reads them as locals), and each binding's (source, type)."""
        c = self.c
        node = self.c.parse(opt["choose"], "bindings")
        if node.take is not None:
            fail("a choice's bindings take no `while` (it is for a `for` step and "
                 "for generators)", node.take.pos, "write the condition with where")
        listing = scope.child()          # the bindings as Python locals of the listing
        srcs, names, pieces, slots, styps, domains = [], [], [], [], [], []
        for b in node.items:
            src, styp = c.x.compile(b.source, listing)
            styps.append(styp)
            if not T.iterable(styp):
                fail(f"cannot choose from {T.describe(styp)}", b.source.pos,
                     "choose from a zone, a list or a player list")
            et = T.elem(styp)
            domains.append(c.usage.domain(b.source, listing, et))
            srcs.append((c.builtins.items(styp, src), b))
            names.append(listing.local(b.var, et))
            slots.append(inner.add(b.var, et))
            pieces.append(et == T.PIECE)
            self._sources.append((slots[-1], styp, b))
        self._loose[did, alt] = tuple(
            piece and not (styp[0] in ("slot", "zone") and not c.builtins.may_be_unordered(styp))
            for piece, styp in zip(pieces, styps))
        binds = tuple((str(src), T.elem(styp) if T.iterable(styp) else T.ANY)
                      for (src, _), styp in zip(srcs, styps))
        viewed = self._view(did, alt, node, listing, srcs, names)
        if viewed is not None:
            return viewed, tuple(slots), binds, tuple(domains)
        cond = c.x.expect(node.cond, listing, T.BOOL, "a where condition") \
            if node.cond else None
        distinct = bool(opt.get("distinct", False)) and not self._chance
        kind = self.mod.const(tuple(c.prog.piece_kind))
        independent = not any(set(name_uses(b.source)) & {x.var for x in node.items}
                              for _, b in srcs)
        if distinct and cond is None and independent:
            # identical pieces (and equal values) give one action: with no condition and
            # no binding reading another, each source can be thinned on its own
            lines, loops, lists = [], [], []
            for depth, ((src, b), var, piece) in enumerate(zip(srcs, names, pieces)):
                hoisted = self.mod.fresh("s")
                thin = (self._distinct_kinds(src, kind) if piece else
                        src if is_unique(src) else f"B_distinct({src})")
                lines.append((0, f"{hoisted} = {thin}", b.source.pos))
                loops.append((depth, f"for {var} in {hoisted}:", None))
                lists.append(f"len({hoisted})")
            if len(lists) > 1:           # the actions are the product: its size is known
                lines += [(0, f"if {' * '.join(lists)} > {MAX_ACTIONS}:", None),
                          (1, f"B_too_many_actions({MAX_ACTIONS}, {self.mod.const(node.pos)})",
                           node.pos)]
            return lines + loops + [(len(names), f"out.append(({did}, {alt}, "
                                                  f"{', '.join(names)}))", None)], \
                tuple(slots), binds, tuple(domains)
        # a condition that reads the bindings only through their distinct key holds for
        # all candidates of a key or for none: thinning first keeps the same first
        # candidate of each key, in the same order, and tests it once
        thin_first = (_THIN_FIRST and distinct and independent and
                      all(not pc or self._key_only(node.cond, b.var, set())
                          for b, pc in zip(node.items, pieces)))
        lines = []
        if distinct and not thin_first:
            lines.append((0, "seen = set()", None))
        # each part of `where A and B and ...` is tested as soon as the bindings it reads
        # are bound (in their order: an earlier part may guard a later one)
        tests = self._early_tests(node, listing)
        bound: list = []
        depth = 0
        for (src, b), var, piece in zip(srcs, names, pieces):
            # every binding's values are counted before they are taken (readers.B_work,
            # inline: counted_lines)
            pos = self.mod.const(b.source.pos)
            hoisted = self.mod.fresh("s")
            dependent = set(name_uses(b.source)) & set(bound)   # on an earlier binding
            if ast.uncounted(b.source) and dependent:
                lines.append((depth, f"for {var} in {src}:", b.source.pos))
            else:
                bind = [(0, f"{hoisted} = {src}", None)] if ast.uncounted(b.source) \
                    else counted_lines(hoisted, src, pos, WORK_LIMIT)
                bind[0] = (0, bind[0][1], b.source.pos)      # errors: at the source
                if thin_first:
                    thin = (self._distinct_kinds(hoisted, kind) if piece else
                            hoisted if is_unique(src) else f"B_distinct({hoisted})")
                    bind.append((0, f"{hoisted} = {thin}", None))
                if dependent:
                    lines += [(d + depth, text, p) for d, text, p in bind]
                else:                                  # the same for every earlier value
                    lines[0:0] = bind
                lines.append((depth, f"for {var} in {hoisted}:", None))
            lines.append((depth + 1, f"if {var} is None:", None))
            lines.append((depth + 2, "continue", None))
            bound.append(b.var)
            depth += 1
            while tests and (depth == len(names) or not tests[0][2] - set(bound)):
                test, pos, _ = tests.pop(0)
                lines.append((depth, f"if not {paren(test)}:", pos))
                lines.append((depth + 1, "continue", None))
        if distinct and not thin_first:
            key = ", ".join(self._kind(kind, v) if pc else v for v, pc in zip(names, pieces))
            lines.append((depth, f"key = ({key},)", None))
            lines.append((depth, "if key in seen:", None))
            lines.append((depth + 1, "continue", None))
        if distinct and not thin_first:
            lines.append((depth, "seen.add(key)", None))
        lines.append((depth, f"out.append(({did}, {alt}, {', '.join(names)}))", None))
        if len(names) > 1:
            lines.append((depth, f"if len(out) > {MAX_ACTIONS}:", None))
            lines.append((depth + 1, f"B_too_many_actions({MAX_ACTIONS}, "
                                     f"{self.mod.const(node.pos)})", None))
        return lines, tuple(slots), binds, tuple(domains)

    def _view(self, did, alt, node, listing: Scope, srcs, names) -> list | None:
        """The listing lines of a choice of one cell of a board with a `where` that reads
        nothing but the state and the cell: the passing cells of a view (runtime/views.py),
        kept up to date across moves; None for any other choice."""
        c = self.c
        if len(node.items) != 1 or node.cond is None:
            return None
        b = node.items[0]
        unit, zone = c.builtins.view_unit(b.source, listing)
        if not unit or c.builtins.stencil_of([node.cond], b.var) is None:
            return None                  # (found from the AST: nothing compiled twice)
        with c.usage.unit(unit):
            cond = c.x.expect(node.cond, listing, T.BOOL, "a where condition")
        var = names[0]
        if not set(call_params(listing, cond)) <= {"st", var}:
            return None
        view = c.builtins.view(var, zone, [cond], [], "True", unit,
                               node.cond.pos, [node.cond], b.var,
                               (b.var, (node.cond,), (), None, ()))
        if view is None:
            return None
        return [(0, f"for {var} in {view}.order():", b.source.pos),
                (1, f"out.append(({did}, {alt}, {var}))", None)]

    def _early_tests(self, node, listing: Scope) -> list:
        """The parts of a `where` joined by `and`, each compiled: [(source, position,
        the names of bindings it reads)], in order."""
        if node.cond is None:
            return []
        parts, todo = [], [node.cond]
        while todo:
            part = todo.pop(0)
            if isinstance(part, ast.BoolOp) and part.op == "and":
                todo[:0] = [part.left, part.right]
            else:
                parts.append(part)
        binding_names = {b.var for b in node.items}
        return [(self.c.x.expect(part, listing, T.BOOL, "a where condition"), part.pos,
                 set(name_uses(part)) & binding_names) for part in parts]

    def _key_only(self, node, var: str, calling: set) -> bool:
        """Does the expression read the piece bound to `var` only through its attributes
        (`var.a`: the kind's fixed ones and the changeable ones, all in its distinct key)?
        Any other use (the piece itself: its identity, its place, a comparison, a builtin
        given it) says no; a spec function given the piece is looked into, its parameter
        in the piece's stead (a function being looked into already: no, soundly). A name
        that a generator or let binds again is taken for the piece: no, soundly."""
        if isinstance(node, ast.Name):
            return node.id != var
        if isinstance(node, ast.Attr) and isinstance(node.obj, ast.Name) \
                and node.obj.id == var:
            return True
        if isinstance(node, ast.Func) and node.name in self.c.functions and \
                any(isinstance(a, ast.Name) and a.id == var for a in node.args):
            params = [str(p) for p in self.c.functions[node.name].get("params", [])]
            if node.name in calling or len(params) != len(node.args):
                return False
            body = self.c.builtins.function_ast(node.name)
            return all(self._key_only(body, p, calling | {node.name})
                       if isinstance(a, ast.Name) and a.id == var
                       else self._key_only(a, var, calling)
                       for p, a in zip(params, node.args))
        if isinstance(node, ast.Node):
            return all(self._key_only(v, var, calling) for v in vars(node).values())
        if isinstance(node, tuple):
            return all(self._key_only(v, var, calling) for v in node)
        return True

    def _kind(self, kind: str, v: str) -> str:
        """The source of piece v's kind (changeable attributes: as they are now)."""
        return f"B_kind_now(st.pa, {kind}, {v})" if self.c.prog.changeable else f"{kind}[{v}]"

    def _distinct_kinds(self, src: str, kind: str) -> str:
        if self.c.prog.changeable:
            return f"B_distinct_kinds_now({src}, {kind}, st.pa)"
        return f"B_distinct_kinds({src}, {kind})"

    def _label(self, template, scope: Scope, slots, opt, opt_index=0):
        """'play {t} on column {c + 1}' -> fn(st, L) -> str; pieces print as their names."""
        if template is None:
            names = [n for n, v in scope.names.items() if v.slot in slots and v.slot is not None]
            template = LStr.at(" ".join(f"{{{n}}}" for n in names) or
                               str(opt.get("id", f"option {opt_index + 1}")),
                               getattr(opt, "pos", NOWHERE))
        parts = []
        text = str(template)
        last = 0
        for m in _FIELD.finditer(text):
            if m.start() > last:
                parts.append(self.mod.const(text[last:m.start()]))
            base = template.pos_at(m.start(1)) if isinstance(template, LStr) else NOWHERE
            sub = LStr.at(m.group(1), base)
            node = self.c.parse(sub, "expression")
            src, typ = self.c.x.compile(node, scope)
            # a field is written as text() writes its value: a piece by its name, true,
            # none, 7/3, a list's items by ', ' (never Python's True, None or [1, 2]); a
            # cell or a zone by its name
            parts.append(f"str({src})" if typ[0] in ("slot", "zone")
                         else self.c.builtins.f_text(node, [(src, typ)])[0])
            last = m.end()
        if last < len(text):
            parts.append(self.mod.const(text[last:]))
        joined = " + ".join(parts) if parts else self.mod.const("")
        return self.mod.expression(joined, getattr(template, "pos", NOWHERE), "label")

    def _check_constant_player(self, step, players: int) -> None:
        """A deciding player given as a constant must be a seat of this game."""
        text = step["player"]
        value = text if isinstance(text, int) and not isinstance(text, bool) else None
        if value is None and isinstance(text, str):
            node = self.c.parse(text, "expression")
            if isinstance(node, ast.Const) and type(node.value) is int:
                value = node.value
        if value is not None and not 0 <= value < players:
            fail(f"the deciding player is {value}, but this game has "
                 f"{players} players (0 to {players - 1})",
                 step.where("player"), "players are numbered from 0")

    def _ask(self, dec: Decision, actions, orelse, has_else: bool = False,
             named: Listing | None = None):
        """The instruction that lists the actions and pauses (or skips, or runs else:). A
        decision that can_choose asks takes the listing it kept for this state and
        player, if there is one."""
        did = dec.id
        player = dec.player
        optional = bool(dec.optional)
        upto = dec.upto
        skip = (did, SKIP)
        done = (did, DONE)
        else_ins = orelse.ins
        # traced games count a choice that must be made but came up empty, with no else:
        # to say what then (skipped silently: by design, or a spec's bug). An optional
        # choice that is empty is no different from one skipped by its player; `else: []`
        # says "nothing then" on purpose.
        empty_key = ("empty:" + dec.rule.removeprefix("step:")
                     if self.c.trace and not has_else and not upto and not optional else None)
        # strict games (Spec.game(strict=True)): that skip is a rule error at the decision
        strict_pos = (dec.pos if getattr(self.c, "strict", False) and not has_else
                      and not upto and not optional else None)

        weighted = dec.weighted
        merge = dec.merge
        copies = dec.copies
        pieces_at = [tuple(t == T.PIECE for _, t in a.binds) for a in dec.alts] \
            if merge else [self._loose.get((did, i), ()) for i in range(len(dec.alts))] \
            if copies else []
        kind = tuple(self.c.prog.piece_kind) if merge or copies else ()
        heaps = self.c.prog.heaps
        player_pos = dec.player_pos
        check_player = not dec.chance
        nplayers = self.c.prog.players

        def ask(st, fr):
            L = fr.L
            found = None
            if named is not None and named.key:
                known = st.facts.get(named.key)
                if known is not None:
                    found = known.get(st.current)
            found = actions(st, L) if found is None else list(found)
            weights = None
            if weighted and found:
                found, weights = st._weigh(dec, L, found)
            if merge and found:
                found, weights = B_merge_kinds(found, weights, pieces_at, kind, st.pa)
            elif copies and found:
                found, weights = B_merge_copies(found, weights, pieces_at, kind, st.pa,
                                                st.where, heaps)
            if not found:
                if empty_key is not None:
                    st.fired[empty_key] = st.fired.get(empty_key, 0) + 1
                if strict_pos is not None:
                    fail("a choice that must be made has nothing legal (strict "
                         "play)", strict_pos, "give it an `else:` (`else: []` for "
                         "nothing), make it optional, or fix the condition that "
                         "emptied it", error=RuleError)
                if upto:
                    st._stack.pop()              # nothing (more) to pick: the loop ends
                if else_ins:
                    st._stack.append(start(orelse, L))
                return None
            if optional:
                found.insert(0, skip)
            elif upto:
                found.append(done)
            if player is None:
                who = st.current
            else:
                who = player(st, L)
                if check_player and (type(who) is not int or not 0 <= who < nplayers):
                    fail(f"the deciding player is {who!r}, but this game has "
                         f"{nplayers} players (0 to {nplayers - 1})",
                         player_pos, "players are numbered from 0", error=RuleError)
            fr.pc -= 1
            st._pause(dec, who, found, fr, weights)
            return True
        return ask


def _as_wanted(step) -> bool:
    """`up_to: any`: the choice repeats until its player takes `done`."""
    return str(step.get("up_to", "")).strip() == "any"


class _Single:
    """A Body of one engine instruction (an up_to decision's loop body)."""

    def __init__(self, ask, pos):
        self.parts = [Part(items=[(ask, pos)], native=False)]
        self.flow = Flow()
        self.name = "up_to"
