"""Helpers shared by the game sections of the report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.html import Section
from simulator.stats import Z95, wilson_interval


def rate_table(
    df: pd.DataFrame, by: list[str], success: str, weight: str | None = None
) -> pd.DataFrame:
    """Counts, n, rate and Wilson 95% interval of ``success`` (0..1, ties may be fractional) by
    group."""
    g = df.groupby(by, sort=False, observed=True)
    out = (
        g[success].agg(["sum", "count"]).reset_index().rename(columns={"sum": "wins", "count": "n"})
    )
    out["win_rate"] = out["wins"] / out["n"]
    lo, hi = wilson_interval(out["wins"].to_numpy(float), out["n"].to_numpy(float))
    out["ci_low"], out["ci_high"] = np.atleast_1d(lo), np.atleast_1d(hi)
    return out


def mean_table(df: pd.DataFrame, by: list[str], value: str) -> pd.DataFrame:
    """Mean of ``value`` by group with a normal 95% interval (n, mean, se, ci_low, ci_high)."""
    g = df.groupby(by, sort=False, observed=True)[value]
    out = g.agg(["mean", "std", "count"]).reset_index().rename(columns={"count": "n"})
    out["se"] = out["std"] / np.sqrt(out["n"].clip(lower=1))
    out["ci_low"] = out["mean"] - Z95 * out["se"]
    out["ci_high"] = out["mean"] + Z95 * out["se"]
    return out.drop(columns=["std"])


def scenario_row(scen) -> dict:
    return {
        "game": scen.game,
        "name": scen.name,
        "rules_version": scen.rules_version,
        "content_hash": scen.content_hash,
        "path": str(scen.path),
    }


def seat_advantage(
    ctx,
    sec: Section,
    df: pd.DataFrame,
    success: str,
    *,
    stem: str,
    n_players: int,
    n_games: int,
    title: str,
    caption: str,
    table_title: str,
    players: str,
) -> None:
    """Win rate by seat (numbered from 1 in turn order) against the fair share: figure and table
    (``conclusive``: the interval excludes the fair share)."""
    from reports import figures

    seats = rate_table(df, ["seat"], success)
    seats["seat"] = seats["seat"].astype(int)
    seats = seats.rename(columns={"seat": "seat_in_turn_order"})
    seats["conclusive"] = conclusive(seats, 1 / n_players)
    ctx.figure(
        sec,
        stem,
        figures.rates_with_intervals(
            seats,
            label="seat_in_turn_order",
            title=title,
            xlabel="games won",
            reference=1 / n_players,
            reference_label=f"fair share (1 in {n_players})",
        ),
        caption=caption,
        csv=stem,
        n=f"{n_games:,} games",
        n_value=n_games,
        players=players,
    )
    sec.table(stem, seats, table_title, key=("seat_in_turn_order",))


# --------------------------------------------------------------------------------------------
# Conclusiveness, strategy descriptions, players in words, claims


def conclusive(df: pd.DataFrame, null: float, low: str = "ci_low", high: str = "ci_high"):
    """Whether each row's 95% interval excludes ``null`` (the "no effect" value)."""
    return (df[low] > null) | (df[high] < null)


def describe_strategies(sec: Section, scen, names, what: str = "Strategies") -> None:
    """The scenario's ``[strategies.NAME]`` descriptions beside the names a figure shows."""
    decls = scen.rules.strategies
    items = []
    for name in dict.fromkeys(names):
        decl = decls.get(name)
        if decl is None:
            continue
        text = decl.description or "(no description in the scenario)"
        kind = f"kind {decl.kind}" + (", tuned" if getattr(decl, "tuned", None) is not None else "")
        items.append((name, f"{text} ({kind})"))
    sec.definitions(f"{what} (from the scenario's `[strategies.*]` tables):", items)


def is_random(scen, name: str) -> bool:
    """Whether strategy ``name`` is of the random kind (a reference baseline: its losing is not a
    verdict on the game, so it makes no finding)."""
    from scenarios.strategies import kind_chain

    decl = scen.rules.strategies.get(name)
    if decl is None:
        return False
    kinds = getattr(scen.rules, "kinds", None)
    if kinds and decl.kind in kinds:
        return kind_chain(kinds, decl.kind)[-1] == "random"
    return decl.kind == "random"


