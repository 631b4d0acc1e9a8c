"""The one search box (issue 23): Akten, Fristen, Dokumente, Notizen, Gespräche and statutes, grouped,
scoped to the user; an Aktenzeichen or a citation jumps straight to its page.

selectors (the search and the direct jump) → gruppen (one query per group, each scoped by the
selectors of its app); api (GET /api/v1/suche), views + urls (/suche/, the results page).
"""
