"""A real server process for crash tests: ``python -m tests.integration.slow_server DATA_DIR PORT DB_URL
[WORDS DELAY_S | llm BASE_URL]``.

The API under uvicorn on 127.0.0.1:PORT with the real engine over the small test corpus and a writer
that streams slowly (so a test can kill the process mid-generation; 60 words 0.05 s apart unless told
otherwise), or the OpenAI-compatible chat model at BASE_URL (a test's scripted fake), on the given
database.
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

from lectern.api import create_app
from lectern.writers import AnswerWriter, create_writer
from tests.api_support import make_engine, make_settings
from tests.fakes.slow_writer import SlowWriter


def main() -> None:
    data, port, url = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    writer: AnswerWriter
    if len(sys.argv) > 5 and sys.argv[4] == "llm":
        llm = {"llm_provider": "openai", "llm_base_url": sys.argv[5], "llm_api_key": "test"}
        settings = make_settings(data, database_url=url, llm_model="fake-model", **llm)
        writer = create_writer(settings)
    else:
        words, delay_s = (int(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else (60, 0.05)
        settings = make_settings(data, database_url=url)
        writer = SlowWriter(words=words, delay_s=delay_s)
    app = create_app(settings, engine=make_engine(settings, writer))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
