"""`python -m lectern.cli`."""

from lectern.cli import app

app()
