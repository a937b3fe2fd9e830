"""The builtins of boards: cells, neighbours, directions, rays, distances, groups and paths.

Input: a Func, Region or Path node with its arguments compiled to (source, type) pairs, and the
game's layout (per-slot tables of layout.py, laid out from geometry.py's board shapes).
Output: (Python source, type) of the call. The part of builtins.py's catalogue that reads
a board: the driver composes it with builtins.py (Compiler.boards), and the calls of
builtins.py reach its f_<name> methods through the driver's catalogue of builtins.
"""

from __future__ import annotations

from ..errors import did_you_mean, fail
from ..lang import types as T
from ..lang.ast import name_uses
from ..runtime.geometry import (
    DIAGONAL,
    GRID_DIRECTIONS,
    HEX_DIRECTIONS,
    OPPOSITE,
    ORTHOGONAL,
)
from ..runtime.readers import WORK_LIMIT
from .codegen import MISSING, fresh_list, paren, plain_arithmetic
from .common import (
    Shared,
    call_params,
    check_arity,
    counted_lines,
    piece_arg,
    reads_place,
    slot_arg,
    width_of,
)
from .stencil import reads_its_cell

DIRECTIONS = tuple(dict.fromkeys(GRID_DIRECTIONS + HEX_DIRECTIONS))
GROUPS = ("group", "group_around")
# the path searches: name -> (the neighbours a step goes to, what it answers: whether
# a goal is reached, in how many steps, or the cells of the way there)
PATHS = {"reaches": ("adj4", "reaches"), "reaches_around": ("adj8", "reaches"),
         "distance_to": ("adj4", "distance"), "distance_to_around": ("adj8", "distance"),
         "path_to": ("adj4", "path"), "path_to_around": ("adj8", "path")}
# what each answers: (nothing reached, the start is a goal, a goal reached at `var`)
ANSWERS = {"reaches": ("False", "True", "True"), "distance": ("None", "0", "n"),
           "path": ("[]", "[first]", "")}
PATH_HINT = ("reaches(c from start to GOAL where COND), distance_to(...) or "
             "path_to(...)")


