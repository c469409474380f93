"""Raw records of what the candidate's code did, as the agent sends them (runs in the sandbox).

A record names tensors by their place in one table, so the judge gets each tensor once and can tell
when two records hold the very same tensor object (a block's output that is the next block's input,
the output of one layer fed to the next): the judge's rebuild (records.py) keeps that identity.
Values cross only for tensors up to a size; larger ones cross as their shape and dtype, so a model
that keeps a large buffer cannot make a record too big to send.
"""

import torch

MAX_VALUES = 1 << 16  # elements of one tensor whose values are sent
MAX_TOTAL = 16 * 1024 * 1024  # bytes of values in one record
MAX_TEXT = 200


class TensorTable:
    """Distinct tensor objects in order of first mention; `ref(t)` is the reference a record holds."""

    def __init__(self):
        self.tensors, self._index = [], {}

    def ref(self, tensor):
        key = id(tensor)
        if key not in self._index:
            self._index[key] = len(self.tensors)
            self.tensors.append(tensor)
        return {"$ref": self._index[key]}

    def encode(self, value, depth=0):
        """A value of a call's arguments or result: tensors by reference, numbers and strings as
        themselves, sequences as lists, anything else by its type's name."""
        if isinstance(value, torch.Tensor):
            return self.ref(value)
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, str):
            return value[:MAX_TEXT]
        if isinstance(value, (list, tuple)) and depth < 8:
            return [self.encode(v, depth + 1) for v in value]
        return {"$other": type(value).__name__}

    def values(self):
        """Every tensor's values (detached), or {"shape", "dtype"} past the size caps."""
        out, total = [], 0
        for t in self.tensors:
            size = t.numel() * t.element_size()
            if t.layout == torch.strided and t.device.type == "cpu" and t.numel() <= MAX_VALUES \
                    and total + size <= MAX_TOTAL:
                out.append(t.detach())
                total += size
            else:
                out.append({"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")})
        return out
