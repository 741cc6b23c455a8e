"""Ticket Triage: label support tickets live with a small local language model."""

__version__ = "0.1.0"
