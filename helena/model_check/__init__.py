"""The model check (Modellprüfung): whether the model serving a tier will do for Helena, found out by
ten short German tasks through the real agent loop on a made-up Akte (pruefakte), never the firm's
records. tasks: the catalogue; runner: one task through the loop, measured; report: the verdict per
tier, what to change, the German lines; services: a tier's check and its result beside the tier.
Started by `manage.py modellpruefung`, the admin's button on the Modellstufen (in the Celery worker)."""
