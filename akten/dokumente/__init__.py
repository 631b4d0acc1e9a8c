"""Documents in and out: what an upload is (typen), reading its text (lesen, ocr), the pages of a
text (seiten), the uploads and their extraction (services), and a Dokument rendered as DOCX or PDF
on the Kanzlei's letterhead (ausgabe)."""
