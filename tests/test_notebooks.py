"""Every notebook in notebooks/ runs top to bottom on the committed sample data and draws at least one figure.

Each `notebooks/*.ipynb` is picked up automatically and executed with nbclient in the "python3" kernel (with
ipykernel installed in the test environment that kernel is this same Python, which the test checks), from the
`notebooks/` folder, with `CAVEKIT_DATA` unset so the parameter cell falls back to `../results/samples`. The
committed files must carry no outputs, and their first code cell must be the parameter cell reading
`CAVEKIT_DATA` (the project's notebook convention).
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT = 300          # seconds per cell
KERNEL = "python3"
PROBE = "import sys\nprint(sys.prefix)"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")      # IPython colours its tracebacks


def notebook_paths() -> list[Path]:
    """The notebooks CI runs: every .ipynb directly in notebooks/ (not Jupyter's checkpoint copies)."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def code_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def source_of(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def images_in(notebook: Any) -> int:
    """Number of image outputs (display_data or execute_result with an image/* part) of an executed notebook."""
    count = 0
    for cell in code_cells(notebook):
        for output in cell.get("outputs", []):
            if output.get("output_type") in ("display_data", "execute_result"):
                count += any(kind.startswith("image/") for kind in output.get("data", {}))
    return count


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_a_notebook_is_committed_without_outputs_and_starts_with_the_parameter_cell(path: Path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    with_outputs = [n for n, cell in enumerate(code_cells(notebook)) if cell.get("outputs")
                    or cell.get("execution_count") is not None]
    assert not with_outputs, (f"{path.name}: code cells {with_outputs} hold outputs or execution counts; commit "
                              "notebooks stripped (e.g. Jupyter's 'Clear All Outputs', then save)")
    cells = code_cells(notebook)
    assert cells and "CAVEKIT_DATA" in source_of(cells[0]), (
        f"{path.name}: the first code cell should be the parameter cell, "
        'DATA = Path(os.environ.get("CAVEKIT_DATA", "../results/samples"))')


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_a_notebook_runs_on_the_sample_data_and_draws_a_figure(path: Path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="running notebooks needs nbformat (pip install -e '.[test]')")
    nbclient = pytest.importorskip("nbclient", reason="running notebooks needs nbclient (pip install -e '.[test]')")
    pytest.importorskip("ipykernel", reason="running notebooks needs ipykernel (pip install -e '.[test]')")
    # The kernel inherits this environment: sample data, and matplotlib's inline backend (which makes images).
    monkeypatch.delenv("CAVEKIT_DATA", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(PROBE))
    client = nbclient.NotebookClient(notebook, kernel_name=KERNEL, timeout=CELL_TIMEOUT,
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    started = time.perf_counter()
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as error:
        message = ANSI_ESCAPE.sub("", str(error))
        pytest.fail(f"{path.name}: a cell raised (kernel {KERNEL!r} ran {_probed_prefix(notebook)}):\n{message}",
                    pytrace=False)
    seconds = time.perf_counter() - started
    prefix = _probed_prefix(notebook)
    assert prefix and os.path.realpath(prefix) == os.path.realpath(sys.prefix), (
        f"kernel {KERNEL!r} ran the Python of {prefix}, not this environment ({sys.prefix}): install ipykernel "
        "here (it is in the test extra) and remove any other 'python3' kernelspec")
    assert images_in(notebook) > 0, f"{path.name} ran ({seconds:.0f} s) but drew no figure (no image output)"


def _probed_prefix(notebook: Any) -> str | None:
    """What the probe cell printed: the kernel's sys.prefix."""
    for output in notebook.cells[0].get("outputs", []):
        if output.get("name") == "stdout":
            return output["text"].strip()
    return None
