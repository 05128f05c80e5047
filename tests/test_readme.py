"""The README is the contract with a new user: every ``broadside ...`` command in its code blocks
runs as written, in a fresh folder, without ``--seed`` where it has none.

Only the sizes are capped (or added) so the suite stays fast: :data:`CAPS` lists every size
option; a README command with a size option missing from it fails here, so a new option gets a
cap when it is documented. Each command must exit 0 with no traceback on stderr, and every file
it writes under its output folder must parse (CSV with pandas, Parquet with pyarrow, JSON).
The Ctrl-C / ``--resume`` pair is run as a pair in one folder (the first run completes; the
resume then finds every chunk saved and gives the same JSON).

The main job (the first command) and the resume pair run as new processes with a bare
environment (``run``), as a new user runs them; the other commands run in the test's process
through the entry point ``cli.main``, in a fresh folder (``run_here``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from runner_tasks import run_main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

#: size options and the value each is capped to (the smaller of this and what the README says)
CAPS = {
    "-n": 12,
    "--mc": 4000,
    "--max-games": 200,
    "--budget": 1000,
    "--iterate": 1,
    "--size": "test",
    "--limit": 10,
}
#: per command, a tighter cap where one game costs more (full Pirate's Cove games)
COMMAND_CAPS = {
    ("cove", "play"): {"-n": 8},
    ("cove", "card-value"): {"-n": 2},
    ("express", "matrix"): {"-n": 4},
}
#: options that name the folder a command writes into (besides its default)
OUT_OPTIONS = ("--out", "--resume", "--checkpoint")
DEFAULT_OUT = {("report",): "broadside-report"}


def readme_commands() -> list[list[str]]:
    """Every ``broadside ...`` command of the README's code blocks, as argument lists."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for lang, block in re.findall(r"^```([\w-]*)\n(.*?)^```", text, flags=re.S | re.M):
        if lang not in ("bash", "sh", "console", ""):  # a Python example is not a command
            continue
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            for part in re.split(r"&&|;", line):
                part = part.strip()
                if not part.startswith("broadside "):
                    continue
                args = shlex.split(part, comments=True)
                commands.append(args[1:])
    return commands


def _command_key(args: list[str]) -> tuple[str, ...]:
    words = []
    for a in args:
        if a.startswith("-"):
            break
        words.append(a)
    return tuple(words)


def capped(args: list[str]) -> list[str]:
    """``args`` with every size option capped (and ``report`` given the test size)."""
    key = _command_key(args)
    caps = {**CAPS, **COMMAND_CAPS.get(key[:2], {})}
    out = list(args)
    for i, a in enumerate(out[:-1]):
        if a in caps:
            cap = caps[a]
            if isinstance(cap, int):
                out[i + 1] = str(min(int(out[i + 1]), cap))
            else:
                out[i + 1] = cap
    if key[:1] == ("report",) and "--size" not in out:
        out += ["--size", "test"]
    if key[:1] == ("compare",) and "--max-games" not in out:
        out += ["--max-games", str(CAPS["--max-games"])]
    return out


def out_folders(args: list[str]) -> list[str]:
    folders = [args[i + 1] for i, a in enumerate(args[:-1]) if a in OUT_OPTIONS]
    default = DEFAULT_OUT.get(_command_key(args)[:1])
    if default and not folders:
        folders.append(default)
    return folders


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``broadside ARGS`` in a fresh process in ``cwd``, as a new user runs it (the main job)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )


def documented_keys() -> dict[str, tuple[str, ...]]:
    """``docs/outputs.md``: file stem (``NATION``/``MODE`` as wildcards) -> key columns."""
    keys = {}
    text = (ROOT / "docs" / "outputs.md").read_text(encoding="utf-8")
    for stem, key in re.findall(r"^\| `([^`]+)` \| [^|]+ \| `([^`]+)` \|$", text, flags=re.M):
        keys[stem] = tuple(k.strip() for k in key.split(","))
    return keys


def run_here(args: list[str], cwd: Path) -> tuple[int, str]:
    """``broadside ARGS`` through the entry point in this process, in ``cwd``
    (:func:`runner_tasks.run_main`): (exit code, stderr). A fresh process per command cost about
    1.3 CPU-s of imports and engine loading each; the main job (:func:`run`, the ``main_job``
    fixture) still runs as a new process."""
    with contextlib.chdir(cwd):
        code, _, err = run_main(list(args))
    return code, err


KEYS = documented_keys()


def key_of(stem: str) -> tuple[str, ...]:
    for pattern, key in KEYS.items():
        regex = "^" + re.sub(r"[A-Z]+", "[a-z-]+", re.escape(pattern)) + "$"
        if re.match(regex, stem):
            return key
    raise AssertionError(f"{stem}: no documented key in docs/outputs.md")


# Key columns docs/outputs.md documents as empty on some rows ("the remedy columns empty when
# the axis has none"): an empty cell there is a value, read back by pandas as NaN.
MAY_BE_EMPTY = {"verdicts": {"remedy"}}


