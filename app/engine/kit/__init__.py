"""The engine kit: what every interface's harness shares, standalone (stdlib + torch).

The judge/agent split (docs/architecture.md, "What the judge trusts"): the agent (agent.py,
model_ops.py) runs inside the sandbox with the candidate's code and answers narrow requests with raw
observations; the judge (judge.py, client.py, remote.py) runs in another process outside the sandbox,
composes the requests, computes every derived value and writes the result. wire.py is the format
between them. Each interface's harness bundle ships this package as dojo_kit/.
"""
