"""The judge's rebuild of the agent's raw records (agent_records.py): a tensor table and references.

Each table entry becomes one tensor object here, so two references to one entry are the same object
(`is`), as they were in the candidate's process. An entry sent without values (past the agent's size
caps) becomes a tensor on the meta device: its shape is known, reading its values fails.
"""

import torch
from dojo_kit.remote import ObservationError

_DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
           "bfloat16": torch.bfloat16, "complex128": torch.complex128, "complex64": torch.complex64,
           "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}


class Other:
    """A value of a call that was neither a tensor, a number nor a string (only its type's name)."""

    def __init__(self, type_name):
        self.type_name = str(type_name)

    def __repr__(self):
        return f"<{self.type_name}>"


def _entry(value):
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, dict) and isinstance(value.get("shape"), list):
        shape = value["shape"]
        if len(shape) > 8 or not all(isinstance(s, int) and 0 <= s < 2**31 for s in shape):
            raise ObservationError("a record holds a tensor of an invalid shape")
        return torch.empty(shape, dtype=_DTYPES.get(value.get("dtype"), torch.float64), device="meta")
    raise ObservationError("a record holds a tensor that is not one")


class Table:
    """The tensors of one record, and `value(x)` turning references back into them."""

    def __init__(self, entries):
        if not isinstance(entries, list):
            raise ObservationError("a record has no tensor table")
        self.tensors = [_entry(e) for e in entries]

    def tensor(self, ref):
        """The tensor a reference names, or None for None (anything else is not what was asked)."""
        if ref is None:
            return None
        value = self.value(ref)
        if not isinstance(value, torch.Tensor):
            raise ObservationError("a record names a tensor that is not in its table")
        return value

    def value(self, encoded, depth=0):
        if depth > 16:
            raise ObservationError("a record is nested too deeply")
        if isinstance(encoded, dict):
            if set(encoded) == {"$ref"}:
                index = encoded["$ref"]
                if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.tensors):
                    raise ObservationError("a record names a tensor that is not in its table")
                return self.tensors[index]
            if set(encoded) == {"$other"}:
                return Other(encoded["$other"])
            raise ObservationError("a record holds an unknown value")
        if isinstance(encoded, list):
            return tuple(self.value(v, depth + 1) for v in encoded)
        if encoded is None or isinstance(encoded, (bool, int, float, str)):
            return encoded
        raise ObservationError("a record holds an unknown value")
