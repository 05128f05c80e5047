"""Die for die: the compiled game against the readable one, game by game.

For each game both engines play the same deal (the runner's block streams of
:func:`simulator.cove.api.play_one`); they must take the same decisions (the readable engine's
trace, battle decisions included), end in the same result (every seat's fame by source, gold,
chests and counters, the win shares, tie and duel, the battle log, the card record) and leave
every random stream in the same state (the dice generator, the position in its block of 256 d6,
each seat's generator) -- so they drew the same numbers in the same order.

``python -m simulator.cove.fast.compare -n 10000`` plays random tables (every strategy the
compiled game plays -- the expected-value kinds plunderer, brawler, tavern and balanced, the
``*-v1`` baselines and ``random`` --, 3-5 players, the standard rules
and the Artisan-per-section variant) and
prints one JSON line with the count of games that differ (0 expected);
``tests/test_cove_fast_game.py`` runs a sample of it in CI.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulator.cove.api import play_one
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.packed import EV_ROOT, ROLLOUT_ROOT, compiled, player_root
from simulator.cove.fast.rng import DICE_BLOCK, state_of
from simulator.cove.game import FAME_SOURCES
from simulator.cove.rules import CoveRules
from simulator.runner import Block

ROOT = Path(__file__).resolve().parents[3]
#: the scenarios of the random tables: the Artisan switch both ways
SCENARIOS = (None, "scenarios/cove/artisan-per-section.toml")


@dataclass
class Mismatch:
    """Where the compiled game first left the readable one."""

    what: str
    detail: str


@dataclass
class Report:
    games: int = 0
    decisions: int = 0
    mismatches: list[tuple[str, int, Mismatch]] = field(default_factory=list)


def python_result(rules: CoveRules, names: Sequence[str], deal: Block) -> dict:
    """The readable engine's game on ``deal``: trace, rows, final stream states."""
    trace: list = []
    game, res = play_one(rules, names, deal, trace=trace)
    seats = [
        (
            s.fame,
            *(s.fame_src[k] for k in FAME_SOURCES),
            s.gold,
            s.chests,
            s.battles,
            s.routed,
            s.fled,
            s.mutinies,
            s.pirates_fought,
            s.pirates_sunk,
            s.win,
        )
        for s in res.seats
    ]
    d = game.dice
    pos = d._i if d._buf else DICE_BLOCK
    return {
        "trace": json.loads(json.dumps(trace)),
        "seats": seats,
        "tie": res.tie,
        "duel": res.duel,
        "battles": [tuple(b.values()) for b in res.battles],
        "cards": [tuple(c) for c in res.cards],
        "dice": (state_of(d.rng).tolist(), pos),
        "players": [state_of(p.rng).tolist() for p in game.players],
    }


def fast_result(eng: FastGames, names: Sequence[str], deal: Block) -> dict:
    """The compiled engine's game on ``deal``, in the form of :func:`python_result`."""
    from simulator.cove.fast import game as fg

    ch = eng.play([names], [deal], trace=True, record=True)
    seats = [
        (*(int(x) for x in ch.seats[0, s, : fg.SR_COLS]), float(ch.win[0, s]))
        for s in range(len(names))
    ]
    battles = [tuple(r[2:]) for r in eng.battle_rows(ch, [0], [0])]
    cards = [tuple(r[3:]) for r in eng.card_rows(ch, [0], [0], [names])]
    return {
        "trace": json.loads(json.dumps(ch.trace(0))),
        "seats": seats,
        "tie": bool(ch.games[0, fg.GR_TIE]),
        "duel": bool(ch.games[0, fg.GR_DUEL]),
        "battles": battles,
        "cards": cards,
        "dice": (ch.final_rs[0, 0].tolist(), int(ch.games[0, fg.GR_DICE_P])),
        "players": [ch.final_rs[0, 1 + s].tolist() for s in range(len(names))],
    }


def first_difference(py: dict, fast: dict) -> Mismatch | None:
    """The first thing that differs, in the order: decisions, results, streams."""
    pt, ft = py["trace"], fast["trace"]
    for i, (a, b) in enumerate(zip(pt, ft)):
        if a != b:
            return Mismatch(
                "decision", f"#{i}: python {a}, fast {b}; before: {pt[max(0, i - 3) : i]}"
            )
    if len(pt) != len(ft):
        return Mismatch("decisions", f"python {len(pt)}, fast {len(ft)}")
    for key in ("seats", "tie", "duel", "battles", "cards", "dice", "players"):
        a, b = py[key], fast[key]
        if a != b:
            if isinstance(a, list) and isinstance(b, list):
                i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                return Mismatch(key, f"item {i}: python {a[i : i + 1]}, fast {b[i : i + 1]}")
            return Mismatch(key, f"python {a}, fast {b}")
    return None


def random_tables(n: int, seed: int, kinds: Sequence[str]):
    """``n`` random tables: (scenario index, strategy names by seat), reproducible."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        scen = int(rng.integers(len(SCENARIOS)))
        k = int(rng.integers(3, 6))
        yield scen, tuple(str(x) for x in rng.choice(kinds, size=k))


def compiled_strategies(rules: CoveRules) -> tuple[str, ...]:
    """The scenario's strategies the compiled game plays (``packed.compiled``) the readable way,
    scenario order: not the search player (root ``rollout``), whose compiled rollouts draw their
    own numbers (:mod:`simulator.cove.fast.rollout`)."""
    return tuple(
        name
        for name in rules.strategies
        if compiled(rules, name) and player_root(rules, name) != ROLLOUT_ROOT
    )


def ev_strategies(rules: CoveRules) -> tuple[str, ...]:
    """The scenario's expected-value strategies (root ``heuristic``, :mod:`.players_ev`)."""
    return tuple(name for name in rules.strategies if player_root(rules, name) == EV_ROOT)


def compare_many(n: int, seed: int = 16, kinds: Sequence[str] | None = None) -> Report:
    """Play ``n`` random tables on both engines (deal ``i`` of a run with root ``seed``)."""
    from scenarios.loader import load_scenario

    rules = [load_scenario(None if p is None else ROOT / p, CoveRules).rules for p in SCENARIOS]
    kinds = tuple(kinds or compiled_strategies(rules[0]))
    engines = [FastGames(r, kinds) for r in rules]
    rep = Report()
    for i, (scen, names) in enumerate(random_tables(n, seed, kinds)):
        deal = Block(index=i, start=i, size=1, entropy=seed)
        py = python_result(rules[scen], names, deal)
        fast = fast_result(engines[scen], names, deal)
        rep.games += 1
        rep.decisions += len(py["trace"])
        diff = first_difference(py, fast)
        if diff is not None:
            rep.mismatches.append(
                (",".join(names) + f" [{SCENARIOS[scen] or 'standard'}]", i, diff)
            )
    return rep


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m simulator.cove.fast.compare", description=__doc__.splitlines()[0]
    )
    ap.add_argument("-n", type=int, default=10_000, help="random tables (default 10000)")
    ap.add_argument("--seed", type=int, default=16)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    rep = compare_many(args.n, args.seed)
    for names, i, m in rep.mismatches[:10]:
        print(f"game {i} ({names}): {m.what}: {m.detail}", file=sys.stderr)
    print(
        json.dumps(
            {
                "games": rep.games,
                "decisions": rep.decisions,
                "games_differing": len(rep.mismatches),
                "seed": args.seed,
                "seconds": round(time.perf_counter() - t, 1),
            }
        )
    )
    return 1 if rep.mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
