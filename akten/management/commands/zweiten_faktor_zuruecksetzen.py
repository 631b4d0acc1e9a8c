"""`manage.py zweiten_faktor_zuruecksetzen USERNAME`: the Verwaltung's reset for a lost phone, for when
nobody can reach the Verwaltung any more (the only administrator lost theirs and their codes)."""

from django.core.management.base import BaseCommand, CommandError

from akten.accounts.zweitfaktor.services import zuruecksetzen
from akten.models import User


class Command(BaseCommand):
    help = ("Setzt den zweiten Faktor des Benutzers zurück (App und Wiederherstellungscodes gelten nicht "
            "mehr); wessen Rolle ihn verlangt, richtet bei der nächsten Anmeldung einen neuen ein.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")

    def handle(self, *args, username: str, **options) -> None:
        try:
            user = User.objects.get(username=username)
        except User.DoesNotExist:
            raise CommandError(f"Benutzer „{username}“ gibt es nicht.") from None
        if zuruecksetzen(user=user):
            self.stdout.write(f"Zweiter Faktor von „{username}“ zurückgesetzt. Bei der nächsten Anmeldung "
                              "richtet er einen neuen ein, wenn seine Rolle ihn verlangt.")
        else:
            self.stdout.write(f"„{username}“ hatte keinen zweiten Faktor; nichts geändert.")
