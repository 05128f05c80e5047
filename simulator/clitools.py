"""Shared click options and helpers for the command modules (no game logic here).

Every result command takes ``--format``; every simulation command takes ``--seed``, ``--jobs``
and ``--quiet``. Game command modules (``simulator/<game>/commands.py``) import these decorators
so the options are spelled the same everywhere.

:func:`simulation_options` also gives every simulation command the execution options, without the
command having to know about them: ``--backend loky|dask``, ``--scheduler local|tcp://HOST:PORT``,
``--checkpoint DIR`` and ``--resume DIR``. It wraps the command so that every
:func:`simulator.runner.run_chunks` call inside follows them (through
:func:`simulator.runner.execution`); the callback still receives only ``seed``, ``jobs`` and
``quiet``. A command with its own ``--out DIR`` option checkpoints into ``DIR/chunks`` by itself,
and ``--resume DIR`` fills a missing ``--out`` with ``DIR``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import click

from simulator.errors import UserError
from simulator.output import FORMATS, ensure_writable_dir
from simulator.runner import BACKENDS, MAX_JOBS, MAX_TRIALS, execution, resolve_jobs

MAX_SEED = 2**128 - 1  # fresh entropy is 128 bits; a replay seed never needs more
#: Sizes accepted for a number of trials / games (the runner refuses more, naming the limit).
TRIALS = click.IntRange(0, MAX_TRIALS)
#: Options that change how a run executes, never its numbers (not compared on --resume).
EXECUTION_PARAMS = frozenset(
    {
        "seed",
        "jobs",
        "quiet",
        "fmt",
        "format",
        "backend",
        "scheduler",
        "resume",
        "checkpoint",
        "progress",
        "verbose",
    }
)
#: An --out value with one of these suffixes names a file, not a folder: no automatic checkpoint.
FILE_SUFFIXES = frozenset(
    {
        ".csv",
        ".json",
        ".parquet",
        ".png",
        ".svg",
        ".pdf",
        ".txt",
        ".html",
        ".md",
        ".tsv",
        ".jsonl",
        ".npz",
    }
)


def format_option(f):
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format; JSON goes to stdout alone.",
    )(f)


def seed_option(f):
    return click.option(
        "--seed",
        type=click.IntRange(0, MAX_SEED),
        default=None,
        help="Root seed (fresh entropy is drawn and reported when omitted).",
    )(f)


def jobs_option(f):
    return click.option(
        "--jobs",
        "-j",
        "jobs",
        type=click.IntRange(-1, MAX_JOBS),
        default=-1,
        show_default=True,
        help="Worker processes (-1: every core, once the run proves long enough to gain from "
        "starting them; with a local Dask cluster, its workers). Results do not depend on it.",
    )(f)


def quiet_option(f):
    return click.option("--quiet", "-q", is_flag=True, help="No progress bar or notes on stderr.")(
        f
    )


def _execution_params() -> list[click.Option]:
    return [
        click.Option(
            ["--backend"],
            type=click.Choice(BACKENDS),
            default=None,
            help="Where chunks run: loky (local processes, the default) or dask (a "
            "dask.distributed cluster; see --scheduler). Results are identical.",
        ),
        click.Option(
            ["--scheduler"],
            metavar="local|tcp://HOST:PORT",
            default=None,
            help="Dask scheduler: 'local' starts a cluster on this machine (the default with "
            "--backend dask), an address joins one started with `dask scheduler`. "
            "Implies --backend dask.",
        ),
        click.Option(
            ["--checkpoint"],
            metavar="DIR",
            type=click.Path(file_okay=False),
            default=None,
            help="Save every finished chunk in DIR/chunks so an interrupted run can be resumed "
            "(commands with --out save in OUT/chunks by themselves).",
        ),
        click.Option(
            ["--resume"],
            metavar="DIR",
            type=click.Path(file_okay=False),
            default=None,
            help="Resume the interrupted run saved in DIR (same command and options): only the "
            "missing chunks run, and the result equals an uninterrupted run.",
        ),
    ]


def execution_options(f):
    """--backend, --scheduler, --checkpoint, --resume (consumed here; the callback never sees
    them)."""
    wrapped = _with_execution(f)
    params = wrapped.__dict__.setdefault("__click_params__", [])
    params.extend(reversed(_execution_params()))  # click reverses the decorator-collected list
    return wrapped


def simulation_options(f):
    """--seed, --jobs, --quiet, plus the execution options --backend, --scheduler, --checkpoint
    and --resume (handled here: the callback receives only seed, jobs and quiet)."""
    return seed_option(jobs_option(quiet_option(execution_options(f))))


def add_execution_options(command: click.Command) -> click.Command:
    """Give an already built simulation command (one with --seed or --jobs) the execution options.

    ``cli.py`` calls it on every registered command, so commands that spell their options one by
    one (``seed_option``, ``jobs_option``...) get --backend/--scheduler/--checkpoint/--resume too.
    """
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            add_execution_options(sub)
        return command
    names = {p.name for p in command.params}
    if command.callback is None or "backend" in names or not names & {"seed", "jobs"}:
        return command
    command.params.extend(_execution_params())
    command.callback = _with_execution(command.callback)
    return command


def _command_name(ctx: click.Context) -> str:
    names = []
    c: click.Context | None = ctx
    while c is not None and c.parent is not None:
        names.append(c.command.name or c.info_name or "")
        c = c.parent
    if not names:
        names.append(ctx.command.name or ctx.info_name or "")
    return " ".join(reversed(names))


def _out_param(ctx: click.Context) -> str | None:
    for param in ctx.command.params:
        if isinstance(param, click.Option) and "--out" in param.opts:
            return param.name
    return None


def _is_file_like(value: Any) -> bool:
    path = Path(str(value))
    return path.suffix.lower() in FILE_SUFFIXES or path.is_file()


def checkpoint_job(
    ctx: click.Context,
    folder: str | Path,
    *,
    resume: bool,
    out_name: str | None = None,
    strict: bool = True,
    quiet: bool = False,
):
    """The :class:`~simulator.checkpoint.CheckpointJob` of this command (checked before any
    work)."""
    from simulator.checkpoint import CheckpointJob, file_digests, jsonable

    skip = set(EXECUTION_PARAMS) | ({out_name} if out_name else set())
    params = {k: jsonable(v) for k, v in sorted(ctx.params.items()) if k not in skip}
    digests = file_digests({k: ctx.params[k] for k in params})
    if digests:
        params["(file sha256)"] = digests
    job = CheckpointJob(
        root=Path(folder),
        command=_command_name(ctx),
        params=params,
        resume=resume,
        strict=strict,
        quiet=quiet,
    )
    if resume:
        job.check_resumable()
    else:
        ensure_writable_dir(folder)
    return job


def _with_execution(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        backend = kwargs.pop("backend", None)
        scheduler = kwargs.pop("scheduler", None)
        checkpoint = kwargs.pop("checkpoint", None)
        resume = kwargs.pop("resume", None)
        ctx = click.get_current_context()
        if resume is not None and checkpoint is not None:
            raise click.UsageError(
                "--resume DIR continues the checkpoint in DIR; do not add --checkpoint"
            )
        if scheduler is not None and backend == "loky":
            raise click.UsageError("--scheduler needs --backend dask (allowed: drop --scheduler)")
        out_name = _out_param(ctx)
        out_value = kwargs.get(out_name) if out_name else None
        if resume is not None and out_name and out_value is None:
            kwargs[out_name] = out_value = resume
        folder = resume or checkpoint
        if folder is None and out_value is not None and not _is_file_like(out_value):
            folder = out_value
        job = None
        if folder is not None:
            job = checkpoint_job(
                ctx,
                folder,
                resume=resume is not None,
                out_name=out_name,
                strict=(resume or checkpoint) is not None,
                quiet=bool(kwargs.get("quiet")),
            )
        jobs = kwargs.get("jobs")
        with execution(
            backend=backend,
            scheduler=scheduler,
            local_workers=resolve_jobs(jobs) if isinstance(jobs, int) else None,
            checkpoint=job,
            quiet=bool(kwargs.get("quiet")),
        ):
            return f(*args, **kwargs)

    return wrapper


def check_players(value: int, *, low: int, high: int, option: str = "--players") -> int:
    """Refuse a number of players outside what the game allows, naming the limits.

    Engines call it before building anything (``--players 10000`` must fail at once)::

        num_players = check_players(players, low=3, high=rules.setup.max_players)
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{option} {value!r} is not a whole number (allowed: {low}..{high})")
    if value < low or value > high:
        raise UserError(
            f"{option} {value} is outside the limits of this game (allowed: {low}..{high})"
        )
    return value


