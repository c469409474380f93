"""Geometry for the server-drawn SVG charts: loss curves against the baseline, and influence heatmaps.

Drawn on the server so the page needs no chart library; the templates add the accessible name, a
text summary and a data table. Lines differ by dash pattern and label as well as colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.grading.result import InfluenceMap, TrainingSummary

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 52, 150, 16, 40


@dataclass(frozen=True)
class Series:
    label: str
    css: str  # the line's class: colour and dash pattern
    segments: list[str]  # SVG polyline point lists; a missing or non-finite value breaks the line
    last: tuple[float, float] | None  # where the end label goes


@dataclass(frozen=True)
class Tick:
    value: str
    at: float


@dataclass(frozen=True)
class LossChart:
    width: int
    height: int
    series: list[Series]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    ln_v: float | None  # y of the ln V line (the loss of a uniform guess), when in range
    rows: list[tuple[int, str, str, str, str]]  # the data table: step, train, val, baseline train, baseline val
    plot: tuple[float, float, float, float]  # left, top, right, bottom


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    span = high - low or 1.0
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step) + 1)]


def _fmt(value: float | None) -> str:
    return f"{value:.3f}" if _finite(value) else "—"


def loss_chart(training: TrainingSummary) -> LossChart | None:
    """The four curves (yours and the baseline's, train and validation), or None without data."""
    steps = training.steps
    curves = [
        ("Your validation loss", "line-val", training.val_loss),
        ("Your training loss", "line-train", training.train_loss),
        ("Baseline validation loss", "line-base-val", training.baseline_val_loss),
        ("Baseline training loss", "line-base-train", training.baseline_train_loss),
    ]
    values = [v for _, _, curve in curves for v in curve if v is not None and math.isfinite(v)]
    if not steps or not values:
        return None
    low, high = min(values), max(values)
    if training.ln_vocab is not None and _finite(training.ln_vocab):
        high = max(high, training.ln_vocab)
    low, high = max(0.0, low - 0.1 * (high - low)), high + 0.05 * (high - low or 1.0)
    x0, y0, x1, y1 = LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM
    last_step = max(steps[-1], 1)

    def x(step: int) -> float:
        return round(x0 + (x1 - x0) * step / last_step, 1)

    def y(value: float) -> float:
        return round(y1 - (y1 - y0) * (value - low) / (high - low), 1)

    series = []
    for label, css, curve in curves:
        segments, current, last = [], [], None
        for step, value in zip(steps, curve, strict=False):
            if _finite(value):
                assert value is not None
                current.append(f"{x(step)},{y(value)}")
                last = (x(step), y(value))
            elif current:
                segments.append(" ".join(current))
                current = []
        if current:
            segments.append(" ".join(current))
        if segments:
            series.append(Series(label=label, css=css, segments=segments, last=last))
    ticks_y = [Tick(f"{v:g}", y(v)) for v in _nice_ticks(low, high) if low <= v <= high]
    ticks_x = [Tick(str(int(v)), x(int(v))) for v in _nice_ticks(0, last_step, 4) if v <= last_step]
    ln_v = y(training.ln_vocab) if training.ln_vocab is not None and low <= training.ln_vocab <= high else None

    def at(curve: list[float | None], i: int) -> str:
        return _fmt(curve[i]) if i < len(curve) else "—"

    rows = [(step, at(training.train_loss, i), at(training.val_loss, i), at(training.baseline_train_loss, i),
             at(training.baseline_val_loss, i)) for i, step in enumerate(steps)]
    return LossChart(width=WIDTH, height=HEIGHT, series=series, x_ticks=ticks_x, y_ticks=ticks_y, ln_v=ln_v,
                     rows=rows, plot=(x0, y0, x1, y1))


@dataclass(frozen=True)
class Cell:
    x: int
    y: int
    opacity: float
    future: bool  # above the diagonal: a later token moved an earlier prediction


@dataclass(frozen=True)
class Heatmap:
    """cells[t][s]: how much the prediction at position t moved when token s changed."""

    key: str  # "yours" or "baseline": unique within one attempt's panel
    label: str
    text: str
    size: int
    cell: int
    cells: list[Cell]
    future_share: float  # share of all influence that comes from later tokens (0 for a causal model)
    max_future: float
    rows: list[list[str]]  # the data table, row t, column s


CELL = 18


def heatmap(influence: InfluenceMap, key: str, label: str, scale: float | None = None) -> Heatmap:
    """Transpose the probe's rows (token s changed) into the picture's rows (prediction at t)."""
    n = len(influence.matrix)
    grid = [[influence.matrix[s][t] for s in range(n)] for t in range(n)]
    top = scale or max((v for row in grid for v in row), default=0.0) or 1.0
    total = sum(v for row in grid for v in row) or 1.0
    future = [grid[t][s] for t in range(n) for s in range(n) if s > t]
    cells = [Cell(x=s * CELL, y=t * CELL, opacity=round(min(1.0, grid[t][s] / top), 3), future=s > t)
             for t in range(n) for s in range(n)]
    return Heatmap(key=key, label=label, text=influence.text, size=n * CELL, cell=CELL, cells=cells,
                   future_share=round(sum(future) / total, 4), max_future=round(max(future, default=0.0), 5),
                   rows=[[f"{v:.3f}" for v in row] for row in grid])


def heatmaps(training: TrainingSummary) -> list[Heatmap]:
    """The candidate's trained model and the baseline's, on one colour scale so they compare."""
    maps = [(training.influence, "yours", "Influence map of your trained model"),
            (training.baseline_influence, "baseline", "Influence map of the baseline model")]
    present = [(m, key, label) for m, key, label in maps if m is not None and m.matrix]
    scale = max((v for m, _, _ in present for row in m.matrix for v in row), default=0.0) or None
    return [heatmap(m, key, label, scale) for m, key, label in present]
