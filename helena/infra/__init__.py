"""Plumbing below every layer (it imports none of them): event loops (loops), the database threads
of runs (db), the one timestamp format of the wire (timestamps), the error log (errorlog) and the
admin's settings read once per process (settings_cache)."""
