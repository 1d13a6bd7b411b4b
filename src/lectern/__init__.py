"""Lectern: grounded question answering over documentation and textbooks."""

__version__ = "0.1.0"