class Boards:
    """Emitters of the board builtins (f_<name>), and groups (region), for one Compiler."""

    def __init__(self, comp):
        self.c = comp

    @property
    def mod(self):
        return self.c.mod

    def table(self, name: str) -> str:
        """A per-slot table of the layout, bound once as a constant (builtins.py)."""
        return self.c.builtins.table(name)

    def _cell_arg(self, node, args, i=0) -> str:
        src, typ = args[i]
        if typ[0] != "slot" and typ != T.ANY:
            fail(f"{node.name}() needs a cell (a slot of a zone), not "
                 f"{T.describe(typ)}", node.args[i].pos,
                 "a cell is grid[x, y], an item of cells(grid), or cell(piece)")
        return src

    # grids (and any zone of several slots, read as one row): cells and their geometry
    def f_cells(self, node, args):
        check_arity(node, len(args), 1)
        src, typ = slot_arg(node, args, zone_ok=True)
        span = f"range({src}, {paren(src)} + {width_of(typ)})"
        return fresh_list(f"list({span})", span, True), T.list_of(T.slot(typ[1]))

    def _of_cell(self, node, args, table: str, typ):
        """A fact of a cell read from one of the layout's per-slot tables."""
        check_arity(node, len(args), 1)
        return f"{self.table(table)}[{self._cell_arg(node, args)}]", typ

    def f_x(self, node, args):
        return self._of_cell(node, args, "x", T.INT)

    def f_y(self, node, args):
        return self._of_cell(node, args, "y", T.INT)

    @reads_place
    def f_cell(self, node, args):
        """The slot (cell) a piece is in."""
        check_arity(node, len(args), 1)
        return f"st.where[{piece_arg(node, args)}]", T.slot(self.c.any_zone)

    def f_adjacent(self, node, args):
        check_arity(node, len(args), 1)
        near = f"{self.table('adj4')}[{self._cell_arg(node, args)}]"
        return fresh_list(f"list({near})", near, True), T.list_of(T.slot(self.c.any_zone))

    def f_around(self, node, args):
        check_arity(node, len(args), 1)
        near = f"{self.table('adj8')}[{self._cell_arg(node, args)}]"
        return fresh_list(f"list({near})", near, True), T.list_of(T.slot(self.c.any_zone))

    def _distance(self, node, args, orthogonal: bool):
        check_arity(node, len(args), 2)
        a, b = self._cell_arg(node, args, 0), self._cell_arg(node, args, 1)
        return (f"B_distance({self.table('xy')}, {self.table('board')}, {a}, {b}, "
                f"{orthogonal})"), T.INT

    def f_distance(self, node, args):
        """Steps between two cells, diagonal steps allowed (the king's distance)."""
        return self._distance(node, args, False)

    def f_orthogonal_distance(self, node, args):
        """Steps between two cells moving orthogonally only."""
        return self._distance(node, args, True)

    # directions: rays and single steps along the board's lines (geometry.py's tables)
    def _board_arg(self, node, args, i=0):
        src, typ = args[i]
        if typ[0] != "zone":
            fail(f"{node.name}() needs a zone of several cells (a grid, a hex "
                 f"board, columns), not {T.describe(typ)}", node.args[i].pos)
        return typ[1]

    def _direction_arg(self, node, args, i=1) -> str:
        src, typ = args[i]
        if typ not in (T.STR, T.ANY):
            fail(f"{node.name}() needs a direction ('n', 'ne', ...), not "
                 f"{T.describe(typ)}", node.args[i].pos,
                 f"the directions: {', '.join(DIRECTIONS)}")
        value = self.c.x.constant(src)
        if isinstance(value, str) and value not in DIRECTIONS:
            fail(f"'{value}' is not a direction", node.args[i].pos,
                 did_you_mean(value, DIRECTIONS) or
                 f"the directions: {', '.join(DIRECTIONS)}")
        return src

    def _directions(self, node, args, which: str):
        check_arity(node, len(args), 1)
        z = self._board_arg(node, args)
        g = self.c.layout.geometry_of(z)
        names = {"all": g.directions, "orthogonal": ORTHOGONAL, "diagonal": DIAGONAL}[which]
        if g.kind == "hex":          # every step on a hex board crosses a side
            names = g.directions if which != "diagonal" else ()
        return fresh_list(self.mod.const(list(names)), unique=True), T.list_of(T.STR)

    def f_directions(self, node, args):
        """The directions of a board: 8 on a grid (n, ne, e, se, s, sw, w, nw), 6 on a
        hex board (e, ne, nw, w, sw, se)."""
        return self._directions(node, args, "all")

    def f_orthogonal(self, node, args):
        return self._directions(node, args, "orthogonal")

    def f_diagonal(self, node, args):
        return self._directions(node, args, "diagonal")

    def f_opposite(self, node, args):
        """The direction back: opposite('ne') is 'sw' (on a grid and a hex board)."""
        check_arity(node, len(args), 1)
        d = self._direction_arg(node, args, 0)
        return (f"B_opposite({self.mod.const(dict(OPPOSITE))}, {d}, "
                f"{self.mod.const(node.pos)})"), T.STR

    def _line(self, name: str, c: str, d: str) -> str | None:
        """A line read in place, `K[c]` for a direction written in the rule and `K[d][c]`
        for one known only when it runs (layout.py's step_lines or ray_lines: the same
        values and failures as B_step's and B_ray's call, without the call); None where
        the layout holds no such table (boards too large) or the direction written is no
        board's (B_step's call then says whose it is not)."""
        lines = self.c.layout.table(name)
        if not lines:
            return None
        value = self.c.x.constant(d)
        if value is MISSING:
            return f"{self.table(name)}[{d}][{c}]"
        line = lines.get(value) if isinstance(value, str) else None
        return None if line is None else f"{self.mod.const(line)}[{c}]"

    def f_neighbour(self, node, args):
        """The cell next to c in a direction, or none off the board."""
        check_arity(node, len(args), 2)
        c, d = self._cell_arg(node, args), self._direction_arg(node, args)
        step = self._line("step_lines", c, d) or (
            f"B_step({self.table('steps')}, {self.table('board')}, {c}, {d}, "
            f"{self.mod.const(node.pos)})")
        return step, T.slot(self.c.any_zone)

    def f_ray(self, node, args):
        """The cells from c (not included) to the board's edge in a direction."""
        check_arity(node, len(args), 2)
        c, d = self._cell_arg(node, args), self._direction_arg(node, args)
        line = self._line("ray_lines", c, d) or (
            f"B_ray({self.table('rays')}, {self.table('board')}, {c}, {d}, "
            f"{self.mod.const(node.pos)})")
        return fresh_list(f"list({line})", line, True), T.list_of(T.slot(self.c.any_zone))

    def f_at(self, node, args):
        """The cell of a board at column x, row y, or none off the board."""
        check_arity(node, len(args), 3)
        z = self._board_arg(node, args)
        for i, what in ((1, "a column"), (2, "a row")):
            self.c.x.whole(args[i][1], node.args[i], what)
            if not self.c.x.fits(args[i][1], T.INT):
                fail(f"{what} must be a number, not {T.describe(args[i][1])}",
                     node.args[i].pos)
        b, x, y = (src for src, _ in args)
        if all(plain_arithmetic(v) for v in (b, x, y)):
            # no call in x and y: computing them twice costs less than a call (as [x, y])
            return (f"({paren(b)} + {paren(y)} * {z.width} + {paren(x)} if 0 <= {x} < "
                    f"{z.width} and 0 <= {y} < {z.height} else None)"), T.slot(z)
        return f"B_at({b}, {x}, {y}, {z.width}, {z.height})", T.slot(z)

    def f_on_edge(self, node, args):
        return self._of_cell(node, args, "on_edge", T.BOOL)

    def f_corner(self, node, args):
        return self._of_cell(node, args, "corner", T.BOOL)

    @staticmethod
    def form_of(name: str) -> str:
        """How a construct over cells named `name` is written, or "" (for a call of it
        with arguments, which is an error)."""
        if name in GROUPS:
            return f"{name}(c from start where COND)"
        if name in PATHS:
            return f"{name}(c from start to GOAL where COND)"
        return ""

    def region(self, node, scope):
        """group(c from start where cond): flood fill through cells satisfying cond."""
        if node.name in PATHS:
            fail(f"{node.name}() needs a goal: {node.name}({node.var} from ... to GOAL "
                 "where ...)", node.pos, f"GOAL is a condition on {node.var} (as "
                 f"y({node.var}) == 0) or a cell; the search stops at the first cell "
                 "that meets it")
        if node.name not in GROUPS:
            fail(f"'{node.name}(... from ...)' is not a function", node.pos,
                 did_you_mean(node.name, list(GROUPS) + list(PATHS)) or
                 "group(c from start where ...) or group_around(...)")
        start, styp = self.c.x.compile(node.start, scope)
        if styp[0] != "slot" and styp != T.ANY:
            fail(f"a group starts from a cell, not {T.describe(styp)}",
                 node.start.pos)
        inner = scope.child()
        var = inner.local(node.var, T.slot(self.c.any_zone))
        unit = self.c.usage.new_group()
        with self.c.usage.unit(unit):          # the group's reads (analysis.py)
            cond = self.c.x.expect(node.cond, inner, T.BOOL, "a where condition")
        adj = self.table("adj4" if node.name == "group" else "adj8")
        # the group depends on the state and on the other locals its condition reads
        frees = [scope.names[n].src for n in sorted(name_uses(node.cond))
                 if n != node.var and n in scope.names]
        params = call_params(scope, cond + " ".join(frees))
        key_name = self.mod.fresh("G")
        gid = self.mod.const(key_name)
        # the group's own table of results in the facts, keyed by the cell (and by the
        # other locals its condition reads)
        def key(cell: str) -> str:
            return "(" + "".join(f"{x}, " for x in frees) + cell + ")" if frees else cell
        cached = self.c.prog.cache and not self.c.builtins.sealed   # (builtins.sealed)
        # a group whose condition reads the pieces of the cell it tests only is kept
        # across moves: a move drops the groups whose cells or neighbours it changed
        # (runtime/views.py); otherwise a move drops them all
        kept = cached and self.c.prog.views and reads_its_cell(node, self.c)
        lines = [(0, "if first is None:", None), (1, "return []", None)]
        if cached:
            lines += [(0, "if st is not None:", None),
                      (1, f"known = st.facts.get({gid})", None),
                      (1, "if known is None:", None),
                      (2, f"known = st.facts[{gid}] = {{}}", None),
                      (1, f"found = known.get({key('first')})", None),
                      (1, "if found is not None:", None)]
            if kept:
                lines.append((2, f"if st.gather is not None: B_group_seen(st, {gid}, "
                                 f"{key('first')})", None))
            lines.append((2, "return found", None))
        lines += [(0, f"{var} = first", None),
                  (0, f"if not {paren(cond)}:", None), (1, "found = []", None),
                  (0, "else:", None),
                  (1, "seen = {first}", None), (1, "todo = [first]", None),
                  (1, "while todo:", None),
                  (2, f"for {var} in {adj}[todo.pop()]:", None),
                  (3, f"if {var} not in seen and {paren(cond)}:", None),
                  (4, f"seen.add({var})", None), (4, f"todo.append({var})", None),
                  (1, "found = sorted(seen)", None)]
        if cached:      # the flood from any cell of the group finds the same group
            lines += [(0, "if st is not None:", None),
                      (1, "for here in found or (first,):", None),
                      (2, f"known[{key('here')}] = found", None)]
        if kept:
            extra = "(" + "".join(f"{x}, " for x in frees) + ")" if frees else "None"
            lines.append((1, f"B_group_kept(st, {gid}, known, found or (first,), {extra}, "
                             f"{adj})", None))
        lines.append((0, "return found", None))
        fn = self.mod.function("G", ", ".join(params[:1] + ["first"] + params[1:]),
                               [(i, t, node.pos) for i, t, _ in lines], node.pos, node.name)
        if cached:
            self.c.builtins.keep(key_name, fn.__name__)
            self.c.usage.keep(key_name, unit)
        if kept:
            self.c.usage.keep_group(key_name, unit)
        return (f"{fn.__name__}({', '.join(params[:1] + [start] + params[1:])})",
                T.list_of(T.slot(self.c.any_zone)))

    def path(self, node, scope):
        """reaches(c from start to goal where cond), distance_to(...), path_to(...) and
        their _around forms: a breadth-first search from start through the cells that satisfy cond,
        level by level, that stops at the first cell that satisfies goal (the start
        included: distance 0). With `a -> b`, cond is a condition on a step from a to b
        (a wall between them), and a cell refused from one neighbour may be entered from
        another. Every cell's neighbours are counted against the work budget as the
        search takes them (readers.B_work), so a search is bounded by the budget as much
        as by the board. Not kept across moves: a spec function that asks it keeps its
        value as long as the state does not change (builtins.py)."""
        if node.name not in PATHS:
            if node.name in GROUPS:
                fail(f"{node.name}() takes no goal: {node.name}({node.var} from start "
                     "where ...) is every cell connected to start", node.pos,
                     f"to search for a cell, write {PATH_HINT}")
            fail(f"'{node.name}(... from ... to ...)' is not a function", node.pos,
                 did_you_mean(node.name, list(PATHS)) or PATH_HINT)
        rel, answer = PATHS[node.name]
        start, styp = self.c.x.compile(node.start, scope)
        self._path_start(node, styp)
        if node.prev is not None and node.prev in name_uses(node.goal):
            fail(f"the goal is a condition on the cell a step reaches ({node.var}), not on "
                 f"the step: it cannot read '{node.prev}'", node.goal.pos,
                 f"the goal is tested on the start too, which no step reaches; test "
                 f"{node.prev} in the where condition")
        inner = scope.child()
        prev = inner.local(node.prev, T.slot(self.c.any_zone)) if node.prev else None
        var = inner.local(node.var, T.slot(self.c.any_zone))
        # the goal's and condition's parts that read neither cell: computed once a search
        shared = Shared()
        invariant, _ = self.c.x.parts_sharing([node.goal, node.cond],
                                               {node.var} | {node.prev} - {None})
        with self.c.x.sharing(shared, invariant, [], scope, inner):
            goal_src, gtyp, cond = self._path_parts(node, inner)
        target = None
        if gtyp[0] == "zone":
            fail(f"the goal must be a condition on {node.var} or a cell, not "
                 f"{T.describe(gtyp)}", node.goal.pos,
                 f"a row of the board is a condition: y({node.var}) == 0")
        if gtyp[0] == "slot":           # a cell: the search stops there
            if node.var in name_uses(node.goal):
                fail(f"the goal cell cannot depend on {node.var}", node.goal.pos,
                     f"write the goal as a condition on {node.var}")
            self._same_board(node, styp, gtyp)
            target = self.mod.fresh("t")
            goal = f"{var} == {target}"
        else:
            goal = paren(goal_src)
        adj = self.table(rel)
        pos = self.mod.const(node.pos)
        missing, at_start, reached = ANSWERS[answer]
        came = prev or "here"           # the cell a step leaves
        params = call_params(scope, " ".join([cond, goal_src]))
        lines = [(0, "if first is None:", None), (1, f"return {missing}", None)]
        lines += [(0, f"{h} = [MISSING]", None) for h in shared.shared]
        if target is not None:
            lines.append((0, f"{target} = {goal_src}", None))
        lines += [(0, f"{var} = first", None),
                  (0, f"if {goal}:", None), (1, f"return {at_start}", None),
                  # seen: every cell met, and the cell it was first met from
                  (0, "seen = {first: None}", None), (0, "todo = [first]", None)]
        if answer == "distance":
            lines.append((0, "n = 0", None))
        lines.append((0, "while todo:", None))
        if answer == "distance":
            lines.append((1, "n += 1", None))
        lines += [(1, "found = []", None), (1, f"for {came} in todo:", None)]
        near = self.mod.fresh("w")
        lines += counted_lines(near, f"{adj}[{came}]", pos, WORK_LIMIT, 2)
        lines.append((2, f"for {var} in {near}:", None))
        if prev is None:                # a cell refused is refused from every side
            lines += [(3, f"if {var} in seen:", None), (4, "continue", None),
                      (3, f"seen[{var}] = {came}", None),
                      (3, f"if not {paren(cond)}:", None), (4, "continue", None)]
        else:                           # a step refused: the cell may be entered otherwise
            lines += [(3, f"if {var} in seen or not {paren(cond)}:", None),
                      (4, "continue", None),
                      (3, f"seen[{var}] = {came}", None)]
        lines.append((3, f"if {goal}:", None))
        if answer == "path":            # the way back, cell by cell, then turned round
            lines += [(4, f"out = [{var}]", None),
                      (4, f"while {var} != first:", None),
                      (5, f"{var} = seen[{var}]", None), (5, f"out.append({var})", None),
                      (4, "return out[::-1]", None)]
        else:
            lines.append((4, f"return {reached}", None))
        lines += [(3, f"found.append({var})", None),
                  (1, "todo = found", None),
                  (0, f"return {missing}", None)]
        fn = self.mod.function("G", ", ".join(params[:1] + ["first"] + params[1:]),
                               [(i, t, node.pos) for i, t, _ in lines], node.pos, node.name)
        call = f"{fn.__name__}({', '.join(params[:1] + [start] + params[1:])})"
        if answer == "path":
            return fresh_list(call, unique=True), T.list_of(T.slot(self.c.any_zone))
        return call, T.BOOL if answer == "reaches" else T.INT

    def _path_parts(self, node, inner):
        """A path search's goal (source, type) and condition (source)."""
        goal_src, gtyp = self.c.x.compile(node.goal, inner)
        return goal_src, gtyp, self.c.x.expect(node.cond, inner, T.BOOL, "a where condition")

    def _path_start(self, node, styp) -> None:
        """A path starts from a cell of a board (a zone of several slots)."""
        if styp == T.ANY or styp == T.NONE:
            return
        if styp[0] == "zone":
            z = styp[1]
            one = f"{z.name}[x, y]" if z.kind in ("grid", "hex") else f"{z.name}[i]"
            fail(f"a path starts from a cell, not {T.describe(styp)}", node.start.pos,
                 f"a cell is {one}, an item of cells({z.name}), or cell(piece)")
        if styp[0] != "slot":
            fail(f"a path starts from a cell, not {T.describe(styp)}", node.start.pos,
                 "a cell is grid[x, y], an item of cells(grid), or cell(piece)")
        z = styp[1]
        if z is not self.c.any_zone and z.nslots <= 1:
            fail(f"a path runs on a board, and zone '{z.name}' has one slot",
                 node.start.pos, "declare a grid (kind: grid, width:, height:), a hex "
                 "board or a zone of several slots")

    def _same_board(self, node, styp, gtyp) -> None:
        """A goal cell on another board than the start's is never reached: refused."""
        a, b = (t[1] if t[0] == "slot" else None for t in (styp, gtyp))
        if a is None or b is None or self.c.any_zone in (a, b):
            return
        if a.name != b.name:
            fail(f"the goal is a cell of zone '{b.name}' and the start one of zone "
                 f"'{a.name}': a path never leaves its board", node.goal.pos)
