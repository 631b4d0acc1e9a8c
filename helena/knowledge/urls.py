"""/wissen/: pages of the knowledge base (the statutes; their search is the header's search box)."""

from django.urls import path

from helena.knowledge import views

app_name = "wissen"

urlpatterns = [
    path("normen/<str:gesetz>/<str:nummer>/", views.norm, name="norm"),
]
