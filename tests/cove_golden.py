"""Golden playthroughs: whole games recorded as decisions and final states, played again exactly.

A golden file ``tests/data/cove_golden_<name>.json`` holds the case (scenario, strategies, the
seed of its deal), every decision every player made (``[seat, kind, choice]``, battle decisions
included) and the final state (every seat's fame by source, gold, chests, ring, hand, parrot,
Artisans and counters; the bank; the Tavern deck in order and its discard pile; the black ships;
the battle log; the winners). The engine, seeded as the recording was, must take every recorded
decision and end in the recorded state (``tests/test_cove_game.py``). The files recorded before
the engine was one (issue 28) also hold the dice faces and shuffles the readable engine drew
(``faces``, ``perms``); the engine draws them from the same streams, so the decisions and the
final state pin them.

Regenerate (and review the diff; a changed file is a changed game, named in the CHANGELOG) with::

    python tests/cove_golden.py --regenerate
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from any folder
    sys.path.insert(0, str(ROOT))

from scenarios.loader import load_scenario  # noqa: E402
from simulator.cove.api import BATTLE_COLUMNS  # noqa: E402
from simulator.cove.rules import SECTIONS, CoveRules  # noqa: E402
from simulator.cove.tables import FAME_SOURCES  # noqa: E402
from simulator.runner import Block  # noqa: E402

DATA_DIR = ROOT / "tests" / "data"

#: name -> (scenario file or None, strategies by seat, seed of the deal)
CASES: dict[str, tuple[str | None, tuple[str, ...], int]] = {
    # the issue-13 baselines (*-v1): these four replay the decisions recorded before the improved
    # players existed, which proves the baselines play exactly as the old code did
    "three_players": (None, ("brawler-v1", "plunderer-v1", "balanced-v1"), 101),
    "four_players": (None, ("plunderer-v1", "brawler-v1", "tavern-v1", "balanced-v1"), 202),
    "five_players_random": (
        None,
        ("random", "tavern-v1", "random", "brawler-v1", "balanced-v1"),
        303,
    ),
    "artisan_per_section": (
        "scenarios/cove/artisan-per-section.toml",
        ("tavern-v1", "tavern-v1", "brawler-v1", "random"),
        404,
    ),
    # the improved players (issue 13): the default mix, and a table with the search player
    "four_players_improved": (None, ("plunderer", "brawler", "tavern", "balanced"), 505),
    "three_players_rollout": (None, ("rollout", "brawler", "tavern"), 606),
}


def rules_of(scenario: str | None) -> CoveRules:
    return load_scenario(None if scenario is None else ROOT / scenario, CoveRules).rules


def play_case(scenario: str | None, names: tuple[str, ...], seed: int) -> dict[str, Any]:
    """Deal 0 of a run with root ``seed`` played by the engine (invariants checked after every
    phase): the decisions and the final state."""
    from simulator.cove.fast.engine import FastGames

    eng = FastGames(rules_of(scenario), names)
    deal = Block(index=0, start=0, size=1, entropy=seed)
    chunk = eng.play([names], [deal], trace=True, check=True)
    return {
        "decisions": json.loads(json.dumps(chunk.trace(0))),
        "final": json.loads(json.dumps(final_state(eng, chunk))),
    }


def final_state(eng, chunk) -> dict[str, Any]:
    """Everything that identifies how the chunk's one game ended (read from the engine's state
    buffers, which hold the last game played)."""
    from simulator.cove.fast import game as fg
    from simulator.cove.fast import packed as pk

    n = chunk.seats.shape[1]
    g, st, dk = chunk.last_state
    text = eng.code_text
    parrots = list(eng.rules.parrots)

    def cards(row: int, count: int) -> list[str]:
        return [text[int(c)] for c in dk[row, :count]]

    seats = []
    for s in range(n):
        row = chunk.seats[0, s]
        hand = [text[int(c)] for c in st[s, pk.S_HAND : pk.S_HAND + st[s, pk.S_HAND_N]]]
        seats.append(
            {
                "fame": int(row[fg.SR_FAME]),
                "fame_src": {k: int(row[fg.SR_FAME + 1 + i]) for i, k in enumerate(FAME_SOURCES)},
                "gold": int(row[fg.SR_GOLD]),
                "chests": int(row[fg.SR_CHESTS]),
                "ring": [int(st[s, pk.S_RING + i]) for i in range(len(SECTIONS))],
                "hand": sorted(hand),
                "parrot": parrots[st[s, pk.S_PARROT]] if st[s, pk.S_PARROT] >= 0 else None,
                "artisans": {
                    str(i): int(st[s, pk.S_ART + i])
                    for i in range(len(SECTIONS))
                    if st[s, pk.S_ART + i] >= 0
                },
                "battles": int(row[fg.SR_BATTLES]),
                "routed": int(row[fg.SR_ROUTED]),
                "fled": int(row[fg.SR_FLED]),
                "pirates_sunk": int(row[fg.SR_SUNK]),
            }
        )
    keys = eng.tables.npc_keys
    black = []
    for i in range(g[pk.G_NBLACK]):
        base = pk.G_BLACK + 3 * i
        pirate = g[base + pk.BK_PIRATE]
        black.append(
            [
                int(g[base + pk.BK_ISLAND]),
                keys[pirate] if pirate >= 0 else None,
                bool(g[base + pk.BK_GONE]),
            ]
        )
    battles = [
        dict(zip(BATTLE_FIELDS, list(r.values())[2:]))
        for r in eng.battle_frame(chunk, [0], [0]).to_dict("records")
    ]
    return {
        "seats": seats,
        "bank": [int(g[pk.G_BANK_GOLD]), int(g[pk.G_BANK_CHESTS])],
        "tavern_deck": cards(pk.D_TAVERN, g[pk.G_TAV_N]),
        "tavern_discard": sorted(cards(pk.D_DISCARD, g[pk.G_DISC_N])),
        "black_ships": black,
        "battles": battles,
        "winners": [s for s in range(n) if chunk.win[0, s] > 0],
        "tie": bool(chunk.games[0, fg.GR_TIE]),
        "duel": bool(chunk.games[0, fg.GR_DUEL]),
    }


#: the battle log's fields as a golden file names them: the API's battles columns after the game
#: and rotation
BATTLE_FIELDS = tuple(BATTLE_COLUMNS[2:])


def record(name: str) -> dict[str, Any]:
    """Play case ``name`` from its seed: the golden file's content."""
    scenario, names, seed = CASES[name]
    played = play_case(scenario, names, seed)
    return {"case": name, "scenario": scenario, "strategies": list(names), "seed": seed, **played}


def path_for(name: str) -> Path:
    return DATA_DIR / f"cove_golden_{name}.json"


def regenerate(names: list[str] | None = None) -> list[Path]:
    """Rewrite the golden files of ``names`` (default: every case) from their seeds."""
    out = []
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for name in names or CASES:
        p = path_for(name)
        p.write_text(json.dumps(record(name), separators=(",", ":")) + "\n", encoding="utf-8")
        out.append(p)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python tests/cove_golden.py")
    ap.add_argument("--regenerate", action="store_true", help="rewrite the golden files")
    ap.add_argument("cases", nargs="*", help=f"cases (default: all of {', '.join(CASES)})")
    args = ap.parse_args(argv)
    if not args.regenerate:
        ap.error("nothing to do (allowed: --regenerate)")
    for p in regenerate(args.cases or None):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
