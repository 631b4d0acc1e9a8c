"""Django's PostgreSQL backend with a pool that clears out all dead connections at once (base.py)."""
