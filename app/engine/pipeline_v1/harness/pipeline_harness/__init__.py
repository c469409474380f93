"""pipeline-v1's probes (CONTRACTS.md section 1c): the judge's requests and references, and the agent's
answers, over the candidate's data.py and train.py driven with the grader's own models."""

RESULT_SCHEMA = "dojo.pipeline-v1.result/1"
