"""The judge <-> agent wire (app/engine/kit/wire.py, client.py): tensors cross as raw bytes with a
checked dtype, shape and length; anything else a hostile agent sends ends the channel, never the judge."""

from __future__ import annotations

import json
import os
import struct
import threading

import pytest
import torch

from app.engine.kit import wire
from app.engine.kit.agent import Agent
from app.engine.kit.client import AgentClient, AgentGone, CandidateError


def _roundtrip(message: object) -> object:
    read_fd, write_fd = os.pipe()
    try:
        writer = threading.Thread(target=wire.write_frame, args=(write_fd, message))
        writer.start()
        out = wire.read_frame(read_fd)
        writer.join()
        return out
    finally:
        os.close(read_fd)
        os.close(write_fd)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.complex128, torch.int64,
                                   torch.bool, torch.uint8])
def test_tensors_of_every_dtype_cross_exactly(dtype: torch.dtype) -> None:
    values = (torch.randn(3, 4, 5) * 10)
    tensor = values.to(dtype) if dtype is not torch.complex128 else torch.complex(values, -values).to(dtype)
    out = _roundtrip({"t": tensor, "nested": [tensor[0], {"x": tensor[:, 1]}], "n": 3, "s": "é", "none": None})
    assert isinstance(out, dict)
    assert out["t"].dtype == dtype and torch.equal(out["t"], tensor)
    assert torch.equal(out["nested"][1]["x"], tensor[:, 1].contiguous())
    assert out["n"] == 3 and out["s"] == "é" and out["none"] is None


def test_empty_and_scalar_tensors_and_non_finite_numbers() -> None:
    out = _roundtrip({"empty": torch.empty(0, 7), "scalar": torch.tensor(2.5), "nan": float("nan")})
    assert isinstance(out, dict)
    assert out["empty"].shape == (0, 7) and out["scalar"].item() == 2.5 and out["nan"] != out["nan"]


def _frame(header: dict, payload: bytes = b"") -> bytes:
    body = json.dumps(header).encode()
    return struct.pack(">Q", len(body)) + body + payload


@pytest.mark.parametrize("raw", [
    _frame({"body": {"$t": 0}, "tensors": [{"dtype": "object", "shape": [1]}]}, b"x" * 8),
    _frame({"body": {"$t": 0}, "tensors": [{"dtype": "float64", "shape": [-1]}]}),
    _frame({"body": {"$t": 0}, "tensors": [{"dtype": "float64", "shape": [4]}]}, b"x" * 8),  # short
    _frame({"body": {"$t": 3}, "tensors": []}),  # a reference to no tensor
    _frame({"body": {"$t": 0}, "tensors": [{"dtype": "float64", "shape": [2**40]}]}),  # over the cap
    struct.pack(">Q", 2**40),  # a header larger than allowed
    _frame({"body": 1}),  # no tensor list
    struct.pack(">Q", 5) + b"{nope",
], ids=["dtype", "negative", "short", "dangling", "huge-tensor", "huge-header", "no-list", "not-json"])
def test_a_broken_or_hostile_frame_is_refused(raw: bytes) -> None:
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, raw)
        os.close(write_fd)
        write_fd = -1
        with pytest.raises(wire.WireError):
            wire.read_frame(read_fd, max_bytes=1 << 20)
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)


def test_nothing_but_json_and_tensors_can_be_sent() -> None:
    with pytest.raises(wire.WireError):
        wire.encode({"f": lambda: None})


class _Module:
    @staticmethod
    def boom() -> None:
        raise ValueError("no")


def _served(agent: Agent) -> tuple[AgentClient, threading.Thread, list[int]]:
    to_agent_r, to_agent_w = os.pipe()
    from_agent_r, from_agent_w = os.pipe()
    thread = threading.Thread(target=agent.serve, args=(to_agent_r, from_agent_w), daemon=True)
    thread.start()
    return AgentClient(to_agent_w, from_agent_r), thread, [to_agent_r, to_agent_w, from_agent_r, from_agent_w]


def test_a_candidate_exception_is_a_candidate_error_and_the_agent_goes_on() -> None:
    agent = Agent("/nonexistent", {"model": _Module()})
    agent.register({"boom": lambda: agent.mods["model"].boom(), "echo": lambda x: x})
    client, thread, fds = _served(agent)
    try:
        with pytest.raises(CandidateError, match="ValueError: no"):
            client.call("boom")
        assert torch.equal(client.call("echo", x=torch.arange(3)), torch.arange(3))
        client.bye()
        thread.join(timeout=5)
        assert not thread.is_alive()
    finally:
        for fd in fds:
            os.close(fd)


def test_a_reply_that_is_not_a_frame_ends_the_channel() -> None:
    to_agent_r, to_agent_w = os.pipe()
    from_agent_r, from_agent_w = os.pipe()
    try:
        os.write(from_agent_w, struct.pack(">Q", 4) + b"null")
        client = AgentClient(to_agent_w, from_agent_r)
        with pytest.raises(AgentGone):
            client.call("anything")
        os.close(from_agent_w)
        from_agent_w = -1
        with pytest.raises(AgentGone):
            client.call("anything")  # the agent closed its end
        with pytest.raises(AgentGone):
            AgentClient(to_agent_w, from_agent_r).call("hello", timeout=0.2)
    finally:
        for fd in (to_agent_r, to_agent_w, from_agent_r, from_agent_w):
            if fd >= 0:
                os.close(fd)
