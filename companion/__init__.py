"""Tabletop Companion: tracks the tokens and dials of five board games beside a real table."""

__version__ = "0.1.0"
