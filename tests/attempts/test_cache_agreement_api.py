"""GET /api/attempts/{id}: the cache agreement of a llama-v1 grading, the baseline's too (it is not secret)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.attempts.views import CANDIDATE_BASELINE_FIELDS, training_view
from app.core.db import utcnow
from app.grading.result import TrainingSummary
from app.scenarios.service import get_published

YOURS = {"prefill": 4, "diffs": [1e-7, 2e-7, 1e-7, 3e-7, 1.9, 2.4], "error": None}
BASELINE = {"prefill": 4, "diffs": [1e-7, 2e-7, 1e-7, 3e-7, 2e-7, 1e-7], "error": None}
TRAINING = {"steps": [0, 10], "train_loss": [None, 3.0], "val_loss": [4.1, 3.2], "final_val_loss": 3.2,
            "baseline_leak_probe_loss": 3.6, "cache_agreement": YOURS, "baseline_cache_agreement": BASELINE}


def test_candidates_and_staff_read_both_cache_curves(client, make_user, builtin_slugs, db: Session) -> None:
    candidate = make_user()
    version = get_published(session=db, slug="warm-up")
    assert version is not None
    attempt = Attempt(user_id=candidate.user.id, scenario_version_id=version.id, kind="submit", status="failed",
                      files={}, notes={}, finished_at=utcnow(),
                      result={"status": "failed", "training": TRAINING, "tests": [], "bugs": []})
    db.add(attempt)
    db.commit()
    shown = client.get(f"/api/attempts/{attempt.id}", headers=candidate.headers).json()["training"]
    assert shown["cache_agreement"] == YOURS and shown["baseline_cache_agreement"] == BASELINE
    assert "baseline_leak_probe_loss" not in shown
    assert "baseline_cache_agreement" in CANDIDATE_BASELINE_FIELDS
    staff = training_view(TrainingSummary.model_validate(TRAINING), staff=True)
    assert staff["cache_agreement"] == YOURS and staff["baseline_cache_agreement"] == BASELINE
    assert list(staff) == list(TrainingSummary.model_fields)  # key for key, in the model's order


def test_a_gpt_grading_shows_no_cache_curve() -> None:
    shown = training_view(TrainingSummary(steps=[0], val_loss=[4.1]), staff=False)
    assert shown["cache_agreement"] is None and shown["baseline_cache_agreement"] is None
