"""Retrieval evaluation on BEIR-format data sets."""
