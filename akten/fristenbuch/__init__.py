"""The Fristenbuch: every open Frist, Termin and Wiedervorlage of the Akten one may see (/fristen/,
GET /api/v1/fristen), and the Fristen of one Akte as the Akte page shows and keeps them."""
