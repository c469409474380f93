"""The optional model coach: an OpenAI-compatible chat-completions endpoint writes the tips.

Off unless COACH_LLM_URL and COACH_LLM_MODEL are set. The prompt carries the same evidence the
rules use (note readings, per-component verdicts, the tiny run's numbers, progress) and the rules'
draft; never a bug id, a test id, a test message or a line of code. The answer must have the
suggestion-block shape, one block per note, and pass the leak guard; otherwise (and on a timeout or
an error) the caller keeps the rules' tips. Stored tips carry the source "llm:<model>".
"""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.request
from dataclasses import replace
from typing import Any, TypedDict

from app.coaching.evidence import Verdict
from app.coaching.inputs import CoachingInput
from app.coaching.tip import Tip
from app.core.settings import get_settings
from app.grading.result import COMPONENTS

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 256 * 1024
MAX_TIPS = 8
FRAMING_OPENERS = ("Frame ", "Structure ", "Start ")
SYSTEM_PROMPT = """You coach candidates in machine-learning debugging interviews. The candidate fixed \
planted bugs in a small decoder-only language model (PyTorch; GPT style, or llama style with rotary \
positions, RMSNorm, SwiGLU, grouped-query attention and a KV cache) and wrote short notes on how they \
debugged. For each note, write a suggestion block about what that note says (its claims, the methods it \
names, what it leaves vague) and the grading evidence given to you. Never say what code to write, never \
name a fix or a line of code: suggest how to find and verify. If the evidence contradicts a claim, say so \
and how to check it.
Answer with JSON only, exactly: {"tips": [{"note": "<question id or null>", "component": "<loss|positional|\
attention|general|training|generation or null>", "framing": "<one sentence starting with 'Frame your answer \
around', 'Structure your answer as' or 'Start by outlining'>", "pro_tip": "<one or two sentences>", "steps": \
["<3 to 5 short concrete steps>"]}]}
Write exactly one tip per note, in the order given, then at most three tips (note null) about failures the \
notes do not mention."""


class InvalidAnswer(ValueError):
    """The model's answer does not have the required shape or comes too close to the answer."""


def configured() -> bool:
    settings = get_settings()
    return bool(settings.coach_llm_url.strip() and settings.coach_llm_model.strip())


def endpoint(url: str) -> str:
    """The chat-completions URL for a base URL (".../v1") or a full one."""
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError("COACH_LLM_URL must be an http:// or https:// URL")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


class ClaimFacts(TypedDict):
    """A claim of a note and what the grading says of it."""

    verb: str
    words: str
    about: list[str]  # the kinds or components it is about, or ["everything"]
    negated: bool
    grading_says: Verdict


class NoteFacts(TypedDict):
    id: str
    question: str | None
    text: str
    claims: list[ClaimFacts]
    methods: list[str]
    methods_not_done: list[str]
    vague: list[str]


class AttemptFacts(TypedDict):
    kind: str  # run | submit
    status: str
    error: str | None  # the grade error's kind
    components_failing: list[str]
    components_passing: list[str]
    training_run_failing: bool


class TrainingRunFacts(TypedDict):
    initial_loss: float | None
    ln_vocab: float | None
    final_validation_loss: float | None
    baseline_final_validation_loss: float | None
    final_training_loss: float | None
    sample_start: str  # the first 60 characters of the sample


class DraftTipFacts(TypedDict):
    note: str | None
    component: str | None
    framing: str
    pro_tip: str
    steps: list[str]


class PromptFacts(TypedDict):
    """The user message's JSON object, in this key order."""

    attempt: AttemptFacts
    training_run: TrainingRunFacts | None
    notes: list[NoteFacts]
    rule_coach_draft: list[DraftTipFacts]


def prompt_facts(data: CoachingInput, rule_tips: list[Tip]) -> PromptFacts:
    """The evidence the model sees: what the rules see, without anything that names a bug or a test."""
    evidence = data.evidence
    run = evidence.training
    notes: list[NoteFacts] = []
    for reading in data.readings:
        claims: list[ClaimFacts] = []
        for claim in reading.claims:
            about = list(claim.kinds or claim.components) or (["everything"] if claim.everything else [])
            if not about:
                continue
            verdict = (evidence.kind_verdict(claim.kinds[0]) if claim.kinds else
                       evidence.component_verdict(claim.components[0]) if claim.components else
                       evidence.everything_verdict())
            claims.append({"verb": claim.verb, "words": claim.phrase, "about": about, "negated": claim.negated,
                           "grading_says": verdict})
        notes.append({"id": reading.question_id, "question": data.facts.question_text(reading.question_id),
                      "text": reading.text, "claims": claims, "methods": list(reading.methods),
                      "methods_not_done": list(reading.skipped_methods), "vague": list(reading.vague_reasons)})
    return {
        "attempt": {"kind": evidence.attempt_kind, "status": evidence.status,
                    "error": evidence.error.kind if evidence.error else None,
                    "components_failing": list(evidence.components_failing),
                    "components_passing": list(evidence.components_passing),
                    "training_run_failing": evidence.training_run_failed},
        "training_run": None if run is None else {
            "initial_loss": run.init_loss, "ln_vocab": run.ln_vocab, "final_validation_loss": run.final_val_loss,
            "baseline_final_validation_loss": run.baseline_final_val_loss, "final_training_loss": run.final_train_loss,
            "sample_start": (run.sample or "")[:60]},
        "notes": notes,
        "rule_coach_draft": [{"note": t.note, "component": t.component, "framing": t.framing, "pro_tip": t.pro_tip,
                              "steps": list(t.steps)} for t in rule_tips],
    }


