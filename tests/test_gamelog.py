"""Game logs (interpreter/tools/gamelog.py): `tabula run --log` writes a log that `tabula replay`
re-plays for every spec; edited, truncated and malformed logs, and logs of another spec,
are refused at the line that fails, without a traceback; a variant is analysed; a
player's log (--for) holds nothing its player's observation did not show."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tabula_rules import CHANCE, TabulaError, load_game, load_spec
from tabula_rules.bots.agents import make_agents, play_game
from tabula_rules.runtime.engine import State
from tabula_rules.tools.cli import bot_rng, main
from tabula_rules.tools.gamelog import GameLog, player_views, read_log

from conftest import EXAMPLES, ROOT, SPEC_FILES
from helpers import run

MEDANG = str(ROOT / "specs" / "medang")
MEDINA = str(ROOT / "specs" / "medina" / "medina.yaml")
BSW = str(ROOT / "specs" / "medina" / "bsw-dm2003.yaml")
TINY = str(ROOT / "examples" / "tiny" / "tiny.yaml")
ALL_SPECS = [str(f) for f in SPEC_FILES] + [str(p) for p in EXAMPLES]



def players_for(spec_path) -> int:
    lo, hi = load_spec(spec_path).player_range
    return min(max(lo, 3), hi)


def lines(path):
    return path.read_text().splitlines()


def write_lines(path, rows):
    path.write_text("".join(r + "\n" for r in rows))


@pytest.fixture(scope="module")
def medang_log(tmp_path_factory):
    """A full log of one 3-player Medang game (seed 1)."""
    path = tmp_path_factory.mktemp("logs") / "medang.jsonl"
    assert main(["run", MEDANG, "--players", "3", "--seed", "1", "--log", str(path)]) == 0
    return path


# ---- round trips ----------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.split("/")[-1])
def test_a_log_round_trips_for_every_spec(capsys, tmp_path, spec):
    log = tmp_path / "game.jsonl"
    n = players_for(spec)
    code, out, _ = run(capsys, "run", spec, "--players", n, "--seed", 3, "--json",
                       "--log", log)
    assert code == 0
    printed = json.loads(out)
    rows = [json.loads(x) for x in lines(log)]
    head, decisions, end = rows[0], rows[1:-1], rows[-1]
    assert head["format"] == "tabula-log" and head["version"] == 2
    assert head["spec"] == printed["spec"] and head["spec_hash"] == load_spec(spec).hash
    assert head["spec_path"] == spec and head["seed"] == 3 and head["players"] == n
    assert head["options"] == printed["options"] and head["agents"] == ["random"] * n
    # the same game as the run printed: every decision, with who made it
    assert [{"player": d["player"], "action": d["action"]} for d in decisions] == \
        printed["decisions"]
    assert [d["n"] for d in decisions] == list(range(1, len(decisions) + 1))
    assert all(isinstance(d["tuple"], list) and isinstance(d["turn"], int) for d in decisions)
    assert all(len(d["state"]) == 16 for d in decisions) and len(end.pop("state")) == 16
    assert end == {"end": True, "decisions": len(decisions), "points": printed["points"],
                   "scores": printed["scores"], "winners": printed["winners"]}
    code, out, err = run(capsys, "replay", log)
    assert (code, out, err) == (0, f"ok: {len(decisions)} decisions replayed, scores match\n",
                                "")


def test_replay_json_verdict(capsys, medang_log):
    code, out, _ = run(capsys, "replay", medang_log, "--json")
    data = json.loads(out)
    end = json.loads(lines(medang_log)[-1])
    assert code == 0 and data["ok"] is True
    assert data["scores"] == end["scores"] and data["winners"] == end["winners"]
    assert data["decisions"] == end["decisions"]


def replayed(log_path, k):
    """The state after the first k decisions of a full log, by the public API."""
    rows = [json.loads(x) for x in lines(log_path)]
    head = rows[0]
    st = load_game(head["spec_path"], head["players"], head["options"]).new_state(head["seed"])
    for d in rows[1:k + 1]:
        st.apply(d["tuple"])
    return st


def test_replay_at_shows_the_state(capsys, medang_log):
    st = replayed(medang_log, 10)
    code, out, _ = run(capsys, "replay", medang_log, "--at", 10)
    assert code == 0
    assert "the full state after decision 10 of" in out
    assert f"turn {st.turn}: player {st.current_player()} to decide" in out
    hand = [st.prog.piece_names[p] for p in st.slots[st.prog.zones["hand"].slot(0)]]
    line = next(x for x in out.splitlines() if x.startswith("    player 0: "))
    assert all(name in line for name in hand)                  # every hand, in full
    assert "dynasty_pool: hidden" not in out
    for text in st.legal_action_strings():
        assert f"  {text}\n" in out
    # one player's view: the others' hands as counts, the hidden pool hidden
    code, out, _ = run(capsys, "replay", medang_log, "--at", 10, "--for", 1)
    assert code == 0 and "player 1's view after decision 10" in out
    assert f"    player 0: {len(hand)} face down" in out and "dynasty_pool: hidden" in out
    # JSON: the observation, and the state (which State.from_json reads back)
    code, out, _ = run(capsys, "replay", medang_log, "--at", 10, "--for", 1, "--json")
    assert code == 0 and json.loads(out) == json.loads(json.dumps(st.observation(1)))
    code, out, _ = run(capsys, "replay", medang_log, "--at", 10, "--json")
    back = State.from_json(st.game, json.loads(out))
    assert back.to_json_text() == st.to_json_text()
    # --for alone: the player's view at the end
    code, out, _ = run(capsys, "replay", medang_log, "--for", 2)
    assert code == 0 and "the game is over" in out and "scores: " in out


@pytest.mark.parametrize("at, message", [
    (-1, "--at -1: a number of decisions, 0 or more"),
    (100000, "--at 100000, but the log holds"),
])
def test_replay_at_out_of_range(capsys, medang_log, at, message):
    code, _, err = run(capsys, "replay", medang_log, "--at", at)
    assert code == 1 and message in err


# ---- run: agents and the games it has always played -----------------------------------------

def test_run_plays_the_games_it_always_played(capsys, tmp_path):
    """Without --agents, `run` draws every decision, chance's too, from bot_rng(seed): the
    loop it had before logs (reimplemented here), so old seeds give the same games."""
    log = tmp_path / "g.jsonl"
    run(capsys, "run", MEDANG, "--players", "4", "--seed", 11, "--log", log)
    game = load_game(MEDANG, 4)
    st, rng, old = game.new_state(seed=11), bot_rng(11), []
    while not st.terminal:
        acts = st.pending.actions
        a = acts[int(rng.random() * len(acts))]
        old.append(st.action_to_string(a))
        st.apply(a)
    assert [json.loads(x)["action"] for x in lines(log)[1:-1]] == old


def test_run_agents_play_the_game_play_game_plays(capsys, tmp_path):
    log = tmp_path / "g.jsonl"
    code, out, _ = run(capsys, "run", MEDANG, "--agents", "greedy,random", "--seed", 4,
                       "--log", log)
    assert code == 0 and "agents greedy, random" in out.splitlines()[0]
    rows = [json.loads(x) for x in lines(log)]
    assert rows[0]["agents"] == ["greedy", "random"]
    game = load_game(MEDANG)
    res = play_game(game, 4, make_agents("greedy,random", 2))
    assert [[-1 if d["player"] == "chance" else d["player"], d["action"]]
            for d in rows[1:-1]] == res["actions"]
    assert rows[-1]["scores"] == res["scores"]
    assert run(capsys, "replay", log)[0] == 0


@pytest.mark.parametrize("argv, code, message", [
    (["--agents", "gredy"], 1, "did you mean 'greedy'"),
    (["--agents", "random,random,random"], 1, "3 agents for 2 players"),
    (["--for", "1"], 2, "--for needs --log FILE"),
    (["--for", "5", "--log", "{tmp}/p.jsonl"], 1, "--for 5: the players of this game are 0 to 1"),
    (["--log", "/no/such/folder/g.jsonl"], 1, "cannot write the log /no/such/folder/g.jsonl"),
])
def test_run_bad_agents_and_log_arguments(capsys, tmp_path, argv, code, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    got, _, err = run(capsys, "run", MEDANG, *argv)
    assert got == code and message in err and "Traceback" not in err


def test_logs_are_deterministic(capsys, tmp_path):
    for extra in ([], ["--for", "1"], ["--agents", "greedy,random,random"]):
        a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        for path in (a, b):
            run(capsys, "run", MEDANG, "--players", "3", "--seed", 8, "--log", path, *extra)
        assert a.read_bytes() == b.read_bytes()
    run(capsys, "run", MEDANG, "--players", "3", "--seed", 9, "--log", b)
    run(capsys, "run", MEDANG, "--players", "3", "--seed", 8, "--log", a)
    assert a.read_bytes() != b.read_bytes()


# ---- refusals -------------------------------------------------------------------------------

def decision_line(path, k):
    """The line number (1-based) of decision k, and its record."""
    for i, row in enumerate(lines(path), 1):
        rec = json.loads(row)
        if rec.get("n") == k:
            return i, rec
    raise AssertionError(k)


def edited(src, dst, k, **fields):
    """A copy of log `src` with decision k's fields changed."""
    rows = lines(src)
    i, rec = decision_line(src, k)
    rec.update(fields)
    rows[i - 1] = json.dumps(rec)
    write_lines(dst, rows)
    return i


