"""``broadside tune``, ``broadside metagame`` and ``broadside balance``: the strategy search, the
meta-game and the balance search commands.

No search logic here (see :mod:`simulator.search`, :mod:`simulator.metagame` and
:mod:`simulator.balance`): options are
parsed, the game module is looked up (it must speak :mod:`simulator.protocol`), results printed
and written. Both commands run through the runner, so ``--jobs``, ``--backend dask``,
``--out``/``--resume`` and the progress bar work as for every other run.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import click
import pandas as pd

from scenarios.strategies import strategy_hash
from simulator.clitools import (
    EXECUTION_PARAMS,
    TRIALS,
    check_engine,
    engine_option,
    format_option,
    note,
    replay_note,
    simulation_options,
)
from simulator.errors import UserError
from simulator.output import dumps, emit, ensure_writable_dir, write_table, write_text
from simulator.protocol import ENGINE_DEFAULT, SCHEMA_VERSION


def game_module(ctx: click.Context, name: str) -> Any:
    """The protocol module of game ``name``.

    The games come from the command line's context (``ctx.obj["game_apis"]``: name -> module, or
    a function returning it so a game is imported only when used): ``cli.py`` registers the real
    ones, tests add synthetic games. This module never imports a game.
    """
    from simulator.search import check_game

    obj = ctx.find_object(dict) or {}
    apis = obj.get("game_apis", {})
    if name not in apis:
        raise UserError(f"--game {name!r} is not a game (allowed: {', '.join(apis)})")
    game = apis[name]
    if callable(game):  # a loader (a module is not callable)
        game = game()
    check_game(game)
    return game


def _names(value: str | None, option: str) -> list[str] | None:
    if value is None:
        return None
    names = [v.strip() for v in value.split(",")]
    if not names or any(not n for n in names):
        raise UserError(f"{option} {value!r}: an empty name (allowed: names separated by commas)")
    return names


def command_line(ctx: click.Context, seed: int) -> str:
    """The command as a replay recipe: every option given that decides the numbers, and the root
    seed (not --jobs, --backend, --out and the like, which change where and how fast only)."""
    parts = ["broadside", ctx.command.name or ""]
    skip = (EXECUTION_PARAMS - {"seed"}) | {"out"}
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name in skip:
            continue
        value = ctx.params.get(param.name)
        if param.name == "seed":
            value = seed
        source = ctx.get_parameter_source(param.name) if param.name in ctx.params else None
        if value is None or (param.name != "seed" and source == click.core.ParameterSource.DEFAULT):
            continue
        opt = max(param.opts, key=len)
        if param.is_flag:
            if value:
                parts.append(opt)
            continue
        for item in value if param.multiple else (value,):  # a repeated option, each time
            parts += [opt, str(item)]
    return shlex.join(parts)


def default_overlay_dir(scenario: Any) -> Path:
    """Where an overlay goes without --out: beside a scenario file of the user's, or the
    current folder for a built-in scenario (the overlay extends it by name)."""
    from scenarios.loader import SCENARIO_ROOT

    base = Path(scenario.path).resolve()
    if base.is_relative_to(SCENARIO_ROOT.resolve()):
        return Path.cwd()
    return base.parent


def _hashes(known: Any, names: list[str], extra: dict[str, Any]) -> dict[str, str]:
    """Each member's parameter hash (``strategy_hash``): what exactly was played."""
    return {n: strategy_hash(extra[n] if n in extra else known[n]) for n in names}


def _load(game: Any, scenario: str | None) -> Any:
    return game.load(scenario)


def _progress(quiet: bool):
    from simulator.search import progress_bar

    return progress_bar(quiet, 0)


