import pytest

from web.support import fast_password_hashing, make_account, published_version, web_app, web_client  # noqa: F401


@pytest.fixture
def console_errors() -> list[str]:
    """What went wrong in the browser; a test that provokes errors on purpose empties it."""
    return []
