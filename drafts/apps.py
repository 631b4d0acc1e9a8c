from django.apps import AppConfig


class DraftsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "drafts"
    verbose_name = "Entwürfe von Helena"

    def ready(self) -> None:
        # Imported here: the panels import models, which exist only once the apps are ready.
        from akten.panels import register  # noqa: PLC0415
        from drafts.akte_panels import pending_drafts  # noqa: PLC0415

        register(pending_drafts)
