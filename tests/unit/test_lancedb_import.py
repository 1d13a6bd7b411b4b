"""LanceDB imports without its REST client's API classes, which stay reachable on first use."""

from __future__ import annotations

import subprocess
import sys
import textwrap


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
