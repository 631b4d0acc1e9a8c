"""The account page /konto/ (thin): the user's data, their second factor (its pages are
akten/accounts/zweitfaktor/), their API tokens, their Hinweis settings (seen, and by e-mail), their
Kalender-Abo (akten/kalenderabo/), and the password change through Django's own views.

A new token and a new calendar address are shown in clear exactly once: the POST keeps it in the
session, the next GET of the page takes it out again (post/redirect/get, so a reload neither shows it
again nor makes a second one); the page is never cached.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, PasswordChangeDoneView, PasswordChangeView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from akten.accounts import sitzungen
from akten.accounts.konto.forms import (
    PFLICHT_LABELS,
    AnmeldeForm,
    HinweisForm,
    KalenderForm,
    KontoPasswordChangeForm,
    MailForm,
    TokenForm,
)
from akten.accounts.konto.selectors import hinweis_settings_for, tokens_for
from akten.accounts.konto.services import (
    issue_token,
    revoke_token,
    save_hinweis_settings,
    save_mail_settings,
)
from akten.accounts.users import role_of
from akten.accounts.zweitfaktor import regeln as zweitfaktor
from akten.accounts.zweitfaktor.forms import EntfernenForm
from akten.kalenderabo import selectors as kalender_selectors
from akten.kalenderabo import services as kalender_services
from akten.kalenderabo.views import basis_url, feed_url, unverschluesselt, webcal_url
from akten.mail.arten import KRITISCHE_LABELS
from akten.mail.services import absender_fehler, mail_eingerichtet
from akten.selectors import akten_for
from config.errors import DomainError

NEW_TOKEN = "konto_neuer_token"  # session key: the token in clear until the page has shown it once
NEUE_ADRESSE = "konto_neue_kalender_adresse"  # the same for a new calendar address


def _page(request: HttpRequest, *, token_form: TokenForm | None = None,
          hinweis_form: HinweisForm | None = None, mail_form: MailForm | None = None) -> HttpResponse:
    user = request.user
    einstellung = hinweis_settings_for(user=user)
    context: dict[str, Any] = {
        "rolle": user.get_role_display(),
        "sieht_alle_akten": role_of(user) == "ADMIN",
        "akten_anzahl": akten_for(user=user).count(),
        "neuer_token": request.session.pop(NEW_TOKEN, None) if request.method == "GET" else None,
        "tokens": tokens_for(user=user)[:100],
        "token_form": token_form or TokenForm(),
        "hinweis_form": hinweis_form or HinweisForm.for_settings(einstellung),
        "pflicht_arten": PFLICHT_LABELS,
        "mail_form": mail_form or MailForm.for_settings(einstellung),
        "mail_eingerichtet": mail_eingerichtet(),
        "mail_absender_fehler": absender_fehler() if role_of(user) == "ADMIN" else "",  # theirs to fix
        "kritische_mail_arten": KRITISCHE_LABELS,
        "zweitfaktor": zweitfaktor.stand(user=user), "entfernen_form": EntfernenForm(),
        **_kalender(request),
        **_sitzung_texte(),
    }
    return render(request, "akten/konto.html", context)


def _dauer(sekunden: int) -> str:
    stunden, minuten = divmod(sekunden // 60, 60)
    if minuten:
        return f"{sekunden // 60} Minuten"
    return "eine Stunde" if stunden == 1 else f"{stunden} Stunden"


def _sitzung_texte() -> dict[str, str]:
    grenzen = sitzungen.grenzen()
    return {"leerlauf_text": _dauer(grenzen.leerlauf_sekunden),
            "hoechstdauer_text": _dauer(grenzen.hoechstdauer_sekunden)}


class Anmelden(LoginView):
    """/konto/anmelden/: Django's login with the page's words; says once why the last session ended."""

    authentication_form = AnmeldeForm
    redirect_authenticated_user = True

    def get_redirect_url(self) -> str:
        """`next` unless it is the login page itself (a logged-in user there would loop: Django raises a
        500); then LOGIN_REDIRECT_URL."""
        weiter = super().get_redirect_url()
        return "" if weiter and urlsplit(weiter).path == self.request.path else weiter

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        if self.request.method == "GET":
            context["sitzung_hinweis"] = sitzungen.hinweis_lesen(self.request)
        return context


@never_cache
@login_required
@require_POST
def ueberall_abmelden(request: HttpRequest) -> HttpResponse:
    """End every session of mine (this one too) and close my open websockets."""
    sitzungen.ueberall_abmelden(user=request.user, request=request)
    return redirect("login")


def _kalender(request: HttpRequest) -> dict[str, Any]:
    abo = kalender_selectors.abo_for(user=request.user)
    neu = request.session.pop(NEUE_ADRESSE, None) if request.method == "GET" else None
    return {"kalender_abo": abo if abo is not None and abo.aktiv else None,
            "kalender_form": KalenderForm(initial={"umfang": abo.umfang} if abo else None),
            "kalender_neu": {"url": neu, "webcal": webcal_url(neu)} if neu else None,
            "kalender_kurzrubrum": kalender_selectors.kurzrubrum_erlaubt(),
            # the address would go over the network unencrypted: say so before anyone subscribes it
            "kalender_unverschluesselt": unverschluesselt(basis_url(request))}


@never_cache
@login_required
@require_GET
def konto(request: HttpRequest) -> HttpResponse:
    """Who I am, my tokens, my Hinweis settings."""
    return _page(request)


@never_cache
@login_required
@require_POST
def token_anlegen(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    if form.is_valid():
        try:
            new = issue_token(user=request.user, name=form.cleaned_data["name"],
                              gueltig_bis=form.cleaned_data["gueltig_bis"])
        except DomainError as exc:
            field = exc.extra.get("field")
            form.add_error(field if field in form.fields else None, exc.message)
        else:
            request.session[NEW_TOKEN] = {"id": new.token.pk, "name": new.token.name, "raw": new.raw}
            return redirect(reverse("konto:seite") + "#neuer-token")
    return _page(request, token_form=form)


@never_cache
@login_required
@require_POST
def token_widerrufen(request: HttpRequest, token_id: int) -> HttpResponse:
    """Revoke one of my tokens; another user's is the 404 page (NotFound) and stays valid."""
    token = revoke_token(user=request.user, token_id=token_id)
    messages.success(request, f"Der Token „{token.name or token.prefix}“ ist widerrufen. Programme, die ihn "
                              "benutzen, werden ab sofort abgewiesen.")
    return redirect(reverse("konto:seite") + f"#token-{token.pk}")


