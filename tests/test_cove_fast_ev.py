"""The compiled expected-value players (simulator.cove.fast.players_ev): the kinds of root
``heuristic`` (plunderer, brawler, tavern, balanced) are compiled, their rows hold their
parameters and the start of their memory, and the navigation's company bound bounds every
estimate.

Their games are checked die for die against the record (``tests/test_cove_fingerprints.py``),
their decisions on constructed positions in readable mode
(``tests/cove_readable/test_cove_players.py``: ``test_the_compiled_navigation_makes_a_subset_of_
the_estimates`` among them) and what they may see (``tests/cove_readable/
test_cove_players_see.py``).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios.loader import load_scenario
from simulator.cove.api import choose_engine
from simulator.cove.fast import packed
from simulator.cove.rules import CoveRules
from simulator.cove.tables import kind_root, strategy_params

RULES = load_scenario(None, CoveRules).rules
EV = ("plunderer", "brawler", "tavern", "balanced")


def test_ev_kinds_are_compiled():
    """The EV strategies are compiled (``packed.COMPILED_ROOTS``): the engine choice plays them
    on the compiled game."""
    ev = {
        nm for nm, strat in RULES.strategies.items() if kind_root(RULES, strat.kind) == "heuristic"
    }
    assert ev == set(EV)
    assert packed.EV_ROOT in packed.COMPILED_ROOTS
    assert all(packed.compiled(RULES, nm) for nm in EV)
    assert choose_engine(None, RULES, EV) == ("fast", "compiled")


def test_ev_rows_hold_the_parameters_and_the_start_state():
    """An EV seat's pp row: its parameters under the shared names, the opponent temperature,
    the readable player's starting state (_stake 0, _hv_chest = w_chest, _gold/_month 0)."""
    row = packed.player_row(RULES, "brawler")
    p = strategy_params(RULES, "brawler")
    assert row[packed.PP_IS_EV] == 1.0 and row[packed.PP_IS_RANDOM] == 0.0
    for name in ("w_gold", "w_chest", "rout_cost", "fight_bias", "noise", "target_sails"):
        assert row[packed.PP[name]] == float(p[name])
    assert row[packed.PP_OPP_TEMP] == float(p["opp_temperature"])
    assert row[packed.PP_STAKE] == 0.0 and row[packed.PP_HV_CHEST] == float(p["w_chest"])
    assert row[packed.PP_GOLD_SEEN] == 0.0 and row[packed.PP_MONTH_SEEN] == 0.0
    assert packed.player_row(RULES, "random")[packed.PP_IS_EV] == 0.0


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
unit = st.floats(0.0, 1.0)


@settings(deadline=None)  # the first example compiles company_bound
@given(after=finite, share_hi=st.floats(0.0, 100.0), rout=finite, p=unit, q=unit, r=unit)
def test_the_company_bound_bounds_every_estimate_as_floats(after, share_hi, rout, p, q, r):
    """``company_bound`` is at least the value of a company subset (``island_details``' float
    expression) for any estimate: P(sink) and P(routed) in [0, 1], the share in [0, share_hi]."""
    from simulator.cove.fast.players_ev import company_bound

    share = q * share_hi
    assert p * after + share - r * rout <= company_bound(after, share_hi, rout)
    for pe, se, re in ((1.0, share_hi, 0.0), (0.0, share_hi, 0.0), (1.0, share_hi, 1.0)):
        assert pe * after + se - re * rout <= company_bound(after, share_hi, rout)
