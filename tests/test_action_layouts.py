"""The action space numbers every shipped spec's and example's actions as it did when it
read the generated code (tests/data/action_layouts.json, made by tests/action_layouts.py
before the action space took the compiler's binding domains): the same ids, blocks and
domains for every player count and option choice."""

import json

import pytest

from action_layouts import FIXTURE, layouts

EXPECTED = json.loads(FIXTURE.read_text())


@pytest.fixture(scope="module")
def now() -> dict:
    return layouts()


def test_every_game_of_the_fixture_is_numbered(now):
    assert sorted(now) == sorted(EXPECTED)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_the_numbering_is_unchanged(now, key):
    assert now[key] == EXPECTED[key]
