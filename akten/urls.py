"""/akten/: the user's Akten, a new Akte, one Akte (its Stammdaten, Beteiligte, Notizen, Zeiten and
Zugriff by hand, who read it), its Fristen kept by hand, its Dokumente (upload, download), and the
user's Notizen and Hinweise."""

from django.urls import include, path

from akten import views
from akten.dokumente import views as dokumente
from akten.lesezugriffe import views as lesezugriffe
from akten.seiten import akte, beteiligte, eintraege, kollision

app_name = "akten"

urlpatterns = [
    path("", views.akten_list, name="list"),
    path("neu/", akte.akte_neu, name="neu"),
    path("kollision/abbrechen/", kollision.abbrechen, name="kollision_abbrechen"),
    path("<int:akte_id>/", views.akte_detail, name="detail"),
    path("<int:akte_id>/bearbeiten/", akte.akte_bearbeiten, name="bearbeiten"),
    path("<int:akte_id>/beteiligte/neu/", beteiligte.beteiligter_neu, name="beteiligter_neu"),
    path("<int:akte_id>/beteiligte/<int:beteiligter_id>/bearbeiten/", beteiligte.beteiligter_bearbeiten,
         name="beteiligter_bearbeiten"),
    path("<int:akte_id>/beteiligte/<int:beteiligter_id>/entfernen/", beteiligte.beteiligter_weg,
         name="beteiligter_entfernen"),
    path("<int:akte_id>/beteiligte/<int:beteiligter_id>/", include("akten.datenschutz.urls")),
    path("<int:akte_id>/notizen/neu/", eintraege.notiz_neu, name="notiz_neu"),
    path("<int:akte_id>/zeiten/neu/", eintraege.zeit_neu, name="zeit_neu"),
    path("<int:akte_id>/zugriff/", eintraege.zugriff_neu, name="zugriff_geben"),
    path("<int:akte_id>/zugriff/<int:person_id>/entziehen/", eintraege.zugriff_weg, name="zugriff_entziehen"),
    path("<int:akte_id>/zugriffe/", lesezugriffe.zugriffe, name="lesezugriffe"),
    path("<int:akte_id>/zugriffe.csv", lesezugriffe.zugriffe_csv, name="lesezugriffe_csv"),
    path("<int:akte_id>/fristen/", include("akten.fristenbuch.akte_urls")),
    path("<int:akte_id>/dokumente/hochladen/", dokumente.hochladen, name="dokumente_hochladen"),
    path("dokumente/<int:dokument_id>/datei/", dokumente.datei, name="dokument_datei"),
    path("notizen/", views.notizen, name="notizen"),
    path("hinweise/", views.hinweise, name="hinweise"),
]
