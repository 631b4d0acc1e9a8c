"""The user's own account (/konto/ and /api/v1/me/tokens): who they are, their password (Django's own
views), their API tokens (created with a name and an optional last day, shown in clear once, revoked)
and which Hinweise they want (HinweisEinstellung; applied in akten.selectors.alerts_for).

selectors: reads, always of the user's own records; services: the writes; forms, views, urls: the
page; api: the JSON endpoints.
"""
