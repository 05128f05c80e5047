"""Players of Les Pirates: policy objects that pick one of the legal options of a roll.

A policy sees an :class:`~simulator.hunt.game.Observation` (static tables, state, seat) and the
list of legal :class:`~simulator.hunt.moves.Option` s, and returns an index. It gets its own
generator (never the dice generator). The kinds implemented here (:data:`IMPLEMENTED_KINDS`):

* ``heuristic`` (:class:`Heuristic`): scores the state each option leads to with weighted step
  distances and counts; the scenario's kinds ``runner`` (shortest path to the treasure, then
  home), ``hunter`` (sinks and shadows an opponent carrier; fire ships) and ``guard`` (keeps its
  ships on an opponent carrier's way home) are heuristics with other default weights;
* ``planner`` (:class:`Planner`): scores positions with distances under the real movement rules
  (expected rolls, one-roll chances of boarding and being boarded: :mod:`simulator.hunt.plan`);
* ``random`` (:class:`RandomPlayer`): a uniformly random legal option (and, with the fire-ship
  variant, an occasional random fire ship).

Kinds, parameter spaces and named strategies are scenario data (``[kinds.*]`` and
``[strategies.*]`` in ``scenarios/hunt/standard.toml``, schema :mod:`scenarios.strategies`);
:func:`make_player` builds a player from ``name`` or ``name:key=value:...``
(``--strategies hunter:sink=20:shadow=5,runner``), values checked against the declared ranges.
Ties between equally scored options are broken at random.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from scenarios.loader import ScenarioError
from scenarios.strategies import param_space, resolve_params, root_kind, unknown_name_message
from simulator.errors import UserError
from simulator.hunt.plan import NEVER

INF = 10**6


class _Scoring:
    """What every scoring player shares: the best-scored option (a win at once; ties at random),
    and the fire-ship decisions of the ``fire`` switch."""

    __slots__ = ()

    def choose(self, obs, options, rng) -> int:
        best_v = -float("inf")
        best: list[int] = []
        for i, opt in enumerate(options):
            if opt.won:
                return i
            v = self.score(obs, opt.state)
            if v > best_v + 1e-9:
                best_v, best = v, [i]
            elif v > best_v - 1e-9:
                best.append(i)
        return best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]

    def fire_ship(self, obs, rng):
        """Sacrifice a ship aligned (same row or column, 2-12 squares) with an opponent carrier."""
        if not self.fire:
            return None
        t, st = obs.tables, obs.state
        mine = [s for s in t.seat_ships[obs.seat] if st.ship_node[s] >= 0]
        if len(mine) < 2:
            return None
        for c, n in enumerate(st.ship_node):
            if n < 0 or t.ship_owner[c] == obs.seat or st.carrying[c] < 0:
                continue
            cr, cc = t.board.cells[n][0]
            for s in mine:
                if st.carrying[s] >= 0:
                    continue
                r, col = t.board.cells[st.ship_node[s]][0]
                if (r == cr and 2 <= abs(col - cc) <= 12) or (col == cc and 2 <= abs(r - cr) <= 12):
                    return s
        return None

    def fire_target(self, obs, ship, targets, radius, rng) -> int:
        """The explosion square that destroys the most opponent value for the least own."""
        t, st = obs.tables, obs.state
        best_i, best_v = 0, -float("inf")
        for i, node in enumerate(targets):
            v = 0.0
            for s, n in enumerate(st.ship_node):
                if n < 0 or s == ship:
                    continue
                hit = any(
                    max(abs(r - cr), abs(c - cc)) <= radius
                    for (r, c) in t.board.cells[n]
                    for (cr, cc) in t.board.cells[node]
                )
                if hit:
                    worth = 3.0 if st.carrying[s] >= 0 else 1.0
                    v += worth if t.ship_owner[s] != obs.seat else -2.0 * worth
            if v > best_v:
                best_i, best_v = i, v
        return best_i


@dataclass(frozen=True, slots=True)
class Heuristic(_Scoring):
    """A scoring player (kind ``heuristic``); the weights are its parameters, declared with their
    ranges and defaults in the scenario's ``[kinds.heuristic.params]``."""

    name: str
    ship: float  # per own ship afloat
    sink: float  # per opponent ship sunk (opponent ships afloat count against)
    carry: float  # holding a treasure
    home: float  # per step between the own carrier and its home anchor
    seek: float  # per step between the nearest own ship and a loaded island's anchorage
    shadow: float  # per step between the nearest own ship and an opponent carrier
    guard: float  # per step off the opponent carrier's shortest path home
    threat: float  # an opponent holding a treasure
    danger: float  # per opponent ship within 6 steps of the own carrier
    fire: bool  # use fire ships against an aligned opponent carrier

    def score(self, obs, state) -> float:
        t = obs.tables
        me = obs.seat
        dist = t.dist
        owner = t.ship_owner
        anchors = t.board.anchor_node
        mine = []
        opp = []
        opp_carriers = []
        my_carrier = -1
        for s, n in enumerate(state.ship_node):
            if n < 0:
                continue
            if owner[s] == me:
                mine.append(n)
                if state.carrying[s] >= 0:
                    my_carrier = s
            else:
                opp.append(n)
                if state.carrying[s] >= 0:
                    opp_carriers.append(s)
        v = self.ship * len(mine) - self.sink * len(opp)
        if my_carrier >= 0:
            cn = state.ship_node[my_carrier]
            row = dist[cn]
            v += self.carry - self.home * row[anchors[t.ship_home[my_carrier]]]
            if self.danger:
                v -= self.danger * sum(1 for n in opp if row[n] <= 6)
        if self.seek:
            best = INF
            for k in range(t.num_treasures):
                if state.treasure_island[k] == k:
                    for a in t.board.island_anchorages[k]:
                        row = dist[a]
                        for n in mine:
                            if row[n] < best:
                                best = row[n]
            if best < INF and (my_carrier < 0 or t.num_treasures > 1):
                v -= self.seek * best
        for c in opp_carriers:
            v -= self.threat
            cn = state.ship_node[c]
            if not mine:
                continue
            if self.shadow:
                row = dist[cn]
                v -= self.shadow * min(row[n] for n in mine)
            if self.guard:
                goal = anchors[t.ship_home[c]]
                direct = dist[cn][goal]
                grow = dist[goal]
                crow = dist[cn]
                v -= self.guard * min(crow[n] + grow[n] - direct + 0.25 * grow[n] for n in mine)
        return v


