"""The action space of every shipped spec and example, for every player count and option
choice, as data: tests/test_action_layouts.py checks that ActionSpace numbers actions as
tests/data/action_layouts.json says (captured before the action space read the compiler's
binding domains instead of the generated code). `python tests/action_layouts.py` prints
the current numbering as that file's JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "action_layouts.json"


def spec_files() -> list:
    files = []
    for top in ("specs", "examples"):
        for d in sorted((ROOT / top).iterdir()):
            for f in sorted(d.glob("*.yaml")):
                if any(line.startswith("game:") for line in f.read_text().splitlines()):
                    files.append(f)
    return files


def games(spec) -> list:
    """(players, options) pairs: every player count with the defaults, and every option
    choice and ruling reading at the smallest player count it allows."""
    from tabula_rules.lang import rulings
    from tabula_rules.lang.loader import plain
    lo, hi = spec.player_range
    out = [(n, {}) for n in range(lo, hi + 1)]
    for key, o in spec.doc.get("options", {}).items():
        for choice in o.get("choices", []):
            rng = o.get("players", {}).get(choice)
            out.append((int(rng["min"]) if rng else lo, {str(key): plain(choice)}))
    for name, r in rulings.declared(spec.base_doc).items():
        for reading in rulings.readings(r):
            out.append((lo, {str(name): reading}))
    return out


def domain(d) -> list | None:
    if d is None:
        return None
    values = None if d.values is None else [repr(v) for v in d.values]
    return [d.what, d.lo, d.size, values]


def layouts() -> dict:
    from tabula_rules.adapters.actionspace import ActionSpace
    from tabula_rules.spec import load_spec
    out = {}
    for f in spec_files():
        spec = load_spec(str(f))
        for players, options in games(spec):
            key = f"{f.relative_to(ROOT)} players={players} " + \
                ",".join(f"{k}={v}" for k, v in sorted(options.items()))
            space = ActionSpace(spec.game(players, options))
            out[key.strip()] = {
                "num_actions": space.num_actions, "num_outcomes": space.num_outcomes,
                "layout": [[c, o, s, r, a if isinstance(a, str) else int(a), ds]
                           for c, o, s, r, a, ds in space.layout()],
                "domains": [[domain(d) for d in b.domains]
                            for b in space.player_blocks + space.chance_blocks]}
    return out


if __name__ == "__main__":
    json.dump(layouts(), sys.stdout, indent=1, sort_keys=True)
    print()
