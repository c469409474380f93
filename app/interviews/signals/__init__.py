"""Integrity signals: evidence an interviewer may want to look at, never a verdict.

Every detector runs here, in the trusted web process, over what is stored (attempt files, editor
events, timestamps); nothing is computed in the candidate's browser or sandbox.
"""
