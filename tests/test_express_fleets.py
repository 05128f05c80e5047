"""Pirates express fleet lists: parsing, every construction rule, nation exceptions, enumeration."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.errors import UserError
from simulator.express.fleets import (
    Fleet,
    Ship,
    canonical,
    enumerate_fleets,
    mast_lists,
    parse_fleet,
    validate_fleet,
)
from simulator.express.rules import CREW_ROLES, ExpressRules

RULES = load_scenario(None, ExpressRules).rules


def legal_by_seed(nation: str, masts: list[int], crews: list[str | None]) -> bool:
    """The construction rules written out from the seed, independently of fleets.py."""
    if not masts or len(masts) > 5 or sum(masts) > 12 or any(m < 1 or m > 5 for m in masts):
        return False
    if masts.count(5) > 1 or masts.count(4) > (2 if nation == "american" else 1):
        return False
    used = [c for c in crews if c]
    return not (len(used) > (5 if nation == "france" else 4) or len(set(used)) != len(used))


@pytest.mark.parametrize(
    "text,needle",
    [
        ("spain:5,5,2", "at most 1 ship(s) of 5 masts"),
        ("spain:4,4,2", "only the Americans may field two"),
        ("american:4,4,4", "at most 2 ship(s) of 4 masts"),
        ("spain:6,3", "6 masts and more are forbidden"),
        ("spain:3,3,3,3,1", "total masts 13 exceed 12"),
        ("spain:2,2,2,2,1,1", "at most 5 ships"),
        ("spain:3,3 captain@0 captain@1", "at most 1 captain per fleet"),
        ("spain:3,3 captain@0 gunner@0", "at most 1 crew per ship"),
        (
            "spain:3,3,2,2,2 captain@0 gunner@1 helmsman@2 carpenter@3 musketeer@4",
            "only France may take a 5th",
        ),
        ("spain:3 captian@0", "did you mean 'captain'"),
        ("spain:3 captain@1", "names ship 1"),
        ("klingon:3", "unknown nation"),
        ("3,3", "no nation"),
        ("spain:a", "comma-separated integers"),
        ("spain:0,3", "allowed: 1..5"),
        ("spain:3 oars@0 oars@0", "oars listed twice"),
    ],
)
def test_illegal_fleets_name_the_rule(text, needle):
    with pytest.raises(UserError) as exc:
        parse_fleet(text, RULES)
    msg = str(exc.value)
    assert needle in msg
    assert "\n" not in msg


@pytest.mark.parametrize(
    "text",
    [
        "american:4,4,2,1,1 captain@0",
        "france:3,3,2,2,2 captain@0 gunner@1 helmsman@2 carpenter@3 musketeer@4",
        "spain:5,3,2,1,1 captain@0 gunner@1 oars@2",
        "turkish:1",
        "chinese:5,4,3",
    ],
)
def test_legal_fleets_round_trip(text):
    f = parse_fleet(text, RULES)
    assert parse_fleet(f.spec(), RULES) == f
    assert f.spec() == text


@settings(max_examples=300, deadline=None)
@given(
    nation=st.sampled_from(list(RULES.matrix_nations)),
    masts=st.lists(st.integers(1, 6), min_size=1, max_size=6),
    roles=st.permutations(CREW_ROLES),
    n_roles=st.integers(0, 5),
)
def test_parser_agrees_with_the_seed(nation, masts, roles, n_roles):
    n_roles = min(n_roles, len(masts))
    crews = list(roles[:n_roles]) + [None] * (len(masts) - n_roles)
    text = (
        f"{nation}:"
        + ",".join(map(str, masts))
        + "".join(f" {c}@{i}" for i, c in enumerate(crews) if c)
    )
    if legal_by_seed(nation, masts, crews):
        assert parse_fleet(text, RULES).total_masts == sum(masts)
    else:
        with pytest.raises(UserError):
            parse_fleet(text, RULES)


@pytest.mark.parametrize("nation", ["spain", "american"])
def test_mast_lists_match_brute_force(nation):
    brute = set()
    for k in range(1, 6):
        for combo in itertools.product(range(1, 6), repeat=k):
            if legal_by_seed(nation, list(combo), [None] * k):
                brute.add(tuple(sorted(combo, reverse=True)))
    assert set(mast_lists(RULES, nation)) == brute
    assert len(mast_lists(RULES, nation)) == len(brute)


@pytest.mark.parametrize(
    "nation,masts", [("spain", (3, 3, 2, 2, 1)), ("france", (3, 3, 2, 2, 1)), ("viking", (5, 4, 3))]
)
def test_crew_placements_match_brute_force(nation, masts):
    brute = set()
    for assign in itertools.product([None, *CREW_ROLES], repeat=len(masts)):
        if legal_by_seed(nation, list(masts), list(assign)):
            ships = tuple(Ship(m, c) for m, c in zip(masts, assign))
            brute.add(canonical(Fleet(nation, ships)).ships)
    mine = {
        f.ships for f in enumerate_fleets(RULES, nation) if tuple(s.masts for s in f.ships) == masts
    }
    assert mine == brute


def test_enumeration_is_legal_and_unique():
    fleets = enumerate_fleets(RULES, "american")
    assert len({f.ships for f in fleets}) == len(fleets)
    for f in fleets[::97]:
        validate_fleet(f, RULES)
    assert any(sum(s.masts == 4 for s in f.ships) == 2 for f in fleets)
    full = enumerate_fleets(RULES, "france", full_only=True)
    assert all(f.total_masts == 12 for f in full)
    assert any(len(f.crews) == 5 for f in full)
