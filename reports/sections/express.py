"""Report section "Pirates express": nation matrix, best fleet per nation, crew-role and
nation-power values.

Numbers come from :mod:`simulator.express.api`: ``nation_matrix`` (mirrored study fleets),
``best_fleets`` (a race over every legal full fleet of each nation, validated on fresh games) and
``crew_value`` (each crew role and nation power against a no-power mirror).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.html import Section
from reports.sections.common import scenario_row
from simulator.express import api
from simulator.runner import derive_seed

TITLE = "Pirates express"
MATRIX_N = {"test": 20, "quick": 200, "standard": 5_000, "full": 50_000}  # battles per cell
CREW_N = {"test": 40, "quick": 600, "standard": 20_000, "full": 200_000}  # battles per row
SEARCH = {
    "test": (4, 14, 14),
    "quick": (64, 14, 280),
    "standard": (None, 28, 1_400),
    "full": (None, 56, 5_600),
}  # fleets raced per nation (None: every legal full fleet), first-rung games, validation games


def build(ctx, seed: int) -> Section:
    from reports import figures

    files = ctx.scenarios.get("express") or [None]
    scen = api.load(files[0])
    rules = scen.rules
    sec = Section("express", TITLE)
    sec.scenarios.append(scenario_row(scen))
    s_matrix, s_crew, s_search = (derive_seed(seed, "express-study", k) for k in range(3))

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
    helm = crew[(crew["kind"] == "crew") & (crew["name"] == "helmsman")].iloc[0]
    sec.text(
        f"Commanders {', '.join(csum['commanders'])}: the Helmsman on the 5-mast flagship is worth "
        f"{helm['score_gain'] * 100:+.1f} score points [{helm['score_gain_lo'] * 100:+.1f}, "
        f"{helm['score_gain_hi'] * 100:+.1f}]. Under the previous default commander (gunline) it "
        "measured -5.9 points: its 2 cm more let the flagship see a shot one turn earlier, so it "
        "left the line and opened fire at 26-30 cm (6+) alone (54% of first shots against 44%), "
        "and lost 2.20 masts by turn 3 instead of 1.73 (docs/rules-express.md, Helmsman). The "
        "admiral also first misplayed it (a lone flagship charging on its 2 cm edge, sunk in 73% "
        "of games); it now counts the enemy's answer to its next strike, and the Helmsman's edge "
        "(out-ranging by 2 cm) pays.",
        "note",
    )

    candidates, n0, n_val = SEARCH[ctx.size]
    found = api.best_fleets(
        scenario=scen,
        candidates=candidates,
        n0=n0,
        validate_n=n_val,
        seed=s_search,
        jobs=ctx.jobs,
    )
    rows = []
    for nat in found["nations"]:
        info = found["searches"][nat]
        v = info["validation"]
        rows.append(
            {
                "nation": nat,
                "best_fleet_found": info["fleet"],
                "score": v["score"]["mean"],
                "score_lo": v["score"]["ci95"][0],
                "score_hi": v["score"]["ci95"][1],
                "mirrored_fleet": info["study_fleet"],
                "mirrored_score": v["study_score"]["mean"],
                "gain_lo": v["gain_over_study"]["ci95"][0],
                "gain_hi": v["gain_over_study"]["ci95"][1],
                "legal_full_fleets": info["pool"],
                "candidates_tried": info["candidates"],
                "rungs": len(info["rungs"]),
                "race_battles": info["race_battles"],
                "validation_games": v["n"],
            }
        )
    best = pd.DataFrame(rows)
    tried = "every legal full fleet" if candidates is None else f"{candidates} fleets"
    sec.text(
        f"Best fleet per nation: a race over {tried} of the nation (all "
        f"{rules.fleet.max_total_masts} masts, every crew slot): successive halving with paired "
        "seeds (every candidate meets the same dice in the same game), each candidate playing the "
        "study fleet of every nation with sides alternated, commanders "
        f"{', '.join(found['commanders'])}; {found['race_battles']:,} battles in all. The score "
        "(win = 1, draw = 1/2) and its 95% interval come from fresh games the race never used, "
        "beside the study fleet's on the same games; it is a search result, not a proof that no "
        "better fleet exists (docs/rules-express.md shows the rungs and a second seed).",
        "note",
    )
    sec.table("express_best_fleets", best, "Best fleet found per nation.", key=("nation",))
    return sec
