"""Pirates express rules as data: the schema of ``scenarios/express/*.toml``.

Every number and every switch of ``../shared/rules/pirates-express.md`` (and of the French seed it
interprets) lives in a scenario file and is validated into these frozen dataclasses by
:mod:`scenarios.loader`. Sections: ships and movement (:class:`Ships`), fleet construction
(:class:`FleetRules`), gunnery (:class:`Gunnery`), boarding (:class:`Boarding`), disengagement
(:class:`Disengagement`), crew roles (:class:`CrewRules`), nation powers (:class:`NationRules`,
all nations share one parameter set so a power is data, and a no-power baseline nation is just a
nation with every parameter at its neutral value), table and deployment (:class:`Table`), turn
structure (:class:`Turns`), victory points (:class:`Victory`), the scenarios (:class:`Treasure`,
:class:`Convoy`), commander parameters (:class:`Commanders`) and the reference fleets used by the
matrix and crew-value studies (:class:`Studies`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from scenarios.loader import ScenarioError

#: crew roles, in the index order used by every engine array
CREW_ROLES = ("captain", "helmsman", "musketeer", "gunner", "carpenter")
SCENARIO_NAMES = ("pitched", "treasure", "convoy")
COMMANDER_NAMES = ("gunline", "boarder", "skirmisher", "random")


@dataclass(frozen=True, slots=True)
class Ships:
    """Ships by masts and movement (seed "Mouvements")."""

    min_masts: int = field(default=1, metadata={"range": (1, 10)})
    max_masts: int = field(default=5, metadata={"range": (1, 10)})
    #: movement in cm by starting masts 1..max_masts (seed: 10/12/14/16/18)
    movement_cm: tuple[int, ...] = field(
        default=(10, 12, 14, 16, 18), metadata={"item_range": (0, 200)}
    )
    movement_loss_per_mast_cm: int = field(default=2, metadata={"range": (0, 50)})
    #: an oared ship with no masts moves this far (notes 6)
    oars_mastless_move_cm: int = field(default=5, metadata={"range": (0, 100)})

    def validate(self) -> None:
        if self.min_masts > self.max_masts:
            raise ScenarioError(None, "ships.min_masts", "must be <= ships.max_masts")
        if len(self.movement_cm) != self.max_masts:
            raise ScenarioError(
                None,
                "ships.movement_cm",
                f"has {len(self.movement_cm)} values "
                f"(allowed: exactly max_masts = {self.max_masts})",
            )


@dataclass(frozen=True, slots=True)
class FleetRules:
    """Fleet construction (seed "Règle de construction d'équipe" and "Équipage")."""

    max_total_masts: int = field(default=12, metadata={"range": (1, 100)})
    max_ships: int = field(default=5, metadata={"range": (1, 8)})
    #: most ships allowed with exactly 1..max_masts masts (the seed: one 4-mast, one 5-mast)
    max_ships_by_masts: tuple[int, ...] = field(
        default=(5, 5, 5, 1, 1), metadata={"item_range": (0, 8)}
    )
    max_crews: int = field(default=4, metadata={"range": (0, 5)})
    max_crews_per_type: int = field(
        default=1, metadata={"range": (1, 1)}
    )  # engine: one flag per ship
    max_crews_per_ship: int = field(default=1, metadata={"range": (1, 1)})
    #: ships that may be listed with oars (notes 6: only if the fleet list says so)
    max_oared_ships: int = field(default=5, metadata={"range": (0, 8)})


@dataclass(frozen=True, slots=True)
class Gunnery:
    """Cannon fire (seed "Difficulté des tirs", "Attaque aux canons"; notes 4)."""

    #: upper bound (cm, inclusive) of each range band, and the d6 needed in that band;
    #: hit_on 1 = automatic, 7 = impossible; beyond the last band a shot is impossible
    band_max_cm: tuple[int, ...] = field(
        default=(5, 10, 15, 20, 25, 30), metadata={"item_range": (0, 500)}
    )
    band_hit_on: tuple[int, ...] = field(
        default=(1, 2, 3, 4, 5, 6), metadata={"item_range": (1, 7)}
    )
    #: a measured distance is rounded up to whole cm before the band is looked up (decision)
    range_rounding: Literal["ceil", "round"] = "ceil"
    #: hits beyond sinking are lost (notes 4)
    excess_hits: Literal["lost"] = "lost"

    def validate(self) -> None:
        if len(self.band_max_cm) != len(self.band_hit_on):
            raise ScenarioError(
                None, "gunnery.band_hit_on", "must have as many items as band_max_cm"
            )
        if any(b <= a for a, b in zip(self.band_max_cm, self.band_max_cm[1:])):
            raise ScenarioError(None, "gunnery.band_max_cm", "bands must increase strictly")


@dataclass(frozen=True, slots=True)
class Boarding:
    """Boarding (seed "Abordage"; notes 7)."""

    success_on: int = field(default=3, metadata={"range": (1, 7)})
    #: ships whose centres are this close (cm) are in contact (decision: ships are points)
    contact_cm: float = field(default=1.0, metadata={"range": (0.0, 20.0)})
    #: "net": the winner may sink the loser when its net successes exceed the loser's masts (+hull
    #: points); "raw": when its own successes do (the literal French wording)
    sink_rule: Literal["net", "raw"] = "net"
    #: the winner always sinks when allowed (it is worth VP and never costs anything)
    winner_sinks: bool = True
    #: the defender's crew / nation boarding abilities apply when it is boarded (decision)
    defender_uses_abilities: bool = True
    #: a mastless ship rolls this many dice (notes 7: none, extra dice included)
    mastless_dice: int = field(default=0, metadata={"range": (0, 0)})


@dataclass(frozen=True, slots=True)
class Disengagement:
    """Disengagement (seed "Désengagement"; notes 8)."""

    #: difficulty = starting masts + masts lost, then capped; 6 = a six always escapes,
    #: 7 = switch: difficulties above 6+ are impossible
    cap: int = field(default=6, metadata={"range": (2, 7)})
    automatic_vs_mastless: bool = True


@dataclass(frozen=True, slots=True)
class CrewRules:
    """The five crew roles (seed "Équipage")."""

    captain_rerolls: int = field(default=1, metadata={"range": (0, 5)})
    captain_applies_to: Literal["cannon_and_boarding", "cannon"] = "cannon_and_boarding"
    helmsman_bonus_cm: int = field(default=2, metadata={"range": (0, 50)})
    musketeer_boarding_dice: int = field(default=1, metadata={"range": (0, 5)})
    gunner_cannon_dice: int = field(default=1, metadata={"range": (0, 5)})
    carpenter_repair_masts: int = field(default=1, metadata={"range": (0, 5)})
    carpenter_move_penalty_cm: int = field(default=5, metadata={"range": (0, 50)})
    carpenter_while_engaged: bool = True  # notes 9
    carpenter_on_mastless: bool = True  # notes 9


@dataclass(frozen=True, slots=True)
class NationRules:
    """One nation's power as parameters; every field at its default means no power."""

    label: str = ""
    power: str = ""  # the seed's wording, for reports
    extra_vp_per_sink: int = field(default=0, metadata={"range": (0, 20)})  # Spain
    max_crews: int = field(default=0, metadata={"range": (0, 5)})  # France (0: fleet.max_crews)
    #: Pirates: attack dice rerolled once per turn per ship
    attack_rerolls: int = field(default=0, metadata={"range": (0, 5)})
    attack_rerolls_apply_to: Literal["cannon_and_boarding", "cannon"] = "cannon_and_boarding"
    #: Chinese hull points: none, one per ship (default), or one per 2 masts rounded up (switch)
    hull_points: Literal["none", "one", "per_two_masts"] = "none"
    max_four_mast_ships: int = field(
        default=0, metadata={"range": (0, 5)}
    )  # Americans (0: fleet rule)
    disengage_cap: int = field(default=0, metadata={"range": (0, 7)})  # Turks: 3 (0: no cap)
    mastless_move_cm: int = field(default=0, metadata={"range": (0, 100)})  # Turks: 8
    boarding_extra_dice: int = field(default=0, metadata={"range": (0, 5)})  # Vikings: 1


