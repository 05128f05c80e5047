"""Hostile input: scenario files from strangers, fuzzed TOML, fuzzed option values, absurd sizes.

Every outcome must be a loaded scenario, a result, or ONE line of error (ScenarioError / exit 2) —
never another exception, a traceback, a hang, or a file read outside the scenario folders.
"""

from __future__ import annotations

import json
import os
import re
import string
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runner_tasks import run_main

import cli
from reports.engines import SCHEMAS
from scenarios.loader import MAX_FILE_BYTES, SCENARIO_ROOT, Scenario, ScenarioError, load_scenario
from simulator.clitools import check_players, players_option
from simulator.errors import UserError

STANDARD = (SCENARIO_ROOT / "cove" / "standard.toml").read_text(encoding="utf-8")
HEAD = 'game = "cove"\nrules_version = "hostile-test"\n'


def _one_line(message: str) -> bool:
    return bool(message) and len(message.splitlines()) == 1


def _load(path: Path) -> Scenario | ScenarioError:
    """The only two allowed outcomes of loading any file."""
    try:
        return load_scenario(path, SCHEMAS)
    except ScenarioError as exc:
        assert _one_line(str(exc)), repr(str(exc))
        return exc


# ---------------------------------------------------------------------------------------------
# Hand-written hostile scenario files (the resolve note lists each and what it got)


def _outside_secret(tmp: Path) -> Path:
    secret = tmp / "outside" / "secret.toml"
    secret.parent.mkdir(exist_ok=True)
    secret.write_text(HEAD + 'name = "SECRET"\n')
    return secret


HOSTILE = {
    # id: (file text or bytes, regular expression found in the expected ScenarioError)
    "extends-traversal": (
        HEAD + 'extends = "../outside/secret"\n',
        "points outside the scenario folders",
    ),
    "extends-deep-traversal": (
        HEAD + 'extends = "../../../../../../etc/passwd"\n',
        "points outside",
    ),
    "extends-absolute": (HEAD + 'extends = "/etc/passwd"\n', "absolute paths are not allowed"),
    "extends-home": (HEAD + 'extends = "~/.ssh/id_rsa"\n', "not found"),
    "extends-symlink-out": (HEAD + 'extends = "evil"\n', "not found"),
    "extends-itself": (HEAD + 'extends = "self"\n', "circular extends chain"),
    "extends-cycle": (HEAD + 'extends = "cycle_b"\n', "circular extends chain"),
    "extends-not-string": (HEAD + "extends = 3\n", "must be a non-empty string"),
    "extends-empty": (HEAD + 'extends = ""\n', "must be a non-empty string"),
    "extends-folder": (HEAD + 'extends = "."\n', "not found"),
    "extends-nul": (HEAD + 'extends = "\\u0000"\n', "extends"),
    "extends-very-long": (HEAD + 'extends = "' + "a" * 5000 + '"\n', "extends"),
    "huge-file": (
        HEAD + "# " + "x" * (MAX_FILE_BYTES + 10) + "\n",
        f"\\(limit {MAX_FILE_BYTES}\\)",
    ),
    "deep-arrays": (HEAD + "x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    "deep-inline-tables": (
        HEAD + "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
        "nested too deeply",
    ),
    "deep-dotted-key": (HEAD + "x" + ".a" * 3000 + " = 1\n", "unknown key|nested too deeply"),
    "deep-merge": (
        HEAD + 'extends = "deep_base"\n' + "x" + ".a" * 1500 + " = 2\n",
        "unknown key|nested too deeply",
    ),
    "non-utf8": ((HEAD + 'name = "caf\xe9"\n').encode("latin-1"), "not UTF-8"),
    "utf8-bom": ("\ufeff" + HEAD, "invalid TOML"),
    "binary": (bytes(range(256)) * 4, "not UTF-8"),
    "nan-float": (
        HEAD + 'extends = "standard"\n[strategies.random]\nparams = { w_chest = nan }\n',
        r"\(allowed: a finite number\)",
    ),
    "inf-float": (
        HEAD + 'extends = "standard"\n[strategies.random]\nparams = { w_chest = -inf }\n',
        r"\(allowed: a finite number\)",
    ),
    "huge-int-as-float": (
        HEAD
        + 'extends = "standard"\n[strategies.random]\nparams = { w_chest = '
        + "9" * 400
        + " }\n",
        "w_chest",
    ),
    "nan-int": (
        HEAD + 'extends = "standard"\n[ship_mat]\nnum_positions = nan\n',
        r"\(allowed: integer\)",
    ),
    "huge-int": (
        HEAD + 'extends = "standard"\n[ship_mat]\nnum_positions = 99999999999999999999\n',
        "out of range",
    ),
    "negative": (HEAD + 'extends = "standard"\n[ship_mat]\nnum_positions = -8\n', "out of range"),
    "game-nan": ('game = nan\nrules_version = "x"\n', "is not a game"),
    "game-other": ('game = "chess"\nrules_version = "x"\n', "is not a game"),
    "no-game": ('rules_version = "x"\n', "missing required key"),
    "rules-version-array": ('game = "cove"\nrules_version = ["x"]\n', "rules_version"),
    "name-datetime": (HEAD + "name = 1979-05-27T07:32:00Z\n", "datetime given"),
    "unknown-table": (HEAD + "[__class__]\nx = 1\n", "unknown key"),
    "python-code": (
        HEAD + "name = \"__import__('os').system('touch /tmp/pwned')\"\n"
        'extends = "standard"\n[eval]\ncode = "exec"\n',
        "unknown key",
    ),
    "key-with-carriage-return": (HEAD + '"a\\rb" = 1\n', "unknown key"),
    "key-with-line-separator": (HEAD + '"a\\u2028b" = 1\n', "unknown key"),
    "duplicate-key": (HEAD + 'game = "hunt"\n', "invalid TOML"),
    "empty": ("", "game"),
}


