"""Battle policies for Pirate's Cove: who flees, whom to shoot, which cards to play.

A policy sees only the public battle state (:class:`BattleView`, with every ship's rings,
Artisans, parrot, speed and card effects) plus its own hand, and answers three questions
(rules section "Combat" of ``../shared/rules/pirates-cove.md``):

* :meth:`BattlePolicy.battle_card` -- in the Battle-card rounds, which battle card to play (or
  ``None`` to pass);
* :meth:`BattlePolicy.overboard_chests` -- how many chests to throw when it plays Overboard;
* :meth:`BattlePolicy.broadside` -- at its turn in an exchange, flee or fire (target ship,
  section, volley cards).

The compiled battle kernel (:mod:`simulator.cove.combat_kernel`) plays :class:`RulePolicy`,
:class:`HeuristicCardPolicy`, a solved duel's ``DuelCardPolicy`` and the base policy as decision
codes (the same rules, tested die for die); any other policy is asked at each decision by the
scalar engine. The Royal Navy's controller is a :class:`RoyalNavyPolicy`.

:class:`RulePolicy` is the configurable family used by the CLI and the exact duels:

* ``flee``: ``"stand"`` (never), ``"when-hit"`` (as soon as the ship has taken any hit in this
  battle), ``"when-critical"`` (when one more hit could destroy a section), or an int ``N``
  (when its rings have lost ``N`` or more steps in this battle);
* target: a legendary pirate / Royal Navy present is forced; otherwise the opponent with the
  fewest hits to rout, at its weakest section (ties: lowest seat, then hull, crew, cannons,
  sails);
* ``battle_cards``: battle cards it plays (in that order, one per round) when it holds them;
* ``volley_cards``: volley cards it plays at its first broadside where it holds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SECTIONS = ("hull", "crew", "cannons", "sails")  # same order as simulator.cove.rules.SECTIONS
NPC_TARGET = -1  # the ``target`` of a broadside aimed at the (first) non-player ship present
BATTLE_CARDS = ("becalmed", "favourable_wind", "grapple", "smoke", "overboard")
VOLLEY_CARDS = ("grapeshot", "powder_keg", "cannonade")
FLEE_RULES = ("stand", "when-hit", "when-critical")


@dataclass(frozen=True, slots=True)
class ShipView:
    """What everybody can see of one player ship during a battle."""

    seat: int
    positions: tuple[int, ...]  # current 1-based ring positions, SECTIONS order (0 = destroyed)
    start_positions: tuple[int, ...]  # positions when the battle began
    protection: tuple[int, ...]  # per section: Artisan hits left + parrot hits left on it
    parrot: str | None
    parrot_wounded: bool
    speed: int
    present: bool
    was_hit: bool
    smoke: bool
    can_fire: bool  # False for the exchange after a Cannonade
    hand_size: int
    chests: int

    def hits_to_rout(self) -> tuple[int, ...]:
        """Per section, how many hits destroy it (ring steps to fall off plus its protection)."""
        return tuple(p + q for p, q in zip(self.positions, self.protection))


@dataclass(frozen=True, slots=True)
class NpcView:
    key: str  # key in rules.pirates, or "royal_navy"
    hull: int
    max_hull: int
    sails: int
    present: bool
    index: int = 0  # its place among the battle's non-player ships (aim: npc_target(index))
    has_fired: bool = False  # it fired in the current exchange


@dataclass(frozen=True, slots=True)
class BattleView:
    """The public state of a battle, from the point of view of ship ``me``."""

    me: int  # seat of the deciding ship
    island: str
    exchange: int  # 0 during the battle-card rounds, then 1, 2, ...
    ships: tuple[ShipView, ...]
    npc: NpcView | None
    grapple: bool
    becalmed: bool
    card_round: int = 0  # 1, 2, ... during the battle-card rounds
    # the non-player ship ``npc`` has already fired in the current exchange (public)
    npc_has_fired: bool = False
    # every fighting non-player ship of the battle (a Legendary Pirate and the Royal Navy can
    # share one); ``npc`` is the first of them still present
    npcs: tuple[NpcView, ...] = ()

    def ship(self, seat: int) -> ShipView:
        for s in self.ships:
            if s.seat == seat:
                return s
        raise KeyError(seat)

    @property
    def npc_fighting(self) -> bool:
        return self.npc is not None and self.npc.present


@dataclass(frozen=True, slots=True)
class Broadside:
    """A ship's action at its turn: flee, or fire at ``target`` (a seat or NPC_TARGET)."""

    flee: bool = False
    target: int | None = None
    section: str = "hull"
    volley: tuple[str, ...] = ()


FLEE = Broadside(flee=True)


def npc_target(index: int) -> int:
    """The ``target`` of a broadside aimed at the battle's non-player ship number ``index``
    (``NpcView.index``; 0 is :data:`NPC_TARGET`)."""
    return NPC_TARGET - index


