"""Shared click options and helpers for the command modules (no game logic here).

Every result command takes ``--format``; every simulation command takes ``--seed``, ``--jobs``
and ``--quiet``. Game command modules (``simulator/<game>/commands.py``) import these decorators
so the options are spelled the same everywhere.
"""

from __future__ import annotations

import sys

import click

from reports.output import FORMATS


def format_option(f):
    return click.option(
        "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
        help="Output format; JSON goes to stdout alone.",
    )(f)


def seed_option(f):
    return click.option(
        "--seed", type=click.IntRange(min=0), default=None,
        help="Root seed (fresh entropy is drawn and reported when omitted).",
    )(f)


def jobs_option(f):
    return click.option(
        "--jobs", "-j", "jobs", type=int, default=-1, show_default=True,
        help="Worker processes (-1: every core). Results do not depend on it.",
    )(f)


def quiet_option(f):
    return click.option("--quiet", "-q", is_flag=True, help="No progress bar or notes on stderr.")(f)


def simulation_options(f):
    """--seed, --jobs, --quiet together."""
    return seed_option(jobs_option(quiet_option(f)))


def note(message: str, quiet: bool = False) -> None:
    """A human note on stderr (never on stdout, which may carry JSON)."""
    if not quiet:
        click.echo(message, err=True)


def replay_note(entropy: int, seed_given: bool, quiet: bool = False) -> None:
    """Tell the user how to replay a run whose seed was drawn fresh."""
    if not seed_given:
        note(f"seed: {entropy} (pass --seed {entropy} to replay this run)", quiet)


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
