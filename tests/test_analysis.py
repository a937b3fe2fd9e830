"""What the compiler records (compiler/analysis.py, docs/compiler.md "What the compiler
records"), on small specs of its own: the read/write summary of functions, decisions,
rules, scoring and statements, transitive through calls; each binding's domain; where
the game draws randomness."""

import pytest

from tabula_rules import load_spec

HEAD = """
game: {id: probe, name: Probe, source: a test, players: {min: 2, max: 2}, max_steps: 1000}
options:
  size: {default: 3, choices: [3, 4]}
enums:
  colour: [red, blue]
data:
  steps: {value: [2, 4, 6]}
  top_rank: {value: 5}
components:
  card:
    name: "card {rank}"
    for_each: {rank: "range(1, 4)"}
    attributes: {worth: rank * 2, face: "'down'"}
    changeable: [face]
    zone: deck
zones:
  deck: {kind: stack, visibility: public}
  row: {kind: track, size: 3, visibility: public}
  hand: {kind: set, per_player: true, visibility: owner}
variables:
  round: {value: 0}
  score: {value: 0, per_player: true}
  stock: {value: {red: 0, blue: 0}}
"""

FUNCTIONS = """
functions:
  leader: {value: current}
  round_now: {value: round}
  my_score: {params: [p], value: p.score}
  deck_size: {value: size(deck)}
  first_of_row: {value: "size(row[0])"}
  flipped: {params: [t], value: t.face == 'up'}
  worth_of: {params: [t], value: t.worth}
  twice_round: {value: round_now() * 2}
  red_stock: {value: "stock['red']"}
  held: {params: [p], value: size(p.hand)}
  wide: {value: option.size}
"""


def compiled(tmp_path, text: str, players: int = 2):
    path = tmp_path / "probe.yaml"
    path.write_text(text)
    return load_spec(path).game(players).prog


def play(*lines: str, setup: tuple = ()) -> str:
    out = ""
    if setup:
        out += "setup:\n" + "".join(f"  - {s}\n" for s in setup)
    out += ("play:\n  - id: turn\n    turns:\n      first: 0\n      until: round >= 2\n"
            "    do:\n" + "".join(f"      - {line}\n" for line in lines))
    return out


# -- reads of functions --------------------------------------------------------------------
@pytest.fixture(scope="module")
def reading(tmp_path_factory):
    calls = ("leader() == 0 and round_now() == 0 and my_score(current) == 0 and deck_size() "
             "> 0 and first_of_row() == 0 and twice_round() == 0 and red_stock() == 0 and "
             "held(current) == 0 and wide() > 0 and all(flipped(t) or worth_of(t) > 0 for "
             "t in deck)")
    text = HEAD + FUNCTIONS + play("round += 1", f"'if': {calls}\n        then: []")
    return compiled(tmp_path_factory.mktemp("reads"), text).facts


@pytest.mark.parametrize("unit, fact", [
    ("function:leader", ("current",)),
    ("function:round_now", ("var", "round")),
    ("function:my_score", ("pvar", "score")),
    ("function:deck_size", ("zone", "deck", None)),
    ("function:first_of_row", ("zone", "row", 0)),      # a slot where static
    ("function:flipped", ("attr", "face")),             # a changeable attribute
    ("function:red_stock", ("table", "stock", "red")),  # a table's entry at a constant key
    ("function:held", ("zone", "hand", None)),          # a per-player zone
    ("function:wide", ("option", "size")),
])
def test_a_function_reads(reading, unit, fact):
    assert fact in reading.reads(unit)


def test_a_function_reads_no_more_than_it_reads(reading):
    assert reading.reads("function:leader") == {("current",)}
    assert reading.reads("function:first_of_row") == {("zone", "row", 0)}
    assert ("zone", "row", None) not in reading.reads("function:first_of_row")
    # a fixed attribute is a constant of the game: no state is read
    assert reading.reads("function:worth_of") == frozenset()


