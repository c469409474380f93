"""The Results panel's cache agreement chart (llama-v1 gradings): yours beside the baseline's, said in words too."""

from __future__ import annotations

import math
from collections.abc import Callable

from fastapi import FastAPI
from sqlalchemy.orm import Session
from web.support import Account

from app.attempts.models import Attempt
from app.grading.result import CacheAgreement, TrainingSummary
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published
from app.workspace.charts import cache_charts, tiny

from .helpers import HTMX, graded_result, signed_in, text_of

PAGE = "/challenges/leaky-mask"
FLAT: list[float | None] = [1e-7, 2e-7, 1e-7, 3e-7, 2e-7, 1e-7, 2e-7, 1e-7, 2e-7, 1e-7]
# A broken cache: right after the prefill, from position 5 on.
JUMP: list[float | None] = [1e-7, 2e-7, 1e-7, 3e-7, 2e-7, 1.9, 2.41, 2.2, 1.7, 2.0]


def cache_result(yours: list[float | None], baseline: list[float | None] = FLAT) -> dict:
    result = graded_result(leak=False)
    result["training"] |= {"cache_agreement": {"prefill": 4, "diffs": yours},
                           "baseline_cache_agreement": {"prefill": 4, "diffs": baseline}}
    return result


def _summary(yours: CacheAgreement | None, baseline: CacheAgreement | None = None) -> TrainingSummary:
    return TrainingSummary(cache_agreement=yours, baseline_cache_agreement=baseline)


def test_tiny_differences_read_as_a_person_writes_them() -> None:
    assert [tiny(v) for v in (3e-7, 0.0, 0.0012, 2.4137, math.nan, None)] == [
        "3e-7", "0", "0.0012", "2.41", "not finite", "not finite"]


def test_a_broken_cache_disagrees_from_where_it_jumps_and_the_baseline_agrees() -> None:
    found = cache_charts(_summary(CacheAgreement(prefill=4, diffs=JUMP), CacheAgreement(prefill=4, diffs=FLAT)))
    assert found is not None
    yours, baseline = found.charts
    assert (yours.key, yours.label, yours.agrees) == ("yours", "Cache agreement of your model", False)
    assert yours.summary == ("Cached and full forward disagree from position 5 on "
                             "(5 of 10 positions beyond 1e-4; max 2.41 at position 6).")
    assert (baseline.label, baseline.agrees) == ("Cache agreement of the baseline model", True)
    assert baseline.summary == "Cached and full forward agree (max 3e-7)."
    assert found.columns == ["Your model", "Baseline model"]
    assert found.rows[6] == (6, ["2.41", "2e-7"]) and len(found.rows) == 10
    # One scale for both; the flat curve lies on the x axis, the jump reaches near the top.
    assert yours.y_ticks == baseline.y_ticks
    _, top, _, bottom = yours.plot
    baseline_y = {float(p.split(",")[1]) for p in baseline.segments[0].split()}
    assert all(abs(y - bottom) < 0.5 for y in baseline_y)
    assert min(float(p.split(",")[1]) for p in yours.segments[0].split()) < top + 0.2 * (bottom - top)
    assert yours.prefill_x is not None and yours.plot[0] < yours.prefill_x < yours.plot[2]


def test_after_the_fix_the_chart_is_flat() -> None:
    found = cache_charts(_summary(CacheAgreement(prefill=4, diffs=FLAT), CacheAgreement(prefill=4, diffs=FLAT)))
    assert found is not None
    yours = found.charts[0]
    assert yours.agrees and yours.summary == "Cached and full forward agree (max 3e-7)."
    _, _, _, bottom = yours.plot
    assert all(abs(float(p.split(",")[1]) - bottom) < 0.5 for p in yours.segments[0].split())


def test_non_finite_values_break_the_line_and_count_as_disagreement() -> None:
    diffs: list[float | None] = [0.0, 0.0, 0.0, 0.0, math.nan, math.inf, 0.5]
    found = cache_charts(_summary(CacheAgreement(prefill=4, diffs=diffs)))
    assert found is not None and len(found.charts) == 1
    chart = found.charts[0]
    assert not chart.agrees and len(chart.segments) == 2 and len(chart.off_chart) == 2
    assert chart.summary == ("Cached and full forward disagree from position 4 on "
                             "(3 of 7 positions beyond 1e-4; max 0.5 at position 6; 2 not finite).")
    assert found.rows[4] == (4, ["not finite"])


def test_a_cached_forward_that_raised_is_said_and_gpt_gradings_have_no_chart() -> None:
    found = cache_charts(_summary(CacheAgreement(error="IndexError: boom (model.py:9)"),
                                  CacheAgreement(prefill=4, diffs=FLAT)))
    assert found is not None
    assert found.charts[0].error and "IndexError: boom (model.py:9)" in found.charts[0].summary
    assert found.columns == ["Baseline model"] and found.rows[0] == (0, ["1e-7"])
    assert cache_charts(TrainingSummary()) is None
    assert cache_charts(_summary(None, CacheAgreement(prefill=4, diffs=FLAT))) is None


def _panel(web_app: FastAPI, db: Session, me: Account, result: dict) -> str:
    version = get_published(session=db, slug="leaky-mask")
    assert version is not None
    attempt = Attempt(user_id=me.user.id, scenario_version_id=version.id, kind="submit", status="failed",
                      files={}, result=result, score=0.0)
    db.add(attempt)
    db.commit()
    response = signed_in(web_app, me).get(f"{PAGE}/attempts/{attempt.id}/panel", headers=HTMX)
    assert response.status_code == 200
    return response.text


def test_the_panel_shows_both_curves_with_names_words_and_a_table(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    me = make_account("candidate")
    fragment = _panel(web_app, db, me, cache_result(JUMP))
    assert 'role="img" aria-label="Cache agreement of your model"' in fragment
    assert 'role="img" aria-label="Cache agreement of the baseline model"' in fragment
    assert 'aria-describedby="cache-' in fragment and "<summary>Cache agreement as a table</summary>" in fragment
    words = text_of(fragment)
    assert "Cache agreement" in words and "disagree from position 5 on" in words
    assert "agree (max 3e-7)" in words
    assert '<th scope="col">Your model</th><th scope="col">Baseline model</th>' in fragment
    assert "<td>2.41</td><td>2e-7</td>" in fragment
    # The influence maps are still there, the cache chart after them.
    assert fragment.index("Influence map of the baseline model") < fragment.index("Cache agreement of your model")


def test_gpt_gradings_and_results_stored_before_show_no_cache_chart(
    web_app: FastAPI, db: Session, make_account: Callable[..., Account], published_version: ScenarioVersion
) -> None:
    fragment = _panel(web_app, db, make_account("candidate"), graded_result())
    assert 'aria-label="Influence map of your trained model"' in fragment
    assert "Cache agreement" not in fragment
