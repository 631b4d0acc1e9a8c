"""/kalender/: the calendar feed under its secret address (no login; views.feed)."""

from django.urls import path

from akten.kalenderabo import views

app_name = "kalender"

urlpatterns = [
    path("<str:schluessel>.ics", views.feed, name="feed"),
]
