"""Decorators around a ChatModel (base: WrapperModel): every call in the usage ledger (accounting)
and a run's redaction on the way to a cloud (redacting)."""
