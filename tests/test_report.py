"""`broadside report`: the page is self-contained, every figure loads in headless Chromium, every
figure and table is backed by files, and the run is reproducible from its seed.

The report is rendered once per session at the hidden ``--size test`` (the same code path as
``quick`` with fewer games). Set ``BROADSIDE_ARTIFACTS=DIR`` to keep the report in ``DIR/report``
(CI artefact); otherwise it goes to pytest's temporary folder. The browser screenshots (1,400 px
and phone width) are saved beside the report and in ``$BROADSIDE_ARTIFACTS/report/`` (default
``/tmp/broadside-artifacts/report/``).
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import math
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
ARTIFACTS = Path(os.environ.get("BROADSIDE_ARTIFACTS", "/tmp/broadside-artifacts")) / "report"
#: screenshots: (file name, window width, window height)
SCREENSHOTS = (("screenshot-1400.png", 1400, 2400), ("screenshot-phone.png", 390, 2400))


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
        r"<code>([\w\-]+)\.csv</code></a> \(and \.parquet\)\.</p>(?:<details><summary>[^<]*"
        r'</summary>)?<div class="tw" data-stem="[\w\-]+"><table><thead><tr>(.*?)</tr></thead>'
        r"<tbody>(.*?)</tbody>",
        html,
    )
    assert len(shown) >= 5
    for stem, head, body in shown:
        csv = pd.read_csv(report_dir / f"{stem}.csv")
        pq = pd.read_parquet(report_dir / f"{stem}.parquet")
        assert len(csv) == len(pq)
        # every table on the page is rows and columns of its CSV
        columns = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<th[^>]*>(.*?)</th>", head)]
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
    replay = run["replay with"].split()  # a command the CLI accepts: --game takes one value
    assert replay[:2] == ["broadside", "report"] and replay[replay.index("--game") + 1] == "all"
    assert replay[replay.index("--seed") + 1] == str(SEED)
    sections = pd.read_csv(report_dir / "provenance_sections.csv")
    assert {"Dice odds", "Pirate's Cove", "Pirates express", "Les Pirates"} <= set(
        sections["section"]
    )
    assert (sections["wall_time_s"] >= 0).all()
    pkgs = set(pd.read_csv(report_dir / "provenance_packages.csv")["package"])
    assert {"numpy", "pandas", "matplotlib", "python"} <= pkgs
    scen = pd.read_csv(report_dir / "provenance_scenarios.csv")
    assert set(scen["section"]) >= set(sections["section"]) - {"Dice odds", "Findings"}
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
            "--window-size=1400,2000",
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
    assert attrs.get("data-wide-tables", "") == "", (
        "tables wider than the page at the default window width (key columns would need "
        f"side-scrolling): {attrs.get('data-wide-tables')}"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, width, height in SCREENSHOTS:
        shot = report_dir / name
        res = subprocess.run(
            [
                CHROMIUM,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=10000",
                f"--screenshot={shot}",
                f"--window-size={width},{height}",
                url,
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert res.returncode == 0, res.stderr[-2000:]
        assert _png_size(shot.read_bytes()) == (width, height)
        if shot.parent.resolve() != ARTIFACTS.resolve():
            shutil.copyfile(shot, ARTIFACTS / name)
        print(f"report screenshot ({width} px): {ARTIFACTS / name}")


def test_wide_tables_fit_at_1400_px(report_dir, tmp_path):
    """At 1,400 px every table's shown columns fit without side-scrolling (the page's script
    measures each table, folded ones opened)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed: layout not checked")
    dom = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=10000",
            "--window-size=1400,2000",
            "--dump-dom",
            (report_dir / "index.html").resolve().as_uri(),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
    )
    body = re.search(r"<body([^>]*)>", dom.stdout)
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    assert "data-wide-tables" in attrs, attrs
    assert attrs["data-wide-tables"] == "", attrs["data-wide-tables"]


# --------------------------------------------------------------------------------------------
# Findings


def _findings(report_dir) -> pd.DataFrame:
    return pd.read_csv(report_dir / "findings.csv", keep_default_na=False, na_values=[""])


