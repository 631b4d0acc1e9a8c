// The chat with Helena: one websocket per conversation (docs/protocol.md "Websocket").
//
// The server renders the finished history; this module streams what happens from now on. Every
// event carries run_id and seq (1, 2, 3 … per run): we remember the last seq per run and drop
// anything at or below it, and after a (re)connect we ask for what we missed with
// {"type": "sync", "after": {run_id: last_seq}}, so a reload or a dropped connection neither
// loses nor duplicates a step. Model text is only ever inserted as text nodes; HTML comes only
// from the server (sanitised Markdown of a finished answer, draft cards).

const config = JSON.parse(document.getElementById("chat-config").textContent);
const LABELS = config.tool_labels || {};
const MODE_BADGES = { inline: "⚡ Direkt", background: "🔄 Hintergrund" };
const STATES = {
  thinking: "Helena denkt nach …",
  executing_tool: "Führt Werkzeug aus …",
  executing_plan: "Arbeitet den Plan ab …",
  waiting_on_user: "Wartet auf dich",
};
// Same texts as helena/web/views.py FINISH_NOTES.
const FINISH_NOTES = {
  cancelled: "Abgebrochen.",
  max_steps: "Helena hat die Höchstzahl an Schritten erreicht.",
  tool_cap: "Zu viele Werkzeugaufrufe in einem Schritt – die Antwort beruht nur auf den ersten.",
  timeout: "Die Zeit für diese Anfrage ist abgelaufen.",
  stall: "Helena kam nicht weiter.",
  waiting_on_user: "Helena wartet auf deine Antwort.",
};
// Same texts as helena/web/views.py PLAN_ITEM_STATUS, PLAN_VERDICTS and PLAN_REVIEW_HINT.
const PLAN_ITEM_STATUS = {
  pending: "offen",
  in_progress: "läuft",
  completed: "erledigt",
  failed: "gescheitert",
  skipped: "übersprungen",
};
const PLAN_VERDICTS = { approved: "Freigegeben", rejected: "Abgelehnt" };
const PLAN_REVIEW_HINT = "Passt der Plan? Antworte einfach im Chat, z. B. „passt, leg los“ oder „füge vorher … hinzu“.";
const ANSWER_PLACEHOLDER = "Deine Antwort an Helena …";
// Same order as helena/tools/sources.py _MAIN_ARGUMENTS; an id ("akte_id" …) is never shown.
const MAIN_ARGUMENTS = ["query", "question", "objective", "bezeichnung", "titel", "taetigkeit", "message",
  "inhalt", "start", "gegenstandswert", "status"];
const ARGUMENT_CHARS = 80;
const CLOSE_SITZUNG_BEENDET = 4401; // the login ended (idle, absolute limit, logout): no reconnect
const CLOSE_FORBIDDEN = 4403;
const CLOSE_DATENBANK_WEG = 4503; // the database is away (config/db_unavailable.py): keep retrying
const CLOSE_NOT_FOUND = 4404;
const MAX_BACKOFF_MS = 30000;

const log = document.getElementById("chat-log");
const empty = document.getElementById("chat-empty");
const form = document.getElementById("chat-composer");
const fields = document.getElementById("chat-composer-fields");
const input = document.getElementById("chat-input");
const modeSelect = document.getElementById("chat-mode");
const sendButton = form.querySelector(".chat-composer__send");
const connection = document.getElementById("chat-connection");
const pageNotice = document.getElementById("chat-page-notice");
const questionHint = document.getElementById("chat-question-hint");
const announcer = document.getElementById("chat-announce");
const normalPlaceholder = input.placeholder;

const lastSeq = new Map(); // run_id → last seq shown
const finished = new Set(); // run_ids whose `done` we have
const pending = []; // user bubbles sent but not yet confirmed by a run_started: {el, at, id, text}
let nextClientId = 1; // names our user_message frames, so that a refusal says which one it means
let socket = null;
let opened = false;
let backoff = 1000;
let reconnectTimer = null;
let gone = false; // 4401/4403/4404: no point in reconnecting
let awaitingAnswer = false; // Helena asked (ask_user): the next message answers her question

// ------------------------------------------------------------------ small DOM helpers

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function show(node, visible) {
  node.hidden = !visible;
}

function nearBottom() {
  const doc = document.scrollingElement || document.documentElement;
  return doc.scrollHeight - (doc.scrollTop + window.innerHeight) < 160;
}

function keepInView(wasNearBottom, node) {
  if (wasNearBottom && node) node.scrollIntoView({ block: "end" });
}

function announce(text) {
  announcer.textContent = "";
  window.setTimeout(() => { announcer.textContent = text; }, 50);
}

