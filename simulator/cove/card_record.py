"""Per-seat record of every Tavern card of a Pirate's Cove game: drawn, held and played.

Rules: "Tavern deck" of ``../shared/rules/pirates-cove.md``. The engine
(:mod:`simulator.cove.fast.game`, the ``rec`` buffer) records when a seat draws a card, when a
card leaves its hand by being used, and when a drawn parrot goes back into the draw pile; what is
still in hand at the end is held. One row per card a seat drew (a tidy table, see
:data:`CARD_COLUMNS`); its unique key is ``(game, rotation, seat, draw)``, ``draw`` numbering the
seat's draws from 0 in the order they happened.

Card names are the scenario's (``[tavern]``): the parrots by their key (``flint``, ...),
``artisan``, the battle, volley and event cards by theirs, the fame cards ``fame_1``, ``fame_2``,
``fame_3``; :data:`BLANK` is the inert card of the card-value intervention
(:mod:`simulator.cove.card_value`).

Fates: ``played`` -- a battle or volley card played in a battle, an event played, an Artisan put
on the ship, a parrot taken on board (it takes effect when drawn); ``returned`` -- a parrot refused
or swapped out (back into the draw pile); ``held`` -- still in hand when the game ends (fame cards
score then). Copies of one card are indistinguishable in a hand: a played copy closes the oldest
open row of that name. A card played that was never drawn (a position built by hand with the
record on) stops the game with an error naming the card record.
"""

from __future__ import annotations

from typing import Any

BLANK = "blank"  # a card with no effect (never playable): the card-value intervention's stand-in
#: columns of a seat's card rows (the API adds game, rotation and strategy in front)
CARD_COLUMNS = (
    "seat",
    "draw",
    "card",
    "month_drawn",
    "phase_drawn",
    "fate",
    "month_out",
    "phase_out",
)
FATES = ("played", "returned", "held")


def card_name(card: str) -> str:
    """The scenario's name of a hand string (``parrot:flint`` -> ``flint``, ``fame:2`` ->
    ``fame_2``; others unchanged)."""
    if card.startswith("parrot:"):
        return card[len("parrot:") :]
    if card.startswith("fame:"):
        return "fame_" + card[len("fame:") :]
    return card


def tavern_card_names(rules: Any) -> tuple[str, ...]:
    """Every Tavern card name of the scenario, in deck order (parrots, Artisan, battle, volley,
    event and fame cards; a card the scenario's deck holds no copy of is left out)."""
    from simulator.cove.tables import build_tavern_deck

    return tuple(dict.fromkeys(card_name(c) for c in build_tavern_deck(rules)))
