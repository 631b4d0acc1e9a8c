"""Backup and restore of a whole installation (`manage.py sichern`, `manage.py wiederherstellen`).

One archive holds the database (pg_dump's custom format), the uploaded files under MEDIA_ROOT and
the SECRET_KEY, with a manifest (version, migrations, row counts, checksums); optionally encrypted
with a passphrase. The database is handled as a whole, never through an app's models: this package
is plumbing and imports no app (pyproject.toml's contract), so a backup of any release reads alike.
"""
