"""Profile target: the compiled default-mix game alone, in one process, for ``perf``.

Plays ``--games`` four-player games of the scenario's default mix (or ``--mix``) on the compiled
engine (:class:`simulator.cove.fast.engine.FastGames`), the deals ``Block(g, g, 1, seed)``, their
stream states read before the clock starts, so the timing is the compiled ``play_chunk`` only (no
packing, no pandas). Each repeat uses a fresh engine (fresh duel, lone and company memos: a
repeat does not profit from the previous one's answers). Prints the milliseconds per game of each
repeat, the best, and the load, then one JSON line.

To see where the time goes function by function: numba's LLVM writes no symbol map for
``perf`` here (``NUMBA_ENABLE_PROFILING`` registers no perf listener in this llvmlite build), so
``--perf-map`` writes one itself, ``/tmp/perf-<pid>.map``: it keeps the object code of every
library numba loads from its cache, reads its function symbols with ``nm``, and places them at
the address the library's code was loaded at (the offset most of its symbols agree on). A
function LLVM inlined is counted in its caller::

    perf record -e cpu-clock -F 2000 -g -o /tmp/cove.perf \\
        python benchmarks/cove_profile.py --games 400 --repeat 3 --perf-map
    perf report -i /tmp/cove.perf --no-children --sort symbol | head -60

The compiled code keeps no frame pointers, so ``perf``'s call graphs stop at the JIT code.
``--callers`` reads a recording made with ``--call-graph dwarf,64`` (64 bytes of stack per
sample) and charges each sample in numba's reference counting (``NRT_incref`` /
``NRT_decref``, leaves that push nothing: the stack's first word is the return address) to the
compiled function that called it; it prints the share of all samples by function itself and by
the caller of the reference counts::

    perf record -e cpu-clock:u -F 2000 --call-graph dwarf,64 -o /tmp/cove.perf \\
        python benchmarks/cove_profile.py --games 300 --repeat 2 --perf-map
    python benchmarks/cove_profile.py --callers /tmp/cove.perf /tmp/perf-<pid>.map

    python benchmarks/cove_profile.py [--games 400] [--repeat 3] [--seed 16] [--players 4]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenarios.loader import load_scenario
from simulator.cove.fast.engine import FastGames
from simulator.cove.fast.rng import R_COLS, state_of
from simulator.cove.rules import CoveRules
from simulator.runner import Block


def _keep_object_code() -> list:
    """Patch numba's cache loader to keep each library it loads with its object code."""
    from numba.core import codegen

    kept: list = []
    original = codegen.CPUCodeLibrary._unserialize.__func__

    def unserialize(cls, cg, state):
        lib = original(cls, cg, state)
        if state[1] == "object":
            kept.append((lib, state[2][0]))
        return lib

    codegen.CPUCodeLibrary._unserialize = classmethod(unserialize)
    return kept


def _write_perf_map(kept: list) -> Path:
    """``/tmp/perf-<pid>.map`` (start, size, name) of every function of the kept libraries."""
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (lib, obj) in enumerate(kept):
            path = Path(tmp) / f"lib{i}.o"
            path.write_bytes(obj)
            out = subprocess.run(
                ["nm", "-S", "--defined-only", str(path)], capture_output=True, text=True
            ).stdout
            syms = []
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 4 and parts[2] in "TtWw":
                    syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
            deltas = Counter()
            for off, _size, name in syms:
                try:
                    addr = lib.get_pointer_to_function(name)
                except Exception:  # a symbol the engine does not export
                    addr = 0
                if addr:
                    deltas[addr - off] += 1
            if not deltas:
                continue
            delta = deltas.most_common(1)[0][0]
            lines += [f"{delta + off:x} {size:x} {name}" for off, size, name in syms]
    from numba.core.runtime import rtsys

    for name in ("NRT_incref", "NRT_decref", "nrt_atomic_add", "nrt_atomic_sub"):
        addr = rtsys.library.get_pointer_to_function(name)
        if addr:  # numba's reference counting, compiled at start-up (sizes: an upper bound)
            lines.append(f"{addr:x} 40 {name}")
    dest = Path(f"/tmp/perf-{os.getpid()}.map")
    dest.write_text("\n".join(lines) + "\n")
    return dest


def _short(name: str | None) -> str:
    """``module.function`` of a numba symbol (``_ZN9simulator4cove4fast4lone4_runB...``)."""
    if name is None:
        return "?"
    if not name.startswith("_ZN"):
        return name
    parts, rest = [], name[3:]
    while rest and rest[0].isdigit():
        digits = re.match(r"\d+", rest).group(0)
        size = int(digits)
        parts.append(rest[len(digits) : len(digits) + size])
        rest = rest[len(digits) + size :]
    return ".".join(parts[-2:])


