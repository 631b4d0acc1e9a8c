// The bell in the navigation (/ws/benachrichtigungen/, helena/benachrichtigungen.py): the unread
// count on every page, and a short notice when a new Hinweis arrives, unless the user switched
// those off on /konto/ (data-kurzmeldungen="aus"). Reconnects with backoff.
const link = document.querySelector("[data-glocke]");
const notices = document.getElementById("glocke-meldungen");
const popups = notices?.dataset.kurzmeldungen !== "aus";

function setCount(count) {
  if (!link) return;
  let badge = link.querySelector(".badge--count");
  if (!count) {
    if (badge) badge.remove();
    return;
  }
  if (!badge) {
    badge = document.createElement("span");
    badge.className = "badge badge--count";
    link.append(" ", badge);
  }
  badge.textContent = String(count);
  badge.setAttribute("aria-label", `${count} ungelesen`);
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
  const socket = new WebSocket(`${scheme}//${window.location.host}/ws/benachrichtigungen/`);
  socket.addEventListener("message", (message) => {
    const frame = JSON.parse(message.data);
    if (frame.type === "unread") setCount(frame.count);
    if (frame.type === "alert") notice(frame.alert);
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 4403) return;  // logged out: nothing to wait for
    setTimeout(() => connect(Math.min(delay * 2, 30000)), delay);
  });
}

if (link) connect();