@dataclass(frozen=True, slots=True)
class Island:
    x_cm: float = field(metadata={"range": (0.0, 1000.0)})
    y_cm: float = field(metadata={"range": (0.0, 1000.0)})
    radius_cm: float = field(metadata={"range": (0.5, 100.0)})


@dataclass(frozen=True, slots=True)
class Table:
    """Table and deployment (notes 1)."""

    width_cm: float = field(default=90.0, metadata={"range": (20.0, 1000.0)})
    depth_cm: float = field(default=60.0, metadata={"range": (20.0, 1000.0)})
    #: fleets deploy along opposite short edges (default) or long edges (switch)
    deployment: Literal["short_edges", "long_edges"] = "short_edges"
    deployment_depth_cm: float = field(default=10.0, metadata={"range": (0.0, 100.0)})
    #: islands block movement (a ship stops at the shore) and line of fire (switch; default none)
    islands: tuple[Island, ...] = ()


@dataclass(frozen=True, slots=True)
class Turns:
    """Turn structure (notes 2, 11)."""

    max_turns: int = field(default=8, metadata={"range": (1, 100)})
    #: "side": the initiative winner activates all its ships, then the other (PotSM);
    #: "alternate": one ship each, initiative winner first (switch)
    activation: Literal["side", "alternate"] = "side"
    #: the game ends as soon as one side has no ship that can still move or fire
    end_when_side_idle: bool = True


