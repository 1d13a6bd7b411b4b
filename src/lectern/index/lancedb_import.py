"""Import LanceDB without importing its REST client up front, nor checking its overrides: ~0.5 s of
every one-shot command.

``lancedb`` imports ``lance_namespace``, which imports models from the generated REST client package
``lance_namespace_urllib3_client``. That package's ``__init__`` also imports its nine API classes (366
methods wrapped in ``pydantic.validate_call``, each building a validator when the class is defined)
and urllib3, about 0.4-0.5 s on a 2-core machine, though only a remote namespace calls them. Lectern
opens local tables, which need the ``models`` subpackage alone.

So the package is registered without running its ``__init__``: its subpackages import as usual, and
the first attribute asked of the package itself runs the ``__init__`` then, so code that does use the
REST client still finds it whole.

Before Python 3.12, LanceDB marks its ~100 overriding methods with the ``overrides`` package's
``@override``, which checks each one as its class is defined (finds the base classes by disassembling
the caller's frame, compares signatures): ~0.1 s of CPU. From 3.12 LanceDB uses ``typing.override``,
which only sets ``__override__``, and a plain class for ``EnforceOverrides``. `import_lancedb` imports
LanceDB with those two in place of the package's, as it runs on 3.12, and puts the package's back.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import ModuleType
from typing import TypeVar

from lectern.deferred_import import defer_package_init

REST_CLIENT = "lance_namespace_urllib3_client"
_Method = TypeVar("_Method", bound=Callable[..., object])
_IMPORTING = threading.Lock()


def defer_rest_client() -> bool:
    """Register the REST client package with its ``__init__`` deferred; False when that cannot be
    done (already imported, or not installed) and nothing changed."""
    return defer_package_init(REST_CLIENT)


def import_lancedb() -> ModuleType:
    """``import lancedb``, with the REST client deferred and its methods' override checks skipped."""
    if "lancedb" in sys.modules:
        return sys.modules["lancedb"]
    with _IMPORTING:  # one swap at a time: a second one would save and put back the stand-ins
        defer_rest_client()
        with _overrides_as_on_python_3_12():
            return importlib.import_module("lancedb")


def mark_override(method: _Method) -> _Method:
    """``typing.override`` of Python 3.12: sets ``__override__`` where it can, checks nothing."""
    with suppress(AttributeError, TypeError):
        method.__override__ = True  # type: ignore[attr-defined]
    return method


class PlainClass:
    """What LanceDB derives its connections from on Python 3.12 instead of ``EnforceOverrides``."""


@contextmanager
def _overrides_as_on_python_3_12() -> Iterator[None]:
    if sys.version_info >= (3, 12):
        yield
        return
    try:
        import overrides
    except ImportError:  # LanceDB would fail on its own import: let it say so
        yield
        return
    saved = overrides.override, overrides.EnforceOverrides
    overrides.override, overrides.EnforceOverrides = mark_override, PlainClass  # type: ignore[misc, assignment]
    try:
        yield
    finally:
        overrides.override, overrides.EnforceOverrides = saved  # type: ignore[misc]
