"""`manage.py create_api_token USERNAME`: print a new bearer token (one line)."""

from django.core.management.base import BaseCommand, CommandError

from akten.accounts.users import create_api_token
from akten.models import User


class Command(BaseCommand):
    help = "Erzeugt ein neues API-Token für den Benutzer und gibt es einmalig aus."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="", help="Bezeichnung des Tokens")

    def handle(self, *args, username: str, name: str, **options) -> None:
        try:
            user = User.objects.get(username=username)
        except User.DoesNotExist:
            raise CommandError(f"Benutzer „{username}“ gibt es nicht.") from None
        if not user.is_active:
            raise CommandError(f"Benutzer „{username}“ ist deaktiviert.")
        self.stdout.write(create_api_token(user=user, name=name))
