"""Loading scenario packages: fields, edits, diffs, zips, round trips and errors that say where."""

from __future__ import annotations

import io
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from app.engine.builtin import builtin_packages, find_builtin
from app.engine.errors import PackageError
from app.engine.package import ScenarioPackage, load_package, load_zip

LEAKY = Path(__file__).resolve().parents[2] / "app" / "scenarios_builtin" / "leaky-mask"


def copy_leaky(tmp_path: Path) -> Path:
    target = tmp_path / "pkg"
    shutil.copytree(LEAKY, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def zip_of(entries: dict[str, str | bytes], *, links: tuple[str, ...] = ()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, content in entries.items():
            info = zipfile.ZipInfo(name)
            if name in links:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, content)
    return buf.getvalue()


def package_entries(prefix: str = "") -> dict[str, str | bytes]:
    entries: dict[str, str | bytes] = {f"{prefix}scenario.toml": (LEAKY / "scenario.toml").read_text(),
                                       f"{prefix}brief.md": (LEAKY / "brief.md").read_text()}
    for name in ("model.py", "data.py"):
        entries[f"{prefix}solution/{name}"] = (LEAKY / "solution" / name).read_text()
    return entries


def test_leaky_mask_loads_with_four_bugs_and_derived_starter():
    pkg = find_builtin("leaky-mask")
    assert pkg is not None
    assert pkg.files == ("model.py", "data.py")
    assert [b.kind for b in pkg.bugs] == ["label-no-shift", "pos-frozen-zero", "mask-future-leak",
                                          "attn-scale-wrong"]
    assert pkg.starter_files != pkg.solution_files
    assert "diagonal=1" in pkg.starter_files["model.py"] and "diagonal=1" not in pkg.solution_files["model.py"]
    mutant = pkg.mutant_files("mask-sees-next-token")
    assert "diagonal=1" in mutant["model.py"] and mutant["data.py"] == pkg.solution_files["data.py"]


def test_every_builtin_package_loads():
    slugs = [p.slug for p in builtin_packages()]
    assert "leaky-mask" in slugs and len(slugs) == len(set(slugs))


def test_to_dict_round_trip_keeps_content_and_hash():
    pkg = find_builtin("leaky-mask")
    again = ScenarioPackage.from_dict(pkg.to_dict())
    assert again == pkg and again.content_hash == pkg.content_hash


def test_content_hash_changes_with_the_brief(tmp_path):
    path = copy_leaky(tmp_path)
    before = load_package(path).content_hash
    (path / "brief.md").write_text("Different brief.\n")
    assert load_package(path).content_hash != before


def test_edit_that_does_not_apply_names_bug_and_field(tmp_path):
    path = copy_leaky(tmp_path)
    toml = path / "scenario.toml"
    toml.write_text(toml.read_text().replace('new = "        mask = torch.tril(torch.ones(config.block_size, '
                                             'config.block_size), diagonal=1)"', 'new = "x"').replace(
        'old = "        mask = torch.tril(', 'old = "        mask = torch.TRIL('))
    with pytest.raises(PackageError, match=r"scenario.toml: bugs\[2\].edits\[0\].old: the text does not occur"):
        load_package(path)


def test_wrong_component_names_line_and_allowed_values(tmp_path):
    path = copy_leaky(tmp_path)
    toml = path / "scenario.toml"
    toml.write_text(toml.read_text().replace('component = "positional"', 'component = "embeddings"'))
    with pytest.raises(PackageError, match=r"scenario.toml:\d+: bugs\[1\].component: must be one of loss"):
        load_package(path)


def test_toml_syntax_error_reports_line(tmp_path):
    path = copy_leaky(tmp_path)
    (path / "scenario.toml").write_text('slug = "x"\ntitle = \n')
    with pytest.raises(PackageError, match=r"scenario.toml: .*line 2"):
        load_package(path)


def test_hints_must_be_three(tmp_path):
    path = copy_leaky(tmp_path)
    toml = path / "scenario.toml"
    text = toml.read_text().replace('    "y[b, t] should be the token that follows x[b, t] in the data.",\n', "", 1)
    toml.write_text(text)
    with pytest.raises(PackageError, match=r"bugs\[0\].hints: must be exactly three"):
        load_package(path)


def test_missing_solution_file_is_reported(tmp_path):
    path = copy_leaky(tmp_path)
    (path / "solution" / "data.py").unlink()
    with pytest.raises(PackageError, match=r"solution/data.py: file is missing"):
        load_package(path)


def test_bug_planted_by_unified_diff(tmp_path):
    path = copy_leaky(tmp_path)
    toml = path / "scenario.toml"
    text = toml.read_text()
    start = text.index('[[bugs.edits]]\nfile = "data.py"')
    end = text.index("[[bugs]]", start)
    text = text[:start] + text[end:]
    explanation = text.index("[bugs.explanation]")
    diff = ('diff = """\n--- a/data.py\n+++ b/data.py\n@@ -32,3 +32,3 @@\n'
            '     x = torch.stack([data[i : i + block_size] for i in ix])  # (B, T)\n'
            '-    y = torch.stack([data[i + 1 : i + 1 + block_size] for i in ix])  # (B, T)\n'
            '+    y = torch.stack([data[i : i + block_size] for i in ix])  # (B, T)\n'
            '     return x, y\n"""\n\n')
    toml.write_text(text[:explanation] + diff + text[explanation:])
    assert load_package(path).starter_files == find_builtin("leaky-mask").starter_files


def test_zip_with_top_folder_loads_like_the_directory():
    pkg = load_zip(zip_of(package_entries("leaky-mask/")))
    assert pkg.content_hash == find_builtin("leaky-mask").content_hash


@pytest.mark.parametrize("bad_name", ["../evil.py", "/etc/passwd", "solution/../../x.py", "C:\\x.py"])
def test_zip_rejects_traversal_and_absolute_paths(bad_name):
    entries = package_entries()
    entries[bad_name] = "x"
    with pytest.raises(PackageError, match="path"):
        load_zip(zip_of(entries))


def test_zip_rejects_symlinks():
    entries = package_entries()
    entries["solution/link.py"] = "/etc/passwd"
    with pytest.raises(PackageError, match="links"):
        load_zip(zip_of(entries, links=("solution/link.py",)))


def test_zip_rejects_oversize_file_too_many_files_and_binary():
    big = package_entries()
    big["solution/model.py"] = "#" * (300 * 1024)
    with pytest.raises(PackageError, match="larger than"):
        load_zip(zip_of(big))
    many = package_entries()
    many.update({f"solution/extra{i}.py": "x = 1\n" for i in range(70)})
    with pytest.raises(PackageError, match="files, at most"):
        load_zip(zip_of(many))
    binary = package_entries()
    binary["brief.md"] = b"\xff\xfe\x00bad"
    with pytest.raises(PackageError, match="UTF-8"):
        load_zip(zip_of(binary))


def test_zip_rejects_unexpected_files():
    entries = package_entries()
    entries["notes/secret.txt"] = "x"
    with pytest.raises(PackageError, match="unexpected file"):
        load_zip(zip_of(entries))
