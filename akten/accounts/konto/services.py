"""Writes of the user's own account: a new API token, a revoked one, the Hinweis settings (what is
shown, what comes by e-mail).

Every refusal is a DomainError with a German sentence (422), so the page shows it beside the field
and the API answers it as JSON; another user's token is NotFound (404) and stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time

from django.db import transaction
from django.utils import timezone

from akten.accounts.konto.selectors import get_token
from akten.accounts.sitzungen import gruppe_token, sockets_schliessen
from akten.accounts.users import new_api_token
from akten.mail.arten import OPTIONALE_MAIL_ARTEN
from akten.models import Alert, ApiToken, HinweisEinstellung, User
from config.errors import DomainError

NAME_MAX = 100


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    raw: str  # in clear: shown to its owner once, never stored


def end_of_day(day: date) -> datetime:
    """A token valid „bis“ a day is valid through that whole day, in the Kanzlei's time zone."""
    return timezone.make_aware(datetime.combine(day, time.max))


def issue_token(*, user: User, name: str, gueltig_bis: date | None = None,
                heute: date | None = None, erzeugt_von: ApiToken | None = None) -> NewToken:
    """A new token for the user; a name says later what it is for, the optional last day limits
    what a token that got lost can do. Made with another token (`erzeugt_von`, the API), it lives
    at most as long as that one and is revoked with it."""
    name = " ".join((name or "").split())
    if not name:
        raise DomainError("Gib dem Token einen Namen, damit du später weißt, wofür er ist.", field="name")
    if len(name) > NAME_MAX:
        raise DomainError(f"Der Name darf höchstens {NAME_MAX} Zeichen lang sein.", field="name")
    heute = heute or timezone.localdate()
    if gueltig_bis is not None and gueltig_bis < heute:
        raise DomainError("Das Ablaufdatum liegt in der Vergangenheit. Wähle heute oder einen späteren Tag.",
                          field="gueltig_bis")
    ende = None if gueltig_bis is None else end_of_day(gueltig_bis)
    if erzeugt_von is not None and erzeugt_von.gueltig_bis is not None:
        ende = erzeugt_von.gueltig_bis if ende is None else min(ende, erzeugt_von.gueltig_bis)
    token, raw = new_api_token(user=user, name=name, gueltig_bis=ende, erzeugt_von=erzeugt_von)
    return NewToken(token=token, raw=raw)


@transaction.atomic
def revoke_token(*, user: User, token_id: int | str) -> ApiToken:
    """Revoke one of the user's own tokens at once (idempotent), and every token made with it; the
    rows stay, so the list still says when each was made and last used. Websockets opened with any of
    them close after the commit."""
    token = get_token(user=user, token_id=token_id)
    heirs = [token.pk]
    while heirs:
        ApiToken.objects.filter(pk__in=heirs).update(widerrufen=True)
        for pk in heirs:
            transaction.on_commit(lambda pk=pk: sockets_schliessen(gruppe_token(pk)))
        open_heirs = ApiToken.objects.filter(erzeugt_von__in=heirs, widerrufen=False)
        heirs = list(open_heirs.values_list("pk", flat=True))
    token.widerrufen = True
    return token


# The kinds a user may switch off, the Fristen first and Hinweise written by people (Art "") last.
OPTIONAL_ARTEN: tuple[str, ...] = tuple(
    sorted((art for art in Alert.Art.values if art not in HinweisEinstellung.PFLICHT_ARTEN),
           key=lambda art: art == Alert.Art.MANUELL))


def save_hinweis_settings(*, user: User, sichtbar: Iterable[str], kurzmeldungen: bool) -> HinweisEinstellung:
    """Keep which kinds of Hinweise the user wants to see; the kinds that must always show cannot be
    switched off, whatever is sent."""
    wanted = set(sichtbar)
    unknown = wanted - set(Alert.Art.values)
    if unknown:
        raise DomainError("Unbekannte Art von Hinweis: " + ", ".join(sorted(unknown)) + ".", field="sichtbar")
    hidden = [art for art in OPTIONAL_ARTEN if art not in wanted]
    settings, _ = HinweisEinstellung.objects.update_or_create(
        user=user, defaults={"ausgeblendet": hidden, "kurzmeldungen": kurzmeldungen})
    return settings


def save_mail_settings(*, user: User, per_mail: Iterable[str]) -> HinweisEinstellung:
    """Keep which optional kinds of Hinweise come to the user by e-mail. Critical ones (Notfrist today
    or overdue, nobody responsible, Vier-Augen) cannot be switched off: asking for it is refused."""
    wanted = set(per_mail)
    unknown = wanted - set(OPTIONALE_MAIL_ARTEN)
    if unknown:
        raise DomainError("Diese Art von Hinweis lässt sich per E-Mail nicht an- oder abbestellen: "
                          + ", ".join(sorted(unknown)) + ".", field="per_mail")
    aus = [art for art in OPTIONALE_MAIL_ARTEN if art not in wanted]
    settings, _ = HinweisEinstellung.objects.update_or_create(user=user, defaults={"mail_aus": aus})
    return settings
