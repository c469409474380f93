"""Settings admins change at run time (stored in the database, not the environment)."""