def test_findings_section_comes_first_and_findings_csv_has_exactly_its_columns(report_dir):
    from reports.findings import CSV_COLUMNS, MAX_FINDINGS, MIN_FINDINGS, TAGS

    html = (report_dir / "index.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section id="([\w-]+)">', html)
    assert sections[0] == "findings", sections
    assert "<h2>Findings</h2>" in html
    df = _findings(report_dir)
    assert tuple(df.columns) == CSV_COLUMNS
    assert MIN_FINDINGS <= len(df) <= MAX_FINDINGS
    assert set(df["tag"]) <= set(TAGS)
    assert df["finding"].is_unique
    for row in df.itertuples():
        # every finding has its interval, around its value, and says it in its sentence
        assert math.isfinite(row.ci_low) and math.isfinite(row.ci_high), row
        assert row.ci_low <= row.value <= row.ci_high, row
        assert "[" in row.finding and "]" in row.finding, row.finding
        assert row.unit and row.game in {"cove", "express", "hunt"}
    # the page lists the same findings, in order, each with its tag and a link to its evidence
    items = re.findall(r'<li class="finding" data-tag="([\w-]+)">(.*?)</li>', html)
    assert [t for t, _ in items] == list(df["tag"])
    ids = set(re.findall(r' id="([\w\-]+)"', html))
    for _, item in items:
        for anchor in re.findall(r'href="#([\w\-]+)"', item):
            assert anchor in ids, f"finding links to #{anchor}, which is not on the page"


def test_each_finding_is_recomputable_from_the_csv_row_it_cites(report_dir):
    """value, ci_low and ci_high are the cited row's own numbers; the row is found by its key."""
    from reports.findings import parse_evidence

    df = _findings(report_dir)
    for row in df.itertuples():
        cited = parse_evidence(row.evidence)
        assert cited, row.evidence
        for i, (file, key, (v, lo, hi)) in enumerate(cited):
            table = pd.read_csv(report_dir / file)
            sel = pd.Series(True, index=table.index)
            for k, want in key.items():
                sel &= table[k].astype(str) == want
            rows = table[sel]
            assert len(rows) == 1, (row.evidence, key, len(rows))
            r = rows.iloc[0]
            assert r[lo] <= r[v] <= r[hi], (file, key)
            if i == 0:  # the baseline row holds the finding's numbers
                assert math.isclose(r[v], row.value, rel_tol=1e-12, abs_tol=1e-15), (file, key)
                assert math.isclose(r[lo], row.ci_low, rel_tol=1e-12, abs_tol=1e-15)
                assert math.isclose(r[hi], row.ci_high, rel_tol=1e-12, abs_tol=1e-15)


def test_win_rates_behind_the_findings_are_recomputable_from_the_seat_tables(report_dir):
    """The strategy and seat win rates the findings cite are the per-seat tables' mean scores,
    with their Wilson intervals."""
    from simulator.stats import wilson_interval

    seats = pd.read_csv(report_dir / "cove_seats.csv")
    for stem, col, by in (
        ("cove_strategy_win_rates", "strategy", "strategy"),
        ("cove_seat_advantage", "seat_in_turn_order", "seat"),
    ):
        table = pd.read_csv(report_dir / f"{stem}.csv")
        for r in table.itertuples():
            grp = seats[seats[by] == getattr(r, col)]
            assert r.n == len(grp)
            assert math.isclose(r.win_rate, grp["score"].mean(), rel_tol=1e-12)
            lo, hi = wilson_interval(grp["score"].sum(), len(grp))
            assert math.isclose(r.ci_low, lo, rel_tol=1e-9) and math.isclose(r.ci_high, hi)


def test_findings_are_ranked_by_standardised_effect(report_dir):
    from reports.findings import parse_evidence

    df = _findings(report_dir)
    z = []
    for row in df.itertuples():
        file, key, (v, lo, hi) = parse_evidence(row.evidence)[0]
        null = _null_of(row.finding)
        half = (row.ci_high - row.value) if null >= row.value else (row.value - row.ci_low)
        z.append(math.inf if half == 0 and row.value != null else abs(row.value - null) / half)
    assert all(a >= b - 1e-9 for a, b in itertools.pairwise(z)), z


def _null_of(sentence: str) -> float:
    m = re.search(r"(?:fair share of|an even) (\d+)%", sentence)
    return int(m.group(1)) / 100 if m else 0.0


def test_every_figure_says_which_players_produced_it(report_dir):
    figs = pd.read_csv(report_dir / "provenance_figures.csv")
    assert figs["players"].notna().all()
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    for stem, cap in re.findall(
        r'<figure id="fig-([\w\-]+)">.*?<figcaption>(.*?)</figcaption>', html
    ):
        if stem.startswith("dice_"):
            continue
        assert "Players: " in cap, stem


def test_page_has_no_literal_markup_and_integers_as_integers(report_dir):
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    body = re.sub(r"<(script|style)>.*?</\1>", "", html, flags=re.S)
    text = re.sub(r"<[^>]+>", "", body)
    assert "`" not in text, "literal backticks on the page"
    for head, rows in re.findall(r"<thead><tr>(.*?)</tr></thead><tbody>(.*?)</tbody>", html):
        cols = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<th[^>]*>(.*?)</th>", head)]
        for tr in re.findall(r"<tr>(.*?)</tr>", rows):
            cells = re.findall(r"<td[^>]*>(.*?)</td>", tr)
            for c, v in zip(cols, cells):
                assert not re.fullmatch(r"-?[\d,]+\.0", v), f"{c}: {v} shown as a float"


def test_scenario_paths_name_the_file_that_was_loaded(report_dir):
    scen = pd.read_csv(report_dir / "provenance_scenarios.csv")
    variants = scen[(scen["game"] == "hunt") & scen["name"].str.contains(r"\+")]
    assert len(variants) >= 5
    for r in variants.itertuples():
        name = r.name.split("+", 1)[1]
        assert r.path.endswith(f"variants/{name}.toml"), (r.name, r.path)
        assert Path(r.path).exists()


def test_package_versions_cover_every_dependency(report_dir):
    from importlib.metadata import requires

    pkgs = pd.read_csv(report_dir / "provenance_packages.csv").set_index("package")["version"]
    for name in ("numba", "llvmlite", "numpy", "pandas", "scipy", "optuna", "pyarrow"):
        assert name in pkgs.index and pkgs[name] != "not installed", name
    declared = {re.match(r"[A-Za-z0-9._-]+", r).group(0).lower() for r in requires("broadside")}
    assert declared <= set(pkgs.index), declared - set(pkgs.index)


def test_print_stylesheet_and_folded_long_tables(report_dir):
    from reports.html import FOLD_ROWS

    html = (report_dir / "index.html").read_text(encoding="utf-8")
    assert "@media print" in html and "@media (max-width" in html
    folded = re.findall(r"<details><summary>Show the table \(([\d,]+) rows\)</summary>", html)
    assert folded and all(int(n.replace(",", "")) > FOLD_ROWS for n in folded)


def test_dice_self_check_says_what_correct_dice_show(report_dir):
    check = pd.read_csv(report_dir / "dice_self_check.csv").iloc[0]
    dist = pd.read_csv(report_dir / "dice_distribution.csv")
    assert math.isclose(check["this_run"], dist["z"].abs().max(), rel_tol=1e-12)
    assert check["correct_dice_median"] <= check["correct_dice_q95"] <= check["correct_dice_q99"]
    assert 0 <= check["share_of_correct_runs_below"] <= 1
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    assert "a correct dice code shows" in html


def test_every_absence_is_explained_where_it_appears(report_dir):
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    block = re.search(r'<ul class="absences">(.*?)</ul>', html, flags=re.S)
    if block is None:
        pytest.skip("nothing was absent in this run")
    for anchor in re.findall(r'href="#([\w\-]+)"', block.group(1)):
        m = re.search(rf'<p class="explain" id="{anchor}">(.*?)</p>', html)
        assert m, anchor
        assert re.search(r"\d", m.group(1)), f"{anchor}: an explanation without a number"


def test_every_saved_population_is_measured_or_its_refusal_said(report_dir):
    """Each file of scenarios/<game>/populations/ is listed in the game's populations table; a
    used one has its strong-play rows (seats and gains), a refused one its one-line reason."""
    from scenarios.loader import SCENARIO_ROOT

    for game in ("cove", "express", "hunt"):
        files = {p.stem for p in (SCENARIO_ROOT / game / "populations").glob("*.toml")}
        if not files:
            continue
        pops = pd.read_csv(report_dir / f"{game}_populations.csv", keep_default_na=False)
        assert set(pops["population"]) == files, game
        used = set(pops.loc[pops["status"] == "used", "population"])
        refused = pops[pops["status"] != "used"]
        assert all(refused["status"].str.contains("scenario")), refused
        if used:
            for what in ("seats", "gains"):
                t = pd.read_csv(report_dir / f"{game}_strong_{what}.csv")
                assert set(t["population"]) == used, (game, what)


def test_never_fought_pirates_are_explained_from_the_decision_records(report_dir):
    eng = pd.read_csv(report_dir / "cove_engagement.csv")
    rec = pd.read_csv(report_dir / "cove_pirate_record.csv")
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    assert set(eng["opponent"]) | {"Royal Navy"} >= set(rec["opponent"])
    for r in rec[rec["battles"] == 0].itertuples():
        if r.pirate not in set(eng["pirate"]):
            continue
        m = re.search(rf'<p class="explain" id="cove-never-{r.pirate}">(.*?)</p>', html)
        assert m and "recorded games" in m.group(1), r.pirate


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
