"""Parameter types shared by routes: ids are positive and fit a 64-bit column, or the request is a 422.

Without the bound, an id like 99999999999999999999 reaches the database, which refuses it with an
error (SQLite: OverflowError; PostgreSQL: an aborted transaction) instead of "not found".
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Form, Path

MAX_ROW_ID = 2**63 - 1

RowIdPath = Annotated[int, Path(ge=1, le=MAX_ROW_ID)]
RowIdForm = Annotated[int, Form(ge=0, le=MAX_ROW_ID)]  # 0: "nothing chosen" in a select
