"""Conversations kept like records: renamed, archived, pinned, deleted (softly), exported, and kept
in the Akte as an Aktenvermerk (issue 23)."""
