"""The compiled lone-pirate solver (simulator.cove.fast.lone) against the readable one, exactly.

Every check compares float64 values with ``==`` (no tolerance): the compiled chain must be the
same expressions evaluated in the same order as ``PirateOdds`` of the oracle
``tests/cove_odds_oracle.py`` (canonical, volley mode ``"optimal"``) and ``lone_pirate_odds``,
so that the compiled players take the readable players' decisions die for die.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from scenarios.loader import load_scenario
from simulator.cove.fast import lone
from simulator.cove.rules import CoveRules
from tests.cove_odds_oracle import PirateOdds, lone_pirate_odds

RULES = load_scenario(None, CoveRules).rules
NO_ABSORB = dataclasses.replace(
    RULES, combat=dataclasses.replace(RULES.combat, parrot_absorbs_hits=False)
)
VARIANTS = {"parrot-absorbs": RULES, "parrot-no-absorb": NO_ABSORB}
NPCS = (*RULES.pirates, "royal_navy")
FIGHTERS = tuple(
    k for k in NPCS if k == "royal_navy" or RULES.pirates[k].fights
)  # every Legendary Pirate that fights, and the Royal Navy
PARROTS = (None, *RULES.parrots)
HAND = ("smoke", "favourable_wind", "grapple", "overboard", "grapeshot", "powder_keg")
BV_BITS = {"grapeshot": lone.V_GRAPESHOT, "powder_keg": lone.V_KEG}


class Pair:
    """The readable solver and the compiled tables and memo of one rules object."""

    def __init__(self, rules: CoveRules, memo: tuple | None = None):
        self.rules = rules
        self.po = PirateOdds(rules)
        self.lt = lone.tables(rules)
        self.memo = lone.new_memo() if memo is None else memo


_PAIRS: dict[str, Pair] = {}


def pair(name: str) -> Pair:
    if name not in _PAIRS:
        _PAIRS[name] = Pair(VARIANTS[name])
    return _PAIRS[name]


def _args(npc, st, parrot):
    return (
        NPCS.index(npc),
        np.array(st, np.int64),
        -1 if parrot is None else PARROTS.index(parrot) - 1,
    )


def compiled_p_sink(p: Pair, npc, st, parrot, hull, g, k, smoke, extra, grapple) -> float:
    n, a, pr = _args(npc, st, parrot)
    return lone.p_sink(
        p.lt, p.memo, n, a, pr, -1 if hull is None else hull, g, k, int(smoke), extra, int(grapple)
    )


def compiled_best_volley(p: Pair, npc, st, parrot, hull, g, k, smoke, extra, grapple, fire):
    n, a, pr = _args(npc, st, parrot)
    return lone.best_volley(
        p.lt,
        p.memo,
        n,
        a,
        pr,
        -1 if hull is None else hull,
        g,
        k,
        int(smoke),
        extra,
        int(grapple),
        int(fire),
    )


def compiled_lone_plan(p: Pair, npc, st, parrot, hand, chests, chest_value, stake, hull, extra,
                       smoke_on, grapple_on):  # fmt: skip
    n, a, pr = _args(npc, st, parrot)
    return lone.lone_plan(
        p.lt,
        p.memo,
        n,
        a,
        pr,
        int("smoke" in hand),
        hand.count("favourable_wind"),
        int("grapple" in hand),
        int("overboard" in hand),
        hand.count("grapeshot"),
        hand.count("powder_keg"),
        chests,
        0.0 if chest_value is None else chest_value,
        int(chest_value is not None),
        stake,
        -1 if hull is None else hull,
        extra,
        int(smoke_on),
        int(grapple_on),
    )


def bits_of(names) -> int:
    return sum(BV_BITS[n] for n in names)


def plan_tuple(plan) -> tuple:
    return (plan.p_sink, int(plan.smoke), plan.wind, int(plan.grapple), plan.overboard)


# --------------------------------------------------------------------------------- the grid
def states(rules: CoveRules):
    """Damage states: rings (a destroyed section too), Artisans, each parrot alive, wounded and
    dead (a parrot key with no hits left)."""
    kill = rules.combat.parrot_hits_to_kill
    for ring in (
        (1, 1, 1, 1),
        (2, 3, 2, 4),
        (4, 4, 4, 4),
        (8, 2, 5, 6),
        (3, 8, 8, 1),
        (0, 3, 3, 3),
    ):
        for art in ((0, 0, 0, 0), (2, 0, 0, 0), (0, 1, 0, 0), (0, 0, 2, 1)):
            for parrot in PARROTS:
                for php in (0,) if parrot is None else (kill, 1, 0):
                    yield (*ring, *art, php), parrot


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_p_sink_and_best_volley_grid(variant):
    """Every fighting non-player ship x rings, Artisans, the four parrots (alive, wounded, dead)
    x volley cards held x speed bonus and Smoke, under both ``combat.parrot_absorbs_hits``:
    p_sink and best_volley equal the readable solver's. Catches any difference in the chain (a
    hit order, a speed tie, an action order, a float expression evaluated in another order), in
    the canonical state (a branch of ``canon`` copied wrong changes the key or the chain) and in
    the parrot rules of ``hit``/``dice``/``speed``."""
    p = pair(variant)
    n = 0
    for npc in FIGHTERS:
        for i, (st, parrot) in enumerate(states(p.rules)):
            # a rotating subset of the card and flag combinations keeps the grid to seconds
            g, k = (i // 2) % 2, i % 2
            smoke, grapple, extra = i % 3 == 0, i % 5 == 1, (0, 6, 21, -4)[i % 4]
            want = p.po.p_sink(
                npc, st, parrot=parrot, grapeshot=g, powder_keg=k, smoke=smoke,
                extra_speed=extra, grapple=grapple,
            )  # fmt: skip
            got = compiled_p_sink(p, npc, st, parrot, None, g, k, smoke, extra, grapple)
            assert got == want, (npc, st, parrot, g, k, smoke, extra, grapple)
            fire = i % 7 != 3
            names, bv = p.po.best_volley(
                npc, st, parrot=parrot, grapeshot=g, powder_keg=k, smoke=smoke,
                extra_speed=extra, grapple=grapple, pirate_to_fire=fire,
            )  # fmt: skip
            bits, bv2 = compiled_best_volley(
                p, npc, st, parrot, None, g, k, smoke, extra, grapple, fire
            )
            assert (bits, bv2) == (bits_of(names), bv), (npc, st, parrot, g, k, fire)
            n += 1
    assert n == len(FIGHTERS) * len(list(states(p.rules)))


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_dice_and_hit(variant):
    """dice (with and without Grapple) and hit (every section, 0..4 hits) equal PirateOdds'
    on the grid of states: catches a wrong Artisan/parrot/ring order or the absorb switch."""
    p = pair(variant)
    out = np.zeros(9, np.int64)
    for st, parrot in states(p.rules):
        _n, a, pr = _args("blackbeard", st, parrot)
        for grapple in (False, True):
            assert lone.dice(p.lt.vals, p.lt.parrots, a, pr, int(grapple)) == p.po.dice(
                st, parrot, grapple
            )
        for sec in range(4):
            for k in range(5):
                lone.hit(p.lt.parrots, p.lt.prm, a, pr, sec, k, out)
                assert tuple(out) == p.po.hit(st, parrot, sec, k), (st, parrot, sec, k)


# --------------------------------------------------------------------------------- hypothesis
@hs.composite
def situations(draw):
    variant = draw(hs.sampled_from(list(VARIANTS)))
    rules = VARIANTS[variant]
    npc = draw(hs.sampled_from(FIGHTERS))
    ring = tuple(draw(hs.integers(1, 8)) for _ in range(4))
    art = tuple(draw(hs.sampled_from((0, 0, 1, 2))) for _ in range(4))
    parrot = draw(hs.sampled_from(PARROTS))
    php = 0 if parrot is None else draw(hs.integers(0, rules.combat.parrot_hits_to_kill))
    full = (rules.royal_navy if npc == "royal_navy" else rules.pirates[npc]).hull
    # the interface's hull -1 means "full" (None); a battle's hull is never below 0 (battle.py
    # sinks a ship at 0), so the queries are None or 0..full
    hull = draw(hs.one_of(hs.none(), hs.integers(0, full)))
    return variant, npc, (*ring, *art, php), parrot, hull


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    situations(),
    hs.lists(hs.sampled_from(HAND), max_size=5),
    hs.integers(0, 3),
    hs.one_of(hs.none(), hs.sampled_from((0.0, 0.8, 1.7)), hs.floats(0.0, 3.0)),
    hs.one_of(hs.sampled_from((1.0, 0.0, -1.0, 4.5)), hs.floats(-3.0, 8.0)),
    hs.sampled_from((0, 0, 2, 6, 13)),
    hs.booleans(),
    hs.booleans(),
)
def test_lone_plan_matches(sit, hand, chests, chest_value, stake, extra, smoke_on, grapple_on):
    """lone_plan equals lone_pirate_odds on random situations: hands of the six battle cards
    (several wind, Grapeshot and kegs), chests and chest values (None: never throw), stakes
    including 0 and negative ones, a hull already hit (0 too), cards already in effect, both
    parrot switches. Catches the plan search (the wind x chests order, the 1e-12 tie rules,
    ``chest_value or 0.0``, Grapple only when it adds dice) and, through p_sink with a hull and
    a speed already changed, the chain's non-canonical corners (the Royal Navy keeps its state)."""
    variant, npc, st, parrot, hull = sit
    p = pair(variant)
    hand = tuple(sorted(hand))
    want = lone_pirate_odds(
        p.po, npc, st, parrot, hand, chests, chest_value=chest_value, stake=stake, hull=hull,
        extra_speed=extra, smoke_on=smoke_on, grapple_on=grapple_on,
    )  # fmt: skip
    got = compiled_lone_plan(
        p, npc, st, parrot, hand, chests, chest_value, stake, hull, extra, smoke_on, grapple_on
    )
    assert got == plan_tuple(want)


