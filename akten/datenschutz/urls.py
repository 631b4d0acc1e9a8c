"""/akten/<akte>/beteiligte/<beteiligter>/…: Auskunft (JSON, PDF), its internal Prüfblatt and Löschung
(vormerken, aufheben)."""

from django.urls import path

from akten.datenschutz import views

urlpatterns = [
    path("auskunft.json", views.auskunft_json, name="auskunft_json"),
    path("auskunft.pdf", views.auskunft_als_pdf, name="auskunft_pdf"),
    path("pruefblatt/", views.pruefblatt_seite, name="auskunft_pruefblatt"),
    path("loeschung/", views.loeschung, name="loeschung"),
    path("loeschung/aufheben/", views.loeschung_aufheben, name="loeschung_aufheben"),
]