@click.command("tune")
@click.option("--game", required=True, metavar="G", help="cove, express or hunt.")
@click.option(
    "--strategy", "kind", required=True, metavar="KIND", help="The kind whose parameters to tune."
)
@click.option(
    "--field",
    "field_",
    default=None,
    metavar="a,b,...",
    help="Opponents: exactly players-1 names fill the other seats; otherwise each slice of games "
    "draws them from these names. Default: the game's default mix.",
)
@click.option("--players", type=click.IntRange(2, 64), default=None, help="Players per table.")
@click.option("--scenario", default=None, metavar="S", help="Scenario file or built-in name.")
@click.option("--budget", type=TRIALS, required=True, help="Games the search may play.")
@click.option(
    "--validation-games",
    type=TRIALS,
    default=None,
    help="Fresh games validating the winner and the defaults (default: a quarter of the budget).",
)
@click.option("--name", default=None, help="Name of the tuned strategy (default: KIND_tuned).")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for the overlay NAME.toml, history.csv/.parquet and chunks (resumable). "
    "Without it the overlay goes beside the scenario file (the current folder for a built-in).",
)
@engine_option
@format_option
@simulation_options
def tune(
    game,
    kind,
    field_,
    players,
    scenario,
    budget,
    validation_games,
    name,
    out,
    engine,
    fmt,
    seed,
    jobs,
    quiet,
):
    """Tune KIND's parameters for the best mean score against the field (strategy search)."""
    from scenarios.overlays import base_reference, overlay_text
    from simulator.search import Field, replace_tuned, resolve_players
    from simulator.search import tune as run_tune

    ctx = click.get_current_context()
    mod = game_module(ctx, game)
    check_engine(mod, engine)
    scen = _load(mod, scenario)
    field_names = _names(field_, "--field")
    n_players = resolve_players(mod, scen, players)
    field_obj = Field.of(field_names, n_players) if field_names else None
    out_dir = Path(out) if out is not None else default_overlay_dir(scen)
    ensure_writable_dir(out_dir)
    name = name or f"{kind}_tuned"
    base_ref = base_reference(scen.path, out_dir, scen.game)
    bar, update = _progress(quiet)
    try:
        result = run_tune(
            mod,
            scen,
            kind,
            budget=budget,
            field=field_obj,
            players=n_players,
            seed=seed,
            jobs=jobs,
            validation_games=validation_games,
            name=name,
            on_progress=update,
            engine=engine,
        )
    finally:
        if bar is not None:
            bar.close()
    cmd = command_line(ctx, result.entropy)
    decl = replace_tuned(result.decl, command=cmd)
    overlay = out_dir / f"{result.name}.toml"
    write_text(
        overlay,
        overlay_text(
            scen,
            base_ref,
            result.name,
            decl,
            header=f"written by: {cmd}\nuse with --scenario {overlay}",
        ),
    )
    summary = {
        **result.summary(),
        "overlay": str(overlay),
        "schema_version": SCHEMA_VERSION,
        "provenance": {
            **scen.provenance(),
            "seed": str(result.entropy),
            "command": cmd,
            "engine": engine or ENGINE_DEFAULT,
            "players": result.players,
            "field": list(result.field.describe()),
            "budget": budget,
            "games_searched": result.games_searched,
            "candidates": int(result.history["trial"].nunique()),
            "optimiser": decl.tuned.optimiser if decl.tuned else "",
            "baseline_ci95": result.validation["baseline_ci95"],
            "search_score": result.validation["search_score"],
            "strategy_hashes": {result.name: strategy_hash(decl)},
        },
    }
    if out is not None:
        write_table(result.history, out_dir, "history", key=("trial", "rung"))
        write_text(out_dir / "summary.json", dumps(summary) + "\n")
    v = result.validation
    rows = [
        {"item": f"param.{k}", "value": val, "ci95_low": None, "ci95_high": None}
        for k, val in result.params.items()
    ]
    for key, ci in (("score", "ci95"), ("baseline_score", "baseline_ci95"), ("gain", "gain_ci95")):
        rows.append(
            {
                "item": f"validation.{key}",
                "value": v[key],
                "ci95_low": v[ci][0],
                "ci95_high": v[ci][1],
            }
        )
    rows.append({"item": "validation.n", "value": v["n"], "ci95_low": None, "ci95_high": None})
    table = pd.DataFrame(rows)
    table["value"] = table["value"].astype(object)
    emit(
        fmt,
        table,
        summary,
        title=f"{result.name}: {kind} tuned against {', '.join(result.field.describe())} "
        f"({result.players} players); overlay {overlay}",
    )
    replay_note(result.entropy, seed is not None, quiet)