function shown(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function mainArgument(args) {
  if (!args || typeof args !== "object" || Array.isArray(args)) return "";
  const keys = [...MAIN_ARGUMENTS, ...Object.keys(args)];
  for (const key of keys) {
    if (key.endsWith("_id")) continue;
    const value = args[key];
    if ((typeof value === "string" || typeof value === "number") && String(value).trim()) {
      const text = String(value).split(/\s+/).filter(Boolean).join(" ");
      return text.length <= ARGUMENT_CHARS ? text : text.slice(0, ARGUMENT_CHARS - 1) + "…";
    }
  }
  return "";
}

// As helena/tools/sources.py source_text: a source as a lawyer cites it, never a table or an id.
function sourceText(source) {
  if (!source || typeof source !== "object") return shown(source);
  if (source.citation) return String(source.citation);
  if (source.title && source.url) return `${source.title} (${source.url})`;
  return String(source.title || source.url || "");
}

function tooltip(event) {
  let text = `Stufe ${event.tier}`;
  if (event.model) {
    text += ` · ${event.model}`;
    if (event.provider) text += ` (${event.provider})`;
  }
  return text;
}

// ------------------------------------------------------------------ bubbles

function part(bubble, selector) {
  return bubble.querySelector(`:scope > ${selector}`);
}

function newAnswerBubble(runId, mode) {
  const bubble = el("article", "chat-msg chat-msg--assistant chat-msg--active");
  bubble.id = `lauf-${runId}`;
  bubble.dataset.runId = runId;
  bubble.dataset.seq = "0";
  bubble.dataset.mode = mode || "inline";
  bubble.dataset.active = "true";
  bubble.setAttribute("aria-label", "Antwort von Helena");
  const head = el("header", "chat-msg__head");
  head.append(el("span", "chat-msg__who", "Helena"));
  const badge = el("span", `badge chat-badge chat-badge--${bubble.dataset.mode}`, MODE_BADGES[mode] || "");
  badge.hidden = !MODE_BADGES[mode];  // no empty badge until the run says how it runs
  head.append(badge);
  const cancel = el("button", "button button--quiet chat-cancel", "Abbrechen");
  cancel.type = "button";
  cancel.dataset.chatCancel = "";
  head.append(cancel);
  bubble.append(head);
  const status = el("p", "chat-status");
  status.setAttribute("role", "status");
  status.hidden = true;
  bubble.append(status);
  const progress = el("div", "chat-progress");
  progress.hidden = true;
  progress.append(el("span", "chat-progress__text"));
  const bar = el("progress", "chat-progress__bar");
  bar.max = 1;
  bar.value = 0;
  progress.append(bar);
  bubble.append(progress);
  const plans = el("div", "chat-plans");
  plans.hidden = true;
  bubble.append(plans);
  const steps = el("ol", "chat-steps");
  steps.setAttribute("aria-label", "Arbeitsschritte");
  steps.hidden = true;
  bubble.append(steps);
  const text = el("div", "chat-text markdown");
  text.hidden = true;
  bubble.append(text);
  const drafts = el("div", "chat-drafts");
  drafts.hidden = true;
  bubble.append(drafts);
  const question = el("p", "chat-question");
  question.hidden = true;
  question.append(el("span", "chat-question__head", "Helena fragt:"), " ", el("span", "chat-question__text"));
  bubble.append(question);
  const notices = el("ul", "chat-notices");
  notices.hidden = true;
  bubble.append(notices);
  const actions = el("div", "chat-actions");
  actions.hidden = true;
  bubble.append(actions);
  return bubble;
}

function bubbleFor(runId, event) {
  let bubble = log.querySelector(`article[data-run-id="${CSS.escape(runId)}"]`);
  if (bubble) return bubble;
  const atBottom = nearBottom();
  bubble = newAnswerBubble(runId, event.type === "run_started" ? event.mode : "");
  log.append(bubble);
  show(empty, false);
  keepInView(atBottom, bubble);
  return bubble;
}

function setBadge(bubble, event) {
  const badge = bubble.querySelector(".chat-badge");
  const title = tooltip(event);
  bubble.dataset.mode = event.mode;
  badge.className = `badge chat-badge chat-badge--${event.mode}`;
  badge.title = title;
  badge.textContent = MODE_BADGES[event.mode] || "";
  badge.hidden = !MODE_BADGES[event.mode];
  badge.append(el("span", "visually-hidden", ` (${title})`));
}

function setStatus(bubble, event) {
  const status = part(bubble, ".chat-status");
  const label = STATES[event.state];
  if (!label) {
    status.textContent = "";
    status.hidden = true;
    return;
  }
  let details = event.details || "";
  if (event.state === "executing_tool" && details) {
    details = details.split(",").map((name) => LABELS[name.trim()] || name.trim()).join(", ");
  }
  status.textContent = "";
  status.append(el("span", "chat-status__label", label));
  if (details) status.append(" ", el("span", "chat-status__details", details));
  status.hidden = false;
}

function addNotice(bubble, kind, text) {
  const list = part(bubble, ".chat-notices");
  const item = el("li", `chat-notice chat-notice--${kind}`, text);
  if (kind === "error") item.setAttribute("role", "alert");
  list.append(item);
  list.hidden = false;
  return item;
}

function addStep(bubble, event) {
  const steps = part(bubble, ".chat-steps");
  const tool = String(event.tool || "");
  const item = el("li", "chat-step chat-step--pending");
  item.dataset.callId = String(event.call_id || "");
  item.dataset.tool = tool;
  const details = el("details");
  const summary = el("summary");
  const arg = mainArgument(event.arguments);
  summary.append(el("span", "chat-step__title", (LABELS[tool] || tool) + (arg ? `: ${arg}` : "")));
  summary.append(" ", el("span", "chat-step__result", "läuft …"));
  details.append(summary);
  const body = el("div", "chat-step__body");
  const args = event.arguments;
  if (args && typeof args === "object" && !Array.isArray(args) && Object.keys(args).length) {
    const dl = el("dl", "chat-step__args");
    for (const [key, value] of Object.entries(args)) {
      const row = el("div");
      row.append(el("dt", "", key), el("dd", "", shown(value)));
      dl.append(row);
    }
    body.append(dl);
  }
  details.append(body);
  item.append(details);
  steps.append(item);
  steps.hidden = false;
}

function addReasoning(bubble, delta) {
  // The model's thinking: one collapsed "Überlegung" step per stretch of reasoning, filled live.
  if (!delta) return;
  const steps = part(bubble, ".chat-steps");
  let item = steps.lastElementChild;
  if (!item || !item.classList.contains("chat-step--reasoning")) {
    item = el("li", "chat-step chat-step--reasoning");
    item.dataset.done = "true";
    const details = el("details");
    const summary = el("summary");
    summary.append(el("span", "chat-step__title", "Überlegung"), " ",
      el("span", "chat-step__result", "(das Modell hat vor der Antwort nachgedacht)"));
    const body = el("div", "chat-step__body");
    body.append(el("p", "chat-step__reasoning", ""));
    details.append(summary, body);
    item.append(details);
    steps.append(item);
    steps.hidden = false;
  }
  const text = item.querySelector(".chat-step__reasoning");
  text.textContent = (text.textContent + delta).replace(/^\s+/, "");
}

function finishStep(bubble, event) {
  const steps = part(bubble, ".chat-steps");
  const callId = String(event.call_id || "");
  let item = [...steps.querySelectorAll(":scope > li.chat-step:not([data-done])")]
    .find((li) => li.dataset.callId === callId);
  if (!item) {
    addStep(bubble, { call_id: callId, tool: event.tool, arguments: {} });
    item = steps.lastElementChild;
  }
  item.dataset.done = "true";
  item.classList.remove("chat-step--pending");
  if (!event.ok) item.classList.add("chat-step--error");
  item.querySelector(".chat-step__result").textContent = event.summary || (event.ok ? "erledigt" : "Fehler");
  const body = item.querySelector(".chat-step__body");
  if (event.error) body.append(el("p", "chat-step__error", event.error));
  const sources = Array.isArray(event.source) ? event.source : event.source ? [event.source] : [];
  const lines = [...new Set(sources.map(sourceText).filter(Boolean))];  // each once, as the history shows them
  if (lines.length) {
    body.append(el("p", "chat-step__sources-head", "Quellen"));
    const list = el("ul", "chat-step__sources");
    for (const line of lines) list.append(el("li", "", line));
    body.append(list);
  }
}

function showProgress(bubble, event) {
  if (bubble.dataset.mode !== "background") return;
  const progress = part(bubble, ".chat-progress");
  const max = Number(event.max_steps) || 1;
  const step = Math.min(Number(event.step) || 0, max);
  progress.querySelector(".chat-progress__text").textContent = event.summary || `Schritt ${step}/${max}`;
  const bar = progress.querySelector("progress");
  bar.max = max;
  bar.value = step;
  bar.setAttribute("aria-label", `Schritt ${step} von ${max}`);
  progress.hidden = false;
}

function appendText(bubble, delta) {
  const text = part(bubble, ".chat-text");
  if (!text.classList.contains("chat-text--live")) {
    text.classList.add("chat-text--live");
  }
  text.append(document.createTextNode(delta)); // never HTML: the model's text is untrusted
  text.hidden = false;
}

function resumeText(bubble, event) {
  // Another process took the run over from its last checkpoint: the answer shows what it had there
  // (what streamed after it is written again), and a short notice says why it paused.
  const text = part(bubble, ".chat-text");
  text.textContent = String(event.text || "");
  text.hidden = !text.textContent;
  addNotice(bubble, "info", event.message || "Helena macht weiter.");
}

function addDraft(bubble, event) {
  if (event.draft_id && document.getElementById(`draft-${event.draft_id}`)) return;
  const template = document.createElement("template");
  template.innerHTML = String(event.html || "").trim(); // server-rendered, sanitised card
  const card = template.content.querySelector(".draft-card");
  if (!card) return;
  // Its buttons are handled by drafts.js (which also supplies the CSRF token such cards lack).
  const drafts = part(bubble, ".chat-drafts");
  drafts.append(card);
  drafts.hidden = false;
  // The navigation's Entwürfe badge counts it (glocke.js asks its socket at once).
  card.dispatchEvent(new CustomEvent("helena:draft-created", { bubbles: true }));
}

// ------------------------------------------------------------------ plans (agent_create_plan)
//
// One card per plan, keyed by plan_id, drawn in the answer of the run that made it (as the server
// renders the history from the Plan rows); later runs that go on with it update that card in place
// and show a link to it. Every plan text is inserted as text, never as HTML.

function planCard(planId) {
  return log.querySelector(`section.chat-plan[data-plan-id="${CSS.escape(planId)}"]`);
}

function newPlanCard(planId) {
  const card = el("section", "chat-plan");
  card.id = `plan-${planId}`;
  card.dataset.planId = planId;
  card.setAttribute("aria-label", "Plan");
  const title = el("h3", "chat-plan__title", "Plan: ");
  title.append(el("span", "chat-plan__objective"));
  const revision = el("p", "chat-plan__revision");
  revision.hidden = true;
  const progress = el("p", "chat-plan__progress");
  progress.setAttribute("role", "status");
  progress.hidden = true;
  const review = el("p", "chat-plan__review");
  review.hidden = true;
  const hint = el("p", "chat-plan__hint");
  hint.hidden = true;
  card.append(title, revision, progress, el("ol", "chat-plan__items"), review, hint);
  return card;
}

function planRef(bubble, card) {
  const plans = part(bubble, ".chat-plans");
  const planId = card.dataset.planId;
  if ([...plans.querySelectorAll(":scope > .chat-plan-ref")].some((p) => p.dataset.planRef === planId)) return;
  const ref = el("p", "chat-plan-ref", "Plan fortgesetzt: ");
  ref.dataset.planRef = planId;
  const link = el("a", "", planObjective(card));
  link.href = `#plan-${planId}`;
  ref.append(link);
  plans.append(ref);
  plans.hidden = false;
}

function planObjective(card) {
  const objective = card.querySelector(".chat-plan__objective");
  if (objective) return objective.textContent;
  return card.querySelector(".chat-plan__title").textContent.replace(/^Plan:\s*/, "");
}

function cardFor(bubble, event) {
  const planId = String(event.plan_id || "");
  if (!planId) return null;
  let card = planCard(planId);
  if (card) {
    if (card.closest("article[data-run-id]") !== bubble) planRef(bubble, card);
  } else {
    card = newPlanCard(planId);
    const plans = part(bubble, ".chat-plans");
    plans.insertBefore(card, plans.querySelector(":scope > .chat-plan-ref"));
    plans.hidden = false;
  }
  return card;
}

function planItem(card, position) {
  const list = card.querySelector(".chat-plan__items");
  const key = String(position);
  let li = [...list.children].find((item) => item.dataset.position === key);
  if (!li) {
    li = newPlanItem(position);
    list.append(li);
  }
  return li;
}

function newPlanItem(position) {
  const li = el("li", "chat-plan__item");
  if (Number.isInteger(Number(position)) && Number(position) > 0) li.value = Number(position);
  li.dataset.position = String(position);
  const row = el("div", "chat-plan__row");
  const attempts = el("span", "chat-plan__attempts");
  attempts.hidden = true;
  row.append(el("span", "chat-plan__desc"), " ", el("span", "badge chat-plan__badge"), attempts);
  const criteria = el("p", "chat-plan__criteria");
  criteria.hidden = true;
  const result = el("p", "chat-plan__result");
  result.hidden = true;
  li.append(row, criteria, result);
  return li;
}

function setPlanItem(li, item) {
  if (item.description !== undefined && item.description !== null) {
    li.querySelector(".chat-plan__desc").textContent = String(item.description);
  }
  if (item.acceptance_criteria !== undefined) {
    const criteria = li.querySelector(".chat-plan__criteria");
    const text = String(item.acceptance_criteria || "");
    criteria.textContent = `Abnahme: ${text}`;
    criteria.hidden = !text;
  }
  if (item.status) {
    const status = Object.hasOwn(PLAN_ITEM_STATUS, item.status) ? item.status : "unknown";
    const badge = li.querySelector(".chat-plan__badge");
    badge.className = `badge chat-plan__badge chat-plan__badge--${status}`;
    badge.textContent = PLAN_ITEM_STATUS[status] || String(item.status);
    li.dataset.status = status;
  }
  if (item.attempts !== undefined) {
    const attempts = li.querySelector(".chat-plan__attempts");
    const count = Number(item.attempts) || 0;
    attempts.textContent = `Versuch ${count}`;
    attempts.hidden = count < 2;
  }
  if (item.result !== undefined) {
    const result = li.querySelector(".chat-plan__result");
    result.textContent = String(item.result || "");
    result.hidden = !result.textContent;
  }
}

function setPlanItems(card, items) {
  if (!Array.isArray(items)) return;
  const list = card.querySelector(".chat-plan__items");
  list.replaceChildren();
  items.forEach((item, index) => {
    if (!item || typeof item !== "object") return;
    const li = newPlanItem(item.position ?? index + 1);
    setPlanItem(li, { status: "pending", attempts: 0, result: "", acceptance_criteria: "", ...item });
    list.append(li);
  });
}

// Whole-plan events (plan_created, plan_ready_for_review, replanned) older than what the card shows
// (a reload replays a running run's events onto the card the server drew): no step back in time.
function isNewer(card, event) {
  const version = Number(event.version) || 0;
  const shown = Number(card.dataset.version) || 0;
  return version >= shown;
}

function setRevision(card, text) {
  const revision = card.querySelector(".chat-plan__revision");
  revision.textContent = text;
  revision.hidden = !text;
}

function showPlan(bubble, event) {
  const card = cardFor(bubble, event);
  if (!card) return;
  if (!isNewer(card, event)) return;
  const shown = Number(card.dataset.version) || 0;
  const version = Number(event.version) || 0;
  if (event.type === "plan_created" && shown && version > shown) {
    setRevision(card, `Plan überarbeitet (Version ${version})`);
  }
  if (version) card.dataset.version = String(version);
  if (event.objective !== undefined) card.querySelector(".chat-plan__objective").textContent = String(event.objective || "");
  setPlanItems(card, event.items);
  // The review hint stands while the plan waits for the user (draft_only); plan_created comes first.
  const hint = card.querySelector(".chat-plan__hint");
  if (event.type === "plan_ready_for_review") {
    hint.textContent = PLAN_REVIEW_HINT;
    hint.hidden = false;
  } else if (event.status !== "pending_review") {
    hint.hidden = true;
  }
}

function showPlanReview(bubble, event) {
  const card = cardFor(bubble, event);
  if (!card) return;
  const review = card.querySelector(".chat-plan__review");
  const verdict = Object.hasOwn(PLAN_VERDICTS, event.verdict) ? event.verdict : "";
  review.className = verdict ? `chat-plan__review chat-plan__review--${verdict}` : "chat-plan__review";
  review.replaceChildren(el("span", "chat-plan__verdict", PLAN_VERDICTS[verdict] || String(event.verdict || "Geprüft")));
  const notes = Array.isArray(event.notes) ? event.notes.map(shown).join(" ") : event.notes ? shown(event.notes) : "";
  if (notes) review.append(": ", el("span", "chat-plan__notes", notes));
  review.hidden = false;
}

function showPlanStep(bubble, event) {
  const card = cardFor(bubble, event);
  if (!card) return;
  card.querySelector(".chat-plan__hint").hidden = true; // it is being carried out
  card.dataset.activeRun = bubble.dataset.runId;
  if (event.status === "replanned") {
    if (!isNewer(card, event)) return;
    if (event.version) card.dataset.version = String(event.version);
    setPlanItems(card, event.items);
    const version = event.version ? ` (Version ${event.version})` : "";
    setRevision(card, `Plan überarbeitet${version}` + (event.reason ? `: ${event.reason}` : ""));
    return;
  }
  if (event.position === undefined || event.position === null) return;
  const li = planItem(card, event.position);
  const update = { status: event.status === "started" ? "in_progress" : event.status };
  if (event.description !== undefined) update.description = event.description;
  if (event.attempt !== undefined) update.attempts = event.attempt;
  if (event.status === "started") update.result = "";
  else if (event.result !== undefined) update.result = event.result;
  setPlanItem(li, update);
  if (event.summary) {
    const progress = card.querySelector(".chat-plan__progress");
    progress.textContent = String(event.summary);
    progress.hidden = false;
  }
}

function settlePlans(runId) {
  // The run ended: its progress lines go, and nothing of its plans is running any more (a step
  // interrupted by a question or a cancel is open again, as the stored plan says).
  for (const card of log.querySelectorAll("section.chat-plan[data-active-run]")) {
    if (card.dataset.activeRun !== runId) continue;
    delete card.dataset.activeRun;
    card.querySelector(".chat-plan__progress").hidden = true;
    for (const li of card.querySelectorAll('.chat-plan__item[data-status="in_progress"]')) {
      setPlanItem(li, { status: "pending" });
    }
  }
}

// ------------------------------------------------------------------ questions (ask_user)

function showQuestion(bubble, event) {
  const question = part(bubble, ".chat-question");
  question.querySelector(".chat-question__text").textContent = String(event.question || "");
  question.hidden = false;
  setStatus(bubble, { state: "waiting_on_user" });
  waitForAnswer(true, { focus: true });
}

function waitForAnswer(waiting, { focus = false } = {}) {
  // While Helena waits, the composer says so; the next message answers her question.
  awaitingAnswer = waiting;
  questionHint.hidden = !waiting;
  input.placeholder = waiting ? ANSWER_PLACEHOLDER : normalPlaceholder;
  if (waiting && focus && !fields.disabled) input.focus();
}

function questionAnswered() {
  waitForAnswer(false);
  for (const bubble of log.querySelectorAll('article[data-run-id][data-active="false"]')) {
    const label = part(bubble, ".chat-status")?.querySelector(".chat-status__label");
    if (label && label.textContent === STATES.waiting_on_user) setStatus(bubble, { state: "idle" });
  }
}

async function replaceWithRendered(bubble, runId) {
  const text = part(bubble, ".chat-text");
  const url = config.answer_url.replace("00000000-0000-0000-0000-000000000000", encodeURIComponent(runId));
  for (let attempt = 0; attempt < 6; attempt += 1) {
    try {
      const response = await fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } });
      if (response.status === 409) { // the `done` is not stored yet: wait a moment
        await new Promise((resolve) => window.setTimeout(resolve, 300 * (attempt + 1)));
        continue;
      }
      if (!response.ok) return;
      const html = (await response.text()).trim();
      if (html) {
        text.innerHTML = html; // render_markdown output: sanitised on the server
        text.hidden = false;
      } else if (!text.textContent.trim()) {
        text.hidden = true;
      }
      text.classList.remove("chat-text--live");
      return;
    } catch (error) {
      return; // keep the streamed plain text
    }
  }
}

