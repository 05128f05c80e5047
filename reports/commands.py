"""``broadside report`` and ``broadside compare`` (click commands only; no game logic here)."""

from __future__ import annotations

import shlex
import sys

import click
import pandas as pd

from simulator.clitools import (
    check_engine,
    engine_option,
    format_option,
    jobs_option,
    note,
    quiet_option,
    replay_note,
    seed_option,
)
from simulator.output import emit

SIZE_CHOICES = ("quick", "standard", "full")


class _SizeChoice(click.Choice):
    """quick|standard|full; also accepts the hidden ``test`` size used by the test-suite."""

    def convert(self, value, param, ctx):
        if value == "test":
            return value
        return super().convert(value, param, ctx)


@click.command()
@click.option(
    "--game",
    "game",
    type=click.Choice(("cove", "express", "hunt", "all")),
    default="all",
    show_default=True,
    help="Which game sections to include (dice odds and provenance always are).",
)
@click.option(
    "--scenario",
    "scenario_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help=(
        "Scenario file to use instead of a game's default (repeatable; its `game` key says which)."
    ),
)
@click.option(
    "--size",
    type=_SizeChoice(SIZE_CHOICES),
    default="quick",
    show_default=True,
    help="quick: minutes on a laptop; standard and full: real studies.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default="broadside-report",
    show_default=True,
    help="Output folder: index.html, CSV/Parquet tables, PNG/SVG figures.",
)
@click.option(
    "--balance",
    "balance_dirs",
    multiple=True,
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="A balance run (broadside balance --out DIR) whose candidates join its game's "
    "verdicts as remedies (repeatable; made on the report's rules).",
)
@click.option(
    "--keep-chunks",
    is_flag=True,
    default=False,
    help="Keep the run's checkpoints (OUT/chunks) after a successful run; by default they are "
    "removed so the report folder holds only the report.",
)
@engine_option
@seed_option
@jobs_option
@quiet_option
@format_option
def report(
    game, scenario_files, size, out, balance_dirs, keep_chunks, engine, seed, jobs, quiet, fmt
):
    """Write a self-contained HTML balance report (plus tables and figures) to --out."""
    from reports.engines import SCHEMAS
    from reports.report import GAMES, run_report
    from scenarios.loader import load_scenario
    from simulator.output import ensure_writable_dir

    ensure_writable_dir(out)  # before any work
    games = GAMES if game == "all" else (game,)
    scenarios: dict[str, list[str]] = {}
    for path in scenario_files:
        scen = load_scenario(path, SCHEMAS)  # validates now: a bad file stops before any simulation
        scenarios.setdefault(scen.game, []).append(path)
        if scen.game not in games:
            raise click.BadParameter(
                f"{path} is a {scen.game} scenario but --game is {game}", param_hint="--scenario"
            )
    runs = _balance_runs(balance_dirs, games, scenarios)
    command_line = shlex.join(["broadside", *sys.argv[1:]]) if sys.argv else "broadside report"
    summary = run_report(
        games=games,
        size=size,
        seed=seed,
        jobs=jobs,
        out=out,
        quiet=quiet,
        scenarios=scenarios,
        command_line=command_line,
        notes=lambda m: note(m, quiet),
        engine=engine,
        balance=runs,
    )
    if not keep_chunks:
        _drop_checkpoints(out)
    replay_note(summary["seed_entropy"], seed is not None, quiet)
    table = pd.DataFrame(summary["sections"])[["section", "wall_time_s"]]
    emit(
        fmt,
        table,
        summary,
        title=f"report written to {summary['index']} in {summary['wall_time_s']:.1f} s",
    )


def _drop_checkpoints(out) -> None:
    """Remove the checkpoints a successful report wrote by itself into OUT/chunks (kept when they
    were asked for with --checkpoint or --resume: then they are the user's)."""
    import shutil
    from pathlib import Path

    from simulator.runner import current_execution

    settings = current_execution()
    job = getattr(settings, "checkpoint", None)
    if job is None or job.strict:
        return
    folder = Path(job.folder)
    if (
        folder.is_dir()
        and not folder.is_symlink()
        and folder.parent.resolve() == Path(out).resolve()
    ):
        shutil.rmtree(folder)


