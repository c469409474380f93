"""The agent's model requests cast only floating tensors: a complex rotary buffer (Meta's freqs_cis)
keeps its imaginary part, and integer buffers are untouched."""

from __future__ import annotations

import torch

from app.engine.kit.model_ops import cast


class _Rotary(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)
        angles = torch.outer(torch.arange(6.0), torch.tensor([1.0, 0.1]))
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles))
        self.register_buffer("positions", torch.arange(6))


def test_a_complex_buffer_stays_complex_with_its_imaginary_part() -> None:
    model = _Rotary()
    before = model.freqs_cis.clone()
    cast(model, torch.float64)
    assert model.linear.weight.dtype == torch.float64
    assert model.freqs_cis.dtype == torch.complex128
    assert torch.allclose(model.freqs_cis.imag, before.imag.double()) and model.freqs_cis.imag.abs().max() > 0.5
    assert model.positions.dtype == torch.int64
    cast(model, torch.float32)
    assert model.freqs_cis.dtype == torch.complex64 and model.linear.weight.dtype == torch.float32
