"""Crowd platforms: invite links, Prolific, MTurk ExternalQuestion; importing past crowd results."""
