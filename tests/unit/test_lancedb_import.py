"""LanceDB imports without its REST client's API classes, which stay reachable on first use."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.strip()


def test_lancedb_imports_without_the_rest_api_classes() -> None:
    out = _run(
        """
        import sys
        import lectern.index.lancedb_index  # imports lancedb
        print("lancedb" in sys.modules, "lance_namespace_urllib3_client.api" in sys.modules)
        """
    )
    assert out == "True False"


def test_the_deferred_package_completes_on_first_use() -> None:
    out = _run(
        """
        import sys
        import lectern.index
        import lance_namespace_urllib3_client as client
        api = client.ApiClient  # runs the package's __init__
        print(api.__name__, "lance_namespace_urllib3_client.api" in sys.modules, hasattr(client, "TableApi"))
        """
    )
    assert out == "ApiClient True True"


def test_nothing_changes_when_the_package_is_already_imported() -> None:
    out = _run(
        """
        import lance_namespace_urllib3_client
        from lectern.index.lancedb_import import defer_rest_client
        print(defer_rest_client())
        """
    )
    assert out == "False"


def test_lancedb_imports_without_the_overrides_checks_which_are_put_back() -> None:
    """Before Python 3.12 LanceDB's @override checks run as its classes are defined; import_lancedb
    skips them (as LanceDB does on 3.12) and leaves the overrides package as it found it."""
    out = _run(
        """
        import sys
        if sys.version_info >= (3, 12):
            print("checked 0, restored True, marked True")
            raise SystemExit
        import importlib
        import overrides

        checks = importlib.import_module("overrides.overrides")
        checked = []
        real = checks._validate_method
        checks._validate_method = lambda method, *args: checked.append(method) or real(method, *args)
        saved = overrides.override, overrides.EnforceOverrides
        from lectern.index import open_index
        from lectern.index.lancedb_import import import_lancedb
        lancedb = import_lancedb()
        from lancedb.db import DBConnection, LanceDBConnection
        restored = (overrides.override, overrides.EnforceOverrides) == saved
        marked = LanceDBConnection.open_table.__override__
        print(f"checked {len(checked)}, restored {restored}, marked {marked}")
        """
    )
    assert out == "checked 0, restored True, marked True"


def test_the_lancedb_engine_imports_lancedb_that_way(tmp_path: Path) -> None:
    out = _run(
        f"""
        import importlib
        from lectern.index import open_index
        from lectern.settings import Settings

        checks = importlib.import_module("overrides.overrides")
        checked = []
        real = checks._validate_method
        checks._validate_method = lambda method, *args: checked.append(method) or real(method, *args)
        index = open_index(Settings(data_dir={str(tmp_path)!r}), "docs")
        print(type(index).__name__, len(checked))
        """
    )
    assert out == "LanceDBIndex 0"
