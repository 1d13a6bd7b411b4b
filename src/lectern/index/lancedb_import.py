"""Import LanceDB without importing its REST client up front: ~0.4 s of every one-shot command.

``lancedb`` imports ``lance_namespace``, which imports models from the generated REST client package
``lance_namespace_urllib3_client``. That package's ``__init__`` also imports its nine API classes (366
methods wrapped in ``pydantic.validate_call``, each building a validator when the class is defined)
and urllib3, about 0.4-0.5 s on a 2-core machine, though only a remote namespace calls them. Lectern
opens local tables, which need the ``models`` subpackage alone.

So the package is registered without running its ``__init__``: its subpackages import as usual, and
the first attribute asked of the package itself runs the ``__init__`` then, so code that does use the
REST client still finds it whole.
"""

from __future__ import annotations

import importlib.util
import sys
import threading

REST_CLIENT = "lance_namespace_urllib3_client"


def defer_rest_client() -> bool:
    """Register the REST client package with its ``__init__`` deferred; False when that cannot be
    done (already imported, or not installed) and nothing changed."""
    if REST_CLIENT in sys.modules:
        return False
    spec = importlib.util.find_spec(REST_CLIENT)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()

    def complete(name: str) -> object:
        """Run the package's ``__init__`` once, then answer as the whole package would."""
        with lock:
            if module.__dict__.get("__getattr__") is complete:
                del module.__dict__["__getattr__"]
                loader.exec_module(module)
        return getattr(module, name)

    module.__dict__["__getattr__"] = complete
    sys.modules[REST_CLIENT] = module
    return True
