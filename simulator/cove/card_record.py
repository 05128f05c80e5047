"""Per-seat record of every Tavern card of a Pirate's Cove game: drawn, held and played.

Rules: "Tavern deck" of ``../shared/rules/pirates-cove.md``. The full game
(:class:`simulator.cove.game.Game`) tells a :class:`CardRecord` when a seat draws a card, when a
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
open row of that name. A card played that was put into a hand without a draw (a constructed
position) gets a row with ``phase_drawn = "unrecorded"``.
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
#: phase_drawn of a card that reached a hand without a draw (a position built by hand, e.g. in
#: tests or a look-ahead), recorded when it is played
UNRECORDED = "unrecorded"


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


class CardRecord:
    """The rows of one game (see the module docstring)."""

    __slots__ = ("_open", "draws", "rows")

    def __init__(self, n_seats: int):
        self.rows: list[list] = []
        self.draws = [0] * n_seats
        self._open: list[dict[str, list[int]]] = [{} for _ in range(n_seats)]

    def drawn(self, seat: int, card: str, month: int, phase: str) -> None:
        name = card_name(card)
        self._open[seat].setdefault(name, []).append(len(self.rows))
        self.rows.append([seat, self.draws[seat], name, month, phase, None, None, None])
        self.draws[seat] += 1

    def _close(self, seat: int, card: str, fate: str, month: int, phase: str) -> None:
        rows = self._open[seat].get(card_name(card))
        if not rows:  # put into the hand without a draw (a constructed position): say so
            self.drawn(seat, card, None, UNRECORDED)
            rows = self._open[seat][card_name(card)]
        row = self.rows[rows.pop(0)]
        row[5], row[6], row[7] = fate, month, phase

    def played(self, seat: int, card: str, month: int, phase: str) -> None:
        self._close(seat, card, "played", month, phase)

    def returned(self, seat: int, card: str, month: int, phase: str) -> None:
        self._close(seat, card, "returned", month, phase)

    def finish(self, month: int) -> None:
        """Every card still open is held at the end."""
        for row in self.rows:
            if row[5] is None:
                row[5], row[6], row[7] = "held", month, "end"
