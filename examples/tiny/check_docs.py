"""Check the ```yaml examples of docs/language.md against the interpreter.

Run from the repository root:  python3 examples/tiny/check_docs.py [docs/language.md]

Every ```yaml block is checked (```text blocks are not):
  * every rule string in it is parsed with tabula_rules.lang.parser.parse as what it is
    (statement, expression, bindings, {field} of a label);
  * a block with `game:` and `play:` sections is a complete spec: it is loaded (schema included),
    compiled for its smallest player count and played to the end with random moves;
  * any other block is a fragment written against examples/tiny/tiny.yaml: a step list,
    one step mapping, or some spec sections (zones:, rules:, scoring: ...). It is merged
    into a copy of Tiny and compiled (a step list becomes the body of a rule that play
    calls on a branch that never runs).
A block whose first line is `# wrong` must fail (YAML, schema, parse or compile); the
check fails if it does not. Prints one line per block and exits 1 on any problem.
"""

from __future__ import annotations

import copy
import random
import re
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

from tabula_rules.errors import TabulaError  # noqa: E402
from tabula_rules.lang.parser import parse  # noqa: E402
from tabula_rules.spec import Spec  # noqa: E402

TINY = ROOT / "examples" / "tiny" / "tiny.yaml"
SECTIONS = {"game", "options", "enums", "data", "components", "zones", "variables",
            "functions", "setup", "play", "rules", "scoring", "invariants", "rulings"}
SHAPES = {"do", "if", "for", "repeat", "while", "turns", "match", "choose", "choose_one"}
EXPR_KEYS = ("if", "while", "match", "repeat", "up_to", "player", "weight", "visible_to")
FIELD = re.compile(r"\{([^{}]*)\}")


# ---- parsing every rule string ---------------------------------------------------------

def _p(text, what, found):
    if not isinstance(text, str):
        return
    if what == "expression" and text.strip() == "chance":
        return
    parse(text, what)
    found[0] += 1


def _template(text, found):
    for m in FIELD.finditer(str(text)):
        _p(m.group(1), "expression", found)


def check_steps(steps, found):
    if isinstance(steps, str):
        _p(steps, "statement", found)
        return
    if isinstance(steps, dict):
        steps = [steps]
    for step in steps or []:
        if isinstance(step, str):
            _p(step, "statement", found)
        elif isinstance(step, dict):
            check_step(step, found)


def check_step(step, found):
    for k in EXPR_KEYS:
        if k in step and not isinstance(step.get(k), list):
            _p(step[k], "expression", found)
    for k in ("for", "choose", "simultaneous"):
        if isinstance(step.get(k), str):
            _p(step[k], "bindings", found)
    if isinstance(step.get("turns"), dict):
        for k in ("first", "until"):
            _p(step["turns"].get(k), "expression", found)
    if "label" in step:
        _template(step["label"], found)
    for k in ("do", "then", "else"):
        if k in step:
            check_steps(step[k], found)
    for body in (step.get("cases") or {}).values():
        check_steps(body, found)
    for opt in step.get("choose_one") or []:
        if isinstance(opt, dict):
            check_step(opt, found)


def check_sections(doc, found):
    for c in (doc.get("components") or {}).values():
        for v in (c.get("for_each") or {}).values():
            _p(v, "expression", found)
        _p(c.get("count"), "expression", found)
        for v in (c.get("attributes") or {}).values():
            _p(v, "expression", found)
    for z in (doc.get("zones") or {}).values():
        for k in ("capacity", "capacities", "size", "width", "height"):
            _p(z.get(k), "expression", found)
    for f in (doc.get("functions") or {}).values():
        _p(f.get("value"), "expression", found)
    for k in ("setup", "play"):
        check_steps(doc.get(k), found)
    for r in (doc.get("rules") or {}).values():
        check_step(r, found)
    sc = doc.get("scoring") or {}
    for e in (sc.get("points") or {}).values():
        _p(e.get("value"), "expression", found)
    for e in sc.get("tiebreak") or []:
        _p(e.get("value"), "expression", found)


# ---- compiling -------------------------------------------------------------------------

def _calls(node) -> set:
    return set(re.findall(r"\bcall\s+([A-Za-z][A-Za-z0-9_]*)", yaml.safe_dump(node)))


def _strip_ids(node):
    """Tiny's step ids would clash with the ids of fragments that quote Tiny."""
    if isinstance(node, dict):
        node.pop("id", None)
        for v in node.values():
            _strip_ids(v)
    elif isinstance(node, list):
        for v in node:
            _strip_ids(v)


_TINY_DOC: list = []         # Tiny's document, read once (each block merges into a copy)


