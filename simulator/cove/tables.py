"""What every Pirate's Cove game of a scenario starts from: names, decks and players' parameters.

Rules: "Setup" and "Tavern deck" of ``../shared/rules/pirates-cove.md``. This module holds the
scenario-level data the one engine (:mod:`simulator.cove.fast`) is packed from and the commands
print: the card and island names, the unshuffled Tavern and Treasure decks
(:func:`build_tavern_deck`, :func:`build_treasure_deck`), the implemented kinds of player and a
strategy's full parameter vector (:func:`strategy_params`), and the binomial table of the
players' odds (:func:`hit_pmf`). Nothing here plays a game.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

from scenarios.strategies import kind_chain, resolve_params, unknown_name_message
from simulator.cove.rules import CoveRules
from simulator.errors import UserError

HULL, CREW, CANNONS, SAILS = 0, 1, 2, 3  # index order of rules.SECTIONS
TAVERN, TREASURE, COVE = 0, 5, 6  # island indices: 0..4 outer islands, 5 Treasure Island, 6 Cove
NAV_ISLANDS = (0, 1, 2, 3, 4, 5)  # where a ship may sail (never the Cove)
ISLAND_NAMES = ("tavern", "hull", "sails", "cannons", "crew", "treasure_island", "cove")
#: the non-player ship that is not a Legendary Pirate (its key in tables and results)
ROYAL_NAVY = "royal_navy"

# Tavern card names (parrots are "parrot:<key>", fame cards "fame:<n>" in a hand's text)
BATTLE_CARDS = ("becalmed", "favourable_wind", "grapple", "smoke", "overboard")
VOLLEY_CARDS = ("grapeshot", "powder_keg", "cannonade")
EVENT_CARDS = (
    "sneak_away",
    "royal_navy",
    "letter_of_marque",
    "treasure_map",
    "plunder",
    "lookout",
    "shipwright",
)
#: where a seat's fame came from, in the order of the seats table's ``fame_*`` columns
FAME_SOURCES = ("plunder", "burying", "combat", "pirates", "fame_cards", "penalties")

#: the implemented kinds of player, the roots a declared kind's ``extends`` chain must reach:
#: the expected-value players (``heuristic``), their search player (``rollout``), the issue-13
#: baselines (``heuristic-v1``) and ``random`` (:mod:`simulator.cove.fast.players`)
PLAYER_ROOTS = ("rollout", "heuristic", "heuristic-v1", "random")

#: columns of the expected-value players' decision records (``FastGames.play(...,
#: decisions=True)``, the packed rows ``packed.DR_*``; the studies of
#: :mod:`simulator.cove.player_study`): one row per option weighed, ``value`` the option's
#: expected value in fame units as the player computed it, ``chosen`` the option taken
RECORD_COLUMNS = (
    "month",  # month of the decision (1..12)
    "seat",  # the deciding seat (0-based, engine order)
    "decision",  # "navigate" or "battle"
    "option",  # island index 0..5 (navigate), or "stand" / "flee" (battle)
    "value",  # expected value of the option (fame units; rollout: the mean simulated value)
    "chosen",  # 1 for the option taken
    "npc",  # the non-player ship at that island / in that battle ("" if none)
    "p_alone",  # probability that no opponent comes to that island (navigate)
    "p_sink_lone",  # P(sink the npc) alone with the hand (exact)
    "p_sink_company",  # P(sink while still there) with the likely company (estimate; navigate)
    "expected_opponents",  # expected opponents at the island (navigate) / present (battle)
)

#: every parameter of the v1 baselines' row, with the values the ``random`` kind plays with (the
#: baselines' own values come from the scenario's ``[kinds.*-v1]``; the expected-value kinds use
#: the same names where they share a meaning)
V1_BASE_PARAMS: dict[str, float] = {
    "w_fame": 1.0,  # value of 1 fame
    "w_gold": 0.3,  # value of 1 gold
    "w_chest": 0.8,  # value of 1 chest it can hold
    "w_card": 0.5,  # value of 1 Tavern card
    "target_hull": 4,
    "target_crew": 3,
    "target_cannons": 3,
    "target_sails": 4,  # ring positions
    "prio_hull": 1.0,
    "prio_crew": 1.0,
    "prio_cannons": 1.0,
    "prio_sails": 1.0,
    "gold_reserve": 2,  # gold kept back from upgrades
    "arming_reserve": 0,  # gold kept back at the secret initial arming
    "bury_reserve": 3,  # gold kept when burying (none in the last month)
    "buy_cards": 0,  # cards bought per Tavern visit
    "card_gold_reserve": 2,  # gold kept when buying cards
    "tavern_bias": 0.0,  # extra value of sailing to the Tavern
    "treasure_bias": 0.0,  # extra value of sailing to Treasure Island
    "fight_bias": -1.0,  # value added per expected opponent at an island (brawler: positive)
    "pirate_odds_min": 0.8,  # sail at a Legendary Pirate only if P(sink it) >= this
    "rout_cost": 3.0,  # value lost when routed (repairs, lost month)
    # flee a battle when a section is this many hits from destruction (0: never)
    "flee_hits_left": 1,
    "flee_pirate_odds": 0.25,  # flee a pirate when the odds of sinking it fall below this
    "play_cards": 1,  # play battle and volley cards (0: never)
    "cove_cards": 1,  # at the Cove take 2 cards (1) or 1 card and 2 gold (0)
    "use_navy": 1,  # send the Royal Navy / Letter of marque at the leader
    "use_plunder": 1,
    "use_sneak": 1,
    "opponent_model": 0,  # 1: predict opponents' islands (balanced)
    "ti_upgrade": 0,  # use the double-cost upgrade at Treasure Island
    "noise": 0.05,  # random tie-breaking noise on island scores
    "parrot_flint": 1.0,
    "parrot_long_john_silver": 1.0,
    "parrot_billy_bones": 1.0,
    "parrot_squire_trelawney": 1.0,  # how much it likes each parrot (swap if gain > 1 fame)
    "buy_last_month": 0,  # buy cards in month 12 too (tavern-v1)
}


def build_tavern_deck(rules: CoveRules) -> list[str]:
    """Every Tavern card of the scenario, unshuffled (the order the shuffles permute)."""
    t = rules.tavern
    counts = {name: getattr(t, name) for name in BATTLE_CARDS + VOLLEY_CARDS + EVENT_CARDS}
    if (
        rules.decisions.royal_navy_doubled_title == "letter_of_marque"
        and counts["royal_navy"] > counts["letter_of_marque"]
    ):
        # the doubled event title is unknown: this switch gives the extra copy to the Letter of
        # marque
        counts["royal_navy"], counts["letter_of_marque"] = (
            counts["letter_of_marque"],
            counts["royal_navy"],
        )
    deck = [f"parrot:{p}" for p in t.parrots]
    deck += ["artisan"] * t.artisan
    for name in BATTLE_CARDS + VOLLEY_CARDS + EVENT_CARDS:
        deck += [name] * counts[name]
    for value, count in sorted(t.fame_cards.items()):
        deck += [f"fame:{int(value)}"] * count
    return deck


def build_treasure_deck(rules: CoveRules) -> list[tuple[int, int, int, int]]:
    """Every Treasure card as ``(fame, gold, chests, tavern)``, unshuffled."""
    out = []
    for c in rules.treasure.cards:
        out += [(c.fame, c.gold, c.chests, c.tavern)] * c.copies
    return out


def strategy_params(rules: CoveRules, name: str) -> dict[str, Any]:
    """The full parameter vector of strategy ``name`` (kind defaults overlaid with its values)."""
    return resolve_params(rules.kinds, rules.strategies[name], f"strategies.{name}")


def kind_root(rules: CoveRules, kind: str) -> str | None:
    """The implemented kind that plays ``kind``: the first of its ``extends`` chain in
    :data:`PLAYER_ROOTS` (``None``: none)."""
    return next((k for k in kind_chain(rules.kinds, kind) if k in PLAYER_ROOTS), None)


def unknown_strategy(rules: CoveRules, name: str, where: str = "--strategies") -> UserError:
    """The one-line error for a strategy name the scenario does not have (with "did you mean")."""
    return UserError(f"{where}: {unknown_name_message('strategy', name, rules.strategies)}")


def check_strategies(rules: CoveRules) -> None:
    """Every ``[strategies.*]`` entry resolves to a player (kinds and values are validated when
    the scenario loads; this also checks that the code implements each kind)."""
    for name, strat in rules.strategies.items():
        resolve_params(rules.kinds, strat, f"strategies.{name}")
        if kind_root(rules, strat.kind) is None:
            raise UserError(
                f"strategies.{name}.kind: {strat.kind!r} extends no implemented kind "
                f"(allowed roots: {', '.join(PLAYER_ROOTS)})"
            )


def hit_chance(hit_on: int, exact: bool = False) -> float | Fraction:
    """P(one d6 hits) when the faces ``hit_on``..6 hit (``combat.hit_on``, ``smoke_hit_on``,
    ``grapeshot_hit_on``; a mutiny's ``7 - mutiny_on``): ``(7 - hit_on) / 6`` within [0, 1], a
    :class:`~fractions.Fraction` with ``exact``. The chance every exact path and the players'
    binomial volleys start from (the sampled battles roll the faces themselves:
    :func:`simulator.cove.fast.core.fire_threshold`)."""
    if hit_on <= 1:
        return Fraction(1) if exact else 1.0
    if hit_on > 6:
        return Fraction(0) if exact else 0.0
    return Fraction(7 - hit_on, 6) if exact else (7 - hit_on) / 6.0


@cache
def hit_pmf(n: int, p: float) -> tuple[float, ...]:
    """P(k hits of ``n`` dice), k = 0..n, each die hitting with probability ``p`` (the players'
    binomial volleys; the exact odds enumerate faces instead)."""
    q = 1.0 - p
    return tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))
