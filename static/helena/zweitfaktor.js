// The recovery codes page: „Drucken“ opens the browser's print dialog (the page prints without navigation).
for (const knopf of document.querySelectorAll("[data-drucken]")) {
  knopf.addEventListener("click", () => window.print());
}