def description_column(scen, names) -> list[str]:
    decls = scen.rules.strategies
    return [(decls[n].description if n in decls else "") for n in names]


def players_words(mix, *, rotated: bool = True) -> str:
    names = list(dict.fromkeys(mix))
    seats = " (seats rotated)" if rotated else ""
    return f"hand-written strategies {', '.join(names)}{seats}"


def claim(
    df: pd.DataFrame,
    stem: str,
    key: dict,
    value: str,
    *,
    game: str,
    claim_key: str,
    sentence: str,
    null: float,
    null_words: str,
    players: str,
    n: int,
    anchor: str,
    unit: str,
    low: str = "ci_low",
    high: str = "ci_high",
    scale: float = 100.0,
    unit_short: str = "%",
    decimals: int = 1,
    strong=None,
    corrected: bool | None = None,
    correction: str = "",
):
    """A :class:`reports.findings.Claim` whose baseline is the row ``key`` of table ``stem``;
    ``strong`` is ``(Measure, anchor)`` under an equilibrium population, or None."""
    from reports.findings import Claim, Measure

    m = Measure.from_row(df, stem, key, value, players=players, low=low, high=high)
    return Claim(
        key=claim_key,
        game=game,
        sentence=sentence,
        unit=unit,
        null=null,
        null_words=null_words,
        baseline=m,
        anchor=anchor,
        n=n,
        scale=scale,
        unit_short=unit_short,
        decimals=decimals,
        strong=None if strong is None else strong[0],
        strong_anchor=None if strong is None else strong[1],
        corrected=corrected,
        correction=correction,
    )


# --------------------------------------------------------------------------------------------
# Balance under strong play (the game's saved equilibrium populations)