def players_option(low: int, high: int, default: int | None = None, *, name: str = "--players"):
    """A ``--players N`` option limited to ``low..high`` (click names the limits on a bad value)."""

    def decorate(f):
        return click.option(
            name,
            type=click.IntRange(low, high),
            default=default,
            show_default=default is not None,
            help=f"Number of players ({low}..{high}).",
        )(f)

    return decorate


def note(message: str, quiet: bool = False) -> None:
    """A human note on stderr (never on stdout, which may carry JSON)."""
    if not quiet:
        click.echo(message, err=True)


def replay_note(entropy: int, seed_given: bool, quiet: bool = False) -> None:
    """Tell the user how to replay a run whose seed was drawn fresh."""
    if not seed_given:
        note(f"seed: {entropy} (pass --seed {entropy} to replay this run)", quiet)


#: ``--engine`` of tune, metagame, compare and report: which of a game's engines plays.
#: Pirate's Cove's two engines play die for die the same games (the option changes the time,
#: never a number); Les Pirates' draw their dice from different streams (same rules, another
#: sample of games for the same seed)
ENGINE_CHOICES = ("fast", "python")


def engine_option(func):
    return click.option(
        "--engine",
        type=click.Choice(ENGINE_CHOICES),
        default=None,
        help="fast: the compiled engine; python: the same source run with numba's JIT off, the "
        "readable reference (Pirate's Cove and Les Pirates; Pirates express is compiled only). "
        "Both play the same games die for die: only the time changes. Default: fast.",
    )(func)


def check_engine(game: Any, engine: str | None) -> str | None:
    """``engine`` if ``game`` has it (one line naming the allowed ones otherwise)."""
    allowed = tuple(getattr(game, "ENGINES", ("fast",)))
    if engine is not None and engine not in allowed:
        raise UserError(f"--engine {engine}: {game.GAME} has {', '.join(allowed)} only")
    return engine
