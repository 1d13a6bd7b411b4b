"""A real server process for crash tests: ``python -m tests.integration.slow_server DATA_DIR PORT DB_URL``.

The API under uvicorn on 127.0.0.1:PORT with the real engine over the small test corpus and a writer
that streams slowly (so a test can kill the process mid-generation), on the given database.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

from lectern.api import create_app
from tests.api_support import make_engine, make_settings
from tests.fakes.slow_writer import SlowWriter


def main() -> None:
    data, port, url = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    settings = make_settings(data, database_url=url)
    app = create_app(settings, engine=make_engine(settings, SlowWriter(words=60, delay_s=0.05)))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
