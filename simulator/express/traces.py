"""What the commanders do: counts of the rules they use, from traced battles.

The table "The rules the commanders use" of ``docs/rules-express.md``: for each pairing, ``n``
traced battles of the no-power study mirror (battle ``k`` on seed ``seed + k``), and per side the
volleys, boardings, disengagement tries (and successes), repairs, crews revealed, the treasure's
pickups, captures in a boarding, holds at the end and homecomings, and the convoy ships sunk (of
those fielded) and their exits. Print it with::

    python -m simulator.express.traces [--n 400] [--seed 0]
"""

from __future__ import annotations

import argparse

from simulator.express import api, battle
from simulator.express.core import S_CONVOY, S_STATUS, ST_SUNK

#: the pairings of the table: (scenario, commander A, commander B)
PAIRINGS = (
    ("pitched", "admiral", "gunline"),
    ("pitched", "admiral", "boarder"),
    ("treasure", "admiral", "gunline"),
    ("treasure", "admiral", "admiral"),
    ("convoy", "admiral", "gunline"),
    ("convoy", "admiral", "admiral"),
    ("convoy", "gunline", "gunline"),
)
COUNTS = (
    "volleys",
    "boardings",
    "disengage_tries",
    "disengage_ok",
    "repairs",
    "reveals",
    "treasure_picked",
    "treasure_taken",
    "treasure_held",
    "treasure_home",
    "convoy_fielded",
    "convoy_sunk",
    "convoy_exits",
)


def count_events(scenario: str, a: str, b: str, n: int, seed: int) -> list[dict[str, int]]:
    """Per side (A, B), the counts of :data:`COUNTS` over ``n`` traced battles."""
    rules = api.load(None).rules
    fleet = api.mirrored_fleet(rules, rules.studies.mirror_nation)
    pairing = api.make_pairing(fleet, fleet, rules, f"{a},{b}", scenario)
    out = [dict.fromkeys(COUNTS, 0) for _ in range(2)]
    for k in range(n):
        row, trace, si = api.play_traced(pairing, seed + k)
        for ev in trace:
            kind, side, what = int(ev[0]), int(ev[2]), int(ev[5])
            c = out[side]
            if kind == battle.EV_FIRE:
                c["volleys"] += 1
            elif kind == battle.EV_BOARD:
                c["boardings"] += 1
            elif kind == battle.EV_DISENGAGE:
                c["disengage_tries"] += 1
                c["disengage_ok"] += int(ev[5])
            elif kind == battle.EV_REPAIR:
                c["repairs"] += 1
            elif kind == battle.EV_REVEAL:
                c["reveals"] += 1
            elif kind == battle.EV_TREASURE and int(ev[4]) in (0, 1):
                c["treasure_picked" if int(ev[4]) == 0 else "treasure_taken"] += 1
            elif kind == battle.EV_SCENARIO and what in (0, 1):
                c["treasure_home" if what == 0 else "treasure_held"] += 1
        d = int(row[battle.O_DEF])
        if d >= 0:
            convoy = si[d, :, S_CONVOY] == 1
            out[d]["convoy_fielded"] += int(convoy.sum())
            out[d]["convoy_sunk"] += int((convoy & (si[d, :, S_STATUS] == ST_SUNK)).sum())
            out[d]["convoy_exits"] += int(row[battle.O_EXITS])
    return out


def table(n: int = 400, seed: int = 0) -> str:
    """The markdown table of :data:`PAIRINGS`, side A / side B in each cell."""
    lines = [
        f"| scenario, A vs B ({n} battles) | volleys | boardings | disengage tries (ok) | "
        "repairs | crews revealed | treasure: picked up / taken by boarding / held at end / "
        "home | convoy ships sunk / exits |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for scenario, a, b in PAIRINGS:
        c = count_events(scenario, a, b, n, seed)
        dis = [f"{x['disengage_tries']} ({x['disengage_ok']})" for x in c]
        tre = [
            f"{x['treasure_picked']} / {x['treasure_taken']} / {x['treasure_held']} / "
            f"{x['treasure_home']}"
            for x in c
        ]
        con = [f"{x['convoy_sunk']} of {x['convoy_fielded']} / {x['convoy_exits']}" for x in c]
        cells = [
            f"{c[0]['volleys']} / {c[1]['volleys']}",
            f"{c[0]['boardings']} / {c[1]['boardings']}",
            " / ".join(dis),
            f"{c[0]['repairs']} / {c[1]['repairs']}",
            f"{c[0]['reveals']} / {c[1]['reveals']}",
            " against ".join(tre) if scenario == "treasure" else "",
            " against ".join(con) if scenario == "convoy" else "",
        ]
        lines.append(f"| {scenario}, {a} vs {b} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(table(args.n, args.seed))