def test_an_edited_action_is_refused_at_that_decision(capsys, tmp_path, medang_log):
    # decision 20: another action that is legal there, by its string only
    st = replayed(medang_log, 19)
    _, rec = decision_line(medang_log, 20)
    other = next(a for a in st.legal_actions() if list(a) != rec["tuple"])
    other_text = st.action_to_string(other)
    bad = tmp_path / "edited.jsonl"
    line = edited(medang_log, bad, 20, action=other_text)
    code, _, err = run(capsys, "replay", bad)
    assert code == 1
    assert err.startswith(f"{bad}:{line}: decision 20 (player {rec['player']}, "
                          f"'{other_text}'): its tuple {rec['tuple']} is '{rec['action']}' here")
    # a string that is legal nowhere: "not legal here; legal: ..."
    edited(medang_log, bad, 20, action="take the whole temple")
    code, _, err = run(capsys, "replay", bad)
    assert code == 1 and f"{bad}:{line}: decision 20 (" in err
    assert "'take the whole temple'): not legal here; legal: " in err
    assert f"'{rec['action']}'" in err
    # string and tuple both changed to the other legal action: decision 20 is legal, but
    # the game goes elsewhere, and the next line's state digest names decision 20
    edited(medang_log, bad, 20, action=other_text, tuple=list(other))
    code, _, err = run(capsys, "replay", bad)
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"{bad}:{line}: decision 20 (player {rec['player']}, "
                          f"'{other_text}'): the game diverges here")


