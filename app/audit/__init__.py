"""Who did what to scenarios and users, and when."""
