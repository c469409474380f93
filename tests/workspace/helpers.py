"""Shared pieces of the workspace tests: a signed-in client, a realistic graded result."""

from __future__ import annotations

import math
import re

from fastapi import FastAPI
from fastapi.testclient import TestClient
from web.support import Account, csrf_from, sign_in

HTMX = {"HX-Request": "true"}


def signed_in(web_app: FastAPI, account: Account) -> TestClient:
    client = TestClient(web_app)
    sign_in(client, account.email)
    return client


def page_csrf(client: TestClient, path: str) -> tuple[str, str]:
    """Open a page and return (its HTML, its form token)."""
    response = client.get(path)
    assert response.status_code == 200, response.text[:500]
    return response.text, csrf_from(response.text)


def graded_result(*, status: str = "failed", leak: bool = True) -> dict:
    """A result in the shape the grader stores (GradeResult.to_dict()), with curves and influence maps."""
    steps = list(range(0, 201, 25))
    ours = [4.2 - 0.5 * i for i in range(len(steps))]
    base = [4.2 - 0.2 * i for i in range(len(steps))]
    n = 6
    causal = [[(0.0 if t < s else 1.0 + 0.1 * t) for t in range(n)] for s in range(n)]
    leaky = [[(0.5 if t == s - 1 else v) for t, v in enumerate(row)] for s, row in enumerate(causal)]
    return {
        "status": status, "error": None, "score": 0.25, "kind": "submit", "scenario": "leaky-mask",
        "tests": [
            {"id": "general.forward-shapes", "component": "general", "passed": True, "message": "ok", "public": True},
            {"id": "attention.causal-perturb", "component": "attention", "passed": status == "passed",
             "message": "changing later tokens changes the logits at position 3", "public": False},
            {"id": "training.not-too-good", "component": "training", "passed": status == "passed",
             "message": "the final training loss 0.006 is far below the baseline's 2.36", "public": True},
        ],
        "training": {
            "steps": steps, "train_loss": [None, *ours[1:]], "val_loss": ours,
            "baseline_train_loss": [None, *base[1:]], "baseline_val_loss": base,
            "final_val_loss": ours[-1], "baseline_final_val_loss": base[-1], "init_loss": 4.2,
            "ln_vocab": math.log(62), "sample": "MACBETH:\nxx", "baseline_sample": "MACBETH:\nThe",
            "influence": {"text": "MACBET", "matrix": leaky if leak else causal},
            "baseline_influence": {"text": "MACBET", "matrix": causal},
        },
        "bugs": [{"id": "mask-sees-next-token", "component": "attention", "title": "Mask", "fixed": False}],
        "regressions": [],
    }


def text_of(html: str) -> str:
    """Visible-ish text of a fragment (tags dropped), for assertions about what a person reads."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
