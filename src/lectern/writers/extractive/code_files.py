"""Code blocks that are files: the file a quoted sentence names, and the one the question names."""

from __future__ import annotations

import re

from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.code_choice import _continues
from lectern.writers.extractive.code_quoting import _with_code

# A file a sentence names ("`send_goal.py` - Send goals from a script"): a program or configuration file.
_FILE_NAME = re.compile(
    r"\b[\w-]+\.(?:py|cpp|hpp|cc|h|c|cs|js|ts|java|rs|go|yaml|yml|xml|urdf|xacro|sdf|json|sh|bash|toml|cfg|ini)\b"
)
FILE_TITLE_LINES = 2  # a block names its file in its fence (title="...") or its first line ("# File: ...")


def _with_named_code(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate]
) -> list[_Candidate]:
    """A quoted sentence that names a file brings the code block of that file ("`send_goal.py` - Send
    goals programmatically" and the block titled "send_goal.py"): the file is the answer it points
    to. One block, for the best sentence that names one, when the answer quotes no code yet."""
    if not codes or any(c.unit.kind == "code" for c in chosen):
        return chosen
    for c in chosen:
        for name in dict.fromkeys(m.group(0) for m in _FILE_NAME.finditer(c.unit.text)):
            named = re.compile(rf"(?<![\w-]){re.escape(name)}\b")
            files = [k for k in codes if named.search("\n".join(k.unit.text.split("\n")[:FILE_TITLE_LINES]))]
            if files:
                # A long file is split over chunks: its opening part (not indented) says what it is.
                code = min(files, key=lambda k: (_continues(k.unit.text), k.source))
                return _with_code(code, chosen, candidates)
    return chosen


def _titled(block: str, name: str) -> bool:
    """Whether a fenced block is the file `name`: its fence titles it (title="scripts/name") or its
    first line is a comment that names it ("# config/name", "// File: name")."""
    named = re.compile(rf"(?<![\w-]){re.escape(name)}\b")
    fence, *rest = block.split("\n")
    if "title=" in fence and named.search(fence):
        return True
    first = rest[0].strip() if rest else ""
    return (
        first.startswith(("#", "//", "<!--", "--", ";"))
        and not first.startswith("#!")
        and bool(named.search(first))
    )


def _with_asked_file(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate], asked: str
) -> list[_Candidate]:
    """A question that names a file ("how long does record_data.sh record for?") asks about that file's
    contents: the block that is that file comes, whatever else the answer quotes."""
    for name in dict.fromkeys(m.group(0) for m in _FILE_NAME.finditer(asked)):
        files = [k for k in codes if _titled(k.unit.text, name)]
        if files and not any(c.unit.kind == "code" and _titled(c.unit.text, name) for c in chosen):
            code = min(files, key=lambda k: (_continues(k.unit.text), k.source))
            return _with_code(code, chosen, candidates)
    return chosen
