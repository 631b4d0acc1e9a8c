"""Conversations: where a run starts and stops, and the conversation kept like a record.

- services: every way a run starts (a message, an answer to Helena's question, a continuation in the
  background) or stops (cancel): check, rate limit, classify, create, dispatch
- questions: Helena's open questions (ask_user) and their expiry; classification: the optional
  second opinion of the tier-1 model on the rules' classification
- selectors: the scoped reads (the conversation list with search, filters, state, pending drafts)
- records: rename, archive, pin, delete softly, keep as Aktenvermerk; export: Markdown and PDF
- title: the title from the first question (no model call); demo: the demo Kanzlei's conversation
"""
