"""The firm's records and its legal arithmetic: Akten, Beteiligte, Fristen, Dokumente, time, access
and accounts; knows neither drafts nor Helena (docs/architecture.md)."""
