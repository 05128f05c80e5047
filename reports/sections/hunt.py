"""Report section "Les Pirates"."""

from __future__ import annotations

from reports.html import Section
from reports.sections.common import engine_module, unavailable

TITLE = "Les Pirates"


def build(ctx, seed: int) -> Section:
    api = engine_module("simulator.hunt.api")
    if api is None:
        return unavailable("hunt", "Les Pirates", "simulator.hunt.api is missing")
    return unavailable("hunt", TITLE, "the report section for this engine is not written yet")