def strong_play(
    ctx, sec: Section, api, scen, seed: int, *, game: str, n: int, mix, stem_prefix: str
) -> dict[str, tuple]:
    """The "Balance under strong play" part of a game section.

    For each usable population file of ``scenarios/<game>/populations/``: its weights, the seat
    advantage with every seat drawn from it, and each strategy's gain against it (members and
    the hand-written ``mix``), whose largest is the exploitability by these strategies. Says
    plainly when the game has no population (or cannot play one). Returns the strong-play
    measures by claim key (``GAME/first-seat/Pp``, ``GAME/strategy/Pp/NAME``: P the
    population's player count, so a claim meets only a measurement at its own table size) with
    their anchors, from the first usable file (by name) of each table size.
    """
    from reports import strong_play as sp
    from reports.findings import Measure

    anchor = f"{game}-strong"
    sec.heading("Balance under strong play", anchor=anchor)
    missing = sp.speaks_protocol(api)
    folder = f"scenarios/{game}/populations/"
    if missing:
        line = (
            f"not measured: this game's api does not speak the game protocol in this build "
            f"(missing {', '.join(missing)}), so no population can be played."
        )
        sec.text(line[0].upper() + line[1:], "note")
        sec.strong_play.append((line, anchor))
        return {}
    found = sp.find_populations(game, scen)
    if not found:
        line = (
            f"no population saved for this game yet (no file in {folder}; "
            f"`broadside metagame --game {game} --population ... --save-population NAME` writes "
            "one): every figure here is under the hand-written players only."
        )
        sec.text(line[0].upper() + line[1:], "note")
        sec.strong_play.append((line, anchor))
        return {}
    weights = sp.weights_table(found)
    sec.table(
        f"{stem_prefix}_populations",
        weights,
        f"Population files in {folder} and their equilibrium weights (or why a file is not used).",
        key=("population", "strategy"),
    )
    usable = [f for f in found if f.population is not None]
    for f in found:
        if f.population is None:
            sec.text(f"{f.path.name}: not used: {f.problem}", "note")
    if not usable:
        line = (
            f"no usable population ({len(found)} file(s) in {folder}, none measured on this "
            "scenario): every figure here is under the hand-written players only."
        )
        sec.strong_play.append((line, anchor))
        return {}
    seat_rows, gain_rows = [], []
    out: dict[str, tuple] = {}
    sizes: set[int] = set()  # table sizes already feeding the claims
    for f in usable:
        pop = f.population
        words = f"equilibrium population {f.name} ({sp.mixture_words(pop)})"
        seats = sp.play_under(
            api,
            pop,
            n=n,
            seed=sp.section_seed(seed, game, f.name, "seats"),
            jobs=ctx.jobs,
            engine=ctx.engine_for(api),
        )
        games = int(seats["game"].nunique())
        st = rate_table(seats, ["seat"], "score")
        st.insert(0, "population", f.name)
        st["seat"] = st["seat"].astype(int)
        st = st.rename(columns={"seat": "seat_in_turn_order"})
        st["players"] = pop.players
        st["conclusive"] = conclusive(st, 1 / pop.players)
        seat_rows.append(st)
        challengers = list(dict.fromkeys([*pop.names, *mix]))
        challengers = [c for c in challengers if c in pop.scenario.rules.strategies]
        g = sp.gains_against(
            api,
            pop,
            challengers,
            n=n,
            seed=sp.section_seed(seed, game, f.name, "gains"),
            jobs=ctx.jobs,
            engine=ctx.engine_for(api),
        )
        g.insert(0, "population", f.name)
        g["score_ci_low"] = g["ci_low"] + 1 / pop.players
        g["score_ci_high"] = g["ci_high"] + 1 / pop.players
        gain_rows.append(g)
        ex = g.iloc[-1]
        line = (
            f"population {f.name} ({pop.players} players, Nash gap {pop.file.nash_gap:.0e}: "
            f"{sp.mixture_words(pop)}); exploitability by the {len(challengers)} strategies "
            f"tried {ex['gain']:+.3f} [{ex['ci_low']:+.3f}, {ex['ci_high']:+.3f}] in score "
            f"(best: {ex['best_of']}; a lower bound: only a search finds the best response); "
            f"first seat wins {st['win_rate'].iloc[0]:.1%} [{st['ci_low'].iloc[0]:.1%}, "
            f"{st['ci_high'].iloc[0]:.1%}] of {games:,} games under it."
        )
        sec.text(line[0].upper() + line[1:])
        sec.strong_play.append((line, anchor))
        if pop.players not in sizes:  # the first file (by name) of each table size
            sizes.add(pop.players)
            stem_s, stem_g = f"{stem_prefix}_strong_seats", f"{stem_prefix}_strong_gains"
            out[f"{game}/first-seat/{pop.players}p"] = (
                Measure.from_row(
                    st,
                    stem_s,
                    {"population": f.name, "seat_in_turn_order": 1},
                    "win_rate",
                    players=words,
                ),
                f"tbl-{stem_s}",
            )
            weights = dict(zip(pop.names, pop.weights))
            for name in challengers:
                if weights.get(name, 0.0) >= 1.0:  # the field itself: 1/P by symmetry, unmeasured
                    continue
                out[f"{game}/strategy/{pop.players}p/{name}"] = (
                    Measure.from_row(
                        g,
                        stem_g,
                        {"population": f.name, "strategy": name},
                        "score",
                        players=f"{name} against {words}",
                        low="score_ci_low",
                        high="score_ci_high",
                    ),
                    f"tbl-{stem_g}",
                )
    seats_all = pd.concat(seat_rows, ignore_index=True)
    gains_all = pd.concat(gain_rows, ignore_index=True)
    sec.table(
        f"{stem_prefix}_strong_seats",
        seats_all,
        "Win share by seat with every seat drawn from the equilibrium population (seats rotated "
        "inside each slice of games); conclusive: the interval excludes the fair share.",
        key=("population", "seat_in_turn_order"),
        columns=[
            "population",
            "seat_in_turn_order",
            "n",
            "win_rate",
            "ci_low",
            "ci_high",
            "conclusive",
        ],
    )
    sec.table(
        f"{stem_prefix}_strong_gains",
        gains_all,
        "Each strategy's score against the equilibrium population (one seat, the others drawn "
        "from the equilibrium) minus the fair share: about 0 inside the support; the last row is "
        "the largest gain with a Bonferroni interval (the exploitability by these strategies).",
        key=("population", "strategy"),
        columns=[
            "population",
            "strategy",
            "in_population",
            "weight",
            "games",
            "score",
            "gain",
            "ci_low",
            "ci_high",
            "conclusive",
        ],
    )
    return out
