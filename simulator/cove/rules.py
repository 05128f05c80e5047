"""Pirate's Cove rules as data: the schema of ``scenarios/cove/*.toml``.

Every number and switch of ``../shared/rules/pirates-cove.md`` lives in a scenario file and is
validated into these frozen dataclasses by :mod:`scenarios.loader`. Sections of the notes:
"Components and setup" (:class:`ShipMat`, :class:`Setup`, :class:`Bank`), "A month"
(:class:`Economy`, :class:`TreasureDeck`), "Combat" (:class:`Combat`, :class:`Parrot`),
"Non-player ships" (:class:`NonPlayerShip`), "Tavern deck" (:class:`TavernDeck`), the decisions
(:class:`Decisions`) and the players' kinds and strategies (the shared schema of
:mod:`scenarios.strategies`: ``[kinds.*]``, ``[strategies.*]``, ``default_mix``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import ClassVar, Literal

from scenarios.loader import ScenarioError
from scenarios.strategies import KindDecl, StrategyDecl, validate_strategies

SECTIONS = ("hull", "crew", "cannons", "sails")  # index order used by every engine array
ISLANDS = ("tavern", "hull", "sails", "cannons", "crew", "treasure_island")  # resolution order 1..6
COVE = "cove"

TargetRule = Literal["most_cannons", "largest_crew", "strongest_hull", "fastest", "controller"]
DamageRule = Literal["hull", "crew", "every_section", "controller"]


@dataclass(frozen=True, slots=True)
class ShipMat:
    """The ship mat: 8 positions per section; values and the gold to move into each position."""

    num_positions: int = field(default=8, metadata={"range": (2, 20)})
    start_position: int = field(default=2, metadata={"range": (1, 20)})  # 1-based
    hull: tuple[int, ...] = field(
        default=(4, 5, 6, 7, 8, 9, 10, 12), metadata={"item_range": (0, 99)}
    )
    sails: tuple[int, ...] = field(
        default=(4, 5, 6, 7, 8, 9, 10, 12), metadata={"item_range": (0, 99)}
    )
    crew: tuple[int, ...] = field(
        default=(2, 2, 3, 3, 4, 4, 5, 5), metadata={"item_range": (0, 30)}
    )
    cannons: tuple[int, ...] = field(
        default=(2, 2, 3, 3, 4, 4, 5, 5), metadata={"item_range": (0, 30)}
    )
    step_cost: tuple[int, ...] = field(
        default=(0, 1, 1, 2, 2, 3, 3, 4), metadata={"item_range": (0, 99)}
    )

    def validate(self) -> None:
        for key in ("hull", "sails", "crew", "cannons", "step_cost"):
            values = getattr(self, key)
            if len(values) != self.num_positions:
                raise ScenarioError(
                    None,
                    f"ship_mat.{key}",
                    f"has {len(values)} values "
                    f"(allowed: exactly num_positions = {self.num_positions})",
                )
            if key != "step_cost" and any(b < a for a, b in pairwise(values)):
                raise ScenarioError(
                    None, f"ship_mat.{key}", "values must not decrease along the mat"
                )
        if not 1 <= self.start_position <= self.num_positions:
            raise ScenarioError(
                None,
                "ship_mat.start_position",
                f"{self.start_position} is off the mat (allowed: 1..{self.num_positions})",
            )

    def value(self, section: str, position: int) -> int:
        """Value of ``section`` at 1-based ``position``."""
        return getattr(self, section)[position - 1]

    def cost_to(self, from_position: int, to_position: int) -> int:
        """Cumulative gold to raise a ring from one 1-based position to a higher one."""
        return sum(self.step_cost[p - 1] for p in range(from_position + 1, to_position + 1))


@dataclass(frozen=True, slots=True)
class Setup:
    min_players: int = field(default=3, metadata={"range": (2, 8)})
    max_players: int = field(default=5, metadata={"range": (2, 8)})
    num_months: int = field(default=12, metadata={"range": (1, 60)})
    start_gold: int = field(default=9, metadata={"range": (0, 200)})
    start_tavern_cards: int = field(default=1, metadata={"range": (0, 10)})
    start_fame: int = field(default=0, metadata={"range": (0, 100)})
    secret_initial_arming: bool = True


@dataclass(frozen=True, slots=True)
class Bank:
    gold: int = field(default=124, metadata={"range": (0, 10_000)})
    chests: int = field(default=50, metadata={"range": (0, 10_000)})


@dataclass(frozen=True, slots=True)
class TreasureCard:
    fame: int = field(metadata={"range": (0, 50)})
    gold: int = field(metadata={"range": (0, 50)})
    chests: int = field(metadata={"range": (0, 50)})
    tavern: int = field(default=0, metadata={"range": (0, 10)})
    copies: int = field(default=2, metadata={"range": (1, 20)})


@dataclass(frozen=True, slots=True)
class TreasureDeck:
    num_stacks: int = field(default=5, metadata={"range": (1, 5)})
    stack_size: int = field(default=12, metadata={"range": (1, 60)})
    cards: tuple[TreasureCard, ...] = ()

    def validate(self) -> None:
        total = sum(c.copies for c in self.cards)
        if total != self.num_stacks * self.stack_size:
            raise ScenarioError(
                None,
                "treasure.cards",
                f"{total} cards in all "
                f"(allowed: num_stacks x stack_size = {self.num_stacks * self.stack_size})",
            )


@dataclass(frozen=True, slots=True)
class BlackShips:
    """Black ships carrying Legendary Pirates: how many by player count and where they start."""

    count_by_players: Mapping[str, int] = field(
        default_factory=lambda: {"3": 2, "4": 1, "5": 1}, metadata={"value_meta": {"range": (0, 3)}}
    )
    start_islands: tuple[str, ...] = ("tavern", "cannons")

    def validate(self) -> None:
        for isl in self.start_islands:
            if isl not in ISLANDS:
                raise ScenarioError(
                    None,
                    "black_ships.start_islands",
                    f"{isl!r} is not an island (allowed: {', '.join(ISLANDS)})",
                )
        if max(self.count_by_players.values(), default=0) > len(self.start_islands):
            raise ScenarioError(
                None, "black_ships.count_by_players", "more black ships than start_islands"
            )


@dataclass(frozen=True, slots=True)
class NonPlayerShip:
    """A Legendary Pirate card or the Royal Navy (rules section "Non-player ships")."""

    title: str
    dice: int = field(metadata={"range": (0, 30)})
    damages: DamageRule = "hull"
    first_target: TargetRule = "most_cannons"
    hull: int = field(default=5, metadata={"range": (0, 99)})
    sails: int = field(default=20, metadata={"range": (0, 99)})
    fame: int = field(default=0, metadata={"range": (0, 50)})
    fame_die: bool = False  # fame is a d6 roll (Cacafuego)
    regenerate_per_exchange: int = field(default=0, metadata={"range": (0, 99)})  # Flying Dutchman
    misfire_redirect: bool = False  # Captain Hook
    misfire_positions: int = field(default=4, metadata={"range": (0, 10)})
    fights: bool = True  # False: treasure galleon (Cacafuego) does not fight
    in_pirate_deck: bool = True


@dataclass(frozen=True, slots=True)
class Parrot:
    title: str
    section: Literal["hull", "crew", "cannons", "sails"]
    unlimited_chests: bool = False  # Flint
    fixed_dice: int = field(
        default=0, metadata={"range": (0, 30)}
    )  # Long John Silver: always roll 6
    dice_equal_cannons: bool = False  # Billy Bones
    speed_bonus: int = field(default=0, metadata={"range": (0, 99)})  # Squire Trelawney: +20


@dataclass(frozen=True, slots=True)
class Combat:
    hit_on: int = field(default=5, metadata={"range": (1, 7)})
    smoke_hit_on: int = field(default=6, metadata={"range": (1, 7)})
    grapeshot_hit_on: int = field(default=3, metadata={"range": (1, 7)})
    grapeshot_self_hits: int = field(default=2, metadata={"range": (0, 10)})
    grapeshot_beats_smoke: bool = True
    favourable_wind_speed: int = field(default=6, metadata={"range": (0, 99)})
    overboard_speed_per_chest: int = field(default=2, metadata={"range": (0, 99)})
    artisan_absorbs: int = field(default=2, metadata={"range": (0, 10)})
    artisan_repair_cost: int = field(default=1, metadata={"range": (0, 20)})
    artisan_limit: Literal["per_ship", "per_section"] = "per_ship"
    flight_fame_if_hit: int = field(default=1, metadata={"range": (0, 10)})
    rout_fame: int = field(default=1, metadata={"range": (0, 10)})
    mutiny_on: int = field(
        default=1, metadata={"range": (0, 6)}
    )  # die face(s) <= this mutiny; 0 = never
    mutiny_fame_loss: int = field(default=2, metadata={"range": (0, 20)})
    parrot_death_fame_loss: int = field(default=2, metadata={"range": (0, 20)})
    parrot_hits_to_kill: int = field(default=2, metadata={"range": (1, 10)})
    max_exchanges: int = field(
        default=200, metadata={"range": (1, 10_000)}
    )  # safety cap (reported)
    # DECISION: a parrot absorbs the hits that wound and kill it (the ring does not move); False:
    # the parrot is wounded/killed and the ring moves as well.
    parrot_absorbs_hits: bool = True
    # DECISION: Smoke also protects against Captain Hook's misfires (a misfire die is not a 6).
    smoke_blocks_misfire: bool = True


@dataclass(frozen=True, slots=True)
class Economy:
    tavern_card_price: int = field(default=2, metadata={"range": (0, 50)})
    tavern_max_buy: int = field(default=3, metadata={"range": (0, 20)})
    bury_fame_per_chest: int = field(default=1, metadata={"range": (0, 10)})
    bury_gold_per_fame: int = field(default=3, metadata={"range": (1, 50)})
    treasure_island_upgrade_levels: int = field(default=1, metadata={"range": (0, 8)})
    treasure_island_cost_multiplier: int = field(default=2, metadata={"range": (1, 10)})
    cove_repair_cost: int = field(default=2, metadata={"range": (0, 50)})
    cove_reward_cards: int = field(default=2, metadata={"range": (0, 10)})
    cove_reward_alt_cards: int = field(default=1, metadata={"range": (0, 10)})
    cove_reward_alt_gold: int = field(default=2, metadata={"range": (0, 50)})
    parrot_swap_fame_cost: int = field(default=1, metadata={"range": (0, 10)})
    shipwright_free_levels: int = field(default=1, metadata={"range": (0, 8)})


@dataclass(frozen=True, slots=True)
class TavernDeck:
    """Card counts of the Tavern deck (42 cards by default)."""

    parrots: tuple[str, ...] = ("flint", "long_john_silver", "billy_bones", "squire_trelawney")
    artisan: int = field(default=7, metadata={"range": (0, 50)})
    becalmed: int = field(default=1, metadata={"range": (0, 20)})
    favourable_wind: int = field(default=2, metadata={"range": (0, 20)})
    grapple: int = field(default=2, metadata={"range": (0, 20)})
    smoke: int = field(default=2, metadata={"range": (0, 20)})
    overboard: int = field(default=1, metadata={"range": (0, 20)})
    grapeshot: int = field(default=2, metadata={"range": (0, 20)})
    powder_keg: int = field(default=2, metadata={"range": (0, 20)})
    cannonade: int = field(default=2, metadata={"range": (0, 20)})
    sneak_away: int = field(default=1, metadata={"range": (0, 20)})
    royal_navy: int = field(default=2, metadata={"range": (0, 20)})
    letter_of_marque: int = field(default=1, metadata={"range": (0, 20)})
    treasure_map: int = field(default=1, metadata={"range": (0, 20)})
    plunder: int = field(default=1, metadata={"range": (0, 20)})
    lookout: int = field(default=1, metadata={"range": (0, 20)})
    shipwright: int = field(default=1, metadata={"range": (0, 20)})
    fame_cards: Mapping[str, int] = field(
        default_factory=lambda: {"1": 5, "2": 3, "3": 1},
        metadata={"value_meta": {"range": (0, 50)}},
    )

    def total(self) -> int:
        counts = (
            self.artisan,
            self.becalmed,
            self.favourable_wind,
            self.grapple,
            self.smoke,
            self.overboard,
            self.grapeshot,
            self.powder_keg,
            self.cannonade,
            self.sneak_away,
            self.royal_navy,
            self.letter_of_marque,
            self.treasure_map,
            self.plunder,
            self.lookout,
            self.shipwright,
        )
        return len(self.parrots) + sum(counts) + sum(self.fame_cards.values())


@dataclass(frozen=True, slots=True)
class Decisions:
    """Our readings where the rules are silent (each a switch; see docs/rules-cove.md)."""

    tie_break: Literal["duel", "shared"] = "duel"
    cacafuego_at_treasure_island: Literal["fastest", "nobody"] = "fastest"
    fame_floor: int = field(default=0, metadata={"range": (0, 0)})
    parrot_sections_from_card_text: bool = True
    royal_navy_doubled_title: Literal["royal_navy", "letter_of_marque"] = "royal_navy"
    # --- full-game readings (simulator/cove/game.py; each listed in docs/rules-cove.md) ---
    # Card plays at the same moment (events, phase-5 order between equal speeds aside) go in seat
    # order starting from the first player; "rotate_monthly": seat (month - 1) mod n leads month n.
    first_player: Literal["seat0", "rotate_monthly"] = "rotate_monthly"
    # A parrot refused or swapped out goes back into the Tavern draw pile: shuffled in, on top or
    # at the bottom ("remettre ... dans la pile face cachee": position not stated).
    parrot_put_back: Literal["shuffle", "top", "bottom"] = "shuffle"
    # Pirate's Cove when the gold does not cover the repairs: pay what you have, or pay nothing.
    cove_unpaid_repair: Literal["pay_what_you_can", "free"] = "pay_what_you_can"
    # Plunder event: which of the victim's month loot is halved (fame, gold, chests of its Treasure
    # card; fame from burying) and whether Tavern cards from the Treasure card count too.
    plunder_includes_tavern_cards: bool = False
    plunder_includes_burying: bool = True
    # Sneak away: "no_ship" = outer island with no ship at all (player, black ship, Royal Navy);
    # "no_player_ship" = only player ships count.
    sneak_away_unoccupied: Literal["no_ship", "no_player_ship"] = "no_ship"
    # Royal Navy: how many may sail per month, and whether the letter-of-marque holder (the new
    # controller) may not send it to its own island either (the sender never may).
    royal_navy_per_month: int = field(default=1, metadata={"range": (0, 4)})
    royal_navy_not_at_controller_island: bool = True
    # A wounded parrot heals if its ship is still at the island when the battle ends ("wins").
    parrot_heals_on: Literal["survive_battle", "sole_survivor"] = "survive_battle"
    # Cacafuego at an outer island with exactly one player ship: captured without a battle.
    cacafuego_lone_ship_captures: bool = True
    cacafuego_fame_die_sides: int = field(default=6, metadata={"range": (1, 20)})
    # Treasure map die: faces 1..5 name the outer island; this face (and above) is rerolled.
    treasure_map_reroll_from: int = field(default=6, metadata={"range": (2, 7)})
    treasure_map_chest_multiplier: int = field(default=2, metadata={"range": (1, 10)})
    # Tie-breaking duel: the tied ships as they end the game, at no island; if no single ship is
    # left, it is fought again up to this many times, then the win is shared.
    duel_max_repeats: int = field(default=5, metadata={"range": (1, 100)})
    duel_uses_hand_cards: bool = True
    # A Legendary Pirate (or the Cacafuego) and the Royal Navy at the same island: one battle (the
    # rules), or two battles one after the other in the order named (survivors fight the second).
    pirate_and_navy_order: Literal["one_battle", "pirate_first", "navy_first"] = "one_battle"
    # Tavern deck and discard both empty when a card is due: the draw is simply lost.
    # Flint's owner keeps every chest at the cargo check (unlimited capacity).


#: root kinds of player implemented by the engine (simulator.cove.fast; every [kinds.*] extends
#: one of them); the improved kinds extend "heuristic", the issue-13 baselines "heuristic-v1"
PLAYER_ROOT_KINDS = ("heuristic", "heuristic-v1", "random")

#: a strategy is the shared schema's declaration (kind + parameter values), see
#: scenarios/strategies.py; the old name is kept for callers
Strategy = StrategyDecl


@dataclass(frozen=True, slots=True)
class CoveRules:
    """All of Pirate's Cove as data."""

    GAME: ClassVar[str] = "cove"  # the scenario files' ``game`` key

    ship_mat: ShipMat = field(default_factory=ShipMat)
    setup: Setup = field(default_factory=Setup)
    bank: Bank = field(default_factory=Bank)
    islands: tuple[str, ...] = ISLANDS
    treasure: TreasureDeck = field(default_factory=TreasureDeck)
    black_ships: BlackShips = field(default_factory=BlackShips)
    pirates: Mapping[str, NonPlayerShip] = field(default_factory=dict)
    royal_navy: NonPlayerShip | None = None
    parrots: Mapping[str, Parrot] = field(default_factory=dict)
    combat: Combat = field(default_factory=Combat)
    economy: Economy = field(default_factory=Economy)
    tavern: TavernDeck = field(default_factory=TavernDeck)
    decisions: Decisions = field(default_factory=Decisions)
    # players: the kinds (parameter spaces) and the named strategies, in the shared schema of
    # scenarios/strategies.py (validated below with validate_strategies)
    kinds: Mapping[str, KindDecl] = field(default_factory=dict)
    strategies: Mapping[str, StrategyDecl] = field(default_factory=dict)
    # default strategy mix of the benchmark and of `cove play` examples (names of [strategies.*])
    default_mix: tuple[str, ...] = ("plunderer", "brawler", "tavern", "balanced")

    def validate(self) -> None:
        validate_strategies(self.kinds, self.strategies, PLAYER_ROOT_KINDS, self.default_mix)
        if tuple(self.islands) != ISLANDS:
            raise ScenarioError(
                None, "islands", f"must be exactly {list(ISLANDS)} (the board's order)"
            )
        if self.setup.min_players > self.setup.max_players:
            raise ScenarioError(None, "setup.min_players", "is above setup.max_players")
        for name in self.tavern.parrots:
            if name not in self.parrots:
                raise ScenarioError(
                    None,
                    "tavern.parrots",
                    f"{name!r} has no [parrots.{name}] table (allowed: {', '.join(self.parrots)})",
                )
        for key, pirate in self.pirates.items():
            if pirate.damages == "controller" and pirate.first_target != "controller":
                raise ScenarioError(
                    None,
                    f"pirates.{key}.damages",
                    "'controller' needs first_target = 'controller' (a controller chooses the "
                    "section; allowed otherwise: hull, crew, every_section)",
                )
        if not any(p.in_pirate_deck for p in self.pirates.values()):
            raise ScenarioError(None, "pirates", "no Legendary Pirate is in the pirate deck")
        if self.royal_navy is None:
            raise ScenarioError(None, "royal_navy", "missing required table")
        for key in self.black_ships.count_by_players:
            if (
                not key.isdigit()
                or not self.setup.min_players <= int(key) <= self.setup.max_players
            ):
                raise ScenarioError(
                    None,
                    f"black_ships.count_by_players.{key}",
                    "not a player count "
                    f"(allowed: {self.setup.min_players}..{self.setup.max_players})",
                )
