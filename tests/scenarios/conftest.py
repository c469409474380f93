"""The scenarios API tests share the attempts API fixtures (app client, users with tokens, built-ins)."""

from attempts.conftest import builtin_slugs, client, make_user  # noqa: F401
