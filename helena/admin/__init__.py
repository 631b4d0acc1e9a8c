"""Helena in the Django admin, one module per concern: model tiers and routes (tiers), run limits and
rate limits (limits), conversations, runs and the tool audit (runs), the usage ledger (usage), the
error log (errors), plans and questions (plans). Django's autodiscovery imports this package."""

from helena.admin import errors, limits, plans, runs, tiers, usage  # noqa: F401  (each registers its admins)
