"""/suche/: the results page of the header's search box."""

from django.urls import path

from helena.quicksearch import views

app_name = "suche"

urlpatterns = [
    path("", views.suche, name="ergebnisse"),
]
