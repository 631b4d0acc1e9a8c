"""Search over the firm's own files: Akten, their Dokumente and Notizen, lexically and semantically.

passages: what of a file is embedded, and the refresh that keeps the vectors current;
vectors: the in-memory matrix of those vectors; lexical: the exact word matches;
search: both fused, scoped to the Akten a user may see; indexing: refresh on change.
"""
