"""Report section "Pirates express"."""

from __future__ import annotations

from reports.html import Section
from reports.sections.common import engine_module, unavailable

TITLE = "Pirates express"


def build(ctx, seed: int) -> Section:
    api = engine_module("simulator.express.api")
    if api is None:
        return unavailable("express", "Pirates express", "simulator.express.api is missing")
    return unavailable("express", TITLE, "the report section for this engine is not written yet")
