"""docs/python.md's promises, run: every public function of the Python API has an example in its
docstring and every example runs (doctest), and the tutorial notebook runs from top to bottom at
its small size (docs/tutorial.ipynb, executed by nbclient in a fresh kernel)."""

from __future__ import annotations

import doctest
import inspect
import os
from pathlib import Path

import pytest

from reports import api as reports_api
from simulator import api

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = {"simulator.api": api, "reports.api": reports_api}


def _public_objects() -> list[tuple[str, object, dict]]:
    """(qualified name, object, the globals its examples run with) of every public name."""
    return [
        (f"{modname}.{name}", getattr(module, name), dict(vars(module)))
        for modname, module in PUBLIC.items()
        for name in module.__all__
    ]


def _doctests(qualname: str, obj: object, globs: dict) -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder()
    return [t for t in finder.find(obj, qualname, module=False, globs=globs) if t.examples]


def _functions() -> list[tuple[str, object, dict]]:
    """Every public function, and every public method of a public class defined in the house."""
    out = []
    for qualname, obj, globs in _public_objects():
        if inspect.isfunction(obj):
            out.append((qualname, obj, globs))
        elif inspect.isclass(obj) and obj.__module__.split(".")[0] in ("simulator", "reports"):
            for name, member in vars(obj).items():
                if inspect.isfunction(member) and not name.startswith("_"):
                    out.append((f"{qualname}.{name}", member, globs))
    return out


FUNCTIONS = _functions()


def test_the_public_api_has_functions_to_check():
    names = {q for q, _, _ in FUNCTIONS}
    assert {"simulator.api.play", "reports.api.compare", "simulator.api.PlayResult.intervals"} <= (
        names
    )


#: a result's accessors shown by the example of the function that returns it (the docstring of
#: that function calls them: checked below)
SHOWN_BY = {
    "simulator.api.DuelOdds.probability": "simulator.api.duel",
    "simulator.api.PayoffTable.payoffs": "simulator.api.table_from_function",
    "simulator.api.PayoffTable.regret": "simulator.api.table_from_function",
    "simulator.api.PayoffTable.matrix": "simulator.api.table_from_function",
}
#: methods of a public class that docs/python.md leaves out (the solver's plumbing)
NOT_DOCUMENTED = {"simulator.api.PayoffTable.coefficients"}


@pytest.mark.parametrize("qualname,obj,globs", FUNCTIONS, ids=[q for q, _, _ in FUNCTIONS])
def test_every_public_function_has_an_example_that_runs(qualname, obj, globs):
    """Each example's output is checked exactly (ELLIPSIS and whitespace aside): an example
    that prints, raises or returns anything else fails."""
    tests = _doctests(qualname, obj, globs)
    if qualname in NOT_DOCUMENTED:
        assert qualname.rsplit(".", 1)[1] not in (ROOT / "docs" / "python.md").read_text()
        return
    if not tests:
        shown = SHOWN_BY.get(qualname)
        assert shown is not None, f"{qualname} has no example in its docstring"
        by = {q: o for q, o, _ in FUNCTIONS}[shown]
        assert f".{qualname.rsplit('.', 1)[1]}(" in inspect.getdoc(by), (qualname, shown)
        return
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{qualname}: {result.failed} of {result.attempted} failed"


def test_the_tutorial_runs_at_its_small_size(monkeypatch):
    """docs/tutorial.ipynb, executed top to bottom in a fresh kernel at ``SIZE = "small"`` (its
    one setting, read from BROADSIDE_TUTORIAL_SIZE): every cell runs without an error, the
    seaborn figures are drawn, and the win shares have their intervals."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("BROADSIDE_TUTORIAL_SIZE", "small")
    nb = nbformat.read(ROOT / "docs" / "tutorial.ipynb", as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "the notebook is kept without outputs (CI runs it)"
    )
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= 3
    text = "\n".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "ci95_low" in text and "Fraction(16, 81)" in text


def test_python_md_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/python.md" in readme and "docs/tutorial.ipynb" in readme
    assert os.path.exists(ROOT / "docs" / "python.md")
