"""A Runner that runs each distinct harness job once and hands every later identical job a copy of its outcome.

For tests that grade one submission against several built-ins of an interface: built-ins that share the
solution's other files, the model size and the training run give the harness the very same job (the same
files, harness bundle, input and limits), and the harness is deterministic, so its measurements are the
same. Each grading still goes through grade_files with its own scenario's reference, hidden tests and
bugs; only the repeated sandbox run is saved (about 4 s of CPU each).
"""

from __future__ import annotations

import copy
import json

from app.sandbox.job import HarnessJob, HarnessOutcome, Runner


class MemoRunner:
    def __init__(self, inner: Runner) -> None:
        self.inner = inner
        self.name = inner.name
        self.runs = 0  # jobs the inner runner actually ran
        self._outcomes: dict[str, HarnessOutcome] = {}

    @staticmethod
    def key(job: HarnessJob) -> str:
        return json.dumps([sorted(job.candidate_files.items()), str(job.harness_dir), job.input, repr(job.limits)],
                          sort_keys=True)

    def run(self, job: HarnessJob) -> HarnessOutcome:
        key = self.key(job)
        if key not in self._outcomes:
            self._outcomes[key] = self.inner.run(job)
            self.runs += 1
        return copy.deepcopy(self._outcomes[key])
