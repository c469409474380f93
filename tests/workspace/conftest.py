from collections.abc import Iterator
from typing import Any

import pytest
from services import require_chromium
from web.live_server import LiveServer, launch_chromium
from web.support import fast_password_hashing, make_account, published_version, web_app, web_client  # noqa: F401


@pytest.fixture(scope="module")
def browser(server: LiveServer) -> Iterator[Any]:
    """One headless Chromium per browser-test module (each module defines its own `server`)."""
    with launch_chromium(require_chromium()) as chromium:
        yield chromium


@pytest.fixture
def errors() -> list[str]:
    """What went wrong in the browser during one test."""
    return []
