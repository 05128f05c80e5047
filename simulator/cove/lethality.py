"""Legendary-pirate lethality: for each Legendary Pirate and the Royal Navy, against a grid of ship
builds, the probability that the ship sinks it, is routed or flees, and its expected fame.

Rules: "Non-player ships" of ``../shared/rules/pirates-cove.md``; every number is exact (the duels
of :mod:`simulator.cove.duel`), so the ``method`` column says ``exact``. The standard grid
(issue 3): the start ship; each section maxed; balanced builds at 9, 15, 24 and 36 gold of
upgrades; each with and without an Artisan on the hull.

A balanced build spends its gold one step at a time on the lowest ring (ties: hull, crew,
cannons, sails), at the mat's step costs, until the next step is not affordable.

Public API: :func:`standard_builds`, :func:`read_builds`, :func:`lethality_table`,
:func:`duel_monte_carlo_chunk` (the Monte Carlo peer used by ``broadside cove duel -n``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from scenarios import Scenario, load_scenario
from simulator.cove.combat import BattleShip, dispatch, simulate_battles
from simulator.cove.combat_kernel import COMPILED_ENGINE
from simulator.cove.combat_policies import RulePolicy, policy_from_name
from simulator.cove.duel import FIGHTING_OPPONENTS, DuelShip, LoneShipOdds
from simulator.cove.duel_cards import COMBAT_CARDS
from simulator.cove.rules import SECTIONS, CoveRules
from simulator.errors import UserError
from simulator.runner import derive_seed, run_chunks
from simulator.stats import wilson_interval

BALANCED_GOLD = (9, 15, 24, 36)
#: battles per block of random streams of the Monte Carlo duels (part of the seed tree)
MC_BLOCK_SIZE = 20_000
MAX_CHESTS = 50  # chests aboard a build (what Overboard can throw)
COLUMNS = (
    "pirate",
    "build",
    "hull",
    "crew",
    "cannons",
    "sails",
    "artisan",
    "parrot",
    "policy",
    "company",
    "chests",
    "cards",
    "card_policy",
    "p_sink",
    "p_routed",
    "p_fled",
    "p_mutiny",
    "expected_fame",
    "method",
    "engine",
    "n",
    "p_sink_low",
    "p_sink_high",
    "best_card",
    "p_sink_best_card",
    "best_pair",
    "p_sink_best_pair",
    "states",
    "ms",
)


@dataclass(frozen=True)
class Build:
    name: str
    positions: tuple[int, int, int, int]
    artisan: str | None = None
    parrot: str | None = None
    chests: int = 0  # aboard (what Overboard can throw; lost to a mutiny)

    def duel_ship(self, seat: int = 0) -> DuelShip:
        return DuelShip(
            self.positions,
            {self.artisan: 0} if self.artisan else {},
            self.parrot,
            seat=seat,
            chests=self.chests,
        )

    def battle_ship(self, seat: int = 0, cards: tuple[str, ...] = ()) -> BattleShip:
        return BattleShip(
            seat,
            list(self.positions),
            {self.artisan: 0} if self.artisan else {},
            self.parrot,
            chests=self.chests,
            battle_cards=list(cards),
        )


def balanced_positions(rules: CoveRules, gold: int) -> tuple[int, int, int, int]:
    """Spend ``gold`` one step at a time on the lowest ring (ties in SECTIONS order)."""
    mat = rules.ship_mat
    pos = [mat.start_position] * 4
    while True:
        k = min(range(4), key=lambda i: (pos[i], i))
        if pos[k] >= mat.num_positions:
            break
        cost = mat.step_cost[pos[k]]  # gold to move into position pos[k] + 1
        if cost > gold:
            break
        gold -= cost
        pos[k] += 1
    return tuple(pos)


def standard_builds(rules: CoveRules) -> list[Build]:
    """The issue's grid: start, each section maxed, balanced at 9/15/24/36 gold; +/- hull
    Artisan."""
    mat = rules.ship_mat
    start = (mat.start_position,) * 4
    bases = [("start", start)]
    for k, sec in enumerate(SECTIONS):
        p = list(start)
        p[k] = mat.num_positions
        bases.append((f"max-{sec}", tuple(p)))
    for g in BALANCED_GOLD:
        bases.append((f"balanced-{g}", balanced_positions(rules, g)))
    out = []
    for name, pos in bases:
        out.append(Build(name, pos))
        out.append(Build(f"{name}+artisan-hull", pos, artisan="hull"))
    return out


def _parrot_key(rules: CoveRules, name: str, where: str) -> str:
    key = name.strip().replace("-", "_").lower()
    if key not in rules.parrots:
        raise UserError(
            f"{where}: parrot {name!r} "
            f"(allowed: {', '.join(k.replace('_', '-') for k in rules.parrots)})"
        )
    return key


def read_builds(path: str | Path, rules: CoveRules) -> list[Build]:
    """Builds from a CSV file with columns
    ``name,hull,crew,cannons,sails[,artisan][,parrot][,chests]``."""
    path = Path(path)
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise UserError(f"{path}: cannot read builds CSV ({exc})") from None
    need = ["name", *SECTIONS]
    missing = [c for c in need if c not in df.columns]
    extra = [c for c in df.columns if c not in (*need, "artisan", "parrot", "chests")]
    if missing or extra:
        raise UserError(
            f"{path}: columns {list(df.columns)} "
            "(allowed: name, hull, crew, cannons, sails, artisan, parrot, chests; "
            f"missing: {missing or 'none'})"
        )
    n = rules.ship_mat.num_positions
    out = []
    for i, row in df.iterrows():
        where = f"{path}: row {i + 2}"
        pos = []
        for sec in SECTIONS:
            v = row[sec].strip()
            if not v.isdigit() or not 1 <= int(v) <= n:
                raise UserError(f"{where}: {sec}={v!r} (allowed: a position 1..{n})")
            pos.append(int(v))
        art = row.get("artisan", "").strip() or None
        if art is not None and art not in SECTIONS:
            raise UserError(f"{where}: artisan={art!r} (allowed: {', '.join(SECTIONS)})")
        par = row.get("parrot", "").strip() or None
        if par is not None:
            par = _parrot_key(rules, par, where)
        ch = row.get("chests", "").strip() or "0"
        if not ch.isdigit() or int(ch) > MAX_CHESTS:
            raise UserError(f"{where}: chests={ch!r} (allowed: 0..{MAX_CHESTS})")
        out.append(Build(row["name"].strip() or f"row-{i + 2}", tuple(pos), art, par, int(ch)))
    if not out:
        raise UserError(f"{path}: no builds")
    return out


def lethality_table(
    scenario: Scenario | CoveRules | None = None,
    builds: list[Build] | None = None,
    policy: str = "stand",
    opponents: tuple[str, ...] = FIGHTING_OPPONENTS,
    *,
    company: int = 0,
    company_build: Build | None = None,
    n: int = 20_000,
    seed: int = 0,
    n_jobs: int = 1,
    quiet: bool = True,
    cards: tuple[str, ...] = (),
    card_policy: str = "optimal",
    best_cards: bool = True,
) -> pd.DataFrame:
    """Tidy table, one row per (pirate, build): p_sink, p_routed, p_fled, expected_fame.

    Alone (``company=0``) every row is an exact duel, the ship holding ``cards`` (battle and
    volley cards, played by ``card_policy``: see :func:`simulator.cove.duel.exact_duel`);
    ``p_sink`` is then P(sink) (``p_routed``: routed without sinking it). With ``best_cards`` the
    row also gives the card (``best_card``) and the pair of cards (``best_pair``, two names joined
    by ``+``) that, added to ``cards``, give the highest P(sink) under the same card policy, and
    those P(sink) (ties: the first in the Tavern deck's order; only cards the scenario's deck
    still holds after the hand; ``""`` when no card or pair raises P(sink) above the hand's;
    ``CARD+none`` when no second card adds anything to the best single card).

    With ``company`` other player ships (``company_build``, default the start ship, same policy)
    beside the build, the rows are Monte Carlo (``simulate_battles`` -- the compiled kernel, no
    cards -- ``n`` battles, seeded from ``seed`` and the row): the pirates are met at Treasure
    Island, where the players do not fight each other; the Royal Navy (never there) at an outer
    island, where the survivors fight on after sinking it. ``p_sink`` is then the chance
    that the pirate is sunk by anybody; the other columns are the build's own ship.

    Args:
        scenario: a loaded scenario, bare rules, or ``None`` for the standard scenario.
        builds: the builds (default :func:`standard_builds`).
        policy: the player ships' policy name (see :func:`policy_from_name`).
        opponents: pirate keys and/or ``"royal_navy"``.
        company: other player ships in the battle (0..4).
        company_build: their build (default: the start ship).
        n, seed, n_jobs, quiet: Monte Carlo size, root seed, workers, progress bar (company > 0).
    """
    if scenario is None:
        scenario = load_scenario(None, CoveRules)
    rules = scenario.rules if isinstance(scenario, Scenario) else scenario
    builds = builds if builds is not None else standard_builds(rules)
    if not 0 <= company <= 4:
        raise UserError(f"company {company} (allowed: 0..4 other ships)")
    policy_from_name(policy)  # refuses an unknown policy name
    if company and cards:
        raise UserError("--cards: exact odds with cards are for a lone ship (allowed: --company 0)")
    hand = tuple(cards)
    odds = LoneShipOdds(rules)  # one memo: the rows' hands share their chains
    spares = _spare_cards(rules, hand) if best_cards and not company else ()
    if card_policy == "optimal":  # these never raise the optimal P(sink): not tried
        spares = tuple(c for c in spares if c not in NEVER_RAISE_OPTIMAL)
    pairs = [
        (a, b)
        for i, a in enumerate(spares)
        for b in spares[i:]
        if a != b or _deck_count(rules, a) - hand.count(a) >= 2
    ]
    rows = []
    for r, opp in enumerate(opponents):
        for k, b in enumerate(builds):
            t0 = time.perf_counter()
            base = {
                "pirate": opp,
                "build": b.name,
                **dict(zip(SECTIONS, b.positions)),
                "artisan": b.artisan or "",
                "parrot": b.parrot or "",
                "policy": policy,
                "company": company,
                "chests": b.chests,
                "cards": "+".join(hand),
                "card_policy": card_policy if company == 0 else "",
            }
            if company == 0:
                ds = b.duel_ship()
                d = odds.duel(ds, opp, hand, policy=policy, card_policy=card_policy)
                row = {
                    "p_sink": float(d.win),
                    "p_routed": float(d.routed),
                    "p_fled": float(d.fled),
                    "p_mutiny": float(d.mutiny),
                    "expected_fame": float(d.expected_fame),
                    "method": "exact",
                    "engine": "exact",
                    "n": 0,
                    "states": d.states,
                }
                row["p_sink_low"] = row["p_sink_high"] = row["p_sink"]
                singles = [(c,) for c in spares]
                row["best_card"], row["p_sink_best_card"] = _best(
                    odds, ds, opp, policy, hand, card_policy, singles, row["p_sink"]
                )
                row["best_pair"], row["p_sink_best_pair"] = _best(
                    odds, ds, opp, policy, hand, card_policy, pairs, row["p_sink"]
                )
                if row["best_card"] and row["p_sink_best_pair"] <= row["p_sink_best_card"] + 1e-12:
                    # no second card adds anything to the best single one
                    row["best_pair"] = row["best_card"] + "+none"
                    row["p_sink_best_pair"] = row["p_sink_best_card"]
                if not best_cards:
                    row["p_sink_best_card"] = row["p_sink_best_pair"] = float("nan")
            else:
                mates = company_build or Build("start", (rules.ship_mat.start_position,) * 4)
                source = (
                    str(scenario.path) if isinstance(scenario, Scenario) else rules
                )  # paths pickle
                island = "hull" if opp == "royal_navy" else "treasure_island"
                task = functools.partial(
                    duel_monte_carlo_chunk,
                    scenario_path=source,
                    ships=(b,) + (mates,) * company,
                    npc=opp,
                    policies=(policy,) * (company + 1),
                    island=island,
                )
                row_seed = derive_seed(seed, "lethality-row", r, k)
                run = run_chunks(
                    task,
                    n,
                    seed=row_seed,
                    n_jobs=n_jobs,
                    quiet=quiet,
                    chunk_size=MC_BLOCK_SIZE,
                    block_size=MC_BLOCK_SIZE,
                    desc=f"{opp} vs {b.name}",
                    compiled=COMPILED_ENGINE,
                )
                tot = np.sum(run.results, axis=0)
                lo, hi = wilson_interval(tot[7], n)
                row = {
                    "p_sink": tot[7] / n,
                    "p_routed": tot[1] / n,
                    "p_fled": (tot[2] + tot[3]) / n,
                    "p_mutiny": tot[3] / n,
                    "expected_fame": tot[5] / n,
                    "method": "monte-carlo",
                    "engine": duel_engine(
                        rules, (b,) + (mates,) * company, opp, (policy,) * (company + 1), island
                    )[0],
                    "n": n,
                    "states": 0,
                    "p_sink_low": float(lo),
                    "p_sink_high": float(hi),
                    "best_card": "",
                    "p_sink_best_card": float("nan"),
                    "best_pair": "",
                    "p_sink_best_pair": float("nan"),
                }
            row["ms"] = (time.perf_counter() - t0) * 1000
            rows.append({**base, **row})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _deck_count(rules: CoveRules, card: str) -> int:
    return int(getattr(rules.tavern, card))


def _spare_cards(rules: CoveRules, hand: tuple[str, ...]) -> tuple[str, ...]:
    """Battle and volley cards the scenario's deck still holds after ``hand`` (deck order)."""
    return tuple(c for c in COMBAT_CARDS if _deck_count(rules, c) > hand.count(c))


