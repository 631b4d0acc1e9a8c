"""/entwuerfe/: the inbox and the card's endpoints (see drafts.views)."""

from django.urls import path

from drafts import views

app_name = "drafts"

urlpatterns = [
    path("", views.inbox, name="inbox"),
    path("<uuid:draft_id>/", views.detail, name="detail"),
    path("<uuid:draft_id>/bearbeiten/", views.edit, name="edit"),
    path("<uuid:draft_id>/freigeben/", views.approve, name="approve"),
    path("<uuid:draft_id>/ablehnen/", views.reject, name="reject"),
]