@dataclass(frozen=True, slots=True)
class Victory:
    """VP (seed "Marquer des PV")."""

    vp_per_mast: int = field(default=1, metadata={"range": (0, 20)})
    vp_per_hull_point: int = field(default=1, metadata={"range": (0, 20)})  # notes 5
    vp_per_sink: int = field(default=2, metadata={"range": (0, 20)})


@dataclass(frozen=True, slots=True)
class Treasure:
    """Treasure scenario (notes 12)."""

    x_cm: float = field(default=45.0, metadata={"range": (0.0, 1000.0)})
    y_cm: float = field(default=30.0, metadata={"range": (0.0, 1000.0)})
    pickup_cm: float = field(default=2.0, metadata={"range": (0.0, 50.0)})
    vp_held_at_end: int = field(default=5, metadata={"range": (0, 50)})
    vp_brought_home: int = field(default=8, metadata={"range": (0, 50)})
    #: a carrier ending its move this close to its own deployment edge has brought it home
    home_zone_cm: float = field(default=2.0, metadata={"range": (0.0, 100.0)})


@dataclass(frozen=True, slots=True)
class Convoy:
    """Convoy scenario (notes 12)."""

    num_convoy_ships: int = field(default=2, metadata={"range": (1, 8)})
    vp_per_exit: int = field(default=3, metadata={"range": (0, 50)})
    vp_per_convoy_mast: int = field(default=1, metadata={"range": (0, 20)})
    #: who defends: decided by a d6 roll-off (default), or the first / second fleet named
    defender: Literal["roll", "first", "second"] = "roll"
    #: a convoy ship ending its move this close to the far edge leaves the table
    exit_zone_cm: float = field(default=1.0, metadata={"range": (0.0, 100.0)})


@dataclass(frozen=True, slots=True)
class Gunline:
    enemy_weight: float = field(default=1.0, metadata={"range": (0.0, 10.0)})
    repair_at_lost: int = field(default=2, metadata={"range": (1, 10)})
    #: a ship with no shot this turn does not run ahead of its fleet's slowest ship
    keep_line: bool = True


@dataclass(frozen=True, slots=True)
class Boarder:
    #: boards when the exact expected VP swing of the boarding is at least this
    min_edge: float = field(default=0.0, metadata={"range": (-10.0, 10.0)})
    repair_at_lost: int = field(default=2, metadata={"range": (1, 10)})


@dataclass(frozen=True, slots=True)
class Skirmisher:
    stand_off_cm: float = field(default=12.0, metadata={"range": (0.0, 100.0)})
    #: disengages when its masts trail the engaged enemy's by more than this
    losing_margin: int = field(default=0, metadata={"range": (0, 10)})
    repair_at_lost: int = field(default=1, metadata={"range": (1, 10)})


@dataclass(frozen=True, slots=True)
class RandomCommander:
    board_probability: float = field(default=0.5, metadata={"range": (0.0, 1.0)})
    repair_probability: float = field(default=0.5, metadata={"range": (0.0, 1.0)})
    disengage_probability: float = field(default=0.3, metadata={"range": (0.0, 1.0)})


