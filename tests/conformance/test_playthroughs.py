"""Seeded games replayed against their golden transcripts (tests/playthroughs/)."""

import pytest

import card_envs
from tests.conformance.playthrough import path, transcript


@pytest.mark.parametrize("name", list(card_envs.ENVIRONMENTS))
def test_a_seeded_game_matches_its_golden_transcript(name):
    golden = path(name)
    assert golden.exists(), f"no golden transcript for {name}: run python -m tests.conformance.playthrough {name}"
    assert transcript(name) == golden.read_text(), (
        f"{name} no longer plays its golden game; if the change is intended, regenerate with "
        f"python -m tests.conformance.playthrough {name} and review the diff"
    )
