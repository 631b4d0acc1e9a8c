"""The lawyer pages that enter the firm's records by hand (issue 32): the Akte as a workspace with its
tabs, Akte anlegen/bearbeiten with its Mandant and Gegner, Beteiligte, Notizen, Zeiten and Zugriff.

Thin views over the services in akten/erfassung (they check roles, scope and input) and scoped reads
(akten/selectors.py, selectors.py here; verlauf.py the history as people read it); the forms
(forms.py) only turn what a person typed („12.500,00“, „1:30“) into values and show the services'
German messages beside the fields.
"""
