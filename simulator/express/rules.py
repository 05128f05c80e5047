"""Pirates express rules as data: the schema of ``scenarios/express/*.toml``.

Every number and every switch of ``../shared/rules/pirates-express.md`` (and of the French seed it
interprets) lives in a scenario file and is validated into these frozen dataclasses by
:mod:`scenarios.loader`. Sections: ships and movement (:class:`Ships`), fleet construction
(:class:`FleetRules`), gunnery (:class:`Gunnery`), boarding (:class:`Boarding`), disengagement
(:class:`Disengagement`), crew roles (:class:`CrewRules`), nation powers (:class:`NationRules`,
all nations share one parameter set so a power is data, and a no-power baseline nation is just a
nation with every parameter at its neutral value), table and deployment (:class:`Table`), turn
structure (:class:`Turns`), victory points (:class:`Victory`), the scenarios (:class:`Treasure`,
:class:`Convoy`), the reference fleets used by the studies (:class:`Studies`), and the commanders
as strategies: ``[kinds.*]`` parameter spaces, ``[strategies.*]`` seats (:class:`ExpressStrategy`)
and ``default_mix``, validated through :mod:`scenarios.strategies`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from scenarios.loader import FrozenMap, ScenarioError
from scenarios.strategies import (
    KindDecl,
    TunedInfo,
    param_space,
    root_kind,
    unknown_name_message,
    validate_strategies,
)

#: crew roles, in the index order used by every engine array
CREW_ROLES = ("captain", "helmsman", "musketeer", "gunner", "carpenter")
SCENARIO_NAMES = ("pitched", "treasure", "convoy")
#: the commander kinds the code implements, in engine order (``commanders.GUNLINE`` ...), each
#: with its parameters in the order they are packed for the engine; ``[kinds.*]`` of the scenario
#: must declare exactly these parameters (type, range, default, meaning)
COMMANDER_NAMES = ("gunline", "boarder", "skirmisher", "random", "admiral")
KIND_PARAMS: Mapping[str, tuple[str, ...]] = {
    "gunline": ("enemy_weight", "repair_at_lost", "keep_line"),
    "boarder": ("min_edge", "repair_at_lost"),
    "skirmisher": ("stand_off_cm", "losing_margin", "repair_at_lost"),
    "random": ("board_probability", "repair_probability", "disengage_probability"),
    "admiral": (
        "exposure",
        "firepower",
        "opportunity",
        "margin_cm",
        "treasure",
        "convoy",
        "repair",
        "board_bias",
        "split_threat",
        "aggression",
    ),
}


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
    #: the convoy game's own table and length (notes 12 fix only what a convoy scores; these are
    #: our numbers, issue 27): the distance between the two fleets' edges (the table's width with
    #: short-edge deployment, its depth with long-edge deployment; the other side of the table is
    #: [table]'s), both fleets' start line and the convoy ships' own start line (cm from their
    #: edge), and the turn limit
    table_depth_cm: float = field(default=90.0, metadata={"range": (20.0, 1000.0)})
    deployment_depth_cm: float = field(default=20.0, metadata={"range": (0.0, 100.0)})
    convoy_start_cm: float = field(default=20.0, metadata={"range": (0.0, 1000.0)})
    max_turns: int = field(default=10, metadata={"range": (1, 100)})

    def validate(self) -> None:
        if 2 * self.deployment_depth_cm >= self.table_depth_cm:
            raise ScenarioError(
                None,
                ".deployment_depth_cm",
                f"{self.deployment_depth_cm} leaves the fleets no sea between them "
                f"(allowed: less than half of table_depth_cm = {self.table_depth_cm})",
            )
        if self.convoy_start_cm + self.exit_zone_cm >= self.table_depth_cm:
            raise ScenarioError(
                None,
                ".convoy_start_cm",
                f"{self.convoy_start_cm} starts the convoy in its exit zone (allowed: less than "
                f"table_depth_cm - exit_zone_cm = {self.table_depth_cm - self.exit_zone_cm})",
            )


@dataclass(frozen=True, slots=True)
class ExpressStrategy:
    """A seat of Pirates express: a commander (a kind plus parameter values), a nation and a fleet.

    ``kind``, ``description``, ``params``, ``tuned`` and ``reference`` are those of
    :class:`scenarios.strategies.StrategyDecl`; ``nation`` and ``fleet`` (a fleet list as
    ``express battle --fleet`` takes it, the nation prefix optional) default to the studies'
    mirror: ``studies.mirror_nation`` and that nation's study fleet.
    """

    kind: str
    description: str = ""
    params: Mapping[str, bool | float | str] = field(default_factory=FrozenMap)
    tuned: TunedInfo | None = None
    reference: bool = False  # a reference player (scenarios/strategies.py): never in default_mix
    nation: str | None = None
    fleet: str | None = None


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
    #: the nation both seats take in the commander study, and a strategy's default nation
    mirror_nation: str = "none"


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
    studies: Studies = Studies()
    #: commander kinds with their parameter spaces, named strategies (a seat: commander, nation,
    #: fleet) and the default pair of strategies (seat A, seat B); see scenarios/strategies.py
    kinds: Mapping[str, KindDecl] = field(default_factory=FrozenMap)
    strategies: Mapping[str, ExpressStrategy] = field(default_factory=FrozenMap)
    default_mix: tuple[str, ...] = ("admiral", "admiral")

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
        if self.studies.mirror_nation not in self.nations:
            raise ScenarioError(
                None,
                "studies.mirror_nation",
                unknown_name_message("nation", self.studies.mirror_nation, self.nations),
            )
        self._validate_commanders()
        for t in ("treasure", "convoy"):
            obj = getattr(self, t)
            if t == "treasure" and not (
                0 <= obj.x_cm <= self.table.width_cm and 0 <= obj.y_cm <= self.table.depth_cm
            ):
                raise ScenarioError(None, "treasure", "token must lie on the table")

    def _validate_commanders(self) -> None:
        """Kinds, strategies and default_mix through the shared schema; every implemented kind
        declares exactly the parameters its code reads; a strategy's nation and fleet are legal."""
        validate_strategies(self.kinds, self.strategies, COMMANDER_NAMES, self.default_mix)
        for name in COMMANDER_NAMES:
            if name not in self.kinds:
                raise ScenarioError(
                    None, f"kinds.{name}", "missing: every commander kind must be declared"
                )
        for name in self.kinds:
            root = root_kind(self.kinds, name)
            declared = set(param_space(self.kinds, name))
            want = set(KIND_PARAMS[root])
            if declared != want:
                extra = sorted(declared - want)
                if extra:
                    raise ScenarioError(
                        None,
                        f"kinds.{name}.params.{extra[0]}",
                        f"the {root} commander has no such parameter "
                        f"(allowed: {', '.join(KIND_PARAMS[root])})",
                    )
                missing = sorted(want - declared)
                raise ScenarioError(
                    None,
                    f"kinds.{name}.params.{missing[0]}",
                    f"missing: the {root} commander reads it (declare type, range and default)",
                )
        if len(self.default_mix) != 2:
            raise ScenarioError(
                None,
                "default_mix",
                f"{len(self.default_mix)} strategies given (allowed: exactly 2, seat A and seat B)",
            )
        from simulator.errors import UserError
        from simulator.express.fleets import parse_fleet

        for name, strat in self.strategies.items():
            nation = strat.nation or self.studies.mirror_nation
            if nation not in self.nations:
                raise ScenarioError(
                    None,
                    f"strategies.{name}.nation",
                    unknown_name_message("nation", nation, self.nations),
                )
            if strat.fleet is not None:
                try:
                    parse_fleet(strat.fleet, self, nation)
                except UserError as exc:
                    raise ScenarioError(None, f"strategies.{name}.fleet", str(exc)) from None

    def nation(self, name: str) -> NationRules:
        """The nation's rules, or a UserError-style ScenarioError naming the allowed nations."""
        try:
            return self.nations[name]
        except KeyError:
            raise ScenarioError(
                None, "nation", f"{name!r} is not a nation (allowed: {', '.join(self.nations)})"
            ) from None
