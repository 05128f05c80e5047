"""Cold compile of every compiled engine: each in a fresh process on an empty ``NUMBA_CACHE_DIR``.

For each engine a fresh Python process imports the package, compiles the engine into an empty
numba cache directory of its own (as a first run on a new machine does, the runner's compile
waves included) and plays a tiny job; then a second fresh process runs the same job again on the
now full cache (loading, not compiling). ``<engine>_s`` is the first process's wall time,
``<engine>_warm_s`` the second's (imports and loading: what is left when nothing compiles),
``<engine>_cpu_s`` the CPU seconds of the first with all the processes it started (less
sensitive to the load of a shared machine than the wall time). Engines:

* ``cove_game`` -- Pirate's Cove's game with its players (``cove play``), whose call tree holds
  the battle kernel's battle loop;
* ``cove_kernel`` -- the battle kernel alone (``cove battle``'s engine, ``combat_kernel.warm_up``);
* ``hunt`` -- Les Pirates' game (``hunt play``);
* ``express`` -- Pirates express's battle engine (``express`` battles).

``cove_hunt_s`` is ``cove_game_s + hunt_s``: issue 28's target for the two largest engines
(<= 60 s on 2 cores, floor 90 s). The last line is one JSON object. Run it in a fresh clone for
a figure a new user sees::

    python benchmarks/compile_cold.py [--engines cove_game,hunt] [--no-warm]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: what each engine's fresh process runs (a tiny job that compiles everything it calls)
JOBS = {
    "cove_game": (
        "from scenarios.loader import load_scenario\n"
        "from simulator.cove.api import play_games\n"
        "from simulator.cove.rules import CoveRules\n"
        "mix = list(load_scenario(None, CoveRules).rules.default_mix)\n"
        "play_games(None, mix, len(mix), 2, seed=1, quiet=False)\n"
    ),
    "cove_kernel": "from simulator.cove import combat_kernel\ncombat_kernel.warm_up()\n",
    "hunt": (
        "from simulator.hunt.api import load, play\n"
        "play(load(), 'runner', n=1, seed=1, quiet=False)\n"
    ),
    "express": (
        "from scenarios.loader import load_scenario\n"
        "from simulator.express import api\n"
        "from simulator.express.rules import ExpressRules\n"
        "rules = load_scenario(None, ExpressRules).rules\n"
        "p = api.make_pairing(api.mirrored_fleet(rules, 'spain'),"
        " api.mirrored_fleet(rules, 'chinese'), rules, 'gunline', 'pitched')\n"
        "api.run_pairings([p], 10, seed=1, quiet=False)\n"
    ),
}


def _run(code: str, cache: str) -> tuple[float, float]:
    """Wall and CPU seconds (with its children) of a fresh process running ``code``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--engines", default=",".join(JOBS), help="comma-separated, of " + ",".join(JOBS)
    )
    ap.add_argument("--no-warm", action="store_true", help="skip the second (cached) run")
    args = ap.parse_args(argv)
    engines = [e for e in args.engines.split(",") if e]
    unknown = [e for e in engines if e not in JOBS]
    if unknown:
        ap.error(f"unknown engines {', '.join(unknown)} (allowed: {', '.join(JOBS)})")
    load_before = os.getloadavg()[0]
    out: dict[str, float | None] = {}
    for name in engines:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
            wall, cpu = _run(JOBS[name], cache)
            warm = None if args.no_warm else _run(JOBS[name], cache)[0]
        out[f"{name}_s"] = round(wall, 1)
        out[f"{name}_cpu_s"] = round(cpu, 1)
        out[f"{name}_warm_s"] = None if warm is None else round(warm, 1)
        print(
            f"{name:12} cold {wall:7.1f} s wall {cpu:7.1f} s CPU"
            + ("" if warm is None else f"   cached {warm:5.1f} s"),
            flush=True,
        )
    if "cove_game_s" in out and "hunt_s" in out:
        out["cove_hunt_s"] = round(out["cove_game_s"] + out["hunt_s"], 1)
    out["cores"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    out["load_1min"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
