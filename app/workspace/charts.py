"""Geometry for the server-drawn SVG charts: loss curves against the baseline, influence heatmaps, and (with a
KV cache) the cache agreement per position.

Drawn on the server so the page needs no chart library; the templates add the accessible name, a
text summary and a data table. Lines differ by dash pattern and label as well as colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.grading.result import (
    AccumulationCheck,
    AccumulationSplit,
    InfluenceMap,
    LrSchedule,
    PipelineSummary,
    ResumeCurves,
    TrainingSummary,
)

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


# pipeline-v1: the Accumulation check, the LR schedule and the Resume check. Each is one SVG with its lines
# (yours solid, the reference's or the resumed run's dashed, each named in a legend), a sentence that says
# what a person concludes and a data table.
PIPE_WIDTH, PIPE_HEIGHT = 460, 220
PIPE_LEFT, PIPE_RIGHT, PIPE_TOP, PIPE_BOTTOM = 62, 126, 16, 40
GRAD_AGREE = 1e-6  # float64 gradients summed one way or another (the checks' tolerance)
LR_REL = 1e-9
LOSS_REL = 1e-9  # a resumed run repeats the same float64 arithmetic: the same losses to the last bits


@dataclass(frozen=True)
class Guide:
    """A reference line across the plot with its label (one batch's norm, the end of warmup, the resume)."""

    x1: float
    y1: float
    x2: float
    y2: float
    label: str
    label_x: float
    label_y: float
    anchor: str = "start"  # the label's text-anchor: "end" puts it left of a vertical line


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    css: str


@dataclass(frozen=True)
class PipelineChart:
    """One of pipeline-v1's charts: `title` is its heading and the picture's accessible name, `summary` the
    sentence under it, `rows` under `columns` its data table; `error` (no picture) when the probe raised."""

    key: str  # "accumulation", "schedule", "resume": unique within one attempt's panel
    title: str
    note: str  # what is measured, above the picture
    summary: str
    ok: bool
    columns: list[str]
    rows: list[list[str]]
    caption: str  # the table's caption
    x_label: str = ""
    y_label: str = ""
    error: str | None = None
    width: int = PIPE_WIDTH
    height: int = PIPE_HEIGHT
    plot: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    series: list[Series] = field(default_factory=list)
    dots: list[Dot] = field(default_factory=list)
    guides: list[Guide] = field(default_factory=list)
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)


@dataclass(frozen=True)
class _Frame:
    """Data coordinates to SVG coordinates inside the pipeline charts' plot area."""

    x_low: float
    x_high: float
    y_low: float
    y_high: float

    @property
    def plot(self) -> tuple[float, float, float, float]:
        return PIPE_LEFT, PIPE_TOP, PIPE_WIDTH - PIPE_RIGHT, PIPE_HEIGHT - PIPE_BOTTOM

    def x(self, value: float) -> float:
        x0, _, x1, _ = self.plot
        return round(x0 + (x1 - x0) * (value - self.x_low) / ((self.x_high - self.x_low) or 1.0), 1)

    def y(self, value: float) -> float:
        _, y0, _, y1 = self.plot
        clamped = min(max(value, self.y_low), self.y_high)
        return round(y1 - (y1 - y0) * (clamped - self.y_low) / ((self.y_high - self.y_low) or 1.0), 1)

    def y_ticks(self, fmt: str = "{:g}") -> list[Tick]:
        return [Tick(fmt.format(v), self.y(v)) for v in _nice_ticks(self.y_low, self.y_high, 4)
                if self.y_low <= v <= self.y_high]

    def line(self, points: list[tuple[float, float | None]], label: str, css: str) -> Series | None:
        """One polyline per finite run of points; None when nothing is finite."""
        segments, current, last = [], [], None
        for px, py in points:
            if _finite(py):
                assert py is not None
                current.append(f"{self.x(px)},{self.y(py)}")
                last = (self.x(px), self.y(py))
            elif current:
                segments.append(" ".join(current))
                current = []
        if current:
            segments.append(" ".join(current))
        return Series(label=label, css=css, segments=segments, last=last) if segments else None