def test_reads_are_transitive_through_calls(reading):
    assert reading.units["function:twice_round"].reads == set()
    assert reading.units["function:twice_round"].calls == {"function:round_now"}
    assert reading.reads("function:twice_round") == {("var", "round")}
    play_reads = reading.reads("play")
    for fact in [("current",), ("var", "round"), ("pvar", "score"), ("zone", "deck", None),
                 ("attr", "face"), ("table", "stock", "red"), ("option", "size")]:
        assert fact in play_reads


# -- writes of rules and statements ----------------------------------------------------------
RULES = """
rules:
  flip:
    params: [t]
    do:
      - t.face = 'up'
      - move t to row[1]
      - current.score += 1
      - "stock['red'] = 2"
      - round = round + 1
  outer:
    do:
      - call flip(top(deck))
"""


@pytest.fixture(scope="module")
def writing(tmp_path_factory):
    text = HEAD + RULES + play("call outer()", "move top(deck) to row[2]",
                               "move row[2] to deck", setup=("shuffle deck",))
    return compiled(tmp_path_factory.mktemp("writes"), text).facts


def test_a_rule_writes(writing):
    assert writing.units["rule:flip"].writes == {
        ("attr", "face"), ("zone", "row", 1), ("zone", "*", None), ("pvar", "score"),
        ("table", "stock", "red"), ("var", "round")}


def test_writes_are_transitive_through_calls(writing):
    assert writing.units["rule:outer"].writes == set()
    assert writing.writes("rule:outer") == writing.writes("rule:flip")
    assert ("attr", "face") in writing.writes("play")
    # whose turn it is: set by the turns step
    assert ("current",) in writing.units["play"].writes


def test_each_statement_writes(writing):
    by_kind = {}
    for s in writing.statements:
        by_kind.setdefault((s.unit, s.kind), []).append(s)
    attr, move, score, stock, rnd = by_kind[("rule:flip", "Assign")][:1] + \
        by_kind[("rule:flip", "Move")] + by_kind[("rule:flip", "Assign")][1:]
    assert attr.writes == {("attr", "face")}
    assert score.writes == {("pvar", "score")}
    assert score.reads == {("current",), ("pvar", "score")}      # += reads it too
    assert stock.writes == {("table", "stock", "red")}
    assert rnd.writes == {("var", "round")} and rnd.reads == {("var", "round")}
    # a piece held by a parameter may come from any zone
    assert move.writes == {("zone", "row", 1), ("zone", "*", None)}
    # the pieces of a zone named, and the top of one: they leave that zone
    take, back = by_kind[("play", "Move")]
    assert take.writes == {("zone", "deck", None), ("zone", "row", 2)}
    assert back.writes == {("zone", "row", 2), ("zone", "deck", None)}
    call, = by_kind[("play", "Call")]
    assert call.writes == set() and call.calls == {"rule:outer"}
    assert writing.statement_writes(call) == writing.writes("rule:flip")


def test_a_decision_records_what_its_legal_actions_read(tmp_path):
    text = HEAD + play("id: pick\n        choose: t in deck where t.face == 'up' and "
                       "round < 2\n        do:\n          - round += 1")
    facts = compiled(tmp_path, text).facts
    assert facts.reads("decision:0") == {("zone", "deck", None), ("attr", "face"),
                                         ("var", "round")}
    assert facts.writes("decision:0") == set()      # its option's body is the rule's
    assert "decision:0" in facts.units["play"].calls


def test_scoring_and_kept_facts(tmp_path):
    text = HEAD + FUNCTIONS + """
scoring:
  points:
    best: {value: "player.score + stock['blue'] + size(player.hand)"}
""" + play("round += 1", "'if': all(leader() == 0 for t in deck)\n        then: []")
    prog = compiled(tmp_path, text)
    facts = prog.facts
    assert facts.reads("score:best") == {("pvar", "score"), ("table", "stock", "blue"),
                                         ("zone", "hand", None)}
    # Program.turn_facts: the kept facts whose unit reads whose turn it is
    assert all(facts.kept[k] for k in prog.turn_facts)
    assert set(prog.turn_facts) == {k for k, u in facts.kept.items()
                                    if ("current",) in facts.reads(u)}


