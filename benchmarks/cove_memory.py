"""Benchmark: peak memory of ``broadside cove play`` against ``-n`` (issue 16: memory flat in n).

Runs the command as a new user would, in a child process, at two sizes, with and without
``--out`` (per-seat rows stream to the files chunk by chunk; without ``--out`` only the summary is
kept), and reads the child's peak resident set (``ru_maxrss``) when it exits. One worker
(``--jobs 1``): the figure is the process that would hold the rows. The v1 mix runs on the
compiled engine, so the sizes are large enough for rows to matter (about 2 kB a game with the
cards table).

    python benchmarks/cove_memory.py [--small 2000] [--large 20000]

Prints a table and, last, one JSON object: ``peak_mib`` per (size, out) and ``growth`` = peak at
the large size over the small one (flat: about 1).
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

ROOT = Path(__file__).resolve().parents[1]
MIX = "plunderer-v1,brawler-v1,tavern-v1,balanced-v1"


def _peak(n: int, out: str | None) -> tuple[float, float]:
    """(peak RSS of the child in MiB, wall seconds) of one ``cove play`` run."""
    cmd = [sys.executable, str(ROOT / "cli.py"), "cove", "play", "--players", "4"]
    cmd += ["--strategies", MIX, "-n", str(n), "--seed", "1", "--jobs", "1", "--quiet"]
    cmd += ["--format", "json"]
    if out is not None:
        cmd += ["--out", out]
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child execs the command, so its rusage is the command's alone
        os.execv(sys.executable, cmd)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status})")
    return usage.ru_maxrss / 1024.0, wall  # Linux: kilobytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--large", type=int, default=20000)
    args = ap.parse_args()
    subprocess.run(  # compile (or load) the engine once, outside the measures
        [sys.executable, str(ROOT / "cli.py"), "cove", "play", "--strategies", MIX, "-n", "4"],
        check=True,
        capture_output=True,
    )
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (args.small, args.large):
            for out in (False, True):
                folder = str(Path(tmp) / f"out-{n}") if out else None
                rows[(n, out)] = _peak(n, folder)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'games':>8} {'--out':>6} {'peak MiB':>9} {'wall s':>7}")
    for (n, out), (mib, wall) in rows.items():
        print(f"{n:>8} {('yes' if out else 'no'):>6} {mib:>9.1f} {wall:>7.1f}")
    growth = {
        ("out" if out else "no_out"): rows[(args.large, out)][0] / rows[(args.small, out)][0]
        for out in (False, True)
    }
    print(
        json.dumps(
            {
                "benchmark": "cove_memory",
                "strategies": MIX,
                "peak_mib": {
                    f"{n}_{'out' if o else 'no_out'}": round(v[0], 1) for (n, o), v in rows.items()
                },
                "growth": {k: round(v, 3) for k, v in growth.items()},
                "sizes": [args.small, args.large],
                "self_maxrss_mib": round(
                    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
                ),
                "load_avg_1min": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
