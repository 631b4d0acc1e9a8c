// The daily Fristenkontrolle (/fristen/kontrolle/): a "Drucken" button where the browser can print.
for (const button of document.querySelectorAll("[data-drucken]")) {
  button.hidden = false;
  button.addEventListener("click", () => window.print());
}
