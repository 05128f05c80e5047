"""Scenario schema for *Les Pirates* (the children's treasure race): :class:`HuntRules`.

Every number and every switch of the interpretation notes (``shared/rules/les-pirates.md``) is a
field here, read from ``scenarios/hunt/*.toml`` by the strict loader. The board itself is an
editable ASCII map (``board.map``) parsed and checked by :mod:`simulator.hunt.board` from
:meth:`HuntRules.validate`, so a bad map fails at load time with a one-line ``ScenarioError``.

The nine printed variants are overlay files in ``scenarios/hunt/variants/`` that switch the
tables below on (``cyclone``, ``shipwreck``, ``fire_ship``, ``one_two``, ``fleet``,
``kingdoms``, ``start``) or replace the board (double board).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from scenarios.loader import FrozenMap, ScenarioError
from scenarios.strategies import KindDecl, StrategyDecl, validate_strategies

#: the most dice one roll may have (the engine's walk keeps one depth per leg, one leg per die:
#: simulator.hunt.moves.MAX_DEPTH)
MAX_DICE = 8
#: root kinds a scenario's [kinds.*] may build on (played by :mod:`simulator.hunt.players`)
IMPLEMENTED_KINDS = ("heuristic", "planner", "random")


@dataclass(frozen=True, slots=True)
class BoardRules:
    """The board as an ASCII map plus what the map alone cannot say."""

    map: str = field(
        metadata={
            "doc": "rows of symbols: ~ sea, b berth, 1-8 anchor, = trade wind, "
            "# island, @ anchorage, v ^ strait halves, X no square"
        }
    )
    strait_pairs: tuple[tuple[int, int, int, int], ...] = field(
        default=(),
        metadata={"doc": "[row, col, row, col] of the two halves forming one strait square"},
    )
    num_treasures: int = field(
        default=1, metadata={"range": (1, 8), "doc": "treasures (one per island)"}
    )
    anchorages_per_island: int = field(default=8, metadata={"range": (1, 32)})
    berths_per_port: int = field(default=3, metadata={"range": (1, 8)})


@dataclass(frozen=True, slots=True)
class MovementRules:
    """Movement switches (notes, Movement)."""

    pass_own_ships: bool = field(
        default=True, metadata={"doc": "a ship may pass over its own ships"}
    )
    carrier_rule: Literal["side", "anchor"] = field(
        default="side",
        metadata={
            "doc": "side: never away from the home side; anchor: never away from the home "
            "anchor along either axis"
        },
    )
    trade_wind_orthogonal: bool = field(
        default=True,
        metadata={"doc": "inside the trade-wind zone ships may also move orthogonally"},
    )
    sum_dice: int = field(
        default=2, metadata={"range": (2, 2), "doc": "dice summed for trade winds and straits"}
    )


@dataclass(frozen=True, slots=True)
class CycloneRules:
    """Variant 2, *Le cyclone*."""

    enabled: bool = False
    extra_dice: int = field(default=1, metadata={"range": (1, 3)})
    equal_dice: int = field(
        default=3, metadata={"range": (2, 6), "doc": "this many equal dice lose a ship"}
    )
    play_roll_after_loss: bool = field(
        default=True, metadata={"doc": "the roll is still played after the loss"}
    )


@dataclass(frozen=True, slots=True)
class ShipwreckRules:
    """Variant 4, *Le naufrage*."""

    enabled: bool = False


@dataclass(frozen=True, slots=True)
class FireShipRules:
    """Variant 5, *Le bateau explosif*."""

    enabled: bool = False
    radius: Literal["half", "lowest"] = field(
        default="half", metadata={"doc": "half: ceil(lowest die / 2); lowest: the lowest die"}
    )
    dice: int = field(default=2, metadata={"range": (2, 2)})
    ends_turn: bool = field(
        default=True, metadata={"doc": "the fire-ship roll is the player's whole turn"}
    )


@dataclass(frozen=True, slots=True)
class OneTwoRules:
    """Variant 6, *Un-deux*."""

    enabled: bool = False
    chain: bool = field(
        default=True, metadata={"doc": "a 1-2 on the extra roll gives another roll"}
    )


@dataclass(frozen=True, slots=True)
class FleetRules:
    """Variant 9, *La flotte*."""

    enabled: bool = False
    sink: Literal["all", "one"] = field(
        default="all", metadata={"doc": "ships sunk when a fleet is boarded"}
    )


@dataclass(frozen=True, slots=True)
class KingdomRules:
    """Variants 7 and 8: two players with two ports each."""

    mode: Literal["none", "enemy", "contrary"] = "none"
    enemy: tuple[tuple[int, ...], ...] = ((1, 2), (4, 3))
    contrary: tuple[tuple[int, ...], ...] = ((1, 3), (2, 4))


@dataclass(frozen=True, slots=True)
class OpeningRules:
    """A first-player handicap (not a printed rule: a house rule a designer may try, and a knob of
    ``broadside balance``; the printed game has none, ``handicap_turns = 0``)."""

    handicap_turns: int = field(
        default=0,
        metadata={
            "range": (0, 20),
            "doc": "the first player's first turns rolled with handicap_dice (0: none, as printed)",
        },
    )
    handicap_dice: int = field(
        default=1,
        metadata={
            "range": (1, MAX_DICE),
            "doc": "dice the first player rolls on those turns (at most the dice of a roll)",
        },
    )


@dataclass(frozen=True, slots=True)
class HuntRules:
    """A full rule set of Les Pirates (base game plus every variant switch)."""

    GAME: ClassVar[str] = "hunt"  # the scenario files' ``game`` key

    board: BoardRules
    seats: tuple[tuple[tuple[int, ...], ...], ...] = field(
        metadata={
            "doc": "one seating per player count: the ports of each seat in play (clockwise) "
            "order; seat 0 moves first"
        }
    )
    default_players: int = field(default=4, metadata={"range": (2, 8)})
    num_dice: int = field(default=2, metadata={"range": (1, 6)})
    die_sides: int = field(default=6, metadata={"range": (2, 12)})
    ships_per_port: int = field(default=3, metadata={"range": (1, 8)})
    start: Literal["berths", "devil", "fleet"] = field(
        default="berths",
        metadata={
            "doc": "berths: base; devil: variant 1; fleet: variant 9 (stacked on the anchor)"
        },
    )
    devil_ships_in_port: int = field(default=1, metadata={"range": (0, 8)})
    max_turns: int = field(
        default=500, metadata={"range": (1, 1_000_000), "doc": "player turns before a stalemate"}
    )
    movement: MovementRules = field(default_factory=MovementRules)
    cyclone: CycloneRules = field(default_factory=CycloneRules)
    shipwreck: ShipwreckRules = field(default_factory=ShipwreckRules)
    fire_ship: FireShipRules = field(default_factory=FireShipRules)
    one_two: OneTwoRules = field(default_factory=OneTwoRules)
    fleet: FleetRules = field(default_factory=FleetRules)
    kingdoms: KingdomRules = field(default_factory=KingdomRules)
    opening: OpeningRules = field(default_factory=OpeningRules)
    kinds: Mapping[str, KindDecl] = field(
        default_factory=FrozenMap,
        metadata={"doc": "kinds of player and their parameter spaces (scenarios/strategies.py)"},
    )
    strategies: Mapping[str, StrategyDecl] = field(
        default_factory=FrozenMap,
        metadata={"doc": "named strategies: a kind plus parameter values (--strategies NAME)"},
    )
    default_mix: tuple[str, ...] = field(
        default=(), metadata={"doc": "strategy names, one per seat of a table (the default mix)"}
    )

    def validate(self) -> None:
        """Cross-field checks; the board map is parsed here so bad maps fail at load time."""
        from simulator.hunt.board import parse_board

        if not self.strategies:
            raise ScenarioError(
                None,
                "strategies",
                'no strategies declared (allowed: extends = "standard", or [kinds.*] and '
                "[strategies.*] tables as in scenarios/hunt/standard.toml)",
            )
        validate_strategies(self.kinds, self.strategies, IMPLEMENTED_KINDS, self.default_mix)
        board = parse_board(self.board)
        ports = set(board.port_numbers)
        counts: set[int] = set()
        for i, seat_ports in enumerate(self.seats):
            if not 2 <= len(seat_ports) <= 8:
                raise ScenarioError(None, f"seats[{i}]", f"{len(seat_ports)} seats (allowed: 2..8)")
            if len(seat_ports) in counts:
                raise ScenarioError(
                    None,
                    f"seats[{i}]",
                    f"a second seating for {len(seat_ports)} players (allowed: one)",
                )
            counts.add(len(seat_ports))
            self._check_ports(seat_ports, ports, f"seats[{i}]")
        if self.kingdoms.mode != "none":
            table = getattr(self.kingdoms, self.kingdoms.mode)
            if len(table) != 2:
                raise ScenarioError(
                    None, f"kingdoms.{self.kingdoms.mode}", "allowed: exactly 2 players"
                )
            self._check_ports(table, ports, f"kingdoms.{self.kingdoms.mode}")
            if ports != {1, 2, 3, 4}:
                raise ScenarioError(
                    None,
                    "kingdoms.mode",
                    f"{self.kingdoms.mode!r} needs the 4-port standard board (this board has ports "
                    f"{sorted(ports)}; allowed: kingdoms with the single board only)",
                )
        elif self.default_players not in counts:
            raise ScenarioError(
                None,
                "default_players",
                f"{self.default_players} has no seats entry "
                f"(allowed: {', '.join(map(str, sorted(counts)))})",
            )
        sizes = (2,) if self.kingdoms.mode != "none" else tuple(sorted(counts))
        if self.default_mix and len(self.default_mix) not in sizes:
            raise ScenarioError(
                None,
                "default_mix",
                f"{len(self.default_mix)} strategies, one per seat, but this board seats "
                f"{', '.join(map(str, sizes))} players (allowed: one of those lengths)",
            )
        roll = self.dice_per_roll
        if roll > MAX_DICE:
            cyc = self.cyclone
            extra = f" + cyclone.extra_dice {cyc.extra_dice}" if cyc.enabled else ""
            raise ScenarioError(
                None,
                "num_dice",
                f"{roll} dice per roll (num_dice {self.num_dice}{extra}; allowed: at most "
                f"{MAX_DICE})",
            )
        if self.opening.handicap_dice > roll:
            raise ScenarioError(
                None,
                "opening.handicap_dice",
                f"{self.opening.handicap_dice} dice on a handicap turn but {roll} per roll "
                f"(allowed: 1..{roll})",
            )
        if self.start == "fleet" and not self.fleet.enabled:
            raise ScenarioError(None, "start", "'fleet' start needs fleet.enabled = true")
        if self.fleet.enabled and self.start == "devil":
            raise ScenarioError(
                None,
                "start",
                "devil's island and the fleet cannot be combined (allowed: one start)",
            )
        if self.board.num_treasures > len(board.islands):
            raise ScenarioError(
                None,
                "board.num_treasures",
                f"{self.board.num_treasures} treasures but {len(board.islands)} island(s) "
                f"(allowed: 1..{len(board.islands)})",
            )
        if self.start == "devil":
            if self.devil_ships_in_port > self.board.berths_per_port:
                raise ScenarioError(
                    None,
                    "devil_ships_in_port",
                    f"{self.devil_ships_in_port} ships in port but {self.board.berths_per_port} "
                    f"berths per port (allowed: 0..{self.board.berths_per_port})",
                )
            away = self.ships_per_port - self.devil_ships_in_port
            if away < 0:
                raise ScenarioError(
                    None, "devil_ships_in_port", f"more than ships_per_port ({self.ships_per_port})"
                )
            need = away * len(ports)
            if need > len(board.anchorage_nodes):
                raise ScenarioError(
                    None,
                    "start",
                    f"devil's island needs {need} anchorages, "
                    f"the board has {len(board.anchorage_nodes)}",
                )
        if self.ships_per_port > len(board.berths_of(next(iter(ports)))) and self.start == "berths":
            raise ScenarioError(
                None,
                "ships_per_port",
                f"{self.ships_per_port} ships but {self.board.berths_per_port} berths per port",
            )

    @staticmethod
    def _check_ports(seat_ports, ports: set[int], key: str) -> None:
        used: set[int] = set()
        for i, group in enumerate(seat_ports):
            if not group:
                raise ScenarioError(None, f"{key}[{i}]", "a seat needs at least one port")
            for p in group:
                if p not in ports:
                    raise ScenarioError(
                        None,
                        f"{key}[{i}]",
                        f"port {p} is not on the board (allowed: {sorted(ports)})",
                    )
                if p in used:
                    raise ScenarioError(None, f"{key}[{i}]", f"port {p} is given to two seats")
                used.add(p)

    def ports_for(self, num_players: int) -> tuple[tuple[int, ...], ...]:
        """Ports of each seat (seat 0 moves first) for ``num_players`` players."""
        if self.kingdoms.mode != "none":
            if num_players != 2:
                raise ScenarioError(
                    None,
                    "players",
                    f"{num_players} players: the kingdoms variants are for 2 players (allowed: 2)",
                )
            return getattr(self.kingdoms, self.kingdoms.mode)
        for seating in self.seats:
            if len(seating) == num_players:
                return seating
        allowed = ", ".join(str(len(x)) for x in sorted(self.seats, key=len))
        raise ScenarioError(
            None, "players", f"{num_players} players on this board (allowed: {allowed})"
        )

    @property
    def dice_per_roll(self) -> int:
        """Dice of one roll: ``num_dice``, plus the cyclone's extra dice when it is on."""
        return self.num_dice + (self.cyclone.extra_dice if self.cyclone.enabled else 0)

    @property
    def player_counts(self) -> tuple[int, ...]:
        if self.kingdoms.mode != "none":
            return (2,)
        return tuple(sorted(len(x) for x in self.seats))