@click.command()
@click.argument("base")
@click.argument("variant")
@click.option(
    "--game", type=click.Choice(("cove", "express", "hunt")), required=True, help="Which game."
)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    help=(
        "win-rate:STRATEGY | seat-advantage | game-length | stalemate | fame:STRATEGY (repeatable)."
    ),
)
@click.option(
    "--alpha",
    type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Family-wise type-I error over all metrics.",
)
@click.option(
    "--max-games",
    type=click.IntRange(min=10),
    default=20_000,
    show_default=True,
    help="Games per scenario at the last look. Nothing is decided before 10 paired games (with "
    "--population: 10 tables), so a look comes at most every 10 of them.",
)
@click.option(
    "--looks",
    type=click.IntRange(1, 20),
    default=5,
    show_default=True,
    help="Planned looks (equally spaced, at most one per 10 paired games or tables); the test "
    "may stop at any of them.",
)
@click.option(
    "--spending",
    type=click.Choice(("obrien-fleming", "pocock")),
    default="obrien-fleming",
    show_default=True,
    help="Lan-DeMets alpha-spending function.",
)
@click.option(
    "--players",
    type=click.IntRange(2, 8),
    default=None,
    help="Players per game (engine default if omitted).",
)
@click.option(
    "--strategies",
    default=None,
    help="Comma-separated strategies per seat (engine default if omitted).",
)
@click.option(
    "--pairing",
    type=click.Choice(("crn", "independent")),
    default="crn",
    show_default=True,
    help=(
        "crn: game i of both scenarios uses the same seeds; "
        "independent: different seeds (diagnostic)."
    ),
)
@click.option(
    "--population",
    "population",
    default=None,
    metavar="FILE",
    help="Draw every table's seats from this metagame equilibrium (a population file, or a name "
    "in scenarios/GAME/populations/) instead of fixed --strategies: a fresh table every PLAYERS "
    "games (one per seat rotation), and the test's unit is the table.",
)
@engine_option
@seed_option
@jobs_option
@quiet_option
@format_option
def compare(
    base,
    variant,
    game,
    metrics,
    alpha,
    max_games,
    looks,
    spending,
    players,
    strategies,
    pairing,
    population,
    engine,
    seed,
    jobs,
    quiet,
    fmt,
):
    """Does VARIANT (a house rule) change the game compared with BASE? Sequential, paired test.

    BASE and VARIANT are scenario files or names (for hunt: `standard`, or a variant name such as
    `one-two`). No decision before 10 paired games (with --population, 10 tables); a look whose
    differences are all equal is no evidence.
    """
    from reports.compare import run_compare, summary_table
    from reports.engines import engine as game_engine

    check_engine(game_engine(game).api(), engine)
    result = run_compare(
        base,
        variant,
        game=game,
        metrics=metrics,
        alpha=alpha,
        max_games=max_games,
        looks=looks,
        spending=spending,
        players=players,
        strategies=strategies,
        pairing=pairing,
        seed=seed,
        jobs=jobs,
        quiet=quiet,
        notes=lambda m: note(m, quiet),
        population=population,
        engine=engine,
    )
    replay_note(result["seed_entropy"], seed is not None, quiet)
    title = "\n".join(
        [result["headline"], *(f"  {r['name']}: {r['verdict']}" for r in result["metrics"])]
    )
    emit(fmt, summary_table(result), result, title=title)


def _balance_runs(dirs, games, scenarios) -> list[dict]:
    """The --balance runs, each checked before any work: a balance run's folder, of a game the
    report shows, made on the rules the report plays."""
    from reports.engines import GAME_APIS, engine
    from reports.sections.balance import check_run, load_run

    runs = []
    for folder in dirs:
        run = load_run(folder)
        game = run["summary"]["game"]
        refs = scenarios.get(game) or []
        if game in GAME_APIS:
            scen = engine(game).resolve(refs[0]) if refs else GAME_APIS[game].load(None)
            check_run(run, scen.content_hash, games)
        else:
            check_run(run, "", games)
        runs.append(run)
    return runs
