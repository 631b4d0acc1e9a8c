"""The chat pages (included at the site root by config.urls): start page, conversations, answers."""

from django.urls import path

from helena.web import views

app_name = "helena"

urlpatterns = [
    path("", views.home, name="start"),
    path("helena/", views.home, name="home"),
    path("helena/gespraech/neu/", views.new_conversation, name="new"),
    path("helena/gespraech/<int:conversation_id>/", views.chat, name="chat"),
    path("helena/gespraech/<int:conversation_id>/aendern/", views.gespraech_aendern, name="aendern"),
    path("helena/gespraech/<int:conversation_id>/loeschen/", views.gespraech_loeschen, name="loeschen"),
    path("helena/gespraech/<int:conversation_id>/aktenvermerk/", views.gespraech_aktenvermerk,
         name="aktenvermerk"),
    path("helena/gespraech/<int:conversation_id>/export.<str:format>", views.gespraech_export, name="export"),
    path("helena/laeufe/<str:run_id>/antwort/", views.run_answer, name="answer"),
    path("akten/<int:akte_id>/gespraech/", views.akte_conversation, name="akte_conversation"),
    path("akten/<int:akte_id>/auftrag/", views.akte_auftrag, name="akte_auftrag"),
    path("akten/<int:akte_id>/gedaechtnis/", views.akte_gedaechtnis, name="akte_gedaechtnis"),
    path("akten/<int:akte_id>/muster/", views.akte_muster, name="akte_muster"),
    path("aktivitaet/", views.meine_aktivitaet, name="aktivitaet"),
]