const pageTitle = document.title;
let stopFlashing = null;

function flashTitle(text) {
  // Draws the eye to a tab in the background; stops once the user looks (or after a while).
  if (stopFlashing) stopFlashing();
  let on = false;
  let count = 0;
  const timer = window.setInterval(() => {
    on = !on;
    document.title = on ? `✔ ${text}` : pageTitle;
    count += 1;
    if (count >= 20 && document.hasFocus()) stop();
  }, 1000);
  function stop() {
    window.clearInterval(timer);
    document.title = pageTitle;
    window.removeEventListener("focus", stop);
    stopFlashing = null;
  }
  stopFlashing = stop;
  if (!document.hasFocus()) window.addEventListener("focus", stop);
}

function finish(bubble, event) {
  const runId = bubble.dataset.runId;
  finished.add(runId);
  bubble.dataset.active = "false";
  bubble.classList.remove("chat-msg--active");
  const cancel = bubble.querySelector("[data-chat-cancel]");
  if (cancel) cancel.hidden = true;
  setStatus(bubble, { state: event.finish_reason === "waiting_on_user" ? "waiting_on_user" : "idle" });
  part(bubble, ".chat-progress").hidden = true;
  settlePlans(runId);
  if (event.finish_reason === "waiting_on_user") waitForAnswer(true);
  const note = FINISH_NOTES[event.finish_reason];
  if (note) addNotice(bubble, event.finish_reason === "cancelled" ? "cancelled" : "info", note);
  if (bubble.dataset.mode === "background" && !["cancelled", "error"].includes(event.finish_reason)) {
    addNotice(bubble, "done", "Hintergrundaufgabe abgeschlossen.");
    announce("Hintergrundaufgabe abgeschlossen.");
    flashTitle("Hintergrundaufgabe abgeschlossen");
  } else {
    announce({ cancelled: "Antwort abgebrochen.", error: "Helena konnte nicht antworten." }[event.finish_reason]
      || "Helena hat geantwortet.");
  }
  if (event.continue_offered) {
    const actions = part(bubble, ".chat-actions");
    const button = el("button", "button chat-continue", "Im Hintergrund weitermachen");
    button.type = "button";
    button.dataset.chatContinue = "";
    actions.append(button);
    actions.hidden = false;
  }
  replaceWithRendered(bubble, runId);
}

