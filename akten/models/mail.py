"""An e-mail that told a person about their new Hinweise (akten/mail/): one row per mail, the
Hinweise it lists point at it (Alert.mail), so each Hinweis is mailed at most once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class HinweisMail(models.Model):
    """What was (or was not) sent, to whom, how often it was tried and why it failed: the admin's
    answer to „warum kam keine E-Mail?“ (read only there)."""

    class Status(models.TextChoices):
        WARTEND = "wartend", "wartet auf Versand"
        GESENDET = "gesendet", "verschickt"
        FEHLGESCHLAGEN = "fehlgeschlagen", "Versand gescheitert"
        UEBERSPRUNGEN = "uebersprungen", "nicht verschickt"

    empfaenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                   related_name="hinweis_mails", verbose_name="Empfänger/in")
    adresse = models.CharField("E-Mail-Adresse", max_length=254, blank=True)
    status = models.CharField("Status", max_length=20, choices=Status.choices, default=Status.WARTEND)
    grund = models.CharField("Grund (nicht verschickt)", max_length=300, blank=True)
    betreff = models.CharField("Betreff", max_length=300, blank=True)
    text = models.TextField("Inhalt der E-Mail", blank=True)
    versuche = models.PositiveIntegerField("Versuche", default=0)
    letzter_fehler = models.TextField("letzter Fehler", blank=True)
    angelegt_am = models.DateTimeField("angelegt am", auto_now_add=True)
    # When it was last handed to the worker (collected, found lost, „Erneut senden“): a lost task is
    # queued again an hour after this, not at every scan.
    eingereiht_am = models.DateTimeField("zum Versand gegeben am", default=timezone.now)
    letzter_versuch_am = models.DateTimeField("letzter Versuch am", null=True, blank=True)
    gesendet_am = models.DateTimeField("verschickt am", null=True, blank=True)

    class Meta:
        verbose_name = "Hinweis-E-Mail"
        verbose_name_plural = "Hinweis-E-Mails"
        ordering = ["-angelegt_am", "-pk"]
        indexes = [models.Index(fields=["status", "angelegt_am"], name="hinweismail_status")]

    def __str__(self) -> str:
        return self.betreff or f"E-Mail an {self.empfaenger}"
