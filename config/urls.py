"""URL map: admin, JSON API (/api/v1/), and the chat pages (later)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from config.api import api

admin.site.site_header = "Helena – Kanzleiverwaltung"
admin.site.site_title = "Helena"
admin.site.index_title = "Verwaltung"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("konto/anmelden/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("konto/abmelden/", auth_views.LogoutView.as_view(), name="logout"),
    path("akten/", include("akten.urls")),
    path("entwuerfe/", include("drafts.urls")),
    # Until the chat pages exist, the start page is the list of Akten.
    path("", RedirectView.as_view(url="/akten/", permanent=False)),
]
