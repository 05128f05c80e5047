"""The ``broadside`` command line: parse options, call the engines, hand results to reports.

No game logic lives here. Each game's commands are in ``simulator/<game>/commands.py``; this file
assembles them and turns user mistakes into one-line errors with exit code 2. Every simulation
command (one with ``--seed`` or ``--jobs``) gets the execution options ``--backend``,
``--scheduler``, ``--checkpoint`` and ``--resume`` here (see :mod:`simulator.clitools`).
"""

from __future__ import annotations

import sys

import click

from scenarios.loader import ScenarioError
from simulator import __version__
from simulator.clitools import add_execution_options
from simulator.errors import UserError
from simulator.output import OutputError
from simulator.runner import Interrupted, RunError


def _odds():
    from simulator.odds_commands import odds

    return odds


def _cove():
    from simulator.cove.commands import cove

    return cove


def _express():
    from simulator.express.commands import express

    return express


def _hunt():
    from simulator.hunt.commands import hunt

    return hunt


def _report():
    from reports.commands import report

    return report


def _compare():
    from reports.commands import compare

    return compare


def _cove_api():
    from simulator.cove import api

    return api


def _express_api():
    from simulator.express import api

    return api


def _hunt_api():
    from simulator.hunt import api

    return api


#: the games `tune` and `metagame` can search (a game must speak simulator/protocol.py)
GAME_APIS = {"cove": _cove_api, "express": _express_api, "hunt": _hunt_api}


def _tune():
    from simulator.search_commands import tune

    return tune


def _metagame():
    from simulator.search_commands import metagame

    return metagame


def _balance():
    from simulator.search_commands import balance

    return balance


def _balance_figure(summary, path):
    """The balance command's before/after figure (only reports/ plots; the command finds this in
    its context, so simulator/ never imports reports/)."""
    from reports.balance import balance_figure

    return balance_figure(summary, path)


#: each top-level command, imported only when used (so ``broadside odds ...`` does not pay for
#: importing every engine); plain imports, so the import-rule test sees every arrow
COMMANDS = {
    "odds": _odds,
    "cove": _cove,
    "express": _express,
    "hunt": _hunt,
    "report": _report,
    "compare": _compare,
    "tune": _tune,
    "metagame": _metagame,
    "balance": _balance,
}


class _Broadside(click.Group):
    """The top-level group: each game's commands are imported only when used or listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None or name not in COMMANDS:
            return command
        command = add_execution_options(COMMANDS[name]())
        self.add_command(command, name)
        return command


@click.group(
    cls=_Broadside,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(version=__version__, package_name="broadside")
@click.pass_context
def cli(ctx: click.Context):
    """Broadside: Monte Carlo balance and statistics lab for pirate board games."""
    obj = ctx.ensure_object(dict)
    apis = obj.setdefault("game_apis", {})
    for name, load in GAME_APIS.items():
        apis.setdefault(name, load)
    obj.setdefault("balance_figure", _balance_figure)


def _one_line(exc: BaseException) -> str:
    """The first non-empty line of an error message (the class name when it has none)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return lines[0] if lines else type(exc).__name__


def _interrupted(prog: str, exc: BaseException | None) -> str:
    """One line for Ctrl-C, with what the run saved (runner.Interrupted carries it)."""
    detail = str(exc).splitlines()[0] if isinstance(exc, Interrupted) and str(exc) else ""
    return f"{prog}: interrupted" + (f": {detail}" if detail else "")


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI; user errors print one line on stderr and exit with 2."""
    prog = "broadside"
    try:
        cli.main(args=argv, prog_name=prog, standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:  # click >= 8.2
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort as exc:  # click turns Ctrl-C into Abort
        click.echo(_interrupted(prog, exc.__cause__ or exc.__context__), err=True)
        sys.exit(130)
    except click.ClickException as exc:
        where = ""
        ctx = getattr(exc, "ctx", None)
        if ctx is not None and ctx.command_path:
            where = ctx.command_path.replace(prog, "", 1).strip()
        msg = exc.format_message().replace("\n", " ")
        click.echo(f"{prog}{' ' + where if where else ''}: error: {msg}", err=True)
        sys.exit(2)
    except (ScenarioError, OutputError, RunError, UserError) as exc:
        click.echo(f"{prog}: error: {_one_line(exc)}", err=True)
        sys.exit(2)
    except KeyboardInterrupt as exc:
        click.echo(_interrupted(prog, exc), err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    return 0


if __name__ == "__main__":
    main()