def _top(values: list[float], floor: float) -> float:
    """A y axis top at a tick at or above every value (and at least `floor`)."""
    high = max([floor, *values])
    ticks = _nice_ticks(0.0, high, 4)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else high
    return ticks[-1] if ticks[-1] >= high else ticks[-1] + step


def _num(value: float | None, digits: int = 4) -> str:
    return f"{value:.{digits}g}" if value is not None and math.isfinite(value) else "not finite" if value is not None \
        else "—"


def ratio_words(ratio: float) -> str:
    """How a gradient's norm compares with one batch's: "1/4 of", "4 times", "0.73 times"."""
    if ratio > 0 and ratio < 1:
        n = round(1 / ratio)
        if n >= 2 and abs(1 / ratio - n) <= 0.02 * n:
            return f"1/{n} of"
    if ratio > 1:
        n = round(ratio)
        if abs(ratio - n) <= 0.02 * n:
            return f"{n} times"
    return f"{ratio:.3g} times"


def _split_matches(split: AccumulationSplit) -> bool:
    return _finite(split.diff) and (split.diff or 0.0) <= GRAD_AGREE


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _accumulation_summary(check: AccumulationCheck, reference: AccumulationCheck | None) -> tuple[bool, str]:
    splits = check.splits
    right = [s for s in splits if _split_matches(s)]
    counts = _and([str(s.micro_batches) for s in splits])
    if len(right) == len(splits):
        also = ", as the reference's does" if reference is not None and reference.splits else ""
        return True, f"Your accumulated gradient equals one batch's with {counts} micro-batches{also}."
    parts: list[str] = []
    last_kind = ""
    for split in splits:
        if split in right:
            continue
        k, n = f"{split.micro_batches} micro-batch{'es' if split.micro_batches != 1 else ''}", split.micro_batches
        ratio = split.norm_ratio
        if ratio is None:
            kind, full, short = "none", f"not one optimizer step with {k}", f"with {n}"
        elif not math.isfinite(ratio):
            kind, full, short = "inf", f"not finite with {k}", f"with {n}"
        elif abs(ratio - 1) <= 1e-3:
            kind, full, short = ("aside", f"the right size but pointing elsewhere with {k} (relative difference "
                                 f"{tiny(split.diff)})", f"with {n} ({tiny(split.diff)})")
        else:  # "1/4 of one batch's with 4 micro-batches", then "1/8 with 8"
            kind = "size"
            full = f"{ratio_words(ratio)} one batch's with {k}"
            short = f"{ratio_words(ratio).removesuffix(' of')} with {n}"
        parts.append(short if kind == last_kind else full)
        last_kind = kind
    start = "Your accumulated gradient is "
    if right:
        plural = "es" if right[-1].micro_batches != 1 else ""
        start = (f"Your accumulated gradient equals one batch's with {_and([str(s.micro_batches) for s in right])} "
                 f"micro-batch{plural} but is ")
    return False, start + _and(parts) + "."