@pytest.fixture()
def scenario_dir(tmp_path):
    """A user's folder with helper files for the hostile cases."""
    folder = tmp_path / "mine"
    folder.mkdir()
    secret = _outside_secret(tmp_path)
    (folder / "evil.toml").symlink_to(secret)
    (folder / "self.toml").write_text(HEAD + 'extends = "self"\n')
    (folder / "cycle_a.toml").write_text(HEAD + 'extends = "cycle_b"\n')
    (folder / "cycle_b.toml").write_text(HEAD + 'extends = "cycle_a"\n')
    (folder / "deep_base.toml").write_text(HEAD + "x" + ".a" * 1500 + " = 1\n")
    return folder


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_scenario_file_is_one_line_error(scenario_dir, case):
    content, fragment = HOSTILE[case]
    path = scenario_dir / (
        "self.toml"
        if case == "extends-itself"
        else "cycle_a.toml"
        if case == "extends-cycle"
        else f"{case}.toml"
    )
    if case not in ("extends-itself", "extends-cycle"):
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    outcome = _load(path)
    assert isinstance(outcome, ScenarioError), f"{case} loaded: {outcome!r}"
    assert re.search(fragment, str(outcome)), str(outcome)
    assert "SECRET" not in str(outcome)


def test_symlinked_scenario_into_the_folder_is_read_as_the_users_own_file(scenario_dir):
    """The file the user names may be anywhere; only what it *includes* is confined."""
    link = scenario_dir / "linked.toml"
    link.symlink_to(SCENARIO_ROOT / "cove" / "standard.toml")
    assert isinstance(_load(link), Scenario)


