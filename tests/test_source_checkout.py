"""``python cli.py ...`` from a source checkout whose dependencies are installed but not the
project itself (README: it works as well as ``broadside ...``): no package metadata of
Broadside's is needed to run a command, print the version or write the report's package
versions."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from reports import report
from simulator import __version__

ROOT = Path(__file__).resolve().parents[1]


def _site_packages() -> Path:
    for path in site.getsitepackages():
        if (Path(path) / "numpy").exists():
            return Path(path)
    raise AssertionError("no site-packages holding numpy")  # pragma: no cover


@pytest.fixture(scope="module")
def bare_checkout(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A checkout without Broadside's metadata: ``cli.py`` copied and the packages linked (no
    ``broadside.egg-info``), and the installed dependencies linked without Broadside's
    ``dist-info`` and editable finder; run with ``python -S`` so only those paths count."""
    tmp = tmp_path_factory.mktemp("bare")
    checkout, deps = tmp / "checkout", tmp / "deps"
    checkout.mkdir()
    deps.mkdir()
    shutil.copy(ROOT / "cli.py", checkout / "cli.py")
    for package in ("simulator", "scenarios", "reports"):
        (checkout / package).symlink_to(ROOT / package, target_is_directory=True)
    for entry in _site_packages().iterdir():
        name = entry.name.lower()
        if name.startswith(("broadside", "__editable__")) or name.endswith(".pth"):
            continue
        (deps / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    env = {**os.environ, "PYTHONPATH": str(deps)}
    return checkout, env


def _run(checkout: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-S", str(checkout / "cli.py"), *args],
        capture_output=True,
        text=True,
        cwd=checkout,
        env=env,
        timeout=300,
    )


def test_the_bare_checkout_really_lacks_the_metadata(bare_checkout):
    checkout, env = bare_checkout
    probe = subprocess.run(
        [sys.executable, "-S", "-c", "import importlib.metadata as m; m.version('broadside')"],
        capture_output=True,
        text=True,
        cwd=checkout,
        env=env,
    )
    assert probe.returncode != 0 and "PackageNotFoundError" in probe.stderr


def test_cli_runs_and_prints_its_version_without_the_metadata(bare_checkout):
    checkout, env = bare_checkout
    res = _run(checkout, env, "odds", "volley", "--dice", "3", "--hit-on", "5", "--format", "json")
    assert res.returncode == 0, res.stderr[-2000:]
    assert json.loads(res.stdout)["probabilities"]["0"] == pytest.approx(8 / 27)
    res = _run(checkout, env, "--version")
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == f"broadside, version {__version__}"


def test_the_version_is_the_projects():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text)["project"]["version"] == __version__


def test_package_versions_fall_back_to_the_imported_modules(monkeypatch):
    """Without Broadside's metadata the report's versions block lists Broadside's own version
    and every third-party package imported, by its distribution's version."""
    import numpy
    import pandas

    real = metadata.metadata

    def missing(name):
        if name == "broadside":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "metadata", missing)
    df = report.package_versions()
    versions = dict(zip(df["package"], df["version"]))
    assert versions["broadside"] == f"{__version__} (not installed)"
    assert versions["numpy"] == numpy.__version__ and versions["pandas"] == pandas.__version__
    assert {"python", "platform"} <= set(versions)
    assert set(df.loc[~df["package"].isin(["python", "platform", "broadside"]), "required_by"]) == {
        "imported"
    }
