"""Critical Hinweise by e-mail: which kinds are mailed (arten), what a mail says (inhalt), collecting
new Hinweise into one mail per person and sending it idempotently (services), the trigger on a new
Hinweis (signals) and the admin's read-only view (admin). docs/betrieb.md „Hinweise per E-Mail“."""
