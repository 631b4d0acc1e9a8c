"""The HTTP edges of Helena, thin: the chat pages (views), the JSON API for conversations, runs,
Aufträge and the activity feed (api), and Helena's sections of the Akte page (akte_panels)."""
