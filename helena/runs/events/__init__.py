"""A run's events: the emitter (every event stored, then published; guard warnings and errors to
the error log), the writer (one per event loop, batching what its runs emitted), storage (the
INSERT on the hot path) and broadcast (the conversation's Channels group every socket listens to)."""
