"""Who works at the firm: users with their role, and their API tokens (services: akten/accounts/users.py)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.crypto import salted_hmac


class Role(models.TextChoices):
    ADMIN = "ADMIN", "Administrator"
    ANWALT = "ANWALT", "Rechtsanwalt/Rechtsanwältin"
    SACHBEARBEITER = "SACHBEARBEITER", "Sachbearbeitung"
    SEKRETARIAT = "SEKRETARIAT", "Sekretariat"
    PRAKTIKANT = "PRAKTIKANT", "Praktikant/in"


class User(AbstractUser):
    """A Kanzlei member; the role decides which tools and drafts are theirs."""

    role = models.CharField(
        "Rolle", max_length=20, choices=Role.choices, default=Role.SACHBEARBEITER
    )
    # Under the signature of a letter this person signs: entered, not guessed from the first name.
    berufsbezeichnung = models.CharField(
        "Berufsbezeichnung", max_length=100, blank=True,
        help_text="Steht unter der Unterschrift, z. B. „Rechtsanwältin“, „Rechtsanwalt, Fachanwalt für "
                  "Arbeitsrecht“. Leer: die Zeile des Briefkopfs.")
    # „Überall abmelden“ (akten/accounts/sitzungen.py): part of the session's hash, so a new value ends
    # every session made before it at its next request, without looking for them.
    sitzungen_beendet_am = models.DateTimeField(
        "überall abgemeldet am", null=True, blank=True, editable=False,
        help_text="Zuletzt „Überall abmelden“: jede ältere Sitzung dieses Zugangs ist beendet.")
    # The second factor (akten/accounts/zweitfaktor/): a visible exemption, set by seed_demo for the demo
    # users, never implied for anyone else.
    ohne_zweiten_faktor = models.BooleanField(
        "ohne zweiten Faktor (nur für Demo-Zugänge)", default=False,
        help_text="Achtung, nur für Demo- und Testzugänge: dieser Benutzer meldet sich mit dem Passwort "
                  "allein an, auch wenn seine Rolle einen zweiten Faktor verlangt (auch in der Verwaltung). "
                  "Wer das Passwort kennt, ist dann drin. Hat er selbst einen zweiten Faktor eingerichtet, "
                  "wird dieser trotzdem abgefragt. Für echte Mitarbeitende nie setzen.")

    class Meta:
        verbose_name = "Benutzer"
        verbose_name_plural = "Benutzer"

    def _get_session_auth_hash(self, secret: str | None = None) -> str:
        """Django's hash of the password, and after „Überall abmelden“ of that moment too (a user who
        never used it keeps Django's hash: an update ends nobody's session)."""
        if self.sitzungen_beendet_am is None:
            return super()._get_session_auth_hash(secret=secret)
        value = f"{self.password}|{self.sitzungen_beendet_am.isoformat()}"
        return salted_hmac("akten.models.accounts.User.sitzungen_beendet_am", value, secret=secret,
                           algorithm="sha256").hexdigest()

    @property
    def sees_all_akten(self) -> bool:
        """ADMIN (and Django superusers, who administer the system) see every Akte."""
        return self.role == Role.ADMIN or self.is_superuser


class ApiToken(models.Model):
    """A bearer token for the JSON API and websockets; only its SHA-256 is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens",
                             verbose_name="Benutzer")
    name = models.CharField("Bezeichnung", max_length=100, blank=True)
    prefix = models.CharField("Anfang", max_length=12, editable=False)
    key_hash = models.CharField("Prüfwert (SHA-256)", max_length=64, unique=True, editable=False)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    zuletzt_benutzt = models.DateTimeField("zuletzt benutzt", null=True, blank=True)
    widerrufen = models.BooleanField("widerrufen", default=False)
    gueltig_bis = models.DateTimeField(
        "gültig bis", null=True, blank=True,
        help_text="Danach wird der Token abgewiesen. Leer: gültig, bis er widerrufen wird.")
    # A token made through the API with another token: revoking that one revokes this one too, and it
    # cannot outlive it (akten/accounts/konto/services.py) — a lost token must not leave heirs behind.
    erzeugt_von = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="abgeleitete",
        verbose_name="angelegt mit Token", editable=False)

    class Meta:
        verbose_name = "API-Token"
        verbose_name_plural = "API-Tokens"

    def __str__(self) -> str:
        return f"{self.user} {self.prefix}…"

    @property
    def status(self) -> str:
        """aktiv, abgelaufen or widerrufen: what the account page and GET /me/tokens show."""
        if self.widerrufen:
            return "widerrufen"
        if self.gueltig_bis is not None and self.gueltig_bis <= timezone.now():
            return "abgelaufen"
        return "aktiv"


class KalenderAbo(models.Model):
    """A user's Fristen, Termine and Wiedervorlagen in their own calendar program (akten/kalenderabo/).

    Calendar programs cannot log in, so the feed's address carries a secret; only its SHA-256 is kept
    (like an ApiToken's), so the address is shown once. A new address replaces the old one (which
    stops working at once); revoking clears it. The row stays, with the person's choice of what the
    feed shows, so a new address keeps it.
    """

    class Umfang(models.TextChoices):
        MEINE = "meine", "Meine Einträge: verantwortlich oder Anwalt/Anwältin bzw. Sachbearbeitung der Akte"
        ALLE = "alle", "Alle Einträge der Akten, die ich sehen darf"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="kalender_abo", verbose_name="Benutzer")
    key_hash = models.CharField("Prüfwert (SHA-256)", max_length=64, unique=True, null=True, blank=True,
                                editable=False)
    prefix = models.CharField("Anfang der Adresse", max_length=12, blank=True, editable=False)
    umfang = models.CharField(
        "Umfang", max_length=10, choices=Umfang.choices, default=Umfang.MEINE,
        help_text="Welche Einträge der Kalender zeigt – immer nur aus Akten, die die Person gerade sehen "
                  "darf.")
    angelegt_am = models.DateTimeField("Adresse angelegt am", null=True, blank=True)
    zuletzt_abgerufen = models.DateTimeField("zuletzt abgerufen am", null=True, blank=True)
    # An address made through the API with a token lives at most as long as that token and ends with it
    # (as a token made with a token, ApiToken.erzeugt_von): a lost token must not leave a feed behind.
    erzeugt_mit = models.ForeignKey(
        ApiToken, on_delete=models.CASCADE, null=True, blank=True, related_name="kalender_abos",
        verbose_name="angelegt mit Token", editable=False)

    class Meta:
        verbose_name = "Kalender-Abo"
        verbose_name_plural = "Kalender-Abos"

    def __str__(self) -> str:
        return f"Kalender von {self.user}"

    @property
    def aktiv(self) -> bool:
        """Whether an address exists that a calendar program can read now (made with a token: while
        that token is valid)."""
        if not self.key_hash:
            return False
        return self.erzeugt_mit_id is None or self.erzeugt_mit.status == "aktiv"