#: cards that never raise P(sink) under the optimal card policy against a non-player ship:
#: Becalmed only takes the ship's own later cards away, a Cannonade only costs the next broadside
#: (the non-player ship has no section but the hull), Overboard needs chests (tried when the
#: build has some)
NEVER_RAISE_OPTIMAL = ("becalmed", "cannonade")


def _best(odds, ship, opp, policy, hand, card_policy, extras, base: float) -> tuple[str, float]:
    """The extra cards (among ``extras``) with the highest P(sink), and that P(sink); ``""`` and
    ``base`` when no extra raises P(sink) above ``base`` (the hand alone)."""
    best_name, best_p = "", base
    for extra in extras:
        if "overboard" in extra and ship.chests == 0:
            continue  # nothing to throw: no effect
        d = odds.duel(ship, opp, hand + extra, policy=policy, card_policy=card_policy)
        if float(d.win) > best_p + 1e-12:
            best_name, best_p = "+".join(extra), float(d.win)
    return best_name, best_p


# ------------------------------------------------------------------------------------------
# Monte Carlo peer for the duel command (module level: picklable for the runner's workers)
@lru_cache(maxsize=8)
def _rules_from(path: str | None) -> CoveRules:
    # scenario rules hold read-only mappings that do not pickle: workers reload them by path
    return load_scenario(path, CoveRules).rules


