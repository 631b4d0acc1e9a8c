"""Every websocket (docs/protocol.md "Websocket"): the chat socket per conversation (chat), a user's
Hinweise and waiting drafts live on every page (notifications), and how many sockets a user has
open across the processes (socket_limits). Thin: decisions are in conversations and runs."""