// ------------------------------------------------------------------ events

function handle(event) {
  if (!event || typeof event !== "object") return;
  if (event.type === "error" && !event.run_id) {
    frameRefused(event);
    return;
  }
  const runId = String(event.run_id || "");
  const seq = Number(event.seq) || 0;
  if (!runId || seq <= (lastSeq.get(runId) || 0)) return; // already shown
  lastSeq.set(runId, seq);
  const atBottom = nearBottom();
  if (event.type === "run_started" && !log.querySelector(`article[data-run-id="${CSS.escape(runId)}"]`)) {
    showUserMessage(event.message); // before the answer: the message this new run answers
  }
  const bubble = bubbleFor(runId, event);
  bubble.dataset.seq = String(seq);
  switch (event.type) {
    case "run_started":
      setBadge(bubble, event);
      if (awaitingAnswer && part(bubble, ".chat-question").hidden) questionAnswered(); // e.g. in another tab
      break;
    case "agent_state":
      setStatus(bubble, event);
      break;
    case "text":
      appendText(bubble, String(event.delta || ""));
      break;
    case "reasoning":
      addReasoning(bubble, String(event.delta || ""));
      break;
    case "tool_call":
      addStep(bubble, event);
      break;
    case "tool_result":
      finishStep(bubble, event);
      break;
    case "step":
      showProgress(bubble, event);
      break;
    case "draft_created":
      addDraft(bubble, event);
      break;
    case "warning":
      addNotice(bubble, "warning", event.message || "");
      break;
    case "resumed":
      resumeText(bubble, event);
      break;
    case "error":
      addNotice(bubble, "error", event.message || "Es ist ein Fehler aufgetreten.");
      break;
    case "done":
      finish(bubble, event);
      break;
    case "ask_user":
      showQuestion(bubble, event);
      break;
    case "plan_created":
    case "plan_ready_for_review":
      showPlan(bubble, event);
      break;
    case "plan_review":
      showPlanReview(bubble, event);
      break;
    case "plan_step":
      showPlanStep(bubble, event);
      break;
    default:
      break; // an event type this page does not know yet
  }
  keepInView(atBottom, bubble);
}

