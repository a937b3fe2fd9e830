"""Exact fractions (`/`) and unordered zones (`ordered: false`), on small inline specs."""

import json
import textwrap
from fractions import Fraction

import pytest

from tabula_rules import RuleError, SpecError
from tabula_rules.runtime.engine import State
from tabula_rules.runtime.values import decode, encode
from tabula_rules.spec import Spec
from tabula_rules.tools.cli import main
from tabula_rules.tools.gamelog import read_log
from tabula_rules.tools.replay import check_full
from tabula_rules.tools.scenario import run_file
from tabula_rules.tools.simulate import run_batch

BASE = """\
game: {id: v, name: V, source: none, players: {min: 2, max: 3}}
components:
  card:
    name: "c{n}"
    for_each: {n: "[1, 2, 3, 4, 5, 6]"}
    attributes: {half: "n / 2"}
    zone: deck
zones:
  deck: {kind: stack, visibility: count}
  pile: {kind: stack, visibility: public}
  heap: {kind: set, visibility: public, ordered: false}
  hand: {kind: set, per_player: true, visibility: owner, ordered: false}
  spots: {kind: columns, size: 2, visibility: public, ordered: false}
  tray: {kind: row, capacity: 3, visibility: public, ordered: false}
variables:
  x: {value: 0, type: number}
  y: {value: 0, type: number}
  n: {value: 0}
  word: {value: "", type: text}
  vp: {value: 0, per_player: true, type: number}
  pool: {value: {red: 0, blue: 0}, per_player: true, type: number}
"""


def write(tmp_path, body: str, name: str = "v.yaml"):
    path = tmp_path / name
    path.write_text(BASE + textwrap.dedent(body))
    return path


def make(tmp_path, body: str, players: int = 2, **options):
    return Spec(write(tmp_path, body)).game(players, options or None)


