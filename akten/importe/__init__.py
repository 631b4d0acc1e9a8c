"""Import of Akten with their parties from the old Kanzlei software's export (issue 32).

lesen (the file into rows by column) → pruefen (one row checked, in German) → ausfuehren (every row
through the erfassung services, each on its own) → text (the report in German sentences); laeufe
keeps an import as an ImportLauf and runs it in Celery; admin is its page in the Verwaltung. The
command is `manage.py import_akten` (docs/protocol.md, docs/betrieb.md).
"""