def test_special_files_are_refused(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    started = time.perf_counter()
    assert "not a regular file" in str(_load(fifo))  # never blocks reading a FIFO
    assert "not a regular file" in str(_load(Path("/dev/zero")))
    assert "file not found" in str(_load(tmp_path / "missing.toml"))
    assert time.perf_counter() - started < 5


# ---------------------------------------------------------------------------------------------
# Fuzzing the loader: mutated valid files and small synthetic ones

LITERALS = [
    "nan",
    "inf",
    "-inf",
    "+inf",
    "1e309",
    "-0.0",
    "0",
    "-1",
    "99999999999999999999",
    "9" * 400,
    '""',
    '"x"',
    "true",
    "[]",
    "{}",
    "[1, [2, [3]]]",
    "{ a = 1 }",
    "1979-05-27",
    '"\\u0000"',
    '"../../etc/passwd"',
    "0x7fffffffffffffff",
    "1_000",
]
VALUE_RE = re.compile(r"(?<== )[^\n#]+")


@st.composite
def mutated(draw, base: str) -> bytes:
    text = base
    for _ in range(draw(st.integers(1, 4))):
        op = draw(
            st.sampled_from(
                ["value", "value", "delete", "duplicate", "insert", "truncate", "byte", "extends"]
            )
        )
        lines = text.splitlines(keepends=True)
        if op == "value":
            spots = list(VALUE_RE.finditer(text))
            if spots:
                m = spots[draw(st.integers(0, len(spots) - 1))]
                new = draw(
                    st.one_of(
                        st.sampled_from(LITERALS), st.integers().map(str), st.floats().map(repr)
                    )
                )
                text = text[: m.start()] + new + text[m.end() :]
        elif op == "delete" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "".join(lines)
        elif op == "duplicate" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
            text = "".join(lines)
        elif op == "insert":
            pos = draw(st.integers(0, len(text)))
            text = text[:pos] + draw(st.text(max_size=20)) + text[pos:]
        elif op == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
        elif op == "extends":
            ref = draw(
                st.one_of(
                    st.sampled_from(
                        [
                            "standard",
                            "../standard",
                            "cove/standard",
                            "/etc/hosts",
                            "..",
                            "standard.toml",
                            "x" * 300,
                        ]
                    ),
                    st.text(alphabet=string.printable, max_size=30),
                )
            )
            text = f"extends = {json.dumps(ref)}\n" + text
        elif op == "byte":
            raw = bytearray(text.encode("utf-8"))
            if raw:
                raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
            return bytes(raw)
    return text.encode("utf-8")


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mutated(STANDARD))
def test_fuzzed_standard_scenario_loads_or_is_one_scenario_error(fuzz_dir, data):
    path = fuzz_dir / "mutant.toml"
    path.write_bytes(data)
    _load(path)


SCALARS = st.one_of(st.integers(), st.floats(), st.booleans(), st.text(max_size=12))
KEYS = st.one_of(
    st.sampled_from(
        [
            "game",
            "rules_version",
            "name",
            "extends",
            "ship_mat",
            "setup",
            "combat",
            "num_positions",
            "hull",
            "strategies",
            "params",
            "kind",
        ]
    ),
    st.text(min_size=1, max_size=8),
)


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(v), repr(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(
    game=st.sampled_from(["cove", "express", "hunt", "chess"]),
    body=st.dictionaries(KEYS, VALUES, max_size=6),
)
def test_fuzzed_synthetic_scenario_loads_or_is_one_scenario_error(fuzz_dir, game, body):
    lines = [f'game = "{game}"', 'rules_version = "fuzz"']
    lines += [
        f"{json.dumps(k)} = {_toml_value(v)}"
        for k, v in body.items()
        if k not in ("game", "rules_version")
    ]
    path = fuzz_dir / "synthetic.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _load(path)


# ---------------------------------------------------------------------------------------------
# Fuzzing option values on the command line: exit 0, or exit 2 with one line (never a traceback)

JUNK = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
        max_size=12,
    ),
    st.sampled_from(
        [
            "",
            "-1",
            "0",
            "nan",
            "inf",
            "1e9",
            "10**15",
            str(10**15),
            str(2**200),
            "-99999999999999999999",
            "0x10",
            "1_000",
            " 3",
            "3 ",
            "--help",
            "-",
            "--",
        ]
    ),
)
SMALL = st.integers(-3, 400).map(str)


