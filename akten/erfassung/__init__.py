"""The firm's records entered by the people who keep them: one service per record.

Every write of an Akte, a Beteiligter, a Frist (Termin, Wiedervorlage), a Notiz or a Zeiterfassung —
from the pages, the API, the import or an approved Helena draft — goes through these functions, so
there is one rule per record: scoped (only into Akten the user may see), role-checked
(rechte.py), validated with German messages, the Kollisionsprüfung run where a party comes in, and
the history kept (django-simple-history: who, when, old → new; verlauf.py reads it).
"""
