// The account page (/konto/): the copy button beside a new API token, which is shown only once.
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
        ? "Kopiert. Füge ihn jetzt dort ein, wo du ihn brauchst."
        : "Kopieren ging nicht – markiere den Token und kopiere ihn mit Strg+C.";
    }
  });
}

const neu = document.getElementById("neuer-token");
if (neu) {
  neu.focus();
  document.getElementById("neuer-token-wert")?.select();
}
