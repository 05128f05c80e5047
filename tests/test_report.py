"""`broadside report`: the page is self-contained, every figure loads in headless Chromium, every
figure and table is backed by files, and the run is reproducible from its seed.

The report read here is the README's main job (``broadside report --seed 2026``, at the hidden
``--size test``: the same code path as ``quick`` with fewer games), run once per test run by the
``main_job`` fixture of ``tests/conftest.py``. Set ``BROADSIDE_ARTIFACTS=DIR`` to keep a copy in
``DIR/report`` (CI artefact). The browser screenshots (1,400 px and phone width) are saved beside
the report and in ``$BROADSIDE_ARTIFACTS/report/`` (default ``/tmp/broadside-artifacts/report/``).
"""

from __future__ import annotations

import base64
import io
import itertools
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
ARTIFACTS = Path(os.environ.get("BROADSIDE_ARTIFACTS", "/tmp/broadside-artifacts")) / "report"
#: screenshots: (file name, window width, window height)
SCREENSHOTS = (("screenshot-1400.png", 1400, 2400), ("screenshot-phone.png", 390, 2400))


@pytest.fixture(scope="session")
def main_job_seed(main_job) -> int:
    """The seed of the README's main job (``--seed``)."""
    _cwd, cmd, _res = main_job
    return int(cmd[cmd.index("--seed") + 1])


@pytest.fixture(scope="session")
def report_dir(main_job) -> Path:
    """The test-size report of every game: the README's main job, run once per test run by the
    ``main_job`` fixture (``tests/conftest.py``), which ``test_readme`` checks as a command.
    With ``BROADSIDE_ARTIFACTS`` set, a copy is kept in ``$BROADSIDE_ARTIFACTS/report``."""
    cwd, cmd, res = main_job
    assert res["returncode"] == 0, res["stderr"][-3000:]
    out = cwd / "broadside-report"
    assert (out / "index.html").is_file() and f"{out.name}/index.html" in res["stdout"] + res[
        "stderr"
    ], res["stdout"][-2000:]
    base = os.environ.get("BROADSIDE_ARTIFACTS")
    if base:
        shutil.copytree(out, Path(base) / "report", dirs_exist_ok=True)
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
        r"</summary>)?(?:<input [^>]*><label [^>]*>all columns</label>)?"
        r'<div class="tw" data-stem="[\w\-]+"><table><thead><tr>(.*?)</tr></thead>'
        r"<tbody>(.*?)</tbody>",
        html,
    )
    assert len(shown) >= 5
    for stem, head, body in shown:
        csv = pd.read_csv(report_dir / f"{stem}.csv")
        pq = pd.read_parquet(report_dir / f"{stem}.parquet")
        assert len(csv) == len(pq)
        # every table on the page is rows and columns of its CSV (headers in words, the CSV's
        # column in data-col)
        columns = re.findall(r'<th[^>]* data-col="([^"]*)"', head)
        assert len(columns) == head.count("<th"), stem
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


def test_provenance_records_seed_scenarios_versions_and_wall_time(report_dir, main_job_seed):
    run = pd.read_csv(report_dir / "provenance_run.csv").set_index("item")["value"]
    assert run["root seed entropy"] == str(main_job_seed)
    assert run["command line"].startswith("broadside")
    replay = run["replay with"].split()  # a command the CLI accepts: --game takes one value
    assert replay[:2] == ["broadside", "report"] and replay[replay.index("--game") + 1] == "all"
    assert replay[replay.index("--seed") + 1] == str(main_job_seed)
    sections = pd.read_csv(report_dir / "provenance_sections.csv")
    assert {"Dice odds", "Pirate's Cove", "Pirates express", "Les Pirates"} <= set(
        sections["section"]
    )
    assert (sections["wall_time_s"] >= 0).all()
    pkgs = set(pd.read_csv(report_dir / "provenance_packages.csv")["package"])
    assert {"numpy", "pandas", "matplotlib", "python"} <= pkgs
    scen = pd.read_csv(report_dir / "provenance_scenarios.csv")
    assert set(scen["section"]) >= set(sections["section"]) - {
        "Dice odds",
        "Findings",
        "Verdicts",
        "Glossary",
    }
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