def test_a_full_memo_changes_no_value():
    """A memo of 1,024 slots (cleared whenever three quarters full, entries overwritten when a
    probe run is full) and one-row scratch stacks (grown by the queries) give the same values as
    the readable solver: catches a value read from an overwritten entry, a frame's needed value
    lost when the memo is cleared, and the growth of the child and frame stacks. The queries
    store more values than the small memo holds (checked on a fresh large memo), so it was
    cleared at least once."""
    tiny = Pair(RULES, lone.new_memo(bits=10, children=1, frames=1))
    fresh = Pair(RULES)
    big = pair("parrot-absorbs")
    for npc in FIGHTERS:
        for st, parrot in list(states(RULES))[::37]:
            for g, k in ((1, 1), (0, 1)):
                want = big.po.p_sink(npc, st, parrot=parrot, grapeshot=g, powder_keg=k)
                assert compiled_p_sink(tiny, npc, st, parrot, None, g, k, 0, 0, 0) == want
                compiled_p_sink(fresh, npc, st, parrot, None, g, k, 0, 0, 0)
                names, v = big.po.best_volley(npc, st, parrot=parrot, grapeshot=g, powder_keg=k)
                assert compiled_best_volley(tiny, npc, st, parrot, None, g, k, 0, 0, 0, 1) == (
                    bits_of(names),
                    v,
                )
    assert fresh.memo.used[0] > 768


def test_a_non_fighting_npc_is_refused():
    """The Cacafuego does not fight: the readable solver has no chain for it (KeyError) and the
    compiled one refuses it rather than reading an empty row."""
    p = pair("parrot-absorbs")
    with pytest.raises(KeyError):
        p.po.p_sink("cacafuego", (3, 3, 3, 3, 0, 0, 0, 0, 0))
    with pytest.raises(ValueError, match="fighting"):
        compiled_p_sink(p, "cacafuego", (3, 3, 3, 3, 0, 0, 0, 0, 0), None, None, 0, 0, 0, 0, 0)
