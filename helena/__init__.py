"""Helena, the AI colleague: the Django app around the agent. Its folders are its layers (docs/
architecture.md): web and realtime → conversations, proactive, presentation, quicksearch → runs →
tools → agent → llm; infra below them all; knowledge its own app."""
