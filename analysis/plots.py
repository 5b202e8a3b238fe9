"""Figures shared by the HTML report and the notebooks: estimates with their 95% intervals, at a glance.

Each function draws on an Axes it is given (so a notebook or the report lays figures out as it likes) and
returns nothing; the caller sets titles and labels that name the quantity and its unit.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np


def interval_barh(ax: Any, labels: Sequence[str], values: Sequence[float], low: Sequence[float],
                  high: Sequence[float], colour: str = "#4c72b0") -> None:
    """Horizontal bars of `values` with 95% interval whiskers, first label on top (NaN values are left out)."""
    values, low, high = (np.asarray(v, dtype=float) for v in (values, low, high))
    y = np.arange(len(labels))
    finite = ~np.isnan(values)
    err = np.vstack([values - low, high - values])
    # Wilson bounds at a rate of exactly 0 or 1 can miss it by rounding; matplotlib refuses negative errors.
    err = np.clip(np.where(np.isnan(err), 0.0, err), 0.0, None)
    ax.barh(y[finite], values[finite], xerr=err[:, finite], color=colour, ecolor="#333333", capsize=2)
    ax.set_yticks(y)
    ax.set_yticklabels(list(labels), fontsize="small")
    ax.invert_yaxis()


def interval_points(ax: Any, labels: Sequence[str], values: Sequence[float], low: Sequence[float],
                    high: Sequence[float], reference: float | None = None, colour: str = "#4c72b0") -> None:
    """A forest plot: one point per label with its 95% interval, first label on top, and an optional
    vertical reference line (0 for an effect, 0.5 for a fair rate)."""
    values, low, high = (np.asarray(v, dtype=float) for v in (values, low, high))
    y = np.arange(len(labels))
    err = np.clip(np.nan_to_num(np.vstack([values - low, high - values])), 0.0, None)
    ax.errorbar(values, y, xerr=err, fmt="o", color=colour, ecolor="#555555", capsize=2, markersize=4)
    if reference is not None:
        ax.axvline(reference, color="#aa3333", linewidth=1, linestyle="--")
    ax.set_yticks(y)
    ax.set_yticklabels(list(labels), fontsize="small")
    ax.set_ylim(len(labels) - 0.5, -0.5)
