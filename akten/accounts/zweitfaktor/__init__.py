"""The second factor (TOTP, issue 37): who must give it (the roles the admin names in the
Kanzleieinstellung, the Verwaltung for everyone; a demo user's visible exemption), whether a session has
given it, and the pages to set it up, to give it after the password and to remove it.

regeln: the reads (who must, what a session still owes); services: the writes (set up, confirm, check a
code with django-otp's throttle, new recovery codes, remove, reset by the admin); middleware: pages
send whoever still owes it to enter or set it up (the API and the websocket ask regeln themselves,
akten/accounts/auth.py); forms, views, urls: the pages under /konto/zweiter-faktor/; admin: the
User admin's column and reset action (django-otp's own device admins are taken out).
"""
