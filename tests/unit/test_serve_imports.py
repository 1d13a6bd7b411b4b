"""What `lectern serve` keeps out of its process until asked: the MCP SDK loads on the first /mcp request."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SDK = ("mcp", "mcp_types")


def _imported_after(code: str) -> list[str]:
    listed = f"[m for m in sys.modules if m.split('.')[0] in {SDK!r}]"
    probe = f"import json, sys\n{code}\nprint(json.dumps({listed}))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(done.stdout)
    return found


def test_the_api_app_does_not_import_the_mcp_sdk(tmp_path: Path) -> None:
    create = (
        "from lectern.api.app import create_app\n"
        "from lectern.settings import load_settings\n"
        f"create_app(load_settings(data_dir={str(tmp_path)!r}, rate_limit=''))"
    )
    assert _imported_after(create) == []


def test_the_mcp_names_still_load_the_sdk_when_used() -> None:
    assert "mcp" in _imported_after("from lectern.mcp import create_mcp_server")
