"""Search over the firm's own files: Akten, their Dokumente and Notizen, lexically and semantically.

passagen: what of a file is embedded, and the refresh that keeps the vectors current;
vektoren: the in-memory matrix of those vectors; lexikalisch: the exact word matches;
suche: both fused, scoped to the Akten a user may see; aktualisierung: refresh on change.
"""
