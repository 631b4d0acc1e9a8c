"""Plans and questions in the admin: what Helena planned, what she asked users and waits for.

Read-only like every record of a run: a plan or a question is changed by the run and the user's
answer, never by hand.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from config.admin_base import ReadOnlyAdminMixin
from helena.models import PendingQuestion, Plan


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@admin.register(Plan)
class PlanAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Open plans are those executing, waiting for a review or for an answer (filter by status)."""

    list_display = ("created_at", "short_objective", "status", "execution_mode", "conversation", "user",
                    "version", "updated_at")
    list_filter = ("status", "execution_mode", "context_type", "created_at")
    search_fields = ("objective", "conversation__title", "conversation__user__username")
    list_select_related = ("conversation__user",)
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in Plan._meta.fields]

    @admin.display(description="Ziel")
    def short_objective(self, obj: Plan) -> str:
        return _short(obj.objective)

    @admin.display(description="Benutzer", ordering="conversation__user__username")
    def user(self, obj: Plan) -> Any:
        return obj.conversation.user


class QuestionStateFilter(admin.SimpleListFilter):
    title = "Stand"
    parameter_name = "stand"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("offen", "offen"), ("beantwortet", "beantwortet"), ("verfallen", "verfallen")]

    def queryset(self, request: HttpRequest,
                 queryset: QuerySet[PendingQuestion]) -> QuerySet[PendingQuestion]:
        return {
            "offen": lambda: queryset.filter(answered_at__isnull=True, expired_at__isnull=True),
            "beantwortet": lambda: queryset.filter(answered_at__isnull=False),
            "verfallen": lambda: queryset.filter(answered_at__isnull=True, expired_at__isnull=False),
        }.get(self.value(), lambda: queryset)()


@admin.register(PendingQuestion)
class PendingQuestionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Helena's questions to users (ask_user): open ones pause their run until the user answers."""

    list_display = ("asked_at", "short_question", "state", "conversation", "user", "short_answer",
                    "answered_at")
    list_filter = (QuestionStateFilter, "asked_at")
    search_fields = ("question", "answer", "conversation__title", "conversation__user__username")
    list_select_related = ("conversation__user",)
    date_hierarchy = "asked_at"
    readonly_fields = [f.name for f in PendingQuestion._meta.fields]

    @admin.display(description="Frage")
    def short_question(self, obj: PendingQuestion) -> str:
        return _short(obj.question)

    @admin.display(description="Antwort")
    def short_answer(self, obj: PendingQuestion) -> str:
        return _short(obj.answer) or "–"

    @admin.display(description="Stand")
    def state(self, obj: PendingQuestion) -> str:
        if obj.answered_at is not None:
            return "beantwortet"
        return "verfallen" if obj.expired_at is not None else "offen"

    @admin.display(description="Benutzer", ordering="conversation__user__username")
    def user(self, obj: PendingQuestion) -> Any:
        return obj.conversation.user
