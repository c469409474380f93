"""The fast JSON codec answers as the standard library does, and falls back to it where orjson refuses."""

from __future__ import annotations

import json
import math
from pathlib import Path

from sqlalchemy import JSON, Column, Integer, MetaData, Table, insert, select, text
from starlette.responses import JSONResponse

from app.core import json_codec
from app.core.db import make_engine
from app.http.responses import FastJSONResponse

SAMPLE = {"id": 7, "tests": [{"passed": True, "message": "ünïcode ✓", "loss": 0.1 + 0.2}], "empty": None,
          "nested": {"a": [1, 2.5, "x"]}}  # fmt: skip


def test_dumps_writes_what_starlette_writes() -> None:
    assert json_codec.dumps(SAMPLE) == JSONResponse(SAMPLE).body
    assert FastJSONResponse(SAMPLE).body == JSONResponse(SAMPLE).body


def test_dumps_takes_int_keys_and_huge_integers_as_json_dumps_does() -> None:
    assert json.loads(json_codec.dumps({1: "a"})) == {"1": "a"}
    huge = {"n": 2**80}
    assert json_codec.dumps(huge) == json.dumps(huge, separators=(",", ":")).encode()


def test_dumps_writes_null_for_nan_where_starlette_would_fail() -> None:
    assert json_codec.dumps({"loss": math.nan, "inf": math.inf}) == b'{"loss":null,"inf":null}'


def test_loads_reads_what_json_dumps_wrote_including_nan_and_huge_integers() -> None:
    for value in (SAMPLE, {"n": 2**80}, [1, "two", None]):
        assert json_codec.loads(json.dumps(value)) == value
    loaded = json_codec.loads(json.dumps({"loss": math.nan}))
    assert math.isnan(loaded["loss"])


def test_the_engine_reads_json_columns_with_it(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'codec.sqlite3'}")
    table = Table("rows", MetaData(), Column("id", Integer, primary_key=True), Column("data", JSON))
    table.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(table).values(id=1, data=SAMPLE))
        # A value json.dumps wrote that orjson cannot parse (NaN) still reads back.
        conn.execute(text("INSERT INTO rows (id, data) VALUES (2, :raw)"), {"raw": json.dumps({"loss": math.nan})})
    with engine.connect() as conn:
        rows = dict(conn.execute(select(table.c.id, table.c.data)).all())
    assert rows[1] == SAMPLE
    assert math.isnan(rows[2]["loss"])
    engine.dispose()
