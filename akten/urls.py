"""/akten/: the list of the user's Akten and the compact read view of one Akte."""

from django.urls import path

from akten import views

app_name = "akten"

urlpatterns = [
    path("", views.akten_list, name="list"),
    path("<int:akte_id>/", views.akte_detail, name="detail"),
]
