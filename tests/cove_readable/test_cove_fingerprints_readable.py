"""The readable engine (the compiled source run by Python) plays recorded games die for die: a
few of the fingerprinted tables (``tests/cove_fingerprint.py``), chosen to seat every compiled
strategy on both Artisan switches, give every recorded fingerprint."""

from __future__ import annotations

import pytest

from tests.test_cove_fingerprints import differences, engines, recorded, replay

#: tables 0, 1, 5, 9 of the record: both scenarios, every compiled strategy
READABLE_TABLES = (0, 1, 5, 9)


def test_the_sample_seats_every_strategy_on_both_scenarios():
    doc = recorded()
    rows = [doc["games"][i]["table"] for i in READABLE_TABLES]
    every = {nm for row in doc["games"] for nm in row["table"][1]}
    assert {nm for _, names in rows for nm in names} == every
    assert {scen for scen, _ in rows} == {0, 1}


@pytest.fixture(scope="module")
def engs():
    return engines()


@pytest.mark.parametrize("i", READABLE_TABLES)
def test_the_readable_engine_plays_the_recorded_game(engs, i):
    doc = recorded()
    assert differences(replay(engs, doc, i), doc["games"][i]) == []
