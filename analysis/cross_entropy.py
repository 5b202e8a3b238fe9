"""One step of the cross-entropy method, shared by the policy searches that tune evaluation weights
(`analysis/cvc/train_value.py`, `analysis/caverna/train_weights.py`)."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def elite_update(mean: np.ndarray, spread: np.ndarray, candidates: Sequence[np.ndarray], fitness: np.ndarray, *,
                 elite_share: int, smoothing: float, min_spread: float, decimals: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(new mean, new spread, the elite's indices best first): the best 1/`elite_share` of the candidates by
    `fitness` (earlier first on ties), the mean moved `smoothing` of the way to theirs (rounded to `decimals`,
    so that the last bits of a machine's arithmetic do not change the next generation's games) and the spread
    to theirs (at least `min_spread`)."""
    best = np.argsort(-fitness, kind="stable")[:max(1, len(candidates) // elite_share)]
    elite = np.asarray([candidates[k] for k in best])
    mean = ((1 - smoothing) * mean + smoothing * elite.mean(axis=0)).round(decimals)
    spread = np.maximum((1 - smoothing) * spread + smoothing * elite.std(axis=0), min_spread)
    return mean, spread, best
