// The search box in the header (GET /api/v1/suche, helena/quicksearch/): grouped hits while typing, driven
// by the keyboard as an ARIA combobox with a listbox popup. Strg+K (⌘K on a Mac) focuses it from
// anywhere, ↑/↓ choose a hit, Enter opens it, Escape closes the list. Enter without a choice submits
// the form: /suche/ opens an Aktenzeichen or a citation at once and lists everything else, which is
// also what happens without JavaScript.

const form = document.querySelector("[data-suchfeld]");
const input = form?.querySelector("input[name=q]");
const popup = form?.querySelector("[data-suchfeld-popup]");
const list = document.getElementById("suchfeld-liste");
const status = form?.querySelector("[data-suchfeld-status]");

const MIN_CHARS = 2;
const DEBOUNCE_MS = 120;
const MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

let options = [];
let active = -1;
let timer = 0;
let controller = null;
let shownFor = "";  // the query whose hits the list shows

function normalise(value) {
  return value.trim().split(/\s+/).join(" ");
}

function isOpen() {
  return !popup.hidden;
}

function open() {
  popup.hidden = false;
  input.setAttribute("aria-expanded", "true");
}

function close() {
  popup.hidden = true;
  input.setAttribute("aria-expanded", "false");
  setActive(-1);
}

function setActive(index) {
  if (options[active]) options[active].setAttribute("aria-selected", "false");
  active = index;
  const option = options[active];
  if (!option) {
    input.removeAttribute("aria-activedescendant");
    return;
  }
  option.setAttribute("aria-selected", "true");
  input.setAttribute("aria-activedescendant", option.id);
  option.scrollIntoView({ block: "nearest" });
}

function option(id, url, label, untertitel, auszug, stand) {
  const link = document.createElement("a");
  link.id = id;
  link.href = url;
  link.tabIndex = -1;
  link.className = "suchfeld__option";
  link.setAttribute("role", "option");
  link.setAttribute("aria-selected", "false");
  const title = document.createElement("span");
  title.className = "suchfeld__label";
  title.textContent = label;
  link.append(title);
  const lines = [[untertitel, "suchfeld__untertitel"], [auszug, "suchfeld__auszug"],
                 [stand && `Stand: ${stand}`, "suchfeld__stand"]];
  for (const [text, css] of lines) {
    if (!text) continue;
    const line = document.createElement("span");
    line.className = css;
    line.textContent = text;
    link.append(line);
  }
  return link;
}

function render(body) {
  list.replaceChildren();
  options = [];
  active = -1;
  let preselect = -1;
  for (const gruppe of body.gruppen) {
    const group = document.createElement("div");
    group.setAttribute("role", "group");
    group.className = "suchfeld__gruppe";
    const heading = document.createElement("div");
    heading.setAttribute("role", "presentation");
    heading.id = `suchfeld-g-${gruppe.art}`;
    heading.className = "suchfeld__gruppentitel";
    heading.textContent = gruppe.titel;
    group.setAttribute("aria-labelledby", heading.id);
    group.append(heading);
    for (const treffer of gruppe.treffer) {
      const item = option(`suchfeld-o-${options.length}`, treffer.url, treffer.label, treffer.untertitel,
                          treffer.auszug, treffer.stand);
      if (body.direkt && treffer.url === body.direkt && preselect < 0) preselect = options.length;
      options.push(item);
      group.append(item);
    }
    list.append(group);
  }
  const count = options.length;
  const all = option(`suchfeld-o-${count}`, `${form.action}?q=${encodeURIComponent(body.q)}`,
                     `Alle Treffer für „${body.q}“ anzeigen`, "", "");
  all.classList.add("suchfeld__option--alle");
  options.push(all);
  list.append(all);
  shownFor = body.q;
  status.textContent = [count
    ? `${count} Treffer in ${body.gruppen.length} Gruppe${body.gruppen.length === 1 ? "" : "n"}.`
    : `Nichts gefunden für „${body.q}“.`, ...(body.hinweise || [])].join(" ");
  open();
  if (preselect >= 0) setActive(preselect);
}

function problem(text) {
  list.replaceChildren();
  options = [];
  active = -1;
  shownFor = "";
  status.textContent = text;
  open();
}

async function search(q) {
  controller?.abort();
  controller = new AbortController();
  form.setAttribute("aria-busy", "true");
  try {
    const response = await fetch(`/api/v1/suche?q=${encodeURIComponent(q)}`, {
      headers: { Accept: "application/json" }, credentials: "same-origin", signal: controller.signal,
    });
    const body = await response.json().catch(() => ({}));
    if (normalise(input.value) !== q) return;  // typed on meanwhile: a newer search follows
    if (!response.ok) problem(body.detail || "Die Suche ist gerade nicht möglich.");
    else render(body);
  } catch (error) {
    if (error.name !== "AbortError") problem("Die Suche ist gerade nicht erreichbar. Versuch es gleich noch einmal.");
  } finally {
    form.removeAttribute("aria-busy");
  }
}

function schedule() {
  clearTimeout(timer);
  const q = normalise(input.value);
  if (q.length < MIN_CHARS) {
    controller?.abort();
    shownFor = "";
    close();
    return;
  }
  if (q === shownFor) {
    open();
    return;
  }
  setActive(-1);  // a choice made among the older hits is not the one Enter should open now
  timer = setTimeout(() => search(q), DEBOUNCE_MS);
}

function onKey(event) {
  const count = options.length;
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    if (!isOpen()) {
      schedule();
      return;
    }
    if (!count) return;
    const step = event.key === "ArrowDown" ? 1 : -1;
    setActive(active < 0 ? (step > 0 ? 0 : count - 1) : (active + step + count) % count);
  } else if (event.key === "Enter") {
    if (isOpen() && options[active]) {
      event.preventDefault();
      window.location.assign(options[active].href);
    }  // else the form is submitted: /suche/ jumps or lists
  } else if (event.key === "Escape") {
    if (isOpen()) {
      event.preventDefault();
      close();
    } else if (input.value) {
      event.preventDefault();
      input.value = "";
      shownFor = "";
    }
  } else if (event.key === "Tab") {
    close();
  }
}

function focusFromAnywhere(event) {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
  if (event.key.toLowerCase() !== "k") return;
  event.preventDefault();
  input.focus();
  input.select();
  schedule();
}

// A hit in a Dokument opens the Akte at the Dokument: show its text, not the closed summary.
function openTargetedDetails() {
  const match = window.location.hash.match(/^#(dokument-\d+)$/);
  const details = match && document.getElementById(match[1])?.querySelector("details");
  if (details) details.open = true;
}

if (form && input && popup && list && status) {
  form.querySelector("[data-suchfeld-taste]").textContent = MAC ? "⌘ K" : "Strg K";
  if (MAC) document.getElementById("suchfeld-hilfe").textContent = document.getElementById("suchfeld-hilfe")
    .textContent.replace("Strg+K", "Befehlstaste+K");
  input.addEventListener("input", schedule);
  input.addEventListener("keydown", onKey);
  input.addEventListener("focus", () => { if (normalise(input.value) === shownFor && shownFor) open(); });
  form.addEventListener("focusout", (event) => { if (!form.contains(event.relatedTarget)) close(); });
  list.addEventListener("pointerdown", (event) => event.preventDefault());  // keep the focus in the box
  list.addEventListener("pointermove", (event) => {
    const index = options.indexOf(event.target.closest("[role=option]"));
    if (index >= 0 && index !== active) setActive(index);
  });
  document.addEventListener("keydown", focusFromAnywhere);
}
openTargetedDetails();
window.addEventListener("hashchange", openTargetedDetails);