def test_an_edited_score_is_refused(capsys, tmp_path, medang_log):
    rows = lines(medang_log)
    end = json.loads(rows[-1])
    for key, value in (("scores", [s + 1 for s in end["scores"]]),
                       ("winners", [w for w in range(3) if w not in end["winners"]][:1]),
                       ("points", {k: [0, 0, 0] for k in end["points"]})):
        bad = tmp_path / f"{key}.jsonl"
        write_lines(bad, rows[:-1] + [json.dumps({**end, key: value})])
        code, _, err = run(capsys, "replay", bad)
        assert code == 1
        assert err.startswith(f"{bad}:{len(rows)}: the logged {key} {json.dumps(value)} are "
                              "not the replayed")


def test_a_truncated_log_is_refused_naming_where(capsys, tmp_path, medang_log):
    rows = lines(medang_log)
    text = medang_log.read_text()
    # cut in the middle of decision 31's line
    cut = tmp_path / "cut.jsonl"
    i, _ = decision_line(medang_log, 31)
    start = len("".join(r + "\n" for r in rows[:i - 1]))
    cut.write_text(text[:start + 25])
    code, _, err = run(capsys, "replay", cut)
    assert code == 1
    assert err == f"{cut}:{i}: the line is cut off: the log is truncated after decision 30\n"
    # whole lines missing at the end: no end line
    short = tmp_path / "short.jsonl"
    write_lines(short, rows[:41])
    code, _, err = run(capsys, "replay", short)
    assert code == 1
    assert err == (f"{short}:41: the log ends after decision 40 without its end line: it is "
                   "truncated\n")
    # ... yet its sound part can be shown
    code, out, err = run(capsys, "replay", short, "--at", 40)
    assert code == 0 and "after decision 40 of 40" in out and "truncated" in err
    # a decision missing in the middle
    gap = tmp_path / "gap.jsonl"
    write_lines(gap, rows[:10] + rows[11:])
    code, _, err = run(capsys, "replay", gap)
    assert code == 1
    assert err == (f"{gap}:11: decision 10 expected, found decision 11: a decision is "
                   "missing or out of order\n")
    # the end line kept, decisions before it dropped
    dropped = tmp_path / "dropped.jsonl"
    write_lines(dropped, rows[:30] + rows[-1:])
    code, _, err = run(capsys, "replay", dropped)
    assert code == 1 and f"{dropped}:31: the end line is not sound: it counts" in err


