"""Report section "Pirates express": the nation matrix in score (draws shown), nation strength,
side advantage, crew-role and nation-power values (score and VP explained together), best fleet
per nation and best fleet against best fleet, the VP margin of victory, each house rule against
the base game, and balance under strong play.

Numbers come from :mod:`simulator.express.api`: ``nation_matrix`` (mirrored study fleets),
``crew_value`` (each crew role and nation power against a no-power mirror), ``battle_stats``
(the VP split behind a role that costs, or a row whose score and VP disagree), ``best_fleets`` (a
race over every legal full fleet of each nation, validated on fresh games) and ``run_pairings``
(best fleet against best fleet), and ``play`` (the protocol: the default table and the house
rules). Nation strength and the side advantage are pooled from the matrix's own counts (every
ordered pair is played both ways, so the nations' strength cancels out of the side advantage).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from reports.display import nation as nation_name
from reports.display import title
from reports.html import Section
from reports.sections.common import (
    DEFAULT,
    claim,
    describe_strategies,
    distribution_table,
    paired,
    per_game,
    players_words,
    reference_names,
    scenario_row,
    sizes_of,
    strong_play,
)
from reports.verdicts import Axis, Remedy
from scenarios.loader import SCENARIO_ROOT
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
#: battles per cell of the best-fleet matrix
BEST_MATRIX_N = {"test": 10, "quick": 200, "standard": 2_500, "full": 25_000}
#: paired battles of each house rule against the base game (the default table)
HOUSE_N = {"test": 20, "quick": 2_000, "standard": 20_000, "full": 100_000}
STRONG_GAMES = {"test": 32, "quick": 2_000, "standard": 20_000, "full": 100_000}
#: games of each house rule under the equilibrium population (the first slices of STRONG_GAMES)
HOUSE_POP_N = {"test": 32, "quick": 1_024, "standard": 10_000, "full": 50_000}


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
    return side_df, strength_df.sort_values("score", ascending=False, kind="stable")


def matrix_table(sec: Section, df: pd.DataFrame, summary: dict, stem="express_nation_matrix",
                 caption: str | None = None) -> None:  # fmt: skip
    """A nation matrix's table (score = win + 1/2 draw, with the win, draw and loss rates beside
    it), and beside it a warning naming every outcome (a win of either seat, a draw, the
    scenario's objectives) that no battle of the matrix had."""
    sec.table(
        stem,
        df,
        (
            caption
            or "Nation matrix (study fleets): the row nation's score as the first seat (win 1, "
            "draw 1/2) with its 95% interval, and its win, draw and loss rates."
        )
        + " The mean VP margin is the first seat's VP minus the second's: VP decide each "
        "battle, the score counts it, so a nation can score above 1/2 with a negative margin "
        "(narrow wins, heavy losses).",
        key=("nation", "vs"),
        columns=[
            "nation",
            "vs",
            "n",
            "score",
            "score_lo",
            "score_hi",
            "win",
            "draw",
            "loss",
            "mean_vp_margin",
        ],
        phone=("score", "score_lo", "score_hi", "draw", "conclusive"),
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


def _score_heatmap(ctx, sec, df, nations, *, stem, title, caption, n, players) -> None:
    from reports import figures
    from reports.display import nation as nation_name

    table = df.pivot(index="nation", columns="vs", values="score").loc[nations, nations]
    annot = df.assign(
        text=[f"{s * 100:.0f}\nd{d * 100:.0f}" for s, d in zip(df["score"], df["draw"])]
    )
    annot = annot.pivot(index="nation", columns="vs", values="text").loc[nations, nations]
    names = [nation_name(x) for x in nations]
    ctx.figure(
        sec,
        stem,
        figures.heatmap(
            table.set_axis(names, axis=0).set_axis(names, axis=1),
            annot=annot,
            title=title,
            xlabel="opponent (second seat)",
            ylabel="nation (first seat)",
            cbar="score (%)",
            center=0.5,
        ),
        caption=caption,
        csv=stem,
        n=n,
        n_value=None,
        players=players,
    )


def _cell_claims(sec, df, stem, *, fleets: str, who: str, sizes, finding=False) -> None:
    """Each cell of a nation matrix is a claim (its score against an even 50%); not a finding
    of its own by default: the nations' strength rows sum the cells up."""
    from reports.display import nation as nation_name

    for r in df.itertuples():
        sec.claims.append(
            claim(
                df,
                stem,
                {"nation": r.nation, "vs": r.vs},
                "score",
                low="score_lo",
                high="score_hi",
                game="express",
                claim_key=f"express/{stem}/default/{r.nation}/{r.vs}",
                quantity=f"score of {r.nation} (first seat) against {r.vs}, {fleets}",
                sentence=f"With {fleets}, {nation_name(r.nation)} as the first seat scores "
                f"{{value}} {{ci}} against {nation_name(r.vs)} ({{n}} battles)",
                null=0.5,
                null_words="an even 50%",
                players=who,
                n=int(r.n),
                n_unit="battles",
                anchor=f"tbl-{stem}",
                unit="score of the first seat (win 1, draw 1/2)",
                table_players=2,
                sizes=sizes,
                family=f"{stem}",
                finding=finding,
            )
        )


def build(ctx, seed: int) -> Section:
    from reports import figures
    from reports.display import nation as nation_name

    files = ctx.scenarios.get("express") or [None]
    scen = api.load(files[0])
    rules = scen.rules
    sec = Section("express", TITLE)
    sec.scenarios.append(scenario_row(scen))
    s_matrix, s_crew, s_search, s_best, s_house = (
        derive_seed(seed, "express-study", k) for k in range(5)
    )
    refs = reference_names(scen)
    mix = [m for m in (getattr(rules, "default_mix", ()) or ()) if m not in refs]

    n = MATRIX_N[ctx.size]
    df, summary = api.nation_matrix(n=n, scenario=scen, seed=s_matrix, jobs=ctx.jobs, quiet=True)
    nations = list(summary["nations"])
    commanders = list(summary["commanders"])
    who = f"commanders {' vs '.join(commanders)} (hand-written)"
    cells = n * len(nations) ** 2
    sec.text(
        f"Battles between two fleets (scenario '{scen.name}', rules {scen.rules_version}), every "
        f"nation fielding the same study fleet ({rules.studies.mirrored_fleet}) so only the "
        f"nation's powers differ; both fleets are led by the {who}. {n:,} battles per cell; the "
        "row nation is the first seat. A battle scores 1 for a win and 1/2 for a draw (the "
        "score); VP (victory points) decide who wins, so a fleet can score more yet average "
        "fewer VP (narrow wins, heavy losses). Intervals are 95% Wilson intervals for rates "
        "and normal intervals for scores; conclusive = the row's p-value stays at most 0.05 "
        "after Holm's correction over every claim of the page."
    )
    describe_strategies(sec, scen, [*commanders, *sorted(refs)], "Commanders")
    for name, decl in rules.strategies.items():
        ref = "; a reference player" if getattr(decl, "reference", False) else ""
        sec.glossary.append(
            (name, f"{decl.description or name} (commander kind {decl.kind}{ref}).")
        )
    strong = strong_play(
        ctx,
        sec,
        api,
        scen,
        seed,
        game="express",
        n=STRONG_GAMES[ctx.size],
        mix=mix,
        stem_prefix="express",
        sizes=sizes_of(STRONG_GAMES),
    )
    _score_heatmap(
        ctx,
        sec,
        df,
        nations,
        stem="express_nation_matrix",
        title="Score of the row nation (study fleets)",
        caption="Each cell: the row nation's score (%) as the first seat against the column "
        "nation, both with the study fleet, and below it d = the share of draws (%); a mirror "
        "(a nation against itself) is a seat effect only.",
        n=f"{n:,} battles per cell ({cells:,} in all)",
        players=who,
    )
    matrix_table(sec, df, summary)
    _cell_claims(sec, df, "express_nation_matrix", fleets="study fleets", who=who,
                 sizes=sizes_of(MATRIX_N))  # fmt: skip

    side, strength = side_tables(df, nations)
    sec.table(
        "express_nation_strength",
        strength,
        "Each nation's score against the six others with the study fleet (both seats pooled, "
        "the mirror left out).",
        key=("nation",),
    )
    ctx.figure(
        sec,
        "express_side_advantage",
        figures.rates_with_intervals(
            side.assign(
                label=[nation_name(x) if x != "all nations" else x for x in side["nation"]]
            ),
            label="label",
            rate="score",
            hue="seat",
            title="Score by seat: first (side A) against second",
            xlabel="score (win = 1, draw = 1/2)",
            reference=0.5,
            reference_label="even (1/2)",
        ),
        caption="Initiative / side advantage: each nation's score as the first seat (its row of "
        "the matrix) and as the second seat (its column), and all nations pooled, where the "
        "nations' strength cancels out because every pair is played both ways.",
        csv="express_side_advantage",
        n=f"{cells:,} battles",
        n_value=cells,
        players=who,
    )
    sec.table(
        "express_side_advantage",
        side,
        "Score by seat (first = side A, the row nation of the matrix).",
        key=("nation", "seat"),
    )
    seat_sizes = {k: v * len(nations) ** 2 for k, v in sizes_of(MATRIX_N).items()}
    for r in side.itertuples():
        sec.claims.append(
            claim(
                side,
                "express_side_advantage",
                {"nation": r.nation, "seat": r.seat},
                "score",
                game="express",
                claim_key=f"express/side/default/{r.nation}/{r.seat}",
                quantity=f"score of {r.nation} in the {r.seat} seat (study fleets)",
                sentence=(
                    f"The {r.seat} seat (all nations pooled) scores {{value}} {{ci}} over {{n}} "
                    "battles of every nation pairing played both ways"
                    if r.nation == "all nations"
                    else f"{nation_name(r.nation)} in the {r.seat} seat scores {{value}} {{ci}} "
                    "over {n} battles against every nation (study fleets)"
                ),
                null=0.5,
                null_words="an even 50%",
                players=who,
                n=int(r.battles),
                n_unit="battles",
                anchor="fig-express_side_advantage",
                unit="score of the seat (win 1, draw 1/2)",
                table_players=2,
                sizes=seat_sizes,
                strong=strong.key("seat", 2, 1 if r.seat == "first" else 2)
                if r.nation == "all nations"
                else None,
                finding=r.nation == "all nations",  # a nation's seats explain its strength
            )
        )
    strength_keys = {}
    for r in strength.itertuples():
        k = f"express/nation/default/{r.nation}"
        sec.claims.append(
            claim(
                strength,
                "express_nation_strength",
                {"nation": r.nation},
                "score",
                game="express",
                claim_key=k,
                quantity=f"score of {r.nation} against the other nations (study fleets)",
                sentence=f"With the same study fleet, {nation_name(r.nation)} scores {{value}} "
                "{ci} against the six other nations ({n} battles, both seats)",
                null=0.5,
                null_words="an even 50%",
                players=who,
                n=int(r.battles),
                n_unit="battles",
                anchor="tbl-express_nation_strength",
                unit="score against the other nations (win 1, draw 1/2)",
                table_players=2,
                sizes={k2: v * 2 * (len(nations) - 1) for k2, v in sizes_of(MATRIX_N).items()},
            )
        )
        strength_keys[nation_name(r.nation)] = k

    crew = _crew(ctx, sec, scen, s_crew, who)
    found = _best_fleets(ctx, sec, scen, rules, s_search, who)
    fleet_keys = _best_matrix(ctx, sec, scen, rules, found, s_best, who)
    house = _house_rules(ctx, sec, scen, mix, s_house, strong, who)
    del crew

    sec.axes.append(
        Axis(
            game="express",
            axis="seat-order",
            players=2,
            rows=(("first seat, all nations pooled",
                   "express/side/default/all nations/first"),),
            fair=0.5,
            unit="score of the first seat (win 1, draw 1/2)",
            population=f"{who}, study fleets, every nation pairing both ways",
            size=ctx.size,
            remedies=tuple(house),
        )
    )  # fmt: skip
    sec.axes.append(
        Axis(
            game="express",
            axis="nation",
            players=2,
            rows=tuple(strength_keys.items()),
            fair=0.5,
            unit="score against the other nations (win 1, draw 1/2)",
            population=f"{who}, every nation with the same study fleet",
            size=ctx.size,
        )
    )
    if fleet_keys:
        sec.axes.append(
            Axis(
                game="express",
                axis="fleet",
                players=2,
                rows=tuple(fleet_keys.items()),
                fair=0.5,
                unit="score against the other nations' best fleets (win 1, draw 1/2)",
                population=f"{who}, every nation with its best fleet found",
                size=ctx.size,
            )
        )
    if 2 in strong.runs:
        found_pop = strong.runs[2][0]
        rows = tuple(
            (name, k)
            for (what, p, name), k in strong.claims.items()
            if what == "strategy" and p == 2
        )
        if rows:
            sec.axes.append(
                Axis(
                    game="express",
                    axis="strategy",
                    players=2,
                    rows=rows,
                    fair=0.5,
                    unit="score against the equilibrium population (win 1, draw 1/2)",
                    population=f"each commander against the equilibrium population "
                    f"{found_pop.name}",
                    size=ctx.size,
                )
            )
    return sec


def _crew(ctx, sec: Section, scen, seed: int, who: str) -> pd.DataFrame:
    from reports import figures

    crew, csum = api.crew_value(
        n=CREW_N[ctx.size], scenario=scen, seed=seed, jobs=ctx.jobs, quiet=True
    )
    crew = crew.copy()
    crew["n"] = crew["n"].astype(int)
    crew["what"] = [
        f"crew: {title(nm)}" if k == "crew" else f"nation: {nation_name(nm)}"
        for k, nm in zip(crew["kind"], crew["name"])
    ]
    sec.heading("What a crew role or a nation's power is worth", anchor="express-crew")
    ctx.figure(
        sec,
        "express_crew_value",
        figures.forest(
            crew,
            label="what",
            panels=[
                ("score_gain", "score_gain_lo", "score_gain_hi", "score (points)"),
                ("vp_gain", "vp_gain_lo", "vp_gain_hi", "VP margin"),
            ],
            scale=[100.0, 1.0],
            title="Worth of a crew role or a nation's power",
        ),
        caption="Each crew role added to one ship, and each nation's power, against an identical "
        f"fleet without it (baseline: {nation_name(csum['baseline_nation'])}); left: change in "
        "score (points; win 1, draw 1/2), right: change in the mean VP margin (VP decide who "
        "wins; a fleet can win more often and still average fewer VP). 95% intervals; zero = "
        "worth nothing.",
        csv="express_crew_value",
        n=f"{CREW_N[ctx.size]:,} battles per row",
        n_value=CREW_N[ctx.size],
        players=who,
    )
    crew = crew.drop(columns=["what"])
    sec.table(
        "express_crew_value",
        crew,
        "Crew-role and nation-power values: change in score (points of the win share) and in "
        "the mean VP margin, each against the same fleet without it.",
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
        ],
        phone=("score_gain", "score_gain_lo", "score_gain_hi", "conclusive"),
    )
    for r in crew.itertuples():
        label = title(r.name) if r.kind == "crew" else f"the {nation_name(r.name)}' power"
        sec.claims.append(
            claim(
                crew,
                "express_crew_value",
                {"kind": r.kind, "name": r.name},
                "score_gain",
                low="score_gain_lo",
                high="score_gain_hi",
                game="express",
                claim_key=f"express/crew-value/default/{r.kind}/{r.name}",
                quantity=f"change in score from the {r.kind} {r.name}",
                sentence=(
                    f"A {label} on one ship changes its fleet's score by {{value}} {{ci}} "
                    "against the same fleet without it ({n} battles)"
                    if r.kind == "crew"
                    else f"{label[0].upper() + label[1:]} changes its fleet's score by {{value}} "
                    "{ci} against the same fleet with no nation power ({n} battles)"
                ),
                null=0.0,
                null_words="zero",
                players=who,
                n=int(r.n),
                n_unit="battles",
                anchor="fig-express_crew_value",
                unit="change in score (win 1, draw 1/2)",
                table_players=2,
                effect="score",
                sizes=sizes_of(CREW_N),
                family=f"crew-value/{r.kind}",
                unit_short=" points",
            )
        )
    _explain_costs(ctx, sec, scen, crew, seed)
    return crew


def _explain_costs(ctx, sec: Section, scen, crew: pd.DataFrame, seed: int) -> None:
    """Where the VP go for a crew role that costs its fleet score, and why a row's score and VP
    point opposite ways: the same pairing replayed (:func:`simulator.express.api.battle_stats`),
    its score and VP split from those battles, checked against the crew table's row."""
    rows = []
    for k, r in enumerate(crew.itertuples()):
        costly = r.kind == "crew" and r.score_gain_hi < 0
        crossed = (r.score_gain_lo > 0 and r.vp_gain_hi < 0) or (
            r.score_gain_hi < 0 and r.vp_gain_lo > 0
        )
        if not (costly or crossed):
            continue
        battles, _ = api.battle_stats(
            r.fleet,
            r.baseline,
            n=CREW_N[ctx.size],
            scenario=scen,
            seed=derive_seed(seed, "costly-role", k),
            jobs=ctx.jobs,
            quiet=True,
        )
        score = np.where(
            battles["result"] == "a", 1.0, np.where(battles["result"] == "draw", 0.5, 0)
        )
        margin = battles["vp_a"].to_numpy(float) - battles["vp_b"].to_numpy(float)
        row = {"kind": r.kind, "name": r.name, "battles": len(battles)}
        row["score_gain"], row["score_gain_lo"], row["score_gain_hi"] = _mean_ci(score - 0.5)
        row["vp_margin"], row["vp_margin_lo"], row["vp_margin_hi"] = _mean_ci(margin)
        for what, a, b in (
            ("mast_vp", "mast_vp_a", "mast_vp_b"),
            ("sink_vp", "sink_vp_a", "sink_vp_b"),
            ("ships_sunk", "sunk_by_a", "sunk_by_b"),
        ):
            d = battles[a].to_numpy(float) - battles[b].to_numpy(float)
            row[f"{what}_difference"], row[f"{what}_ci_low"], row[f"{what}_ci_high"] = _mean_ci(d)
        won, lost = score == 1.0, score == 0.0
        row["margin_when_winning"] = float(margin[won].mean()) if won.any() else math.nan
        row["margin_when_losing"] = float(margin[lost].mean()) if lost.any() else math.nan
        row["wins"] = int(won.sum())
        row["losses"] = int(lost.sum())
        gap = (row["score_gain"] - r.score_gain) / math.hypot(
            (row["score_gain_hi"] - row["score_gain_lo"]) / (2 * Z95),
            (r.score_gain_hi - r.score_gain_lo) / (2 * Z95),
        )
        row["agrees_with_crew_table"] = bool(abs(gap) <= Z95)
        rows.append(row)
        label = f"a {title(r.name)}" if r.kind == "crew" else f"the {nation_name(r.name)}' power"
        agree = (
            f"this replay's score change {row['score_gain']:+.1%} [{row['score_gain_lo']:+.1%}, "
            f"{row['score_gain_hi']:+.1%}] agrees with the crew table's {r.score_gain:+.1%} "
            f"(the two differ by {abs(gap):.1f} standard errors)"
            if row["agrees_with_crew_table"]
            else f"this replay's score change {row['score_gain']:+.1%} [{row['score_gain_lo']:+.1%}"
            f", {row['score_gain_hi']:+.1%}] differs from the crew table's {r.score_gain:+.1%} by "
            f"{abs(gap):.1f} standard errors: two samples of the same pairing, one of them off "
            "by chance (a 5% event per row)"
        )
        sec.text(
            f"Score and VP of {label}, replayed on {len(battles):,} more battles of the same "
            f"pairing: {agree}. VP decide each battle, and the mean VP margin "
            f"{row['vp_margin']:+.2f} [{row['vp_margin_lo']:+.2f}, {row['vp_margin_hi']:+.2f}] "
            f"weighs how much: the fleet with it wins {row['wins']:,} battles by "
            f"{row['margin_when_winning']:+.2f} VP on average and loses {row['losses']:,} by "
            f"{row['margin_when_losing']:+.2f}; VP from masts and hulls "
            f"{row['mast_vp_difference']:+.2f} [{row['mast_vp_ci_low']:+.2f}, "
            f"{row['mast_vp_ci_high']:+.2f}], from sinking ships {row['sink_vp_difference']:+.2f} "
            f"[{row['sink_vp_ci_low']:+.2f}, {row['sink_vp_ci_high']:+.2f}]. Not measured: "
            "which of the commander's choices leads there (these commanders keep no decision "
            "record).",
            "explain",
            anchor=f"express-explain-{r.kind}-{r.name}",
        )
    if rows:
        sec.table(
            "express_score_and_vp",
            pd.DataFrame(rows),
            "Rows of the crew table whose score falls or whose score and VP point opposite "
            "ways, replayed: score change, VP margin (overall, in the battles won and lost) and "
            "VP by source, with whether the replay agrees with the crew table (within 1.96 "
            "standard errors).",
            key=("kind", "name"),
            columns=[
                "kind",
                "name",
                "battles",
                "score_gain",
                "score_gain_lo",
                "score_gain_hi",
                "vp_margin",
                "margin_when_winning",
                "margin_when_losing",
                "mast_vp_difference",
                "sink_vp_difference",
                "agrees_with_crew_table",
            ],
            phone=("score_gain", "vp_margin", "agrees_with_crew_table"),
        )


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    x = np.asarray(x, float)
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0
    return m, m - Z95 * se, m + Z95 * se


def _best_matrix(ctx, sec: Section, scen, rules, found: dict, seed: int, who: str) -> dict:
    """Best fleet against best fleet: every nation with the fleet the race found, under the
    default commanders; each nation's score against the six others (both seats pooled) is the
    fleet axis."""
    from reports.display import nation as nation_name

    nations = list(found["nations"])
    chosen = {nat: api.parse_fleet(found["fleets"][nat], rules) for nat in nations}
    cmd = api.parse_commanders(None, rules)
    pairings = [
        api.make_pairing(chosen[a], chosen[b], rules, cmd, None) for a in nations for b in nations
    ]
    n = BEST_MATRIX_N[ctx.size]
    rows3, _ = api.run_pairings(
        pairings, n, seed=seed, jobs=ctx.jobs, quiet=True, desc="best fleets"
    )
    recs = []
    for i, a in enumerate(nations):
        for j, b in enumerate(nations):
            s = api.outcome_summary(rows3[i * len(nations) + j])
            recs.append(
                {
                    "nation": a,
                    "vs": b,
                    "n": int(s["n"]),
                    "score": s["score"]["mean"],
                    "score_lo": s["score"]["ci95"][0],
                    "score_hi": s["score"]["ci95"][1],
                    "win": s["win"]["p"],
                    "draw": s["draw"]["p"],
                    "loss": s["loss"]["p"],
                    "mean_vp_margin": s["mean_vp_margin"]["mean"],
                }
            )
    df = pd.DataFrame(recs)
    words = f"{who}, each nation with its best fleet found"
    cells = n * len(nations) ** 2
    sec.heading("Best fleet against best fleet", anchor="express-best-matrix")
    _score_heatmap(
        ctx,
        sec,
        df,
        nations,
        stem="express_best_fleet_matrix",
        title="Score of the row nation (best fleets)",
        caption="Each cell: the row nation's score (%) as the first seat, every nation fielding "
        "the best fleet the race found for it (table above), and d = the share of draws (%).",
        n=f"{n:,} battles per cell ({cells:,} in all)",
        players=words,
    )
    matrix_table(
        sec,
        df,
        {},
        stem="express_best_fleet_matrix",
        caption="Best fleet against best fleet: the row nation's score as the first seat (win 1, "
        "draw 1/2) with its 95% interval, and its win, draw and loss rates.",
    )
    _cell_claims(sec, df, "express_best_fleet_matrix", fleets="best fleets", who=who,
                 sizes=sizes_of(BEST_MATRIX_N))  # fmt: skip
    _, strength = side_tables(df.assign(win=df["win"], loss=df["loss"]), nations)
    sec.table(
        "express_best_fleet_strength",
        strength,
        "Each nation's score with its best fleet against the six others' best fleets (both "
        "seats pooled, the mirror left out): the fleet verdict.",
        key=("nation",),
    )
    out = {}
    for r in strength.itertuples():
        k = f"express/fleet/default/{r.nation}"
        sec.claims.append(
            claim(
                strength,
                "express_best_fleet_strength",
                {"nation": r.nation},
                "score",
                game="express",
                claim_key=k,
                quantity=f"score of {r.nation} with its best fleet against the others' best",
                sentence=f"With every nation's best fleet, {nation_name(r.nation)} scores "
                "{value} {ci} against the six others ({n} battles, both seats)",
                null=0.5,
                null_words="an even 50%",
                players=words,
                n=int(r.battles),
                n_unit="battles",
                anchor="tbl-express_best_fleet_strength",
                unit="score against the other nations' best fleets (win 1, draw 1/2)",
                table_players=2,
                sizes={k2: v * 2 * (len(nations) - 1) for k2, v in sizes_of(BEST_MATRIX_N).items()},
            )
        )
        out[nation_name(r.nation)] = k
    return out


def _house_rules(ctx, sec: Section, scen, mix, seed: int, strong, who: str) -> list:
    """Each house rule of ``scenarios/express/`` against the base game: the default table (both
    seats the default mix, study fleets) on the same seeds, and the equilibrium population's
    games; the first seat's score. Returns the seat-order remedies."""
    from reports import strong_play as sp
    from scenarios.loader import ScenarioError
    from scenarios.populations import load_population

    if ctx.scenarios.get("express"):
        return []
    files = sorted(p for p in (SCENARIO_ROOT / "express").glob("*.toml") if p.stem != "standard")
    n = HOUSE_N[ctx.size]
    base_seats = api.play(
        scen, mix, n=n, seed=seed, jobs=ctx.jobs, quiet=True, rotate_seats=False
    ).seats
    base = per_game(base_seats)
    _vp_margins(ctx, sec, base_seats, who)
    rows, specs, remedies = [], [], []
    pop_base = None
    if 2 in strong.runs:
        found, s_seats, s_seed, s_n = strong.runs[2]
        pop_base = (found, per_game(s_seats), s_seed, s_n)
    for path in files:
        try:
            house = api.load(path)
        except ScenarioError as exc:
            sec.text(f"{path.name}: not played ({str(exc).splitlines()[0]})", "note")
            continue
        sec.scenarios.append(scenario_row(house))
        var = per_game(
            api.play(
                house, mix, n=n, seed=seed, jobs=ctx.jobs, quiet=True, rotate_seats=False
            ).seats
        )
        d = paired(base["first_seat_won"].to_numpy(), var["first_seat_won"].to_numpy())
        rows.append(_house_row(house.name, DEFAULT, d, float(var["first_seat_won"].mean())))
        ck = f"express/house-rule/default/{house.name}/first-seat"
        sk = None
        if pop_base is not None:
            found, pb, s_seed, s_n = pop_base
            try:
                pop = load_population(found.path, house, check_hash=False)
                k = min(s_n, HOUSE_POP_N[ctx.size])  # the first slices of the strong-play games
                pv = per_game(sp.play_under(api, pop, n=k, seed=s_seed, jobs=ctx.jobs))
                m = min(len(pv), len(pb))
                dp = paired(
                    pb["first_seat_won"].to_numpy()[:m],
                    pv["first_seat_won"].to_numpy()[:m],
                    sp.slice_games(2),
                )
                rows.append(
                    _house_row(house.name, found.name, dp, float(pv["first_seat_won"].mean()))
                )
                sk = f"express/house-rule/{found.name}/{house.name}/first-seat"
                words = f"equilibrium population {found.name} ({sp.mixture_words(pop)})"
                bv = float(pb["first_seat_won"].mean())
                specs.append((sk, house.name, found.name, words, bv, None, False, dp["df"]))
            except ScenarioError as exc:
                sec.text(f"{house.name}: not measured under {found.name} ({exc})", "note")
        words = f"{players_words(mix, rotated=False)}, study fleets"
        bv = float(base["first_seat_won"].mean())
        specs.append((ck, house.name, DEFAULT, words, bv, sk, True, d["df"]))
        remedies.append(Remedy(house.name, "house-rule", ck, "first-seat score (study fleets)"))
    if not rows:
        return []
    table = pd.DataFrame(rows)
    sec.heading("House rules against the base game", anchor="express-house-rules")
    sec.text(
        f"Each house rule of scenarios/express/ played on the seeds of the base game: {n:,} "
        f"battles of the default table ({players_words(mix, rotated=False)}, study fleets of "
        "the mirror nation) and the equilibrium population's games; the first seat's score, "
        "house rule minus base, with Student t 95% intervals from the paired battles."
    )
    sec.table(
        "express_house_rules",
        table,
        "Each house rule against the base game: the first seat's score (paired battles).",
        key=("house_rule", "population"),
        columns=[
            "house_rule",
            "population",
            "games",
            "house_rule_value",
            "difference",
            "ci_low",
            "ci_high",
        ],
        phone=("difference", "ci_low", "ci_high", "conclusive"),
    )
    for k, name, pop, words, bv, strong_key, finding, dfree in specs:
        games = int(
            table.loc[(table["house_rule"] == name) & (table["population"] == pop), "games"].iloc[0]
        )
        sec.claims.append(
            claim(
                table,
                "express_house_rules",
                {"house_rule": name, "population": pop},
                "difference",
                game="express",
                claim_key=k,
                quantity=f"change in the first seat's score under {name}",
                sentence=f"The house rule {name} changes the first seat's score by {{value}} "
                "{ci} ({n} paired battles)",
                null=0.0,
                null_words="zero",
                players=words,
                population=pop,
                n=games,
                n_unit="battles",
                anchor="tbl-express_house_rules",
                unit="difference in the first seat's score (0..1)",
                crit=float(sps.t.isf(0.025, dfree)),
                df_t=dfree,
                table_players=2,
                effect="relative",
                base_value=bv,
                sizes=sizes_of(HOUSE_N if pop == DEFAULT else HOUSE_POP_N),
                strong=strong_key,
                finding=finding,
                family="house-rule",
                unit_short=" points",
            )
        )
    return remedies


def _house_row(name, population, d, value) -> dict:
    return {
        "house_rule": name,
        "population": population,
        "games": d["pairs"],
        "house_rule_value": value,
        "difference": d["difference"],
        "ci_low": d["ci_low"],
        "ci_high": d["ci_high"],
    }


def _vp_margins(ctx, sec: Section, seats: pd.DataFrame, who: str) -> None:
    """The margin of victory in VP: the winner's VP minus the loser's, per battle (draws: 0)."""
    from reports import figures

    a = seats[seats["seat"] == 1].set_index("game")
    margin = (a["vp"] - a["vp_opponent"]).abs().astype(float)
    g = pd.DataFrame({"margin": margin.to_numpy(), "table": "admiral mirror, study fleets"})
    dist = distribution_table(g, "table", "margin")
    dist["draws"] = int((a["score"] == 0.5).sum())
    ctx.figure(
        sec,
        "express_vp_margin",
        figures.histogram(
            g,
            x="margin",
            hue=None,
            title="Margin of victory",
            xlabel="winner's VP minus the loser's",
            bins=int(max(1, margin.max()) + 1),
        ),
        caption="How decisive the battles are: the winner's VP minus the loser's (0: a draw), "
        "in the default table.",
        csv="express_vp_margin",
        n=f"{len(g):,} battles",
        n_value=len(g),
        players=who,
    )
    sec.table(
        "express_vp_margin",
        dist,
        "Margin of victory in VP: mean (95% interval), quantiles and draws.",
        key=("table",),
        columns=[
            "table",
            "games",
            "mean",
            "ci_low",
            "ci_high",
            "p10",
            "p25",
            "p50",
            "p75",
            "p90",
            "draws",
        ],
        phone=("mean", "p10", "p50", "p90"),
    )


def _best_fleets(ctx, sec: Section, scen, rules, seed: int, who: str) -> dict:
    candidates, n0, n_val = SEARCH[ctx.size]
    found = api.best_fleets(
        scenario=scen,
        candidates=candidates,
        n0=n0,
        validate_n=n_val,
        seed=seed,
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
                "gain": v["gain_over_study"]["mean"],
                "gain_lo": v["gain_over_study"]["ci95"][0],
                "gain_hi": v["gain_over_study"]["ci95"][1],
                "legal_full_fleets": int(info["pool"]),
                "candidates_tried": int(info["candidates"]),
                "rungs": len(info["rungs"]),
                "race_battles": int(info["race_battles"]),
                "validation_games": int(v["n"]),
            }
        )
    best = pd.DataFrame(rows)
    tried = "every legal full fleet" if candidates is None else f"{candidates} fleets"
    sec.heading("Best fleet per nation", anchor="express-best-fleets")
    sec.text(
        f"Best fleet per nation: a race over {tried} of the nation (all "
        f"{rules.fleet.max_total_masts} masts, every crew slot): successive halving with paired "
        "seeds (every candidate meets the same dice in the same game), each candidate playing the "
        "study fleet of every nation with sides alternated, commanders "
        f"{', '.join(found['commanders'])}; {found['race_battles']:,} battles in all. The score "
        "(win = 1, draw = 1/2) and its 95% interval come from fresh games the race never used, "
        "beside the study fleet's on the same games (gain: the difference); it is a search "
        "result, not a proof that no better fleet exists (docs/rules-express.md shows the rungs "
        "and a second seed).",
        "note",
    )
    sec.table(
        "express_best_fleets",
        best,
        "Best fleet found per nation, its validated score against the study fleets and its gain "
        "over the nation's study fleet on the same fresh games.",
        key=("nation",),
        columns=[
            "nation",
            "best_fleet_found",
            "score",
            "score_lo",
            "score_hi",
            "mirrored_score",
            "gain",
            "gain_lo",
            "gain_hi",
        ],
        phone=("gain", "gain_lo", "gain_hi", "conclusive"),
    )
    for r in best.itertuples():
        sec.claims.append(
            claim(
                best,
                "express_best_fleets",
                {"nation": r.nation},
                "gain",
                low="gain_lo",
                high="gain_hi",
                game="express",
                claim_key=f"express/best-fleet/default/{r.nation}",
                quantity=f"gain of {r.nation}'s best fleet over its study fleet",
                sentence=f"The best fleet found for {nation_name(r.nation)} scores {{value}} "
                f"{{ci}} more than its study fleet on the same {{n}} fresh games",
                null=0.0,
                null_words="zero",
                players=who,
                n=int(r.validation_games),
                n_unit="games",
                anchor="tbl-express_best_fleets",
                unit="change in score against the study fleets (win 1, draw 1/2)",
                table_players=2,
                effect="score",
                sizes={k: v[2] for k, v in SEARCH.items() if k != "test"},
                family="best-fleet",
                unit_short=" points",
            )
        )
    return found