@never_cache
@login_required
@require_POST
def hinweise_speichern(request: HttpRequest) -> HttpResponse:
    form = HinweisForm(request.POST)
    if not form.is_valid():
        return _page(request, hinweis_form=form)
    save_hinweis_settings(user=request.user, sichtbar=form.cleaned_data["sichtbar"],
                          kurzmeldungen=form.cleaned_data["kurzmeldungen"])
    messages.success(request, "Deine Einstellungen für Hinweise sind gespeichert.")
    return redirect(reverse("konto:seite") + "#hinweise")


@never_cache
@login_required
@require_POST
def mails_speichern(request: HttpRequest) -> HttpResponse:
    """My own e-mail settings only: the form names no user, the session's user is the one changed."""
    form = MailForm(request.POST)
    if not form.is_valid():
        return _page(request, mail_form=form)
    save_mail_settings(user=request.user, per_mail=form.cleaned_data["per_mail"])
    messages.success(request, "Deine Einstellungen für E-Mails sind gespeichert.")
    return redirect(reverse("konto:seite") + "#mail")


class PasswortAendern(PasswordChangeView):
    """Django's view: checks the old password and the validators, keeps this session logged in
    (update_session_auth_hash) and ends the others."""

    form_class = KontoPasswordChangeForm
    success_url = reverse_lazy("konto:passwort_fertig")

    def form_invalid(self, form: KontoPasswordChangeForm) -> HttpResponse:
        """The fifth wrong old password within 15 minutes ends this session (someone at an open
        browser guessing); the login page says why."""
        if form.zu_viele:
            logout(self.request)
            self.request.session[sitzungen.HINWEIS] = "passwort"
            return redirect("login")
        return super().form_invalid(form)


class PasswortGeaendert(PasswordChangeDoneView):
    pass


@never_cache
@login_required
@require_POST
def kalender_adresse(request: HttpRequest) -> HttpResponse:
    """A new secret address for my calendar (an earlier one stops working), shown once."""
    form = KalenderForm(request.POST)
    umfang = form.cleaned_data["umfang"] if form.is_valid() else None
    neu = kalender_services.adresse_erneuern(user=request.user, umfang=umfang)
    request.session[NEUE_ADRESSE] = feed_url(request, neu.raw)
    return redirect(reverse("konto:seite") + "#neue-kalender-adresse")


@never_cache
@login_required
@require_POST
def kalender_umfang(request: HttpRequest) -> HttpResponse:
    form = KalenderForm(request.POST)
    if form.is_valid():
        kalender_services.umfang_setzen(user=request.user, umfang=form.cleaned_data["umfang"])
        messages.success(request, "Gespeichert. Dein Kalender zeigt das ab seiner nächsten Aktualisierung.")
    return redirect(reverse("konto:seite") + "#kalender")


@never_cache
@login_required
@require_POST
def kalender_beenden(request: HttpRequest) -> HttpResponse:
    kalender_services.abo_widerrufen(user=request.user)
    messages.success(request, "Dein Kalender-Abo ist beendet: die Adresse liefert ab sofort nichts mehr. "
                              "Entferne den Kalender auch in deinem Kalenderprogramm.")
    return redirect(reverse("konto:seite") + "#kalender")