# -- binding domains --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def domains(tmp_path_factory):
    choose = ("t in deck, c in slots(row), k in range(1, top_rank), n in [k + 1], s in steps, "
              "w in range(0, t.worth), z in [7], e in values(colour), p in players, "
              "b in [true, false], o in range(1, option.size), u in range(current, current + 2), "
              "r in range(0, round), x in cells(row)")
    text = HEAD + play(f"id: pick\n        choose: {choose}\n        do:\n          - round += 1")
    prog = compiled(tmp_path_factory.mktemp("domains"), text)
    names = "t c k n s w z e p b o u r x".split()
    return dict(zip(names, prog.decisions[0].alts[0].domains)), prog


@pytest.mark.parametrize("var, kind, lo, hi, values", [
    ("t", "piece", 0, 3, None),
    ("c", "values", None, None, (0, 1, 2)),            # slots of a zone: a constant list
    ("k", "values", None, None, (1, 2, 3, 4, 5)),      # range with constant ends
    ("n", "dependent", None, None, None),              # one value from the bindings before
    ("s", "values", None, None, (2, 4, 6)),            # a data list
    ("w", "interval", 0, 8, None),                     # a fixed attribute's range
    ("z", "value", None, None, (7,)),                  # one constant value
    ("e", "enum", 0, 1, ("red", "blue")),
    ("p", "player", 0, 1, None),
    ("b", "values", None, None, (False, True)),
    ("o", "values", None, None, (1, 2, 3)),            # an option's value
    ("u", "interval", 0, 3, None),                     # whose turn it is, + a constant
    ("r", "interval", 0, None, None),                  # an end the compiler cannot bound
])
def test_a_binding_domain(domains, var, kind, lo, hi, values):
    d = domains[0][var]
    assert (d.kind, d.lo, d.hi, d.values) == (kind, lo, hi, values)


def test_a_container_binding_domain(domains):
    found, prog = domains
    d = found["x"]
    z = prog.zones["row"]
    assert (d.kind, d.name, d.lo, d.hi) == ("container", "row", z.base, z.base + 2)


def test_a_spec_function_bounds_a_domain_by_its_value(tmp_path):
    text = HEAD + """
functions:
  span: {params: [p], value: "range(p * 3, p * 3 + 2)"}
  open: {value: "range(1, round)"}
""" + play("id: pick\n        choose: a in span(current), b in open()\n        do:\n"
           "          - round += 1")
    a, b = compiled(tmp_path, text).decisions[0].alts[0].domains
    assert (a.kind, a.lo, a.hi) == ("interval", 0, 5)
    assert (b.kind, b.lo, b.hi) == ("interval", 1, None)


# -- randomness -------------------------------------------------------------------------------
def test_randomness_found_where_it_is_drawn(tmp_path):
    text = HEAD + """
rules:
  deal:
    do:
      - move deck to current.hand shuffled
""" + play("call deal()", "id: roll\n        choose: d in range(1, 6)\n        player: chance\n"
           "        do:\n          - round += d", setup=("shuffle deck",))
    facts = compiled(tmp_path, text).facts
    assert facts.random
    assert [(d.kind, d.unit) for d in facts.randomness] == [
        ("shuffle", "setup"), ("shuffled move", "rule:deal"), ("chance decision", "decision:0")]
    assert ("random",) in facts.writes("rule:deal") and ("random",) in facts.writes("play")
    assert all(d.pos.line > 0 for d in facts.randomness)


def test_no_randomness_found_where_none_is_drawn(tmp_path):
    text = HEAD + play("move top(deck) to row[0]", "round += 1")
    facts = compiled(tmp_path, text).facts
    assert not facts.random and facts.randomness == ()
    assert not any(("random",) in facts.writes(u) for u in facts.units)


def test_the_program_answers_reads_and_writes(tmp_path):
    prog = compiled(tmp_path, HEAD + play("round += 1"))
    assert prog.reads("play") == prog.facts.reads("play") == {("var", "round")}
    assert prog.writes("play") == {("var", "round"), ("current",)}


