"""Report section "Pirates express": nation matrix, nation strength, side advantage, crew-role and
nation-power values, best fleet per nation, and balance under strong play.

Numbers come from :mod:`simulator.express.api`: ``nation_matrix`` (mirrored study fleets),
``crew_value`` (each crew role and nation power against a no-power mirror), ``battle_stats``
(the VP split behind a role that costs) and ``best_fleets`` (a race over every legal full fleet
of each nation, validated on fresh games). Nation strength and the side advantage are pooled from
the matrix's own counts (every ordered pair is played both ways, so the nations' strength cancels
out of the side advantage).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reports.html import Section
from reports.sections.common import (
    claim,
    conclusive,
    describe_strategies,
    scenario_row,
    strong_play,
)
from simulator.express import api
from simulator.runner import derive_seed
from simulator.stats import Z95

TITLE = "Pirates express"
MATRIX_N = {"test": 20, "quick": 400, "standard": 5_000, "full": 50_000}  # battles per cell
CREW_N = {"test": 40, "quick": 1_200, "standard": 20_000, "full": 200_000}  # battles per row
SEARCH = {
    "test": (4, 14, 14),
    "quick": (64, 14, 280),
    "standard": (None, 28, 1_400),
    "full": (None, 56, 5_600),
}  # fleets raced per nation (None: every legal full fleet), first-rung games, validation games
STRONG_GAMES = {"test": 32, "quick": 2_000, "standard": 20_000, "full": 100_000}


def _pooled(parts: list[tuple[int, float, float]]) -> tuple[int, float, float, float]:
    """Pool cells of (battles, score, mean squared score): (n, score, ci_low, ci_high)."""
    n = sum(p[0] for p in parts)
    if n == 0:
        return 0, math.nan, math.nan, math.nan
    m = sum(p[0] * p[1] for p in parts) / n
    m2 = sum(p[0] * p[2] for p in parts) / n
    se = math.sqrt(max(m2 - m * m, 0.0) / n)
    return n, m, m - Z95 * se, m + Z95 * se


def side_tables(df: pd.DataFrame, nations: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(side advantage, nation strength) from the matrix's counts.

    A battle scores 1 for a win, 1/2 for a draw. Side advantage: each nation's score as the first
    seat (its row) and as the second seat (its column), then all nations pooled; nation
    strength: its score against the other nations, both seats pooled (the mirror left out).
    """
    cells = df.set_index(["nation", "vs"])

    def first(a, b):
        r = cells.loc[(a, b)]
        return int(r["n"]), float(r["win"] + r["draw"] / 2), float(r["win"] + r["draw"] / 4)

    def second(a, b):  # nation a in the second seat against b: row b, column a
        r = cells.loc[(b, a)]
        return int(r["n"]), float(r["loss"] + r["draw"] / 2), float(r["loss"] + r["draw"] / 4)

    side, strength = [], []
    for a in nations:
        for seat, fn in (("first", first), ("second", second)):
            n, m, lo, hi = _pooled([fn(a, b) for b in nations])
            side.append(
                {"nation": a, "seat": seat, "battles": n, "score": m, "ci_low": lo, "ci_high": hi}
            )
        n, m, lo, hi = _pooled([f(a, b) for b in nations if b != a for f in (first, second)])
        strength.append({"nation": a, "battles": n, "score": m, "ci_low": lo, "ci_high": hi})
    for seat, fn in (("first", first), ("second", second)):
        n, m, lo, hi = _pooled([fn(a, b) for a in nations for b in nations])
        side.append(
            {
                "nation": "all nations",
                "seat": seat,
                "battles": n,
                "score": m,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    side_df, strength_df = pd.DataFrame(side), pd.DataFrame(strength)
    side_df["conclusive"] = conclusive(side_df, 0.5)
    strength_df["conclusive"] = conclusive(strength_df, 0.5)
    return side_df, strength_df.sort_values("score", ascending=False, kind="stable")


def matrix_table(sec: Section, df: pd.DataFrame, summary: dict) -> None:
    """The nation matrix's table, and beside it a warning naming every outcome (a win of either
    seat, a draw, the scenario's objectives) that no battle of the matrix had."""
    sec.table(
        "express_nation_matrix",
        df,
        "Nation matrix: win, loss and draw rates with 95% intervals (conclusive: the win "
        "interval excludes 1/2).",
        key=("nation", "vs"),
        columns=[
            "nation",
            "vs",
            "n",
            "win",
            "win_lo",
            "win_hi",
            "draw",
            "mean_vp_margin",
            "conclusive",
        ],
    )
    n_battles = int(df["n"].sum())
    text = api.never_happened_text(list(summary.get("never_happened", ())), n_battles)
    if text is not None:
        sec.text(
            f"Outcomes of the matrix above: {text}. A table in which an outcome of the game "
            "cannot be seen does not measure the balance of that outcome.",
            "warning",
            anchor="express-never-happened",
        )


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
    commanders = list(summary["commanders"])
    who = f"hand-written commanders {' vs '.join(commanders)}"
    sec.text(
        f"Battles between two fleets (scenario '{scen.name}', rules {scen.rules_version}), every "
        f"nation fielding the same study fleet ({rules.studies.mirrored_fleet}) so only the "
        f"nation's powers differ; both fleets are led by the {who}. {n:,} battles per cell; the "
        "row nation is the first seat. A battle scores 1 for a win and 1/2 for a draw. Intervals "
        "are 95% Wilson intervals for rates and normal intervals for scores; conclusive = the "
        "interval excludes an even score (1/2) or zero for a gain."
    )
    describe_strategies(sec, scen, commanders, "Commanders")
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
        players=who,
    )
    df = df.copy()
    df["conclusive"] = conclusive(df, 0.5, "win_lo", "win_hi")
    matrix_table(sec, df, summary)

    side, strength = side_tables(df, nations)
    sec.table(
        "express_nation_strength",
        strength,
        "Each nation's score against the six others (both seats pooled, the mirror left out).",
        key=("nation",),
    )
    ctx.figure(
        sec,
        "express_side_advantage",
        figures.rates_with_intervals(
            side,
            label="nation",
            rate="score",
            hue="seat",
            title="Score by seat: the first seat (side A) against the second",
            xlabel="score (win = 1, draw = 1/2)",
            reference=0.5,
            reference_label="even (1/2)",
        ),
        caption="Initiative / side advantage: each nation's score as the first seat (its row of "
        "the matrix) and as the second seat (its column), and all nations pooled, where the "
        "nations' strength cancels out because every pair is played both ways.",
        csv="express_side_advantage",
        n=f"{n * len(nations) ** 2:,} battles",
        n_value=n * len(nations) ** 2,
        players=who,
    )
    sec.table(
        "express_side_advantage",
        side,
        "Score by seat (first = side A, the row nation of the matrix).",
        key=("nation", "seat"),
    )

    crew = _crew(ctx, sec, scen, s_crew, who)
    _best_fleets(ctx, sec, scen, rules, s_search)
    strong = strong_play(
        ctx,
        sec,
        api,
        scen,
        seed,
        game="express",
        n=STRONG_GAMES[ctx.size],
        mix=list(getattr(rules, "default_mix", ()) or ()),
        stem_prefix="express",
    )

    sec.claims.append(
        claim(
            side,
            "express_side_advantage",
            {"nation": "all nations", "seat": "first"},
            "score",
            game="express",
            claim_key="express/first-seat/2p",
            sentence="The first seat (side A) scores {value} {ci} over {n} battles of every "
            "nation pairing played both ways",
            null=0.5,
            null_words="an even 50%",
            players=who,
            n=int(side["battles"].iloc[-1]),
            anchor="fig-express_side_advantage",
            unit="score of the first seat (win 1, draw 1/2)",
            strong=strong.get("express/first-seat/2p"),
        )
    )
    for nat in strength["nation"]:
        sec.claims.append(
            claim(
                strength,
                "express_nation_strength",
                {"nation": nat},
                "score",
                game="express",
                claim_key=f"express/nation/{nat}",
                sentence=f"With the same study fleet, {nat} scores {{value}} {{ci}} against the "
                "six other nations ({n} battles, both seats)",
                null=0.5,
                null_words="an even 50%",
                players=who,
                n=int(strength.loc[strength["nation"] == nat, "battles"].iloc[0]),
                anchor="tbl-express_nation_strength",
                unit="score against the other nations (win 1, draw 1/2)",
            )
        )
    for role in crew[crew["kind"] == "crew"]["name"]:
        sec.claims.append(
            claim(
                crew,
                "express_crew_value",
                {"kind": "crew", "name": role},
                "score_gain",
                game="express",
                claim_key=f"express/crew/{role}",
                sentence=f"A {role} on one ship changes its fleet's score by {{value}} {{ci}} "
                "against the same fleet without it ({n} battles)",
                null=0.0,
                null_words="zero",
                players=who,
                n=int(crew.loc[crew["name"] == role, "n"].iloc[0]),
                anchor="fig-express_crew_value",
                unit="change in score (win 1, draw 1/2)",
                low="score_gain_lo",
                high="score_gain_hi",
                unit_short=" points",
            )
        )
    return sec


def _crew(ctx, sec: Section, scen, seed: int, who: str) -> pd.DataFrame:
    from reports import figures

    crew, csum = api.crew_value(
        n=CREW_N[ctx.size], scenario=scen, seed=seed, jobs=ctx.jobs, quiet=True
    )
    crew = crew.copy()
    crew["conclusive"] = conclusive(crew, 0.0, "score_gain_lo", "score_gain_hi")
    crew["what"] = np.where(
        crew["kind"] == "crew", "crew: " + crew["name"], "nation: " + crew["name"]
    )
    ctx.figure(
        sec,
        "express_crew_value",
        figures.forest(
            crew,
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
        players=who,
    )
    crew = crew.drop(columns=["what"])
    # a crew role that costs its fleet: where its VP go (the same battles' VP split)
    costly = crew[(crew["kind"] == "crew") & (crew["score_gain_hi"] < 0)]
    split_rows = []
    for k, r in enumerate(costly.itertuples()):
        battles, _ = api.battle_stats(
            r.fleet,
            r.baseline,
            n=CREW_N[ctx.size],
            scenario=scen,
            seed=derive_seed(seed, "costly-role", k),
            jobs=ctx.jobs,
            quiet=True,
        )
        row = {"role": r.name, "battles": len(battles)}
        for what, a, b in (
            ("vp", "vp_a", "vp_b"),
            ("mast_vp", "mast_vp_a", "mast_vp_b"),
            ("sink_vp", "sink_vp_a", "sink_vp_b"),
            ("ships_sunk", "sunk_by_a", "sunk_by_b"),
        ):
            d = battles[a].to_numpy(float) - battles[b].to_numpy(float)
            se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else math.nan
            row[f"{what}_with_role"] = float(battles[a].mean())
            row[f"{what}_without"] = float(battles[b].mean())
            row[f"{what}_difference"] = float(d.mean())
            row[f"{what}_ci_low"] = float(d.mean()) - Z95 * se
            row[f"{what}_ci_high"] = float(d.mean()) + Z95 * se
        row["mean_turns"] = float(battles["turns"].mean())
        split_rows.append(row)
        sec.text(
            f"Why a {r.name} costs its fleet {abs(r.score_gain):.1%} of score "
            f"[{abs(r.score_gain_hi):.1%}, {abs(r.score_gain_lo):.1%}]: in {len(battles):,} more "
            f"battles of the same pairing, the fleet with it scores "
            f"{row['mast_vp_with_role']:.2f} VP from masts and hull against "
            f"{row['mast_vp_without']:.2f} for the fleet without ({row['mast_vp_difference']:+.2f} "
            f"[{row['mast_vp_ci_low']:+.2f}, {row['mast_vp_ci_high']:+.2f}]) and sinks "
            f"{row['ships_sunk_with_role']:.2f} ships against {row['ships_sunk_without']:.2f} "
            f"({row['ships_sunk_difference']:+.2f} [{row['ships_sunk_ci_low']:+.2f}, "
            f"{row['ships_sunk_ci_high']:+.2f}]). Measured: where the victory points go. Not "
            "measured: which of the commander's choices (speed put to use) leads there; these "
            "commanders keep no decision record.",
            "explain",
            anchor=f"express-explain-{r.name}",
        )
    helm = crew[(crew["kind"] == "crew") & (crew["name"] == "helmsman")]
    if len(helm) and helm["score_gain_hi"].iloc[0] >= 0:
        h = helm.iloc[0]
        verdict = "worth something" if h["score_gain_lo"] > 0 else "not clearly worth anything"
        sec.text(
            f"The Helmsman on one ship is {verdict} with these commanders: "
            f"{h['score_gain']:+.1%} of score [{h['score_gain_lo']:+.1%}, "
            f"{h['score_gain_hi']:+.1%}] and {h['vp_gain']:+.2f} VP [{h['vp_gain_lo']:+.2f}, "
            f"{h['vp_gain_hi']:+.2f}] over {int(h['n']):,} battles. Its negative value under the "
            "earlier default commander (gunline: the faster ship left the line and was shot "
            "alone) is a study of docs/rules-express.md ('The Helmsman's negative value'), not a "
            "measurement of this run.",
            "explain",
            anchor="express-explain-helmsman",
        )
    sec.table(
        "express_crew_value",
        crew,
        "Crew-role and nation-power values (conclusive: the score interval excludes zero).",
        key=("kind", "name"),
        columns=[
            "kind",
            "name",
            "n",
            "score_gain",
            "score_gain_lo",
            "score_gain_hi",
            "vp_gain",
            "vp_gain_lo",
            "vp_gain_hi",
            "conclusive",
        ],
    )
    if split_rows:
        sec.table(
            "express_costly_roles",
            pd.DataFrame(split_rows),
            "Victory points by source for each crew role that costs its fleet (with role minus "
            "without, same battles).",
            key=("role",),
            columns=[
                "role",
                "battles",
                "vp_difference",
                "mast_vp_difference",
                "mast_vp_ci_low",
                "mast_vp_ci_high",
                "sink_vp_difference",
                "ships_sunk_difference",
                "mean_turns",
            ],
        )
    return crew


def _best_fleets(ctx, sec: Section, scen, rules, seed: int) -> None:
    s_search = seed
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
    best["conclusive"] = (best["gain_lo"] > 0) | (best["gain_hi"] < 0)
    sec.table(
        "express_best_fleets",
        best,
        "Best fleet found per nation (conclusive: the gain over the study fleet, on the same fresh "
        "games, excludes zero).",
        key=("nation",),
        columns=[
            "nation",
            "best_fleet_found",
            "score",
            "score_lo",
            "score_hi",
            "mirrored_score",
            "gain_lo",
            "gain_hi",
            "conclusive",
        ],
    )