@click.command("metagame")
@click.option("--game", required=True, metavar="G", help="cove, express or hunt.")
@click.option(
    "--population", required=True, metavar="a,b,...", help="2 to 8 strategy names of the scenario."
)
@click.option(
    "--players", type=click.IntRange(2, 8), default=None, help="Players per table (2 to 8)."
)
@click.option(
    "-n",
    "games",
    type=TRIALS,
    required=True,
    help=(
        "Games per table of strategies (rounded up to whole seat-rotation slices; the output "
        "says how many)."
    ),
)
@click.option("--scenario", default=None, metavar="S", help="Scenario file or built-in name.")
@click.option(
    "--solver",
    type=click.Choice(["nash", "alpha-rank"]),
    default="nash",
    show_default=True,
    help="nash: the symmetric equilibrium, checked by its Nash gap; alpha-rank: a ranking "
    "(never an equilibrium: not saved, no best responses).",
)
@click.option(
    "--iterate",
    type=click.IntRange(0, 6),
    default=0,
    show_default=True,
    help="Grow the population by up to K best responses (tuned against the equilibrium); one "
    "joins only when its gain is above 0 with 95 % confidence, else the iteration stops.",
)
@click.option(
    "--tune-kind",
    default=None,
    metavar="KIND,...",
    help="Kinds tuned for a best response (default: the population's kinds).",
)
@click.option(
    "--tune-budget",
    type=TRIALS,
    default=20_000,
    show_default=True,
    help="Search games per kind and best response.",
)
@click.option(
    "--epsilon",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Also stop iterating when the best response's gain is below this (95 % upper bound). "
    "Default: stop only when its gain is not above 0 with 95 % confidence.",
)
@click.option(
    "--save-population",
    default=None,
    metavar="NAME|PATH.toml",
    help="Save the population and its equilibrium (a bare NAME goes to "
    "scenarios/<game>/populations/NAME.toml; --solver nash only).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for payoffs, strategies, exploitability (CSV + Parquet), population.toml, "
    "summary.json and chunks (resumable).",
)
@engine_option
@format_option
@simulation_options
def metagame(
    game,
    population,
    players,
    games,
    scenario,
    solver,
    iterate,
    tune_kind,
    tune_budget,
    epsilon,
    save_population,
    out,
    engine,
    fmt,
    seed,
    jobs,
    quiet,
):
    """Payoff table, symmetric equilibrium and regrets of a population of strategies."""
    from scenarios.populations import population_path, population_text
    from simulator.metagame import SUPPORT_TOL, NoEquilibriumFound, exploitability_figure
    from simulator.metagame import metagame as run_metagame

    ctx = click.get_current_context()
    mod = game_module(ctx, game)
    check_engine(mod, engine)
    scen = _load(mod, scenario)
    names = _names(population, "--population")
    kinds = _names(tune_kind, "--tune-kind") or ()
    if save_population and solver != "nash":
        raise UserError(
            f"--save-population with --solver {solver}: a ranking is never saved as an "
            "equilibrium (allowed: --solver nash)"
        )
    if out is not None:
        ensure_writable_dir(out)
    save_path = population_path(save_population, scen.game) if save_population else None
    if save_path is not None:
        if save_path.suffix != ".toml":
            raise UserError(
                f"--save-population {save_population}: not a .toml file (allowed: NAME or "
                "PATH.toml)"
            )
        ensure_writable_dir(save_path.parent)
    if games < 1:
        raise UserError("-n 0: no games per table (allowed: at least 1)")
    try:
        result = run_metagame(
            mod,
            scen,
            names,
            games=games,
            players=players,
            seed=seed,
            jobs=jobs,
            solver=solver,
            iterate=iterate,
            tune_kinds=kinds,
            tune_budget=tune_budget,
            epsilon=epsilon,
            on_note=lambda m: note(m, quiet),
            engine=engine,
        )
    except NoEquilibriumFound as exc:
        raise click.ClickException(str(exc)) from None
    cmd = command_line(ctx, result.entropy)
    table = result.table
    pop = list(table.population)
    summary = result.summary()
    provenance = {
        **scen.provenance(),
        "seed": str(result.entropy),
        "command": cmd,
        "engine": engine or ENGINE_DEFAULT,
        "players": table.players,
        "games_per_table": table.games_per_table,
        "multisets": {
            "used": len(table.opponents),
            "total": table.total_multisets,
            "sampled": table.sampled,
        },
        "strategy_hashes": _hashes(mod.strategies(scen), pop, result.extra),
    }
    title_tail = f"{table.players} players, {table.games_per_table} games per table"
    if result.eq is None:  # a ranking: printed as one, never saved
        summary.update({"schema_version": SCHEMA_VERSION, "provenance": provenance})
        rows = pd.DataFrame(summary["ranking"])
        if out is not None:
            out_dir = Path(out)
            write_table(table.matrix(), out_dir, "payoffs", key=("strategy", "opponents"))
            write_table(rows, out_dir, "ranking", key=("strategy",))
            write_text(out_dir / "summary.json", dumps(summary) + "\n")
        emit(fmt, rows, summary, title=f"{result.verdict} ({title_tail})")
        replay_note(result.entropy, seed is not None, quiet)
        return
    eq = result.eq
    provenance.update(
        {
            "solver_starts": eq.starts,
            "supports": eq.supports,
            "duplicates": eq.duplicates,
        }
    )
    summary.update({"schema_version": SCHEMA_VERSION, "provenance": provenance})
    if iterate:
        summary["iterations"] = result.iterations
    text = population_text(
        scenario=scen,
        players=table.players,
        population=pop,
        equilibrium=dict(zip(pop, eq.sigma)),
        nash_gap=eq.nash_gap,
        nash_gap_ci95=result.gap_ci,
        games_per_table=table.games_per_table,
        command=cmd,
        verdict=result.verdict,
        extra=result.extra,
    )
    strat_rows = pd.DataFrame(
        {
            "strategy": pop,
            "weight": eq.sigma,
            "regret": result.regret,
            "regret_ci95_low": [result.regret_ci[n][0] for n in pop],
            "regret_ci95_high": [result.regret_ci[n][1] for n in pop],
        }
    )
    iters = pd.DataFrame(
        [
            {
                "iteration": r["iteration"],
                "population_size": len(r["population"]),
                "best_response": r["best_response"],
                "exploitability_lower_bound": r["exploitability_lower_bound"],
                "ci95_low": r["exploitability_lower_bound_ci95"][0],
                "ci95_high": r["exploitability_lower_bound_ci95"][1],
                "gain_se": r["gain_se"],
                "joined": r["joined"],
                "exploitability": r["exploitability"],
                "equilibrium": json.dumps(r["equilibrium"], sort_keys=True),
            }
            for r in result.iterations
        ]
    )
    if out is not None:
        out_dir = Path(out)
        write_table(table.matrix(), out_dir, "payoffs", key=("strategy", "opponents"))
        write_table(strat_rows, out_dir, "strategies", key=("strategy",))
        if iterate:
            write_table(iters, out_dir, "exploitability", key=("iteration",))
        write_text(out_dir / "population.toml", text)
        write_text(out_dir / "summary.json", dumps(summary) + "\n")
    if save_path is not None:
        write_text(save_path, text)
        note(f"population saved to {save_path}", quiet)
    gap = summary["nash_gap"]
    gap_words = f"Nash gap {gap['value']:.1e}" + (
        f", bootstrap 95 % [{gap['ci95'][0]:.4f}, {gap['ci95'][1]:.4f}]" if gap["ci95"] else ""
    )
    title = f"{result.verdict} (symmetric Nash equilibrium, {gap_words}; {title_tail})"
    if fmt == "table":
        if table.players == 2:
            mat = table.matrix().pivot(index="strategy", columns="opponents", values="score")
            mat = mat.loc[pop, pop].reset_index()
            emit("table", mat, None, title="payoffs (row's score against the column)")
        if len(eq.equilibria) > 1:
            found = pd.DataFrame(
                [
                    {
                        "equilibrium": i + 1,
                        "weights": ", ".join(
                            f"{n} {w:.3f}" for n, w in zip(pop, p.sigma) if w >= SUPPORT_TOL
                        ),
                        "reached": p.reached,
                        "nash_gap": p.nash_gap,
                        "stable": p.stable,
                    }
                    for i, p in enumerate(eq.equilibria)
                ]
            )
            emit(
                "table",
                found,
                None,
                title=f"equilibria found (reached: of {eq.starts} solver starts; the first is "
                "reported: the most mixed of the stable ones, or of all if none is stable)",
            )
        if iterate:
            emit(
                "table",
                iters.drop(columns=["equilibrium", "exploitability"]),
                None,
                title=exploitability_figure(result.iterations[0]["searched_kinds"], tune_budget),
            )
    emit(fmt, strat_rows, summary, title=title)
    replay_note(result.entropy, seed is not None, quiet)


