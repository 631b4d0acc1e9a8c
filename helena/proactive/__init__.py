"""Helena working without being asked in the chat: her memory per Akte (memory, refreshed after a
change), Aufträge given on the Akte page, by API or in a Notiz (auftraege: start and end), and the
activity feed of an Akte and of a user (activity)."""
