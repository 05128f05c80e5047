"""One check of a compiled package's stale-cache drop (``simulator.compiled.drop_stale_cache``),
shared by the three games' tests."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path


def check_drops_stale_cache(
    drop: Callable[[Path], bool],
    src: Path,
    modules: Sequence[str],
    tmp_path: Path,
    cache_files: Sequence[str],
    kept_file: str,
    edited: str,
) -> None:
    """Copy the package's ``modules`` from ``src`` to ``tmp_path``: with no stamp yet, ``drop``
    deletes its numba ``cache_files`` and leaves ``kept_file`` (a .pyc); with the same sources it
    keeps them; after an edit to ``edited`` (a module whose constants others freeze into their
    machine code) it deletes them again."""
    for name in modules:
        shutil.copy(src / f"{name}.py", tmp_path / f"{name}.py")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for f in (*cache_files, kept_file):
        (cache / f).write_text("x")
    assert drop(tmp_path)  # no stamp yet: dropped
    assert not any((cache / f).exists() for f in cache_files)
    assert (cache / kept_file).exists()
    for f in cache_files:
        (cache / f).write_text("x")
    assert not drop(tmp_path)  # same sources: kept
    assert all((cache / f).exists() for f in cache_files)
    with open(tmp_path / edited, "a") as f:
        f.write("\nNEW_CONSTANT = 99\n")
    assert drop(tmp_path)
    assert not any((cache / f).exists() for f in cache_files)