def header_with(log, **fields):
    head = json.loads(lines(log)[0])
    head.update(fields)
    return json.dumps(head)


def without(row: str, key: str) -> str:
    rec = json.loads(row)
    del rec[key]
    return json.dumps(rec)


MALFORMED = {
    "not JSON": (lambda r: ["hello, world"], ":1: not a Tabula game log (its first line"),
    "empty": (lambda r: [], ": empty; not a Tabula game log"),
    "a list": (lambda r: ["[1, 2, 3]"] + r[1:], 'has no "format": "tabula-log")'),
    "another version": (lambda r: [r[0].replace('"version": 2', '"version": 7')] + r[1:],
                        ":1: a log of version 7; this Tabula reads version 2"),
    "players as text": (lambda r: [r[0].replace('"players": 3', '"players": "3"')] + r[1:],
                        ":1: the header is not sound: 'players' is not a number of players"),
    "no seed": (lambda r: [without(r[0], "seed")] + r[1:],
                ":1: the header is not sound: no 'seed'"),
    "seed as text": (lambda r: [r[0].replace('"seed": 1', '"seed": "1"')] + r[1:],
                     ":1: the header is not sound: 'seed' is not a whole number, 0 or more"),
    "options a list": (lambda r: [r[0].replace('"options": {', '"options": [{')
                                  .replace('}, "seed"', '}], "seed"')] + r[1:],
                       ":1: the header is not sound: 'options' is not an object"),
    "no action": (lambda r: r[:5] + [without(r[5], "action")] + r[6:],
                  ":6: decision 5: no 'action'"),
    "tuple of text": (lambda r: r[:5] + [r[5].replace('"tuple": [', '"tuple": ["x", ')] + r[6:],
                      ":6: decision 5: 'tuple' is not an action tuple"),
    "player 9": (lambda r: r[:5] + [r[5].replace('"player": ', '"player": 9, "x": ')] + r[6:],
                 ":6: decision 5: 'player' is not a player (0 to 2) or \"chance\""),
    "a line of garbage": (lambda r: r[:5] + ["{{{"] + r[6:], ":6: not JSON ("),
    "a number line": (lambda r: r[:5] + ["42"] + r[6:],
                      ":6: neither a decision nor the end line"),
    "scores as text": (lambda r: r[:-1] + [r[-1].replace('"scores": [', '"scores": ["a", ')],
                       "the end line is not sound: 'scores' is not a list of numbers"),
    "no winners": (lambda r: r[:-1] + [without(r[-1], "winners")],
                   "the end line is not sound: no 'winners'"),
    "a line after the end": (lambda r: r + [r[3]], "a line after the end line"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_a_malformed_log_is_refused(capsys, tmp_path, medang_log, case):
    change, message = MALFORMED[case]
    bad = tmp_path / "bad.jsonl"
    write_lines(bad, change(lines(medang_log)))
    code, out, err = run(capsys, "replay", bad)
    assert code == 1 and out == ""
    assert err.startswith(str(bad)) and message in err, err


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary", b'{"format": "tabula-log",',
                                     b"[" * 100000, b'{"format": "tabula-log", "version": 1}\n'])
