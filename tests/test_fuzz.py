"""The fuzz suite in the default tests (tests/fuzz.py has the long run; docs/fuzzing.md):
a short campaign, hypothesis properties over mutated specs, scenario files, tampered game
logs and command lines, the hand-made hostile inputs in a process limited to 1 GB, and
checks that each detector of the campaign can fire. Every property is deterministic
(derandomize) and bounded (a few dozen examples, an alarm per input)."""

import json
import os
import random
import subprocess
import sys
import time
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz
from conftest import ROOT
from fuzz import INTERNALS, TAMPERS, Campaign, game_of

# 50 examples a property (100 for the logs, 20 for the simulate files); the long run of
# these tests: TABULA_FUZZ_EXAMPLES=150 (docs/fuzzing.md)
EXAMPLES = int(os.environ.get("TABULA_FUZZ_EXAMPLES", "50"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
NONE = {"tracebacks": [], "hangs": [], "leaks": [], "accepted_tampered": [], "resume": []}


@pytest.fixture(scope="module")
def fz(tmp_path_factory):
    """A campaign whose inputs the properties draw."""
    c = Campaign(seed=11, folder=tmp_path_factory.mktemp("fuzz"), slow=20.0, log=None)
    yield c
    c.close()


def _clean(found: list) -> None:
    assert not found, "\n\n".join(repr(f)[:3000] for f in found)


# ---- a short campaign and the hand-made inputs ------------------------------------------

def test_a_short_campaign_finds_nothing(tmp_path):
    """150 inputs of the first six kinds (Campaign.OLD_KINDS); the new kinds have a short
    campaign of their own, below."""
    c = Campaign(seed=7, folder=tmp_path, slow=20.0, log=None)
    try:
        found = c.run(150, Campaign.OLD_KINDS)
    finally:
        c.close()
    assert found["inputs"] == 150
    assert set(found["kinds"]) == {"spec", "log", "scenario", "command", "rule", "simulate"}
    assert found["error"] > 0 and found["ok"] > 0          # both kinds of outcome reached
    # tampered logs were replayed, some refused, some (rewritten JSON) accepted as the same
    assert found["tampered_refused"] > 0 and found["tampered_accepted_same"] > 0
    for key, empty in NONE.items():
        assert found[key] == empty, found[key][:1]


# hostile inputs with a test of their own, which checks their message and place too: the
# long run (docs/fuzzing.md) takes them, this test does not pay for them twice
ON_THEIR_OWN = (
    "190 rule texts of 10,000 characters",  # test_hostile_input: bounded before parsed
    "a chain of 2,000 functions",           # test_hostile_engine: at the bound
)


def test_every_hostile_class_gives_a_located_error_quickly_and_small():
    """The hand-made inputs of the hostile-input issue (fuzz.hostile: a billion pieces,
    10^10 combinations, a 10^5 x 10^5 grid, max_steps 10^15, templates walking Python
    attributes, a player out of range, x = x * x, mixed keys, a NUL, an alias bomb, a
    5,000-digit number, rule text nested 3,000 deep): each gives a result or a located
    error, in a process limited to 1 GB and to 60 s of CPU time in all (RLIMIT_CPU: a
    loaded machine slows the wall clock, not the work; the wall-clock timeout only guards
    against a hang)."""
    code = ("import resource, sys, tempfile, pathlib\n"
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "resource.setrlimit(resource.RLIMIT_CPU, (60, 60))\n"
            "sys.path.insert(0, 'tests')\n"
            "import fuzz\n"
            "with tempfile.TemporaryDirectory() as d:\n"
            f"    found = fuzz.hostile(pathlib.Path(d), slow=20, skip={ON_THEIR_OWN!r})\n"
            "bad = {k: v for k, v in found.items() if v not in ('ok', 'error')}\n"
            "print(len(found), bad)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])   # -24: over 60 s
    count, bad = proc.stdout.split(" ", 1)
    assert int(count) >= 18 - len(ON_THEIR_OWN) and bad.strip() == "{}", bad


# ---- properties ---------------------------------------------------------------------------

@PROPERTY
@given(rng=st.randoms(use_true_random=False))
def test_a_mutated_spec_gives_a_result_or_a_located_error(fz, rng):
    """A shipped spec with 1 to 4 edits (lines deleted, doubled, swapped, a token of the
    rule language or of YAML inserted, a character changed), now and then extending a
    file that is no spec: validated and played, no traceback, hang or leak."""
    _clean(fz.one("spec", rng))


@PROPERTY
@given(rng=st.randoms(use_true_random=False))
def test_rule_text_gives_a_result_or_a_located_error(fz, rng):
    _clean(fz.one("rule", rng))


@PROPERTY
@given(rng=st.randoms(use_true_random=False))
def test_a_mutated_scenario_file_gives_exit_0_1_or_2(fz, rng):
    """A shipped scenario file with edits (its keys, odd player keys, YAML), now and then
    naming a secret as its `spec:`, run by `tabula test`: exit 0, 1 or 2, no traceback,
    hang or leak."""
    _clean(fz.one("scenario", rng))


@pytest.mark.parametrize("kind", list(TAMPERS))
@settings(PROPERTY, max_examples=max(1, EXAMPLES // 10),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])
@given(rng=st.randoms(use_true_random=False))
def test_replay_accepts_no_tampered_log_of_another_game(fz, kind, rng):
    """A recorded game's log with one kind of edit (a decision replaced by a legal one or
    not, lines swapped, deleted or doubled, the seed, players, options, spec, hash,
    agents, check or a digest edited, the header's check recomputed or not, the end line,
    a character, a cut), replayed: refused, or accepted only as the recorded game."""
    _clean(fz.one("log", rng, tamper=kind))


@settings(PROPERTY, max_examples=2 * EXAMPLES // 5)
@given(rng=st.randoms(use_true_random=False))
def test_simulate_resume_of_a_damaged_file_keeps_its_lines_and_every_game(fz, rng):
    """A file of `tabula simulate --out` with lines deleted, doubled, swapped, cut, a
    character or a field changed (a record's run, its scores, winners, ...), or replaced
    by a game log, a secret or nothing, resumed: exit 0, 1 or 2; refused, the file is as
    it was; resumed, it keeps every line it had (but an unfinished last one) and holds a
    sound record of every game."""
    _clean(fz.one("simulate", rng))


@st.composite
def command_lines(draw, fz):
    paths, words = fz.command_words(random.Random(draw(st.integers(0, 2 ** 16))))
    argv = [draw(st.sampled_from(Campaign.COMMANDS))]
    argv += draw(st.lists(st.sampled_from(paths), max_size=1))
    return argv + draw(st.lists(st.sampled_from(words), max_size=5))


@PROPERTY
@given(data=st.data())
def test_a_command_line_gives_exit_0_1_or_2(fz, data):
    _clean(fz.one("command", random.Random(0), argv=data.draw(command_lines(fz))))


# ---- the secrets named directly on the command line --------------------------------------

@pytest.mark.parametrize("command", ["validate", "run", "test"])
def test_a_secret_named_on_the_command_line_is_not_quoted(fz, command):
    found = []
    for secret in fz.secrets:
        if not secret.endswith(".yaml"):
            found += fz.one("command", random.Random(0), argv=[command, secret])
    _clean(found)


def test_a_yaml_escape_of_a_lone_surrogate_gives_a_located_error(fz):
    path = fz.folder / "surrogate.yaml"
    text = (ROOT / "examples" / "tiny" / "tiny.yaml").read_text(encoding="utf-8")
    path.write_text(text.replace('name: "{suit}-{rank}"', 'name: "{suit}\\ud800{rank}"'),
                    encoding="utf-8")
    assert "\\ud800" in path.read_text(encoding="utf-8")
    _clean(fz.one("command", random.Random(0), argv=["run", str(path)]))


def test_a_log_downgraded_to_version_1_is_not_accepted_as_another_game(fz):
    """Kuhn poker's deal replaced by another legal deal, the log made version 1: a hand
    that ends in a fold scores the same whatever the cards, so a replay of legality and
    scores alone would accept it; replay refuses the digests a version-1 log cannot have,
    and a version-1 log at all without --unproven."""
    found = []
    for seed in range(1, 11):
        rec = fz.recorded(random.Random(seed))
        if "kuhn_poker" not in rec.argv[1]:
            continue
        for tuple_, action in rec.alternatives(1):
            objs = json.loads(json.dumps(rec.objs))
            objs[0]["version"] = 1
            objs[1].update(tuple=tuple_, action=action)
            path = fz.folder / "downgraded.jsonl"
            path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
            code, _ = fuzz.run_command(["replay", str(path)])
            if code == 0 and game_of(path) != rec.game:
                found.append(objs)
    _clean(found)


# ---- each detector can fire --------------------------------------------------------------

def test_the_detectors_fire(fz, monkeypatch):
    """A leak of the canary or of Python internals, an exception, an input over the time
    allowed, an exit code that is not 0, 1 or 2: each is counted, with its input."""
    def output(text):
        return lambda rng: ("input", "error", text, "input", "test")

    for text in [f"x: {fz.canary}"] + [f"x {m} y" for m in INTERNALS]:
        monkeypatch.setattr(fz, "do_rule", output(text), raising=False)
        assert fz.one("rule")[0][1] == "test"
    monkeypatch.setattr(fz, "do_rule", lambda rng: ("i", "error", "__class__", "__class__",
                                                    "test"), raising=False)
    assert fz.one("rule") == []          # internals the input held itself are no leak

    def fail(rng):
        raise ValueError("escaped")
    monkeypatch.setattr(fz, "do_rule", fail, raising=False)
    assert "ValueError: escaped" in fz.one("rule")[0][2]
    def spin(rng):                       # works without end: the CPU alarm stops it
        while True:
            pass
    monkeypatch.setattr(fz, "do_rule", spin, raising=False)
    monkeypatch.setattr(fz, "slow", 0.2)
    t0 = time.process_time()
    assert fz.one("rule")[0][0] == "rule" and time.process_time() - t0 < 2
    monkeypatch.undo()
    monkeypatch.setattr(fuzz, "run_command", lambda argv: (3, ""))
    assert "exit code 3" in fz.one("command", random.Random(0), argv=["list"])[0][2]


def test_the_same_game_is_told_from_another(fz, tmp_path):
    """game_of, the game a log claims: equal for the same log rewritten (spacing, key
    order, a key the reader ignores, another agents field); different for two decisions
    swapped, a seed, an option or a score edited."""
    rec = fz.recorded(random.Random(3))
    path = tmp_path / "log.jsonl"

    def claims(objs):
        path.write_text("".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs),
                        encoding="utf-8")
        return game_of(path)

    objs = json.loads(json.dumps(rec.objs))
    objs[0]["agents"] = ["greedy"] * len(objs[0]["agents"])
    objs[1]["note"] = "ignored"
    assert claims(objs) == rec.game

    def swap(o):             # the first two decisions that differ, numbers kept
        j = next(j for j in range(2, len(o) - 1) if o[j]["tuple"] != o[1]["tuple"])
        o[1], o[j] = dict(o[j], n=1), dict(o[1], n=j)

    edits = [swap, lambda o: o[0].__setitem__("seed", o[0]["seed"] + 1),
             lambda o: o[0]["options"].__setitem__("x", 1),
             lambda o: o[-1]["scores"].__setitem__(0, o[-1]["scores"][0] + 1)]
    for edit in edits:
        objs = json.loads(json.dumps(rec.objs))
        edit(objs)
        assert claims(objs) != rec.game


def test_the_watchdog_ends_an_input_the_alarm_cannot_stop(tmp_path):
    """An input that blocks the alarm (as a loop inside C code would) cannot wedge the
    long run: the watchdog writes it to the findings and ends the process (exit 3)."""
    code = ("import sys, pathlib, signal, time\n"
            "sys.path.insert(0, 'tests')\n"
            "import fuzz\n"
            "d = pathlib.Path(sys.argv[1])\n"
            "c = fuzz.Campaign(1, d, slow=0.5, log=None)\n"
            "fuzz.watchdog(c, str(d / 'found.txt'), 1.5)\n"
            "def stuck(rng):\n"
            "    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])\n"
            "    time.sleep(30)\n"
            "c.do_rule = stuck\n"
            "c.one('rule')\n")
    # the subprocess's timeout guards against a hang; exit code 3 (not the 0 of a sleep
    # that ran its 30 s out) and found.txt prove the watchdog fired, whatever the load
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "== hang the alarm could not stop (rule" in (tmp_path / "found.txt").read_text()


# ---- the new kinds: grammar-aware rule text, semantic mutations, adapters, endless games,
# ---- two writers (tests/fuzzgrammar.py, tests/fuzzkinds.py) ------------------------------

def test_a_short_campaign_of_the_new_kinds_finds_nothing(tmp_path):
    """Three rotations of the new kinds (Campaign.NEW_KINDS: 6 specs with generated rule
    text, 6 semantic mutations, 6 adapter scripts, 3 endless games of at most 100,000
    steps, 3 pairs of writers): no traceback, hang, leak, memory kill or growth,
    impossible state accepted, code run, record lost or duplicated; at least half of
    the generated specs pass validation and are played and simulated. (The long run,
    docs/fuzzing.md, takes thousands of each.)"""
    c = Campaign(seed=7, folder=tmp_path, slow=20.0, log=None)
    try:
        found = c.run(3 * len(Campaign.NEW_KINDS), Campaign.NEW_KINDS)
    finally:
        c.close()
    assert found["kinds"] == {"grammar": 6, "semantic": 6, "adapter": 6, "endless": 3,
                              "writers": 3}
    g = found["grammar"]
    assert 2 * g["valid"] >= g["inputs"] and g["simulated"] > 0 and g["played"] > 0, g
    a = found["adapter"]          # scripts of 1 to 100 calls: several on average
    assert a["calls"] > 2 * a["inputs"] and a["tampered"] > 0
    assert found["endless"]["located"] > 0
    assert found["writers"]["refused"] > 0 and found["writers"]["resumed"] > 0
    for key in Campaign.FINDINGS:
        assert found[key] == [], found[key][:1]


def test_grammar_aware_rule_text_mostly_passes_validation_and_walks_the_grammar(tmp_path):
    """Rule text generated from grammar/tabula.lark into four small shipped specs, as the
    campaign does (one in five hostile): at least half of the specs pass validation,
    and the derivations take nearly every production of the grammar."""
    import fuzzgrammar
    import fuzzkinds

    from tabula_rules.errors import TabulaError
    from tabula_rules.spec import Spec
    rng = random.Random(5)
    envs = {p: fuzzgrammar.Env(p) for p in fuzzkinds.TARGETS[:4]}
    used, valid = set(), 0
    for i in range(40):
        base = rng.choice(sorted(envs))
        doc = fuzzkinds.doc_of(base)
        rw = fuzzgrammar.Rewriter(envs[base], rng, typed=rng.random() >= 0.2)
        rw.edit(doc)
        used |= rw.d.used
        path = tmp_path / f"g{i}.yaml"
        path.write_text(fuzzkinds.dump(doc), encoding="utf-8")
        try:
            Spec(path).validate()
            valid += 1
        except TabulaError:
            pass
    assert valid >= 20, valid
    aliases = {r.alias for rules in fuzzgrammar.Grammar.load().rules.values()
               for r in rules if r.alias}
    missing = aliases - used
    assert len(missing) <= 3, missing


def test_the_new_detectors_fire(fz, tmp_path, monkeypatch):
    """Each detector of the new kinds can fire: an exception of the adapter's own code
    that is no clear error, a loaded state its history does not reach, a pickle's code
    run, records twice or of two runs in one file, an endless game killed or whose
    memory grows with its length."""
    import fuzzkinds
    import pyspiel

    import tabula_rules.openspiel as ts
    from tabula_rules.errors import TabulaError

    def raised(fn):          # fn's exception, as raised by a module of the package
        ours = fn.__code__.replace(co_filename=fuzzkinds.OURS + "x.py")  # the installed package
        try:
            types.FunctionType(ours, {"ValueError": ValueError, "TypeError": TypeError})()
        except Exception as e:  # noqa: BLE001
            return e

    def lookup():
        return {}["agent"]
    assert fuzzkinds.judged(TabulaError("clear")) is None
    assert "KeyError" in fuzzkinds.judged(raised(lookup))
    game = pyspiel.load_game("tabula", {"spec": str(ROOT / "examples" / "tiny")})
    try:                     # a ValueError raised on purpose, as OpenSpiel's games do
        game.make_py_observer(None, {"x": 1})
    except ValueError as e:
        assert fuzzkinds.judged(e) is None
    # a state of another seed, wrapped: its history does not give it back
    honest = game.new_initial_state()
    honest.apply_action(honest.legal_actions()[0])
    assert fuzzkinds.unreachable(honest) is None
    assert "differing" in fuzzkinds.unreachable(ts.wrap(game, game.ctx.game.new_state(seed=5)))
    # a reader that unpickles OpenSpiel's __dict__ runs the payload's code: counted
    import base64
    import pickle

    def unpickling(text):
        for line in text.split("\n"):
            if line.startswith("__dict__="):
                pickle.loads(base64.b64decode(line[9:]))
        raise TabulaError("refused")
    monkeypatch.setattr(pyspiel, "deserialize_game_and_state", unpickling)
    runs = []
    for seed in range(40):
        s = fuzzkinds.Script(random.Random(seed), tmp_path, [])
        s.openspiel_deserialize()
        runs += s.code_run
    monkeypatch.undo()
    assert runs and "was created" in runs[0]
    # a file with a game twice, then records of two runs
    out = tmp_path / "games.jsonl"
    spec = ROOT / "examples" / "tiny"
    assert fuzz.run_command(["simulate", str(spec), "--games", "3", "--workers", "1",
                             "--seed", "1", "--out", str(out)])[0] == 0
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines + lines[1:2]))
    assert any("twice" in w for w in fuzz.writers_file(out, spec, 1, 2, b"", False, 0, []))
    other = tmp_path / "other.jsonl"
    fuzz.run_command(["simulate", str(spec), "--games", "1", "--workers", "1", "--seed",
                      "2", "--out", str(other)])
    out.write_text("".join(lines) + other.read_text())
    assert any("two runs" in w for w in fuzz.writers_file(out, spec, 1, 2, b"", False, 0,
                                                          []))
    # an endless game killed, or whose memory grows with its length
    for fake in ({"code": None, "signal": 9, "peak_kb": 1 << 20, "out": "", "err": "",
                  "result": None},
                 {"code": 1, "signal": None, "peak_kb": 600 << 10, "out": "",
                  "err": "x.yaml:1:2: rule error: the game ran more than 100000 steps "
                         "without ending", "result": {"base_kb": 100 << 10}}):
        monkeypatch.setattr(fuzzkinds, "fork_call", lambda *a, fake=fake, **k: fake)
        found = fz.one("endless", random.Random(1), steps=[100_000])
        assert found and found[0][0] == "endless", found


def test_an_endless_games_memory_does_not_grow_with_its_length(fz):
    """Kuhn poker that never ends (`until: false`) and whose bets do nothing (both
    alternatives' `do: []`: a game of decisions only), 400,000 steps, played by `tabula
    run` in a process under RLIMIT_AS 1 GB: a located error ('ran more than 400000
    steps'), and no more memory than a game of any length may take: what it grows by
    over these steps, times the largest max_steps a spec may set over them, stays
    within the limit (else the same spec with that max_steps ends in a MemoryError)."""
    import fuzzkinds
    kuhn = fuzzkinds.TARGETS[1]
    doc = fuzzkinds.doc_of(kuhn)
    doc["play"][0]["turns"]["until"] = "false"
    for alt in doc["play"][0]["do"][0]["choose_one"]:
        alt["do"] = []
    before = fz.found["endless"]["located"]
    found = fz.one("endless", random.Random(3), base=kuhn, steps=[400_000], doc=doc)
    assert not found, [f[2][:700] for f in found]
    assert fz.found["endless"]["located"] == before + 1
