"""`dojo check DIR`: every behavioural check of an interface on a model directory, in the real sandbox."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.engine.builtin import find_builtin
from app.engine.interfaces import FAILED, PASSED, Verdict
from app.engine.llama_v1.bundle import TEMPLATE_DIR
from app.grading.check_dir import CACHE_TESTS, SHIFT_TEST, check_command, detect_interface, notes_for, plan_check

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "llama_v1"))  # planted.py and its helpers
from llama_shapes import META_CACHE_FROM_ZERO  # noqa: E402
from planted import PLANTED  # noqa: E402


def _write(directory: Path, files: dict[str, str]) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return str(directory)


def _check_json(directory: str, *extra: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = check_command(directory, as_json=True, out=out, interface=extra[0] if extra else None)
    return code, json.loads(out.getvalue())


@pytest.mark.bwrap
@pytest.mark.slow
def test_llama_template_passes_every_check(capsys):
    code = main(["check", str(TEMPLATE_DIR)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "interface llama-v1 (picked from model.py's names" in out
    assert "PASSED: every applicable check passes" in out
    for component in ("general", "loss", "positional", "attention", "generation", "training"):
        assert f"\n{component}\n" in out


@pytest.mark.bwrap
@pytest.mark.slow
def test_rope_ignoring_the_offset_fails_in_generation(tmp_path):
    bug = next(b for b in PLANTED if b.name == "38-rope-ignores-offset")
    code, doc = _check_json(_write(tmp_path / "model", bug.files()))
    assert code == 1
    assert doc["interface"] == "llama-v1" and doc["interface_detected"] is True
    assert doc["status"] == "failed"
    assert "generation" in doc["failing_components"]
    checks = {c["id"]: c for comp in doc["components"] for c in comp["checks"]}
    for test_id in bug.detected_by:
        assert checks[test_id]["status"] == FAILED and checks[test_id]["message"]
    generation = next(c for c in doc["components"] if c["component"] == "generation")
    assert generation["status"] == "failed"


@pytest.mark.bwrap
@pytest.mark.slow
def test_cache_assuming_position_zero_is_named_not_the_rotary(tmp_path, capsys):
    directory = _write(tmp_path / "model", META_CACHE_FROM_ZERO.files())
    code = main(["check", directory, "--interface", "llama-v1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "interface llama-v1 (--interface)" in out
    assert "may assume its cache starts at position 0 (as Meta-style caches do)" in out
    assert "rather than the rotary embedding" in out


@pytest.mark.bwrap
@pytest.mark.slow
def test_gpt_warm_up_solution_passes(tmp_path):
    warm_up = find_builtin("warm-up")
    assert warm_up is not None
    code, doc = _check_json(_write(tmp_path / "warm-up", warm_up.solution_files))
    assert code == 0, [c for comp in doc["components"] for c in comp["checks"] if c["status"] != PASSED]
    assert (doc["interface"], doc["interface_detected"], doc["reference"]) == ("gpt-v1", True, "warm-up")
    assert doc["files"] == ["model.py", "data.py"] and doc["borrowed"] == []


def test_missing_directory_exits_2_with_one_line(tmp_path, capsys):
    assert main(["check", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dojo check: ") and err.count("\n") == 1 and "not a directory" in err


def test_unknown_interface_and_no_model_exit_2(tmp_path, capsys):
    assert main(["check", str(TEMPLATE_DIR), "--interface", "bert-v1"]) == 2
    assert "unknown interface 'bert-v1' (known: gpt-v1, llama-v1, pipeline-v1)" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["check", str(tmp_path / "empty")]) == 2
    assert "no model.py" in capsys.readouterr().err
    _write(tmp_path / "other", {"model.py": "class Net:\n    pass\n"})
    assert main(["check", str(tmp_path / "other")]) == 2
    assert "pass --interface" in capsys.readouterr().err


def test_interface_is_detected_from_the_names_model_py_defines():
    assert detect_interface((TEMPLATE_DIR / "model.py").read_text()) == "llama-v1"
    assert detect_interface("@dataclass\nclass GPTConfig:\n    n_embd: int = 48\n\nclass GPT(nn.Module):\n"
                            "    pass\n") == "gpt-v1"
    assert detect_interface("from .llama import ModelArgs, Transformer\n") == "llama-v1"
    assert detect_interface("class GPTConfigs:\n    pass\nclass GPT2:\n    pass\n") is None


def test_a_pipeline_directory_is_told_by_data_py_even_beside_a_model():
    data = "def collate(examples, pad_id):\n    ...\n\n\ndef batches(examples, batch_size, epoch, seed):\n    ...\n"
    gpt = "class GPTConfig:\n    pass\n\n\nclass GPT:\n    pass\n"
    assert detect_interface("", {"data.py": data}) == "pipeline-v1"
    assert detect_interface(gpt, {"model.py": gpt, "data.py": data}) == "pipeline-v1"
    get_batch = "def get_batch(data, block_size):\n    ...\n"
    assert detect_interface(gpt, {"model.py": gpt, "data.py": get_batch}) == "gpt-v1"


def test_shift_failure_with_passing_cache_checks_blames_the_cache_start():
    def verdicts(shift: bool, cache: bool) -> list[Verdict]:
        return [Verdict(SHIFT_TEST, "positional", shift, "differs"),
                *(Verdict(t, "generation", cache, "") for t in CACHE_TESTS)]

    assert "Meta-style" in notes_for(verdicts(shift=False, cache=True))[SHIFT_TEST]
    assert notes_for(verdicts(shift=False, cache=False)) == {}
    assert notes_for(verdicts(shift=True, cache=True)) == {}


def test_plan_borrows_data_py_and_finds_a_reference_that_lists_train_py(tmp_path):
    warm_up = find_builtin("warm-up")
    assert warm_up is not None
    only_model = plan_check(_write(tmp_path / "only-model", {"model.py": warm_up.solution_files["model.py"]}))
    assert (only_model.package.slug, list(only_model.files), only_model.borrowed) == (
        "warm-up", ["model.py", "data.py"], ["data.py"])
    assert only_model.files["data.py"] == warm_up.solution_files["data.py"]
    trains = find_builtin("training-wheels")
    assert trains is not None
    with_train = plan_check(_write(tmp_path / "with-train", trains.solution_files))
    assert with_train.interface.name == "gpt-v1" and "train.py" in with_train.package.files
    assert (list(with_train.files), with_train.borrowed, with_train.ignored) == (
        ["model.py", "data.py", "train.py"], [], [])


@pytest.mark.bwrap
@pytest.mark.slow
def test_a_pipeline_directory_is_checked_on_the_scenario_model_and_names_its_bug(tmp_path, capsys):
    """data.py and train.py only: pipeline-v1 is told from data.py's names, model.py is the reference
    scenario's (read-only), and a shuffle seeded without the epoch fails data.batches-reshuffle alone."""
    template = find_builtin("padded-truths")
    assert template is not None
    files = {name: template.solution_files[name] for name in ("data.py", "train.py")}
    files["data.py"] = files["data.py"].replace("manual_seed(seed * 1_000_003 + epoch)", "manual_seed(seed)")
    directory = _write(tmp_path / "pipeline", files)
    code, doc = _check_json(directory)
    assert code == 1
    assert (doc["interface"], doc["interface_detected"], doc["reference"]) == ("pipeline-v1", True, "padded-truths")
    assert doc["borrowed"] == ["model.py"]
    checks = {c["id"]: c for comp in doc["components"] for c in comp["checks"]}
    assert [t for t, c in checks.items() if c["status"] != PASSED] == ["data.batches-reshuffle"]
    assert main(["check", directory]) == 1
    assert "model.py: the scenario's own (read-only in pipeline-v1)" in capsys.readouterr().out
