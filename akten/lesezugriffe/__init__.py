"""The read log: who read which Akte and Dokument, when and how (model: akten/models/lesezugriff.py)."""
