"""Safe import of a zipped scenario package."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import PurePosixPath

from app.engine.errors import PackageError

MAX_FILES = 64
MAX_FILE_BYTES = 256 * 1024
MAX_TOTAL_BYTES = 2 * 1024 * 1024
MAX_ZIP_BYTES = 4 * 1024 * 1024


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


def read_zip_files(data: bytes) -> dict[str, str]:
    """Relative path -> UTF-8 text for every regular file, after every safety check."""
    if len(data) > MAX_ZIP_BYTES:
        raise PackageError(f"zip: larger than {MAX_ZIP_BYTES} bytes")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise PackageError("zip: not a valid zip archive") from None
    infos = [i for i in archive.infolist() if not i.is_dir()]
    for info in archive.infolist():
        _safe_name(info)
    if len(infos) > MAX_FILES:
        raise PackageError(f"zip: {len(infos)} files, at most {MAX_FILES} allowed")
    if sum(i.file_size for i in infos) > MAX_TOTAL_BYTES:
        raise PackageError(f"zip: content larger than {MAX_TOTAL_BYTES} bytes in total")
    paths = [_safe_name(i) for i in infos]
    # Accept both "scenario.toml" at the root and "<folder>/scenario.toml".
    prefix: tuple[str, ...] = ()
    if not any(p.parts == ("scenario.toml",) for p in paths):
        roots = {p.parts[0] for p in paths}
        if len(roots) == 1 and all(len(p.parts) > 1 for p in paths):
            prefix = (roots.pop(),)
    files: dict[str, str] = {}
    for info, path in zip(infos, paths, strict=True):
        if info.file_size > MAX_FILE_BYTES:
            raise PackageError(f"{info.filename}: larger than {MAX_FILE_BYTES} bytes")
        parts = path.parts[len(prefix):]
        if parts and parts[-1].startswith(".") or "__pycache__" in parts or "__MACOSX" in path.parts:
            continue
        with archive.open(info) as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise PackageError(f"{info.filename}: larger than {MAX_FILE_BYTES} bytes")
        try:
            files["/".join(parts)] = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PackageError(f"{info.filename}: not valid UTF-8 text") from None
    return files


def load_zip(data: bytes):  # -> ScenarioPackage (import cycle kept out of module import time)
    """Check and parse a zipped package."""
    from app.engine.package import parse_package

    files = read_zip_files(data)
    unexpected = [p for p in files if p not in ("scenario.toml", "brief.md") and not p.startswith("solution/")]
    if unexpected:
        raise PackageError(f"{unexpected[0]}: unexpected file in package (allowed: scenario.toml, brief.md, "
                           "solution/*.py)")
    nested = [p for p in files if p.startswith("solution/") and p.count("/") > 1]
    if nested:
        raise PackageError(f"{nested[0]}: solution/ must not contain folders")
    return parse_package(files)
