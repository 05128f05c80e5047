"""``broadside express ...``: fleets, battles, the nation matrix and the crew-value study.

Only option parsing and output here; the work is in :mod:`simulator.express.api`.
"""

from __future__ import annotations

import click
import pandas as pd

from simulator.clitools import (
    format_option,
    jobs_option,
    note,
    quiet_option,
    replay_note,
    seed_option,
)
from simulator.express import api
from simulator.express.rules import COMMANDER_NAMES, SCENARIO_NAMES
from simulator.output import dumps, emit, ensure_writable_dir, write_table, write_text
from simulator.stats import wilson_interval

scenario_file_option = click.option(
    "--scenario",
    "scenario",
    type=click.Path(dir_okay=False),
    default=None,
    help="Scenario TOML (default: scenarios/express/standard.toml; a built-in name also works).",
)
scenario_name_option = click.option(
    "--scenario-name",
    type=click.Choice(SCENARIO_NAMES),
    default=None,
    help="Which scenario to play (default: the scenario file's `scenario`, i.e. pitched).",
)
commanders_option = click.option(
    "--commanders",
    default=None,
    metavar="A[,B]",
    help="Commanders (strategies of the scenario, [strategies.*]) of fleet A and B (one name: "
    f"both); the standard ones: admiral, patient, {', '.join(COMMANDER_NAMES[:-1])}. "
    "Default: the scenario's default_mix.",
)
n_option = click.option(
    "-n",
    "n",
    type=click.IntRange(1, 10**8),
    default=1000,
    show_default=True,
    help="Battles (per pairing).",
)
out_option = click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write the results (CSV + Parquet + JSON) into this folder.",
)


def _write(out, stem: str, df: pd.DataFrame, obj: dict, quiet: bool, key: tuple[str, ...]) -> None:
    if out is None:
        return
    prov = obj.get("provenance", {})
    df = df.copy()
    for k, v in prov.items():
        df[k] = v
    paths = write_table(df, out, stem, key=key)
    paths.append(write_text(f"{out}/{stem}.json", dumps(obj) + "\n"))
    note("wrote " + ", ".join(str(p) for p in paths), quiet)


def battle_run_options(f):
    """The options every battle-running command shares (commanders, scenario, n, seed, jobs...)."""
    for option in reversed(
        (
            commanders_option,
            scenario_name_option,
            scenario_file_option,
            n_option,
            seed_option,
            jobs_option,
            quiet_option,
            out_option,
            format_option,
        )
    ):
        f = option(f)
    return f


@click.group()
def express():
    """Pirates express: fleets, battles, nation matrix, crew value."""


@express.command()
@click.option("--nation", required=True, help="Nation whose legal fleets are listed.")
@click.option("--full-only", is_flag=True, help="Only fleets using every mast and every crew slot.")
@click.option("--oars", is_flag=True, help="Also place oars (many more fleets).")
@click.option(
    "--limit",
    type=click.IntRange(0, None),
    default=50,
    show_default=True,
    help="Rows shown (0: all); the count is always of every fleet.",
)
@scenario_file_option
@out_option
@quiet_option
@format_option
def fleets(nation, full_only, oars, limit, scenario, out, quiet, fmt):
    """Enumerate every legal fleet of a nation (ship sizes and crew placement)."""
    if out:
        ensure_writable_dir(out)
    sc = api.load(scenario)
    nation = nation.lower()
    api._check_nation(sc.rules, nation)
    df = api.fleets_frame(sc.rules, nation, full_only=full_only, oars=oars)
    by_masts = df.groupby("masts", sort=False).size()
    obj = {
        "nation": nation,
        "count": len(df),
        "mast_lists": len(by_masts),
        "full_only": full_only,
        "oars": oars,
        "fleets": df["fleet"].tolist() if not limit else df["fleet"].head(limit).tolist(),
        "provenance": sc.provenance(),
    }
    shown = df if not limit else df.head(limit)
    emit(
        fmt,
        shown,
        obj,
        title=f"{nation}: {len(df)} legal fleets over {len(by_masts)} ship-size lists"
        + (f" (first {len(shown)} shown; --limit 0 for all)" if len(shown) < len(df) else ""),
    )
    _write(out, f"fleets-{nation}", df, obj, quiet, key=("fleet",))