def accumulation_chart(pipeline: PipelineSummary) -> PipelineChart | None:
    """The norm of the gradient handed to the optimizer over one batch's, per micro-batch split: yours and the
    reference's. None when the grading measured none (other interfaces, older results)."""
    yours, reference = pipeline.accumulation, pipeline.baseline_accumulation
    if yours is None:
        return None
    title = "Accumulation check"
    note = ("The same eight documents (of very different token counts) as one batch and split into 2, 4 and 8 "
            "micro-batches: the norm of the gradient your train_step hands the optimizer, divided by the norm of "
            "one big batch's gradient. Accumulation done right gives 1 at every split.")
    columns = ["Micro-batches", "Your norm ÷ one batch's", "Your relative difference", "Reference's norm ÷ one batch's",
               "Reference's relative difference"]
    caption = "Gradient norm relative to one batch's, per micro-batch split"
    if yours.error is not None or not yours.splits:
        why = yours.error or "train_step made no step"
        return PipelineChart(key="accumulation", title=title, note=note, ok=False, columns=columns, rows=[],
                             caption=caption, error=why,
                             summary=f"train_step raised an error, so no gradient was compared: {why}")
    ref_splits = {s.micro_batches: s for s in (reference.splits if reference is not None else [])}
    ks = sorted({s.micro_batches for s in yours.splits} | set(ref_splits))
    position = {k: i for i, k in enumerate(ks)}  # evenly spaced: 1, 2, 4, 8 double each time
    values = [s.norm_ratio for s in [*yours.splits, *ref_splits.values()] if _finite(s.norm_ratio)]
    frame = _Frame(-0.3, len(ks) - 0.7, 0.0, _top([v for v in values if v is not None], 1.2))
    series, dots = [], []
    drawn = ((list(ref_splits.values()), "Reference", "line-ref"), (yours.splits, "Yours", "line-yours"))
    for splits, label, css in drawn:
        line = frame.line([(position[s.micro_batches], s.norm_ratio) for s in splits], label, css)
        if line is not None:
            series.append(line)
        dots += [Dot(frame.x(position[s.micro_batches]), frame.y(s.norm_ratio or 0.0), css)
                 for s in splits if _finite(s.norm_ratio)]
    x0, _, x1, _ = frame.plot
    one = frame.y(1.0)
    ok, summary = _accumulation_summary(yours, reference)
    by_k = {s.micro_batches: s for s in yours.splits}

    def cells(split: AccumulationSplit | None) -> list[str]:
        return [_num(split.norm_ratio), tiny(split.diff)] if split is not None else ["—", "—"]

    rows = [[str(k), *cells(by_k.get(k)), *cells(ref_splits.get(k))] for k in ks]
    return PipelineChart(
        key="accumulation", title=title, note=note, summary=summary, ok=ok, columns=columns, rows=rows,
        caption=caption, x_label="micro-batches", y_label="norm ÷ one batch's", plot=frame.plot,
        series=series, dots=dots, guides=[Guide(x0, one, x1, one, "one batch", x0 + 4, one - 4)],
        x_ticks=[Tick(str(k), frame.x(position[k])) for k in ks], y_ticks=frame.y_ticks())


def _phase(step: int, schedule: LrSchedule) -> str:
    if step < schedule.warmup:
        return "in the warmup"
    if step <= schedule.max_steps:
        return "in the cosine decay"
    return "after max_steps"