class BattlePolicy:
    """Base class: stand and fire at the weakest target, play no cards."""

    def battle_card(self, view: BattleView, hand: Sequence[str]) -> str | None:
        return None

    def overboard_chests(self, view: BattleView, chests: int) -> int:
        return chests

    def broadside(self, view: BattleView, hand: Sequence[str]) -> Broadside:
        target, section = weakest_target(view)
        return Broadside(target=target, section=section)


def weakest_target(view: BattleView) -> tuple[int, str]:
    """The forced non-player target (with several, the one with the least hull left, the first of
    equals), else the present opponent with the fewest hits to rout."""
    if view.npc_fighting:
        present = [n for n in view.npcs if n.present]
        if len(present) > 1:
            return npc_target(min(present, key=lambda n: (n.hull, n.index)).index), "hull"
        return npc_target(view.npc.index), "hull"
    best = None
    for s in view.ships:
        if s.seat == view.me or not s.present:
            continue
        h = s.hits_to_rout()
        k = min(range(4), key=lambda i: (h[i], i))
        key = (h[k], s.seat)
        if best is None or key < best[0]:
            best = (key, s.seat, SECTIONS[k])
    if best is None:
        return NPC_TARGET, "hull"
    return best[1], best[2]


@dataclass(frozen=True)
class RulePolicy(BattlePolicy):
    """A simple configurable policy (see the module docstring)."""

    flee: str | int = "stand"
    battle_cards: tuple[str, ...] = ()
    volley_cards: tuple[str, ...] = ()
    overboard: int | None = None  # chests thrown with Overboard (None: all)

    def __post_init__(self) -> None:
        if not (isinstance(self.flee, int) or self.flee in FLEE_RULES):
            raise ValueError(
                f"flee rule {self.flee!r} (allowed: {', '.join(FLEE_RULES)} or an int)"
            )
        for c in self.battle_cards:
            if c not in BATTLE_CARDS:
                raise ValueError(f"battle card {c!r} (allowed: {', '.join(BATTLE_CARDS)})")
        for c in self.volley_cards:
            if c not in VOLLEY_CARDS:
                raise ValueError(f"volley card {c!r} (allowed: {', '.join(VOLLEY_CARDS)})")

    # ---- scalar ----
    def wants_to_flee(self, me: ShipView) -> bool:
        if self.flee == "stand":
            return False
        if self.flee == "when-hit":
            return me.was_hit
        if self.flee == "when-critical":
            return min(me.hits_to_rout()) <= 1
        lost = sum(a - b for a, b in zip(me.start_positions, me.positions))
        return lost >= int(self.flee)

    def battle_card(self, view: BattleView, hand: Sequence[str]) -> str | None:
        for c in self.battle_cards:
            if c in hand:
                return c
        return None

    def overboard_chests(self, view: BattleView, chests: int) -> int:
        return chests if self.overboard is None else min(chests, self.overboard)

    def broadside(self, view: BattleView, hand: Sequence[str]) -> Broadside:
        me = view.ship(view.me)
        if self.wants_to_flee(me):
            return FLEE
        target, section = weakest_target(view)
        volley: tuple[str, ...] = ()
        if me.can_fire and not view.becalmed:
            volley = tuple(c for c in VOLLEY_CARDS if c in self.volley_cards and c in hand)
        return Broadside(target=target, section=section, volley=volley)


@dataclass(frozen=True, eq=False)
class HeuristicCardPolicy(BattlePolicy):
    """The scripted players' card rule (``players.HeuristicPlayer`` of the v1 kinds) over a flee
    rule: the ``heuristic`` card policy of the exact duels and of ``cove duel --card-policy``.

    Battle cards, one per round, the first that applies in this order: Smoke if the ship is not
    yet smoked; Favourable wind while the ship is not faster than every other ship present (the
    non-player ship's sails included); Grapple if nobody played it and the ship's crew value is
    above its cannons value; Becalmed from the second round when another player ship holds more
    cards. Overboard is never played (no chests thrown). Volley cards, when the ship can fire and
    the battle is not becalmed: Cannonade only at a player ship (never at a non-player ship, whose
    hull is its only section); Grapeshot while the ship's cannons can take more than 3 hits;
    Powder keg while its hull can take more than 3 hits. Flight and aim come from ``flee``.

    Build it with :meth:`from_rules` (the crew and cannons values of the ship mat).
    """

    flee: BattlePolicy = field(default_factory=BattlePolicy)
    crew: tuple[int, ...] = (2, 2, 3, 3, 4, 4, 5, 5)  # crew value by 1-based position - 1
    cannons: tuple[int, ...] = (2, 2, 3, 3, 4, 4, 5, 5)
    recoil_margin: int = 3  # Grapeshot / Powder keg only while cannons / hull take more hits

    @classmethod
    def from_rules(cls, rules: Any, flee: BattlePolicy | None = None) -> HeuristicCardPolicy:
        mat = rules.ship_mat
        return cls(flee or RulePolicy(), tuple(mat.crew), tuple(mat.cannons))

    def battle_card(self, view: BattleView, hand: Sequence[str]) -> str | None:
        me = view.ship(view.me)
        others = [s for s in view.ships if s.seat != view.me and s.present]
        for card in ("smoke", "favourable_wind", "grapple", "becalmed"):
            if card not in hand:
                continue
            if card == "smoke" and not me.smoke:
                return card
            if card == "favourable_wind":
                fastest = max(
                    [s.speed for s in others] + ([view.npc.sails] if view.npc_fighting else []),
                    default=0,
                )
                if me.speed <= fastest:
                    return card
            if card == "grapple" and not view.grapple:
                crew = self.crew[me.positions[CREW_INDEX] - 1]
                cannons = self.cannons[me.positions[CANNONS_INDEX] - 1]
                if crew > cannons:
                    return card
            if (
                card == "becalmed"
                and view.card_round > 1
                and others
                and max(s.hand_size for s in others) > len(hand)
            ):
                return card
        return None

    def overboard_chests(self, view: BattleView, chests: int) -> int:
        return 0

    def volley(self, view: BattleView, hand: Sequence[str], target: int | None) -> tuple[str, ...]:
        """The volley cards it plays on a broadside at ``target`` (``NPC_TARGET``: the NPC)."""
        me = view.ship(view.me)
        if not me.can_fire or view.becalmed:
            return ()
        h = me.hits_to_rout()
        out = []
        if "grapeshot" in hand and h[CANNONS_INDEX] > self.recoil_margin:
            out.append("grapeshot")
        if "powder_keg" in hand and h[0] > self.recoil_margin:
            out.append("powder_keg")
        if "cannonade" in hand and target is not None and target != NPC_TARGET:
            out.append("cannonade")
        return tuple(c for c in VOLLEY_CARDS if c in out)

    def broadside(self, view: BattleView, hand: Sequence[str]) -> Broadside:
        act = self.flee.broadside(view, ())
        if act.flee:
            return act
        return Broadside(
            target=act.target, section=act.section, volley=self.volley(view, hand, act.target)
        )


