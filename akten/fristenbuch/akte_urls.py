"""/akten/<id>/fristen/…: the Fristen of one Akte kept by hand (names in the "akten" namespace)."""

from django.urls import path

from akten.fristenbuch import views

urlpatterns = [
    path("neu/", views.frist_neu, name="frist_neu"),
    path("pruefen/", views.frist_pruefen, name="frist_pruefen"),
    path("<int:frist_id>/", views.frist_detail, name="frist_detail"),
    path("<int:frist_id>/bearbeiten/", views.frist_bearbeiten, name="frist_bearbeiten"),
    path("<int:frist_id>/erledigt/", views.frist_erledigt, name="frist_erledigt"),
    path("<int:frist_id>/bestaetigen/", views.frist_bestaetigen, name="frist_bestaetigen"),
    path("<int:frist_id>/wieder-oeffnen/", views.frist_wieder_oeffnen, name="frist_wieder_oeffnen"),
]
