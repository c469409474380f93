"""Zips that zipfile cannot read, built byte by byte: what a damaged or hostile upload looks like.

Python writes neither encrypted entries nor unknown compression methods, so a plain zip is written and
the named entry's fields are then rewritten in both its local header and its central directory record.
"""

from __future__ import annotations

import io
import struct
import zipfile

# Field offsets from each header's signature (APPNOTE.TXT 4.3.7 and 4.3.12).
LOCAL = {"flags": (6, "<H"), "method": (8, "<H"), "crc": (14, "<I"), "size": (22, "<I")}
CENTRAL = {"flags": (8, "<H"), "method": (10, "<H"), "crc": (16, "<I"), "size": (24, "<I")}
CENTRAL_SIGNATURE = b"PK\x01\x02"


def plain_zip(entries: dict[str, str], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def rewrite_entry(data: bytes, name: str, **fields: int) -> bytes:
    """The zip with the named entry's fields (flags, method, crc, size) set in both of its headers."""
    out = bytearray(data)
    at = out.find(CENTRAL_SIGNATURE)
    while at != -1:
        name_length = struct.unpack_from("<H", out, at + 28)[0]
        if bytes(out[at + 46:at + 46 + name_length]) == name.encode():
            local_at = struct.unpack_from("<I", out, at + 42)[0]
            for field, value in fields.items():
                struct.pack_into(CENTRAL[field][1], out, at + CENTRAL[field][0], value)
                struct.pack_into(LOCAL[field][1], out, local_at + LOCAL[field][0], value)
            return bytes(out)
        at = out.find(CENTRAL_SIGNATURE, at + 4)
    raise KeyError(name)


def damaged(entries: dict[str, str], name: str, how: str) -> bytes:
    """One of the malformed zips of the security probes, `name` being the damaged entry."""
    if how == "encrypted":
        return rewrite_entry(plain_zip(entries), name, flags=0x1)
    if how == "method 99":  # AES, which zipfile cannot read
        return rewrite_entry(plain_zip(entries), name, method=99)
    if how == "crc":
        return rewrite_entry(plain_zip(entries), name, crc=0xDEADBEEF)
    if how == "size larger":  # the header promises more than the data holds: zipfile reads short, silently
        return rewrite_entry(plain_zip(entries, zipfile.ZIP_DEFLATED), name, size=len(entries[name]) + 500)
    if how == "size smaller":
        return rewrite_entry(plain_zip(entries, zipfile.ZIP_DEFLATED), name, size=len(entries[name]) // 2)
    if how == "corrupt deflate":
        data = bytearray(plain_zip(entries, zipfile.ZIP_DEFLATED))
        info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo(name)
        start = info.header_offset + 30 + len(name.encode()) + len(info.extra)
        data[start] = 0xFF  # an invalid deflate block type
        return bytes(data)
    raise ValueError(how)


HOW = ("encrypted", "method 99", "crc", "size larger", "size smaller", "corrupt deflate")
