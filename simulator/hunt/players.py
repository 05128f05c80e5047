"""Players of Les Pirates: policy objects that pick one of the legal options of a roll.

A policy sees an :class:`~simulator.hunt.game.Observation` (static tables, state, seat) and the
list of legal :class:`~simulator.hunt.moves.Option` s, and returns an index. It gets its own
generator (never the dice generator). Heuristic players score the state each option leads to:

* ``runner``: shortest path to the treasure, then home (step distances on the board graph);
* ``hunter``: sinks opponents when it can and shadows an opponent carrier; uses fire ships;
* ``guard``: keeps its ships on the shortest path between an opponent carrier and its home;
* ``random``: a uniformly random legal option (and, with the fire-ship variant, an occasional
  random fire ship).

Parameters are weights: ``--strategies hunter:sink=20:shadow=5,runner`` (``name:key=value...``).
Ties between equally scored options are broken at random.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from simulator.errors import UserError

INF = 10**6


@dataclass(frozen=True, slots=True)
class Heuristic:
    """A scoring player; the weights are its parameters (all >= 0)."""

    name: str = "runner"
    ship: float = 6.0  # per own ship afloat
    sink: float = 0.0  # per opponent ship sunk (opponent ships afloat count against)
    carry: float = 120.0  # holding a treasure
    home: float = 4.0  # per step between the own carrier and its home anchor
    seek: float = 2.0  # per step between the nearest own ship and a loaded island's anchorage
    shadow: float = 0.0  # per step between the nearest own ship and an opponent carrier
    guard: float = 0.0  # per step off the opponent carrier's shortest path home
    threat: float = 30.0  # an opponent holding a treasure
    danger: float = 3.0  # per opponent ship within 6 steps of the own carrier
    fire: float = 0.0  # > 0: use fire ships against an aligned opponent carrier

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
        if self.fire <= 0:
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
class RandomPlayer:
    """Uniform over the legal options; fires a random ship with probability ``fire``."""

    name: str = "random"
    fire: float = 0.02

    def choose(self, obs, options, rng) -> int:
        return int(rng.integers(len(options)))

    def fire_ship(self, obs, rng):
        if self.fire <= 0 or rng.random() >= self.fire:
            return None
        mine = [s for s in obs.tables.seat_ships[obs.seat] if obs.state.ship_node[s] >= 0]
        return mine[int(rng.integers(len(mine)))] if mine else None

    def fire_target(self, obs, ship, targets, radius, rng) -> int:
        return int(rng.integers(len(targets)))


PRESETS = {
    "runner": Heuristic(name="runner"),
    "hunter": Heuristic(name="hunter", sink=14.0, seek=1.0, shadow=3.0, threat=40.0, fire=1.0),
    "guard": Heuristic(name="guard", sink=8.0, seek=1.5, guard=3.0, threat=40.0),
    "random": RandomPlayer(),
}
STRATEGIES = tuple(PRESETS)


def make_player(spec: str):
    """Build a player from ``name`` or ``name:key=value:key=value`` (weights as numbers)."""
    name, *params = spec.strip().split(":")
    if name not in PRESETS:
        import difflib

        close = difflib.get_close_matches(name, STRATEGIES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UserError(
            f"--strategies: unknown strategy {name!r} (allowed: {', '.join(STRATEGIES)}){hint}"
        )
    player = PRESETS[name]
    allowed = [f.name for f in fields(player) if f.name != "name"]
    changes = {}
    for p in params:
        key, sep, value = p.partition("=")
        if not sep or key not in allowed:
            raise UserError(
                f"--strategies: {spec!r}: bad parameter {p!r} "
                f"(allowed: {', '.join(k + '=NUMBER' for k in allowed)})"
            )
        try:
            num = float(value)
        except ValueError:
            raise UserError(
                f"--strategies: {spec!r}: {key} must be a number, got {value!r}"
            ) from None
        if not num >= 0 or num == float("inf"):
            raise UserError(f"--strategies: {spec!r}: {key} must be a finite number >= 0")
        changes[key] = num
    return replace(player, **changes) if changes else player
