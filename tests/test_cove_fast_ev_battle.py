"""The expected-value players' battle policy compiled (simulator.cove.fast.players_ev_battle):
the battle state it reads equals the odds' reading of the same ship.

Its decisions are checked on constructed battles in readable mode
(``tests/cove_readable/test_cove_players.py``: Favourable wind, Overboard, Smoke and the
solver's volleys, flee or stand, the least-hull aim of two non-player ships), what it may see
in ``tests/cove_readable/test_cove_players_see.py``, and its games die for die against the
record (``tests/test_cove_fingerprints.py``, which also holds broadsides at the second
non-player ship).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from scenarios.loader import load_scenario
from simulator.cove.combat_policies import SECTIONS, ShipView
from simulator.cove.fast import battle as fb
from simulator.cove.fast import players_ev_battle as eb
from simulator.cove.fast.packed import pack_rules
from simulator.cove.rules import CoveRules
from tests.cove_odds_oracle import battle_ship_state


@pytest.mark.parametrize("hits_to_kill", [1, 2, 3])
@pytest.mark.parametrize("absorbs", [True, False])
def test_battle_state_is_battle_ship_state(hits_to_kill, absorbs):
    """``battle_state`` = ``odds.battle_ship_state`` of the view of the same ship, for every
    parrot (all four kinds) at every hits-left count, on every section, with and without parrots
    absorbing hits -- including the readable rule's reading of a parrot with 2 of 3 hits left as
    wounded (1 hit), which no view of the standard rules (2 hits to kill) can show."""
    base = load_scenario(None, CoveRules).rules
    rules = replace(base, combat=replace(base.combat, parrot_hits_to_kill=hits_to_kill,
                                         parrot_absorbs_hits=absorbs))  # fmt: skip
    tab = pack_rules(rules).arrays()
    c = rules.combat
    bt = fb.scratch(8)
    fb.reset(bt, 1, 0, 0, -1)
    out = np.zeros(9, np.int64)
    n = 0
    for parrot in (None, *rules.parrots):
        for php in range(1, hits_to_kill + 1) if parrot else (0,):
            for art_sec in range(4):
                ring = (3, 2, 4, 1)
                prow = list(rules.parrots).index(parrot) if parrot else -1
                used = np.full(4, -1, np.int64)
                used[art_sec] = 0
                fb.set_ship(tab, bt, 0, 0, np.array(ring, np.int64), used, prow, False, 0, 0)
                bt.php[0] = php
                psec = SECTIONS.index(rules.parrots[parrot].section) if parrot else -1
                prot = [c.artisan_absorbs if k == art_sec else 0 for k in range(4)]
                if parrot and absorbs:
                    prot[psec] += php
                view = ShipView(
                    0, ring, ring, tuple(prot), parrot, parrot is not None and php < hits_to_kill,
                    0, True, False, False, True, 0, 0,
                )  # fmt: skip
                eb.battle_state(tab, bt, 0, out)
                assert tuple(out) == battle_ship_state(rules, view), (parrot, php, art_sec)
                n += 1
    assert n == 4 * (1 + len(rules.parrots) * hits_to_kill)
