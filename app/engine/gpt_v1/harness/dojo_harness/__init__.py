"""Probes for the gpt-v1 challenge interface (standalone: stdlib + torch only)."""

RESULT_SCHEMA = "dojo.gpt-v1.result/1"
