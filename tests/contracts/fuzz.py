"""schemathesis against a real server: every operation of ``/openapi.json`` (stateful links included),
all checks (no 5xx, responses conform to the declared schemas and statuses, no contract drift).

    .venv/bin/python -m tests.contracts.fuzz --max-examples 100 [--seed 1] [--json out.json]

Starts the API under uvicorn on a free loopback port (the real engine over a small in-memory corpus, a
fresh SQLite database, an API key, no rate limit), runs the ``st`` CLI against it and prints the totals.
The CI test (tests/integration/test_schemathesis.py) runs it bounded; a longer run goes in the notes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

KEY = "sk-fuzz-0123456789abcdef"


def run(max_examples: int, seed: int | None, workers: int = 1, timeout_s: float = 1500) -> dict[str, Any]:
    from lectern.api import create_app
    from tests.api_support import LiveServer, make_engine, make_settings

    with tempfile.TemporaryDirectory(prefix="lectern-fuzz-") as tmp:
        settings = make_settings(Path(tmp), api_keys=[KEY], auth_failure_limit="")
        report = Path(tmp) / "report.ndjson"
        with LiveServer(create_app(settings, engine=make_engine(settings))) as live:
            command = [
                str(Path(sys.executable).with_name("st")),
                "--config-file",
                str(Path(__file__).with_name("schemathesis.toml")),
                "run",
                f"{live.url}/openapi.json",
                "--checks",
                "all",
                "--max-examples",
                str(max_examples),
                "--workers",
                str(workers),
                "--header",
                f"Authorization: Bearer {KEY}",
                "--request-timeout",
                "30",
                "--continue-on-failure",
                "--report",
                "ndjson",
                "--report-ndjson-path",
                str(report),
                "--no-color",
                "--generation-database",
                "none",
                # Strings with NUL or lone surrogates are refused with a 400 by design (no database stores
                # them; /openapi.json says so): generate text a database can hold.
                "--generation-allow-x00",
                "false",
                "--generation-codec",
                "utf-8",
            ]
            if seed is not None:
                command += ["--seed", str(seed)]
            started = time.monotonic()
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                env={**os.environ, "NO_COLOR": "1"},
                cwd=tmp,  # the CLI keeps a cache folder in its working directory
            )
            elapsed = time.monotonic() - started
        return summarise(done, report, elapsed)


def summarise(done: subprocess.CompletedProcess[str], report: Path, elapsed: float) -> dict[str, Any]:
    """Requests and statuses from the NDJSON report; failures from the CLI's summary (its exit code is
    the verdict)."""
    requests = 0
    statuses: dict[str, int] = {}
    if report.exists():
        for line in report.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            for body in event.values():
                if not isinstance(body, dict):
                    continue
                recorder = body.get("recorder") or {}
                for interaction in (recorder.get("interactions") or {}).values():
                    requests += 1
                    response = interaction.get("response") or {}
                    code = str(response.get("status_code", "none"))
                    statuses[code] = statuses.get(code, 0) + 1
    failures = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("❌ ST")]
    generated = [line.strip() for line in done.stdout.splitlines() if " generated, " in line]
    return {
        "exit_code": done.returncode,
        "requests": requests,
        "statuses": dict(sorted(statuses.items())),
        "failures": failures,
        "test_cases": generated[-1] if generated else "",
        "seconds": round(elapsed, 1),
        "output_tail": done.stdout + done.stderr[-2000:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-examples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = run(args.max_examples, args.seed, args.workers)
    print(result["output_tail"])
    print(f"requests: {result['requests']}  statuses: {result['statuses']}  seconds: {result['seconds']}")
    print(f"test cases: {result['test_cases']}  exit code: {result['exit_code']}")
    for failure in result["failures"]:
        print(" ", failure)
    if args.json:
        args.json.write_text(json.dumps({k: v for k, v in result.items() if k != "output_tail"}, indent=1))


if __name__ == "__main__":
    main()