def lr_schedule_chart(pipeline: PipelineSummary) -> PipelineChart | None:
    """get_lr per step over one schedule, yours and the reference's, with the end of warmup and max_steps."""
    yours, reference = pipeline.schedule, pipeline.baseline_schedule
    if yours is None:
        return None
    title = "LR schedule"
    shape = reference if reference is not None and reference.error is None else yours
    note = (f"get_lr at every step of one schedule (warmup_steps {shape.warmup}, max_steps {shape.max_steps}, "
            f"max_lr {shape.max_lr:g}, min_lr {shape.min_lr:g}): the lr the grader gives each step, yours and the "
            "reference's.")
    columns = ["Step", "Your lr", "Reference's lr"]
    caption = "Learning rate per step, yours and the reference's"
    if yours.error is not None or not yours.lr:
        why = yours.error or "get_lr gave no values"
        return PipelineChart(key="schedule", title=title, note=note, ok=False, columns=columns, rows=[],
                             caption=caption, error=why, summary=f"get_lr raised an error, so there is no curve: {why}")
    ref_lr = reference.lr if reference is not None and reference.error is None else []
    n = max(len(yours.lr), len(ref_lr))
    values = [v for v in [*yours.lr, *ref_lr] if v is not None and math.isfinite(v)]
    frame = _Frame(0, max(n - 1, 1), 0.0, _top(values, 0.0) or 1.0)
    series = [line for line in (frame.line(list(enumerate(ref_lr)), "Reference", "line-ref"),
                                frame.line(list(enumerate(yours.lr)), "Yours", "line-yours")) if line is not None]
    _, y0, _, y1 = frame.plot
    # "warmup ends" low and right of its line (the curve peaks there), "max_steps" high and left of its own.
    guides = [Guide(frame.x(at), y0, frame.x(at), y1, label, frame.x(at) + offset, y, anchor)
              for at, label, offset, y, anchor in ((shape.warmup, "warmup ends", 3, y1 - 6, "start"),
                                                   (shape.max_steps, "max_steps", -3, y0 + 10, "end"))
              if 0 <= at < n]

    def differs(i: int) -> bool:
        mine, theirs = yours.lr[i] if i < len(yours.lr) else None, ref_lr[i]
        return not (mine is not None and theirs is not None and math.isfinite(mine)
                    and math.isclose(mine, theirs, rel_tol=LR_REL, abs_tol=1e-15))

    off = [i for i in range(len(ref_lr)) if differs(i)]
    if not ref_lr:
        ok, summary = True, (f"Your lr goes from {_num(yours.lr[0])} at step 0 to {_num(yours.lr[-1])} at step "
                             f"{len(yours.lr) - 1}.")
    elif not off:
        ok, summary = True, (f"Your lr matches the reference's at every step: a linear warmup to {shape.max_lr:g} at "
                             f"step {shape.warmup}, a cosine down to {shape.min_lr:g} at step {shape.max_steps}, "
                             f"then {shape.min_lr:g}.")
    else:
        first = off[0]
        mine = yours.lr[first] if first < len(yours.lr) else None
        ok, summary = False, (f"Your lr departs from the reference's at step {first}, {_phase(first, shape)}: "
                              f"{_num(mine)} where the reference's is {_num(ref_lr[first])} ({len(off)} of "
                              f"{len(ref_lr)} steps differ).")

    def at(lr: list[float | None], i: int) -> str:
        return _num(lr[i], 6) if i < len(lr) else "—"

    rows = [[str(i), at(yours.lr, i), at(ref_lr, i)] for i in range(n)]
    return PipelineChart(
        key="schedule", title=title, note=note, summary=summary, ok=ok, columns=columns, rows=rows, caption=caption,
        x_label="step", y_label="learning rate", plot=frame.plot, series=series, guides=guides,
        x_ticks=[Tick(str(int(v)), frame.x(v)) for v in _nice_ticks(0, n - 1, 5) if v <= n - 1],
        y_ticks=frame.y_ticks())


def _resume_summary(curves: ResumeCurves, before: list[tuple[int, float | None]],
                    after: list[tuple[int, float | None]]) -> tuple[bool, str]:
    k = curves.saved_at
    never = dict(curves.uninterrupted)
    if not after:
        return False, f"Your run saved after {k} steps made no step after loading, so nothing was continued."
    if all(loss is None for _, loss in curves.uninterrupted + curves.resumed):
        return False, "Your train_step returned no loss, so there is no curve to compare."
    lead = ""
    if after[0][0] != k:
        lead = f"After loading, your run went on from step {after[0][0]}, not step {k}; "
    gaps = []
    for step, loss in [*before, *after]:
        base = never.get(step)
        if loss is None or base is None or not math.isfinite(loss) or not math.isfinite(base):
            gaps.append((step, math.inf))
        elif abs(loss - base) > LOSS_REL * max(1.0, abs(base)):
            gaps.append((step, abs(loss - base)))
    if not gaps and not lead:
        top = max((abs((loss or 0.0) - (never.get(step) or 0.0)) for step, loss in after), default=0.0)
        return True, (f"Your resumed run matches the run never stopped at every step after the resume at step {k} "
                      f"(largest difference {tiny(top)}).")
    if not gaps:
        return False, lead[0].upper() + lead[1:-2] + "."
    step, _ = gaps[0]
    worst_step, worst = max(gaps, key=lambda g: g[1])
    resumed = dict(after).get(step, dict(before).get(step))
    where = ("before the save" if step < k else "right after the resume" if step == k
             else f"{step - k} step{'s' if step - k != 1 else ''} after the resume")
    text = (f"your resumed run departs from the run never stopped at step {step}, {where}: loss {_num(resumed, 5)} "
            f"against {_num(never.get(step), 5)} (largest difference {tiny(worst)} at step {worst_step}).")
    return False, (lead + text) if lead else text[0].upper() + text[1:]