function showUserMessage(text) {
  // A new run answers a user message: ours (sent from this tab and waiting for its run) or one
  // sent from another tab or client, which this page has not shown yet.
  if (typeof text !== "string" || !text) return; // a continuation answers no new message
  const index = pending.findIndex((item) => item.text === text);
  if (index >= 0) {
    pending.splice(index, 1)[0].el.removeAttribute("data-pending");
    return;
  }
  const bubble = userBubble(text);
  bubble.removeAttribute("data-pending");
  log.append(bubble);
  show(empty, false);
}

function frameRefused(event) {
  // A refused frame (rate limit, invalid message …) is not part of a run. If it refused a message
  // we sent, that message did not start a run: mark it.
  let index = -1;
  if (event.client_id) {
    index = pending.findIndex((item) => item.id === event.client_id);
  } else if (pending.length && Date.now() - pending[pending.length - 1].at < 15000) {
    index = pending.length - 1; // refused unread (too many frames, not JSON): most likely the latest
  }
  if (index >= 0) {
    const refused = pending.splice(index, 1)[0];
    const failed = refused.el;
    if (!input.value.trim()) input.value = refused.text; // to send again later, without retyping
    failed.removeAttribute("data-pending");
    failed.classList.add("chat-msg--failed");
    failed.querySelector(".chat-msg__head").append(el("span", "badge chat-badge--failed", "nicht gesendet"));
  }
  pageNotice.textContent = event.message || "Das hat nicht geklappt.";
  pageNotice.hidden = false;
}

