"""torch._dynamo as eager code sees it, without importing it: a second of every pipeline-v1 grading.

torch.optim imports torch._dynamo on an optimizer's first step (`_use_grad_for_differentiable`) and in
its `torch._disable_dynamo` methods (add_param_group, zero_grad, state_dict, load_state_dict), only to
call `graph_break()` and `disable(fn)`, which change nothing when nothing is compiled. The candidate's
build_optimizer returns a real torch.optim optimizer, so without this stand-in the agent would import
torch._dynamo (1.1 to 1.4 s of CPU, a fifth of a grading; gpt-v1's harness avoids it by bringing its own
AdamW, which pipeline-v1 cannot). Anything else asked of the stand-in (torch.compile in the candidate's
code, say) imports the real torch._dynamo, which answers every later call. Functions disabled before then
stay plain functions, which matters only to code compiled afterwards.

Standalone: stdlib only.
"""

import importlib
import sys
import types

NAME = "torch._dynamo"


class EagerDynamo(types.ModuleType):
    """graph_break and disable as eager mode runs them; the real module for anything else."""

    def __init__(self):
        super().__init__(NAME, __doc__)
        self._real = None

    def graph_break(self, msg=""):
        if self._real is not None:
            return self._real.graph_break(msg)
        return None

    def disable(self, fn=None, recursive=True, **kwargs):
        if self._real is not None:
            return self._real.disable(fn, recursive, **kwargs)
        return fn if fn is not None else (lambda f: f)

    def __getattr__(self, name):
        # A submodule's import asks for __path__: that is the real package's. Other probes of dunder names
        # (inspect.getmodule reads every module's __file__) get a plain module's answer, not the import.
        if name.startswith("__") and name != "__path__":
            raise AttributeError(name)
        return getattr(self.load(), name)

    def load(self):
        """The real torch._dynamo, imported once; it replaces the stand-in in sys.modules."""
        if self._real is None:
            if sys.modules.get(NAME) is self:
                del sys.modules[NAME]
            self._real = importlib.import_module(NAME)
        return self._real


def install():
    """Put the stand-in in place unless torch._dynamo is already imported; the module now answering."""
    if NAME not in sys.modules:
        sys.modules[NAME] = EagerDynamo()
    return sys.modules[NAME]
