// The account page (/konto/): the copy button beside a new API token and a new calendar address, each
// shown only once.
for (const button of document.querySelectorAll("[data-kopieren]")) {
  const field = document.getElementById(button.dataset.kopieren);
  const status = button.closest("div")?.parentElement?.querySelector("[data-kopiert]");
  button.addEventListener("click", async () => {
    field.select();
    let copied = false;
    try {
      await navigator.clipboard.writeText(field.value);
      copied = true;
    } catch {
      copied = document.execCommand("copy");  // older browsers, or a page not served over https
    }
    if (status) {
      status.textContent = copied
        ? (button.dataset.kopiertText || "Kopiert. Füge ihn jetzt dort ein, wo du ihn brauchst.")
        : (button.dataset.fehlerText || "Kopieren ging nicht – markiere den Token und kopiere ihn mit Strg+C.");
    }
  });
}

for (const [block, wert] of [["neuer-token", "neuer-token-wert"], ["neue-kalender-adresse", "kalender-adresse-wert"]]) {
  const neu = document.getElementById(block);
  if (neu) {
    neu.focus();
    document.getElementById(wert)?.select();
  }
}