@click.command("balance")
@click.option("--game", required=True, metavar="G", help="cove, express or hunt.")
@click.option("--players", type=click.IntRange(2, 8), default=None, help="Players per table.")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="KEY[=LO..HI]",
    help="A searchable number to change (repeatable), its range narrowed inside the declared "
    "one; default: every number the game declares (scenarios/<game>/balance/searchable.toml).",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    required=True,
    metavar="T",
    help="seat-advantage[=X], strategy-spread[=X], nation-spread[=X], pirate-engagement=X, "
    "game-length=LO..HI, closeness[=X] (repeatable: several give a Pareto set).",
)
@click.option("--budget", type=TRIALS, required=True, help="Games the search may play.")
@click.option(
    "--population",
    default=None,
    metavar="NAME|PATH.toml",
    help="Seats drawn from a saved population's equilibrium (default: the game's default mix).",
)
@click.option(
    "--resolve",
    is_flag=True,
    help="Solve the population's equilibrium again under each kept candidate's rules.",
)
@click.option("--scenario", default=None, metavar="S", help="Scenario file or built-in name.")
@click.option(
    "--validation-games",
    type=TRIALS,
    default=None,
    help="Fresh games validating each kept candidate (default: a quarter of the budget).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for the overlays, summary.json, history and before_after (CSV + Parquet), the "
    "figure and chunks (resumable). Without it the overlays go beside the scenario file (the "
    "current folder for a built-in).",
)
@engine_option
@format_option
@simulation_options
def balance(
    game,
    players,
    params,
    targets,
    budget,
    population,
    resolve,
    scenario,
    validation_games,
    out,
    engine,
    fmt,
    seed,
    jobs,
    quiet,
):
    """Search the game's own numbers for a balanced game (house-rule overlays, validated)."""
    from scenarios.loader import ScenarioError
    from scenarios.overlays import base_reference
    from scenarios.populations import load_population
    from simulator.balance import balance as run_balance
    from simulator.balance import parse_target, write_run

    ctx = click.get_current_context()
    mod = game_module(ctx, game)
    check_engine(mod, engine)
    scen = _load(mod, scenario)  # the rules the overlays extend
    parsed = [parse_target(t) for t in targets]
    pop = load_population(population, scen) if population is not None else None
    out_dir = Path(out) if out is not None else default_overlay_dir(scen)
    ensure_writable_dir(out_dir)
    try:  # the overlays must reach their base from out_dir: refused before any game
        base_reference(scen.path, out_dir, scen.game)
    except ScenarioError as exc:
        raise UserError(str(exc)) from None
    bar, update = _progress(quiet)
    try:
        result = run_balance(
            mod,
            pop.scenario if pop is not None else scen,  # with the population's own members
            targets=parsed,
            budget=budget,
            params=list(params),
            players=players,
            population=pop,
            population_name=population,
            resolve=resolve,
            seed=seed,
            jobs=jobs,
            validation_games=validation_games,
            engine=engine,
            on_progress=update,
            on_note=lambda m: note(m, quiet),
        )
    finally:
        if bar is not None:
            bar.close()
    figure = (ctx.find_object(dict) or {}).get("balance_figure")
    summary = write_run(
        result,
        scen,
        out_dir,
        command=command_line(ctx, result.entropy),
        stem="candidate" if out is not None else f"balance-{scen.game}",
        tables=out is not None,
        figure=figure,
    )
    rows = result.candidate_rows()
    if not rows:
        rows = [
            {"candidate": None, "target": name, "base": b["value"], "value": None}
            for name, b in result.base.items()
        ]
    g = result.games
    title = (
        f"balance {scen.game} ({result.players} players, "
        f"{'population ' + population if population else 'default mix'}): "
        f"{len(result.candidates)} candidate(s); games: search {g['search']:,}, resolve "
        f"{g['resolve']:,}, validation {g['validation']:,}"
    )
    if result.note:
        title += f"; {result.note}"
    emit(fmt, pd.DataFrame(rows), summary, title=title)
    replay_note(result.entropy, seed is not None, quiet)
