import fcntl
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _engines():
    """Every numba engine of the house: ``name -> (CompiledEngine, warm-up)``."""
    from simulator.cove import api as cove_api
    from simulator.cove.combat_kernel import COMPILED_ENGINE as cove_kernel
    from simulator.cove.combat_kernel import warm_up as warm_cove
    from simulator.express import api as express_api
    from simulator.hunt import api as hunt_api

    return {
        "cove-game": (
            cove_api.compiled_engine(),
            lambda: cove_api.play(
                None, ["plunderer-v1", "random", "random"], n=1, seed=1, engine="fast"
            ),
        ),
        "cove-kernel": (cove_kernel, warm_cove),
        "express": (
            express_api.COMPILED_ENGINE,
            lambda: express_api.battle_stats("chinese:5,3,2,1,1", "pirates:5,4,2,1", n=1, seed=1),
        ),
        "hunt": (
            hunt_api._compiled_engine(),
            lambda: hunt_api.play(hunt_api.load(None), ["runner"], n=1, seed=1),
        ),
    }


#: engines compiled side by side on a cold cache by the controlling process, before any test
#: starts (the three smaller engines together take about two minutes on 2 cores)
COMPILE_GROUPS = (("cove-kernel", "express", "hunt"),)
#: the Pirate's Cove game engine takes about two minutes cold on two free cores (in waves of two
#: processes, simulator.cove.fast.build; about four on one): it compiles in a
#: background process while the tests that never play a full Pirate's Cove game run; every other
#: test waits for it (:func:`_cove_game_compiled`), then loads it from the cache
BACKGROUND = "cove-game"
#: test files that never play a compiled Pirate's Cove game (they need not wait for it); a file
#: missing here only waits, so the list errs towards waiting
NO_COVE_GAME = frozenset(
    {
        "test_balance.py",  # loads Pirate's Cove's scenario, never plays a game
        "test_cove_combat.py",
        "test_cove_combat_invariants.py",
        "test_cove_combat_kernel.py",
        "test_cove_combat_scalar.py",
        "test_cove_combat_support.py",
        "test_cove_duel.py",
        "test_cove_duel_cards.py",
        "test_cove_fast_lone.py",  # compiles only the lone solver
        "test_cove_odds.py",
        "test_cove_readable.py",  # runs the readable engine in a process of its own
        "test_cove_rule_core.py",  # compiles only the rule core
        "test_cove_fast_views.py",  # compiles only the players' view functions
        "test_dice.py",
        "test_express_battle.py",
        "test_express_commanders.py",
        "test_express_fleets.py",
        "test_express_racing.py",
        "test_engine_mode.py",
        "test_hunt_engine.py",
        "test_hunt_golden.py",
        "test_hunt_moves.py",
        "test_hunt_plan.py",
        "test_hunt_variants.py",
        "test_runner.py",
        "test_sequential.py",
        "test_stats.py",
        "test_strategy_schema.py",
    }
)
#: environment variable naming the background compile's status file ("ok" or "failed")
STATUS_ENV = "BROADSIDE_TEST_COVE_GAME_STATUS"
#: longest wait for the background compile (it never takes this long; a hang fails loudly)
WAIT_S = 1800


def compile_engines(names) -> None:
    """Compile (or load from numba's cache) the named engines, quietly."""
    from simulator.compiled import ensure_compiled

    engines = _engines()
    for name in names:
        engine, warm = engines[name]
        ensure_compiled(engine, warm, quiet=True)


def compile_in_background(status: str) -> None:
    """The background process: compile the Pirate's Cove game, then write ``ok`` to ``status``
    (``failed`` and the error if it failed)."""
    try:
        compile_engines((BACKGROUND,))
    except BaseException as exc:
        Path(status).write_text(f"failed: {type(exc).__name__}: {exc}")
        raise
    Path(status).write_text("ok")


_BACKGROUND_PROC = None


#: the files whose tests take longest in all (a clean clone's run, measured at stop 39), longest
#: first: they run first among the files that wait for the game, so that the run ends on short
#: tests on both workers rather than on one long test on one of them
LONG_FIRST = (
    "test_readme.py",
    "test_benchmarks.py",
    "test_balance.py",
    "test_compiled.py",
    "test_metagame.py",
    "test_engine_option.py",
    "test_report.py",
    "test_contracts.py",
    "test_python_docs.py",
)


def _order(item) -> tuple[bool, int]:
    name = Path(str(item.fspath)).name
    return name not in NO_COVE_GAME, LONG_FIRST.index(name) if name in LONG_FIRST else 99


def pytest_collection_modifyitems(session, config, items):
    """The files of :data:`NO_COVE_GAME` first (each file's tests in their order): on a cold
    cache the workers run them while the Pirate's Cove game compiles in the background, instead
    of waiting for it at the first test that plays the game; then the files of
    :data:`LONG_FIRST`, then the others. Every worker sorts the same way (pytest-xdist requires
    one order); the tests do not depend on their order."""
    items.sort(key=_order)


