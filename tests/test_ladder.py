"""tabula ladder (tools/ladder.py): the Bradley-Terry fit, its intervals, the schedule's
rotated seats, determinism across workers, the command line in text and JSON, bad input."""

import json
import math
import xml.etree.ElementTree as ET

import pytest

from tabula_rules import TabulaError
from tabula_rules.tools import cli, ladder
from tabula_rules.tools.simulate import game_seed

GAME = "tic_tac_toe"


def _results(wins: int, losses: int) -> list:
    return [("A", "B", 1.0)] * wins + [("A", "B", 0.0)] * losses


def test_bradley_terry_recovers_a_known_strength_ratio():
    bt = ladder.bradley_terry(["A", "B"], _results(3000, 1000))
    diff = bt["rating"]["A"] - bt["rating"]["B"]
    assert diff == pytest.approx(400 * math.log10(3), abs=0.5)
    assert bt["rating"]["A"] == pytest.approx(-bt["rating"]["B"])   # mean 0


def test_bradley_terry_three_agents_transitive_and_draws_count_half():
    res = (_results(300, 100) + [("B", "C", 1.0)] * 300 + [("B", "C", 0.0)] * 100
           + [("A", "C", 1.0)] * 900 + [("A", "C", 0.0)] * 100)
    r = ladder.bradley_terry(["A", "B", "C"], res)["rating"]
    assert r["A"] > r["B"] > r["C"]
    assert r["A"] - r["C"] == pytest.approx(400 * math.log10(9), rel=0.02)
    draws = ladder.bradley_terry(["A", "B"], [("A", "B", 0.5)] * 50)["rating"]
    assert draws["A"] == pytest.approx(0.0, abs=1e-6)


def test_intervals_widen_with_fewer_games():
    few = ladder.bradley_terry(["A", "B"], _results(6, 2))["se"]["A"]
    many = ladder.bradley_terry(["A", "B"], _results(600, 200))["se"]["A"]
    assert few > 5 * many > 0


def test_an_agent_that_never_loses_stays_finite():
    bt = ladder.bradley_terry(["A", "B"], _results(20, 0))
    assert math.isfinite(bt["rating"]["A"]) and bt["rating"]["A"] > 300


def test_the_schedule_rotates_every_seat_evenly():
    agents = ["a", "b", "c", "d"]
    for players, games in ((2, 3), (3, 4)):
        n = ladder.per_table(games, players)
        assert n % players == 0 and n >= games
        tables = ladder.tables(agents, players)
        seats = {}
        for i in range(n * len(tables)):
            for s, a in enumerate(ladder.seating(agents, players, games, i)):
                seats[(a, s)] = seats.get((a, s), 0) + 1
        for a in agents:
            assert len({seats[(a, s)] for s in range(players)}) == 1


def _run(workers: int):
    return ladder.run_ladder(GAME, "random,greedy", 4, game_seed, seed=3, workers=workers)


def test_the_same_ladder_whatever_the_workers():
    def plain(lad):
        d = lad.to_dict()
        d.pop("timing")
        for r in d["ratings"]:
            r.pop("cpu_per_decision")
        return json.dumps(d, sort_keys=True)
    one, two = _run(1), _run(2)
    assert plain(one) == plain(two)
    assert one.games == 4 and one.failed == 0
    for r in one.ratings:
        assert r["games_by_seat"] == [2, 2]


def test_the_command_in_json_and_text(capsys, tmp_path):
    plot = tmp_path / "ladder.svg"
    assert cli.main(["ladder", GAME, "--agents", "random,greedy", "--games", "2",
                     "--workers", "1", "--json", "--plot", str(plot)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "tabula-ladder/1"
    assert [r["agent"] for r in data["ratings"]] and data["games"] == 2
    assert {r["agent"] for r in data["ratings"]} == {"random", "greedy"}
    assert data["pairs"][0]["games"] == 2 and data["seed"] == 1
    assert ET.fromstring(plot.read_text()).tag.endswith("svg")
    assert cli.main(["ladder", GAME, "--agents", "random,greedy", "--games", "2",
                     "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "Bradley-Terry ratings" in text and "random" in text and "vs" in text


@pytest.mark.parametrize("argv, words", [
    (["--agents", "random,gredy"], "did you mean 'greedy'"),
    (["--agents", "random"], "2 agents or more"),
    (["--agents", "random,random"], "named twice"),
    ([], "needs --agents"),
])
def test_bad_input_is_a_clear_error(capsys, argv, words):
    assert cli.main(["ladder", GAME, "--workers", "1", *argv]) == 1
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("games, words", [
    ("0", "must be greater than 0, not 0"),
    ("99999999999999999999", "must be at most 1,000,000"),       # once a MemoryError
])
def test_a_bad_number_of_games_is_a_usage_error(capsys, games, words):
    """A count of games past MAX_GAMES is refused before anything is played (simulate
    and ladder made a list of every game's index first, bench played on for ever)."""
    for argv in (["ladder", GAME, "--agents", "random,greedy", "--games", games],
                 ["simulate", GAME, "--games", games], ["bench", GAME, "--games", games],
                 ["diff", GAME, GAME, "--simulate", games]):
        with pytest.raises(SystemExit) as exit_:
            cli.main(argv)
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and words in err and "Traceback" not in err, argv
    with pytest.raises(TabulaError, match="--games must be a whole number from 1 to"):
        ladder.run_ladder(GAME, ["random", "greedy"], int(games), game_seed)


def test_simulate_says_which_bots_played(capsys):
    assert cli.main(["simulate", GAME, "--games", "2", "--agents", "greedy,random",
                     "--workers", "1"]) == 0
    assert "bots by seat greedy, random\n" in capsys.readouterr().out
    assert cli.main(["simulate", GAME, "--games", "2", "--agents", "greedy,random",
                     "--rotate", "--workers", "1"]) == 0
    assert "bots by seat greedy, random in game 0 (seats rotated)" in capsys.readouterr().out


def test_a_three_player_ladder_seats_distinct_agents_at_every_table():
    lad = ladder.run_ladder("tiny", "random,greedy,mcts:3,mcts:4", 1, game_seed, players=3,
                            seed=2, workers=1)
    assert lad.games_per_table == 3 and len(lad.tables) == 4 and lad.games == 12
    for r in lad.ratings:                       # each agent sits at 3 tables, every seat once
        assert r["games_by_seat"] == [3, 3, 3]
    assert all(p["games"] == 2 * 3 for p in lad.pairs)   # 2 tables together, 3 games each
    with pytest.raises(ladder.TabulaError, match="needs 3 agents or more"):
        ladder.run_ladder("tiny", "random,greedy", 1, game_seed, players=3, workers=1)


def test_the_report_is_one_page_with_the_plot(tmp_path, capsys):
    page = tmp_path / "ladder.html"
    assert cli.main(["ladder", GAME, "--agents", "random,greedy", "--games", "2",
                     "--workers", "1", "--report", str(page)]) == 0
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "<script" not in html
    assert "Bradley-Terry" in html and "greedy" in html
    lad = _run(1)
    lad.spec = "<b>&"
    assert "&lt;b&gt;&amp;" in ladder.to_html(lad) and "<b>&" not in ladder.to_html(lad)
    assert cli.main(["ladder", GAME, "--agents", "random,greedy", "--report",
                     str(tmp_path / "no" / "such.html")]) == 1
    assert "no such folder" in capsys.readouterr().err
