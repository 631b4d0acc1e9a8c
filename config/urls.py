"""URL map: admin, JSON API (/api/v1/), and the chat pages (later)."""

from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

from config.api import api

admin.site.site_header = "Helena – Kanzleiverwaltung"
admin.site.site_title = "Helena"
admin.site.index_title = "Verwaltung"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    # Until the chat pages exist, the start page is the admin.
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
]
