"""A short fuzz campaign in the default suite (tests/fuzz.py has the long run): mutated
specs, rule text and command lines give results or located errors, never a traceback,
each within bounded time."""

from fuzz import campaign


def test_a_short_campaign_finds_no_traceback(tmp_path):
    found = campaign(120, seed=7, folder=tmp_path, slow=20.0, log=None)
    assert found["inputs"] == 120
    assert found["error"] > 0 and found["ok"] > 0          # both kinds were reached
    assert not found["tracebacks"], found["tracebacks"][0]
    assert not found["slow"], found["slow"][0][:1]


def test_every_hostile_class_gives_a_located_error_quickly_and_small():
    """The hand-made inputs of the hostile-input issue (fuzz.hostile: a billion pieces,
    10^10 combinations, a 10^5 x 10^5 grid, max_steps 10^15, templates walking Python
    attributes, a player out of range, x = x * x, mixed keys, a NUL, an alias bomb, a
    5,000-digit number, rule text nested 3,000 deep): each gives a result or a located
    error, in a process limited to 1 GB, within 60 s in all."""
    import subprocess
    import sys

    from conftest import ROOT
    code = ("import resource, sys, tempfile, pathlib\n"
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "sys.path.insert(0, 'tests')\n"
            "import fuzz\n"
            "with tempfile.TemporaryDirectory() as d:\n"
            "    found = fuzz.hostile(pathlib.Path(d), slow=20)\n"
            "bad = {k: v for k, v in found.items() if v not in ('ok', 'error')}\n"
            "print(len(found), bad)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    count, bad = proc.stdout.split(" ", 1)
    assert int(count) >= 18 and bad.strip() == "{}", bad
