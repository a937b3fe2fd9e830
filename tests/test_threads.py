"""Two games in two threads are independent (issue 19, item 4): each compiled game has its
own work budget and the engine keeps no state for the process, so games played at once
in two threads give, move for move, the games played one after the other; a game that
spends most of its budget in a step is not stopped by another game's spending, and a
game that exceeds its budget fails at the same place as when it runs alone."""

from __future__ import annotations

import sys
import textwrap
import threading

import pytest

from tabula_rules import RuleError, load_game
from tabula_rules.bots.agents import make_agents, play_game
from tabula_rules.spec import Spec

from conftest import ROOT


def _in_threads(*jobs) -> list:
    """Run each job (a function of no argument) in a thread of its own, all at once;
    their results (or the exception each raised), in order."""
    results: list = [None] * len(jobs)
    start = threading.Barrier(len(jobs))

    def run(i, job):
        start.wait()
        try:
            results[i] = job()
        except Exception as exc:  # noqa: BLE001  returned, to be compared
            results[i] = exc
    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)              # switch often: the games interleave finely
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    return results


def _games(path, players: int, agents: str, seeds) -> list:
    """Each seed's game, move for move: (the actions as strings, the scores)."""
    game = load_game(path, players=players)
    out = []
    for seed in seeds:
        r = play_game(game, seed, make_agents(agents, players))
        out.append((r["actions"], r["scores"], r["winners"]))
    return out


def test_two_games_in_two_threads_play_as_they_do_alone():
    """Medang (hidden hands: the greedy seat resamples them, State.resample) and Medina,
    many random games each, at once in two threads and then one after the other."""
    medang = (ROOT / "specs" / "medang", 3, "random,greedy,random", range(24))
    medina = (ROOT / "specs" / "medina", 2, "random", range(3))
    together = _in_threads(lambda: _games(*medang), lambda: _games(*medina))
    for r in together:
        assert not isinstance(r, Exception), r
    alone = [_games(*medang), _games(*medina)]
    assert together == alone
    assert len({tuple(map(str, g[0])) for g in alone[0]}) == 24     # 24 different games


SPEND = """\
game: {{id: spend{outer}, name: Spend, source: none, players: {{min: 2, max: 2}}}}
data:
  outer: {{value: {outer}}}
variables:
  x: {{value: 0, type: number}}
  n: {{value: 0, type: number}}
play:
  - turns:
      first: 0
      until: x >= {rounds}
    do:
      - choose: k in [1, 2]
        label: "add {{k}}"
        do:
          - n = count(1 for i in range(0, outer)
              where count(j for j in range(i, i + 99999) while j <= i) > 0)
          - x += k
"""


def _spender(tmp_path, outer: int, rounds: int):
    """A game each of whose decisions takes about outer x 100000 items of the work budget
    (10,000,000 a step): 90 takes nine tenths of it, 101 more than all of it. A
    generator's items are counted before it takes any, so the inner count spends 99,999
    and takes two (its `while`); it reads i, or it would be computed once, not per i."""
    path = tmp_path / f"spend{outer}.yaml"
    path.write_text(textwrap.dedent(SPEND.format(outer=outer, rounds=rounds)))
    return Spec(path).game(2)


def _spend(game, decisions: int | None = None):
    """Play the first action until the end (or for `decisions`): the game's last state's
    variables, or the RuleError it raised, with its place."""
    st = game.new_state(seed=0)
    n = 0
    try:
        while not st.terminal and (decisions is None or n < decisions):
            st.apply(st.legal_actions()[0])
            n += 1
    except RuleError as exc:
        return ("failed", n, exc.message, exc.pos)
    return ("played", n, list(st.gv))


def test_one_game_does_not_spend_the_work_budget_of_another(tmp_path):
    """A game whose every step takes 9/10 of its budget, while another game takes half of
    its own at every step in another thread: with one budget for the process, the two
    would add up beyond it as the threads interleave (and each would reset the other's);
    each game has its own, so both play as they do alone."""
    heavy = _spender(tmp_path, 90, 3)
    half = _spender(tmp_path, 50, 6)
    assert heavy.prog.work is not half.prog.work
    together = _in_threads(lambda: _spend(heavy), lambda: _spend(half))
    alone = [_spend(heavy), _spend(half)]
    assert alone == [("played", 3, [3, 91]), ("played", 6, [6, 51])]
    assert together == alone


def test_a_game_beyond_its_budget_fails_as_it_does_alone(tmp_path):
    """One game exceeds its work budget in its first step while another game plays in
    another thread: the first fails at the same place with the same error as alone, the
    other plays on as alone."""
    over = _spender(tmp_path, 101, 3)
    light = _spender(tmp_path, 10, 40)
    together = _in_threads(lambda: _spend(over), lambda: _spend(light))
    alone = [_spend(over), _spend(light)]
    assert alone[0][:2] == ("failed", 0) and "items taken by generators" in alone[0][2]
    assert together == alone


@pytest.mark.parametrize("threads", [4])
def test_threads_loading_one_spec_share_one_load(threads):
    """load_spec from several threads at once: one Spec (spec.SpecCache's lock)."""
    from tabula_rules.spec import SPECS, load_spec
    SPECS.clear()
    got = _in_threads(*[lambda: load_spec(ROOT / "examples" / "tiny")] * threads)
    assert all(g is got[0] for g in got)


def test_two_specs_compile_at_once_as_they_do_alone():
    """Compiling is per thread too (the parser's budget of rule text, lang/parser.py): two
    specs compiled at once, each from a fresh Spec, give the code they give alone."""
    paths = [ROOT / "specs" / "medina", ROOT / "specs" / "middag"]

    def code(path):
        return "".join(Spec(path / f"{path.name}.yaml").game().prog.module.chunks)
    together = _in_threads(*[lambda p=p: code(p) for p in paths])
    assert together == [code(p) for p in paths]
