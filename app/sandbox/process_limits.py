"""Lowering the calling process's own limits and priority. Stdlib only: the judge fork server
(judge_forks.py, a script that cannot import the app) applies them in a forked development-runner agent
exactly as the subprocess runner does between fork and exec (rlimits.py re-exports them)."""

import os
import resource


def apply_rlimits(table: list[tuple[int, int, int]]) -> None:
    """Lower every limit in the table for the calling process (never raises them)."""
    for which, soft, hard in table:
        cur_soft, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))


def lower_priority(nice: int) -> None:
    """Run the calling process at niceness `nice`, or stay where it is if that is already lower priority
    (SANDBOX_NICE: candidate code yields the CPU to the web process's requests)."""
    os.setpriority(os.PRIO_PROCESS, 0, max(nice, os.getpriority(os.PRIO_PROCESS, 0)))
