"""Responses of the web layer beyond Starlette's own."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from app.core import json_codec


class FastJSONResponse(JSONResponse):
    """A JSONResponse encoded with orjson (app.core.json_codec.dumps): for large objects polled often."""

    def render(self, content: Any) -> bytes:
        return json_codec.dumps(content)
