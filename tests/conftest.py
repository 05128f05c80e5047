import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_sessionstart(session):
    """Compile the numba engines once, quietly, before any test: a test that counts the lines a
    command prints on stderr must not see the one-off "compiling the ... engine" note, whatever
    order the tests run in (tests/test_compiled.py checks that note on a kernel of its own)."""
    from simulator.compiled import ensure_compiled
    from simulator.cove.combat_kernel import COMPILED_ENGINE as cove_kernel
    from simulator.cove.combat_kernel import warm_up as warm_cove
    from simulator.express import api as express_api
    from simulator.hunt import api as hunt_api

    ensure_compiled(cove_kernel, warm_cove, quiet=True)
    ensure_compiled(
        express_api.COMPILED_ENGINE,
        lambda: express_api.battle_stats("chinese:5,3,2,1,1", "pirates:5,4,2,1", n=1, seed=1),
        quiet=True,
    )
    ensure_compiled(
        hunt_api._compiled_engine(),
        lambda: hunt_api.play(hunt_api.load(None), ["runner"], n=1, seed=1),
        quiet=True,
    )
