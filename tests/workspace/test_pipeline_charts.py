"""pipeline-v1's Results charts (Accumulation check, LR schedule, Resume check) and its read-only model.py:
the chart builders' sentences and tables, the panel's pictures with names, and the workspace's file tabs."""

from __future__ import annotations

import html
import math
from collections.abc import Callable

from fastapi import FastAPI
from sqlalchemy.orm import Session
from web.support import Account

from app.attempts.models import Attempt
from app.attempts.views import pipeline_view
from app.grading.result import AccumulationCheck, AccumulationSplit, LrSchedule, PipelineSummary, ResumeCurves
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published
from app.workspace.charts import (
    accumulation_chart,
    lr_schedule_chart,
    pipeline_charts,
    ratio_words,
    resume_chart,
)

from .helpers import HTMX, graded_result, page_csrf, signed_in, text_of

SLUG = "padded-truths"
WARMUP, MAX_STEPS, MAX_LR, MIN_LR = 10, 50, 3e-3, 3e-4


def _lr(step: int) -> float:
    if step < WARMUP:
        return MAX_LR * (step + 1) / (WARMUP + 1)
    if step > MAX_STEPS:
        return MIN_LR
    return MIN_LR + 0.5 * (1 + math.cos(math.pi * (step - WARMUP) / (MAX_STEPS - WARMUP))) * (MAX_LR - MIN_LR)


RIGHT_LR: list[float | None] = [_lr(s) for s in range(MAX_STEPS + 6)]
LOSSES = [(s, 4.5 - 0.1 * s) for s in range(8)]


def _splits(ratio: Callable[[int], float], diff: Callable[[int], float]) -> AccumulationCheck:
    return AccumulationCheck(splits=[AccumulationSplit(micro_batches=k, norm_ratio=ratio(k), diff=diff(k))
                                     for k in (1, 2, 4, 8)])


RIGHT_SPLITS = _splits(lambda k: 1.0, lambda k: 1e-16 * k)
RIGHT_RESUME = ResumeCurves(saved_at=4, steps=8, uninterrupted=LOSSES, resumed=LOSSES)


def summary(**changes: object) -> PipelineSummary:
    """The reference's measurements for both, with the candidate's parts replaced by `changes`."""
    base = PipelineSummary(
        accumulation=RIGHT_SPLITS, baseline_accumulation=RIGHT_SPLITS,
        schedule=LrSchedule(warmup=WARMUP, max_steps=MAX_STEPS, max_lr=MAX_LR, min_lr=MIN_LR, lr=RIGHT_LR),
        baseline_schedule=LrSchedule(warmup=WARMUP, max_steps=MAX_STEPS, max_lr=MAX_LR, min_lr=MIN_LR, lr=RIGHT_LR),
        resume=RIGHT_RESUME, baseline_resume=RIGHT_RESUME)
    return base.model_copy(update=changes)


def test_ratios_read_as_fractions_and_multiples() -> None:
    assert [ratio_words(v) for v in (0.25, 0.5, 0.126, 4.0, 2.02, 0.73, 1.5)] == [
        "1/4 of", "1/2 of", "1/8 of", "4 times", "2 times", "0.73 times", "1.5 times"]


def test_a_right_pipeline_says_so_in_each_chart() -> None:
    charts = pipeline_charts(summary())
    assert [c.title for c in charts] == ["Accumulation check", "LR schedule", "Resume check"]
    assert all(c.ok and c.error is None for c in charts)
    accumulation, schedule, resume = charts
    assert accumulation.summary == ("Your accumulated gradient equals one batch's with 1, 2, 4 and 8 micro-batches, "
                                    "as the reference's does.")
    assert schedule.summary == ("Your lr matches the reference's at every step: a linear warmup to 0.003 at step 10, "
                                "a cosine down to 0.0003 at step 50, then 0.0003.")
    assert resume.summary == ("Your resumed run matches the run never stopped at every step after the resume at "
                              "step 4 (largest difference 0).")
    assert [s.label for s in accumulation.series] == ["Reference", "Yours"] and len(accumulation.dots) == 8
    assert [t.value for t in accumulation.x_ticks] == ["1", "2", "4", "8"]
    assert accumulation.rows[2] == ["4", "1", "4e-16", "1", "4e-16"]
    assert [g.label for g in schedule.guides] == ["warmup ends", "max_steps"]
    assert len(schedule.rows) == MAX_STEPS + 6 and schedule.rows[10] == ["10", "0.003", "0.003"]
    assert resume.rows[4] == ["4 (resumed here)", "4.1", "4.1", "0"]
    assert resume.guides[0].label == "saved after 4, resumed"


