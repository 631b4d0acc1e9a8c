from django.apps import AppConfig


class AktenConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "akten"
    verbose_name = "Kanzlei: Akten"
