"""Names and attributes of the rule language, resolved against a game's layout.

Input: a Name or Attr node of the AST and the Compiler's tables (layout.py fills them:
zones, variables, data, enums, piece attributes). Output: (Python source, type) that
reads the name in a running state, or a SpecError with a hint. This is the one place
that decides what a name of the rule text may reach (as Jinja's sandbox decides which
attributes a template may read): names starting with an underscore are refused when
declared, and nothing outside the spec's own declarations is reachable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import Pos, did_you_mean, fail
from ..lang import ast
from ..lang import types as T
from .codegen import MISSING, paren
from .common import Scope

SPECIAL_NAMES = ("current", "players", "option")


@dataclass(frozen=True)
class TableRef:
    """A table variable (resources by kind): stored as one variable per key."""
    per_player: bool
    base: int            # index of the first key's variable
    keys: tuple[Any, ...]
    owner: str | None    # source of the player, for a per-player table
    vtyp: T.Type


class Names:
    """Resolves names, options and attributes for one Compiler."""

    def __init__(self, comp: Any):          # the Compiler (driver.py, which imports this)
        self.c = comp

    def all_names(self) -> list[str]:
        d = self.c.doc
        return (list(SPECIAL_NAMES) + list(d.get("zones", {})) + list(d.get("variables", {}))
                + list(d.get("data", {})) + list(d.get("enums", {})) + list(self.c.member_of))

    def resolve_name(self, node: ast.Name) -> tuple[str, T.Type]:
        c = self.c
        name = node.id
        p = c.prog
        mod = c.mod
        if name == "current":
            return "st.current", T.PLAYER
        if name == "players":
            return mod.const(list(range(p.players))), T.list_of(T.PLAYER)
        if name in c.tables and not c.tables[name][0]:
            _, base, keys = c.tables[name]
            pairs = mod.const(tuple((k, base + i) for i, k in enumerate(keys)))
            return (f"B_table(st.gv, {pairs})",
                    T.map_of(T.type_of_value(keys[0]), c.gvar_types[base]))
        if name in p.gvar_names:
            i = p.gvar_names.index(name)
            return f"st.gv[{i}]", c.gvar_types[i]
        if name in p.pvar_names:
            fail(f"'{name}' is a per-player variable", node.pos,
                 f"write p.{name} for a player p (current.{name} for the current player)")
        if name in p.zones:
            z = p.zones[name]
            if z.per_player:
                fail(f"'{name}' is a per-player zone", node.pos,
                     f"write p.{name} for a player p (current.{name} for the current player)")
            typ = T.slot(z) if z.nslots == 1 else T.zone(z)
            return str(z.base), typ
        if name in c.data:
            c.usage.whole.add(name)
            v = c.data[name]
            return mod.literal(v), T.type_of_value(v)
        if name in c.enums:
            return mod.const(list(c.enums[name])), ("enumtype", name)
        if name in c.member_of:
            return mod.const(name), T.enum(c.member_of[name])
        if name in c.functions:
            fail(f"'{name}' is a function; call it", node.pos, f"write {name}(...)")
        if name in c.doc.get("options", {}):    # `initial: coins` for an option
            fail(f"unknown name '{name}'", node.pos, f"an option is read as option.{name}")
        fail(f"unknown name '{name}'", node.pos,
             did_you_mean(name, self.all_names()))

    def resolve_option(self, node: ast.Attr) -> tuple[str, T.Type]:
        opts = self.c.doc.get("options", {})
        if node.name not in opts:
            fail(f"unknown option '{node.name}'", node.pos,
                 did_you_mean(node.name, opts) or
                 "options are declared under options:")
        v = self.c.prog.options[node.name]
        return self.c.mod.literal(v), T.type_of_value(v)

    def resolve_attr(self, node: ast.Attr, obj: str, typ: T.Type) -> tuple[str, T.Type]:
        """obj.name, obj being the source of a piece or a player."""
        c = self.c
        p = c.prog
        name = node.name
        if typ == T.PIECE:
            c.usage.attrs.add(name)
            if name not in p.piece_attrs:
                fail(f"pieces have no attribute '{name}'", node.pos,
                     did_you_mean(name, p.piece_attrs) or
                     f"attributes: {', '.join(sorted(p.piece_attrs))}")
            # none (no piece) fails as a T.TypeError, reported by the engine at this step
            if name in p.changeable:        # read in the state: it may have changed
                return f"st.pa[{p.changeable.index(name)}][{obj}]", c.attr_types[name]
            return f"{c.mod.const(p.piece_attrs[name])}[{obj}]", c.attr_types[name]
        if typ == T.PLAYER:
            if name in p.zones and p.zones[name].per_player:
                z = p.zones[name]
                ztyp = T.slot(z) if z.nslots == 1 else T.zone(z)
                if z.nslots == 1:
                    return f"({z.base} + {obj})", ztyp
                return f"({z.base} + {obj} * {z.nslots})", ztyp
            if name in c.tables and c.tables[name][0]:
                _, base, keys = c.tables[name]
                pairs = c.mod.const(tuple((k, base + i) for i, k in enumerate(keys)))
                return (f"B_table(st.pv[{obj}], {pairs})",
                        T.map_of(T.type_of_value(keys[0]), c.pvar_types[base]))
            if name in p.pvar_names:
                i = p.pvar_names.index(name)
                return f"st.pv[{obj}][{i}]", c.pvar_types[i]
            owned = [z for z, info in p.zones.items() if info.per_player] + list(p.pvar_names)
            fail(f"players have no zone or variable '{name}'", node.pos,
                 did_you_mean(name, owned) or
                 "per-player zones and variables are declared with per_player: true")
        fail(f"{T.describe(typ)} has no attribute '{name}'", node.pos,
             "attributes belong to pieces (t.value) and players (p.hand)")

    # -- table variables --------------------------------------------------------------
    def table_ref(self, node: ast.Node, scope: Scope) -> TableRef | None:
        """If node names a table variable (NAME or p.NAME), its TableRef; else None."""
        c = self.c
        if isinstance(node, ast.Name) and node.id in c.tables and node.id not in scope.names:
            per, base, keys = c.tables[node.id]
            if not per:
                return TableRef(False, base, tuple(keys), None, c.gvar_types[base])
        if isinstance(node, ast.Attr) and node.name in c.tables:
            per, base, keys = c.tables[node.name]
            if per:
                obj, otyp = c.x.compile(node.obj, scope)
                if otyp == T.PLAYER:
                    return TableRef(True, base, tuple(keys), obj, c.pvar_types[base])
        return None

    def table_box(self, ref: TableRef) -> str:
        """Source of the list holding the table's variables."""
        return f"st.pv[{ref.owner}]" if ref.per_player else "st.gv"

    def table_index(self, ref: TableRef, key: str, pos: Pos) -> str:
        """Source of the index of NAME[key] in its list; a missing key is a rule error."""
        mod = self.c.mod
        where = {k: ref.base + i for i, k in enumerate(ref.keys)}
        value = self.c.x.constant(key)
        if value is not MISSING and value in where:
            return str(where[value])
        table = mod.const(where)
        if paren(key) == key:        # a plain name: looked up in place, checked on a miss
            return (f"({table}[{key}] if {key} in {table} else B_table_index({table}, {key}, "
                    f"{mod.const(', '.join(map(str, ref.keys)))}, {mod.const(pos)}))")
        return (f"B_table_index({mod.const(where)}, {key}, "
                f"{mod.const(', '.join(map(str, ref.keys)))}, {mod.const(pos)})")

    def table_entry(self, ref: TableRef, key: str, pos: Pos) -> str:
        return f"{self.table_box(ref)}[{self.table_index(ref, key, pos)}]"


# -- name templates ------------------------------------------------------------------------
# A component's name template ("{suit}-{rank}") shows the component's own attributes by