def _text(value: Any, field: str, low: int, high: int) -> str:
    if not isinstance(value, str) or not low <= len(value.strip()) <= high:
        raise InvalidAnswer(f"{field} must be text of {low} to {high} characters")
    return " ".join(value.split())


def parse_answer(content: str, data: CoachingInput) -> list[Tip]:
    """Validate the model's message into tips (the shape, one per note, the leak guard)."""
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", content.strip())
    try:
        parsed = json.loads(body)
    except ValueError:
        raise InvalidAnswer("the answer is not JSON") from None
    items = parsed.get("tips") if isinstance(parsed, dict) else None
    if not isinstance(items, list) or not 0 < len(items) <= MAX_TIPS:
        raise InvalidAnswer(f"the answer needs a 'tips' list of 1 to {MAX_TIPS} blocks")
    note_ids = [r.question_id for r in data.readings]
    tips = []
    for item in items:
        if not isinstance(item, dict):
            raise InvalidAnswer("each tip must be an object")
        note, component, steps = item.get("note"), item.get("component"), item.get("steps")
        if note is not None and note not in note_ids:
            raise InvalidAnswer(f"tip answers an unknown note {str(note)[:40]!r}")
        if component is not None and component not in COMPONENTS:
            raise InvalidAnswer("unknown component")
        framing = _text(item.get("framing"), "framing", 10, 400)
        if not framing.startswith(FRAMING_OPENERS):
            raise InvalidAnswer("the framing must start with 'Frame', 'Structure' or 'Start'")
        pro_tip = re.sub(r"^pro tip:\s*", "", _text(item.get("pro_tip"), "pro_tip", 10, 500), flags=re.I)
        if not isinstance(steps, list) or not 3 <= len(steps) <= 5:
            raise InvalidAnswer("each tip needs 3 to 5 steps")
        tips.append(Tip(note=note, component=component, framing=framing, pro_tip=pro_tip,
                        steps=tuple(_text(s, "step", 3, 400) for s in steps)))
    if [t.note for t in tips if t.note is not None] != note_ids:
        raise InvalidAnswer("the answer must have exactly one tip per note, in order")
    for tip in tips:
        leaks = data.facts.guard.tip_leaks(*tip.texts())
        if leaks:
            raise InvalidAnswer(f"a tip comes too close to the answer ({len(leaks)} match(es))")
    return tips


def _with_rules(tips: list[Tip], rule_tips: list[Tip]) -> list[Tip]:
    """Each model tip records "llm" and the rules behind the rule tip for the same note or component."""
    by_note = {t.note: t for t in rule_tips if t.note is not None}
    by_component = {t.component: t for t in rule_tips if t.note is None}
    out = []
    for tip in tips:
        twin = by_note.get(tip.note) if tip.note is not None else by_component.get(tip.component)
        out.append(replace(tip, rules=("llm",) + (twin.rules if twin else ()), why=twin.why if twin else ()))
    notes = [t for t in out if t.note is not None]
    return notes + [t for t in out if t.note is None]


def call_model(messages: list[dict[str, str]]) -> str:
    """POST one chat completion; the assistant message's content."""
    settings = get_settings()
    body = json.dumps({"model": settings.coach_llm_model, "messages": messages, "temperature": 0.2}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if settings.coach_llm_api_key:
        headers["Authorization"] = f"Bearer {settings.coach_llm_api_key}"
    request = urllib.request.Request(endpoint(settings.coach_llm_url), data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=settings.coach_llm_timeout_seconds) as response:  # noqa: S310
        raw = response.read(MAX_RESPONSE_BYTES + 1)
    if len(raw) > MAX_RESPONSE_BYTES:
        raise InvalidAnswer("the answer is too large")
    try:
        return str(json.loads(raw)["choices"][0]["message"]["content"])
    except (ValueError, KeyError, IndexError, TypeError):
        raise InvalidAnswer("the response is not a chat completion") from None


def model_tips(*, data: CoachingInput, rule_tips: list[Tip]) -> list[Tip] | None:
    """The model's tips (source "llm:<model>"), or None when it is unreachable, slow or its answer invalid."""
    if not data.readings and not rule_tips:
        return None
    model = get_settings().coach_llm_model.strip()
    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": json.dumps(prompt_facts(data, rule_tips), ensure_ascii=False)}]
    try:
        tips = parse_answer(call_model(messages), data)
    except InvalidAnswer as exc:
        log.warning("attempt %s: the coaching model's answer was refused (%s); using the rules", data.attempt_id, exc)
        return None
    except (OSError, ValueError) as exc:  # URLError, timeouts and refused connections are OSErrors
        log.warning("attempt %s: the coaching model did not answer (%s); using the rules", data.attempt_id,
                    exc.__class__.__name__)
        return None
    source = f"llm:{model}"[:80]
    return [replace(tip, source=source) for tip in _with_rules(tips, rule_tips)]
