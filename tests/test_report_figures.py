"""The report's figures keep their labels apart: no two texts overlap, and no text runs into another plot."""
from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import matplotlib.figure
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from cavekit.analysis.report import write_report
from cavekit.analysis.tournament_report import write_tournament_report

CLI = [sys.executable, "-m", "cavekit.analysis.cli"]
SAMPLES = Path(__file__).resolve().parent.parent / "results" / "samples"
TOLERANCE = 1.0     # pixels: bounding boxes that merely touch are not an overlap


def drawn_texts(fig: matplotlib.figure.Figure) -> list[tuple[object, object, object]]:
    """(text, its axes or None, its box on the canvas) of every text drawn: titles, axis labels, the labels of
    the ticks inside the view, texts placed in the plots, legend entries and figure texts."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    found = []
    for ax in fig.axes:
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            low, high = sorted(limits)
            for tick in axis.get_major_ticks():
                if low - 1e-9 <= tick.get_loc() <= high + 1e-9:
                    found += [(label, ax) for label in (tick.label1, tick.label2) if label.get_visible()]
            found.append((axis.label, ax))
        found += [(title, ax) for title in (ax.title, ax._left_title, ax._right_title)]
        found += [(text, ax) for text in ax.texts]
        if ax.get_legend() is not None:
            found += [(text, None) for text in ax.get_legend().get_texts()]
    found += [(text, None) for text in fig.texts]
    return [(text, ax, text.get_window_extent(renderer)) for text, ax in found
            if text.get_visible() and text.get_text().strip()]


def _overlap(a, b) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > TOLERANCE and min(a.y1, b.y1) - max(a.y0, b.y0) > TOLERANCE


def overlapping_labels(fig: matplotlib.figure.Figure) -> list[str]:
    """Every pair of overlapping texts, and every text of one plot that runs into another plot's area."""
    texts = drawn_texts(fig)
    problems = [f"{a.get_text()!r} overlaps {b.get_text()!r}"
                for (a, _, box_a), (b, _, box_b) in itertools.combinations(texts, 2) if _overlap(box_a, box_b)]
    canvas_renderer = fig.canvas.get_renderer()
    for text, own, box in texts:
        for ax in fig.axes:
            if own is not None and ax is not own and _overlap(box, ax.get_window_extent(canvas_renderer)):
                problems.append(f"{text.get_text()!r} runs into the plot {ax.get_title()!r}")
    return problems


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """Small results folders of every game (long agent specs, which make long legend and tick labels), a
    committed solo sample, and a tournament, each written by the real command."""
    root = tmp_path_factory.mktemp("figures")
    runs = {"cvc": ["match", "cvc", "--agents", "greedy:max_nodes=300,chance_samples=2", "cvc_expectimax:depth=1,width=8",
                    "--games", "4"],
            "pairs": ["match", "pairs", "--agents", "random", "pairs_heuristic", "--games", "4"],
            "cavum": ["match", "cavum", "--agents", "random", "cavum_heuristic", "--games", "4"],
            "caverna": ["match", "caverna", "--agents", "random", "caverna_heuristic", "--games", "2"],
            "tournament": ["tournament", "cvc", "--agents", "random", "greedy:max_nodes=300",
                           "cvc_expectimax:depth=1,width=8", "--games", "2", "--n-boot", "20"]}
    out = {"cvc solo": SAMPLES / "cvc_solo"}
    for name, command in runs.items():
        out[name] = root / name
        done = subprocess.run(CLI + command + ["--seed", "2", "--quiet", "--out", str(out[name])],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("name", ["cvc", "cvc solo", "pairs", "cavum", "caverna", "tournament"])
def test_no_figure_of_the_report_has_overlapping_labels(folders, name, tmp_path, monkeypatch):
    drawn: list[matplotlib.figure.Figure] = []
    save = matplotlib.figure.Figure.savefig

    def keep(fig, *args, **kwargs):
        drawn.append(fig)
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    write = write_tournament_report if name == "tournament" else write_report
    write(folders[name], tmp_path / "report.html")
    assert drawn, "the report draws figures"
    problems = [f"figure {k} ({fig.axes[0].get_title()!r}): {problem}"
                for k, fig in enumerate(drawn) for problem in overlapping_labels(fig)]
    assert not problems, "\n".join(problems)
