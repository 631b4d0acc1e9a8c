"""URL map: admin, JSON API (/api/v1/), Akten, drafts and the chat pages."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

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
    # The chat: `/` and `/helena/` are its start page; also POST /akten/<id>/gespraech/.
    path("", include("helena.urls")),
]
