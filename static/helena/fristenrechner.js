// The Fristenrechner inside the Frist form (templates/akten/frist_form.html), live: the Zustellung and
// a Fristart or Dauer go to POST /api/v1/fristen/berechnen (the session with its CSRF token); the
// Fristende, the Vorfrist and — with a Fristart — its name and Notfrist flag are filled in, every day
// skipped (§ 193 BGB, § 222 Abs. 2 ZPO) is shown. A date typed by hand is checked by the server
// (…/fristen/pruefen/: the same warnings as on saving). Without this script the "Berechnen" button
// sends the form and the server renders the same result.
const form = document.querySelector("[data-fristenrechner]");

const WOCHENTAGE = ["Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"];

function datumLang(iso) {
  const [j, m, t] = iso.split("-").map(Number);
  const d = new Date(Date.UTC(j, m - 1, t));
  return `${WOCHENTAGE[d.getUTCDay()]}, ${String(t).padStart(2, "0")}.${String(m).padStart(2, "0")}.${j}`;
}

function el(tag, attrs = {}, ...kinder) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const kind of kinder) node.append(kind);
  return node;
}

if (form) {
  const feld = (name) => form.elements.namedItem(name);
  const csrf = feld("csrfmiddlewaretoken").value;
  const vorlagen = JSON.parse(document.getElementById("fristen-vorlagen").textContent);
  const vorlagenNamen = new Set(Object.values(vorlagen).map((v) => v.bezeichnung));
  const ergebnisBox = form.querySelector("[data-ergebnis]");
  const warnBox = form.querySelector("[data-warnungen]");
  const warnListe = warnBox.querySelector("[data-warnungen-liste]");
  let zaehler = 0;
  let warte;

  const eingabe = () => ({
    ereignis: feld("ereignis").value, vorlage: feld("vorlage").value, anzahl: feld("dauer_anzahl").value,
    einheit: feld("dauer_einheit").value, vorfrist: feld("vorfrist_tage").value,
  });

  function zeigeFehler(text) {
    ergebnisBox.replaceChildren(el("p", { class: "frist-form__fehler", role: "alert" }, text));
  }

  function zeigeErgebnis(r) {
    const titel = r.preset ? `${r.preset.bezeichnung} (${r.preset.norm})` : r.dauer_text;
    const kopf = el("p", { class: "berechnung__ergebnis" }, `${titel} ab ${datumLang(r.start)}: Fristende `,
                    el("strong", {}, datumLang(r.ende)));
    if (r.notfrist) kopf.append(" ", el("span", { class: "badge badge--notfrist" }, "Notfrist"));
    const box = el("div", { class: "berechnung", "data-berechnung": "" }, kopf);
    if (r.verschoben.length) {
      const option = [...feld("bundesland").options].find((o) => o.value === r.bundesland);
      const land = r.bundesland ? ` (Feiertage in ${option ? option.text : r.bundesland})` : "";
      box.append(el("div", { class: "berechnung__verschoben" },
        el("p", {}, `Rechnerisch endet die Frist am ${datumLang(r.unverschobenes_ende)}. Das ist kein Werktag: `
          + `nach § 193 BGB, § 222 Abs. 2 ZPO endet sie erst mit Ablauf des nächsten Werktags${land}.`),
        el("ul", {}, ...r.verschoben.map((v) => el("li", {}, `${datumLang(v.datum)} übersprungen: ${v.grund}`)))));
    }
    if (r.vorfrist) box.append(el("p", {}, `Vorfrist: ${datumLang(r.vorfrist.datum)}`));
    if (r.hinweise.length) {
      box.append(el("ul", { class: "berechnung__hinweise" }, ...r.hinweise.map((h) => el("li", {}, h))));
    }
    const details = el("details", { class: "berechnung__begruendung" },
                       el("summary", {}, "Begründung der Berechnung"), el("p", {}, r.begruendung));
    box.append(details);
    ergebnisBox.replaceChildren(box);
  }

  function uebernehmen(r) {
    feld("datum").value = r.ende;
    feld("vorfrist").value = r.vorfrist ? r.vorfrist.datum : "";
    if (r.preset) {
      feld("typ").value = "frist";
      feld("ist_notfrist").checked = r.notfrist;
      const name = feld("bezeichnung");
      if (!name.value.trim() || vorlagenNamen.has(name.value)) name.value = r.preset.bezeichnung;
    }
  }

  async function pruefen() {
    if (!feld("datum").value) return zeigeWarnungen([]);
    try {
      const antwort = await fetch(form.dataset.pruefen, {
        method: "POST", body: new FormData(form), credentials: "same-origin", headers: { "X-CSRFToken": csrf },
      });
      if (antwort.ok) zeigeWarnungen((await antwort.json()).warnungen || []);
    } catch {
      // the server checks again on saving
    }
  }

  function zeigeWarnungen(liste) {
    warnListe.replaceChildren(...liste.map((w) => el("li", {}, w)));
    warnBox.hidden = liste.length === 0;
    if (!liste.length) {
      const haken = warnBox.querySelector("[name=trotz_warnung]");
      if (haken) haken.checked = false;
    }
  }

  async function berechnen({ vonHand = false } = {}) {
    const e = eingabe();
    if (!e.ereignis || (!e.vorlage && !e.anzahl)) {
      if (vonHand) zeigeFehler("Gib die Zustellung bzw. das Ereignis und eine Fristart oder eine Dauer an.");
      return;
    }
    const nummer = ++zaehler;
    const payload = { start: e.ereignis, bundesland: feld("bundesland").value || form.dataset.akteBundesland || null };
    if (e.vorlage) payload.preset = e.vorlage;
    else payload.dauer = { [e.einheit || "wochen"]: Number(e.anzahl) };
    if (e.vorfrist !== "") payload.vorfrist_tage = Number(e.vorfrist);
    let antwort;
    try {
      antwort = await fetch(form.dataset.api, {
        method: "POST", credentials: "same-origin", body: JSON.stringify(payload),
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, Accept: "application/json" },
      });
    } catch {
      if (vonHand) form.requestSubmit(form.querySelector("[data-berechnen]"));  // the server computes it
      return;
    }
    if (nummer !== zaehler) return;  // a newer input is on its way
    const body = await antwort.json().catch(() => ({}));
    if (!antwort.ok) {
      zeigeFehler(body.detail || "Die Frist konnte nicht berechnet werden.");
      return;
    }
    uebernehmen(body);
    zeigeErgebnis(body);
    pruefen();
  }

  const spaeter = () => {
    clearTimeout(warte);
    warte = setTimeout(berechnen, 300);
  };

  feld("vorlage").addEventListener("change", () => {
    if (feld("vorlage").value) feld("dauer_anzahl").value = "";
    spaeter();
  });
  feld("dauer_anzahl").addEventListener("input", () => {
    if (feld("dauer_anzahl").value) feld("vorlage").value = "";
    spaeter();
  });
  for (const name of ["ereignis", "dauer_einheit", "vorfrist_tage", "bundesland"]) {
    feld(name).addEventListener("change", spaeter);
  }
  for (const name of ["datum", "typ", "bundesland"]) feld(name).addEventListener("change", pruefen);
  form.querySelector("[data-berechnen]").addEventListener("click", (event) => {
    event.preventDefault();
    berechnen({ vonHand: true });
  });
}
