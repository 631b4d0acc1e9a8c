"""How what Helena did reads to a person, from the stored events and records: the chat history the
page renders (chat_history, the same markup chat.js builds live), the transcript of a conversation
for the Aktenvermerk and the exports (transcript), a tool call's label argument (calls) and the
one Markdown renderer (markdown)."""
