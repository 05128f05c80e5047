"""Golden playthroughs of Pirate's Cove: whole games recorded as decisions and final states.

Each case of :data:`cove_golden.CASES` (``tests/cove_golden.py``), played by the engine from its
deal's seed (the invariant checker on after every phase), takes every recorded decision and ends
in the recorded state: rings, hands, parrots, Artisans, fame by source, the bank, the Tavern deck
in order, the black ships and the battle log. The v1 files were recorded by the readable engine
the code had before issue 28 (and before the improved players existed), so they pin both the
rules and the baselines' play.
"""

from __future__ import annotations

import json

import cove_golden as golden
import pytest

CASES = list(golden.CASES)


@pytest.mark.parametrize("name", CASES)
def test_the_engine_replays_every_recorded_decision_and_final_state(name):
    data = json.loads(golden.path_for(name).read_text())
    played = golden.play_case(data["scenario"], tuple(data["strategies"]), data["seed"])
    assert played["decisions"] == data["decisions"]
    assert played["final"] == data["final"]


def test_the_check_sees_another_deal():
    """The comparison can fail: the same table dealt from another seed neither takes the same
    decisions nor ends in the same state."""
    data = json.loads(golden.path_for("four_players").read_text())
    other = golden.play_case(data["scenario"], tuple(data["strategies"]), data["seed"] + 1)
    assert other["decisions"] != data["decisions"]
    assert other["final"] != data["final"]


def test_a_golden_file_is_its_case_played(tmp_path, monkeypatch):
    """Regenerating writes exactly what the engine plays (the file a review diffs)."""
    monkeypatch.setattr(golden, "DATA_DIR", tmp_path)
    (path,) = golden.regenerate(["three_players"])
    data = json.loads(path.read_text())
    stored = json.loads(
        (golden.ROOT / "tests" / "data" / "cove_golden_three_players.json").read_text()
    )
    assert data["decisions"] == stored["decisions"] and data["final"] == stored["final"]
    assert (data["case"], data["scenario"], data["strategies"], data["seed"]) == (
        "three_players",
        None,
        ["brawler-v1", "plunderer-v1", "balanced-v1"],
        101,
    )
