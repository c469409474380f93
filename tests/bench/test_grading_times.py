"""The gradings figure of `dojo bench`: medians, the ratios the llama-v1 issue bounds, and its report."""

from __future__ import annotations

import io
import json
import os
import sys

from app.bench import command
from app.bench.grading_times import GradingTimes
from app.cli import build_parser

TIMES = GradingTimes("training-wheels", "norm-and-gate", gpt=[10.0, 12.0, 30.0], llama=[11.0, 13.0, 9.0],
                     check=[14.0, 13.0, 12.0])
WITH_PIPELINE = GradingTimes("training-wheels", "norm-and-gate", gpt=[10.0, 12.0, 30.0], llama=[11.0, 13.0, 9.0],
                             check=[14.0, 13.0, 12.0], pipeline=[9.0, 12.0, 10.0], pipeline_check=[11.0, 10.0, 10.5])


def test_figures_are_medians_and_their_ratios():
    assert TIMES.figures() == {"gpt_v1_grading_s": 12.0, "llama_v1_grading_s": 11.0,
                               "llama_over_gpt_grading": 0.917, "check_s": 13.0, "check_over_grading": 1.182}
    assert TIMES.details()["gradings"]["check_samples_s"] == [14.0, 13.0, 12.0]
    figures = WITH_PIPELINE.figures()
    assert (figures["pipeline_v1_grading_s"], figures["pipeline_over_gpt_grading"]) == (10.0, 0.833)
    assert (figures["pipeline_check_s"], figures["pipeline_check_over_grading"]) == (10.5, 1.05)
    assert WITH_PIPELINE.details()["gradings"]["pipeline_v1_scenario"] == "padded-truths"


def test_only_gradings_prints_both_gradings_and_the_check(monkeypatch):
    monkeypatch.setattr(command.grading_times, "grading_times", lambda **_: TIMES)
    monkeypatch.setenv("DOJO_DATA_DIR", os.environ["DOJO_DATA_DIR"])  # the command points it elsewhere: restored
    args = build_parser().parse_args(["bench", "--only", "gradings", "--repeats", "1"])
    assert (args.only, args.repeats) == ("gradings", 1)
    for as_json in (True, False):
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        assert command.bench_command(as_json=as_json, options=command.BenchOptions(repeats=1), only="gradings") == 0
        text = out.getvalue()
        if as_json:
            report = json.loads(text)
            assert report["llama_over_gpt_grading"] == 0.917 and report["check_over_grading"] == 1.182
            assert report["details"]["gradings"]["llama_v1_scenario"] == "norm-and-gate"
        else:
            assert "llama_v1_grading_s" in text and "check_over_grading" in text
            assert "llama_over_gpt_grading <= 1.2, check_over_grading <= 1.1" in text
