"""Ingestion: files → documents (loaders) → chunks (chunker) → vectors (embedder) → index."""
