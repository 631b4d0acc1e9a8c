"""The second factor's pages (thin): the second step after the password, setting the app up (QR code as
inline SVG and the key as text, confirmed with a current code), the recovery codes shown once, new
codes and removal from /konto/.

The recovery codes travel like a new API token (akten/accounts/konto/views.py): the POST keeps them in
the session, the next GET of /konto/zweiter-faktor/codes/ takes them out again; never cached.
"""

from __future__ import annotations

from typing import Any

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_otp import login as otp_login
from django_otp.plugins.otp_static.models import StaticDevice

from akten.accounts.zweitfaktor import regeln, services
from akten.accounts.zweitfaktor.forms import CodeForm, EinrichtenForm, EntfernenForm
from config.errors import DomainError

CODES = "zweitfaktor_codes"  # session key: the recovery codes in clear until the page has shown them
WEITER = "zweitfaktor_weiter"  # where to go once they are shown
OFFEN = "zweitfaktor_offen"  # session key: the pk of the unconfirmed device this session shows


def _weiter(request: HttpRequest, wert: str | None) -> str:
    """`next` if it stays on this site, else the start page."""
    if wert and url_has_allowed_host_and_scheme(wert, allowed_hosts={request.get_host()},
                                                require_https=request.is_secure()):
        return wert
    return "/"


def _fehler(form: Any, exc: DomainError) -> None:
    field = exc.extra.get("field")
    form.add_error(field if field in form.fields else None, exc.message)


def _angemeldet(request: HttpRequest, device: Any) -> None:
    """The session has given its second factor; a new session key, as after the password."""
    otp_login(request, device)
    request.session.cycle_key()


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def bestaetigen(request: HttpRequest) -> HttpResponse:
    """The second step after the password: the app's code or a recovery code."""
    weiter = _weiter(request, request.POST.get("next") or request.GET.get("next"))
    if regeln.offen_fuer(request) != regeln.BESTAETIGEN:
        return redirect(weiter)
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            device = services.anmeldung_bestaetigen(user=request.user, code=form.cleaned_data["code"])
        except DomainError as exc:
            _fehler(form, exc)
        else:
            _angemeldet(request, device)
            if isinstance(device, StaticDevice):
                uebrig = regeln.codes_uebrig(user=request.user)
                messages.warning(request, "Du hast einen Wiederherstellungscode benutzt; es bleiben noch "
                                          f"{uebrig}. Hast du dein Handy verloren? Dann entferne den zweiten "
                                          "Faktor auf deiner Kontoseite und richte ihn neu ein.")
            return redirect(weiter)
    return render(request, "akten/zweitfaktor/bestaetigen.html",
                  {"form": form, "next": weiter, "ohne_navigation": True}, status=422 if form.errors else 200)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def einrichten(request: HttpRequest) -> HttpResponse:
    """Scan the QR code (or type the key), confirm with a current code; then the recovery codes."""
    weiter = _weiter(request, request.POST.get("next") or request.GET.get("next"))
    offen = regeln.offen_fuer(request)
    if offen == regeln.BESTAETIGEN:
        return redirect(reverse("zweitfaktor:bestaetigen") + "?" + request.GET.urlencode())
    try:
        device = services.einrichtung_beginnen(user=request.user, offen_pk=request.session.get(OFFEN))
    except DomainError as exc:
        messages.info(request, exc.message)
        return redirect(reverse("konto:seite") + "#zweiter-faktor")
    request.session[OFFEN] = device.pk
    form = EinrichtenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            device, codes = services.einrichtung_abschliessen(user=request.user, offen_pk=device.pk,
                                                              code=form.cleaned_data["code"])
        except DomainError as exc:
            _fehler(form, exc)
        else:
            request.session.pop(OFFEN, None)
            _angemeldet(request, device)
            request.session[CODES] = codes
            request.session[WEITER] = weiter if weiter != "/" else reverse("konto:seite") + "#zweiter-faktor"
            return redirect("zweitfaktor:codes")
    qr = segno.make(device.config_url, error="m")
    return render(request, "akten/zweitfaktor/einrichten.html", {
        "form": form, "next": weiter, "qr_svg": qr.svg_inline(scale=5, title="QR-Code für deine App"),
        "geheimnis": services.geheimnis(device), "pflicht": offen == regeln.EINRICHTEN,
        "ohne_navigation": offen == regeln.EINRICHTEN}, status=422 if form.errors else 200)


@never_cache
@login_required
@require_GET
def codes(request: HttpRequest) -> HttpResponse:
    """The recovery codes, once: a reload shows them no more."""
    neu = request.session.pop(CODES, None)
    weiter = request.session.pop(WEITER, None) or reverse("konto:seite") + "#zweiter-faktor"
    if not neu:
        messages.info(request, "Deine Wiederherstellungscodes werden nur einmal angezeigt. Brauchst du neue, "
                               "lege sie unter „Zweiter Faktor“ an.")
        return redirect(reverse("konto:seite") + "#zweiter-faktor")
    return render(request, "akten/zweitfaktor/codes.html",
                  {"codes": neu, "weiter": weiter, "als_text": "\r\n".join(neu) + "\r\n"})


@never_cache
@login_required
@require_POST
def neue_codes_anlegen(request: HttpRequest) -> HttpResponse:
    """New recovery codes (the earlier ones stop working); only with a second factor, given this session
    (the middleware asks for it first)."""
    if not regeln.hat_zweiten_faktor(request.user):
        messages.error(request, "Du hast keinen zweiten Faktor eingerichtet.")
        return redirect(reverse("konto:seite") + "#zweiter-faktor")
    request.session[CODES] = services.neue_codes(user=request.user)
    return redirect("zweitfaktor:codes")


@never_cache
@login_required
@require_POST
def entfernen_seite(request: HttpRequest) -> HttpResponse:
    form = EntfernenForm(request.POST)
    if form.is_valid():
        try:
            services.entfernen(user=request.user, code_oder_passwort=form.cleaned_data["code_oder_passwort"])
        except DomainError as exc:
            messages.error(request, exc.message)
        else:
            pflicht = regeln.pflicht_fuer(request.user)
            nachsatz = " Deine Rolle verlangt einen zweiten Faktor: richte jetzt einen neuen ein."
            messages.success(request, "Dein zweiter Faktor ist entfernt, die Wiederherstellungscodes gelten "
                             "nicht mehr." + (nachsatz if pflicht else ""))
    else:
        messages.error(request, "Bitte gib einen aktuellen Code aus deiner App oder dein Passwort ein.")
    return redirect(reverse("konto:seite") + "#zweiter-faktor")
