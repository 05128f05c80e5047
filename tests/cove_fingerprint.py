"""Fingerprints of the compiled Pirate's Cove game: what every later change must still play.

The readable Python engine the compiled game was once checked against is gone (issue 28: one
engine per game); the compiled engine's games at the time it was retired were recorded here as
fingerprints, so any rewrite of the engine is checked die for die against the games it played:
for each of a fixed set of random tables (every compiled strategy, 3-5 players, both Artisan
switches; the draw of :func:`random_tables`), the SHA-256 of the decisions, of the results
(every seat's fame by source, gold, chests and counters, the win shares, tie and duel), of the
battle log, of the card record and of the final stream states.

    python -m tests.cove_fingerprint --write      # rewrite tests/data/cove_game_fingerprints.json

Rewriting the file is a deliberate change of the games: the CHANGELOG names it and its effect.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scenarios.loader import load_scenario
from simulator.cove.rules import CoveRules
from simulator.runner import Block

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "cove_game_fingerprints.json"
#: the scenarios of the random tables: the Artisan switch both ways
SCENARIOS = (None, "scenarios/cove/artisan-per-section.toml")
#: the parts of a game that are fingerprinted, each on its own (a mismatch says which)
PARTS = ("trace", "seats", "battles", "cards", "streams")


def random_tables(n: int, seed: int, kinds: Sequence[str]):
    """``n`` random tables: (scenario index, strategy names by seat), reproducible."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        scen = int(rng.integers(len(SCENARIOS)))
        k = int(rng.integers(3, 6))
        yield scen, tuple(str(x) for x in rng.choice(kinds, size=k))


def fingerprinted_strategies(rules: CoveRules) -> tuple[str, ...]:
    """The strategies the random tables draw from: every compiled one but the search player's
    (``rollout``: compiled after the fingerprints were recorded, and a few games a second; its
    games are pinned by its golden playthrough)."""
    from simulator.cove.fast.packed import ROLLOUT_ROOT, compiled, player_root

    return tuple(
        k for k in rules.strategies if compiled(rules, k) and player_root(rules, k) != ROLLOUT_ROOT
    )


def scenario_rules() -> list[CoveRules]:
    return [load_scenario(None if p is None else ROOT / p, CoveRules).rules for p in SCENARIOS]


def game_parts(eng, names: Sequence[str], deal: Block) -> dict:
    """One game of the compiled engine ``eng`` on ``deal``, as plain data by part."""
    from simulator.cove.fast import game as fg

    ch = eng.play([names], [deal], trace=True, record=True)
    seats = [
        [*(int(x) for x in ch.seats[0, s, : fg.SR_COLS]), float(ch.win[0, s])]
        for s in range(len(names))
    ]
    return {
        "trace": json.loads(json.dumps(ch.trace(0))),
        "seats": [seats, bool(ch.games[0, fg.GR_TIE]), bool(ch.games[0, fg.GR_DUEL])],
        "battles": [
            list(r.values())[2:] for r in eng.battle_frame(ch, [0], [0]).to_dict("records")
        ],
        "cards": [list(r[3:]) for r in eng.card_rows(ch, [0], [0], [names])],
        "streams": [
            ch.final_rs[0, 0].tolist(),
            int(ch.games[0, fg.GR_DICE_P]),
            [ch.final_rs[0, 1 + s].tolist() for s in range(len(names))],
        ],
    }


def digest(value) -> str:
    text = json.dumps(value, sort_keys=True, default=lambda x: x.item())
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprints(n: int, seed: int, kinds: Sequence[str] | None = None) -> list[dict]:
    """The fingerprints of ``n`` random tables (deal ``i`` of a run with root ``seed``)."""
    from simulator.cove.fast.engine import FastGames

    rules = scenario_rules()
    kinds = tuple(kinds or fingerprinted_strategies(rules[0]))
    engines = [FastGames(r, kinds) for r in rules]
    out = []
    for i, (scen, names) in enumerate(random_tables(n, seed, kinds)):
        deal = Block(index=i, start=i, size=1, entropy=seed)
        parts = game_parts(engines[scen], names, deal)
        row = {"table": [scen, list(names)], "decisions": len(parts["trace"])}
        row.update({p: digest(parts[p]) for p in PARTS})
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.cove_fingerprint")
    ap.add_argument("--write", action="store_true", help="rewrite the fingerprint file")
    ap.add_argument("-n", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1616)
    args = ap.parse_args(argv)
    rows = fingerprints(args.n, args.seed)
    doc = {"seed": args.seed, "n": args.n, "games": rows}
    if args.write:
        DATA.write_text(json.dumps(doc, indent=0) + "\n")
    print(json.dumps({"games": len(rows), "decisions": sum(r["decisions"] for r in rows)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
