"""Facts dropped by what they read: a change drops only the kept tables whose unit reads
what it writes (analysis.touches, Facts.stale), in the cheapest generated form
(steps.stale_lines); a function compiled after the program keeps no facts.
tests/test_cache.py plays every spec and example with and without facts."""

import textwrap

from tabula_rules.compiler.analysis import ANY_ZONE, touches
from tabula_rules.spec import Spec

CARDS = """\
game: {id: cards, name: Cards, source: a test, players: {min: 2, max: 2}}
components:
  card: {name: "card {rank}", for_each: {rank: "range(1, 6)"}, zone: deck}
zones:
  deck: {kind: stack, visibility: public}
  hand: {kind: set, per_player: true, visibility: public}
  out: {kind: set, visibility: public}
variables:
  bonus: {value: 0}
  rounds: {value: 0}
functions:
  best: {params: [p], value: "max(t.rank for t in p.hand, 0) + bonus"}
  remaining: {value: "[t for t in deck]"}
  later: {params: [p], value: "[t for t in p.hand where t.rank > 2]"}
setup:
  - for: p in players
    do:
      - move top(deck) to p.hand
play:
  - id: turn
    turns: {first: 0, until: rounds >= 4}
    do:
      - rounds += 1
      - bonus += 1
      - id: pick
        choose: n in range(0, 9) where n <= best(current) + size(remaining())
        do:
          - move top(deck) to out
scoring:
  points:
    high: {value: best(player)}
"""


def game(tmp_path, text=CARDS, **kw):
    path = tmp_path / "cards.yaml"
    path.write_text(textwrap.dedent(text))
    return Spec(path).game(2, **kw)


def test_what_a_write_touches():
    board, hand = ("zone", "board", None), ("zone", "hand", None)
    assert touches(board, board) and not touches(board, hand)
    assert touches(("zone", ANY_ZONE, None), hand) and touches(hand, ("zone", ANY_ZONE, None))
    assert touches(("zone", "board", 3), board) and touches(board, ("zone", "board", 3))
    assert not touches(("zone", "board", 3), ("zone", "board", 4))
    assert touches(("table", "prey", None), ("table", "prey", "hare"))
    assert not touches(("table", "prey", "deer"), ("table", "prey", "hare"))
    assert not touches(("var", "a"), ("var", "b")) and touches(("var", "a"), ("var", "a"))
    assert not touches(("var", "a"), ("pvar", "a"))


def test_a_change_drops_only_the_facts_that_read_it(tmp_path):
    g = game(tmp_path)
    facts = g.prog.facts
    best, remaining = (next(k for k, u in facts.kept.items() if u == f"function:{name}")
                  for name in ("best", "remaining"))
    assert facts.stale(frozenset({("var", "bonus")})) == (best,)
    assert facts.stale(frozenset({("var", "rounds")})) == ()
    assert set(facts.stale(frozenset({("zone", "deck", None)}))) == {remaining}
    assert set(facts.stale(frozenset({("zone", ANY_ZONE, None)}))) == {best, remaining}
    # rounds += 1 drops nothing, bonus += 1 best's table, a card of the deck moved out
    # remaining's, dealt to a hand every table: the clear
    code = [line.strip() for line in "".join(g.prog.module.chunks).splitlines()] + [""]
    after = {line: code[i + 1] for i, line in enumerate(code[:-1])}
    const = {v: k for k, v in g.prog.module.ns.items() if isinstance(v, str)}
    assert after["st.gv[1] += 1"] == "st.gv[0] += 1"
    assert after["st.gv[0] += 1"] == f"st.facts.pop({const[best]}, None)"
    moves = [after[line] for line in code if line.startswith("R_move_one")]
    assert sorted(moves) == ["st.facts.clear()", f"st.facts.pop({const[remaining]}, None)"]
    st = g.new_state(seed=1)
    st.legal_actions()
    assert set(st.facts) == {best, remaining}


def test_the_games_are_the_same_with_and_without_facts(tmp_path):
    cached, uncached = game(tmp_path), game(tmp_path, cache=False)
    assert "st.facts" not in "".join(uncached.prog.module.chunks)   # nothing to drop
    for seed in range(6):
        a, b = cached.new_state(seed=seed), uncached.new_state(seed=seed)
        while not a.terminal:
            assert a.legal_actions() == b.legal_actions()
            act = a.legal_actions()[seed % len(a.legal_actions())]
            a.apply(act)
            b.apply(act)
        assert a.scores() == b.scores()


def test_a_function_compiled_after_the_program_keeps_no_facts(tmp_path):
    """The statements were compiled knowing every kept table: a table first made by an
    expression compiled later (a tool's) would never be dropped."""
    g = game(tmp_path)
    kept = set(g.prog.facts.kept)
    st = g.new_state(seed=1)
    fn = g.prog.compile_expression("size(later(current)) + best(current)")
    assert fn(st) == fn(st)
    assert set(st.facts) <= kept
