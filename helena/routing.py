"""Websocket URLs (docs/protocol.md): one socket per conversation, one for the user's Hinweise."""

from django.urls import path

from helena.realtime.chat import ConversationConsumer
from helena.realtime.notifications import AlertsConsumer

websocket_urlpatterns = [
    path("ws/helena/conversations/<str:conversation_id>/", ConversationConsumer.as_asgi()),
    path("ws/benachrichtigungen/", AlertsConsumer.as_asgi()),
]
