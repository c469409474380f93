"""Who is asking: cookie sessions, CSRF, bearer tokens, login rate limits and role dependencies."""
