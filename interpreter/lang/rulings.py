"""Rulings: every `ruling:` of a spec, and the switchable ones of its `rulings:` section.

A switchable ruling is a small named variant inside the spec: its readings change entries
by id as a variant's `override:`/`add:`/`remove:` do (variants.py), and it is an option of
the game whose values are its readings (Spec.options). Input: a resolved spec document.
Output: the document with a reading of each ruling applied (a copy: the base is kept),
and the list of rulings `tabula rulings` prints. A reading that names an id the spec does
not have, a default that is not a reading, or a ruling named like an option is a located
error, found when the spec loads, for every reading.
"""

from __future__ import annotations

import copy

from ..errors import did_you_mean, fail
from .loader import LMap
from .variants import ACTIONS, apply_reading


def declared(doc: LMap) -> LMap:
    """name -> switchable ruling (an empty mapping when the spec has none)."""
    return doc.get("rulings") or LMap()


def readings(ruling: LMap) -> list:
    return [str(r) for r in ruling.get("readings", {})]


def check(doc: LMap) -> None:
    """Each ruling's default is one of its readings, no ruling is named like an option,
    and every reading's changes apply to the spec."""
    options = doc.get("options") or {}
    for name, r in declared(doc).items():
        if name in options:
            fail(f"ruling '{name}' has the name of an option", declared(doc).where_key(name),
                 "a switchable ruling is an option of its own: name it otherwise")
        if str(r["default"]) not in readings(r):
            fail(f"ruling {name}: default '{r['default']}' is not one of its readings "
                 f"({', '.join(readings(r))})", r.where("default"),
                 did_you_mean(str(r["default"]), readings(r)))
        for reading in readings(r):
            apply(doc, {str(name): reading})


def selection(doc: LMap, given: dict | None = None) -> dict:
    """name -> reading: each ruling's default, overridden by `given` (checked)."""
    out = {}
    for name, r in declared(doc).items():
        value = (given or {}).get(str(name), r["default"])
        if str(value) not in readings(r):
            fail(f"ruling {name}={value} is not one of its readings "
                 f"({', '.join(readings(r))})", r.where_key("readings"),
                 did_you_mean(str(value), readings(r)) or
                 "tabula rulings lists them")
        out[str(name)] = str(value)
    return out


def apply(doc: LMap, chosen: dict) -> LMap:
    """The document with the chosen reading of each named ruling applied (a copy)."""
    rulings = declared(doc)
    if not any(_changes(rulings[n]["readings"][v]) for n, v in chosen.items()):
        return doc
    out = copy.deepcopy(doc)
    for name, value in chosen.items():
        apply_reading(out, rulings[name]["readings"][value], None,
                      f"ruling {name}, reading {value}")
    return out


def doc_with(spec, options: dict | None) -> LMap:
    """A Spec's document with the readings that `options` (text or values) name, the
    other rulings at their defaults: what `tabula diff --option-a/-b` compares."""
    chosen = {k: v for k, v in (options or {}).items() if k in declared(spec.base_doc)}
    return spec.doc_for(selection(spec.base_doc, chosen))


def _changes(reading) -> bool:
    return isinstance(reading, dict) and any(a in reading for a in ACTIONS)


# -- listing --------------------------------------------------------------------------------

_SECTIONS = ("options", "enums", "data", "components", "zones", "variables", "functions",
             "rules", "invariants")


def listing(doc: LMap) -> list:
    """Every ruling of the spec as dicts: id, where (kind), source, ruling text, position,
    and for switchable ones their readings and default. In the order of the file."""
    out = []
    for name, r in declared(doc).items():
        out.append({
            "id": str(name), "kind": "ruling option", "switchable": True,
            "source": _text(r.get("source")), "ruling": _text(r.get("ruling")),
            "default": str(r["default"]), "pos": str(declared(doc).where_key(name)),
            "readings": [{"name": k, "source": _text(v.get("source")),
                          "argument": _text(v.get("argument")),
                          "changes": _summary(v)}
                         for k, v in r["readings"].items()]})
    seen: set = set()

    def visit(node, kind, ident, depth=0):
        if depth > 80 or id(node) in seen:
            return
        if isinstance(node, dict):
            seen.add(id(node))
            own = str(node["id"]) if "id" in node and isinstance(node.get("id"), str) else ident
            if "ruling" in node and isinstance(node["ruling"], str):
                out.append({"id": own, "kind": kind, "switchable": False,
                            "source": _text(node.get("source")),
                            "ruling": _text(node["ruling"]),
                            "pos": str(node.where("ruling")) if isinstance(node, LMap) else ""})
            for k, v in node.items():
                if k in ("ruling", "source", "description"):
                    continue
                visit(v, kind, own, depth + 1)
        elif isinstance(node, list):
            for item in node:
                visit(item, kind, ident, depth + 1)

    settled = doc.get("settled") or LMap()
    for name, r in settled.items():      # decided by a variant (its settle:)
        out.append({"id": str(name), "kind": f"settled by the variant: {r['reading']}",
                    "switchable": False, "source": _text(r.get("reading_source")),
                    "ruling": _text(r.get("ruling")), "pos": str(settled.where(name))})
    for key in doc:
        if key in ("rulings", "override", "add", "remove", "extends", "settle", "settled"):
            continue
        sec = doc[key]
        if key in _SECTIONS and isinstance(sec, dict):
            for k, v in sec.items():
                visit(v, key.rstrip("s") if key != "data" else "data", str(k))
        elif key == "scoring" and isinstance(sec, dict):
            for k, v in (sec.get("points") or {}).items():
                visit(v, "points", str(k))
            for t in sec.get("tiebreak") or []:
                visit(t, "tiebreak", str(t.get("id", "")) if isinstance(t, dict) else "")
            visit({k: v for k, v in sec.items() if k not in ("points", "tiebreak")},
                  "scoring", "scoring")
        elif key in ("setup", "play"):
            visit(sec, "step", key)
        else:
            visit(sec, key, key)
    return out


def _summary(reading) -> list:
    """KIND.ID for every entry a reading changes: 'override rules.extend', ..."""
    out: list = []
    if not isinstance(reading, dict):
        return out
    for action in ACTIONS:
        block = reading.get(action)
        if action == "remove" and isinstance(block, list):
            out += [f"remove {x}" for x in block]
        elif isinstance(block, dict):
            for kind, entries in block.items():
                for k in entries or {}:
                    out.append(f"{action} {kind}.{k}")
    return out


def _text(value) -> str:
    return " ".join(str(value).split()) if value is not None else ""
