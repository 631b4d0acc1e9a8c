from django.apps import AppConfig


class KnowledgeConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "helena.knowledge"
    label = "knowledge"
    verbose_name = "Wissen: Gesetze, Entscheidungen, Muster"

    def ready(self) -> None:
        from helena.knowledge.aktensuche import indexing  # noqa: PLC0415 (models must be loaded)

        indexing.connect()
