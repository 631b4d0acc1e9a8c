"""The Fristen a lawyer picks by name (Berufung, Klageerwiderung, KSchG-Klage …): data with their norm."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from akten.fristen.typen import Dauer, FristPreset

# --------------------------------------------------------------------------- #
# Presets
# --------------------------------------------------------------------------- #

NOTFRIST_HINWEIS = (
    "Notfrist (§ 224 Abs. 1 S. 2 ZPO): nicht verlängerbar; bei Versäumung nur "
    "Wiedereinsetzung in den vorigen Stand (§§ 233 ff. ZPO)."
)

PRESETS: Mapping[str, FristPreset] = MappingProxyType(
    {
        p.key: p
        for p in (
            FristPreset(
                key="berufung",
                bezeichnung="Berufungsfrist",
                dauer=Dauer(monate=1),
                norm="§ 517 ZPO",
                notfrist=True,
                hinweis=(
                    "Beginn mit Zustellung des in vollständiger Form abgefassten Urteils, "
                    "spätestens mit Ablauf von fünf Monaten nach der Verkündung."
                ),
            ),
            FristPreset(
                key="berufungsbegruendung",
                bezeichnung="Berufungsbegründungsfrist",
                dauer=Dauer(monate=2),
                norm="§ 520 Abs. 2 ZPO",
                notfrist=False,
                hinweis=(
                    "Beginn mit Zustellung des Urteils (nicht mit Einlegung der Berufung), "
                    "spätestens fünf Monate nach Verkündung; verlängerbar "
                    "(§ 520 Abs. 2 S. 2, 3 ZPO)."
                ),
            ),
            FristPreset(
                key="einspruch_versaeumnisurteil",
                bezeichnung="Einspruch gegen Versäumnisurteil",
                dauer=Dauer(wochen=2),
                norm="§ 339 Abs. 1 ZPO",
                notfrist=True,
                hinweis="Beginn mit Zustellung des Versäumnisurteils.",
            ),
            FristPreset(
                key="widerspruch_mahnbescheid",
                bezeichnung="Widerspruch gegen Mahnbescheid",
                dauer=Dauer(wochen=2),
                norm="§ 692 Abs. 1 Nr. 3, § 694 ZPO",
                notfrist=False,
                hinweis=(
                    "Keine Notfrist: Widerspruch ist auch nach Fristablauf möglich, solange "
                    "der Vollstreckungsbescheid nicht verfügt ist (§ 694 Abs. 1 ZPO); "
                    "danach nur Einspruch gegen den Vollstreckungsbescheid."
                ),
            ),
            FristPreset(
                key="revision",
                bezeichnung="Revisionsfrist",
                dauer=Dauer(monate=1),
                norm="§ 548 ZPO",
                notfrist=True,
                hinweis=(
                    "Beginn mit Zustellung des in vollständiger Form abgefassten Urteils, "
                    "spätestens mit Ablauf von fünf Monaten nach der Verkündung."
                ),
            ),
            FristPreset(
                key="revisionsbegruendung",
                bezeichnung="Revisionsbegründungsfrist",
                dauer=Dauer(monate=2),
                norm="§ 551 Abs. 2 ZPO",
                notfrist=False,
                hinweis=(
                    "Beginn mit Zustellung des Urteils, spätestens fünf Monate nach "
                    "Verkündung; verlängerbar (§ 551 Abs. 2 S. 5, 6 ZPO)."
                ),
            ),
            FristPreset(
                key="kuendigungsschutzklage",
                bezeichnung="Kündigungsschutzklage",
                dauer=Dauer(wochen=3),
                norm="§ 4 S. 1 KSchG",
                notfrist=False,
                hinweis=(
                    "Beginn mit Zugang der schriftlichen Kündigung; bei Versäumung gilt die "
                    "Kündigung als wirksam (§ 7 KSchG), nachträgliche Zulassung nur nach "
                    "§ 5 KSchG."
                ),
            ),
        )
    }
)