# -- groups, grids, parameters that hold containers, the other scoring units --------------------
BOARD = """
game: {id: board, name: Board, source: a test, players: {min: 2, max: 2}, max_steps: 1000}
components:
  stone: {name: stone, count: 4, zone: pool}
zones:
  pool: {kind: stack, visibility: public}
  board: {kind: grid, width: 3, height: 3, visibility: public}
variables:
  done: {value: false}
functions:
  empty: {params: [c], value: size(c) == 0}
  corner_taken: {value: "size(board[0, 0]) > 0"}
  blob: {params: [c], value: "count(group(d from c where size(d) > 0 and current == 0))"}
play:
  - id: turn
    turns: {first: 0, until: done}
    do:
      - id: put
        choose: c in cells(board) where empty(c) and blob(c) >= 0 and not corner_taken()
        do:
          - move top(pool) to c
          - done = size(pool) == 0
scoring:
  points:
    stones: {value: size(board)}
  tiebreak:
    - {id: first, value: "if current == player then 1 else 0"}
invariants:
  bounded: {value: size(pool) <= 4}
"""


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return compiled(tmp_path_factory.mktemp("board"), BOARD)


def test_a_function_reads_the_container_its_parameter_holds(board):
    """empty(c) reads the pieces of the cell it is given: the zone of its type."""
    assert ("zone", "board", None) in board.facts.reads("function:empty")


def test_a_grid_cell_read_at_constant_coordinates(board):
    assert board.facts.reads("function:corner_taken") == {("zone", "board", 0)}


def test_a_group_records_what_its_condition_reads(board):
    facts = board.facts
    groups = [u for u in facts.units if u.startswith("group:")]
    assert groups == ["group:1"]
    # its cells are typed "a cell of any zone": the zone is not known statically
    assert facts.reads("group:1") == {("zone", "*", None), ("current",)}
    assert "group:1" in facts.units["function:blob"].calls
    # a kept group reads whose turn it is: its key is a turn fact
    assert [k for k, u in facts.kept.items() if u == "group:1"][0] in board.turn_facts


def test_tiebreaks_and_invariants_are_units(board):
    facts = board.facts
    assert facts.reads("score:stones") == {("zone", "board", None)}
    assert facts.reads("tiebreak:first") == {("current",)}
    assert facts.reads("invariant:bounded") == {("zone", "pool", None)}


def test_a_move_to_a_cell_in_hand_writes_its_zone(board):
    move, = [s for s in board.facts.statements if s.kind == "Move"]
    assert move.writes == {("zone", "pool", None), ("zone", "board", None)}


def test_the_records_as_plain_data(board):
    import json
    data = board.facts.as_data()
    assert json.loads(json.dumps(data)) == data
    assert data["units"]["function:corner_taken"]["reads"] == [["zone", "board", 0]]
    assert data["statements"][0][:2] == ["play", "Move"]


def test_an_update_reads_what_it_writes(tmp_path):
    facts = compiled(tmp_path, HEAD + play("round += 1")).facts
    s, = [s for s in facts.statements if s.kind == "Assign"]
    assert s.reads == s.writes == {("var", "round")}


