"""Data protection requests of a Beteiligter: the Auskunft (Art. 15 DSGVO) as JSON and PDF, and the
erasure (Art. 17 DSGVO) that waits for the Handakten's retention (§ 50 Abs. 1 BRAO) to end.

person: who the person is across the Akten one may see, and which records name them (scoped reads);
auskunft: what the Auskunft says; pdf: it on the firm's letterhead; loeschung: vormerken, aufheben,
the earliest date and the beat's deletion with its Löschprotokoll; views and urls: the pages.
"""
