"""The firm's other systems writing and following Helena's records (the write API).

Accounting, the beA client or the old Kanzlei software create and change Akten, parties, Fristen,
Notizen and times through the same services as the pages (akten/erfassung/: roles, scoping,
validation, the Kollisionsprüfung, the history), name them by their own `extern_id`, retry safely
with an `Idempotency-Key` (idempotenz.py), never overwrite a change they did not see (an Akte's
version as ETag), and follow what changed since their last look (aenderungen.py).
"""
