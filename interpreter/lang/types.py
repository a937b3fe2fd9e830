"""Static types of the rule language, used by the compiler's checks.

Input: nothing (definitions only). Output: small type values and helpers that name them
in error messages. Types are plain tuples so they compare and hash cheaply.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

# a type: its kind, then what it is made of (a list's item type, a table's key and value
# types, an enum's name, a zone's ZoneInfo)
Type = tuple[Any, ...]

INT = ("int",)        # a whole number
NUM = ("num",)        # a number that may be a fraction (from '/'): int or Fraction
BOOL = ("bool",)
STR = ("str",)
PIECE = ("piece",)
PLAYER = ("player",)
NONE = ("none",)
ANY = ("any",)


# kinds of values that can key a table (a function's kept results)
HASHABLE = ("int", "num", "bool", "str", "piece", "player", "none", "enum", "slot")


def enum(name: str) -> Type:
    return ("enum", name)


def list_of(t: Type) -> Type:
    return ("list", t)


def map_of(k: Type, v: Type, counts: bool = False) -> Type:
    return ("counts" if counts else "map", k, v)


def slot(zone: Any) -> Type:
    """One container (a pile, a hand, a column of a multi-slot zone); value: its index."""
    return ("slot", zone)


def zone(zone: Any) -> Type:
    """A zone of several slots (columns, grid, track); value: its first slot's index."""
    return ("zone", zone)


def is_list(t: Type) -> bool:
    return bool(t[0] == "list")


def is_map(t: Type) -> bool:
    return t[0] in ("map", "counts")


def elem(t: Type) -> Type:
    """What iterating over a value of type t gives."""
    inner: Type
    if t[0] == "list":
        inner = t[1]
        return inner
    if t[0] in ("slot", "zone"):
        return PIECE
    if t[0] in ("map", "counts"):
        inner = t[1]         # a table's keys
        return inner
    if t[0] == "enumtype":
        return enum(t[1])
    return ANY


def iterable(t: Type) -> bool:
    """Can a value of type t be iterated (for, choose, generators, in)?"""
    return t == ANY or t[0] in ("list", "slot", "zone", "map", "counts", "enumtype")


def is_numeric(t: Type) -> bool:
    return t in (INT, BOOL, ANY, NUM)


def number(a: Type, b: Type) -> Type:
    """The type of a value that is a or b, both numbers: NUM if either may be a fraction."""
    return NUM if NUM in (a, b) else a


def compatible(a: Type, b: Type) -> bool:
    """Can values of types a and b be compared for equality meaningfully?"""
    if ANY in (a, b) or NONE in (a, b):
        return True
    if a[0] == "enum" and b == STR or b[0] == "enum" and a == STR:
        return True
    if {a, b} <= {INT, BOOL, PLAYER, NUM}:
        return True
    if a[0] == b[0] == "list":
        return compatible(a[1], b[1])
    if a[0] in ("slot", "zone") and b[0] in ("slot", "zone"):
        return True
    return a == b


def describe(t: Type) -> str:
    kind = t[0]
    if kind in ("slot", "zone"):
        return f"zone '{t[1].name}'" if kind == "zone" else f"a container of zone '{t[1].name}'"
    if kind == "enum":
        return f"a {t[1]} value"
    if kind == "list":
        return f"a list of {describe(t[1])}"
    if kind in ("map", "counts"):
        return "a table"
    if kind == "enumtype":
        return f"the enum {t[1]}"
    return {"int": "a number", "num": "a number that may be a fraction", "bool": "a condition",
            "str": "a text", "piece": "a piece", "player": "a player", "none": "none",
            "any": "a value"}[kind]


def type_of_value(v: object) -> Type:
    """The static type of a value of the spec (data, an initial value, an attribute)."""
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int):
        return INT
    if isinstance(v, Fraction):
        return NUM
    if isinstance(v, str):
        return STR
    if isinstance(v, list):
        return list_of(_common_type(v))
    if isinstance(v, dict):
        if not v:
            return map_of(ANY, ANY)
        return map_of(_common_type(list(v)), _common_type(list(v.values())))
    return ANY


def _common_type(values: list[Any]) -> Type:
    """The type of a list's or a table's items: ANY when they differ (a data record)."""
    if not values:
        return ANY
    types = {type_of_value(x) for x in values}
    if types == {INT, NUM}:          # whole numbers among fractions
        return NUM
    return types.pop() if len(types) == 1 else ANY
