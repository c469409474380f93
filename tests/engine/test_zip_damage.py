"""Every zipfile error on a scenario zip becomes a PackageError naming the entry; the bomb checks stay."""

from __future__ import annotations

import io
import zipfile

import pytest
from engine.test_package import package_entries, zip_of
from engine.zip_damage import HOW, damaged, plain_zip

from app.engine.errors import PackageError
from app.engine.zipimport import MAX_RATIO, MAX_ZIP_BYTES, read_zip_files

ENTRIES = {"scenario.toml": "title = 'x'\n", "solution/model.py": "import torch\n" + "x = 1  # a line\n" * 40}
DAMAGED = "solution/model.py"


@pytest.mark.parametrize("how", HOW)
def test_a_damaged_entry_is_refused_by_name(how: str) -> None:
    with pytest.raises(PackageError) as refused:
        read_zip_files(damaged(ENTRIES, DAMAGED, how))
    message = str(refused.value)
    assert message.startswith(f"{DAMAGED}: ") and "Zip the package again" in message, message


@pytest.mark.parametrize(("how", "says"), [
    ("encrypted", "the entry is encrypted"),
    ("method 99", "compression method 99 is not supported (use stored, deflate, bzip2, lzma)"),
    ("crc", "CRC-32 checksum does not match"),
    ("size larger", f"holds {len(ENTRIES[DAMAGED])} bytes but its header says {len(ENTRIES[DAMAGED]) + 500}"),
    ("corrupt deflate", "compressed data is corrupt"),
])
def test_the_message_says_what_is_wrong(how: str, says: str) -> None:
    with pytest.raises(PackageError, match=says.replace("(", r"\(").replace(")", r"\)")):
        read_zip_files(damaged(ENTRIES, DAMAGED, how))


def test_the_damaged_zips_really_break_zipfile() -> None:
    """The builders make what the probes sent: zipfile itself fails (or reads short) on each."""
    for how in HOW:
        archive = zipfile.ZipFile(io.BytesIO(damaged(ENTRIES, DAMAGED, how)))
        info = archive.getinfo(DAMAGED)
        try:
            read = archive.read(info)
        except Exception:  # noqa: BLE001 - any zipfile failure is what this checks for
            continue
        assert len(read) != info.file_size, how


def test_an_entry_compressed_past_the_ratio_is_refused() -> None:
    bomb = plain_zip({**ENTRIES, "brief.md": "\n" * 200_000}, zipfile.ZIP_DEFLATED)
    with pytest.raises(PackageError, match=f"brief.md: compressed more than {MAX_RATIO} to 1"):
        read_zip_files(bomb)


def test_the_archive_limit_is_a_parameter_and_at_least_5_mb_by_default() -> None:
    assert MAX_ZIP_BYTES >= 5 * 1024 * 1024
    data = zip_of(package_entries())
    assert "scenario.toml" in read_zip_files(data)
    with pytest.raises(PackageError, match=f"zip: larger than {len(data) - 1} bytes"):
        read_zip_files(data, max_zip_bytes=len(data) - 1)


def test_unpacked_content_is_bounded_by_the_same_limit() -> None:
    data = plain_zip({name: "y = 2\n" * 4000 for name in ("a.py", "b.py", "c.py")}, zipfile.ZIP_DEFLATED)
    assert len(data) < 50_000  # the zip fits; what it unpacks to (72 000 bytes) does not
    with pytest.raises(PackageError, match="zip: content larger than 50000 bytes in total"):
        read_zip_files(data, max_zip_bytes=50_000)
