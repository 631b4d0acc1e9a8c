// The bell and the Entwürfe badge in the navigation (/ws/benachrichtigungen/,
// helena/realtime/notifications.py): the unread Hinweise and the drafts waiting for this user, on every
// page and without a reload, and a short notice when a new Hinweis arrives, unless the user switched
// those off on /konto/ (data-kurzmeldungen="aus"). A draft approved, rejected or proposed on this
// page asks the socket for the new count at once; elsewhere (another tab, a colleague, a background
// run) the socket's next reading brings it. Reconnects with backoff, but not after the login ended
// (4401: idle, absolute limit, logout elsewhere) or was refused (4403): then a lasting notice with the
// way back to the login page (not a redirect: whatever the user is typing stays on the page). A close
// with 4503 (the database away) is retried like a dropped connection.
const link = document.querySelector("[data-glocke]");
const entwuerfe = document.querySelector("[data-entwuerfe]");
const notices = document.getElementById("glocke-meldungen");
const popups = notices?.dataset.kurzmeldungen !== "aus";
let socket = null;

function setCount(target, count, label) {
  if (!target) return;
  let badge = target.querySelector(".badge--count");
  if (!count) {
    if (badge) badge.remove();
    return;
  }
  if (!badge) {
    badge = document.createElement("span");
    badge.className = "badge badge--count";
    target.append(" ", badge);
  }
  badge.textContent = String(count);
  badge.setAttribute("aria-label", `${count} ${label}`);
}

function notice(alert) {
  if (!notices || !popups) return;
  const item = document.createElement("p");
  item.className = `glocke-meldung glocke-meldung--${alert.severity}`;
  item.textContent = alert.message;
  notices.append(item);
  setTimeout(() => item.remove(), 15000);
}

const CLOSE_SITZUNG_BEENDET = 4401;
const CLOSE_FORBIDDEN = 4403;

function abgemeldet() {
  if (document.querySelector(".glocke-meldung--abgemeldet")) return;
  const item = document.createElement("p");
  item.className = "glocke-meldung glocke-meldung--warning glocke-meldung--abgemeldet";
  item.append("Du bist abgemeldet. ");
  const anmelden = document.createElement("a");
  anmelden.href = `/konto/anmelden/?next=${encodeURIComponent(window.location.pathname + window.location.search)}`;
  anmelden.textContent = "Bitte melde dich neu an.";
  item.append(anmelden);
  if (notices) notices.append(item);
  if (link) link.title = "Du bist abgemeldet.";
}

function connect(delay = 1000) {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${window.location.host}/ws/benachrichtigungen/`);
  socket.addEventListener("message", (message) => {
    const frame = JSON.parse(message.data);
    if (frame.type === "unread") setCount(link, frame.count, "ungelesen");
    if (frame.type === "alert") notice(frame.alert);
    if (frame.type === "drafts_pending") setCount(entwuerfe, frame.count, "warten auf deine Freigabe");
  });
  socket.addEventListener("close", (event) => {
    socket = null;
    if (event.code === CLOSE_SITZUNG_BEENDET) {  // the login ended: reconnecting would not help
      abgemeldet();
      return;
    }
    if (event.code === CLOSE_FORBIDDEN) return;  // logged out: nothing to wait for
    setTimeout(() => connect(Math.min(delay * 2, 30000)), delay);
  });
}

function refresh() {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "refresh" }));
}

if (link) {
  connect();
  // drafts.js after approve / edit / reject, chat.js when a card arrives
  document.addEventListener("helena:draft-updated", refresh);
  document.addEventListener("helena:draft-created", refresh);
}
