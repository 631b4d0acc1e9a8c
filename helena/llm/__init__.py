"""Everything about language models: the ChatModel protocol (base), which model serves a tier
(router, with escalation to the next tier), local or cloud by host (locality); the servers
(providers/), decorators around a model (wrappers/), client data kept in the house (pii/) and every
model family's tool-call and reasoning format (dialects/)."""