def resume_chart(pipeline: PipelineSummary) -> PipelineChart | None:
    """The loss of each step of your run never stopped and of your run saved, loaded into fresh objects and
    continued, the resume marked."""
    curves = pipeline.resume
    if curves is None:
        return None
    title = "Resume check"
    k = curves.saved_at
    note = (f"Two runs of your build_optimizer and train_step on the same batches, dropout on: one never stopped, one "
            f"saved with save_checkpoint after {k} of {curves.steps} steps, loaded with load_checkpoint into fresh "
            "objects and continued. The loss each step returned; a faithful resume draws the same line.")
    columns = ["Step", "Never stopped", "Stopped and resumed", "Difference"]
    caption = "Training loss per step of a run never stopped and of one saved, loaded and continued"
    if curves.error is not None:
        return PipelineChart(key="resume", title=title, note=note, ok=False, columns=columns, rows=[],
                             caption=caption, error=curves.error,
                             summary=f"The run could not be saved and resumed: {curves.error}")
    before, after = curves.resumed[:k], curves.resumed[k:]
    steps = sorted({s for s, _ in [*curves.uninterrupted, *curves.resumed]})
    values = [v for _, v in [*curves.uninterrupted, *curves.resumed] if v is not None and math.isfinite(v)]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    pad = 0.1 * (high - low) or 0.05 * (abs(high) or 1.0)
    frame = _Frame(min(steps, default=0), max(max(steps, default=1), 1), low - pad, high + pad)
    series = []
    never_line = frame.line([(s, v) for s, v in curves.uninterrupted], "Never stopped", "line-yours")
    if never_line is not None:
        series.append(never_line)
    resumed_parts = [frame.line([(s, v) for s, v in part], "Resumed", "line-resumed") for part in (before, after)]
    found = [p for p in resumed_parts if p is not None]
    if found:  # one legend entry, the line broken at the save
        series.append(Series(label="Resumed", css="line-resumed", segments=[s for p in found for s in p.segments],
                             last=found[-1].last))
    dots = [Dot(frame.x(s), frame.y(v), "line-resumed") for s, v in after[:1] if v is not None and math.isfinite(v)]
    _, y0, _, y1 = frame.plot
    mark = frame.x(k - 0.5)
    ok, summary = _resume_summary(curves, before, after)
    never, later, earlier = dict(curves.uninterrupted), dict(after), dict(before)

    def row(step: int) -> list[str]:
        mine = later.get(step, earlier.get(step))
        base = never.get(step)
        gap = abs(mine - base) if mine is not None and base is not None else None
        return [f"{step}{' (resumed here)' if step == k else ''}", _num(base, 6), _num(mine, 6), tiny(gap)]

    return PipelineChart(
        key="resume", title=title, note=note, summary=summary, ok=ok, columns=columns,
        rows=[row(s) for s in steps], caption=caption, x_label="step", y_label="training loss", plot=frame.plot,
        series=series, dots=dots, guides=[Guide(mark, y0, mark, y1, f"saved after {k}, resumed", mark + 3, y0 + 10)],
        x_ticks=[Tick(str(s), frame.x(s)) for s in steps], y_ticks=frame.y_ticks("{:.4g}"))


def pipeline_charts(pipeline: PipelineSummary | None) -> list[PipelineChart]:
    """pipeline-v1's three charts in the order the panel shows them; none for other gradings."""
    if pipeline is None:
        return []
    found = (accumulation_chart(pipeline), lr_schedule_chart(pipeline), resume_chart(pipeline))
    return [chart for chart in found if chart is not None]
