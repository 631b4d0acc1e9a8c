from django.apps import AppConfig


class HelenaConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "helena"
    verbose_name = "Helena"