CREW_INDEX, CANNONS_INDEX = 1, 2  # SECTIONS order


def policy_from_name(name: str) -> RulePolicy:
    """``stand``, ``flee-when-hit``, ``flee-when-critical`` or ``flee-after-N`` (N ring steps)."""
    if name == "stand":
        return RulePolicy("stand")
    if name == "flee-when-hit":
        return RulePolicy("when-hit")
    if name == "flee-when-critical":
        return RulePolicy("when-critical")
    if name.startswith("flee-after-") and name[len("flee-after-") :].isdigit():
        n = int(name[len("flee-after-") :])
        if n >= 1:
            return RulePolicy(n)
    raise ValueError(
        f"policy {name!r} (allowed: stand, flee-when-hit, flee-when-critical, "
        "flee-after-N with N >= 1)"
    )


POLICY_NAMES = ("stand", "flee-when-hit", "flee-when-critical", "flee-after-N")


# ------------------------------------------------------------------------------------------
# Royal Navy controller
# ------------------------------------------------------------------------------------------
class RoyalNavyPolicy:
    """The Royal Navy's controller: which present player ship and section it fires at."""

    def target(self, view: BattleView) -> tuple[int, str]:
        """Default: the present ship with the fewest hits to rout, at its weakest section."""
        best = None
        for s in view.ships:
            if not s.present:
                continue
            h = s.hits_to_rout()
            k = min(range(4), key=lambda i: (h[i], i))
            key = (h[k], s.seat)
            if best is None or key < best[0]:
                best = (key, s.seat, SECTIONS[k])
        assert best is not None, "the Royal Navy fires only while a player ship is present"
        return best[1], best[2]


@dataclass(frozen=True)
class ScriptedPolicy(BattlePolicy):
    """A fixed script, for tests: battle cards by round, volley cards by exchange, flee exchanges.

    ``cards``: battle cards played in rounds 1, 2, ... (``None`` passes). ``volleys``: exchange
    number -> volley cards played then. ``flee_at``: exchanges at whose turn the ship flees.
    ``target``/``section``: fixed aim (the NPC is still forced while present).
    """

    cards: tuple[str | None, ...] = ()
    volleys: dict[int, tuple[str, ...]] = field(default_factory=dict)
    flee_at: tuple[int, ...] = ()
    target: int | None = None
    section: str = "hull"
    overboard: int | None = None

    def battle_card(self, view: BattleView, hand: Sequence[str]) -> str | None:
        r = view.card_round - 1
        if 0 <= r < len(self.cards) and self.cards[r] in hand:
            return self.cards[r]
        return None

    def overboard_chests(self, view: BattleView, chests: int) -> int:
        return chests if self.overboard is None else min(chests, self.overboard)

    def broadside(self, view: BattleView, hand: Sequence[str]) -> Broadside:
        if view.exchange in self.flee_at:
            return FLEE
        if view.npc_fighting or self.target is None:
            target, section = weakest_target(view)
            if not view.npc_fighting and self.target is None and self.section != "hull":
                section = self.section
        else:
            target, section = self.target, self.section
        volley = tuple(c for c in self.volleys.get(view.exchange, ()) if c in hand)
        return Broadside(target=target, section=section, volley=volley)
