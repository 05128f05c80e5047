"""``broadside report``: run every section, write the page, tables and figures.

Each section (``reports/sections/<name>.py``) gets a :class:`ReportContext` and returns a
:class:`reports.html.Section`. Sections get their own seed, derived from the root entropy by the
section's fixed position (so adding a game does not change another game's numbers), run within a
size budget, and record their wall time. A section whose engine is not built yet says so in the
page instead of showing numbers.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from reports import findings as _findings  # noqa: F401  (imported before any section runs)
from reports.html import FigureBlock, Section, render_page
from reports.sections import balance as balance_section
from reports.sections import cove as cove_section
from reports.sections import dice as dice_section
from reports.sections import express as express_section
from reports.sections import findings as findings_section
from reports.sections import glossary as glossary_section
from reports.sections import hunt as hunt_section
from reports.sections import provenance
from simulator.output import ensure_writable_dir, write_table, write_text
from simulator.protocol import ENGINE_DEFAULT
from simulator.runner import derive_seed, fresh_entropy

GAMES = ("cove", "express", "hunt")
SIZES = ("test", "quick", "standard", "full")  # "test" is hidden from --help (used by tests)

#: section key -> (its build function, position in the seed tree); order is the page order
SECTION_MODULES = {
    "dice": (dice_section.build, 0),
    "cove": (cove_section.build, 1),
    "express": (express_section.build, 2),
    "hunt": (hunt_section.build, 3),
}


@dataclass
class ReportContext:
    """What a section needs: size, seed, jobs, scenarios, where to write figures."""

    size: str
    entropy: int
    jobs: int
    quiet: bool
    out: Path
    scenarios: dict[str, list[str]] = field(default_factory=dict)  # game -> scenario files given
    notes: Callable[[str], None] = lambda msg: None
    engine: str | None = None  # --engine: for the games that have it (None: each game's default)
    balance: list[dict] = field(default_factory=list)  # --balance runs (sections/balance.py)

    def engine_for(self, api: Any) -> str | None:
        """The engine a game's ``play`` gets: ``--engine`` if the game has it, else its default
        (Pirates express is compiled only: ``--engine python`` leaves it on its one engine)."""
        if self.engine is not None and self.engine in getattr(api, "ENGINES", ("fast",)):
            return self.engine
        return None

    def section_seed(self, position: int) -> int:
        """The root seed of a section, fixed by the report's entropy and the section's position
        (so adding a game does not change another game's numbers)."""
        return derive_seed(self.entropy, "report-section", position)

    def figure(
        self,
        section: Section,
        stem: str,
        fig: Any,
        *,
        caption: str,
        csv: str,
        n: str,
        n_value: int | None = None,
        method: str = "monte-carlo",
        players: str = "",
    ) -> None:
        """Save a figure (PNG + SVG), embed it, and record its n and the players who produced it
        (``players``: in words; empty only for dice and exact odds) for the provenance table."""
        from reports.figures import save_figure

        png, small = save_figure(fig, self.out, stem)
        section.blocks.append(
            FigureBlock(
                stem=stem,
                png=png,
                caption=caption,
                csv=f"{csv}.csv",
                n=n,
                players=players,
                min_text_px=small,
            )
        )
        section.figures_n.append(
            {
                "section": section.title,
                "figure": stem,
                "n": n_value,
                "n_in_words": n,
                "method": method,
                "players": players or "none (no players: dice or exact odds)",
                "table": f"{csv}.csv",
                "min_text_px": round(small, 2),
            }
        )


def package_versions() -> pd.DataFrame:
    """Python, the platform, and every installed package Broadside depends on: its declared
    requirements (every extra) and theirs, recursively, with their environment markers
    evaluated; a declared package that is not installed says so."""
    from importlib.metadata import PackageNotFoundError, metadata, requires, version

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    rows = [
        {"package": "python", "version": platform.python_version(), "required_by": ""},
        {"package": "platform", "version": platform.platform(), "required_by": ""},
    ]
    seen: set[str] = set()
    try:
        own_extras = tuple(metadata("broadside").get_all("Provides-Extra") or ())
    except PackageNotFoundError:  # ``python cli.py`` from a checkout that was never installed
        return pd.DataFrame(rows + imported_versions())
    queue: list[tuple[str, tuple[str, ...], str]] = [("broadside", own_extras, "")]
    while queue:
        name, extras, parent = queue.pop(0)
        key = canonicalize_name(name)
        try:
            ver = version(name)
        except PackageNotFoundError:
            ver = None
        if key not in seen:
            seen.add(key)
            rows.append({"package": key, "version": ver or "not installed", "required_by": parent})
        if ver is None:
            continue
        for text in requires(name) or ():
            req = Requirement(text)
            envs = [{"extra": e} for e in extras] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                queue.append((req.name, tuple(req.extras), key))
    return pd.DataFrame(rows)


def imported_versions() -> list[dict[str, str]]:
    """Rows of :func:`package_versions` when Broadside itself is not installed (no metadata to
    read its requirements from): its own version (``simulator.__version__``), then every
    third-party package imported so far, by its distribution's version (or the module's
    ``__version__``), ``required_by`` "imported"."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    from simulator import __version__

    own = f"{__version__} (not installed)"
    rows = [{"package": "broadside", "version": own, "required_by": ""}]
    dists = packages_distributions()
    ours = {"simulator", "scenarios", "reports", "cli", "__main__"}
    tops = {name.partition(".")[0] for name in list(sys.modules)}
    seen: set[str] = set()
    for top in sorted(tops - ours - set(sys.stdlib_module_names)):
        if top.startswith("_"):
            continue
        for dist in dists.get(top, [None]):
            if dist is None:
                ver = getattr(sys.modules.get(top), "__version__", None)
                name = top
            else:
                try:
                    ver, name = version(dist), dist.lower()
                except PackageNotFoundError:
                    continue
            if isinstance(ver, str) and name not in seen:
                seen.add(name)
                rows.append({"package": name, "version": ver, "required_by": "imported"})
    return rows


def build_section(key: str, ctx: ReportContext) -> Section:
    build, position = SECTION_MODULES[key]
    seed = ctx.section_seed(position)
    started = time.perf_counter()
    section = build(ctx, seed)
    section.wall_time_s = time.perf_counter() - started
    section.seed = seed
    return section


def run_report(
    *,
    games: tuple[str, ...],
    size: str,
    seed: int | None,
    jobs: int,
    out: str | Path,
    quiet: bool,
    scenarios: dict[str, list[str]],
    command_line: str,
    notes: Callable[[str], None] = lambda m: None,
    engine: str | None = None,
    balance: list[dict] | None = None,
) -> dict:
    """Build the whole report; returns a summary (paths, wall times, entropy). ``engine``: the
    engine of the games that have it (:meth:`ReportContext.engine_for`); ``balance``: balance
    runs (:func:`reports.sections.balance.load_run`) added to their games' verdicts."""
    out = ensure_writable_dir(out)
    entropy = fresh_entropy() if seed is None else int(seed)
    ctx = ReportContext(
        size=size,
        entropy=entropy,
        jobs=jobs,
        quiet=quiet,
        out=out,
        scenarios=scenarios,
        notes=notes,
        engine=engine,
        balance=list(balance or []),
    )
    started = time.perf_counter()
    built: list[Section] = []
    for key in ("dice", *games):
        notes(f"report: {key} ...")
        sec = build_section(key, ctx)
        notes(f"report: {key} done in {sec.wall_time_s:.1f} s")
        built.append(sec)
    t0 = time.perf_counter()  # balance runs: a section of their own, remedies on the axes
    bal_seed = ctx.section_seed(balance_section.POSITION)
    bal = balance_section.build(ctx, built, bal_seed)
    if bal is not None:
        bal.wall_time_s, bal.seed = time.perf_counter() - t0, bal_seed
        built.append(bal)
    t0 = time.perf_counter()
    verdicts, found = findings_section.build(ctx, built)  # corrects every claim, fills tables
    verdicts.wall_time_s = found.wall_time_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    glossary = glossary_section.build(ctx, built)
    glossary.wall_time_s = time.perf_counter() - t0
    games_first = [s for s in built if s.key != "dice"] + [s for s in built if s.key == "dice"]
    sections: list[Section] = [verdicts, found, *games_first, glossary]
    prov = provenance.build(
        ctx, sections, command_line=command_line, started=started, versions=package_versions()
    )
    sections.append(prov)
    for sec in sections:
        for stem, df in sec.tables.items():
            write_table(df, out, stem, key=sec.keys[stem])
    total = time.perf_counter() - started
    page = render_page(
        "Broadside balance report",
        f"Size {size}, seed {entropy}; replay: `{provenance.replay_command(ctx, sections)}`. "
        "Every number is a row of a CSV file beside this page.",
        sections,
        glossary=glossary_section.terms(built),
    )
    index = write_text(out / "index.html", page)
    return {
        "index": str(index),
        "out": str(out),
        "size": size,
        "seed_entropy": entropy,
        "engine": engine or ENGINE_DEFAULT,
        "wall_time_s": total,
        "sections": [
            {
                "section": s.title,
                "key": s.key,
                "wall_time_s": s.wall_time_s,
                "tables": sorted(s.tables),
                "figures": [f["figure"] for f in s.figures_n],
            }
            for s in sections
        ],
        "python": sys.version.split()[0],
    }
