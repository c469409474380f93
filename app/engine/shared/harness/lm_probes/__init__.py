"""Probes every language-model interface shares (standalone: stdlib + torch + dojo_kit), shipped in
each interface's harness bundle as lm_probes/ beside its own package.

Judge side: the loaders (loading.py; a session's view builds the interface's model from the probes'
GPT-sized arguments), the records and tracing that read the agent's observations (records.py,
modules.py, tracing.py), errors.py, the interface items (interface_items.py) and the behavioural
probes (data, model, loss, attention, structure, generation, training, the tiny training run).
Agent side: the requests the agent answers in the sandbox (agent_*.py), which each interface's
main.py registers.
"""
