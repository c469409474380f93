"""Short descriptions of what went wrong in a probe, as the judge saw it."""

from dojo_kit.client import CandidateError
from dojo_kit.remote import ObservationError


def describe(exc, _candidate_dir=None):
    """The agent's 'TypeError: message (model.py:42)' for a fault of the candidate's code; a short
    sentence for an answer that was not what the request asked for or broke the probe's arithmetic."""
    if isinstance(exc, CandidateError):
        return exc.message
    if isinstance(exc, ObservationError):
        return f"ValueError: {exc}"
    return f"{type(exc).__name__}: {str(exc)[:300]}"
