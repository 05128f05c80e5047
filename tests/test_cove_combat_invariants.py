"""Random battles (hypothesis): the scalar engine terminates and conserves cards, chests, gold and
fame bookkeeping, and a batch of the same battle on either engine of simulate_battles (the compiled
kernel, the scalar engine one battle at a time) keeps the batch invariants, whatever the ships,
hands, parrots, Artisans, policies, island and opponent."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarios import load_scenario
from simulator.cove.combat import simulate_battles
from simulator.cove.combat_policies import BATTLE_CARDS, VOLLEY_CARDS, RulePolicy
from simulator.cove.rules import CoveRules
from tests.cove_battle_oracle import (
    FAME_CAUSES,
    OUTCOMES,
    BattleShip,
    resolve_battle,
    simulate_scalar,
)

RULES = load_scenario(None, CoveRules).rules
CARDS = BATTLE_CARDS + VOLLEY_CARDS
NPCS = [
    None,
    "blackbeard",
    "flying_dutchman",
    "captain_hook",
    "bonny_and_read",
    "royal_navy",
    "cacafuego",
]
ISLANDS = list(RULES.islands)


@st.composite
def battles(draw):
    n = draw(st.integers(1, 5))
    seats = draw(st.permutations(range(6)))[:n]
    ships, pols = [], []
    for seat in seats:
        pos = draw(st.lists(st.integers(1, 8), min_size=4, max_size=4))
        art = draw(st.sampled_from([{}, {"hull": 0}, {"crew": 1}, {"cannons": 0}, {"sails": 1}]))
        parrot = draw(st.sampled_from([None, *RULES.parrots]))
        wounded = parrot is not None and draw(st.booleans())
        hand = draw(st.lists(st.sampled_from(CARDS), max_size=4))
        ships.append(
            BattleShip(
                seat,
                pos,
                art,
                parrot,
                wounded,
                chests=draw(st.integers(0, 5)),
                gold=draw(st.integers(0, 9)),
                battle_cards=hand,
            )
        )
        flee = draw(st.sampled_from(["stand", "when-hit", "when-critical", 1, 3]))
        pols.append(
            RulePolicy(
                flee,
                battle_cards=tuple(c for c in hand if c in BATTLE_CARDS),
                volley_cards=tuple(c for c in hand if c in VOLLEY_CARDS),
            )
        )
    npc = draw(st.sampled_from(NPCS))
    island = draw(st.sampled_from(ISLANDS if npc != "royal_navy" else ISLANDS[:-1]))
    return ships, pols, npc, island


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles(), st.integers(0, 2**32 - 1))
def test_scalar_battle_invariants(b, seed):
    ships, pols, npc, island = b
    res = resolve_battle(RULES, ships, npc, pols, np.random.default_rng(seed), island=island)
    assert not res.capped
    left = [s for s in res.ships if s.outcome == "won"]
    for inp, out in zip(ships, res.ships):
        assert out.outcome in OUTCOMES and set(out.fame) == set(FAME_CAUSES)
        assert sorted(out.cards_played + out.hand) == sorted(inp.battle_cards)
        assert out.chests + out.chests_overboard + out.chests_lost == inp.chests
        assert out.gold + out.gold_lost == inp.gold
        assert (out.outcome == "routed") == bool(out.destroyed)
        assert all(0 <= p <= q for p, q in zip(out.positions, inp.positions))
        assert out.fame["parrot_death"] in (0, -RULES.combat.parrot_death_fame_loss)
        assert out.parrot_died == (out.fame["parrot_death"] != 0)
        assert (out.outcome == "mutiny") == (out.fame["mutiny"] != 0)
        assert min(out.fame["flight"], out.fame["rout"], out.fame["pirate_share"]) >= 0
    if npc not in (None, "cacafuego"):
        assert res.npc_sunk or not left
        total = sum(s.fame["pirate_share"] for s in res.ships)
        fame = (RULES.royal_navy if npc == "royal_navy" else RULES.pirates[npc]).fame
        assert total <= fame and (
            total > 0 or not res.npc_sunk or fame < len(res.npc_fame_shared_by)
        )
    if island != "treasure_island" and npc != "cacafuego":
        assert len(left) <= 1


class CustomRule(RulePolicy):
    """RulePolicy's rule under another type: the kernel refuses it, the scalar oracle plays it."""


@pytest.mark.parametrize("engine", ["kernel", "scalar"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles(), st.integers(0, 2**32 - 1))
def test_batch_invariants_on_both_engines(engine, b, seed):
    """300 battles a draw on the kernel, 30 on the scalar oracle (policies of a type the kernel
    does not play)."""
    ships, pols, npc, island = b
    n = 300
    rng = np.random.default_rng(seed)
    if engine == "scalar":
        pols = [CustomRule(p.flee, p.battle_cards, p.volley_cards) for p in pols]
        n = 30
        res = simulate_scalar(RULES, ships, npc, pols, n, rng, island, None)
    else:
        res = simulate_battles(RULES, ships, npc, pols, n, rng, island=island)
    assert res.engine == engine and res.n == n
    assert not res.capped.any()
    routed = res.outcome == OUTCOMES.index("routed")
    assert ((res.positions.min(axis=2) == 0) == routed).all()
    start = np.array([s.positions for s in ships])
    assert (res.positions <= start[None]).all()
    if island != "treasure_island" and npc != "cacafuego":
        assert ((res.outcome == OUTCOMES.index("won")).sum(axis=1) <= 1).all()
    if npc not in (None, "cacafuego"):
        won_any = (res.outcome == OUTCOMES.index("won")).any(axis=1)
        assert res.npc_sunk[won_any].all()
    if npc != "cacafuego":
        assert (res.captured_by == -1).all()