def capture_chance(t, plan, state, target: int, me: int) -> float:
    """Chance that some other seat ends a ship on ``target`` with its next roll, before ``me``
    moves again (each seat one independent roll; a seat hits when one of its ships reaches
    ``target`` with the roll, ships and wrecks in the way ignored)."""
    survive = 1.0
    for seat in range(t.num_players):
        if seat == me:
            continue
        q = 0.0
        for r in range(len(plan.roll_p)):
            for s in t.seat_ships[seat]:
                n = state.ship_node[s]
                if n >= 0 and plan.reaches(r, n, target):
                    q += plan.roll_p[r]
                    break
        survive *= 1.0 - q
    return 1.0 - survive


def strike_chance(t, plan, state, target: int, me: int) -> float:
    """Chance that ``me`` can end one of its ships on ``target`` with its next roll."""
    q = 0.0
    for r in range(len(plan.roll_p)):
        for s in t.seat_ships[me]:
            n = state.ship_node[s]
            if n >= 0 and plan.reaches(r, n, target):
                q += plan.roll_p[r]
                break
    return q


@dataclass(frozen=True, slots=True)
class Planner(_Scoring):
    """A scoring player (kind ``planner``) whose distances follow the real movement rules: the
    planning tables of :mod:`simulator.hunt.plan` (expected rolls under the exact-count and sum
    rules of trade winds and straits and the carrier's direction rule; one-roll reach sets for
    the chances of boarding and being boarded). Weights are declared in the scenario's
    ``[kinds.planner.params]``; ``tests/test_hunt_fast.py`` checks the compiled twin
    (:func:`simulator.hunt.fast.players.plan_score`) scores every position alike."""

    name: str
    ship: float  # per own ship afloat
    sink: float  # per opponent ship sunk (opponent ships afloat count against)
    carry: float  # holding a treasure
    home: float  # per expected roll of the own carrier to its home anchor
    seek: float  # per expected roll for the best free ship to fetch a treasure and bring it home
    threat: float  # per opponent ship holding a treasure
    risk: float  # times (carry + threat) times the chance the own carrier is boarded next round
    exposure: float  # per own free ship times the chance it is boarded next round
    hunt: float  # times the chance of boarding an opponent carrier's square with the next roll
    fire: bool  # use fire ships against an aligned opponent carrier
    chase: float  # per roll (dice cooperating) between the nearest own ship and an opponent carrier

    def score(self, obs, state) -> float:
        t = obs.tables
        plan = t.plan
        me = obs.seat
        owner = t.ship_owner
        n_mine = 0
        n_opp = 0
        has_carrier = False
        for s, n in enumerate(state.ship_node):
            if n < 0:
                continue
            if owner[s] == me:
                n_mine += 1
                if state.carrying[s] >= 0:
                    has_carrier = True
            else:
                n_opp += 1
        v = self.ship * n_mine - self.sink * n_opp
        best = NEVER
        for s in t.seat_ships[me]:
            n = state.ship_node[s]
            if n < 0:
                continue
            if state.carrying[s] >= 0:
                v += self.carry - self.home * plan.carry_turns[t.ship_home[s], n]
                if self.risk != 0.0:
                    lost = capture_chance(t, plan, state, n, me)
                    v -= self.risk * (self.carry + self.threat) * lost
                continue
            for k in range(t.num_treasures):
                if state.treasure_island[k] == k:
                    f = plan.fetch_turns[t.ship_home[s], k, n]
                    if f < best:
                        best = f
            if self.exposure != 0.0:
                v -= self.exposure * capture_chance(t, plan, state, n, me)
        if best < NEVER and (not has_carrier or t.num_treasures > 1):
            v -= self.seek * best
        for c, cn in enumerate(state.ship_node):
            if cn < 0 or owner[c] == me or state.carrying[c] < 0:
                continue
            v -= self.threat
            if n_mine == 0:
                continue
            if self.hunt != 0.0:
                v += self.hunt * strike_chance(t, plan, state, cn, me)
            if self.chase != 0.0:
                d = NEVER
                for s in t.seat_ships[me]:
                    n = state.ship_node[s]
                    if n >= 0:
                        rd = plan.roll_dist[n, cn]
                        x = NEVER if rd < 0 else float(rd)
                        if x < d:
                            d = x
                v -= self.chase * d
        return v