def test_no_traceback_from_the_command_line(tmp_path, content):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    proc = subprocess.run([sys.executable, "-m", "tabula_rules", "replay", str(bad)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(str(bad))


def test_missing_log_and_old_records(capsys, tmp_path):
    code, _, err = run(capsys, "replay", tmp_path / "none.jsonl")
    assert code == 1 and "none.jsonl: no such log" in err
    old = tmp_path / "old.json"
    code, out, _ = run(capsys, "run", MEDANG, "--json")
    old.write_text(out)
    code, _, err = run(capsys, "replay", old)
    assert code == 1 and "a one-object game record" in err


# ---- another spec ---------------------------------------------------------------------------

def test_a_changed_spec_is_refused_unless_given(capsys, tmp_path):
    spec = tmp_path / "tiny.yaml"
    tiny = Path(TINY).read_text()
    spec.write_text(tiny)
    log = tmp_path / "g.jsonl"
    run(capsys, "run", spec, "--seed", 2, "--log", log)
    assert run(capsys, "replay", log)[0] == 0
    # the spec changes after the log was written: same path, another hash
    spec.write_text(tiny.replace("value: 3\n\ncomponents", "value: 4\n\ncomponents"))
    assert load_spec(spec).hash != json.loads(lines(log)[0])["spec_hash"]
    code, _, err = run(capsys, "replay", log)
    assert code == 1 and err.startswith(f"{log}: the log was made with another spec than")
    assert "give --spec PATH" in err
    # named explicitly, it is checked as a variant: an analysis, exit 0
    code, out, _ = run(capsys, "replay", log, "--spec", spec)
    assert code == 0 and "decisions stay legal" in out
    # a log whose header names another spec file
    other = tmp_path / "other.jsonl"
    write_lines(other, [header_with(log, spec_path=MEDANG)] + lines(log)[1:])
    code, _, err = run(capsys, "replay", other)
    assert code == 1 and "the log was made with another spec than" in err
    # a spec that is gone
    gone = tmp_path / "gone.jsonl"
    write_lines(gone, [header_with(log, spec_path=str(tmp_path / "nothere"))] + lines(log)[1:])
    code, _, err = run(capsys, "replay", gone)
    assert code == 1 and "cannot load the log's spec" in err and "give --spec PATH" in err


def tiny_variant(tmp_path, name, body):
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"extends: {TINY}\ngame:\n  id: {name}\n  name: {name}\n{body}")
    return str(path)


def test_variant_check_finds_the_first_decision_that_stops_being_legal(capsys, tmp_path):
    log = tmp_path / "g.jsonl"
    run(capsys, "run", TINY, "--seed", 1, "--log", log)
    rows = [json.loads(x) for x in lines(log)]
    # the variant words the mulligan's "done" differently: the first "keep the hand"
    # of the log is where its decisions stop being legal
    relabelled = tiny_variant(tmp_path, "tiny_relabel", """override:
  steps:
    setup.mulligan:
      for: p in players
      do:
        - choose: c in p.hand
          player: p
          distinct: true
          up_to: 2
          done: keep my hand
          label: "put back {c}"
          do:
            - move c to bottom of deck
            - move top(deck) to p.hand
""")
    k = next(d["n"] for d in rows[1:-1] if d["action"] == "keep the hand")
    code, out, _ = run(capsys, "replay", log, "--spec", relabelled, "--json")
    report = json.loads(out)
    assert code == 0 and report["legal"] is False
    stop = report["first_illegal"]
    assert (stop["decision"], stop["line"], stop["action"]) == (k, k + 1, "keep the hand")
    assert stop["why"].startswith("not legal here; legal: ") and "'keep my hand'" in stop["why"]
    code, out, _ = run(capsys, "replay", log, "--spec", relabelled)
    assert code == 0
    assert f"the logged decisions stop being legal at decision {k} of {len(rows) - 2}" in out
    # --at inside the legal part works under the variant, beyond it is refused
    assert run(capsys, "replay", log, "--spec", relabelled, "--at", k - 1)[0] == 0
    code, _, err = run(capsys, "replay", log, "--spec", relabelled, "--at", k)
    assert code == 1 and f"decision {k} (player" in err and "(under this spec)" in err


def test_variant_check_all_legal_scores_same_or_different(capsys, tmp_path):
    log = tmp_path / "g.jsonl"
    run(capsys, "run", TINY, "--seed", 5, "--log", log)
    n = len(lines(log)) - 2
    renamed = tiny_variant(tmp_path, "tiny_renamed", "")
    code, out, _ = run(capsys, "replay", log, "--spec", renamed)
    assert code == 0
    assert f"all {n} decisions stay legal, and the game ends with them" in out
    assert out.count(": the same") == 2
    bonus = tiny_variant(tmp_path, "tiny_bonus", "add:\n  points:\n    bonus: {value: '2'}\n")
    code, out, _ = run(capsys, "replay", log, "--spec", bonus, "--json")
    report = json.loads(out)
    assert code == 0 and report["legal"] and report["over"]
    assert report["scores"]["variant"] == [s + 2 for s in report["scores"]["logged"]]
    assert report["scores_differ"] is True and report["winners_differ"] is False


def test_variant_check_medina_under_bsw(capsys, tmp_path):
    log = tmp_path / "m.jsonl"
    run(capsys, "run", MEDINA, "--seed", 2, "--log", log)
    code, out, _ = run(capsys, "replay", log, "--spec", BSW, "--json")
    report = json.loads(out)
    assert code == 0 and (report["log_spec"], report["spec"]) == ("medina", "medina_bsw_dm2003")
    # Medina places its well by chance first; the BSW rules have no well
    stop = report["first_illegal"]
    assert stop["decision"] == 1 and stop["player"] == "chance"
    assert stop["action"].startswith("well at ")
    assert stop["why"].startswith("not a legal outcome here; outcomes: 'player 0 starts'")


# ---- a player's log -------------------------------------------------------------------------

def test_a_player_log_is_not_replayed(capsys, tmp_path):
    log = tmp_path / "p.jsonl"
    assert run(capsys, "run", MEDANG, "--log", log, "--for", 1)[0] == 0
    code, _, err = run(capsys, "replay", log)
    assert code == 1
    assert err.startswith(f"{log}: player 1's log (written with --for): it lacks the seed")


HEADER_KEYS = {"format", "version", "for", "spec", "spec_hash", "spec_path", "players",
               "options", "agents", "start"}


def strings_in(value, out):
    """Every string in a JSON value (keys included)."""
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            strings_in(v, out)
    elif isinstance(value, list):
        for v in value:
            strings_in(v, out)
    return out


def leaks(text: str, player: int, truth: list, actions: list, deciders: list) -> list:
    """What a player's log (its text) holds beyond what the player saw. truth[k] is the
    player's true observation after k decisions (truth[0]: at the start), actions[k-1]
    the true string of decision k. Returns the problems found (none: no leak)."""
    problems = []
    rows = [json.loads(x) for x in text.splitlines()]
    head, body, end = rows[0], rows[1:-1], rows[-1]
    if set(head) != HEADER_KEYS:
        problems.append(f"header keys {sorted(set(head) - HEADER_KEYS)}")
    if head["for"] != player or head["start"] != truth[0]:
        problems.append("the header's start is not the player's observation")
    if len(body) != len(truth) - 1:
        problems.append("not one record per decision")
    for k, rec in enumerate(body, 1):
        before = truth[k - 1]
        who = CHANCE if rec["player"] == "chance" else rec["player"]
        if (rec["n"], rec["turn"], who) != (k, before["turn"], before["current_player"]):
            problems.append(f"decision {k}: n, turn or player not as the player saw them")
        # at a simultaneous decision the seat sees "simultaneous", not who chose: its own
        # choice there still has its action
        mine = deciders[k - 1] == player
        if (who == "simultaneous") != (before["current_player"] == "simultaneous") or \
                who not in (deciders[k - 1], "simultaneous"):
            problems.append(f"decision {k}: the player is not as the seat saw it")
        allowed = {"n", "turn", "player", "seen"} | ({"action"} if mine else set())
        if set(rec) != allowed:
            problems.append(f"decision {k}: keys {sorted(set(rec) - allowed)}")
        if "action" in rec and (rec["action"] not in before.get("legal_actions", ()) or
                                rec["action"] != actions[k - 1]):
            problems.append(f"decision {k}: an action the player was not offered")
    # the changes rebuild exactly the player's observations, and nothing else
    try:
        views = player_views(GameLog("<player log>", head, list(enumerate(body, 2)), end))
    except TabulaError as e:
        problems.append(f"the changes do not apply: {e}")
        views = truth
    if views != truth:
        problems.append("the changes do not rebuild the player's observations")
    if set(end) != {"end", "decisions", "scores", "winners"} or \
            end["scores"] != truth[-1].get("scores"):
        problems.append("the end line holds more than the final scores and winners")
    return problems


def true_game(full_log_path):
    """From a full log: for each player, its true observation after each decision and the
    names of the pieces it never saw (which the game held); and the action strings."""
    rows = [json.loads(x) for x in lines(full_log_path)]
    head = rows[0]
    game = load_game(head["spec_path"], head["players"], head["options"])
    st = game.new_state(seed=head["seed"])
    seats = range(game.players)
    truth = [[json.loads(json.dumps(st.observation(p)))] for p in seats]
    for d in rows[1:-1]:
        st.apply(d["tuple"])
        for p in seats:
            truth[p].append(json.loads(json.dumps(st.observation(p))))
    never_seen = []
    for p in seats:
        seen = set()
        for view in truth[p]:
            strings_in(view, seen)
        never_seen.append(set(game.prog.piece_names) - seen)
    return truth, never_seen, [d["action"] for d in rows[1:-1]], \
        [CHANCE if d["player"] == "chance" else d["player"] for d in rows[1:-1]]


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.split("/")[-1])
def test_a_player_log_leaks_nothing(capsys, tmp_path, spec):
    game = load_game(spec, players_for(spec))
    hidden_zones = [z for z in game.prog.zones.values() if z.visibility != "public"]
    if not hidden_zones:
        pytest.skip("every zone is public")
    n = game.players
    full = tmp_path / "full.jsonl"
    run(capsys, "run", spec, "--players", n, "--seed", 6, "--log", full)
    truth, never_seen, actions, deciders = true_game(full)
    for p in range(n):
        mine = tmp_path / f"p{p}.jsonl"
        assert run(capsys, "run", spec, "--players", n, "--seed", 6, "--log", mine,
                   "--for", p)[0] == 0
        text = mine.read_text()
        assert leaks(text, p, truth[p], actions, deciders) == []
        # no seed, no integer action tuples
        assert '"seed"' not in text and '"tuple"' not in text
        # the names of the pieces hidden from p all game long appear nowhere in its log
        for name in never_seen[p]:
            assert json.dumps(name) not in text, name
        if spec == str(ROOT / "specs" / "medang" / "medang.yaml"):
            # Medang keeps leftover dynasty tiles hidden from all, and hands from others:
            # the test has something to look for
            assert never_seen[p]
    # the check has teeth: a log given the seed, another seat's action, or a hidden
    # piece's name is caught
    p = 0
    truth, never_seen = truth[p], never_seen[p]
    text = (tmp_path / "p0.jsonl").read_text()
    rows = text.splitlines()
    head = json.loads(rows[0])
    other = next(k for k in range(1, len(rows) - 1) if deciders[k - 1] != p)
    rec = json.loads(rows[other])
    rec["action"] = actions[other - 1]
    doctored = [json.dumps({**head, "seed": 6})] + rows[1:other] + [json.dumps(rec)] + \
        rows[other + 1:]
    found = leaks("\n".join(doctored), p, truth, actions, deciders)
    assert any("header keys ['seed']" in x for x in found)
    assert any(f"decision {other}: keys ['action']" in x for x in found)
    if never_seen:
        name = min(never_seen)
        rec = json.loads(rows[1])
        rec["seen"] = rec["seen"] + [[["zones", "peek"], [name]]]
        found = leaks("\n".join(rows[:1] + [json.dumps(rec)] + rows[2:]), p, truth, actions,
                      deciders)
        assert "the changes do not rebuild the player's observations" in found


def test_player_views_rebuild_the_observations(capsys, tmp_path):
    log = tmp_path / "p.jsonl"
    run(capsys, "run", MEDANG, "--players", "3", "--seed", 2, "--log", log, "--for", 2)
    views = player_views(read_log(log))
    full = tmp_path / "f.jsonl"
    run(capsys, "run", MEDANG, "--players", "3", "--seed", 2, "--log", full)
    assert views == true_game(full)[0][2]
    assert views[-1]["terminal"] is True and "scores" in views[-1]