def test_verdicts_then_findings_come_first_and_findings_csv_has_exactly_its_columns(report_dir):
    from reports.findings import CSV_COLUMNS, MAX_FINDINGS

    html = (report_dir / "index.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section id="([\w-]+)">', html)
    assert sections[:2] == ["verdicts", "findings"], sections
    assert "<h2>Findings</h2>" in html
    df = _findings(report_dir)
    assert tuple(df.columns) == CSV_COLUMNS
    assert len(df) <= MAX_FINDINGS
    # findings are conclusive claims: tagged rules, players or baseline-only
    assert set(df["tag"]) <= {"rules", "players", "baseline-only"}
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
    """The strategy and seat win rates the claims cite are the per-seat tables' mean scores,
    with their Wilson intervals (counts discounted by the deals' design effect) and integer
    counts (reference rows come from their own games)."""
    from simulator.stats import wilson_interval

    seats = pd.read_csv(report_dir / "cove_seats.csv")
    for stem, col, by in (
        ("cove_strategy_win_rates", "strategy", "strategy"),
        ("cove_seat_advantage", "seat_in_turn_order", "seat"),
    ):
        table = pd.read_csv(report_dir / f"{stem}.csv")
        if "reference" in table:
            table = table[~table["reference"]]
        for r in table.itertuples():
            grp = seats[seats[by] == getattr(r, col)]
            assert r.n == len(grp)
            assert r.wins == int((grp["score"] == 1).sum())
            assert r.shared == int(((grp["score"] > 0) & (grp["score"] < 1)).sum())
            assert math.isclose(r.win_rate, grp["score"].mean(), rel_tol=1e-12)
            # a deal's rotations replay its dice: the design effect of the deals, at least 1
            x = grp["score"].to_numpy(float)
            per = grp.groupby(grp["game"] // 4)["score"].agg(["sum", "count"])
            resid = per["sum"] - x.mean() * per["count"]
            var_cl = (resid**2).sum() * len(per) / (len(per) - 1) / len(x) ** 2
            deff = max(1.0, var_cl / (x.var(ddof=1) / len(x)))
            assert math.isclose(r.design_effect, deff, rel_tol=1e-9)
            lo, hi = wilson_interval(x.sum() / deff, len(x) / deff)
            assert math.isclose(r.ci_low, lo, rel_tol=1e-9) and math.isclose(r.ci_high, hi)


def test_findings_are_ranked_by_effect_size(report_dir):
    claims = pd.read_csv(report_dir / "claims.csv", keep_default_na=False, na_values=[""])
    effect = dict(zip(claims["evidence"], claims["effect_size"]))
    df = _findings(report_dir)
    sizes = [effect[row.evidence.split("; ")[0]] for row in df.itertuples()]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(sizes)), sizes


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
    from reports.sections.common import PROJECT_ROOT

    scen = pd.read_csv(report_dir / "provenance_scenarios.csv")
    variants = scen[(scen["game"] == "hunt") & scen["name"].str.contains(r"\+")]
    assert len(variants) >= 5
    for r in variants.itertuples():
        name = r.name.split("+", 1)[1]
        assert r.path == f"scenarios/hunt/variants/{name}.toml", (r.name, r.path)
        assert (PROJECT_ROOT / r.path).exists()
    # every built-in scenario is named relative to the project, so the page does not depend on
    # where the checkout sits
    assert not any(str(p).startswith("/") for p in scen["path"]), list(scen["path"])


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
    # printed: no white-on-colour text (backgrounds are not printed), no figure split
    printed = html[html.index("@media print") :]
    assert ".tag,.chip b{color:#000;background:#fff" in printed
    assert "header code,code{background:none;color:#000}" in printed
    assert "figure," in printed and "break-inside:avoid" in printed
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
        if anchor.startswith("g-"):  # a glossary link of a term's first use
            continue
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


# --------------------------------------------------------------------------------------------
# Verdicts, claims and contradictions (issue 29)


def _csv(report_dir, stem: str) -> pd.DataFrame:
    return pd.read_csv(report_dir / f"{stem}.csv", keep_default_na=False, na_values=[""])


def _row(report_dir, file: str, key: dict) -> pd.Series:
    table = pd.read_csv(report_dir / file, keep_default_na=False, na_values=[""])
    sel = pd.Series(True, index=table.index)
    for k, want in key.items():
        sel &= table[k].astype(str) == want
    rows = table[sel]
    assert len(rows) == 1, (file, key, len(rows))
    return rows.iloc[0]


#: the axes each game has (Pirates express: a strategy axis when it has a population)
AXES = {
    "cove": {("seat-order", 4), ("strategy", 4), ("pirates", 4), ("cards", 4)},
    "express": {("seat-order", 2), ("nation", 2), ("fleet", 2)},
    "hunt": {("seat-order", 4), ("seat-order", 2), ("strategy", 4)},
}


def test_verdicts_csv_has_every_game_and_axis_with_value_and_interval(report_dir):
    from reports.verdicts import CSV_COLUMNS, REMEDY_SOURCES, VERDICTS

    df = _csv(report_dir, "verdicts")
    assert tuple(df.columns) == CSV_COLUMNS
    got = {(g, a, int(p)) for g, a, p in zip(df["game"], df["axis"], df["players"])}
    for game, axes in AXES.items():
        for axis, players in axes:
            assert (game, axis, players) in got, (game, axis, players)
    assert set(df["verdict"]) <= set(VERDICTS)
    assert set(df["size"]) == {"test"}
    for r in df.itertuples():
        assert math.isfinite(r.value) and math.isfinite(r.ci_low) and math.isfinite(r.ci_high)
        assert r.ci_low <= r.value <= r.ci_high, r
        assert r.unit and r.population
        if _text(r.remedy):
            assert r.remedy_source in REMEDY_SOURCES
            assert r.remedy_ci_low <= r.remedy_effect <= r.remedy_ci_high
        else:
            assert not _text(r.remedy_source) and math.isnan(r.remedy_effect)
    # one verdict per (game, axis, table size), repeated on each of its remedy rows
    per = df.groupby(["game", "axis", "players"])[["verdict", "value", "ci_low"]].nunique()
    assert (per == 1).all().all()


def test_no_sentence_contradicts_the_rows_it_cites(report_dir):
    """Each verdict is re-derived from the rows its evidence names: the band rule (±3 points of
    fair) and each row's `conclusive` as its own table says it; the named row's numbers are the
    verdict's; the remedy's are the remedy row's. Each finding's numbers, tag and words are
    re-derived from the rows it cites."""
    from reports.findings import parse_evidence
    from reports.verdicts import BAND

    claims = _csv(report_dir, "claims").set_index("evidence")
    for r in _csv(report_dir, "verdicts").itertuples():
        cited = parse_evidence(r.evidence)
        rows = cited[:-1] if _text(r.remedy) else cited
        null = claims.loc[_ev(rows[0]), "null"]
        off = inside = 0
        for i, (file, key, (v, lo, hi)) in enumerate(rows):
            row = _row(report_dir, file, key)
            if i == 0:
                assert (row[v], row[lo], row[hi]) == pytest.approx(
                    (r.value, r.ci_low, r.ci_high), rel=1e-12
                )
            inside += bool(row[lo] >= null - BAND and row[hi] <= null + BAND)
            off += bool(_true(row["conclusive"]) and abs(row[v] - null) > BAND)
        want = "imbalanced" if off else "balanced" if inside == len(rows) else "inconclusive"
        assert r.verdict == want, (r.game, r.axis, r.players, r.verdict, want)
        if _text(r.remedy):
            file, key, (v, lo, hi) = cited[-1]
            row = _row(report_dir, file, key)
            assert (row[v], row[lo], row[hi]) == pytest.approx(
                (r.remedy_effect, r.remedy_ci_low, r.remedy_ci_high), rel=1e-12
            )
    for f in _findings(report_dir).itertuples():
        cited = parse_evidence(f.evidence)
        sides = []
        for item in cited:
            file, key, (v, _, _) = item
            row = _row(report_dir, file, key)
            sides.append((_true(row["conclusive"]), row[v] > claims.loc[_ev(item), "null"]))
        base, strong = sides[0], sides[1] if len(sides) > 1 else None
        assert base[0], f.finding  # a finding is conclusive where its table says so
        tag = (
            "baseline-only"
            if strong is None
            else "rules"
            if strong[0] and strong[1] == base[1]
            else "players"
        )
        assert f.tag == tag, (f.finding, f.tag, tag)
        words = {
            "rules": "it holds under both sets of players",
            "players": "it depends on the players",
            "baseline-only": "measured with the hand-written players only",
        }
        assert words[f.tag] in f.finding
        assert "inconclusive" not in f.finding


def _text(x) -> str:
    """A CSV cell as text ("" when empty)."""
    return x if isinstance(x, str) else ""


def _true(x) -> bool:
    """A CSV cell that says True (False or empty: not)."""
    return bool(x == True)  # noqa: E712  (numpy and Python booleans, NaN for an empty cell)


def _ev(item) -> str:
    """An evidence item written back as claims.csv's evidence text."""
    file, key, cols = item
    return f"{file}[{','.join(f'{k}={v}' for k, v in key.items())}]:{','.join(cols)}"


def test_conclusive_means_the_same_in_every_table_and_claims_csv(report_dir):
    """claims.csv holds every claim: its raw p re-derived from the cited row's interval, its
    Holm p over the whole page, and the row's own `conclusive`, `p_page` and `settled_by`
    columns agree with it; an inconclusive row says which size would settle it."""
    from scipy import stats as sps

    from reports.findings import parse_evidence
    from simulator.sequential import holm

    claims = _csv(report_dir, "claims")
    assert claims["claim"].is_unique and len(claims) >= 20
    assert holm(list(claims["p_value"])) == pytest.approx(list(claims["p_page"]), rel=1e-9)
    for c in claims.itertuples():
        ((file, key, (v, lo, hi)),) = parse_evidence(c.evidence)
        row = _row(report_dir, file, key)
        assert (row[v], row[lo], row[hi]) == pytest.approx((c.value, c.ci_low, c.ci_high))
        half = (row[hi] - row[v]) if c.null >= row[v] else (row[v] - row[lo])
        z = abs(row[v] - c.null) / (half / c.crit) if half > 0 else 0.0
        tail = sps.t.sf(z, c.df) if c.df else sps.norm.sf(z)
        p = 1.0 if z == 0 else min(1.0, c.p_factor * 2 * tail)
        assert c.p_value == pytest.approx(p, rel=1e-9, abs=1e-300)
        assert c.conclusive == (c.p_page <= 0.05)
        assert row["conclusive"] == c.conclusive and row["p_page"] == pytest.approx(c.p_page)
        assert (_text(row["settled_by"]) == "") == c.conclusive
        assert (_text(c.settled_by) == "") == c.conclusive, c


def test_one_quantity_has_one_number_per_population_and_table_size(report_dir):
    claims = _csv(report_dir, "claims")
    dup = claims[claims.duplicated(["game", "quantity", "population", "players"], keep=False)]
    assert dup.empty, dup[["claim", "quantity", "population", "players"]]


#: columns that count something (games, battles, wins...): integers in every CSV
COUNT_COLUMNS = {
    "n",
    "wins",
    "shared",
    "games",
    "battles",
    "stalemates",
    "ties",
    "draws",
    "slices",
    "paired_games",
    "changed",
    "times_beaten",
    "games_fought",
    "pirate_months",
    "months_fought",
    "decisions",
    "legendary_battles",
    "validation_games",
}


def test_counts_are_integers_in_every_file(report_dir):
    """Every count is written as a whole number (never "942.0"; empty when there is none)."""
    for path in sorted(report_dir.glob("*.csv")):
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
        for col in COUNT_COLUMNS & set(df.columns):
            bad = df[~df[col].str.fullmatch(r"-?\d*")][col]
            assert bad.empty, (path.name, col, list(bad[:3]))


def test_reference_players_are_floor_rows_never_balance_shares(report_dir):
    from reports.engines import GAME_APIS
    from scenarios.strategies import is_reference

    claims = _csv(report_dir, "claims")
    verdicts = _csv(report_dir, "verdicts")
    for game, stem in (("cove", "cove_strategy_win_rates"), ("hunt", "hunt_strategy_win_rates")):
        scen = GAME_APIS[game].load(None)
        refs = {n for n, d in scen.rules.strategies.items() if is_reference(d)}
        assert "random" in refs
        assert not refs & set(GAME_APIS[game].default_mix(scen))
        table = _csv(report_dir, stem)
        floor = table[table["reference"]]
        assert set(floor["strategy"]) == refs, game
        assert floor["conclusive"].isna().all()  # a floor is not tested
        for r in floor.itertuples():
            cited = f"{stem}.csv[strategy={r.strategy}]"
            assert not claims["evidence"].str.startswith(cited).any()
            assert not verdicts["evidence"].str.contains(cited, regex=False).any()
        assert not table[~table["reference"]]["conclusive"].isna().any()


def test_distributions_margins_of_victory(report_dir):
    for stem in ("cove_fame_margin", "express_vp_margin", "hunt_turns_to_win"):
        df = _csv(report_dir, stem)
        assert len(df) >= 1
        for r in df.itertuples():
            assert r.p10 <= r.p25 <= r.p50 <= r.p75 <= r.p90
            assert r.ci_low <= r.mean <= r.ci_high
        assert (report_dir / f"{stem}.svg").exists()
    hunt = _csv(report_dir, "hunt_turns_to_win")
    assert set(hunt["players"]) == {"4 players", "2 players"}


def test_variants_and_house_rules_are_measured_under_strong_play_too(report_dir):
    pops = _csv(report_dir, "hunt_populations")
    used = set(pops.loc[pops["status"] == "used", "population"])
    variants = _csv(report_dir, "hunt_variants_vs_base")
    assert "default mix" in set(variants["population"])
    if used:
        assert set(variants["population"]) - {"default mix"} <= used
        assert len(set(variants["population"])) >= 2
    for game in ("cove", "express"):
        table = _csv(report_dir, f"{game}_house_rules")
        assert "default mix" in set(table["population"])
        assert table["difference"].notna().all()


def test_express_speaks_in_scores_with_draws_and_best_fleets(report_dir):
    for stem in ("express_nation_matrix", "express_best_fleet_matrix"):
        df = _csv(report_dir, stem)
        assert {"score", "score_lo", "score_hi", "win", "draw", "loss"} <= set(df.columns)
        assert (df["score"] - (df["win"] + df["draw"] / 2)).abs().max() < 1e-12
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    assert "VP" in html and "score" in html
    if (report_dir / "express_score_and_vp.csv").exists():
        df = _csv(report_dir, "express_score_and_vp")
        assert df["agrees_with_crew_table"].isin([True, False]).all()


def test_glossary_has_every_strategy_and_method_term_linked_from_first_use(report_dir):
    from reports.display import METHOD_TERMS
    from reports.engines import GAME_APIS

    html = (report_dir / "index.html").read_text(encoding="utf-8")
    glossary = html[html.index('<section id="glossary">') :]
    for anchor, term, _ in METHOD_TERMS:
        assert f'id="g-{anchor}"' in glossary, term
    for game, api in GAME_APIS.items():
        for name in api.load(None).rules.strategies:
            if not name.endswith("-v1"):
                assert f'id="g-{game}-{name}"' in glossary, (game, name)
    before = html[: html.index('<section id="glossary">')]
    linked = set(re.findall(r'<a class="g" href="#(g-[\w\-]+)">', before))
    assert len(linked) >= 10
    assert len(re.findall(r'<a class="g" href="#g-holm">', before)) == 1  # the first use only


def test_figures_link_their_vector_files_and_no_checkpoints_stay_behind(report_dir):
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    for stem in re.findall(r'<figure id="fig-([\w\-]+)">', html):
        assert f'<a href="{stem}.svg">' in html, stem
        assert (report_dir / f"{stem}.svg").exists()
    assert not (report_dir / "chunks").exists()


def test_figure_text_is_legible_at_phone_width(report_dir):
    """Each figure's smallest text, scaled to the width a 390 px phone gives it (346 px, or its
    own width when narrower), is at least 9 px."""
    from reports.figures import PHONE_PX

    figs = pd.read_csv(report_dir / "provenance_figures.csv")
    for r in figs.itertuples():
        w, _ = _png_size((report_dir / f"{r.figure}.png").read_bytes())
        assert r.min_text_px * min(1.0, PHONE_PX / w) >= 9, (r.figure, r.min_text_px, w)


def test_page_holds_no_path_of_the_checkout(report_dir):
    from reports.sections.common import PROJECT_ROOT

    html = (report_dir / "index.html").read_text(encoding="utf-8")
    assert str(PROJECT_ROOT.resolve()) not in html
    for path in report_dir.glob("*.csv"):
        assert str(PROJECT_ROOT.resolve()) not in path.read_text(encoding="utf-8"), path.name


def _dom_attrs(report_dir, tmp_path, width: int, height: int) -> dict:
    dom = subprocess.run(
        [
            CHROMIUM,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / f'profile-{width}'}",
            "--virtual-time-budget=10000",
            f"--window-size={width},{height}",
            "--dump-dom",
            (report_dir / "index.html").resolve().as_uri(),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
    )
    body = re.search(r"<body([^>]*)>", dom.stdout)
    assert body, dom.stderr[-2000:]
    return dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))


def test_phone_width_verdicts_on_the_first_screen_tables_fold_and_figures_legible(
    report_dir, tmp_path
):
    """At 390 x 844 (a phone): the verdict grid is on the first screen, no table needs
    side-scrolling (they fold to their key columns), figure text is at least 9 px. At 1,400 x
    900 the first verdict sentence is on the first screen."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed: layout not checked")
    phone = _dom_attrs(report_dir, tmp_path, 390, 844)
    assert phone["data-wide-tables"] == "", phone["data-wide-tables"]
    assert float(phone["data-min-figure-text-px"]) >= 9, phone
    assert int(phone["data-verdict-grid-bottom"]) <= 844, phone
    wide = _dom_attrs(report_dir, tmp_path, 1400, 900)
    assert int(wide["data-first-verdict-top"]) < 900, wide
