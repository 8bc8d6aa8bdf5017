"""How `serve` logs, in every worker process alike.

uvicorn applies `log_config` in the process it starts and again in each worker it spawns
(`--workers N` spawns fresh interpreters: a `basicConfig` in the parent reaches none of them, so
the engine's own lines were lost there). The engine's and uvicorn's loggers share the root
handler, so every line has one format, and each names its process id.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, Literal

LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, pid, message[, exc]."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, object] = {
            "time": f"{stamp}.{int(record.msecs):03d}Z", "level": record.levelname,
            "logger": record.name, "pid": record.process, "message": record.getMessage(),
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def log_config(fmt: LogFormat = "text") -> dict[str, Any]:
    """A `logging.config.dictConfig` for uvicorn's `log_config`: everything through the root
    handler on stderr at INFO (uvicorn's `--log-level` still sets its own loggers' level);
    RPC clients (httpx) stay at WARNING, so calls are not logged one by one."""
    formatter: dict[str, object] = ({"()": f"{__name__}.JsonFormatter"} if fmt == "json"
                                 else {"format": TEXT_FORMAT})
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"engine": formatter},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "engine",
                                "stream": "ext://sys.stderr"}},
        "root": {"level": "INFO", "handlers": ["stderr"]},
        "loggers": {
            **{name: {"handlers": [], "propagate": True}
               for name in ("uvicorn", "uvicorn.error", "uvicorn.access")},
            "httpx": {"level": "WARNING"},
            "httpcore": {"level": "WARNING"},
        },
    }
