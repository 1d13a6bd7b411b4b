"""Answer writers: the extractive default and any OpenAI-compatible chat model."""