def _callers(data: str, map_path: str, top: int = 40) -> None:
    """Print the shares of ``perf report -D``'s samples by function and by the caller of the
    reference counts (see the module docstring)."""
    rows = []
    for line in Path(map_path).read_text().splitlines():
        addr, size, name = line.split(None, 2)
        rows.append((int(addr, 16), int(size, 16), name))
    rows.sort()
    starts = [r[0] for r in rows]

    def symbol(addr: int) -> str:
        i = bisect.bisect(starts, addr) - 1
        if i >= 0 and addr < rows[i][0] + rows[i][1]:
            return _short(rows[i][2])
        return "?"  # not compiled code of the map (Python, libraries, the kernel)

    dump = subprocess.run(
        ["perf", "report", "-i", data, "-D"], capture_output=True, text=True
    ).stdout
    record = bytearray()
    sample = None
    own: Counter = Counter()
    by_caller: Counter = Counter()
    total = 0
    for line in dump.splitlines():
        hexrow = re.match(r"^\.\s+([0-9a-f]{4}):\s+((?:[0-9a-f]{2}\s)+)", line)
        if hexrow:  # the raw record, printed before its decoded lines
            if hexrow.group(1) == "0000":
                record = bytearray()
            record += bytes(int(x, 16) for x in hexrow.group(2).split())
            continue
        head = re.search(r"PERF_RECORD_SAMPLE\(.*?\): \d+/\d+: (0x[0-9a-f]+)", line)
        if head:
            sample = (bytes(record), int(head.group(1), 16))
            continue
        if line.startswith("... ustack:") and sample is not None:
            rec, ip = sample
            sample = None
            off = int(re.search(r"offset (0x[0-9a-f]+)", line).group(1), 16)  # size, then data
            total += 1
            name = symbol(ip)
            own[name] += 1
            if name in ("NRT_incref", "NRT_decref") and off + 16 <= len(rec):
                by_caller[symbol(struct.unpack_from("<Q", rec, off + 8)[0])] += 1
    if not total:
        raise SystemExit(f"{data}: no samples with a user stack (record with --call-graph dwarf)")
    print(f"{total} samples; by function itself (?: not compiled code):")
    for name, n in own.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("numba's reference counts (NRT_incref/NRT_decref) by the function that called them:")
    for name, n in by_caller.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {name}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--mix", default=None, help="comma-separated strategies (default: the mix)")
    ap.add_argument("--perf-map", action="store_true", help="write /tmp/perf-<pid>.map")
    ap.add_argument(
        "--callers",
        nargs=2,
        metavar=("PERF_DATA", "PERF_MAP"),
        help="report a recording by function and by the callers of the reference counts",
    )
    args = ap.parse_args(argv)
    if args.callers:
        _callers(*args.callers)
        return 0
    kept = _keep_object_code() if args.perf_map else []

    rules = load_scenario(None, CoveRules).rules
    mix = args.mix.split(",") if args.mix else list(rules.default_mix)
    names = [mix[s % len(mix)] for s in range(args.players)]
    n = args.players
    rs_all = np.zeros((args.games, n + 1, R_COLS), np.uint64)
    for g in range(args.games):
        deal = Block(g, g, 1, args.seed)
        rs_all[g] = np.stack(
            [state_of(deal.rng("dice"))] + [state_of(deal.rng("players", s)) for s in range(n)]
        )
    strat = np.zeros((args.games, n), np.int64)
    warm = FastGames(rules, names)
    strat[:] = [warm.index[nm] for nm in names]
    t = time.perf_counter()
    warm.play_states(strat[:2], rs_all[:2])  # compile or load from numba's cache
    load_s = time.perf_counter() - t
    ms = []
    for _ in range(args.repeat):
        eng = FastGames(rules, names)
        t = time.perf_counter()
        eng.play_states(strat, rs_all)
        ms.append(1000 * (time.perf_counter() - t) / args.games)
    load = os.getloadavg()[0]
    print(f"compiled {','.join(names)}: {args.games} games x {args.repeat}, seed {args.seed}")
    print("ms/game: " + " ".join(f"{m:.3f}" for m in ms) + f"  (best {min(ms):.3f})")
    print(f"first call {load_s:.1f} s; load average (1 min) {load:.2f} on {os.cpu_count()} cores")
    out = {
        "games": args.games,
        "repeat": args.repeat,
        "seed": args.seed,
        "mix": names,
        "ms_per_game": [round(m, 4) for m in ms],
        "best_ms_per_game": round(min(ms), 4),
        "games_per_s_1core_best": round(1000 / min(ms), 1),
        "load_1min": round(load, 2),
    }
    if args.perf_map:
        print(f"perf map: {_write_perf_map(kept)} ({len(kept)} libraries)", file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
