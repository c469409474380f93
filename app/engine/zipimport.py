"""Safe import of a zipped scenario package.

Checked before anything is unpacked: the archive's size, the entry count, each path (no traversal,
links or special files), each entry's declared size and compression ratio (zip bombs), encryption
and compression method. While reading, an entry whose data does not match its header (CRC, size,
corrupt compressed data) is refused by name. Every refusal is a PackageError, answered with a 422.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from pathlib import PurePosixPath

from app.engine.errors import PackageError

MAX_FILES = 64
MAX_FILE_BYTES = 256 * 1024
# The default of the app's SCENARIO_ZIP_MAX_BYTES setting: the zip itself, and its unpacked content.
MAX_ZIP_BYTES = 5 * 1024 * 1024
# Source text compresses about 3-5 to 1; a ratio far above that is a bomb, not a package.
MAX_RATIO = 100
READABLE_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate", zipfile.ZIP_BZIP2: "bzip2",
                    zipfile.ZIP_LZMA: "lzma"}
ENCRYPTED_FLAG = 0x1
# What zipfile raises for an archive or entry it cannot read (a damaged or unusual zip).
UNREADABLE = (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, NotImplementedError, zlib.error, EOFError,
              ValueError, OSError)
REZIP = "Zip the package again (without a password, with the default compression) and upload it."


def _safe_name(info: zipfile.ZipInfo) -> PurePosixPath:
    name = info.filename
    if "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise PackageError(f"{name}: absolute or non-POSIX path in zip")
    path = PurePosixPath(name)
    if any(part in ("..", "") for part in path.parts) or path.is_absolute():
        raise PackageError(f"{name}: path traversal in zip")
    file_type = stat.S_IFMT(info.external_attr >> 16)
    if file_type and file_type not in (stat.S_IFREG, stat.S_IFDIR):
        raise PackageError(f"{name}: links and special files are not allowed in a package")
    return path


def _check_entry(info: zipfile.ZipInfo) -> None:
    """Refuse what cannot or must not be unpacked, from the entry's header alone."""
    name = info.filename
    if info.flag_bits & ENCRYPTED_FLAG:
        raise PackageError(f"{name}: the entry is encrypted. {REZIP}")
    if info.compress_type not in READABLE_METHODS:
        raise PackageError(f"{name}: compression method {info.compress_type} is not supported "
                           f"(use {', '.join(READABLE_METHODS.values())}). {REZIP}")
    if info.file_size > MAX_FILE_BYTES:
        raise PackageError(f"{name}: larger than {MAX_FILE_BYTES} bytes")
    if info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise PackageError(f"{name}: compressed more than {MAX_RATIO} to 1 ({info.file_size} bytes from "
                           f"{info.compress_size}); a package is never that repetitive")


def _damage(exc: BaseException) -> str:
    """What is wrong with an entry zipfile could not read, in words."""
    text = str(exc)
    if "CRC" in text:
        return "its CRC-32 checksum does not match its content"
    if isinstance(exc, zlib.error):
        return "its compressed data is corrupt"
    if isinstance(exc, EOFError):
        return "its data ends early"
    return text[:200] or exc.__class__.__name__


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The entry's bytes, or PackageError naming it when its data does not match its header."""
    try:
        with archive.open(info) as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except UNREADABLE as exc:
        raise PackageError(f"{info.filename}: cannot be read: {_damage(exc)}. {REZIP}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise PackageError(f"{info.filename}: larger than {MAX_FILE_BYTES} bytes")
    if len(raw) != info.file_size:
        raise PackageError(f"{info.filename}: holds {len(raw)} bytes but its header says {info.file_size}. {REZIP}")
    return raw


def read_zip_files(data: bytes, *, max_zip_bytes: int = MAX_ZIP_BYTES) -> dict[str, str]:
    """Relative path -> UTF-8 text for every regular file, after every safety check.

    `max_zip_bytes` bounds the archive and, separately, its unpacked content.
    """
    if len(data) > max_zip_bytes:
        raise PackageError(f"zip: larger than {max_zip_bytes} bytes")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except UNREADABLE:
        raise PackageError("zip: not a valid zip archive") from None
    infos = [i for i in entries if not i.is_dir()]
    for info in entries:
        _safe_name(info)
    if len(infos) > MAX_FILES:
        raise PackageError(f"zip: {len(infos)} files, at most {MAX_FILES} allowed")
    if sum(i.file_size for i in infos) > max_zip_bytes:
        raise PackageError(f"zip: content larger than {max_zip_bytes} bytes in total")
    paths = [_safe_name(i) for i in infos]
    # Accept both "scenario.toml" at the root and "<folder>/scenario.toml".
    prefix: tuple[str, ...] = ()
    if not any(p.parts == ("scenario.toml",) for p in paths):
        roots = {p.parts[0] for p in paths}
        if len(roots) == 1 and all(len(p.parts) > 1 for p in paths):
            prefix = (roots.pop(),)
    files: dict[str, str] = {}
    for info, path in zip(infos, paths, strict=True):
        _check_entry(info)
        parts = path.parts[len(prefix):]
        if parts and parts[-1].startswith(".") or "__pycache__" in parts or "__MACOSX" in path.parts:
            continue
        raw = _read_entry(archive, info)
        try:
            files["/".join(parts)] = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PackageError(f"{info.filename}: not valid UTF-8 text") from None
    return files


def read_package_zip(data: bytes, *, max_zip_bytes: int = MAX_ZIP_BYTES) -> dict[str, str]:
    """The files of a zipped package, checked to be only scenario.toml, brief.md and solution/*.py
    (app.engine.package.load_zip parses them)."""
    files = read_zip_files(data, max_zip_bytes=max_zip_bytes)
    unexpected = [p for p in files if p not in ("scenario.toml", "brief.md") and not p.startswith("solution/")]
    if unexpected:
        raise PackageError(f"{unexpected[0]}: unexpected file in package (allowed: scenario.toml, brief.md, "
                           "solution/*.py)")
    nested = [p for p in files if p.startswith("solution/") and p.count("/") > 1]
    if nested:
        raise PackageError(f"{nested[0]}: solution/ must not contain folders")
    return files
