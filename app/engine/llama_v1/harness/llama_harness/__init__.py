"""Probes for the llama-v1 challenge interface (standalone: stdlib + torch + dojo_kit + the
shared lm_probes).

The behavioural probes that do not depend on the architecture (causality, loss, batch independence,
generation, the training runs, the influence map) are the shared lm_probes, which build their models through
LlamaView (loading.py); the probes here cover what llama-v1 adds: the KV cache, rotary positions,
RMSNorm, SwiGLU, grouped-query heads, top-p sampling, the learning-rate schedule and gradient
accumulation. Probes run in the judge; agent_*.py are the requests the agent answers in the sandbox.
"""

RESULT_SCHEMA = "dojo.llama-v1.result/1"
