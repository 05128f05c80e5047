"""Report section "Pirates express": nation matrix, best fleet per nation, crew-role and
nation-power values.

Numbers come from :mod:`simulator.express.api`: ``nation_matrix`` (mirrored study fleets),
``best_fleet`` (successive halving over each nation's legal fleets) and ``crew_value`` (each crew
role and nation power against a no-power mirror).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.html import Section
from reports.sections.common import scenario_row
from simulator.express import api

TITLE = "Pirates express"
MATRIX_N = {"test": 20, "quick": 200, "standard": 5_000, "full": 50_000}  # battles per cell
CREW_N = {"test": 40, "quick": 600, "standard": 20_000, "full": 200_000}  # battles per row
SEARCH = {
    "test": (4, 4),
    "quick": (8, 8),
    "standard": (32, 24),
    "full": (64, 48),
}  # candidates, first-round n


def build(ctx, seed: int) -> Section:
    from reports import figures

    files = ctx.scenarios.get("express") or [None]
    scen = api.load(files[0])
    rules = scen.rules
    sec = Section("express", TITLE)
    sec.scenarios.append(scenario_row(scen))
    ss = np.random.SeedSequence(seed)
    s_matrix, s_crew, s_search = (int(c.generate_state(1, np.uint64)[0] >> 1) for c in ss.spawn(3))

    n = MATRIX_N[ctx.size]
    df, summary = api.nation_matrix(n=n, scenario=scen, seed=s_matrix, jobs=ctx.jobs, quiet=True)
    nations = list(summary["nations"])
    sec.text(
        f"Battles between two fleets (scenario '{scen.name}', rules {scen.rules_version}), every "
        f"nation fielding the same study fleet ({rules.studies.mirrored_fleet}) so only the "
        f"nation's powers differ; commanders {', '.join(summary['commanders'])}. {n:,} battles "
        "per cell; the row nation is the first seat. Intervals are 95% Wilson intervals."
    )
    table = df.pivot(index="nation", columns="vs", values="win").loc[nations, nations]
    annot = df.assign(
        text=[
            f"{w * 100:.0f}\n[{lo * 100:.0f}–{hi * 100:.0f}]"
            for w, lo, hi in zip(df["win"], df["win_lo"], df["win_hi"])
        ]
    )
    annot = annot.pivot(index="nation", columns="vs", values="text").loc[nations, nations]
    ctx.figure(
        sec,
        "express_nation_matrix",
        figures.heatmap(
            table,
            annot=annot,
            title="Win rate of the row nation against the column nation",
            xlabel="opponent nation",
            ylabel="nation (first seat)",
            cbar="battles won (%)",
            center=0.5,
        ),
        caption="Each cell: the row nation's win rate (%) and its 95% interval against the column "
        "nation, both with the study fleet.",
        csv="express_nation_matrix",
        n=f"{n:,} battles per cell ({n * len(nations) ** 2:,} in all)",
        n_value=n,
    )
    sec.table(
        "express_nation_matrix",
        df,
        "Nation matrix: win, loss and draw rates with 95% intervals.",
        key=("nation", "vs"),
    )

    crew, csum = api.crew_value(
        n=CREW_N[ctx.size], scenario=scen, seed=s_crew, jobs=ctx.jobs, quiet=True
    )
    crew = crew.copy()
    crew["what"] = np.where(
        crew["kind"] == "crew", "crew: " + crew["name"], "nation: " + crew["name"]
    )
    crew_plot = crew.assign(
        gain=crew["score_gain"], lo=crew["score_gain_lo"], hi=crew["score_gain_hi"]
    )
    ctx.figure(
        sec,
        "express_crew_value",
        figures.forest(
            crew_plot,
            label="what",
            panels=[
                (
                    "score_gain",
                    "score_gain_lo",
                    "score_gain_hi",
                    "change in score (win = 1, draw = 1/2), points",
                ),
                ("vp_gain", "vp_gain_lo", "vp_gain_hi", "change in victory points"),
            ],
            scale=[100.0, 1.0],
            title=(
                "What one crew role or a nation's power is worth "
                f"(baseline: {csum['baseline_nation']})"
            ),
        ),
        caption="Each crew role added to one ship, and each nation's power, against an identical "
        "fleet without it (95% intervals; zero = worth nothing).",
        csv="express_crew_value",
        n=f"{CREW_N[ctx.size]:,} battles per row",
        n_value=CREW_N[ctx.size],
    )
    sec.table(
        "express_crew_value",
        crew.drop(columns=["what"]),
        "Crew-role and nation-power values.",
        key=("kind", "name"),
    )

    candidates, n0 = SEARCH[ctx.size]
    rows = []
    for k, nat in enumerate(nations):
        _fleet, info = api.best_fleet(
            nat,
            rules=rules,
            candidates=candidates,
            n0=n0,
            seed=[s_search, k],
            jobs=ctx.jobs,
            opponents=nations,
        )
        last = info["rounds"][-1] if info["rounds"] else {}
        rows.append(
            {
                "nation": nat,
                "best_fleet_found": info["fleet"],
                "legal_full_fleets": info["pool"],
                "candidates_tried": info["candidates"],
                "rounds": len(info["rounds"]),
                "final_round_score": last.get("best_score", np.nan),
                "final_round_battles_each": last.get("battles_each", 0),
                "mirrored_fleet": api.mirrored_fleet(rules, nat).spec(),
            }
        )
    best = pd.DataFrame(rows)
    sec.text(
        f"Best fleet per nation: successive halving over {candidates} candidate fleets per nation "
        "(the study fleet plus a seeded sample of the legal fleets that use every mast and crew "
        "slot), each round playing the survivors against every nation's study fleet and keeping "
        "the better half. The final score is against the study fleets (win = 1, draw = 1/2); it is "
        "a search result, not a proof that no better fleet exists.",
        "note",
    )
    sec.table("express_best_fleets", best, "Best fleet found per nation.", key=("nation",))
    return sec
