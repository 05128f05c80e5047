"""`broadside report`: the page is self-contained, every figure loads in headless Chromium, every
figure and table is backed by files, and the run is reproducible from its seed.

The report is rendered once per session at the hidden ``--size test`` (the same code path as
``quick`` with fewer games). Set ``BROADSIDE_ARTIFACTS=DIR`` to keep the report and the browser
screenshot in ``DIR/report`` (CI artefact); otherwise they go to pytest's temporary folder.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import cli

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
]
SEED = 20261130


@pytest.fixture(scope="session")
def report_dir(tmp_path_factory) -> Path:
    base = os.environ.get("BROADSIDE_ARTIFACTS")
    out = Path(base) / "report" if base else tmp_path_factory.mktemp("report") / "broadside-report"
    if out.exists():
        shutil.rmtree(out)
    res = CliRunner().invoke(
        cli.cli,
        [
            "report",
            "--size",
            "test",
            "--game",
            "all",
            "--seed",
            str(SEED),
            "--jobs",
            "1",
            "--quiet",
            "--out",
            str(out),
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output + repr(res.exception)
    summary = json.loads(res.stdout)
    assert Path(summary["index"]) == out / "index.html"
    (out / "summary.json").write_text(res.stdout)
    return out


class _Imgs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.external = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a)
        for key in ("src", "href"):
            v = a.get(key) or ""
            if (
                tag in ("link", "script", "img", "iframe", "source")
                and v
                and not v.startswith(("data:", "#"))
            ):
                self.external.append((tag, v))
        if tag == "link":
            self.external.append((tag, a.get("href")))


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_page_is_self_contained_and_every_figure_is_a_valid_png(report_dir):
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    p = _Imgs()
    p.feed(html)
    assert not p.external, p.external
    assert not re.search(r"url\(\s*['\"]?(https?:|//)", html), "CSS pulls an external resource"
    assert "@import" not in html and "@font-face" not in html
    assert len(p.imgs) >= 2
    for img in p.imgs:
        src = img["src"]
        assert src.startswith("data:image/png;base64,")
        w, h = _png_size(base64.b64decode(src.split(",", 1)[1]))
        assert w > 100 and h > 100
        assert img.get("alt"), "every figure has a plain-words alt text"


def test_every_figure_and_table_has_its_files(report_dir):
    figs = pd.read_csv(report_dir / "provenance_figures.csv")
    assert len(figs) >= 2
    for row in figs.itertuples():
        assert (report_dir / f"{row.figure}.png").stat().st_size > 0
        svg = (report_dir / f"{row.figure}.svg").read_text()
        assert "<svg" in svg
        assert (report_dir / row.table).exists(), row.table
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    shown = re.findall(
        r"<code>([\w\-]+)\.csv</code> \(and \.parquet\)\.</p><table><thead><tr>(.*?)</tr></thead>"
        r"<tbody>(.*?)</tbody>",
        html,
    )
    assert len(shown) >= 5
    for stem, head, body in shown:
        csv = pd.read_csv(report_dir / f"{stem}.csv")
        pq = pd.read_parquet(report_dir / f"{stem}.parquet")
        assert len(csv) == len(pq)
        # every table on the page is rows and columns of its CSV
        columns = re.findall(r"<th[^>]*>(.*?)</th>", head)
        assert set(columns) <= set(csv.columns), (stem, set(columns) - set(csv.columns))
        assert body.count("<tr>") <= len(csv)


def test_dice_section_numbers_are_exact_and_simulation_agrees(report_dir):
    from fractions import Fraction

    from simulator import dice

    df = pd.read_csv(report_dir / "dice_distribution.csv")
    for row in df.itertuples():
        exact = dice.volley_pmf(row.dice, row.hit_on)[row.hits]
        assert Fraction(row.p_exact_fraction) == exact
        assert row.mc_low <= row.p_mc <= row.mc_high
    # 135 cells: a bug in sampling would show as large z; 5 SE is far beyond chance here
    assert df["z"].abs().max() < 5
    sums = df.groupby(["dice", "hit_on"])["p_exact"].sum()
    assert (sums - 1).abs().max() < 1e-12


def test_provenance_records_seed_scenarios_versions_and_wall_time(report_dir):
    run = pd.read_csv(report_dir / "provenance_run.csv").set_index("item")["value"]
    assert run["root seed entropy"] == str(SEED)
    assert run["command line"].startswith("broadside")
    sections = pd.read_csv(report_dir / "provenance_sections.csv")
    assert {"Dice odds", "Pirate's Cove", "Pirates express", "Les Pirates"} <= set(
        sections["section"]
    )
    assert (sections["wall_time_s"] >= 0).all()
    pkgs = set(pd.read_csv(report_dir / "provenance_packages.csv")["package"])
    assert {"numpy", "pandas", "matplotlib", "python"} <= pkgs
    scen = pd.read_csv(report_dir / "provenance_scenarios.csv")
    assert set(scen["section"]) >= set(sections["section"]) - {"Dice odds"}
    assert scen["content_hash"].str.len().min() >= 16


def test_report_renders_in_headless_chromium_with_every_figure_loaded(report_dir, tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"{CHROMIUM} not installed (Debian package 'chromium'; .ci/run installs it): "
            "browser rendering not checked"
        )
    url = (report_dir / "index.html").resolve().as_uri()
    profile = tmp_path / "chromium-profile"
    dom = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
            "--dump-dom",
            url,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", dom.stdout)
    assert body, dom.stdout[:500]
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    assert attrs.get("data-js-errors") == "0", attrs
    total = int(attrs["data-figures-total"])
    assert total >= 2 and attrs["data-figures-loaded"] == str(total), attrs
    assert 'data-loaded="no"' not in dom.stdout
    console = [ln for ln in dom.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert not console, console
    shot = report_dir / "screenshot.png"
    res = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            "--virtual-time-budget=10000",
            f"--screenshot={shot}",
            "--window-size=1280,2400",
            url,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    w, h = _png_size(shot.read_bytes())
    assert (w, h) == (1280, 2400)
    print(f"report screenshot: {shot}")


@pytest.mark.slow
def test_same_seed_reproduces_the_tables_whatever_the_jobs(report_dir):
    from reports.sections import dice

    sections = pd.read_csv(report_dir / "provenance_sections.csv", dtype={"seed": str}).set_index(
        "section"
    )
    seed = int(sections.loc["Dice odds", "seed"])
    again, _, _ = dice.tables(dice.ROLLS["test"], seed, jobs=2, quiet=True)
    first = pd.read_csv(report_dir / "dice_distribution.csv")
    pd.testing.assert_frame_equal(first, pd.read_csv(io.StringIO(again.to_csv(index=False))))


def test_unwritable_out_is_a_one_line_error_before_any_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cli; cli.main()",
            "report",
            "--out",
            str(blocker / "sub"),
            "--size",
            "test",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(cli.__file__).parent,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "not writable" in lines[0], proc.stderr


def test_bad_scenario_file_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "cove"\nrules_version = "x"\nextends = "standard"\nnot_a_rule = 3\n')
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cli; cli.main()",
            "report",
            "--scenario",
            str(bad),
            "--out",
            str(tmp_path / "o"),
            "--size",
            "test",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(cli.__file__).parent,
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "not_a_rule" in proc.stderr
