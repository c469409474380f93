"""The tiny training run told in the attempt's own numbers: start against ln V, end against the baseline, the sample.

Thresholds follow BUG_CATALOG.md's automatic checks: |L0 - ln V| <= 0.15 at initialisation, and a
final validation loss within max(0.03, 2%) of the baseline; more than 0.1 below it is "too good".
"""

from __future__ import annotations

import math
from collections import Counter

from app.grading.result import TrainingSummary

INIT_TOLERANCE = 0.15
TOO_GOOD_MARGIN = 0.1
SAMPLE_CHARS = 40


def _finite(value: float | None) -> float | None:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def _fmt(value: float | None) -> str:
    return "not a number" if value is None else f"{value:.2f}"


def start_sentence(run: TrainingSummary) -> str | None:
    init, ln_v = _finite(run.init_loss), _finite(run.ln_vocab)
    if init is None or ln_v is None:
        return None
    if abs(init - ln_v) <= INIT_TOLERANCE:
        return (f"Your run started at loss {_fmt(init)} against ln V = {_fmt(ln_v)}: the model starts out "
                "uniformly unsure, as it should; say so in one line.")
    return (f"Your run started at loss {_fmt(init)}, but ln V is {_fmt(ln_v)}: a well-initialised model starts "
            "near ln V, so look at what the loss computes before looking at training.")


def end_sentence(run: TrainingSummary) -> str | None:
    final, base = _finite(run.final_val_loss), _finite(run.baseline_final_val_loss)
    if run.final_val_loss is not None and final is None:
        return "Your run's validation loss ended as a non-finite number: find the first step where it diverged."
    if final is None or base is None:
        return None
    train = _finite(run.final_train_loss)
    if final < base - TOO_GOOD_MARGIN:
        return (f"Your final validation loss is {_fmt(final)} against the baseline's {_fmt(base)}: far below a "
                "known-good model on the same data, which means the model can see what it should predict.")
    if final > base + max(0.03, 0.02 * base):
        if train is not None and train < base - TOO_GOOD_MARGIN:
            return (f"Your final validation loss is {_fmt(final)} against the baseline's {_fmt(base)}, while the "
                    f"training loss reached {_fmt(train)}: the model learned a shortcut that does not carry over to "
                    "held-out text; find what makes training that easy.")
        return (f"Your final validation loss is {_fmt(final)} against the baseline's {_fmt(base)}: the model "
                "does not learn what a correct one learns from the same data; say which check you ran next.")
    return (f"Your final validation loss is {_fmt(final)} against the baseline's {_fmt(base)}: level with a "
            "known-good model, so quote both numbers as evidence.")


def generated_part(sample: str, baseline: str | None) -> str:
    """The sample without the prompt (the prefix it shares with the baseline's sample)."""
    if not baseline:
        return sample
    shared = 0
    for mine, theirs in zip(sample, baseline, strict=False):
        if mine != theirs:
            break
        shared += 1
    prompt_end = sample.rfind("\n", 0, shared + 1) + 1 if shared < len(sample) else shared
    return sample[prompt_end:]


def sample_sentence(run: TrainingSummary) -> str | None:
    if not run.sample:
        return None
    sample = generated_part(run.sample, run.baseline_sample)
    if not sample:
        return "Your run's sample is empty after the prompt: check that generation returns new tokens."
    char, count = Counter(sample).most_common(1)[0]
    if count / len(sample) > 0.5:
        shown = {"\n": "a newline", " ": "a space"}.get(char, repr(char))
        return (f"Over half of your run's sample is {shown} repeated: a model that learned next-token statistics "
                "writes text that looks like the corpus; describe what yours wrote and why.")
    head = " ".join(sample[:SAMPLE_CHARS].split())
    return (f"Your run's sample begins \"{head}\": compare it with the baseline's sample and say whether it reads "
            "like the corpus.")


def run_steps(run: TrainingSummary | None) -> tuple[str, ...]:
    """Up to three grounded sentences about the attempt's tiny run (none when it has no run)."""
    if run is None:
        return ()
    if run.error:
        return ("The tiny training run did not complete on this attempt: get the forward pass and the loss to run "
                "on one batch before reading any curve.",)
    return tuple(s for s in (start_sentence(run), end_sentence(run), sample_sentence(run)) if s)