def _only_files_without_the_game(args) -> bool:
    """True when the command line names only test files of :data:`NO_COVE_GAME` (a targeted
    run of the combat, odds or other games' tests): no background compile of the Pirate's Cove
    game is started for it."""
    if not args:
        return False
    for arg in args:
        path = Path(str(arg).split("::", 1)[0])
        if path.suffix != ".py" or path.name not in NO_COVE_GAME:
            return False
    return True


def pytest_sessionstart(session):
    """Compile the numba engines once, quietly: a test that counts the lines a command prints on
    stderr must not see the one-off "compiling the ... engine" note, whatever order the tests run
    in (tests/test_compiled.py checks that note on a kernel of its own).

    On a cold cache the controlling process starts the Pirate's Cove game compile in a
    background process (:data:`BACKGROUND`) and compiles :data:`COMPILE_GROUPS` in parallel
    subprocesses, waiting for those only; the tests of :data:`NO_COVE_GAME` then run while the
    game compiles, the others wait for it (:func:`_cove_game_compiled`). Every process (the
    controller, or each pytest-xdist worker) loads the engines from the cache."""
    import os
    import tempfile

    from simulator.compiled import is_cached

    global _BACKGROUND_PROC
    if not hasattr(session.config, "workerinput"):  # not an xdist worker: compile for all
        engines = _engines()

        def cached(names) -> bool:
            return all(is_cached(d) for name in names for d in engines[name][0].dispatchers)

        fd, status = tempfile.mkstemp(prefix="broadside-cove-game-", suffix=".status")
        os.close(fd)
        os.environ[STATUS_ENV] = status  # inherited by the xdist workers started after this
        if cached((BACKGROUND,)) or _only_files_without_the_game(session.config.args):
            Path(status).write_text("ok")  # nothing to wait for (a test that plays it compiles)
        else:
            Path(status).write_text("")
            _BACKGROUND_PROC = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    f"import conftest; conftest.compile_in_background({status!r})",
                ],
                cwd=Path(__file__).parent,
            )
        cold = [group for group in COMPILE_GROUPS if not cached(group)]
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", f"import conftest; conftest.compile_engines({group!r})"],
                cwd=Path(__file__).parent,
            )
            for group in cold
        ]
        failed = [g for g, p in zip(cold, procs, strict=True) if p.wait() != 0]
        if failed:
            raise RuntimeError(f"compiling the numba engines failed: {failed}")
    compile_engines([name for group in COMPILE_GROUPS for name in group])


def pytest_sessionfinish(session, exitstatus):
    """Stop a background compile nobody waited for (a run of a few fast tests)."""
    import os

    if _BACKGROUND_PROC is not None and _BACKGROUND_PROC.poll() is None:
        _BACKGROUND_PROC.wait()  # let it finish writing numba's cache (never left half-written)
    status = os.environ.get(STATUS_ENV)
    if status and not hasattr(session.config, "workerinput"):
        Path(status).unlink(missing_ok=True)


_GAME_READY = False


def _wait_for_cove_game() -> None:
    import os
    import time

    global _GAME_READY
    if _GAME_READY:
        return
    status = os.environ.get(STATUS_ENV)
    if status:
        started = time.monotonic()
        while True:
            text = Path(status).read_text() if Path(status).exists() else "ok"
            if text == "ok":
                break
            if text.startswith("failed"):
                raise RuntimeError(f"compiling the Pirate's Cove game engine {text}")
            if time.monotonic() - started > WAIT_S:
                raise RuntimeError(f"the Pirate's Cove game engine compile took over {WAIT_S} s")
            time.sleep(0.5)
    compile_engines((BACKGROUND,))  # loads it from the cache (or compiles it, without xdist)
    _GAME_READY = True


@pytest.fixture(autouse=True)
def _cove_game_compiled(request):
    """Every test outside :data:`NO_COVE_GAME` waits for the compiled Pirate's Cove game."""
    if Path(str(request.node.fspath)).name not in NO_COVE_GAME:
        _wait_for_cove_game()
    yield


@pytest.fixture(scope="session")
def main_job(tmp_path_factory, worker_id) -> tuple[Path, list[str], dict]:
    """The README's main job (its first command, ``broadside report --seed 2026``, at the
    capped test size of ``tests/test_readme.py``), run once per test run as a new user runs it:
    ``(folder it ran in, the command, {"returncode", "stdout", "stderr"})``. The first
    pytest-xdist worker to ask runs it under a lock in the run's shared temporary folder; the
    others read the same result. ``test_readme`` checks the run, ``test_report`` reads the page
    and its files (a test-size report of every game costs about 25 CPU-seconds)."""
    import json

    from test_readme import COMMANDS, capped, run

    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the run's folder, above each worker's own
    cwd = shared / "main-job"
    cmd = capped(COMMANDS[0])
    with open(shared / "main-job.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "main-job.json"
        if not done.exists():
            cwd.mkdir(exist_ok=True)
            res = run(cmd, cwd)
            result = {"returncode": res.returncode, "stdout": res.stdout, "stderr": res.stderr}
            done.write_text(json.dumps(result))
    return cwd, cmd, json.loads(done.read_text())
