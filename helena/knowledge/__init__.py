"""Statutes, decisions, Muster and the firm's own files, searched (its own Django app): importers/,
the question read (query), lexical and semantic ranking fused (index, embeddings, dense, ranking),
the search (selectors), its API and pages; aktensuche/ the semantic search in the firm's Akten."""
