"""Reads a BEIR data set folder: corpus.jsonl, queries.jsonl and qrels/<split>.tsv."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lectern.errors import InvalidInput
from lectern.models import Document, Section

Qrels = dict[str, dict[str, int]]  # query id -> {doc id: relevance}


@dataclass(frozen=True)
class BeirDataset:
    root: Path
    queries: dict[str, str]
    qrels: Qrels

    def documents(self) -> Iterator[Document]:
        """The corpus as documents: the title heads one section holding the text."""
        with (self.root / "corpus.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                row = json.loads(line)
                title = str(row.get("title") or "").strip()
                text = str(row.get("text") or "").strip()
                doc_id = str(row["_id"])
                yield Document(
                    source_path=doc_id,
                    format="text",
                    title=title,
                    sections=[Section(heading_hierarchy=[title] if title else [], text=text)],
                    file_hash=hashlib.sha256(line.encode("utf-8")).hexdigest(),
                )


def load_beir(root: Path, split: str = "test") -> BeirDataset:
    """Load queries that have judgements in the split, and the judgements themselves."""
    for needed in ("corpus.jsonl", "queries.jsonl", f"qrels/{split}.tsv"):
        if not (root / needed).is_file():
            raise InvalidInput(f"{root} is not a BEIR data set: {needed} is missing")
    qrels: Qrels = {}
    with (root / "qrels" / f"{split}.tsv").open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for row in reader:
            if len(row) < 3 or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    queries: dict[str, str] = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                if str(row["_id"]) in qrels:
                    queries[str(row["_id"])] = str(row["text"])
    return BeirDataset(root=root, queries=queries, qrels=qrels)
