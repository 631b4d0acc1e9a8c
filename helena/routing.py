"""Websocket URLs (PROTOCOL.md): one socket per conversation."""

from django.urls import path

from helena.consumers import ConversationConsumer

websocket_urlpatterns = [
    path("ws/helena/conversations/<str:conversation_id>/", ConversationConsumer.as_asgi()),
]
