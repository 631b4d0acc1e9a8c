from django.apps import AppConfig


class HelenaConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "helena"
    verbose_name = "Helena"

    def ready(self) -> None:
        from akten import panels  # noqa: PLC0415 (the Akte page's extension point, once apps are loaded)
        from helena.web.akte_panels import activity, auftrag_form, gedaechtnis, muster_form  # noqa: PLC0415

        panels.register(gedaechtnis)
        panels.register(auftrag_form)
        panels.register(muster_form)
        panels.register(activity)
        from akten.datenschutz import angaben, fundstellen  # noqa: PLC0415
        from helena.conversations.datenschutz import drittland  # noqa: PLC0415
        from helena.conversations.datenschutz import fundstellen as helena_fundstellen  # noqa: PLC0415

        fundstellen.register(helena_fundstellen)  # what a deletion lists „zur Prüfung“
        angaben.register(drittland)  # the Auskunft's Art. 15 Abs. 2 note
        from helena import signals  # noqa: PLC0415
        from helena.proactive.auftraege import auftraege_abschliessen  # noqa: PLC0415
        from helena.runs.ending import on_run_end  # noqa: PLC0415

        signals.connect()
        on_run_end(auftraege_abschliessen)  # an Auftrag ends with its run
