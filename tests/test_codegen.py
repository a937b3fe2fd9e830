"""The generated Python: built from the checked AST only, never from spec text.

A spec whose every kind of name is a Python keyword, builtin or one of the generated
code's own names, and whose every string is Python code, must compile and play as any
other spec; the code it runs must contain none of its names or strings; and nothing of
that code may run. Also: the source is inspectable, and a failure in generated code is
reported at the spec's line and column."""

import io
import json
import random
import tokenize

import pytest

from tabula_rules import load_game
from tabula_rules.compiler.codegen import comment
from tabula_rules.errors import RuleError

from helpers import GENERATED

# strings of every shape Python code could hide in: quotes, newlines, line separators
STRINGS = ["'); import os; os.system('touch {mark}') #",
           '"""\nimport os\nos.system(\'touch {mark}\')\n"""',
           # line breaks Python knows and YAML lets a text hold (a form feed it does not:
           # the loader refuses it, test_hostile_input.py)
           "\u2028exec('touch {mark}')\r\x85\\"]
# names that mean something to Python or to the generated code
NAMES = ["exec", "eval", "open", "os", "system", "globals", "getattr", "print", "st", "fr",
         "L", "K0", "B_top", "R_move_one", "MISSING", "v0", "class", "def", "return",
         "lambda", "yield", "pass", "raise", "import", "async", "await", "True", "None"]


def q(text: str) -> str:
    """A YAML scalar holding `text` exactly (a JSON string is a YAML double-quoted one)."""
    return json.dumps(text)


def hostile_spec(mark: str) -> str:
    s0, s1, s2 = (s.format(mark=mark) for s in STRINGS)
    # a string literal of the rule language (no ", and no bracket: the loader's bracket
    # check does not skip string literals)
    inner = f"'; import os; os.system; exec; {mark} #"
    lit = '"' + inner + '"'
    return f"""
game:
  id: hostile
  name: {q(s1)}
  source: {q(s2)}
  players: {{min: 2, max: 2}}
options:
  import:
    default: {q(inner)}
    choices: [{q(inner)}, {q(s1)}]
enums:
  class: [def, return, lambda]
data:
  eval:
    value: {{{q(inner)}: 1, {q(s1)}: 2}}
  os:
    value: [{q(s0)}, {q(s2)}]
components:
  print:
    name: {q("{class}-{yield}" + s2)}
    for_each:
      class: values(class)
      yield: "[1, 2]"
    attributes:
      globals: {q("eval[" + lit + "]")}
    changeable: [yield]
    count: 2
    zone: exec
  eval:
    attributes: {{yield: 0}}
    zone: compile
zones:
  exec: {{kind: stack, visibility: public}}
  compile: {{kind: stack, visibility: public}}
  open: {{kind: set, per_player: true, visibility: owner}}
  L: {{kind: grid, width: 3, height: 2, capacity: 1, visibility: public}}
variables:
  st: {{value: 0}}
  fr: {{value: {q(s1)}}}
  v0: {{value: 0, per_player: true}}
  K0: {{value: {{lambda: 0, pass: 1}}}}
functions:
  getattr:
    params: [MISSING]
    value: {q("sum(t.yield for t in MISSING.open) + eval[" + lit + "] + size(os)")}
  B_top:
    params: [R_move_one]
    value: "group(async from R_move_one where size(async) > 0)"
setup:
  - shuffle exec
  - for: await in players
    do:
      - move top(exec, 2) to await.open
  - id: import.os
    source: {q(s2)}
    if: {q("option.import == " + lit)}
    then:
      - {q("fr = " + lit)}
play:
  - id: system
    turns:
      first: "0"
      until: "st >= 4"
    do:
      - call raise(current)
rules:
  raise:
    params: [pass]
    choose_one:
      - label: {q(s0 + "{{")}
        do:
          - st += 1
      - label: {q("{x} {None} " + s1)}
        choose: "x in pass.open, None in cells(L) where size(None) == 0 and x.class != lambda and size(B_top(None)) == 0"
        do:
          - move x to None
          - x.yield += 1
          - top(None).yield -= 1
          - pass.v0 += getattr(pass)
          - K0[lambda] += 1
          - st += 1
scoring:
  points:
    total:
      value: "player.v0 + K0['pass']"
"""  # noqa: E501  spec text, kept as written