def check_key(df: pd.DataFrame, stem: str) -> None:
    key = list(key_of(stem))
    assert set(key) <= set(df.columns), (stem, key, list(df.columns))
    required = [k for k in key if k not in MAY_BE_EMPTY.get(stem, set())]
    assert not df[required].isna().any().any(), f"{stem}: key {required} has missing values"
    assert not df.duplicated(key).any(), f"{stem}: key {key} is not unique"
    if key == ["game", "rotation", "seat"] and len(df):
        seats = df.groupby("game")["seat"].agg(["min", "max", "count"])
        assert (seats["min"] == 1).all() and (seats["max"] == seats["count"]).all(), stem
        assert df.groupby(["game"])["rotation"].nunique().eq(1).all(), stem
        games = sorted(df["game"].unique())
        assert games == list(range(len(games))), f"{stem}: game ids are not 0..n-1"


def check_outputs(cwd: Path, folders: list[str]) -> int:
    """Parse every file under the output folders and check each table's documented key;
    returns how many files were read."""
    seen = 0
    for folder in folders:
        root = cwd / folder
        assert root.is_dir(), f"{folder} was not written"
        for f in sorted(root.rglob("*")):
            if not f.is_file() or f.name.startswith("."):
                continue
            if f.suffix == ".csv":
                check_key(pd.read_csv(f), f.stem)
            elif f.suffix == ".parquet":
                pq.read_table(f)
                if "chunks" not in f.parts:
                    check_key(pd.read_parquet(f), f.stem)
            elif f.suffix == ".json":
                json.loads(f.read_text(encoding="utf-8"))
            seen += 1
    return seen


COMMANDS = readme_commands()
RESUME_PAIRS = [
    (a, b)
    for a, b in itertools.pairwise(COMMANDS)
    if "--resume" in b and "--out" in a and a[a.index("--out") + 1] == b[b.index("--resume") + 1]
]
SINGLES = [c for c in COMMANDS if not any(c in pair for pair in RESUME_PAIRS)]


def _literal_key(call) -> tuple[str, ...] | None:
    import ast

    for kw in call.keywords:
        if kw.arg == "key":
            if isinstance(kw.value, ast.Name) and kw.value.id == "SEAT_KEY":
                return ("game", "rotation", "seat")
            try:
                return tuple(ast.literal_eval(kw.value))
            except ValueError:
                return None
    return None


def test_every_writer_documents_its_key():
    """Every table registered with a literal stem (``write_table``, a report section's
    ``table``/``data``) is in docs/outputs.md with the key given in the code."""
    import ast

    checked = 0
    for path in [*ROOT.glob("simulator/**/*.py"), *ROOT.glob("reports/**/*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            if name == "write_table" and len(node.args) >= 3:
                stem_node = node.args[2]
            elif name in ("table", "data") and path.parent.name == "sections" and node.args:
                stem_node = node.args[0]
            else:
                continue
            key = _literal_key(node)
            if not isinstance(stem_node, ast.Constant) or key is None:
                continue
            stem = stem_node.value
            assert key_of(stem) == key, f"{path.name}: {stem!r} key {key} vs docs/outputs.md"
            checked += 1
    assert checked >= 25


def test_readme_has_the_two_first_commands_and_the_tour():
    text = README.read_text(encoding="utf-8")
    assert "pip install -e . && broadside report" in text
    assert "pip install -q -e '.[test,dask]' && python -m pytest -q -n auto" in text
    assert len(COMMANDS) >= 15 and RESUME_PAIRS


@pytest.mark.parametrize("args", SINGLES, ids=[" ".join(c)[:70] for c in SINGLES])
def test_readme_command_runs_as_written(args, tmp_path, request):
    """Each command in a fresh folder; the main job (the first command) is the run the
    ``main_job`` fixture made, in a folder of its own, which ``test_report`` reads too."""
    for a in args:
        if a.startswith("-") and a not in CAPS and a.lstrip("-") in ("n", "games", "trials"):
            pytest.fail(f"size option {a} has no cap in tests/test_readme.py CAPS")
    if args == COMMANDS[0]:
        cwd, cmd, res = request.getfixturevalue("main_job")
        returncode, stderr = res["returncode"], res["stderr"]
    else:
        cwd, cmd = tmp_path, capped(args)
        returncode, stderr = run_here(cmd, cwd)
    assert returncode == 0, f"broadside {' '.join(cmd)}\n{stderr[-3000:]}"
    assert "Traceback" not in stderr, stderr[-3000:]
    check_outputs(cwd, out_folders(cmd))


@pytest.mark.parametrize("pair", RESUME_PAIRS, ids=lambda p: " ".join(p[0])[:60])
def test_readme_resume_pair_runs_as_written(pair, tmp_path):
    first, second = (capped(c) for c in pair)
    json_first = [*first, "--format", "json"] if "--format" not in first else first
    json_second = [*second, "--format", "json"] if "--format" not in second else second
    a = run(json_first, tmp_path)
    assert a.returncode == 0 and "Traceback" not in a.stderr, a.stderr[-3000:]
    b = run(json_second, tmp_path)
    assert b.returncode == 0 and "Traceback" not in b.stderr, b.stderr[-3000:]
    assert json.loads(a.stdout) == json.loads(b.stdout)
    check_outputs(tmp_path, out_folders(second))
