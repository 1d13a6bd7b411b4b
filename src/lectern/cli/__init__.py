"""The `lectern` command line."""

from lectern.cli.main import app

__all__ = ["app"]
