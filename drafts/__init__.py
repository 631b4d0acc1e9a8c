"""Proposals made by Helena and their decision by a person: one Draft model with a kind, the preview
card, approve / edit / reject; an approval creates the record through akten's services."""