def compile_error(tmp_path, body: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        make(tmp_path, body)
    return info.value


def line_of(tmp_path, text: str, name: str = "v.yaml") -> tuple:
    """(line, column) of `text` in the spec file, 1-based."""
    for i, line in enumerate((tmp_path / name).read_text().splitlines(), 1):
        if text in line:
            return i, line.index(text) + 1
    raise AssertionError(text)


def values(st, *names):
    prog = st.prog
    return [st.gv[prog.gvar_names.index(n)] for n in names]


# ---- fractions ----------------------------------------------------------------------------

def test_division_is_exact_and_whole_results_are_ints(tmp_path):
    st = make(tmp_path, """
        play:
          - x = 7 / 3
          - y = x + 2 / 3
          - n = (7 / 3) // 1
    """).new_state()
    x, y, n = values(st, "x", "y", "n")
    assert x == Fraction(7, 3) and type(x) is Fraction
    assert y == 3 and type(y) is int               # 7/3 + 2/3 is the int 3
    assert n == 2 and type(n) is int


@pytest.mark.parametrize("expr, value", [
    ("1 / 2 + 1 / 3", Fraction(5, 6)),
    ("1 / 2 + 1 / 2", 1),
    ("(1 / 2) * 4", 2),
    ("2 - 1 / 3", Fraction(5, 3)),
    ("-(3 / 4)", Fraction(-3, 4)),
    ("abs(1 / 2 - 1)", Fraction(1, 2)),
    ("(7 / 2) % 1", Fraction(1, 2)),
    ("(3 / 2) % (1 / 2)", 0),
    ("(-7 / 2) // 1", -4),
    ("sum(c.half for c in deck)", Fraction(21, 2)),
    ("sum([1 / 2, 1 / 3, 1 / 6])", 1),
    ("max(c.half for c in deck)", 3),
    ("min(1 / 3, 1 / 4)", Fraction(1, 4)),
    ("max([1 / 3, 2 / 7])", Fraction(1, 3)),
    ("if 1 / 3 < 1 / 2 then 1 / 3 else 1", Fraction(1, 3)),
    ("size(deck) / 4", Fraction(3, 2)),
    ("6 / 3", 2),
    ("first(c.half for c in deck where c.half > 1)", Fraction(3, 2)),
    ("tally(c.half for c in deck)[3 / 2]", 1),
])
def test_fraction_arithmetic(tmp_path, expr, value):
    st = make(tmp_path, f"""
        play:
          - x = {expr}
    """).new_state()
    got, = values(st, "x")
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("cond, expected", [
    ("7 / 3 > 2", True), ("7 / 3 < 5 / 2", True), ("2 / 4 == 1 / 2", True),
    ("4 / 2 == 2", True), ("1 / 3 != 2 / 6", False), ("1 / 3 in [2 / 6, 1]", True),
    ("c.half == 1 / 2", True), ("rank(1 / 2, [1 / 3, 1, 1 / 2]) == 2", True),
])
def test_fraction_comparisons(tmp_path, cond, expected):
    st = make(tmp_path, f"""
        play:
          - let c = bottom(deck)
          - if: {cond}
            then:
              - n = 1
    """).new_state()
    assert values(st, "n") == [int(expected)]


def test_assignments_keep_fractions_exact(tmp_path):
    st = make(tmp_path, """
        play:
          - current.vp += 1 / 3
          - current.vp += 2 / 3
          - current.pool['red'] += 1 / 2
          - current.pool['red'] -= 1 / 4
          - let t = 0 / 1
          - t += 1 / 2
          - t += 1 / 2
          - x = t
    """).new_state()
    assert st.pv[0][0] == 1 and type(st.pv[0][0]) is int
    assert st.pv[0][1] == Fraction(1, 4)
    assert values(st, "x") == [1] and type(values(st, "x")[0]) is int


def test_a_label_prints_a_fraction(tmp_path):
    st = make(tmp_path, """
        play:
          - choose: k in [1 / 2, 2 / 3, 2 / 2]
            label: "take {k} ({k * 3} points)"
            do:
              - x = k
    """).new_state()
    assert st.legal_action_strings() == ["take 1/2 (3/2 points)", "take 2/3 (2 points)",
                                         "take 1 (3 points)"]
    st.apply_string("take 2/3 (2 points)")
    assert values(st, "x") == [Fraction(2, 3)]


def test_division_by_zero_is_a_located_rule_error(tmp_path):
    game = make(tmp_path, """
        play:
          - x = 1 / (size(deck) - 6)
    """)
    with pytest.raises(RuleError) as info:
        game.new_state()
    assert "division by zero" in info.value.message
    assert (info.value.pos.line, info.value.pos.col) == line_of(tmp_path, "1 / (size")


@pytest.mark.parametrize("step, where, message", [
    ("- repeat: 3 / 2\n  do: ['n += 1']", "3 / 2", "a repeat count must be a whole number"),
    ("- move top(deck, 1 / 2) to pile", "1 / 2", "the count of top() must be a whole number"),
    ("- let r = range(1, 5 / 2)", "5 / 2", "the last number of range() must be a whole"),
    ("- move top(deck) to spots[1 / 2]", "1 / 2", "a slot number must be a whole number"),
    ("- n = [4, 5, 6][3 / 2]", "3 / 2", "an index must be a whole number"),
    ("- n = 1 / 2", "1 / 2", "this variable holds whole numbers"),
    ("- n += x", "x", "this variable holds whole numbers"),
    ("- let k = 0\n- k += 1 / 2", "1 / 2", "this local holds whole numbers"),
    ("- choose: c in deck\n  player: 1 / 2\n  do: ['n = 1']", None,
     "the deciding player must be a whole number"),
    ("- let p = next_player(1 / 2)", "1 / 2", "the player of next_player() must be a whole"),
    ("- n = x + top(deck)", "top(deck)", "an operand of '+' must be a number, not a piece"),
])
def test_a_fraction_where_a_whole_number_is_needed_is_refused(tmp_path, step, where,
                                                              message):
    body = "play:\n" + textwrap.indent(step, "  ") + "\n"
    err = compile_error(tmp_path, body)
    assert message in err.message
    if where is not None:
        text = next(t for t in step.splitlines() if where in t).lstrip("- ")
        line, col = line_of(tmp_path, text)
        assert (err.pos.line, err.pos.col) == (line, col + text.index(where))
    if "whole" in message:                      # the hint says how to get a whole number
        assert any(h in err.hint for h in ("x // 1", "type: number", "let n = 0 / 1")), err.hint


def test_a_zone_size_or_capacity_must_be_whole(tmp_path):
    path = tmp_path / "z.yaml"
    path.write_text(BASE.replace("  pile: {kind: stack, visibility: public}",
                                 '  pile: {kind: stack, visibility: public, capacity: "5 / 2"}')
                    + "play: []\n")
    with pytest.raises(SpecError) as info:
        Spec(path).game(2)
    assert "capacity must be a whole number, not 5/2" in info.value.message
    assert info.value.pos.line == line_of(tmp_path, "capacity:", "z.yaml")[0]


def test_a_rule_parameter_keeps_whole_numbers_from_its_first_call(tmp_path):
    err = compile_error(tmp_path, """
        rules:
          deal:
            params: [k]
            repeat: k
            do:
              - move top(deck) to pile
        play:
          - call deal(2)
          - call deal(3 / 2)
    """)
    assert "takes a whole number as k" in err.message
    assert err.pos.line == line_of(tmp_path, "call deal(3 / 2)")[0]


def test_decimal_numbers_are_refused_where_written(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(BASE + "data:\n  rate: {value: 0.5}\nplay: []\n")
    with pytest.raises(SpecError) as info:
        Spec(path).game(2)
    assert "0.5 is a decimal number" in info.value.message and "1/2" in info.value.hint
    assert info.value.pos.line == line_of(tmp_path, "rate:", "d.yaml")[0]


def test_fractional_scores_returns_and_tiebreakers(tmp_path):
    st = make(tmp_path, """
        play:
          - move top(deck) to current.hand
          - move top(deck) to next_player(current).hand
          - current.vp = 1 / 3
        scoring:
          points:
            halves: {value: sum(c.half for c in player.hand)}
            bonus: {value: player.vp}
          tiebreak:
            - id: half_vp
              value: player.vp / 2
    """).new_state()
    # player 0: c6 (3) + 1/3; player 1: c5 (5/2)
    assert st.points() == {"halves": [3, Fraction(5, 2)], "bonus": [Fraction(1, 3), 0]}
    assert st.scores() == [Fraction(10, 3), Fraction(5, 2)]
    assert st.returns() == st.scores() and st.winners() == [0]
    assert st.tiebreak_keys() == [(Fraction(1, 6),), (0,)]
    obs = st.observation(1)
    assert obs["scores"] == ["10/3", "5/2"] and obs["player_variables"]["vp"] == {
        "0": "1/3", "1": 0}
    json.dumps(obs)


def test_whole_scores_stay_ints(tmp_path):
    st = make(tmp_path, """
        play:
          - current.vp = 1 / 2
          - next_player(current).vp = 3 / 2
        scoring:
          points:
            a: {value: player.vp}
            b: {value: 1 / 2}
    """).new_state()
    assert st.scores() == [1, 2] and all(type(s) is int for s in st.scores())


# ---- JSON ---------------------------------------------------------------------------------

def test_the_json_encoding_of_values():
    assert encode([1, Fraction(7, 3), Fraction(-1, 2), "7/3", "\\7/3", "a/b", None, True]) == \
        [1, "7/3", "-1/2", "\\7/3", "\\\\7/3", "a/b", None, True]
    assert encode((0, 1, Fraction(1, 2), Fraction(4, 2))) == [0, 1, "1/2", 2]
    assert encode({Fraction(1, 2): 1, "x": Fraction(3, 2)}) == {"1/2": 1, "x": "3/2"}
    data = [1, Fraction(7, 3), "7/3", "\\7/3", ["x", Fraction(-5, 4)], {"k": Fraction(1, 9)}]
    assert decode(json.loads(json.dumps(encode(data)))) == data
    assert decode("4/2") == 2 and type(decode("4/2")) is int
    with pytest.raises(ValueError):
        decode("1/0")


def test_a_state_holding_fractions_round_trips_through_json(tmp_path):
    game = make(tmp_path, """
        play:
          - x = 5 / 7
          - word = '7/3'
          - current.vp = -1 / 2
          - let carried = 1 / 3
          - for: k in [1 / 4, 1 / 5]
            do:
              - choose: c in current.hand
                label: "{c} at {k}"
                do: []
                else:
                  - choose: t in [1 / 2, 3 / 2]
                    label: "t {t} {carried}"
                    do:
                      - y += t + carried + k
    """)
    st = game.new_state()
    assert st.legal_action_strings() == ["t 1/2 1/3", "t 3/2 1/3"]
    st.apply(st.legal_actions()[1])
    text = st.to_json_text()
    assert '"5/7"' in text and '"\\\\7/3"' in text and '"-1/2"' in text
    back = State.from_json(game, json.loads(text))
    assert back.to_json_text() == text
    assert values(back, "x", "y", "word") == [Fraction(5, 7), Fraction(3, 2) + Fraction(1, 3)
                                              + Fraction(1, 4), "7/3"]
    assert back.history == st.history and back.history[0][2] == Fraction(3, 2)
    for s in (st, back):
        s.apply(s.legal_actions()[0])
    assert back.to_json_text() == st.to_json_text() and st.is_terminal()


def test_run_json_logs_and_replays_encode_fractions(tmp_path, capsys):
    path = write(tmp_path, """
        play:
          - turns:
              first: 0
              until: size(deck) == 0
            do:
              - choose: k in [1 / 2, 1 / 3]
                label: "gain {k}"
                do:
                  - current.vp += k
                  - move top(deck) to pile
        scoring:
          points:
            vp: {value: player.vp}
    """)
    assert main(["run", str(path), "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert all(isinstance(s, (int, str)) for s in out["scores"] + out["returns"])
    assert out["scores"] == out["returns"] == out["points"]["vp"]
    assert any(isinstance(s, str) and "/" in s for s in out["scores"]), out
    log = tmp_path / "game.jsonl"
    assert main(["run", str(path), "--seed", "3", "--log", str(log)]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows[1]["tuple"][2] in ("1/2", "1/3")
    assert rows[-1]["scores"] == out["scores"]
    game = Spec(path).game(2)
    st = check_full(read_log(log), game)
    assert encode(st.scores()) == out["scores"]
    assert main(["replay", str(log)]) == 0
    player_log = tmp_path / "p0.jsonl"
    assert main(["run", str(path), "--seed", "3", "--log", str(player_log), "--for", "0"]) == 0
    assert json.loads(player_log.read_text().splitlines()[-1])["scores"] == out["scores"]


def test_simulate_records_and_statistics_with_fractional_scores(tmp_path):
    path = write(tmp_path, """
        play:
          - choose: k in [1 / 2, 1 / 3, 1]
            do:
              - current.vp = k
        scoring:
          points:
            vp: {value: player.vp}
    """)
    out = tmp_path / "records.jsonl"
    summary = run_batch(str(path), 30, players=2, workers=1, out=str(out), seed=5)
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(recs) == 30 and not summary.failed
    seen = {r["scores"][0] for r in recs}
    assert seen == {"1/2", "1/3", 1}
    mean = sum(float(decode(r["scores"][0])) for r in recs) / 30
    assert summary.score_mean_by_seat[0] == pytest.approx(mean)
    json.dumps(summary.to_dict())
    from tabula_rules.tools.compare import compare_records
    compare_records(summary.records, summary.records, [], [])
    from tabula_rules.tools.report import render_report
    assert "Scores" in render_report(summary)


def test_a_scenario_expects_fractions(tmp_path):
    write(tmp_path, """
        play:
          - x = 1 / 3
          - current.vp = 5 / 2
        scoring:
          points:
            vp: {value: player.vp}
    """)
    sc = tmp_path / "s.yaml"
    sc.write_text(textwrap.dedent("""
        spec: v.yaml
        scenarios:
          - id: fractions
            given: {start: setup}
            expect:
              terminal: true
              variables: {x: '1/3', vp: {0: '5/2', 1: 0}}
              scores: ['5/2', 0]
              points: {vp: ['5/2', 0]}
          - id: wrong
            given: {start: setup}
            expect:
              scores: ['5/3', 0]
    """))
    results = run_file(sc)
    assert [r.passed for r in results] == [True, False], results
    assert results[1].message == "scores: expected ['5/3', 0], found [5/2, 0]"


# ---- unordered zones ----------------------------------------------------------------------

def arrivals(tmp_path, order: str, extra: str = ""):
    path = tmp_path / f"a_{order}.yaml"
    path.write_text(BASE + textwrap.dedent("""
        options:
          order: {default: up, choices: [up, down]}
        play:
          - if: option.order == 'up'
            then:
              - for: c in list(deck)
                do:
                  - move c to current.hand
            else:
              - move top(deck) to current.hand
              - move top(deck, 2) to current.hand
              - move deck to current.hand
          - move top(deck, 0) to heap
          - choose: c in current.hand
            label: "discard {c} ({c.half})"
            do:
              - move c to heap
    """))
    return Spec(path).game(2, {"order": order}).new_state()


def test_arrival_order_never_shows(tmp_path):
    up, down = arrivals(tmp_path, "up"), arrivals(tmp_path, "down")
    assert up.slots != [] and up.slots == down.slots
    for p in (0, 1):
        assert up.observation(p) == down.observation(p)
    assert up.legal_actions() == down.legal_actions()
    assert up.legal_action_strings() == down.legal_action_strings() == [
        f"discard c{n} ({Fraction(n, 2) if n % 2 else n // 2})" for n in range(1, 7)]
    for st in (up, down):
        st.apply_string("discard c4 (2)")
        assert st.is_terminal()
    assert up.observation(0) == down.observation(0)
    assert up.observation(0)["zones"]["heap"] == ["c4"]
    assert up.observation(0)["zones"]["hand"]["0"] == ["c1", "c2", "c3", "c5", "c6"]


def test_a_set_keeps_arrival_order_unless_unordered(tmp_path):
    st = make(tmp_path, """
        play:
          - move top(deck) to heap
          - move bottom(deck) to heap
          - move top(deck) to pile
          - move bottom(deck) to pile
    """).new_state()
    names = st.prog.piece_names
    assert [names[p] for p in st.slots[st.prog.zones["heap"].base]] == ["c1", "c6"]
    assert [names[p] for p in st.slots[st.prog.zones["pile"].base]] == ["c5", "c2"]
    assert st.prog.zones["pile"].ordered and not st.prog.zones["heap"].ordered
    doc = BASE.replace("heap: {kind: set, visibility: public, ordered: false}",
                       "heap: {kind: set, visibility: public}")
    (tmp_path / "s.yaml").write_text(doc + textwrap.dedent("""
        play:
          - move top(deck) to heap
          - move bottom(deck) to heap
    """))
    st = Spec(tmp_path / "s.yaml").game(2).new_state()
    assert [st.prog.piece_names[p] for p in st.slots[st.prog.zones["heap"].base]] == \
        ["c6", "c1"]       # kind: set keeps arrival order by default


def test_moves_swaps_and_refills_keep_piece_order(tmp_path):
    st = make(tmp_path, """
        play:
          - move top(deck, 3) to spots[1]
          - move bottom(deck) to spots[1]
          - move top(deck) to pile
          - swap top(pile) with first(c for c in spots[1] where c.n == 1)
          - refill tray from deck
    """).new_state()
    names = st.prog.piece_names
    spots = st.prog.zones["spots"]
    # spots[1] got c6 c5 c4, then c1; c3 (on the pile) was swapped with c1
    assert [names[p] for p in st.slots[spots.slot(0, 1)]] == ["c3", "c4", "c5", "c6"]
    assert [names[p] for p in st.slots[st.prog.zones["pile"].base]] == ["c1"]
    assert [names[p] for p in st.slots[st.prog.zones["tray"].base]] == ["c2"]


@pytest.mark.parametrize("step, where, what", [
    ("- let t = top(heap)", "heap)", "top() needs an order, and zone 'heap' is unordered"),
    ("- let t = bottom(current.hand, 2)", "hand,", "bottom() needs an order"),
    ("- let t = first(heap)", "heap)", "first() needs an order"),
    ("- let l = levels(spots)", "spots)", "levels() needs an order"),
    ("- let r = row(spots, 1)", "spots,", "row() needs an order"),
    ("- shuffle heap", "heap", "shuffle needs an order"),
    ("- move top(deck) to bottom of heap", "heap", "moving to the bottom needs an order"),
    ("- move deck to heap shuffled", "heap shuffled", "moving shuffled needs an order"),
    ("- refill pile from heap", "heap", "refill (it takes the top pieces) needs an order"),
])
def test_order_only_operations_on_an_unordered_zone_are_refused(tmp_path, step, where, what):
    err = compile_error(tmp_path, "play:\n" + textwrap.indent(step, "  ") + "\n")
    assert what in err.message and "ordered: false" in err.hint
    line, col = line_of(tmp_path, step[2:])
    assert (err.pos.line, err.pos.col) == (line, col + step[2:].index(where))


@pytest.mark.parametrize("expr", ["level(c)", "under(c)", "below(c)", "left(c)",
                                  "top(cell(c))"])
def test_order_only_reads_of_a_piece_in_an_unordered_zone_fail_when_run(tmp_path, expr):
    game = make(tmp_path, f"""
        play:
          - move top(deck) to pile
          - move top(deck) to heap
          - let p = {expr.replace('(c)', '(top(pile))')}
          - let c = first(c for c in heap)
          - let q = {expr}
    """)
    with pytest.raises(RuleError) as info:
        game.new_state()
    assert "needs an order" in info.value.message and "heap keeps none" in info.value.message
    assert info.value.pos.line == line_of(tmp_path, f"let q = {expr}")[0]


def test_unordered_zones_clone_and_round_trip(tmp_path):
    game = make(tmp_path, """
        play:
          - move top(deck, 3) to heap
          - choose: c in heap
            do:
              - move c to pile
              - move top(deck) to heap
              - move top(pile) to heap
    """)
    st = game.new_state()
    heap = st.prog.zones["heap"].base
    assert st.slots[heap] == [3, 4, 5]
    copy = st.clone()
    back = State.from_json(game, json.loads(st.to_json_text()))
    for s in (st, copy, back):
        s.apply(s.legal_actions()[1])
        assert s.slots[heap] == [2, 3, 4, 5]
        assert s.where[2] == heap
    assert copy.to_json_text() == st.to_json_text() == back.to_json_text()


def test_a_saved_or_given_heap_is_put_in_piece_order(tmp_path):
    game = make(tmp_path, """
        play:
          - move top(deck, 2) to heap
          - choose: c in heap
            do: []
    """)
    st = game.new_state()
    d = json.loads(st.to_json_text())
    heap = st.prog.zones["heap"].base
    d["slots"][heap].reverse()
    assert State.from_json(game, d).slots[heap] == [4, 5]
    write(tmp_path, "play:\n  - choose: c in heap\n    do: []\n", "g.yaml")
    sc = tmp_path / "sc.yaml"
    sc.write_text(textwrap.dedent("""
        spec: g.yaml
        scenarios:
          - id: given
            given:
              zones:
                heap: [c5, c2, c4]
            expect:
              legal: ['c2', 'c4', 'c5']
              zones: {heap: [c2, c4, c5]}
          - id: listed_in_any_order
            given:
              zones:
                spots: [[], [c6, c1]]
            expect:
              zones: {spots: [[], [c6, c1]], heap: []}
    """))
    results = run_file(sc)
    assert [r.passed for r in results] == [True, True], results


def test_a_determinized_copy_keeps_heaps_in_piece_order(tmp_path):
    import random
    game = make(tmp_path, """
        play:
          - for: p in players
            do:
              - move top(deck, 3) to p.hand
          - choose: c in current.hand
            do: []
    """)
    st = game.new_state()
    for seed in range(10):
        new = st.resample(0, random.Random(seed))
        for s in st.prog.heaps:
            assert new.slots[s] == sorted(new.slots[s])
        assert new.observation(0) == st.observation(0)


def test_the_generated_code_uses_only_its_own_names(tmp_path):
    import io
    import tokenize

    from helpers import GENERATED
    game = make(tmp_path, """
        play:
          - move top(deck, 2) to heap
          - move top(deck) to pile
          - let c = first(c for c in heap)
          - x = sum(c.half for c in heap) / 3 + x % (1 / 2)
          - current.vp += x
          - if: level(top(pile)) == 1 and top(cell(top(pile))) != none
            then:
              - move top(pile) to cell(c)
          - swap c with top(deck)
    """)
    game.new_state()
    code = "".join(game.prog.module.chunks)
    for helper in ("B_frac", "B_num", "B_ordered", "B_ordered_piece", "R_move_sorted"):
        assert helper in code
    names = {t.string for t in tokenize.generate_tokens(io.StringIO(code).readline)
             if t.type == tokenize.NAME}
    assert {n for n in names if not GENERATED.fullmatch(n)} == set()
