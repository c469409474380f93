"""The judge <-> agent wire format: JSON plus raw tensor bytes, nothing that can execute.

A frame is an 8-byte big-endian length, a UTF-8 JSON header of that length, then the raw bytes of
every tensor the message carries, back to back:

    header = {"body": <JSON value>, "tensors": [{"dtype": "float64", "shape": [3, 12, 37]}, ...]}

Inside "body", a tensor stands as {"$t": index}. The reader rebuilds each tensor from its bytes with
torch.frombuffer after checking the dtype against a fixed list, the shape, and the byte count; the
sender's tensor subclasses, hooks or pickled objects never cross. Sizes are capped on read, so an agent
that lies about a length cannot make the judge allocate more than the cap.

Standalone (stdlib + torch): bundled into the sandbox as dojo_kit/ and imported by the judge.
"""

import json
import math
import os
import struct

import torch

DTYPES = {
    "float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "complex128": torch.complex128, "complex64": torch.complex64, "int64": torch.int64, "int32": torch.int32,
    "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
}
NAMES = {dtype: name for name, dtype in DTYPES.items()}
MAX_HEADER_BYTES = 8 * 1024 * 1024
MAX_FRAME_BYTES = 256 * 1024 * 1024
MAX_DIMS = 8
_LENGTH = struct.Struct(">Q")


class WireError(Exception):
    """A frame that breaks the format (the peer is broken or hostile)."""


class WireClosed(WireError):
    """The peer closed its end before a whole frame arrived."""


def _flatten(value, tensors, depth=0):
    if depth > 64:
        raise WireError("message nested too deeply")
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return {"$t": len(tensors) - 1}
    if isinstance(value, dict):
        return {str(k): _flatten(v, tensors, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_flatten(v, tensors, depth + 1) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    raise WireError(f"cannot send a {type(value).__name__}")


def _tensor_bytes(tensor):
    """The tensor's values as raw bytes (its own storage layout is never sent)."""
    t = tensor.detach()
    if t.dtype not in NAMES:
        t = t.to(torch.float64)
    t = t.cpu().contiguous()
    # Every dtype viewed as its bytes (numpy has no bfloat16; uint8 views have no such gap).
    data = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
    return NAMES[t.dtype], list(t.shape), data


def encode(message):
    """One frame for `message` (JSON-able values and tensors)."""
    tensors: list[torch.Tensor] = []
    body = _flatten(message, tensors)
    specs, blobs = [], []
    for tensor in tensors:
        name, shape, data = _tensor_bytes(tensor)
        specs.append({"dtype": name, "shape": shape})
        blobs.append(data)
    header = json.dumps({"body": body, "tensors": specs}, allow_nan=True).encode()
    return _LENGTH.pack(len(header)) + header + b"".join(blobs)


def _nbytes(spec):
    if not isinstance(spec, dict) or spec.get("dtype") not in DTYPES:
        raise WireError("a tensor of an unknown dtype")
    shape = spec.get("shape")
    if (not isinstance(shape, list) or len(shape) > MAX_DIMS
            or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**31 for s in shape)):
        raise WireError("a tensor with an invalid shape")
    dtype = DTYPES[spec["dtype"]]
    itemsize = torch.empty((), dtype=dtype).element_size()
    return dtype, shape, math.prod(shape) * itemsize


def _rebuild(value, tensors, depth=0):
    if depth > 64:
        raise WireError("message nested too deeply")
    if isinstance(value, dict):
        if set(value) == {"$t"}:
            index = value["$t"]
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(tensors):
                raise WireError("a reference to a missing tensor")
            return tensors[index]
        return {k: _rebuild(v, tensors, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuild(v, tensors, depth + 1) for v in value]
    return value


def decode(header_bytes, payload):
    """The message of one frame, its tensors rebuilt from `payload` (bytes after the header)."""
    try:
        header = json.loads(header_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WireError("the header is not JSON") from None
    if not isinstance(header, dict) or not isinstance(header.get("tensors"), list):
        raise WireError("the header has no tensor list")
    tensors, offset = [], 0
    for spec in header["tensors"]:
        dtype, shape, n = _nbytes(spec)
        if offset + n > len(payload):
            raise WireError("the frame is shorter than its tensors")
        if n:
            flat = torch.frombuffer(bytearray(payload[offset:offset + n]), dtype=dtype)
        else:
            flat = torch.empty(0, dtype=dtype)
        tensors.append(flat.reshape(shape))
        offset += n
    if offset != len(payload):
        raise WireError("the frame is longer than its tensors")
    return _rebuild(header.get("body"), tensors)


def payload_size(header_bytes):
    """Bytes that follow the header, from its tensor specs (checked against the caps)."""
    try:
        header = json.loads(header_bytes.decode("utf-8"))
        specs = header["tensors"]
    except (UnicodeDecodeError, ValueError, RecursionError, KeyError, TypeError):
        raise WireError("the header is not a frame header") from None
    if not isinstance(specs, list):
        raise WireError("the header has no tensor list")
    return sum(_nbytes(spec)[2] for spec in specs)


def _read_exact(fd, n):
    chunks, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise WireClosed("the peer closed the channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd, max_bytes=MAX_FRAME_BYTES):
    """Read one frame from a file descriptor and decode it; WireClosed at a clean or early end."""
    (length,) = _LENGTH.unpack(_read_exact(fd, _LENGTH.size))
    if length > min(MAX_HEADER_BYTES, max_bytes):
        raise WireError("the header is larger than allowed")
    header = _read_exact(fd, length)
    size = payload_size(header)
    if length + size > max_bytes:
        raise WireError("the frame is larger than allowed")
    return decode(header, _read_exact(fd, size))


def write_frame(fd, message):
    """Encode and write one whole frame."""
    view = memoryview(encode(message))
    while view:
        written = os.write(fd, view)
        view = view[written:]