// ------------------------------------------------------------------ the socket

function send(frame) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return false;
  // Every frame is named, so a refusal of a cancel is never taken for a refusal of a message.
  socket.send(JSON.stringify({ client_id: `f${nextClientId++}`, ...frame }));
  return true;
}

function setConnected(connected, message) {
  // Before the first connection the whole composer waits; after that, a dropped connection only
  // disables sending, so whatever the user is typing meanwhile is not lost.
  if (connected || !opened) fields.disabled = !connected;
  sendButton.disabled = !connected;
  modeSelect.disabled = !connected;
  connection.textContent = connected ? "" : message || "Verbindung wird hergestellt …";
  connection.hidden = connected;
}

function syncFrame() {
  const after = {};
  for (const bubble of log.querySelectorAll("article[data-run-id]")) {
    const runId = bubble.dataset.runId;
    if (bubble.dataset.active === "true" && !finished.has(runId)) after[runId] = lastSeq.get(runId) || 0;
  }
  return { type: "sync", after };
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${window.location.host}${config.ws_path}`);
  socket = ws;
  ws.addEventListener("open", () => {
    backoff = 1000;
    const first = !opened;
    opened = true;
    setConnected(true);
    ws.send(JSON.stringify(syncFrame())); // what we missed, and every run still in progress
    if (first && (document.activeElement === document.body || document.activeElement?.id === "inhalt")) {
      input.focus();
    } else if (!first && document.activeElement === document.body) {
      input.focus();
    }
  });
  ws.addEventListener("message", (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch (error) {
      return;
    }
    handle(event);
  });
  ws.addEventListener("close", (closed) => {
    if (socket !== ws) return;
    socket = null;
    if (closed.code === CLOSE_SITZUNG_BEENDET) {
      gone = true;
      setConnected(false, "Du bist abgemeldet. Bitte melde dich neu an (Seite neu laden); "
        + "kopiere vorher, was du gerade schreibst.");
      return;
    }
    if (closed.code === CLOSE_FORBIDDEN || closed.code === CLOSE_NOT_FOUND) {
      gone = true;
      setConnected(false, closed.code === CLOSE_NOT_FOUND
        ? "Dieses Gespräch gibt es nicht (mehr)."
        : "Keine Verbindung: Du bist nicht (mehr) angemeldet oder hast keinen Zugriff auf dieses Gespräch. Bitte lade die Seite neu.");
      return;
    }
    setConnected(false, closed.code === CLOSE_DATENBANK_WEG
      ? "Die Datenbank ist gerade nicht erreichbar – Helena verbindet sich von selbst wieder …"
      : "Verbindung unterbrochen – wird wiederhergestellt …");
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  if (gone || reconnectTimer) return;
  const wait = Math.min(backoff, MAX_BACKOFF_MS) * (0.8 + Math.random() * 0.4);
  backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  reconnectTimer = window.setTimeout(() => {
    reconnectTimer = null;
    connect();
  }, wait);
}

// ------------------------------------------------------------------ composer and buttons

function userBubble(text) {
  const bubble = el("article", "chat-msg chat-msg--user");
  bubble.setAttribute("aria-label", "Deine Nachricht");
  bubble.dataset.pending = "true";
  const head = el("header", "chat-msg__head");
  head.append(el("span", "chat-msg__who", "Du"));
  bubble.append(head, el("div", "chat-text chat-text--plain", text));
  return bubble;
}

function submit() {
  const text = input.value.trim();
  if (!text) {
    input.focus();
    return;
  }
  const clientId = `m${nextClientId++}`;
  if (!send({ type: "user_message", text, mode: modeSelect.value, client_id: clientId })) {
    connection.textContent = "Keine Verbindung – deine Nachricht wurde noch nicht gesendet. Sie bleibt im Eingabefeld.";
    connection.hidden = false;
    return;
  }
  const bubble = userBubble(text);
  log.append(bubble);
  show(empty, false);
  pending.push({ el: bubble, at: Date.now(), id: clientId, text });
  pageNotice.hidden = true;
  if (awaitingAnswer) questionAnswered();
  input.value = "";
  bubble.scrollIntoView({ block: "end" });
  input.focus();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  submit();
});

input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing && !event.altKey && !event.ctrlKey && !event.metaKey) {
    event.preventDefault();
    submit(); // says so if there is no connection, and keeps the text
  }
});

log.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const cancel = target?.closest("[data-chat-cancel]");
  const again = target?.closest("[data-chat-continue]");
  const button = cancel || again;
  if (!button) return;
  const bubble = button.closest("article[data-run-id]");
  if (!bubble) return;
  const frame = { type: cancel ? "cancel" : "continue_in_background", run_id: bubble.dataset.runId };
  if (!send(frame)) return;
  button.disabled = true;
  button.textContent = cancel ? "Wird abgebrochen …" : "Wird im Hintergrund fortgesetzt …";
});

// ------------------------------------------------------------------ start

for (const bubble of log.querySelectorAll("article[data-run-id]")) {
  lastSeq.set(bubble.dataset.runId, Number(bubble.dataset.seq) || 0);
  if (bubble.dataset.active !== "true") finished.add(bubble.dataset.runId);
}
if (config.waiting_on_user) waitForAnswer(true);
setConnected(false);
connect();
