"""/konto/zweiter-faktor/: give the code after the password, set the app up, the recovery codes."""

from django.urls import path

from akten.accounts.zweitfaktor import views

app_name = "zweitfaktor"

urlpatterns = [
    path("", views.bestaetigen, name="bestaetigen"),
    path("einrichten/", views.einrichten, name="einrichten"),
    path("codes/", views.codes, name="codes"),
    path("neue-codes/", views.neue_codes_anlegen, name="neue_codes"),
    path("entfernen/", views.entfernen_seite, name="entfernen"),
]
