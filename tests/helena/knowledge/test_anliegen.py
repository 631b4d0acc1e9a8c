"""Reading a client's e-mail: the asking sentences are the core, the story is context, greeting and
sign-off are no part of the question (helena/knowledge/anliegen.py)."""

from __future__ import annotations

from helena.knowledge.anliegen import anliegen, fragt, saetze

MAIL = """Sehr geehrte Frau Rechtsanwältin Berger,

ich wohne seit 2019 in einer Dreizimmerwohnung in Kassel, Miete 890 Euro warm. Meine Vermieterin,
Frau Kowalski, hat mir im März geschrieben, dass sie die Wohnung für ihre Tochter braucht, die aus
Hamburg zurückzieht. Ich bin 78 Jahre alt, habe Pflegegrad 2 und mein Arzt ist hier um die Ecke.
Die Kündigung kam per Einschreiben, mit Frist zum 31. Dezember. Ich habe schon schlecht geschlafen.

Kann ich mich dagegen wehren, weil ich alt und krank bin? Und bis wann muss ich widersprechen

Mit freundlichen Grüßen
Erna Schulz"""


def test_a_short_question_is_searched_as_it_is() -> None:
    question = "Wie lange habe ich Zeit für die Berufung?"
    assert anliegen(question).kern == question
    assert not anliegen(question).lang


def test_a_long_mail_is_split_into_what_it_asks_and_its_story() -> None:
    teile = anliegen(MAIL)
    assert teile.lang
    assert teile.kern.startswith("Kann ich mich dagegen wehren, weil ich alt und krank bin?")
    assert "bis wann muss ich widersprechen" in teile.kern  # a question without its "?"
    assert "Pflegegrad 2" in teile.kontext and "Pflegegrad" not in teile.kern
    assert "Sehr geehrte" not in teile.kern + teile.kontext  # the greeting is no part of it
    assert "Grüßen" not in teile.kern + teile.kontext and "Erna Schulz" not in teile.kontext


def test_without_a_question_mark_the_asking_sentences_are_found_by_their_words() -> None:
    mail = ("Hallo, " + "mein Nachbar hat letzten Sommer eine Hecke direkt an die Grenze gepflanzt. " * 6
            + "Ich möchte wissen, ob ich verlangen kann, dass er sie zurückschneidet. Danke im Voraus, Tom")
    teile = anliegen(mail)
    assert teile.kern == "Ich möchte wissen, ob ich verlangen kann, dass er sie zurückschneidet."
    assert "Danke" not in teile.kontext


def test_a_story_that_asks_nothing_is_read_from_its_end() -> None:
    mail = " ".join(f"Am {tag}. Mai kam wieder ein Brief vom Inkassobüro mit neuen Gebühren."
                    for tag in range(1, 9))
    teile = anliegen(mail)
    assert teile.kern == "Am 7. Mai kam wieder ein Brief vom Inkassobüro mit neuen Gebühren. " \
                         "Am 8. Mai kam wieder ein Brief vom Inkassobüro mit neuen Gebühren."


def test_word_order_tells_a_question_from_a_statement() -> None:
    assert fragt("Kann ich die Miete mindern")
    assert fragt("Jetzt muss ich wissen, ob das rechtens ist")
    assert not fragt("Ich kann seit Wochen nicht schlafen.")
    assert not fragt("Der Vermieter hat die Heizung nicht repariert.")


def test_sentences_lists_and_paragraphs_are_split() -> None:
    assert saetze("Erstens das. Zweitens jenes!\n\n- ein Punkt\n- noch einer") == [
        "Erstens das.", "Zweitens jenes!", "- ein Punkt", "- noch einer"]
