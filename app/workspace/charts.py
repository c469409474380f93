"""Geometry for the server-drawn SVG charts: loss curves against the baseline, influence heatmaps, and (with a
KV cache) the cache agreement per position.

Drawn on the server so the page needs no chart library; the templates add the accessible name, a
text summary and a data table. Lines differ by dash pattern and label as well as colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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


# Cache agreement (interfaces with a KV cache): max |logits through the cache - the full forward's| per
# position. Float32 rounding stays far below AGREE; the y axis reaches at least CACHE_FLOOR, so a correct
# cache draws a flat line at 0 instead of magnified rounding noise.
AGREE = 1e-4
CACHE_FLOOR = 0.01
CACHE_WIDTH, CACHE_HEIGHT = 340, 190
CACHE_LEFT, CACHE_RIGHT, CACHE_TOP, CACHE_BOTTOM = 58, 10, 18, 38


@dataclass(frozen=True)
class CacheChart:
    """One model's curve: `label` is the picture's accessible name, `summary` says what it shows in words."""

    key: str  # "yours" or "baseline": unique within one attempt's panel
    title: str
    label: str
    summary: str
    agrees: bool
    error: str | None = None  # the cached forward raised: no curve
    width: int = CACHE_WIDTH
    height: int = CACHE_HEIGHT
    plot: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # left, top, right, bottom
    segments: list[str] = field(default_factory=list)  # a non-finite value breaks the line...
    off_chart: list[float] = field(default_factory=list)  # ...and is marked at the top, at these x
    prefill_x: float | None = None  # right edge of the prefill band
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)


@dataclass(frozen=True)
class CacheCharts:
    """The candidate's chart and the baseline's on one scale, and one data table for both."""

    prefill: int  # from a curve that was measured: a cached call that raised measured no prefill
    charts: list[CacheChart]
    columns: list[str]  # the table's value columns, in the charts' order
    rows: list[tuple[int, list[str]]]  # position, then one value per chart


def tiny(value: float | None) -> str:
    """A difference as a person reads it: 3e-7, 0.0012, 2.41; "not finite" for NaN and infinities."""
    if value is None or not math.isfinite(value):
        return "not finite"
    if value == 0:
        return "0"
    if abs(value) < 1e-3:
        mantissa, exponent = f"{value:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:.3g}"


def _agreement_summary(diffs: list[float | None]) -> tuple[bool, str]:
    """("agree", sentence): where the cached forward departs from the full one, and by how much."""
    off = [i for i, v in enumerate(diffs) if not _finite(v) or (v is not None and v > AGREE)]
    finite = [(v, i) for i, v in enumerate(diffs) if v is not None and math.isfinite(v)]
    top, at = max(finite, default=(0.0, 0))
    if not off:
        return True, f"Cached and full forward agree (max {tiny(top)})."
    broken = sum(1 for v in diffs if not _finite(v))
    details = [f"{len(off)} of {len(diffs)} positions beyond {tiny(AGREE)}"]
    if finite and top > AGREE:
        details.append(f"max {tiny(top)} at position {at}")
    if broken:
        details.append(f"{broken} not finite")
    return False, f"Cached and full forward disagree from position {off[0]} on ({'; '.join(details)})."


def cache_charts(training: TrainingSummary) -> CacheCharts | None:
    """Yours and the baseline's cache agreement, or None when the grading measured none (gpt-v1)."""
    found = [(a, key, title, label) for a, key, title, label in (
        (training.cache_agreement, "yours", "Your model", "Cache agreement of your model"),
        (training.baseline_cache_agreement, "baseline", "Baseline model", "Cache agreement of the baseline model"),
    ) if a is not None and (a.diffs or a.error)]
    if not found or found[0][1] != "yours":
        return None
    prefill = next((a.prefill for a, _, _, _ in found if a.error is None), 0)
    n = max(len(a.diffs) for a, _, _, _ in found)
    values = [v for a, _, _, _ in found for v in a.diffs if v is not None and math.isfinite(v)]
    high = max([CACHE_FLOOR, *values])
    step_ticks = _nice_ticks(0.0, high, 3)  # few ticks: labels such as 0.005 stay clear of the axis label
    step = step_ticks[1] - step_ticks[0] if len(step_ticks) > 1 else high
    top = step_ticks[-1] if step_ticks[-1] >= high else step_ticks[-1] + step
    x0, y0, x1, y1 = CACHE_LEFT, CACHE_TOP, CACHE_WIDTH - CACHE_RIGHT, CACHE_HEIGHT - CACHE_BOTTOM
    last = max(n - 1, 1)

    def x(pos: float) -> float:
        return round(x0 + (x1 - x0) * pos / last, 1)

    def y(value: float) -> float:
        return round(y1 - (y1 - y0) * min(value, top) / top, 1)

    y_ticks = [Tick(tiny(v) if v else "0", y(v)) for v in _nice_ticks(0.0, top, 3) if v <= top]
    x_ticks = [Tick(str(int(v)), x(int(v))) for v in _nice_ticks(0, last, 4) if v <= last]
    charts = []
    for agreement, key, title, label in found:
        if agreement.error is not None:
            charts.append(CacheChart(key=key, title=title, label=label, agrees=False, error=agreement.error,
                                     summary=f"The cached call raised an error, so nothing was compared: "
                                             f"{agreement.error}"))
            continue
        segments, current, off_chart = [], [], []
        for pos, value in enumerate(agreement.diffs):
            if value is not None and math.isfinite(value):
                current.append(f"{x(pos)},{y(value)}")
                continue
            off_chart.append(x(pos))
            if current:
                segments.append(" ".join(current))
                current = []
        if current:
            segments.append(" ".join(current))
        agrees, summary = _agreement_summary(agreement.diffs)
        prefill_x = x(min(agreement.prefill, n) - 0.5) if agreement.prefill > 0 else None
        charts.append(CacheChart(key=key, title=title, label=label, summary=summary, agrees=agrees,
                                 plot=(x0, y0, x1, y1), segments=segments, off_chart=off_chart,
                                 prefill_x=prefill_x, x_ticks=x_ticks, y_ticks=y_ticks))
    shown = [a for a, _, _, _ in found if a.error is None]

    def cell(diffs: list[float | None], pos: int) -> str:
        return "—" if pos >= len(diffs) else tiny(diffs[pos])

    rows = [(pos, [cell(a.diffs, pos) for a in shown]) for pos in range(n)]
    columns = [title for a, _, title, _ in found if a.error is None]
    return CacheCharts(prefill=prefill, charts=charts, columns=columns, rows=rows)
