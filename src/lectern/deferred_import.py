"""Register a package with its ``__init__`` deferred: its submodules import on their own, and the first
attribute asked of the package itself runs the ``__init__``, so code that imports the package later
finds it whole. Used where a package's ``__init__`` imports far more than Lectern needs (all of
Snowball's languages, LanceDB's REST client)."""

from __future__ import annotations

import importlib.util
import sys
import threading


def defer_package_init(name: str) -> bool:
    """Register `name` with its ``__init__`` deferred; False when that cannot be done (already
    imported, or not installed) and nothing changed."""
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()

    def complete(attribute: str) -> object:
        """Run the package's ``__init__`` once, then answer as the whole package would."""
        with lock:
            if module.__dict__.get("__getattr__") is complete:
                del module.__dict__["__getattr__"]
                loader.exec_module(module)
        return getattr(module, attribute)

    module.__dict__["__getattr__"] = complete
    sys.modules[name] = module
    return True
