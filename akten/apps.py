from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db.models.signals import post_delete, post_save


class AktenConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "akten"
    verbose_name = "Kanzlei: Akten"

    def ready(self) -> None:
        from akten.accounts import sitzungen  # noqa: PLC0415 (models are loaded now)
        from akten.dokumente.services import delete_file  # noqa: PLC0415
        from akten.kalenderabo import signals as kalender_signals  # noqa: PLC0415
        from akten.mail import signals as mail_signals  # noqa: PLC0415
        from akten.models import Dokument, Kanzleieinstellung, User  # noqa: PLC0415

        def file_goes_too(sender: type, instance: Dokument, **kwargs: object) -> None:
            delete_file(dokument=instance)

        post_delete.connect(file_goes_too, sender=Dokument, weak=False, dispatch_uid="akten.dokument_file")
        mail_signals.connect()  # a new Hinweis that may be mailed: its e-mail after the commit
        kalender_signals.connect()  # a deactivated person's calendar address is cleared
        # sessions that end (idle, absolute, „Überall abmelden“) and their websockets with them
        user_logged_in.connect(sitzungen.beim_anmelden, dispatch_uid="akten.sitzung_anmelden")
        user_logged_out.connect(sitzungen.beim_abmelden, dispatch_uid="akten.sitzung_abmelden")
        post_save.connect(sitzungen.beim_speichern_benutzer, sender=User,
                          dispatch_uid="akten.sitzung_benutzer")
        post_save.connect(sitzungen.vergessen, sender=Kanzleieinstellung,
                          dispatch_uid="akten.sitzung_grenzen")
