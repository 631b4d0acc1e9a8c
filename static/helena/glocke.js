// The bell and the Entwürfe badge in the navigation (/ws/benachrichtigungen/,
// helena/realtime/notifications.py): the unread Hinweise and the drafts waiting for this user, on every
// page and without a reload, and a short notice when a new Hinweis arrives, unless the user switched
// those off on /konto/ (data-kurzmeldungen="aus"). A draft approved, rejected or proposed on this
// page asks the socket for the new count at once; elsewhere (another tab, a colleague, a background
// run) the socket's next reading brings it. Reconnects with backoff.
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
    if (event.code === 4403) return;  // logged out: nothing to wait for
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
