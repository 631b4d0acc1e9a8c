"""The pure core of Helena (no Django, no ORM, no Celery, no Channels; the import contracts say so):
the bounded loop, the plan runner, stall and budget, the classifier's rules, the system prompt,
the language check and the events a run emits. It talks to models through llm.base.ChatModel and
to the world through the ports on its ToolContext."""
