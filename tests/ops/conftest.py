from dispatch.conftest import app_db, committed_attempt  # noqa: F401
from web.support import fast_password_hashing, make_account, published_version, web_app, web_client  # noqa: F401
