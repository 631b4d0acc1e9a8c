"""Client data that must not leave the house: the patterns (patterns), the Redactor that replaces
names, addresses, IBANs … by placeholders and back (redactor), a run's Privacy with one Redactor
for all its calls (privacy), and the Akten a run touched, read from the database (touched)."""
