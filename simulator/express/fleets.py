"""Fleets: parsing, construction rules (seed "Règle de construction d'équipe", "Équipage", nation
powers of France and the Americans; notes 5, 6, 10) and enumeration of every legal fleet.

A fleet is written ``NATION:M1,M2,... ROLE@I ... oars@I``, e.g.
``spain:5,3,2,1,1 captain@0 gunner@1 oars@4``: masts of each ship in order, then crew roles and
oars placed on ship indices (0-based). The nation prefix may be omitted when the caller supplies
the nation. An illegal fleet raises :class:`~simulator.errors.UserError` with one line naming the
construction rule it breaks.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np

from simulator.errors import UserError
from simulator.express.rules import CREW_ROLES, ExpressRules, NationRules

_TOKEN = re.compile(r"^([a-z_]+)@(-?\d+)$")


@dataclass(frozen=True, slots=True)
class Ship:
    """One ship of a fleet list."""

    masts: int
    crew: str | None = None
    oars: bool = False


@dataclass(frozen=True, slots=True)
class Fleet:
    """A nation and its ships, in the order written (index = position in the list)."""

    nation: str
    ships: tuple[Ship, ...]

    @property
    def total_masts(self) -> int:
        return sum(s.masts for s in self.ships)

    @property
    def crews(self) -> tuple[str, ...]:
        return tuple(s.crew for s in self.ships if s.crew)

    def spec(self, with_nation: bool = True) -> str:
        """The fleet written back in the input syntax (round-trips through :func:`parse_fleet`)."""
        parts = [",".join(str(s.masts) for s in self.ships)]
        parts += [f"{s.crew}@{i}" for i, s in enumerate(self.ships) if s.crew]
        parts += [f"oars@{i}" for i, s in enumerate(self.ships) if s.oars]
        body = " ".join(parts)
        return f"{self.nation}:{body}" if with_nation else body

    def __str__(self) -> str:
        return self.spec()


def _nation(rules: ExpressRules, name: str) -> NationRules:
    if name not in rules.nations:
        raise UserError(f"unknown nation {name!r} (allowed: {', '.join(rules.nations)})")
    return rules.nations[name]


def max_crews(rules: ExpressRules, nation: str) -> int:
    """Crews this nation may assign (France: five)."""
    n = _nation(rules, nation)
    return n.max_crews or rules.fleet.max_crews


def max_ships_with(rules: ExpressRules, nation: str, masts: int) -> int:
    """Most ships of exactly ``masts`` masts this nation may field."""
    n = _nation(rules, nation)
    limit = rules.fleet.max_ships_by_masts[masts - 1]
    if masts == 4 and n.max_four_mast_ships:
        limit = max(limit, n.max_four_mast_ships)
    return limit


def hull_points(rules: ExpressRules, nation: str, masts: int) -> int:
    """Chinese hull points of a ship (notes 5; switch: one per two masts rounded up)."""
    mode = _nation(rules, nation).hull_points
    if mode == "one":
        return 1
    if mode == "per_two_masts":
        return (masts + 1) // 2
    return 0


def parse_fleet(text: str, rules: ExpressRules, nation: str | None = None) -> Fleet:
    """Parse and validate a fleet list.

    Args:
        text: ``NATION:M1,M2,... ROLE@I ... oars@I`` (nation prefix optional if ``nation`` given).
        rules: the scenario rules.
        nation: nation to use when ``text`` has no prefix.

    Raises:
        UserError: one line naming the rule broken.
    """
    raw = text.strip()
    if ":" in raw.split(" ")[0]:
        prefix, _, raw = raw.partition(":")
        prefix = prefix.strip().lower()
        if nation is not None and prefix != nation:
            raise UserError(f"fleet {text!r}: names nation {prefix!r} but {nation!r} was asked for")
        nation = prefix
    if not nation:
        raise UserError(
            f"fleet {text!r}: no nation (write NATION:MASTS,... e.g. spain:5,3,2,1,1 captain@0; "
            f"allowed nations: {', '.join(rules.nations)})"
        )
    _nation(rules, nation)
    tokens = raw.split()
    if not tokens:
        raise UserError(f"fleet {text!r}: no ships (write masts per ship, e.g. {nation}:5,3,2,1,1)")
    try:
        masts = [int(m) for m in tokens[0].split(",") if m.strip() != ""]
    except ValueError:
        raise UserError(
            f"fleet {text!r}: masts must be comma-separated integers, e.g. {nation}:5,3,2,1,1"
        ) from None
    crew: dict[int, str] = {}
    oars: set[int] = set()
    roles_seen: dict[str, int] = {}
    for tok in tokens[1:]:
        m = _TOKEN.match(tok.lower())
        if not m:
            raise UserError(
                f"fleet {text!r}: cannot read {tok!r} (allowed: ROLE@SHIP or oars@SHIP, roles: "
                f"{', '.join(CREW_ROLES)})"
            )
        what, idx = m.group(1), int(m.group(2))
        if not 0 <= idx < len(masts):
            raise UserError(
                f"fleet {text!r}: {tok!r} names ship {idx} "
                f"but the fleet has ships 0..{len(masts) - 1}"
            )
        if what == "oars":
            if idx in oars:
                raise UserError(f"fleet {text!r}: oars listed twice on ship {idx}")
            oars.add(idx)
            continue
        if what not in CREW_ROLES:
            import difflib

            close = difflib.get_close_matches(what, CREW_ROLES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UserError(
                f"fleet {text!r}: unknown crew role {what!r} "
                f"(allowed: {', '.join(CREW_ROLES)}, oars){hint}"
            )
        if what in roles_seen:
            raise UserError(
                f"fleet {text!r}: crew rule broken: at most {rules.fleet.max_crews_per_type} "
                f"{what} per fleet (on ships {roles_seen[what]} and {idx})"
            )
        if idx in crew:
            raise UserError(
                f"fleet {text!r}: crew rule broken: at most {rules.fleet.max_crews_per_ship} "
                f"crew per ship (ship {idx} has {crew[idx]} and {what})"
            )
        roles_seen[what] = idx
        crew[idx] = what
    fleet = Fleet(
        nation=nation,
        ships=tuple(Ship(m, crew.get(i), i in oars) for i, m in enumerate(masts)),
    )
    validate_fleet(fleet, rules, text)
    return fleet


def validate_fleet(fleet: Fleet, rules: ExpressRules, text: str | None = None) -> None:
    """Check every construction rule; raise :class:`UserError` naming the first one broken."""
    what = f"fleet {text or fleet.spec()!r}"
    nat = _nation(rules, fleet.nation)
    fr = rules.fleet
    if not fleet.ships:
        raise UserError(f"{what}: no ships")
    if len(fleet.ships) > fr.max_ships:
        raise UserError(
            f"{what}: construction rule broken: at most {fr.max_ships} ships per fleet "
            f"({len(fleet.ships)} given)"
        )
    for i, s in enumerate(fleet.ships):
        if s.masts > rules.ships.max_masts:
            raise UserError(
                f"{what}: construction rule broken: ship {i} has {s.masts} masts; ships of "
                f"{rules.ships.max_masts + 1} masts and more are forbidden (allowed: "
                f"{rules.ships.min_masts}..{rules.ships.max_masts})"
            )
        if s.masts < rules.ships.min_masts:
            raise UserError(
                f"{what}: ship {i} has {s.masts} masts "
                f"(allowed: {rules.ships.min_masts}..{rules.ships.max_masts})"
            )
    total = fleet.total_masts
    if total > fr.max_total_masts:
        raise UserError(
            f"{what}: construction rule broken: total masts {total} exceed {fr.max_total_masts}"
        )
    for m in range(1, rules.ships.max_masts + 1):
        count = sum(1 for s in fleet.ships if s.masts == m)
        limit = max_ships_with(rules, fleet.nation, m)
        if count > limit:
            extra = ""
            if (
                m == 4
                and limit < 2
                and any(n.max_four_mast_ships >= 2 for n in rules.nations.values())
            ):
                extra = " (only the Americans may field two)"
            raise UserError(
                f"{what}: construction rule broken: at most {limit} ship(s) of {m} masts for "
                f"{fleet.nation} ({count} given){extra}"
            )
    crews = fleet.crews
    allowed = max_crews(rules, fleet.nation)
    if len(crews) > allowed:
        extra = " (only France may take a 5th)" if allowed < 5 and nat.max_crews == 0 else ""
        raise UserError(
            f"{what}: crew rule broken: at most {allowed} crews for {fleet.nation} "
            f"({len(crews)} given){extra}"
        )
    if len(set(crews)) != len(crews):
        raise UserError(f"{what}: crew rule broken: at most one crew of each type")
    n_oars = sum(1 for s in fleet.ships if s.oars)
    if n_oars > fr.max_oared_ships:
        raise UserError(
            f"{what}: oars rule broken: at most {fr.max_oared_ships} oared ships ({n_oars} given)"
        )


def canonical(fleet: Fleet) -> Fleet:
    """The same fleet with ships sorted (most masts first, then crew order, oars last)."""
    order = {r: i for i, r in enumerate(CREW_ROLES)}

    def key(s: Ship):
        return (-s.masts, order.get(s.crew, len(CREW_ROLES)), s.oars)

    return Fleet(fleet.nation, tuple(sorted(fleet.ships, key=key)))


def mast_lists(rules: ExpressRules, nation: str, full_only: bool = False) -> list[tuple[int, ...]]:
    """Every legal multiset of ship sizes (non-increasing), optionally only those using every
    mast."""
    fr = rules.fleet
    out = []
    sizes = range(rules.ships.max_masts, rules.ships.min_masts - 1, -1)
    for k in range(1, fr.max_ships + 1):
        for combo in itertools.combinations_with_replacement(sizes, k):
            total = sum(combo)
            if total > fr.max_total_masts:
                continue
            if full_only and total != fr.max_total_masts:
                continue
            if any(combo.count(m) > max_ships_with(rules, nation, m) for m in set(combo)):
                continue
            out.append(combo)
    return out


def enumerate_fleets(
    rules: ExpressRules, nation: str, *, full_only: bool = False, oars: bool = False
) -> list[Fleet]:
    """Every legal fleet of a nation: ship sizes and crew placement (and oars if asked).

    Fleets that differ only by the order of identical ships are counted once. With
    ``full_only`` only fleets using every mast and every crew slot are listed.
    """
    _nation(rules, nation)
    n_crews = max_crews(rules, nation)
    seen: set[tuple] = set()
    out: list[Fleet] = []
    for masts in mast_lists(rules, nation, full_only):
        n = len(masts)
        ks = (
            [min(n_crews, n, len(CREW_ROLES))]
            if full_only
            else range(min(n_crews, n, len(CREW_ROLES)) + 1)
        )
        oar_sets = (
            [()]
            if not oars
            else [
                c
                for r in range(min(n, rules.fleet.max_oared_ships) + 1)
                for c in itertools.combinations(range(n), r)
            ]
        )
        for k in ks:
            for roles in itertools.combinations(CREW_ROLES, k):
                for places in itertools.permutations(range(n), k):
                    crew = dict(zip(places, roles))
                    for oar in oar_sets:
                        ships = tuple(Ship(m, crew.get(i), i in oar) for i, m in enumerate(masts))
                        fleet = canonical(Fleet(nation, ships))
                        key = fleet.ships
                        if key in seen:
                            continue
                        seen.add(key)
                        out.append(fleet)
    return out


def with_nation(fleet: Fleet, nation: str, rules: ExpressRules) -> Fleet:
    """The same ships under another nation (validated)."""
    f = Fleet(nation, fleet.ships)
    validate_fleet(f, rules)
    return f


# ----------------------------------------------------------------------------------------------
# Arrays for the engine


#: columns of the per-ship integer array handed to the engine
FLEET_COLUMNS = ("start_masts", "hull_points", "crew", "oars")


def fleet_array(fleet: Fleet, rules: ExpressRules, max_ships: int) -> np.ndarray:
    """``(max_ships, 4)`` int64: start masts (0 = no ship), hull points, crew index (-1 none),
    oars."""
    arr = np.zeros((max_ships, len(FLEET_COLUMNS)), dtype=np.int64)
    arr[:, 2] = -1
    for i, s in enumerate(fleet.ships):
        arr[i, 0] = s.masts
        arr[i, 1] = hull_points(rules, fleet.nation, s.masts)
        arr[i, 2] = CREW_ROLES.index(s.crew) if s.crew else -1
        arr[i, 3] = int(s.oars)
    return arr
