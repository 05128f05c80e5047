"""`cli.main`: every user mistake and every run failure is one line on stderr with exit 2 (Ctrl-C:
130), never a traceback; every simulation command has the execution options."""

from __future__ import annotations

import click
import pytest
from test_runner_tasks import run_main

import cli
from scenarios.loader import ScenarioError
from simulator.errors import UserError
from simulator.output import OutputError
from simulator.runner import Interrupted, RunError, WorkerDied

VOLLEY = ["odds", "volley", "--dice", "3", "--hit-on", "5", "--mc", "2000", "--quiet"]


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    "extra,fragment",
    [
        (["--resume", "{tmp}/nothing-here"], "no checkpoint to resume"),
        (["--resume", "{tmp}/a", "--checkpoint", "{tmp}/b"], "do not add --checkpoint"),
        (
            ["--backend", "loky", "--scheduler", "tcp://127.0.0.1:8786"],
            "--scheduler needs --backend dask",
        ),
        (["--scheduler", "127.0.0.1:8786"], "is not a scheduler address"),
        (["--backend", "spark"], "'spark' is not one of 'loky', 'dask'"),
        (["--jobs", "100000"], "100000 is not in the range -1<=x<=256"),
        (["--seed", "-1"], "-1 is not in the range"),
        (["--seed", str(2**200)], "is not in the range 0<=x<="),
        (["--out", "{tmp}/file.txt/sub"], "not writable"),
        (["--out", "/proc/broadside-nope"], "not writable"),
    ],
)
def test_execution_option_mistakes_are_one_line_exit_2(tmp_path, extra, fragment):
    (tmp_path / "file.txt").write_text("a file, not a folder")
    args = [*VOLLEY, *(a.replace("{tmp}", str(tmp_path)) for a in extra)]
    code, out, err = run_main(args)
    assert code == 2 and out == ""
    assert fragment in _one_error_line(err)


def _raiser(exc: BaseException) -> click.Command:
    @click.command("boom")
    def boom():
        raise exc

    return boom


@pytest.mark.parametrize(
    "exc,expected",
    [
        (RunError("first line\nsecond line"), "broadside: error: first line"),
        (
            WorkerDied(
                "a worker process died while running chunks (exit codes {SIGKILL(-9)}); "
                "3 of 9 chunks saved in out/chunks; resume with --resume out"
            ),
            (
                "broadside: error: a worker process died while running chunks "
                "(exit codes {SIGKILL(-9)}); 3 of 9"
            ),
        ),
        (
            ScenarioError("my.toml", "combat.hit_on", "9 is out of range (allowed: 1..6)"),
            "broadside: error: my.toml: combat.hit_on: 9 is out of range (allowed: 1..6)",
        ),
        (
            UserError("--fleet 'x': unknown ship (allowed: sloop, frigate)"),
            "broadside: error: --fleet 'x': unknown ship (allowed: sloop, frigate)",
        ),
        (
            OutputError("out: output folder is not writable (Permission denied)"),
            "broadside: error: out: output folder is not writable (Permission denied)",
        ),
        (RunError(""), "broadside: error: RunError"),
    ],
)
def test_errors_are_printed_as_one_plain_line(monkeypatch, exc, expected):
    monkeypatch.setitem(cli.cli.commands, "boom", _raiser(exc))
    code, out, err = run_main(["boom"])
    assert code == 2 and out == ""
    line = _one_error_line(err)
    assert line.startswith(expected) and "'" + str(exc)[:10] not in line  # no repr quotes


def test_ctrl_c_says_what_was_saved(monkeypatch):
    monkeypatch.setitem(
        cli.cli.commands,
        "boom",
        _raiser(Interrupted("4 of 10 chunks saved in o/chunks; resume with --resume o")),
    )
    code, out, err = run_main(["boom"])
    assert code == 130 and out == ""
    assert err.strip().splitlines()[-1] == (
        "broadside: interrupted: 4 of 10 chunks saved in o/chunks; resume with --resume o"
    )
    monkeypatch.setitem(cli.cli.commands, "boom", _raiser(KeyboardInterrupt()))
    code, _, err = run_main(["boom"])
    assert code == 130 and err.strip().splitlines()[-1] == "broadside: interrupted"


@pytest.mark.parametrize(
    "args",
    [
        ["no-such-command"],
        ["odds", "volley", "--dice"],
        ["odds", "volley", "--dice", "3", "--hit-on", "5", "--resume"],
        ["odds", "volley", "--dice", "3", "--hit-on", "5", "--no-such-option"],
    ],
)
def test_usage_mistakes_are_one_line_exit_2(args):
    code, out, err = run_main(args)
    assert code == 2 and out == ""
    _one_error_line(err)


def _simulation_commands():
    ctx = click.Context(cli.cli)
    for name in cli.cli.list_commands(ctx):
        group = cli.cli.get_command(ctx, name)
        if group is None:
            continue
        subs = group.commands.items() if isinstance(group, click.Group) else [(name, group)]
        for sub, command in subs:
            if {p.name for p in command.params} & {"seed", "jobs"}:
                yield f"{name} {sub}", command


def test_every_simulation_command_has_the_execution_options():
    found = dict(_simulation_commands())
    assert "odds volley" in found and "odds boarding" in found
    for path, command in found.items():
        opts = {o for p in command.params for o in getattr(p, "opts", [])}
        assert {"--backend", "--scheduler", "--checkpoint", "--resume"} <= opts, path
