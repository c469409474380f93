"""The correct-but-different fixtures of tests/engine/fixtures/pipeline_styles/, each as the files of a
submission: the fixture in place of the template's data.py or train.py, the rest the template's."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pipeline_styles"
TEMPLATE = Path(__file__).resolve().parents[3] / "app" / "scenarios_builtin" / "padded-truths" / "solution"
FILES = ("model.py", "data.py", "train.py")


def template_files() -> dict[str, str]:
    return {name: (TEMPLATE / name).read_text(encoding="utf-8") for name in FILES}


def style_names() -> list[str]:
    return sorted(p.stem for p in FIXTURES.glob("*.py"))


def replaces(style: str) -> str:
    """The candidate file a fixture stands for: data_*.py is a data.py, train_*.py a train.py."""
    return style.split("_", 1)[0] + ".py"


def style_text(style: str) -> str:
    return (FIXTURES / f"{style}.py").read_text(encoding="utf-8")


def style_files(style: str) -> dict[str, str]:
    """The template's files with this style's file in place of the one it stands for."""
    return {**template_files(), replaces(style): style_text(style)}
