"""Report section "Provenance": how to reproduce every number of the page.

Command line, seed entropy (root and per section), scenario files with their content hashes and
rules versions, package versions, the n behind every figure, and the wall time of each section.
"""

from __future__ import annotations

import time

import pandas as pd

from reports.html import Section

GAMES = ("cove", "express", "hunt")


def replay_command(ctx, sections: list[Section]) -> str:
    """The command that replays this page: ``--game all`` or the one game it holds (``--game``
    takes one value; the dice odds and provenance are always there)."""
    games = [s.key for s in sections if s.key in GAMES]
    game = games[0] if len(games) == 1 else "all"
    engine = f" --engine {ctx.engine}" if ctx.engine else ""
    return f"broadside report --size {ctx.size} --seed {ctx.entropy} --game {game}{engine}"


def build(
    ctx, sections: list[Section], *, command_line: str, started: float, versions: pd.DataFrame
) -> Section:
    sec = Section("provenance", "Provenance")
    total = time.perf_counter() - started
    run = pd.DataFrame(
        [
            {"item": "command line", "value": command_line},
            {"item": "size", "value": ctx.size},
            {"item": "root seed entropy", "value": str(ctx.entropy)},
            {"item": "replay with", "value": replay_command(ctx, sections)},
            {"item": "jobs", "value": str(ctx.jobs)},
            {"item": "total wall time before this section (s)", "value": f"{total:.2f}"},
        ]
    )
    sec.text(
        "Everything needed to reproduce this page. Passing the root seed back with --seed replays "
        "every number exactly (results never depend on --jobs). Each section draws its own seed "
        "from the root seed by a fixed position, so adding or removing a game leaves the others "
        "unchanged. Scenario paths are relative to the project folder."
    )
    sec.table("provenance_run", run, "The run.", key=("item",))
    timing = pd.DataFrame(
        [
            {
                "section": s.title,
                "seed": str(s.seed) if s.seed is not None else "",
                "wall_time_s": round(s.wall_time_s, 2),
                "figures": len(s.figures_n),
                "tables": len(s.tables),
            }
            for s in sections
        ]
    )
    sec.table(
        "provenance_sections", timing, "Wall time and seed of each section.", key=("section",)
    )
    scen = [dict(row, section=s.title) for s in sections for row in s.scenarios]
    scen_df = (
        pd.DataFrame(scen)
        if scen
        else pd.DataFrame(
            columns=["section", "game", "name", "rules_version", "content_hash", "path"]
        )
    )
    if "section" in scen_df:
        scen_df = scen_df[["section", *[c for c in scen_df.columns if c != "section"]]]
    sec.table(
        "provenance_scenarios",
        scen_df,
        "Scenario files used, with the hash of their merged rules and the rules version.",
        key=("section", "content_hash"),
    )
    figs = pd.DataFrame([row for s in sections for row in s.figures_n])
    if figs.empty:
        figs = pd.DataFrame(
            columns=["section", "figure", "n", "n_in_words", "method", "table", "min_text_px"]
        )
    figs["n"] = figs["n"].astype("Int64")
    sec.table(
        "provenance_figures",
        figs,
        "What each figure rests on (n), how its numbers were computed, which players produced "
        "them, and its smallest text (pixels of the PNG; a phone shows it at about 346 px "
        "wide).",
        key=("figure",),
        columns=["figure", "n", "method", "players", "table", "min_text_px"],
    )
    sec.table(
        "provenance_packages",
        versions,
        "Package versions: Python, the platform, and every package Broadside depends on "
        "(directly or through another package).",
        key=("package",),
    )
    return sec