@dataclass(frozen=True, slots=True)
class Commanders:
    default: tuple[str, str] = ("gunline", "gunline")
    gunline: Gunline = Gunline()
    boarder: Boarder = Boarder()
    skirmisher: Skirmisher = Skirmisher()
    random: RandomCommander = RandomCommander()

    def validate(self) -> None:
        for i, name in enumerate(self.default):
            if name not in COMMANDER_NAMES:
                raise ScenarioError(
                    None,
                    f"commanders.default[{i}]",
                    f"{name!r} is not a commander (allowed: {', '.join(COMMANDER_NAMES)})",
                )


@dataclass(frozen=True, slots=True)
class Studies:
    """Reference fleets for the nation matrix and the crew-value study (decisions)."""

    #: the fleet every nation fields in the mirrored matrix (masts and crew, no nation prefix)
    mirrored_fleet: str = "5,3,2,1,1 captain@0 gunner@1 carpenter@2 helmsman@3"
    #: extra crew a nation adds to the mirrored fleet when its power allows it (France)
    mirrored_extra: Mapping[str, str] = field(default_factory=dict)
    #: a nation whose power is a fleet shape fields this fleet instead (Americans)
    power_fleet: Mapping[str, str] = field(default_factory=dict)
    #: the no-power nation and bare fleet the crew-value study compares against
    baseline_nation: str = "none"
    baseline_fleet: str = "5,3,2,1,1"
    #: ship index that receives the crew role under test
    crew_ship: int = field(default=0, metadata={"range": (0, 7)})


@dataclass(frozen=True, slots=True)
class ExpressRules:
    """The whole Pirates express rule set."""

    GAME: ClassVar[str] = "express"  # the scenario files' ``game`` key

    ships: Ships = Ships()
    fleet: FleetRules = FleetRules()
    gunnery: Gunnery = Gunnery()
    boarding: Boarding = Boarding()
    disengagement: Disengagement = Disengagement()
    crew: CrewRules = CrewRules()
    nations: Mapping[str, NationRules] = field(default_factory=dict)
    #: the nations of the matrix, in order (the baseline nation is not one of them)
    matrix_nations: tuple[str, ...] = ()
    table: Table = Table()
    turns: Turns = Turns()
    victory: Victory = Victory()
    scenario: Literal["pitched", "treasure", "convoy"] = "pitched"
    treasure: Treasure = Treasure()
    convoy: Convoy = Convoy()
    commanders: Commanders = Commanders()
    studies: Studies = Studies()

    def validate(self) -> None:
        if not self.nations:
            raise ScenarioError(None, "nations", "at least one nation is required")
        if len(self.fleet.max_ships_by_masts) != self.ships.max_masts:
            raise ScenarioError(
                None,
                "fleet.max_ships_by_masts",
                f"has {len(self.fleet.max_ships_by_masts)} values "
                f"(allowed: exactly ships.max_masts = {self.ships.max_masts})",
            )
        for i, n in enumerate(self.matrix_nations):
            if n not in self.nations:
                raise ScenarioError(
                    None,
                    f"matrix_nations[{i}]",
                    f"{n!r} is not a nation (allowed: {', '.join(self.nations)})",
                )
        if self.studies.baseline_nation not in self.nations:
            raise ScenarioError(
                None,
                "studies.baseline_nation",
                f"{self.studies.baseline_nation!r} is not a nation "
                f"(allowed: {', '.join(self.nations)})",
            )
        for key in (*self.studies.mirrored_extra, *self.studies.power_fleet):
            if key not in self.nations:
                raise ScenarioError(None, f"studies.{key}", f"{key!r} is not a nation")
        for t in ("treasure", "convoy"):
            obj = getattr(self, t)
            if t == "treasure" and not (
                0 <= obj.x_cm <= self.table.width_cm and 0 <= obj.y_cm <= self.table.depth_cm
            ):
                raise ScenarioError(None, "treasure", "token must lie on the table")

    def nation(self, name: str) -> NationRules:
        """The nation's rules, or a UserError-style ScenarioError naming the allowed nations."""
        try:
            return self.nations[name]
        except KeyError:
            raise ScenarioError(
                None, "nation", f"{name!r} is not a nation (allowed: {', '.join(self.nations)})"
            ) from None
