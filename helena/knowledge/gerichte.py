"""Which court a question is about: the procedural codes of the special courts answer only there.

The ZPO is the general law of court procedure, the VwGO that of the administrative courts. The
labour courts' ArbGG only supplements the ZPO (§ 46 Abs. 2 ArbGG), the social and the fiscal
courts are "besondere Verwaltungsgerichte" (§ 1 SGG, § 1 FGO). Their codes repeat the general
rules with small changes ("Berufungsfrist": § 517 ZPO and § 66 ArbGG, both a month), so the
statutes alone cannot tell which a question means — but a lawyer asking for "die Berufungsfrist"
without naming a court means the general rule, and one asking about the Arbeitsgericht means the
ArbGG. The ranking (helena/knowledge/ranking.py) therefore lets a special court's code yield to
the general one unless the question names that court or its field.
"""

from __future__ import annotations

# A special court's code → words that name the court or its field (matched anywhere in the
# lower-cased question, so "Landesarbeitsgericht", "arbeitsgerichtlich", "Einkommensteuer" count).
SONDERGERICHTE: dict[str, tuple[str, ...]] = {
    "ArbGG": ("arbgg", "arbeitsgericht", "arbeitsrecht", "arbeitssache", "arbeitnehmer", "arbeitgeber",
              "arbeitsverhältnis", "kündigungsschutz", "betriebsrat", "tarifvertrag"),
    "SGG": ("sgg", "sozialgericht", "sozialrecht", "sozialversicherung", "sozialleistung", "jobcenter",
            "rentenversicherung", "krankenkasse", "pflegekasse", "berufsgenossenschaft", "bürgergeld",
            "arbeitslosengeld"),
    "FGO": ("fgo", "finanzgericht", "finanzamt", "steuer"),
}


def unnamed_special_codes(question: str) -> frozenset[str]:
    """The special courts' codes (abbreviations) the question does not point to."""
    text = question.lower()
    return frozenset(abk for abk, words in SONDERGERICHTE.items() if not any(w in text for w in words))
