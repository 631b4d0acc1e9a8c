"""/akten/<id>/fristen/…: a Frist of the Akte kept by hand (names in the "akten" namespace)."""

from django.urls import path

from akten import views

urlpatterns = [
    path("<int:frist_id>/erledigt/", views.frist_erledigt, name="frist_erledigt"),
    path("<int:frist_id>/bearbeiten/", views.frist_bearbeiten, name="frist_bearbeiten"),
]
