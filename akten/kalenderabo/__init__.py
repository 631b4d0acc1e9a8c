"""The calendar feed (Kalender-Abo): a person's Fristen, Termine and Wiedervorlagen as an iCalendar
feed (RFC 5545) under a secret address, for Outlook, Thunderbird, Apple Kalender or Google Kalender.

selectors: which entries a feed shows (only Akten the person may see now) and whose address a key is;
services: a new address, a revoked one, what the feed shows; ics: the entries as iCalendar (icalendar);
views and urls: the feed itself (/kalender/<key>.ics, no login, ETag); api: POST/GET/DELETE
/api/v1/me/kalender; signals: a deactivated person's address is cleared.
The page's part is on /konto/ (akten/accounts/konto/). docs/betrieb.md „Kalender-Abo“ says what a firm
sees and why.
"""