@dataclass(frozen=True, slots=True)
class RandomPlayer:
    """Uniform over the legal options (kind ``random``); fires a random ship with probability
    ``fire``."""

    name: str
    fire: float

    def choose(self, obs, options, rng) -> int:
        return int(rng.integers(len(options)))

    def fire_ship(self, obs, rng):
        if self.fire <= 0 or rng.random() >= self.fire:
            return None
        mine = [s for s in obs.tables.seat_ships[obs.seat] if obs.state.ship_node[s] >= 0]
        return mine[int(rng.integers(len(mine)))] if mine else None

    def fire_target(self, obs, ship, targets, radius, rng) -> int:
        return int(rng.integers(len(targets)))


#: root kinds a scenario's [kinds.*] may build on, and the classes that play them
IMPLEMENTED_KINDS = ("heuristic", "planner", "random")
_PLAYER_CLASSES = {"heuristic": Heuristic, "planner": Planner, "random": RandomPlayer}

_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def _parse(text: str, decl):
    """A command-line value as the declared parameter's type (checked by ``decl.coerce``)."""
    if decl.type == "bool":
        low = text.strip().lower()
        return True if low in _TRUE else False if low in _FALSE else text
    if decl.type in ("int", "float"):
        try:
            return float(text)
        except ValueError:
            return text
    return text


def strategy_names(rules) -> tuple[str, ...]:
    """The strategies a scenario declares (what ``--strategies`` accepts)."""
    return tuple(rules.strategies)


def needs_plan(player) -> bool:
    """Does ``player`` read the planning tables (build them with ``build_tables(plan=True)``)?"""
    return isinstance(player, Planner)


def make_player(rules, spec: str):
    """Build the player of ``spec`` (``name`` or ``name:key=value:key=value``) from ``rules``.

    ``name`` is one of the scenario's ``[strategies.*]``; each ``key=value`` overrides one
    parameter of its kind, inside the declared range. Raises a one-line :class:`UserError`
    naming the spec and what is allowed ("did you mean" for unknown names).
    """
    name, *params = spec.strip().split(":")
    strategies = rules.strategies
    if name not in strategies:
        raise UserError(f"--strategies: {unknown_name_message('strategy', name, strategies)}")
    decl = strategies[name]
    values = resolve_params(rules.kinds, decl, f"strategies.{name}")
    space = param_space(rules.kinds, decl.kind)
    for p in params:
        key, sep, value = p.partition("=")
        if not sep:
            raise UserError(
                f"--strategies: {spec!r}: {p!r} is not key=value "
                f"(allowed: {', '.join(k + '=' + space[k].type.upper() for k in space)})"
            )
        if key not in space:
            raise UserError(
                f"--strategies: {spec!r}: {unknown_name_message('parameter', key, space)}"
            )
        try:
            values[key] = space[key].coerce(_parse(value, space[key]), key)
        except ScenarioError as exc:
            raise UserError(f"--strategies: {spec!r}: {key}: {exc.problem}") from None
    cls = _PLAYER_CLASSES[root_kind(rules.kinds, decl.kind)]
    wanted = {f.name for f in fields(cls)} - {"name"}
    if set(values) != wanted:  # the scenario's space and the class disagree: a code/data bug
        raise ScenarioError(
            None,
            f"kinds.{decl.kind}.params",
            f"declares {sorted(values)} but {cls.__name__} plays {sorted(wanted)}",
        )
    return cls(name=name, **values)
