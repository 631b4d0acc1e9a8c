"""/fristen/: the Fristenbuch and the daily Fristenkontrolle (names in the "fristenbuch" namespace)."""

from django.urls import path

from akten.fristenbuch import buch

app_name = "fristenbuch"

urlpatterns = [
    path("", buch.fristenbuch, name="liste"),
    path("kontrolle/", buch.kontrolle, name="kontrolle"),
    path("kontrolle.pdf", buch.kontrolle_pdf, name="kontrolle_pdf"),
]
