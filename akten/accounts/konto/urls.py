"""/konto/: the user's own page (login and logout are beside it in config/urls.py)."""

from django.urls import path

from akten.accounts.konto import views

app_name = "konto"

urlpatterns = [
    path("", views.konto, name="seite"),
    path("tokens/", views.token_anlegen, name="token_anlegen"),
    path("tokens/<int:token_id>/widerrufen/", views.token_widerrufen, name="token_widerrufen"),
    path("hinweise/", views.hinweise_speichern, name="hinweise"),
    path("mail/", views.mails_speichern, name="mail"),
    path("kalender/", views.kalender_adresse, name="kalender_adresse"),
    path("kalender/umfang/", views.kalender_umfang, name="kalender_umfang"),
    path("kalender/beenden/", views.kalender_beenden, name="kalender_beenden"),
    path("ueberall-abmelden/", views.ueberall_abmelden, name="ueberall_abmelden"),
    path("passwort/", views.PasswortAendern.as_view(), name="passwort"),
    path("passwort/fertig/", views.PasswortGeaendert.as_view(), name="passwort_fertig"),
]
