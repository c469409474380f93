"""Each interface's label and description, which pages show instead of its bare name."""

from __future__ import annotations

from app.engine.interfaces import INTERFACES, interface_label


def test_each_interface_has_a_label_naming_it_and_a_one_line_description() -> None:
    assert interface_label("gpt-v1") == "GPT-2 style (gpt-v1)"
    assert interface_label("llama-v1") == "Llama style (llama-v1)"
    for name, interface in INTERFACES.items():
        assert interface.label.endswith(f"({name})")
        assert interface.description and "\n" not in interface.description


def test_an_unknown_name_is_shown_as_it_is() -> None:
    assert interface_label("gpt-v9") == "gpt-v9"
