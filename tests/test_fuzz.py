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