def duel_engine(
    rules: CoveRules,
    ships: tuple[Build, ...],
    npc: str | None,
    policies: tuple,
    island: str = "hull",
    cards: tuple[str, ...] = (),
) -> tuple[str, str]:
    """The engine (and why) :func:`duel_monte_carlo_chunk` plays these battles with: the rule of
    :func:`simulator.cove.combat.dispatch`, for the result's provenance."""
    bships = [b.battle_ship(seat=i, cards=cards if i == 0 else ()) for i, b in enumerate(ships)]
    pols = [policy_from_name(p) if isinstance(p, str) else p for p in policies]
    return dispatch(rules, bships, npc, pols, island)


def duel_monte_carlo_chunk(
    chunk,
    scenario_path,
    ships: tuple[Build, ...],
    npc: str | None,
    policies: tuple,
    island: str = "hull",
    cards: tuple[str, ...] = (),
) -> np.ndarray:
    """One chunk of battles: [won, routed, fled, mutiny, stayed, fame_sum, fame_sq_sum] of ship 0,
    then the number of battles where the non-player ship was sunk, then the number where ship 0
    was routed by the broadside that sank it (its own Powder keg or Grapeshot recoil).

    ``scenario_path``: a scenario file (``None``: standard) reloaded in the worker, or rules
    (in-process runs only: scenario rules do not pickle). ``policies``: policy names or
    (picklable) policy objects; ``cards``: the battle and volley cards ship 0 holds.
    """
    rules = scenario_path if isinstance(scenario_path, CoveRules) else _rules_from(scenario_path)
    bships = [b.battle_ship(seat=i, cards=cards if i == 0 else ()) for i, b in enumerate(ships)]
    pols = [policy_from_name(p) if isinstance(p, str) else p for p in policies]
    total = np.zeros(9)
    for block in chunk.blocks():
        rng = block.rng("dice")
        res = simulate_battles(rules, bships, npc, pols, block.size, rng, island=island)
        counts = np.bincount(res.outcome[:, 0], minlength=5).astype(float)
        fame = res.fame[:, 0].sum(axis=1).astype(float)
        sunk_routed = float(((res.outcome[:, 0] == 1) & res.npc_sunk).sum())
        total += np.concatenate(
            [counts, [fame.sum(), (fame**2).sum(), float(res.npc_sunk.sum()), sunk_routed]]
        )
    return total


__all__ = [
    "Build",
    "RulePolicy",
    "balanced_positions",
    "duel_monte_carlo_chunk",
    "lethality_table",
    "read_builds",
    "standard_builds",
]
