"""Log lines written by a thread of their own: all of them, in order, with the ids of their request."""

from __future__ import annotations

import io
import json
import logging

from lectern.api.logs import BackgroundStreamHandler, JsonFormatter, request_id_var


def _logger(handler: logging.Handler) -> logging.Logger:
    logger = logging.getLogger("lectern.test-log-writer")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return logger


def test_every_line_is_written_in_order_by_close() -> None:
    stream = io.StringIO()
    handler = BackgroundStreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = _logger(handler)
    for i in range(500):
        logger.info("step", extra={"i": i})
    handler.close()
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["i"] for line in lines] == list(range(500))


def test_a_line_keeps_the_request_id_it_was_logged_under() -> None:
    stream = io.StringIO()
    handler = BackgroundStreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = _logger(handler)
    token = request_id_var.set("req-1")
    logger.info("inside")
    request_id_var.reset(token)
    logger.info("outside")  # formatted later, on the writer thread, after the request has gone
    handler.close()
    inside, outside = (json.loads(line) for line in stream.getvalue().splitlines())
    assert inside["request_id"] == "req-1"
    assert "request_id" not in outside


def test_a_record_that_cannot_be_formatted_does_not_stop_the_writer() -> None:
    stream = io.StringIO()
    handler = BackgroundStreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.handleError = lambda record: None  # type: ignore[method-assign]
    logger = _logger(handler)
    logger.info("broken %d", "not a number")
    logger.info("fine")
    handler.close()
    assert [json.loads(line)["event"] for line in stream.getvalue().splitlines()] == ["fine"]


def test_each_line_has_the_time_of_its_own_record() -> None:
    formatter = JsonFormatter()
    stamps = []
    # seconds apart, back in the same second, and a millisecond later: the second is kept per formatter
    for second, msecs in (
        (1_700_000_000, 250),
        (1_700_000_001, 500),
        (1_700_000_000, 750),
        (1_700_000_000, 751),
    ):
        record = logging.makeLogRecord({"msg": "tick", "created": second + msecs / 1000, "msecs": msecs})
        stamps.append(json.loads(formatter.format(record))["ts"])
    assert stamps == [
        "2023-11-14T22:13:20.250Z",
        "2023-11-14T22:13:21.500Z",
        "2023-11-14T22:13:20.750Z",
        "2023-11-14T22:13:20.751Z",
    ]


def test_a_filter_on_the_handler_still_keeps_records_out() -> None:
    stream = io.StringIO()
    handler = BackgroundStreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(lambda record: record.getMessage() != "secret")
    logger = _logger(handler)
    logger.info("secret")
    logger.info("public")
    handler.close()
    assert [json.loads(line)["event"] for line in stream.getvalue().splitlines()] == ["public"]