def test_the_example_of_the_docs_records_what_they_say(tmp_path):
    """docs/compiler.md, "What the compiler records": its example spec and its records."""
    from conftest import ROOT
    text = (ROOT / "docs" / "compiler.md").read_text()
    section = text[text.index("## What the compiler records"):]
    spec = section[section.index("```yaml\n") + 8:section.index("```\n\nIt records")]
    prog = compiled(tmp_path, spec)
    facts = prog.facts
    assert [(d.kind, d.unit, d.pos.line, d.pos.col) for d in facts.randomness] == [
        ("shuffle", "setup", 12, 5)]
    d, = prog.decisions[0].alts[0].domains
    assert (d.kind, d.values) == ("values", (1, 2))
    zone = lambda z: ("zone", z, None)   # noqa: E731
    assert facts.reads("setup") == {zone("deck")}
    assert facts.writes("setup") == {zone("deck"), ("random",)}
    assert facts.reads("play") == {("current",), ("var", "rounds"), zone("deck"), zone("hand")}
    assert facts.writes("play") == {("current",), ("var", "rounds"), zone("deck"), zone("hand")}
    assert facts.units["play"].calls == {"decision:0"}
    assert facts.reads("function:best") == {zone("hand")}
    assert facts.units["score:high"].calls == {"function:best"}
    assert facts.reads("score:high") == {zone("hand")}
    assert [(s.unit, s.kind, f"{s.pos.line}:{s.pos.col}", s.reads, s.writes)
            for s in facts.statements] == [
        ("setup", "Shuffle", "12:5", {zone("deck")}, {zone("deck"), ("random",)}),
        ("play", "Move", "20:13", {("current",), zone("deck"), zone("hand")},
         {zone("deck"), zone("hand")}),
        ("play", "Assign", "21:13", {("var", "rounds")}, {("var", "rounds")})]
    assert facts.kept == {"F0": "function:best"} and prog.turn_facts == ()


# -- the summary against the generated code, in every shipped game ---------------------------
def _shipped():
    from action_layouts import spec_files
    return spec_files()


@pytest.mark.parametrize("path", _shipped(), ids=lambda p: p.name)
def test_the_summary_covers_what_the_generated_code_touches(path):
    """An oracle apart from the compiler's records: the generated code of every kept fact
    (and of what it calls) reads no variable, attribute or `current` that its unit's
    reads lack, and no zone if they name none; every variable, table entry and attribute
    the code assigns is among the writes of some unit. (Only this test reads the code.)"""
    import re

    from tabula_rules.compiler.driver import Compiler
    spec = load_spec(path)
    players = spec.player_range[0]
    comp = Compiler(spec.doc_for({}), players, spec.options(None, players), str(path))
    prog = comp.compile()
    texts = {ch[4:ch.index("(")]: ch for ch in prog.module.chunks}
    gv = {i: ("var", n) for i, n in enumerate(prog.gvar_names)}
    pv = {i: ("pvar", n) for i, n in enumerate(prog.pvar_names)}
    for t, (per, base, keys) in comp.tables.items():
        for j in range(len(keys)):
            (pv if per else gv)[base + j] = ("table", t)

    def touched(text: str, written: bool) -> set:
        tail = r"\s*[-+]?=(?!=)" if written else ""
        out = {gv[int(i)] for i in re.findall(r"st\.gv\[(\d+)\]" + tail, text)}
        out |= {pv[int(i)] for i in re.findall(r"st\.pv\[[^\]]*\]\[(\d+)\]" + tail, text)}
        out |= {("attr", prog.changeable[int(i)])
                for i in re.findall(r"st\.pa\[(\d+)\]\[[^\]]*\]" + tail, text)}
        if not written and "st.current" in text:
            out.add(("current",))
        return out

    def short(facts) -> set:
        return {f[:2] if f[0] == "table" else f for f in facts}
    kept = dict(comp.builtins.kept)
    for key, unit in prog.facts.kept.items():
        seen, todo, text = set(), [kept[key]], ""
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                text += texts.get(name, "")
                todo += re.findall(r"\b([FAG][0-9]+)\(", texts.get(name, ""))
        reads = prog.facts.reads(unit)
        assert touched(text, False) <= short(reads), (key, unit)
        if re.search(r"st\.slots|st\.where|B_pieces|B_zone_size|B_in_", text):
            assert any(f[0] == "zone" for f in reads), (key, unit)
    writes = set().union(*[prog.facts.writes(u) for u in prog.facts.units])
    assert touched("".join(texts.values()), True) <= short(writes)


def test_a_draw_names_its_step(tmp_path):
    text = HEAD + play("id: roll\n        choose: d in range(1, 6)\n        player: chance\n"
                       "        do:\n          - round += d", setup=("shuffle deck",))
    facts = compiled(tmp_path, text).facts
    assert [(d.kind, d.step) for d in facts.randomness] == [
        ("shuffle", "setup"), ("chance decision", "step:roll")]
