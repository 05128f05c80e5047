"""What a player at the table sees: its own hand and the public board, as frozen snapshots.

Players of :mod:`simulator.cove.players` receive only these objects (never the engine), so they
cannot read the Tavern or Treasure decks' order, the Legendary Pirate deck, nor other hands (only
their sizes, which are public). Gold coins, chests, fame markers, ship mats, parrots and Artisans
are on the table and therefore public. Both are immutable named tuples (cheap to build: a game
asks about 170 questions).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class ShipView(NamedTuple):
    """The public view of one player's ship (section order: hull, crew, cannons, sails)."""

    seat: int
    ring: tuple[int, ...]  # 1-based ring positions, 0 = destroyed
    values: tuple[int, ...]  # hull capacity, crew, cannons, sails at those positions
    speed: int  # sails plus the Squire Trelawney bonus (battle cards excluded)
    gold: int
    chests: int
    fame: int
    hand_size: int
    parrot: str | None
    parrot_wounds: int
    artisans: tuple[tuple[int, int], ...]  # (section index, hits absorbed)
    location: int  # 0..4 outer islands, 5 Treasure Island, 6 Pirate's Cove


class Observation(NamedTuple):
    """One decision's view for ``seat``."""

    seat: int
    month: int
    num_months: int
    phase: str
    kind: str  # which decision is asked (see docs/rules-cove.md, "Decisions")
    hand: tuple[str, ...]  # this player's own hand only
    ships: tuple[ShipView, ...]  # every player's ship, by seat
    treasure: tuple[
        tuple[int, int, int, int] | None, ...
    ]  # face-up (fame, gold, chests, tavern) by outer island
    black_ships: tuple[tuple[int, str | None], ...]  # (island, Legendary Pirate card face up)
    royal_navy: int | None  # island of the Royal Navy this month
    royal_navy_controller: int | None
    treasure_maps: tuple[tuple[int, int], ...]  # (seat, island) treasure tokens
    plunder: tuple[tuple[int, int], ...]  # (victim, beneficiary) Plunder cards in play
    chosen: tuple[int | None, ...]  # revealed or (Lookout) already announced islands by seat
    bank_gold: int
    bank_chests: int
    tavern_deck_size: int
    pirate_discard: tuple[str, ...]
    pirate_deck_size: int
    extra: dict[str, Any]  # decision context (a fresh dict per decision)

    @property
    def me(self) -> ShipView:
        return self.ships[self.seat]
