"""Probes for the llama-v1 challenge interface (standalone: stdlib + torch + gpt-v1's dojo_harness).

The behavioural probes that do not depend on the architecture (causality, loss, batch independence,
generation, the training runs, the influence map) are gpt-v1's own, run through adapter.py; the probes
here cover what llama-v1 adds: the KV cache, rotary positions, RMSNorm, SwiGLU, grouped-query heads,
top-p sampling, the learning-rate schedule and gradient accumulation.
"""

RESULT_SCHEMA = "dojo.llama-v1.result/1"