@st.composite
def volley_args(draw) -> list[str]:
    args = ["odds", draw(st.sampled_from(["volley", "boarding"]))]
    options = {
        "--dice": st.one_of(SMALL, JUNK),
        "--hit-on": st.one_of(st.integers(-2, 9).map(str), JUNK),
        "--masts": st.one_of(SMALL, JUNK),
        "--vs": st.one_of(SMALL, JUNK),
        "--reroll-misses": st.one_of(st.integers(-1, 70).map(str), JUNK),
        "--extra-dice": st.one_of(st.integers(-1, 70).map(str), JUNK),
        "--mc": st.one_of(st.integers(-5, 3000).map(str), JUNK),
        "--seed": st.one_of(st.integers(-5, 2**130).map(str), JUNK),
        "--jobs": st.one_of(st.sampled_from(["1", "-2", "257", "100000", "1.5"]), JUNK),
        "--backend": st.one_of(st.sampled_from(["loky", "spark", "LOKY"]), JUNK),
        "--scheduler": JUNK,
        "--format": st.one_of(st.sampled_from(["table", "json", "csv", "xml"]), JUNK),
        "--out": st.one_of(
            st.text(alphabet=string.ascii_letters + "._-", min_size=1, max_size=10),
            st.sampled_from(["/proc/broadside", "/dev/null/x", "a/../../b"]),
        ),
        "--resume": st.text(alphabet=string.ascii_letters, min_size=1, max_size=10),
        "--checkpoint": st.text(alphabet=string.ascii_letters, min_size=1, max_size=10),
    }
    for name in draw(st.lists(st.sampled_from(sorted(options)), max_size=6, unique=True)):
        value = draw(options[name])
        if name == "--jobs" and value.strip().lstrip("+").isdecimal() and int(value) != 1:
            value = "1"  # keep the fuzz quick: process pools are tested elsewhere
        args += [name, value]
    if draw(st.booleans()):
        args.append("--quiet")
    return args


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=volley_args())
def test_fuzzed_cli_options_exit_0_or_2_with_one_line(fuzz_dir, args):
    cwd = os.getcwd()
    os.chdir(fuzz_dir)
    try:
        code, out, err = run_main(args)
    finally:
        os.chdir(cwd)
    assert "Traceback" not in err
    assert code in (0, 2), (args, code, err)
    if code == 2:
        assert out == "" and _one_line(err.strip()), (args, err)


# ---------------------------------------------------------------------------------------------
# Absurd sizes: refused up front, naming the limit


def _trial_options(command: click.Command) -> list[str]:
    names = {"-n", "--mc", "--games", "--battles", "--trials", "--runs"}
    return [
        opt for p in command.params if isinstance(p, click.Option) for opt in p.opts if opt in names
    ]


def _commands():
    ctx = click.Context(cli.cli)
    for name in cli.cli.list_commands(ctx):
        group = cli.cli.get_command(ctx, name)
        if group is None:
            continue
        subs = group.commands.items() if isinstance(group, click.Group) else [(None, group)]
        for sub, command in subs:
            for opt in _trial_options(command):
                yield [name, *([sub] if sub else []), opt]


@pytest.fixture
def no_run_starts(monkeypatch):
    """Any chunk a command hands to the runner fails the test: "refused before any work" is
    checked by what ran, not by a clock (a loaded machine makes clocks lie)."""
    import simulator.runner as runner

    started = []

    def refuse(task, chunks, n_chunks, **kwargs):
        started.append(n_chunks)
        raise AssertionError(f"a run of {n_chunks} chunks started")
        yield  # pragma: no cover - a generator, as the real one

    monkeypatch.setattr(runner, "_iter_results", refuse)
    return started


def test_odds_mc_10_to_15_is_refused_naming_the_limit(no_run_starts):
    code, out, err = run_main(
        ["odds", "volley", "--dice", "3", "--hit-on", "5", "--mc", str(10**15)]
    )
    assert code == 2 and out == "" and _one_line(err.strip())
    assert "1000000000" in err and no_run_starts == []


def test_every_trial_count_option_refuses_10_to_15_at_once(no_run_starts):
    """Every command's -n/--mc/... with 10**15: one-line exit 2 before any chunk runs (or, where
    the option only matters together with another one, a normal exit that ran nothing of that
    size - never a run that starts)."""
    found = list(_commands())
    assert ["odds", "volley", "--mc"] in found
    for path in found:
        code, out, err = run_main([*path, str(10**15), "--quiet", "--jobs", "1"])
        assert code in (0, 2) and "Traceback" not in err, (path, err)
        if code == 2:
            assert out == "" and _one_line(err.strip()), (path, err)
        assert no_run_starts == [], path


def test_players_limit_helpers_name_the_limits():
    assert check_players(4, low=3, high=5) == 4
    with pytest.raises(
        UserError, match=r"--players 10000 is outside the limits of this game \(allowed: 3\.\.5\)"
    ):
        check_players(10_000, low=3, high=5)
    with pytest.raises(UserError, match="not a whole number"):
        check_players("4", low=3, high=5)

    @click.command()
    @players_option(2, 6, default=4)
    def table(players):
        click.echo(players)

    result = CliRunner().invoke(table, ["--players", "10000"])
    assert result.exit_code == 2 and "2<=x<=6" in result.output


def test_hunt_players_10000_is_refused():
    code, _, err = run_main(["hunt", "play", "--players", "10000", "-n", "1", "--quiet"])
    assert code == 2 and _one_line(err.strip()) and "10000" in err
