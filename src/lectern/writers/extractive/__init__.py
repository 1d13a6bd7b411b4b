"""The default offline writer (`writer.py`): answers with the retrieved sentences that best answer the
question."""

from lectern.writers.extractive.writer import NAME, ExtractiveWriter

__all__ = ["NAME", "ExtractiveWriter"]
