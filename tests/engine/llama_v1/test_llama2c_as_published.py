"""llama2.c's model.py with its own lines where the llama2c fixture departs from them: blocks calling
attention.forward and feed_forward.forward, and the loss kept in self.last_loss. Both are correct code:
the MLP finder sees .forward calls (it wraps each module's forward, not its hooks), and the train_step
probes copy a model that holds a graph tensor (detached in the copy)."""

from __future__ import annotations

from llama_shapes import LLAMA2C_AS_PUBLISHED
from llama_variants import probes_for
from test_template import statuses

from app.engine.shared.verdicts import PASSED


def test_llama2c_as_published_passes_the_checks_its_lines_touch(llama_measure, llama_reference):
    result = llama_measure(LLAMA2C_AS_PUBLISHED.files(), probes=probes_for(LLAMA2C_AS_PUBLISHED.detected_by))
    assert result["error"] is None
    found = statuses(result, llama_reference)
    assert {t: found[t] for t in LLAMA2C_AS_PUBLISHED.detected_by if found[t][0] != PASSED} == {}

