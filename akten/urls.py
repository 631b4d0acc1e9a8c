"""/akten/: the user's Akten, one Akte, its Fristen kept by hand, its Dokumente (upload, download), and
the user's Notizen and Hinweise."""

from django.urls import include, path

from akten import views
from akten.dokumente import views as dokumente

app_name = "akten"

urlpatterns = [
    path("", views.akten_list, name="list"),
    path("<int:akte_id>/", views.akte_detail, name="detail"),
    path("<int:akte_id>/fristen/", include("akten.fristenbuch.akte_urls")),
    path("<int:akte_id>/dokumente/hochladen/", dokumente.hochladen, name="dokumente_hochladen"),
    path("dokumente/<int:dokument_id>/datei/", dokumente.datei, name="dokument_datei"),
    path("notizen/", views.notizen, name="notizen"),
    path("hinweise/", views.hinweise, name="hinweise"),
]
