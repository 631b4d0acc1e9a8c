"""URL map: admin, JSON API (/api/v1/), Akten, drafts and the chat pages."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from akten.accounts.konto.views import Anmelden
from config.api import api

admin.site.site_header = "Helena – Kanzleiverwaltung"
admin.site.site_title = "Helena"
admin.site.index_title = "Verwaltung"

urlpatterns = [
    # Browsers ask for /favicon.ico on pages without a <link rel="icon"> (admin, API docs).
    path("favicon.ico", RedirectView.as_view(url=static("helena/favicon.png"), permanent=True)),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("konto/anmelden/", Anmelden.as_view(), name="login"),  # German words, why a session ended
    path("konto/abmelden/", auth_views.LogoutView.as_view(), name="logout"),
    # the second factor after the password, its setup and recovery codes (akten/accounts/zweitfaktor/)
    path("konto/zweiter-faktor/", include("akten.accounts.zweitfaktor.urls")),
    path("konto/", include("akten.accounts.konto.urls")),  # the user's own page: tokens, Hinweise, password
    path("kalender/", include("akten.kalenderabo.urls")),  # the calendar feed: a secret address, no login
    path("akten/", include("akten.urls")),
    path("fristen/", include("akten.fristenbuch.urls")),  # the Fristenbuch and the daily Fristenkontrolle
    path("entwuerfe/", include("drafts.urls")),
    path("suche/", include("helena.quicksearch.urls")),  # the header's search box: all hits on one page
    path("wissen/", include("helena.knowledge.urls")),  # a norm's text, where citations lead
    # The chat: `/` and `/helena/` are its start page; also POST /akten/<id>/gespraech/.
    path("", include("helena.urls")),
]