def merge_into_tiny(frag) -> dict:
    if not _TINY_DOC:
        _TINY_DOC.append(yaml.safe_load(TINY.read_text(encoding="utf-8")))
    doc = copy.deepcopy(_TINY_DOC[0])
    for section in ("setup", "play", "rules"):
        _strip_ids(doc.get(section))
    if isinstance(frag, dict) and not (set(frag) & SECTIONS) and set(frag) & SHAPES:
        frag = [frag]
    if isinstance(frag, list):
        doc["rules"]["doc_example"] = {"do": frag}
        doc["play"].append({"if": "size(deck) < 0", "then": ["call doc_example"]})
        return doc
    own_rules = set(frag.get("rules") or {})
    for k, v in frag.items():
        if isinstance(v, dict) and isinstance(doc.get(k), dict) and k != "game":
            doc[k].update(v)
        else:
            doc[k] = v
    # drop Tiny's rules that the fragment's setup/play no longer reach
    reach, todo = set(), _calls(doc.get("setup")) | _calls(doc.get("play"))
    while todo:
        r = todo.pop()
        if r in reach or r not in doc.get("rules", {}):
            continue
        reach.add(r)
        todo |= _calls(doc["rules"][r])
    doc["rules"] = {k: v for k, v in doc.get("rules", {}).items()
                    if k in reach or k in own_rules}
    if not doc["rules"]:
        del doc["rules"]
    return doc


def compile_doc(doc: dict, play_games: int = 0):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "example.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        spec = Spec(path)
        lo, _ = spec.player_range
        game = spec.game(lo)
        for seed in range(play_games):
            st = game.new_state(seed=seed)
            rng = random.Random(seed)
            while not st.is_terminal():
                acts = st.legal_actions()
                st.apply(acts[int(rng.random() * len(acts))])
            st.scores()
            st.winners()


def check_block(text: str) -> tuple[int, str]:
    found = [0]
    frag = yaml.safe_load(text)
    if isinstance(frag, dict) and "game" in frag and "play" in frag:
        check_sections(frag, found)
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "example.yaml"
            path.write_text(text, encoding="utf-8")   # the text itself: positions, quoting
            spec = Spec(path)
            lo, _ = spec.player_range
            game = spec.game(lo)
            for seed in range(20):
                st = game.new_state(seed=seed)
                rng = random.Random(seed)
                while not st.is_terminal():
                    acts = st.legal_actions()
                    st.apply(acts[int(rng.random() * len(acts))])
                st.winners()
        return found[0], "complete spec, compiled and played 20 times"
    if isinstance(frag, dict) and "extends" in frag:
        # a variant of Tiny: written beside Tiny so that its relative path resolves
        path = TINY.parent / ".doc-variant.yaml"
        try:
            path.write_text(text.replace("../tiny/tiny.yaml", "tiny.yaml"), encoding="utf-8")
            spec = Spec(path)
            spec.game(spec.player_range[0]).new_state(seed=1)
        finally:
            path.unlink(missing_ok=True)
        return found[0], "variant of Tiny, resolved and compiled"
    if isinstance(frag, list):
        check_steps(frag, found)
        kind = "step list"
    elif isinstance(frag, dict) and set(frag) <= SECTIONS:
        check_sections(frag, found)
        kind = "sections"
    elif isinstance(frag, dict) and set(frag) & SHAPES:
        check_step(frag, found)
        kind = "step"
    else:
        raise ValueError(f"cannot tell what this block is (keys: {list(frag)[:5]})")
    compile_doc(merge_into_tiny(copy.deepcopy(frag)))
    return found[0], f"{kind}, compiled inside Tiny"


def main(argv):
    doc_path = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "language.md"
    text = doc_path.read_text(encoding="utf-8")
    blocks = [(text[:m.start()].count("\n") + 2, m.group(1))
              for m in re.finditer(r"^```yaml\n(.*?)^```", text, re.S | re.M)]
    bad = 0
    for line, body in blocks:
        wrong = body.startswith("# wrong")
        try:
            n, kind = check_block(body)
            ok = not wrong
            what = ("BAD: marked '# wrong' but passed" if wrong
                    else f"{n} rule strings parsed; {kind}")
        except (TabulaError, yaml.YAMLError, ValueError) as exc:
            first = str(exc).splitlines()[0]
            ok = wrong
            what = f"fails as documented: {first}" if wrong else f"FAILED: {exc}"
        bad += not ok
        print(f"{doc_path.name}:{line}: {'ok ' if ok else 'BAD'} {what}")
    print(f"{len(blocks)} yaml blocks, {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
