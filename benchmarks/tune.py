"""Strategy search throughput and the tuned strategy's validated gain over the best hand-written.

For each game that speaks the game protocol (the synthetic ``toy`` of ``tests/protocol_games.py``,
Les Pirates, Pirates express and Pirate's Cove -- the last one slow: ~50 games per CPU second)
and each budget of the schedule: ``tune`` KIND against the game's default mix, then every
hand-written strategy of the scenario and the tuned one play the same fresh slices (seeds
derived from the search's root under "benchmark", never seen by the search); the gain over the
best hand-written one is a paired difference of slice means with a 95 % interval.

Prints a table, then as its last line one JSON object ``{"runs": [...], "load": ...}``. Usage::

    python benchmarks/tune.py [--budgets 10000,100000] [--jobs 1,2] [--seed 1] [--games toy]
                              [--kinds hunt=hunter]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from cli import GAME_APIS  # noqa: E402
from simulator.errors import UserError  # noqa: E402
from simulator.runner import derive_seed  # noqa: E402
from simulator.search import (  # noqa: E402
    Field,
    Player,
    against_field,
    check_game,
    resolve_players,
    tune,
)
from simulator.stats import Z95  # noqa: E402


def _toy():
    import protocol_games

    return protocol_games


#: game -> (a function returning its protocol module, the kind to tune or None for the first)
GAMES = {
    "toy": (_toy, "tuner"),
    **{name: (load, None) for name, load in GAME_APIS.items()},
}
FRESH_SLICES = 200


def run(game_name: str, budget: int, jobs: int, seed: int, kind: str | None = None) -> dict:
    load, default_kind = GAMES[game_name]
    kind = kind or default_kind
    game = load()
    check_game(game)
    scen = game.load(None)
    kind = kind or next(iter(game.kinds(scen)))
    players = resolve_players(game, scen, None)
    field = Field.of(game.default_mix(scen), players)
    t0 = time.perf_counter()
    res = tune(game, scen, kind, budget=budget, field=field, seed=seed, jobs=jobs)
    dt = time.perf_counter() - t0
    played = res.games_searched + 2 * res.validation["n"]
    player = Player(game, scen, players, jobs=jobs)
    focal = {"tuned": res.decl, **dict.fromkeys(game.strategies(scen))}
    fresh = against_field(
        player, focal, field, derive_seed(res.entropy, "benchmark"), FRESH_SLICES, "benchmark"
    )
    means = {k: float(v.mean()) for k, v in fresh.items()}
    best = max((k for k in fresh if k != "tuned"), key=lambda k: means[k])
    diff = fresh["tuned"] - fresh[best]
    gain = float(diff.mean())
    se = float(diff.std(ddof=1) / math.sqrt(len(diff)))
    return {
        "game": game_name,
        "kind": kind,
        "players": players,
        "budget": budget,
        "games_searched": res.games_searched,
        "seconds": round(dt, 2),
        "games_per_s": round(played / dt, 1),
        "tuned_score": means["tuned"],
        "best_hand_written": best,
        "best_hand_written_score": means[best],
        "gain": gain,
        "gain_ci95": [gain - Z95 * se, gain + Z95 * se],
        "fresh_games": FRESH_SLICES * player.games,
        "params": res.params,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", default="10000,100000", help="comma-separated search budgets")
    ap.add_argument("--games", default="toy,hunt,express", help="games to try")
    ap.add_argument("--jobs", default="1", help="comma-separated worker counts (e.g. 1,2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--kinds",
        default="",
        help="kind to tune per game, e.g. hunt=hunter (default: toy=tuner, else the first kind)",
    )
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    jobs_list = [int(j) for j in args.jobs.split(",")]
    kinds = dict(item.split("=", 1) for item in args.kinds.split(",") if item)
    rows, skipped = [], {}
    for name in args.games.split(","):
        try:
            for budget in budgets:
                for jobs in jobs_list:
                    row = run(name, budget, jobs, args.seed, kinds.get(name))
                    rows.append({**row, "jobs": jobs})
        except UserError as exc:
            skipped[name] = str(exc)
    load = os.getloadavg()[0]
    print(
        f"{'game':8} {'budget':>8} {'jobs':>4} {'seconds':>8} {'games/s':>8} {'tuned':>7} "
        f"{'best hand-written':>22} {'gain [95% CI]':>26}"
    )
    for r in rows:
        lo, hi = r["gain_ci95"]
        hand = f"{r['best_hand_written']} {r['best_hand_written_score']:.4f}"
        print(
            f"{r['game']:8} {r['budget']:>8} {r['jobs']:>4} {r['seconds']:>8.1f} "
            f"{r['games_per_s']:>8.0f} "
            f"{r['tuned_score']:>7.4f} {hand:>22} {r['gain']:>+8.4f} [{lo:+.4f}, {hi:+.4f}]"
        )
    for name, why in skipped.items():
        print(f"{name}: skipped: {why}")
    print(f"load average (1 min) at the end: {load:.2f}")
    print(json.dumps({"runs": rows, "skipped": skipped, "load": round(load, 2)}))


if __name__ == "__main__":
    main()
