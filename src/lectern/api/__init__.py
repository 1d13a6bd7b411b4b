"""The HTTP service (FastAPI): one router per contract, thin over the engine's event stream."""

from lectern.api.app import app_factory, create_app

__all__ = ["app_factory", "create_app"]
