// Preview cards of Helena's drafts: approve, edit, reject without a page reload.
//
// Cards arrive in the page from the server (page render or a websocket `draft_created` event),
// so everything works through event delegation on `document`. Every answer of the server is a
// complete card (200, 403, 404, 409, 422 alike), which simply replaces the old one.
// Without JavaScript the same forms post normally and the server redirects back.

const CARD = ".draft-card";
const BUSY_TEXT = "Wird gesendet …";

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  const field = document.querySelector("input[name=csrfmiddlewaretoken]");
  return field ? field.value : "";
}

function setBusy(card, busy, submitter) {
  if (busy) card.setAttribute("aria-busy", "true");
  else card.removeAttribute("aria-busy");
  card.dataset.busy = busy ? "1" : "";
  for (const control of card.querySelectorAll("button, input, select, textarea")) {
    if (busy) {
      control.dataset.wasDisabled = control.disabled ? "1" : "";
      control.disabled = true;
    } else if (!control.dataset.wasDisabled) {
      control.disabled = false;
    }
  }
  if (busy && submitter) {
    submitter.dataset.label = submitter.textContent;
    submitter.textContent = BUSY_TEXT;
  }
  if (!busy) {
    for (const button of card.querySelectorAll("button[data-label]")) {
      button.textContent = button.dataset.label;
      delete button.dataset.label;
    }
  }
  for (const link of card.querySelectorAll("a[data-draft-edit], a[data-draft-cancel]")) {
    link.toggleAttribute("aria-disabled", busy);
  }
}

function showProblem(card, text) {
  let box = card.querySelector(".draft-card__message");
  if (!box) {
    box = document.createElement("p");
    box.className = "draft-card__message";
    box.setAttribute("role", "alert");
    box.tabIndex = -1;
    card.querySelector(".draft-card__header")?.after(box);
  }
  box.textContent = text;
  box.focus();
}

function focusCard(card) {
  const target =
    card.querySelector("[data-focus]") ||
    card.querySelector("[aria-invalid=true]") ||
    card.querySelector(".draft-card__title") ||
    card;
  if (!target.hasAttribute("tabindex") && !/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(target.tagName)) {
    target.tabIndex = -1;
  }
  target.focus({ preventScroll: false });
}

function replaceCard(card, html) {
  const template = document.createElement("template");
  template.innerHTML = html.trim();
  const fresh = template.content.querySelector(CARD);
  if (!fresh) return null;
  card.replaceWith(fresh);
  focusCard(fresh);
  fresh.dispatchEvent(new CustomEvent("helena:draft-updated", { bubbles: true, detail: { status: fresh.dataset.status } }));
  return fresh;
}

async function exchange(card, url, options, submitter) {
  if (card.dataset.busy) return; // no double submits
  setBusy(card, true, submitter);
  try {
    const response = await fetch(url, {
      credentials: "same-origin",
      ...options,
      headers: { "X-Requested-With": "fetch", "X-CSRFToken": csrfToken(), ...(options.headers || {}) },
    });
    if (response.redirected && /\/konto\/anmelden\//.test(response.url)) {
      window.location.assign(response.url); // the session ended: log in again
      return;
    }
    const html = await response.text();
    if (!replaceCard(card, html)) {
      setBusy(card, false);
      showProblem(card, response.status === 403
        ? "Die Anfrage wurde abgelehnt. Bitte lade die Seite neu und versuche es noch einmal."
        : "Das hat nicht geklappt. Bitte lade die Seite neu und versuche es noch einmal.");
    }
  } catch (error) {
    setBusy(card, false);
    showProblem(card, "Keine Verbindung zum Server. Bitte prüfe die Verbindung und versuche es noch einmal.");
  }
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.matches("form[data-draft-action]")) return;
  const card = form.closest(CARD);
  if (!card) return;
  event.preventDefault();
  if (card.dataset.busy) return;
  // FormData must be read before the controls are disabled (disabled fields are not sent).
  const body = new FormData(form, event.submitter || undefined);
  // Cards that arrived over the websocket were rendered without a request and carry no CSRF
  // field; a multipart body without any part is also refused by the server.
  if (!body.has("csrfmiddlewaretoken")) body.append("csrfmiddlewaretoken", csrfToken());
  exchange(card, form.action, { method: "POST", body }, event.submitter);
});

document.addEventListener("click", (event) => {
  // The record link of an approved card may point into this very page, which was rendered before
  // the record existed: reload so the new Frist/Dokument is there to jump to.
  const record = event.target instanceof Element ? event.target.closest("a.draft-card__record") : null;
  if (record && record.pathname === window.location.pathname && record.hash &&
      !document.getElementById(decodeURIComponent(record.hash.slice(1)))) {
    event.preventDefault();
    window.location.hash = record.hash;
    window.location.reload();
    return;
  }
  const link = event.target instanceof Element ? event.target.closest("a[data-draft-edit], a[data-draft-cancel]") : null;
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const card = link.closest(CARD);
  if (!card) return;
  event.preventDefault();
  const url = link.hasAttribute("data-draft-cancel") ? link.dataset.cardUrl || card.dataset.cardUrl : link.href;
  exchange(card, url, { method: "GET" });
});

// A link to "#dokument-12" should show the document, which sits in a closed <details>. Not an action's
// form (a Frist's "Erledigt …"/"Wieder öffnen"): after an action the page returns to "#frist-7", and the
// next action's form must not open by itself.
const NICHT_AUFKLAPPEN = ".frist-aktion";

function openTarget() {
  if (!window.location.hash) return;
  const target = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
  const details = target && (target.matches("details") ? target : target.querySelector("details"));
  if (details && !details.matches(NICHT_AUFKLAPPEN)) details.open = true;
}
window.addEventListener("hashchange", openTarget);
openTarget();