def test_a_per_micro_batch_mean_reads_as_a_fraction_of_one_batch() -> None:
    chart = accumulation_chart(summary(accumulation=_splits(lambda k: 1 / k, lambda k: 1 - 1 / k)))
    assert chart is not None and not chart.ok
    assert chart.summary == ("Your accumulated gradient equals one batch's with 1 micro-batch but is 1/2 of one "
                             "batch's with 2 micro-batches, 1/4 with 4 and 1/8 with 8.")
    assert chart.rows[2][:3] == ["4", "0.25", "0.75"]
    # The one-batch line sits at 1 and your points fall below it.
    one = chart.guides[0].y1
    yours = [d for d in chart.dots if d.css == "line-yours"]
    assert all(d.y > one for d in yours[1:]) and abs(yours[0].y - one) < 0.5


def test_a_weighting_that_keeps_the_size_points_elsewhere_and_a_sum_multiplies() -> None:
    aside = accumulation_chart(summary(accumulation=_splits(lambda k: 1.0, lambda k: 0.0 if k == 1 else 0.3)))
    assert aside is not None and aside.summary == (
        "Your accumulated gradient equals one batch's with 1 micro-batch but is the right size but pointing "
        "elsewhere with 2 micro-batches (relative difference 0.3), with 4 (0.3) and with 8 (0.3).")
    summed = accumulation_chart(summary(accumulation=_splits(float, lambda k: k - 1.0)))
    assert summed is not None and summed.summary.endswith("is 2 times one batch's with 2 micro-batches, 4 times with 4 "
                                                          "and 8 times with 8.")
    assert summed.y_ticks[-1].value == "8"  # the axis reaches the largest ratio


def test_a_schedule_that_starts_at_zero_departs_in_the_warmup() -> None:
    starts_at_zero = [MAX_LR * s / WARMUP if s < WARMUP else v for s, v in enumerate(RIGHT_LR)]
    chart = lr_schedule_chart(summary(schedule=LrSchedule(warmup=WARMUP, max_steps=MAX_STEPS, max_lr=MAX_LR,
                                                          min_lr=MIN_LR, lr=starts_at_zero)))
    assert chart is not None and not chart.ok
    assert chart.summary == ("Your lr departs from the reference's at step 0, in the warmup: 0 where the reference's "
                             "is 0.0002727 (10 of 56 steps differ).")
    assert chart.rows[0] == ["0", "0", "0.000272727"]


def test_a_resume_that_forgets_the_rng_departs_after_the_resume_and_one_from_step_0_is_said() -> None:
    drifted = LOSSES[:4] + [(s, v + 0.01 * (s - 3)) for s, v in LOSSES[4:]]
    chart = resume_chart(summary(resume=ResumeCurves(saved_at=4, steps=8, uninterrupted=LOSSES, resumed=drifted)))
    assert chart is not None and not chart.ok
    assert chart.summary == ("Your resumed run departs from the run never stopped at step 4, right after the resume: "
                             "loss 4.11 against 4.1 (largest difference 0.04 at step 7).")
    assert [s.label for s in chart.series] == ["Never stopped", "Resumed"]
    assert len(chart.series[1].segments) == 2  # broken at the save
    restarted = resume_chart(summary(resume=ResumeCurves(saved_at=4, steps=8, uninterrupted=LOSSES,
                                                         resumed=LOSSES[:4] + LOSSES)))
    assert restarted is not None and restarted.summary == "After loading, your run went on from step 0, not step 4."


def test_probes_that_raised_are_said_without_a_picture() -> None:
    charts = pipeline_charts(summary(accumulation=AccumulationCheck(error="RuntimeError: boom (train.py:40)"),
                                     schedule=LrSchedule(error="ZeroDivisionError: division by zero (train.py:30)"),
                                     resume=ResumeCurves(error="FileNotFoundError: ckpt (train.py:90)")))
    assert [c.error is not None for c in charts] == [True, True, True]
    assert charts[0].summary == ("train_step raised an error, so no gradient was compared: "
                                 "RuntimeError: boom (train.py:40)")
    assert charts[1].summary.startswith("get_lr raised an error, so there is no curve: ZeroDivisionError")
    assert charts[2].summary.startswith("The run could not be saved and resumed: FileNotFoundError")
    assert pipeline_charts(None) == [] and pipeline_charts(PipelineSummary()) == []