@express.command(name="battle")
@click.option(
    "--fleet", "fleet", required=True, help="Fleet A, e.g. 'spain:5,3,2,1,1 captain@0 gunner@1'."
)
@click.option("--vs", "vs", required=True, help="Fleet B, same syntax.")
@battle_run_options
def battle_cmd(fleet, vs, commanders, scenario_name, scenario, n, seed, jobs, quiet, out, fmt):
    """Play N battles of fleet A against fleet B; win / loss / draw (A's view) and mean VP.

    The scenario's sides and objectives are counted too (convoy: the defender's and the
    attacker's wins and the games with a convoy exit; treasure: the token held at the end and
    brought home). An outcome that never happened in the run is named in one warning line on
    stderr and in the JSON's ``never_happened``."""
    if out:
        ensure_writable_dir(out)
    df, s = api.battle_stats(
        fleet,
        vs,
        n=n,
        commanders=commanders,
        scenario=scenario,
        scenario_name=scenario_name,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    warning = api.never_happened_warning(s["never_happened"], n)
    if warning:
        click.echo(warning, err=True)  # even with --quiet: it qualifies every number of the run
    rows = []
    for key in ("win", "loss", "draw"):
        rows.append(
            {
                "outcome": f"A {key}",
                "count": s[key]["count"],
                "p": s[key]["p"],
                "ci95_low": s[key]["ci95"][0],
                "ci95_high": s[key]["ci95"][1],
            }
        )
    for key, k in s["outcomes"].items():
        if key in ("a_win", "b_win", "draw"):
            continue  # the rows above
        lo, hi = wilson_interval(k, n)
        rows.append(
            {
                "outcome": key.replace("_", " "),
                "count": k,
                "p": k / n,
                "ci95_low": lo,
                "ci95_high": hi,
            }
        )
    for side in ("a", "b"):
        m = s["mean_vp"][side]
        rows.append(
            {
                "outcome": f"mean VP {side.upper()}",
                "count": None,
                "p": m["mean"],
                "ci95_low": m["ci95"][0],
                "ci95_high": m["ci95"][1],
            }
        )
    table = pd.DataFrame(rows)
    table["count"] = table["count"].astype("Int64")
    title = (
        f"{s['fleet_a']} ({s['commanders'][0]}) vs {s['fleet_b']} ({s['commanders'][1]}), "
        f"{s['provenance']['scenario_name']}, n={n}"
    )
    emit(fmt, table, s, title=title)
    _write(out, "express-battles", df, s, quiet, key=("battle",))


def _cell(p, lo, hi):
    return f"{p:.3f} [{lo:.3f},{hi:.3f}]"


@express.command()
@click.option(
    "--fleets",
    "fleet_mode",
    type=click.Choice(["mirrored", "best"]),
    default="mirrored",
    show_default=True,
    help="mirrored: every nation fields the study fleet; best: a fleet "
    "found by successive halving for each nation first.",
)
@click.option(
    "--candidates",
    type=click.IntRange(2, 4096),
    default=None,
    help="best: race only the study fleet and a seeded sample of this many fleets per nation "
    "(default: every legal full fleet).",
)
@click.option(
    "--search-n",
    "search_n0",
    type=click.IntRange(1, 10**6),
    default=28,
    show_default=True,
    help="best: games per candidate in the first rung of the race (rounded up to whole rounds of "
    "the field in both seats; doubles each rung).",
)
@click.option(
    "--measure",
    type=click.Choice(["win", "score"]),
    default="win",
    show_default=True,
    help="table: show the win rate, or the score share (win + draw/2).",
)
@battle_run_options
def matrix(
    fleet_mode,
    candidates,
    search_n0,
    measure,
    commanders,
    scenario_name,
    scenario,
    n,
    seed,
    jobs,
    quiet,
    out,
    fmt,
):
    """The 7x7 nation matrix: row nation (seat A) win rate against the column nation, with
    intervals."""
    if out:
        ensure_writable_dir(out)
    df, s = api.nation_matrix(
        n=n,
        fleets=fleet_mode,
        commanders=commanders,
        scenario=scenario,
        scenario_name=scenario_name,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
        search_candidates=candidates,
        search_n0=search_n0,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    if fmt == "table":
        wide = pd.DataFrame(
            [
                [
                    _cell(r[measure], r[f"{measure}_lo"], r[f"{measure}_hi"])
                    for _, r in df[df["nation"] == a].iterrows()
                ]
                for a in s["nations"]
            ],
            columns=s["nations"],
        )
        wide.insert(0, "A \\ B", s["nations"])
        what = "win rate, Wilson 95 %" if measure == "win" else "score share (win + draw/2), 95 %"
        emit(
            fmt,
            wide,
            s,
            title=f"{what}, row nation (seat A) vs column nation, "
            f"n={n} per cell, fleets={fleet_mode}, commanders={','.join(s['commanders'])}",
        )
        for nat in s["nations"]:
            note(f"  {nat}: {s['fleets'][nat]}", quiet)
    else:
        emit(fmt, df, s)
    _write(out, f"express-matrix-{fleet_mode}", df, s, quiet, key=("nation", "vs"))


@express.command(name="crew-value")
@battle_run_options
def crew_value_cmd(commanders, scenario_name, scenario, n, seed, jobs, quiet, out, fmt):
    """VP and win-rate gain of each crew role and nation power over a no-power baseline."""
    if out:
        ensure_writable_dir(out)
    df, s = api.crew_value(
        n=n,
        commanders=commanders,
        scenario=scenario,
        scenario_name=scenario_name,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    cols = [
        "kind",
        "name",
        "n",
        "win",
        "loss",
        "draw",
        "score_gain",
        "score_gain_lo",
        "score_gain_hi",
        "vp_gain",
        "vp_gain_lo",
        "vp_gain_hi",
        "fleet",
    ]
    emit(
        fmt,
        df[cols] if fmt == "table" else df,
        s,
        title=f"gain over the no-power baseline ({s['baseline_nation']}), score = win + draw/2, "
        f"n={n} per row, commanders={','.join(s['commanders'])}",
    )
    _write(out, "express-crew-value", df, s, quiet, key=("kind", "name"))


def _searches_table(s: dict) -> pd.DataFrame:
    rows = []
    for nat in s["nations"]:
        x = s["searches"][nat]
        v = x["validation"]
        rows.append(
            {
                "nation": nat,
                "fleet": x["fleet"],
                "score": v["score"]["mean"],
                "score_lo": v["score"]["ci95"][0],
                "score_hi": v["score"]["ci95"][1],
                "study_fleet": x["study_fleet"],
                "study_score": v["study_score"]["mean"],
                "gain": v["gain_over_study"]["mean"],
                "gain_lo": v["gain_over_study"]["ci95"][0],
                "gain_hi": v["gain_over_study"]["ci95"][1],
                "pool": x["pool"],
                "candidates": x["candidates"],
                "rungs": len(x["rungs"]),
                "race_battles": x["race_battles"],
                "race_cpu_s": x["race_cpu_s"],
                "validation_n": v["n"],
            }
        )
    return pd.DataFrame(rows)


@express.command(name="best-fleet")
@click.option(
    "--nation",
    "nations",
    multiple=True,
    help="Nation to search (repeat for several; default: every nation of the matrix).",
)
@click.option(
    "--candidates",
    type=click.IntRange(1, 100_000),
    default=None,
    help="Race only the study fleet and a seeded sample of this many fleets (default: every "
    "legal full fleet).",
)
@click.option(
    "--search-n",
    "search_n0",
    type=click.IntRange(1, 10**6),
    default=28,
    show_default=True,
    help="Games per candidate in the first rung (rounded up to whole rounds of the field in both "
    "seats).",
)
@click.option(
    "--eta",
    type=click.IntRange(2, 16),
    default=2,
    show_default=True,
    help="Each rung keeps 1/eta of the candidates and multiplies their games by eta.",
)
@click.option(
    "--validate-n",
    type=click.IntRange(1, 10**7),
    default=1400,
    show_default=True,
    help="Fresh games that score the winner and the study fleet (seeds the race never used).",
)
@battle_run_options
def best_fleet_cmd(
    nations,
    candidates,
    search_n0,
    eta,
    validate_n,
    commanders,
    scenario_name,
    scenario,
    n,
    seed,
    jobs,
    quiet,
    out,
    fmt,
):
    """Each nation's best fleet: a race (successive halving, paired seeds) over every legal full
    fleet against the other nations' study fleets, validated on fresh games. (-n is not used.)"""
    if out:
        ensure_writable_dir(out)
    s = api.best_fleets(
        nations=[x.lower() for x in nations] or None,
        scenario=scenario,
        commanders=commanders,
        scenario_name=scenario_name,
        candidates=candidates,
        n0=search_n0,
        eta=eta,
        validate_n=validate_n,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    df = _searches_table(s)
    emit(
        fmt,
        df,
        s,
        title="best fleet per nation (race over every legal full fleet; score = win + draw/2 "
        "against the study fleets of "
        f"{', '.join(s['field_nations'])} on fresh games, 95 %), "
        f"commanders {','.join(s['commanders'])}",
    )
    if out is not None:
        rungs = pd.DataFrame(
            [{"nation": nat, **r} for nat in s["nations"] for r in s["searches"][nat]["rungs"]]
        )
        _write(out, "express-best-fleet-rungs", rungs, s, True, key=("nation", "rung"))
    _write(out, "express-best-fleets", df, s, quiet, key=("nation",))


@express.command(name="commanders")
@click.option(
    "--commanders",
    "names",
    default="admiral,gunline,boarder",
    show_default=True,
    metavar="A,B,...",
    help="Commanders (strategies of the scenario) that all meet each other.",
)
@click.option(
    "--nation",
    default=None,
    help="Nation of both seats (default: the scenario's studies.mirror_nation).",
)
@click.option(
    "--fleet",
    default=None,
    help="Fleet of both seats (default: the nation's study fleet).",
)
@click.option(
    "--scenario-names",
    default=",".join(SCENARIO_NAMES),
    show_default=True,
    help="Scenarios to play, comma-separated.",
)
@scenario_file_option
@n_option
@seed_option
@jobs_option
@quiet_option
@out_option
@format_option
def commanders_cmd(names, nation, fleet, scenario_names, scenario, n, seed, jobs, quiet, out, fmt):
    """Every commander against every commander in a mirror (same nation and fleet on both sides,
    seats alternated game by game): score share with 95 % intervals, per scenario."""
    if out:
        ensure_writable_dir(out)
    df, s = api.commander_table(
        [x.strip().lower() for x in names.split(",") if x.strip()],
        scenario=scenario,
        nation=nation.lower() if nation else None,
        fleet=fleet,
        scenario_names=[x.strip().lower() for x in scenario_names.split(",") if x.strip()],
        n=n,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
    )
    replay_note(s["seed"], seed is not None, quiet or fmt == "json")
    cols = ["scenario_name", "commander", "vs", "n", "score", "score_lo", "score_hi", "win", "draw"]
    emit(
        fmt,
        df[cols + ["loss", "vp_margin"]] if fmt == "table" else df,
        s,
        title=f"commander (row) vs commander, mirror of {s['fleet']}, score = win + draw/2, "
        f"n={s['n']} per pair and scenario, seats alternated",
    )
    _write(out, "express-commanders", df, s, quiet, key=("scenario_name", "commander", "vs"))
