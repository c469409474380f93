"""llama2.c's model.py with its own lines where the llama2c fixture departs from them: blocks calling
attention.forward and feed_forward.forward, and the loss kept in self.last_loss. Both are correct code.
Today the traced MLP checks find no MLP (.forward runs no module hooks) and the train_step probes cannot
deep-copy a model holding a graph tensor; the expected failure is strict, so it turns into a failure to
remove once the harness judges this code as it judges the fixture."""

from __future__ import annotations

import pytest
from llama_shapes import LLAMA2C_AS_PUBLISHED
from llama_variants import probes_for
from test_template import statuses

from app.engine.gpt_v1.verdicts import PASSED


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="module hooks miss .forward calls; the train_step probes deep-copy the model")
def test_llama2c_as_published_passes_the_checks_its_lines_touch(llama_measure, llama_reference):
    result = llama_measure(LLAMA2C_AS_PUBLISHED.files(), probes=probes_for(LLAMA2C_AS_PUBLISHED.detected_by))
    assert result["error"] is None
    found = statuses(result, llama_reference)
    assert {t: found[t] for t in LLAMA2C_AS_PUBLISHED.detected_by if found[t][0] != PASSED} == {}