def test_spec_text_never_becomes_code(tmp_path):
    mark = tmp_path / "pwned"
    spec = tmp_path / "hostile.yaml"
    spec.write_text(hostile_spec(str(mark)))
    game = load_game(spec, players=2)
    rng = random.Random(0)
    for seed in range(5):
        st = game.new_state(seed=seed)
        while not st.terminal:
            acts = st.legal_actions()
            st.action_to_string(acts[0])
            st.apply(acts[int(rng.random() * len(acts))])
        st.scores()
        st.observation(0)
    assert not mark.exists()
    code = "".join(game.prog.module.chunks)         # what was compiled and run
    assert str(mark) not in code and "os.system" not in code and "touch" not in code
    names = {t.string for t in tokenize.generate_tokens(io.StringIO(code).readline)
             if t.type == tokenize.NAME}
    unknown = {n for n in names if not GENERATED.fullmatch(n)}
    assert not unknown, f"names in the generated code that are not its own: {unknown}"
    assert {"exec", "eval", "open", "os", "system", "getattr", "globals", "print",
            "import", "yield", "raise", "class", "await", "async"}.isdisjoint(names)


def test_comments_cannot_end():
    assert "\n" not in comment("a\nimport os\r\x0c\u2028\x00b")
    assert comment("rule: place") == "# rule: place"


def test_compiled_source_is_inspectable():
    game = load_game("examples/tiny", players=2)
    src = game.prog.module.source()
    assert "def D" in src and "def I" in src
    compile(src, "<check>", "exec")          # the printed program is valid Python


def test_a_failure_in_generated_code_points_at_the_spec(tmp_path):
    """A Python error inside a generated function (a piece's attribute read on none) is
    reported at the statement's line and column, through the generated line table."""
    spec = tmp_path / "bad.yaml"
    spec.write_text("""
game: {id: bad, name: Bad, source: x, players: {min: 2, max: 2}}
components:
  card: {zone: box, attributes: {value: 1}}
zones:
  box: {kind: stack, visibility: public}
  pile: {kind: stack, visibility: public}
variables:
  n: {value: 0}
setup:
  - n = 1
  - move top(box) to pile
  - n = n + top(box).value
play: []
""")
    with pytest.raises(RuleError) as err:
        load_game(spec, players=2).new_state(seed=0)
    assert (err.value.pos.line, err.value.pos.col) == (13, 5), str(err.value)
    assert "no piece" in err.value.message


LOOKUP = """\
game: {id: lookup, name: Lookup, source: a test, players: {min: 2, max: 2}}
data:
  cost: {value: {wood: 2, stone: 3}}
  kinds: {value: [wood, stone, gold]}
  tiles: {value: [{pay: {wood: 1, stone: 2}}, {pay: [wood, wood, stone]}]}
variables:
  done: {value: 0}
functions:
  amount: {params: [k], value: "sum(cost[j] for j in keys(cost) where j == k)"}
  listed: {params: [k], value: "count(j for j in keys(cost) where k == j and cost[j] > 2)"}
  each: {value: "[amount(k) for k in kinds]"}
  # an entry of a data record: a table, or a list, known only when it runs
  due: {params: [r, k], value: "count(j for j in keys(r) where j == k)"}
  owed:
    value: >-
      due(tiles[0]['pay'], 'wood') + 10 * due(tiles[1]['pay'], 'wood')
      + 100 * due(tiles[1]['pay'], 'gold')
play:
  - id: turn
    turns: {first: 0, until: done >= 1}
    do:
      - done += 1
scoring:
  points:
    total: {value: "sum(each()) * 10 + listed('stone') + listed('wood') + listed('gold')"}
    owed: {value: "owed() * 1000"}
"""


def test_a_filtered_sum_over_a_tables_keys_is_a_lookup(tmp_path):
    """`sum(t[j] for j in keys(t) where j == k)` is a lookup, t[k] if k is a key of t:
    the same values (2, 3 and 0 for a kind the table lacks), with no loop over the keys
    and no call; for a data record's entry, a lookup where it is a table (1 wood) and the
    loop over its items where it is a list (2 woods, no gold)."""
    path = tmp_path / "lookup.yaml"
    path.write_text(LOOKUP)
    game = load_game(path, players=2)
    st = game.new_state(seed=1)
    # a lookup takes no item from the work budget; a loop takes every key (item)
    for text, value, items in (("amount('stone')", 3, 0), ("listed('wood')", 0, 0),
                               ("due(tiles[0]['pay'], 'stone')", 1, 0),
                               ("due(tiles[1]['pay'], 'wood')", 2, 3)):
        fn = game.prog.compile_expression(text)
        # an evaluation starts the budget afresh (State._computed)
        assert (fn(st), game.prog.work[0]) == (value, items), text
    while not st.terminal:
        st.apply(st.legal_actions()[0])
    assert st.scores() == [21051, 21051]
