from web.support import make_account, published_version, web_app, web_client  # noqa: F401
