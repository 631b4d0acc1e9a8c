"""Accounts and login: users and roles, API tokens (users), how a request or a socket is
authenticated (auth), and the user's own page /konto/ (konto/)."""
