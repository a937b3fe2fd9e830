"""Dead data: what a spec declares that no rule can read (`tabula validate` warns).

What the rules read is recorded while they are compiled (Program.usage), so it is what
the compiled program reads, not what a text search finds:

- a `data:` entry is read where an expression names it (rules, functions, labels,
  scoring, conditions, component and zone expressions: for_each, count, attributes,
  sizes, capacities...);
- a key of a data table (an entry whose value is a mapping) is read where the table is
  indexed with that key as a constant (`table[3]`, `table[sun]`, `table[option.deck]`
  in the games of that option's choice). A table indexed with a computed key
  (`table[x]`), or read whole (`values(table)`, `for k in table`, passed to a
  function), has all its keys read;
- a component attribute (its `attributes:` and `for_each:` names) is read where an
  expression reads `piece.attribute`, where a component's name template shows it, and,
  for a for_each name, where that component's own count or attribute expressions use it.
  Setting a changeable attribute is not reading it.

A spec is compiled for each player count and option choice (Spec.validate); a name is
read if any of those programs reads it: dead_data takes the spec's document and those
programs (each one's Program.usage, filled while it was compiled). (Program.usage
is analysis.py's Usage: its whole, keys, attrs and own are these records.)"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import SpecError
from ..lang.loader import LMap
from ..runtime.templates import template_fields


def plain_key(k: object) -> int | str:
    """A table's key as the rules write it: a number, or a text (quoted when shown)."""
    return k if isinstance(k, (bool, int)) else str(k)


def dead_data(doc: LMap, programs: Iterable[Any]) -> list[SpecError]:
    """Warnings (SpecError, kind 'warning') for every data entry, data table key and
    component attribute that none of the programs compiled from `doc` reads, in the order
    of the spec (the programs: Spec.validate's, one for each player count and choice)."""
    whole: set[str] = set()
    keys: dict[str, set[str]] = {}
    attrs: set[str] = set()
    own: dict[str, set[str]] = {}
    for prog in programs:
        use = prog.usage
        whole |= use.whole
        attrs |= use.attrs
        for k, v in use.keys.items():
            keys.setdefault(k, set()).update(v)
        for k, v in use.own.items():
            own.setdefault(k, set()).update(v)
    out: list[SpecError] = []
    data = doc.get("data", LMap())
    for name, entry in data.items():
        name = str(name)
        if name in whole:
            continue
        value = entry.get("value") if isinstance(entry, dict) else None
        if name not in keys:
            out.append(SpecError(f"data '{name}' is never read by a rule", data.where_key(name),
                                 "use it, or remove it", kind="warning"))
        elif isinstance(value, LMap):
            for k in value:
                if str(k) not in keys[name]:
                    out.append(SpecError(
                        f"key {k} of data table '{name}' is never read by a rule",
                        value.where_key(k), f"{name}[{plain_key(k)!r}] is read nowhere (a "
                        "computed key reads every key): use it, or remove it", kind="warning"))
    for cname, comp in doc.get("components", LMap()).items():
        shown = set(template_fields(str(comp.get("name", cname))))
        reads = own.get(str(cname), set())
        for section in ("for_each", "attributes"):
            block = comp.get(section, LMap())
            for a in block:
                a = str(a)
                if a in attrs or a in shown or (section == "for_each" and a in reads):
                    continue
                out.append(SpecError(f"attribute '{a}' of component '{cname}' is never read "
                                     "by a rule", block.where_key(a),
                                     "use it, or remove it", kind="warning"))
    return out