def test_the_api_carries_the_summary_key_for_key() -> None:
    shown = pipeline_view(summary())
    assert shown is not None and list(shown) == list(PipelineSummary.model_fields)
    assert shown["accumulation"] is not None and shown["accumulation"]["splits"][0]["micro_batches"] == 1
    assert shown["resume"] is not None and shown["resume"]["resumed"][4] == [4, LOSSES[4][1]]
    assert pipeline_view(None) is None


def _version(db: Session, slug: str) -> ScenarioVersion:
    version = get_published(session=db, slug=slug)
    assert version is not None
    return version


def _panel(web_app: FastAPI, db: Session, me: Account, result: dict, slug: str = SLUG) -> str:
    attempt = Attempt(user_id=me.user.id, scenario_version_id=_version(db, slug).id, kind="submit", status="failed",
                      files={}, result=result, score=0.0)
    db.add(attempt)
    db.commit()
    response = signed_in(web_app, me).get(f"/challenges/{slug}/attempts/{attempt.id}/panel", headers=HTMX)
    assert response.status_code == 200
    return response.text


def test_the_panel_draws_three_named_pictures_with_sentences_and_tables(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    result = graded_result() | {"scenario": SLUG, "pipeline": summary(
        accumulation=_splits(lambda k: 1 / k, lambda k: 1 - 1 / k)).model_dump(mode="json")}
    fragment = _panel(web_app, db, make_account("candidate"), result)
    for name in ("Accumulation check", "LR schedule", "Resume check"):
        assert f'role="img" aria-label="{name}"' in fragment
        assert f"<summary>{name} as a table</summary>" in fragment
    words = html.unescape(text_of(fragment))
    assert "is 1/2 of one batch's with 2 micro-batches, 1/4 with 4 and 1/8 with 8." in words
    assert "Your lr matches the reference's at every step" in words
    assert "Your resumed run matches the run never stopped" in words
    assert 'aria-describedby="accumulation-summary-' in fragment


def test_other_gradings_and_results_stored_before_show_none_of_them(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    fragment = _panel(web_app, db, make_account("candidate"), graded_result(), slug="leaky-mask")
    assert "Accumulation check" not in fragment and "Resume check" not in fragment and "LR schedule" not in fragment


def test_model_py_is_a_read_only_tab_never_sent(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    client = signed_in(web_app, me)
    page, csrf = page_csrf(client, f"/challenges/{SLUG}")
    assert ">model.py (read-only)</button>" in page
    assert 'aria-label="Editor: model.py (read-only)"' in page and 'data-readonly="yes"' in page
    assert 'name="file:model.py"' not in page  # the plain form never posts it
    assert 'name="file:data.py"' in page and 'name="file:train.py"' in page
    assert "The grader's training loop calls what you write in <code>data.py</code> and <code>train.py</code>" in page
    assert 'aria-selected="true" tabindex="0"' in page.split('data-file="data.py"')[0].rsplit("<button", 1)[1]
    # Whatever a client posts as model.py, the page shows the scenario's copy (and grading uses it).
    starter = _version(db, SLUG).content
    saved = client.post(f"/challenges/{SLUG}/draft", headers={"X-CSRF-Token": csrf},
                        json={"files": {"model.py": "broken", "data.py": "# mine\n"}, "notes": {}, "revision": 0})
    assert saved.status_code == 200 and saved.json()["saved"]
    again = client.get(f"/challenges/{SLUG}?file=model.py").text
    assert "# mine" in again and ">broken</textarea>" not in again
    assert starter["interface"] == "pipeline-v1"


def test_other_interfaces_keep_every_file_editable(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    page, _ = page_csrf(signed_in(web_app, make_account("candidate")), "/challenges/leaky-mask")
    assert "(read-only)" not in page and 'name="file:model.py"' in page and "data-readonly" not in page
    assert 'aria-label="Editor: model.py"' in page


def test_the_catalogue_filters_and_labels_the_training_pipeline(
    web_app: FastAPI, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    client = signed_in(web_app, make_account("candidate"))
    listing = client.get("/candidate").text
    assert "Training pipeline (pipeline-v1) <span class=\"count\">" in listing
    only = client.get("/candidate?interface=pipeline-v1").text
    assert 'badge-interface">Training pipeline (pipeline-v1)</span>' in only and f"/challenges/{SLUG}" in only
    assert "/challenges/leaky-mask" not in only
