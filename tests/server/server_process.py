"""``iceview serve`` as a real subprocess, for tests and benchmarks that need the server over a
socket (several worker processes, clients in other processes, shutdown by signal).

    with serve_catalog(sqlite_catalog_properties(tmp_path), workers=2) as server:
        requests.get(server.url + "v1/config")

The catalog is configured the way users configure it, through PyIceberg's environment variables
(``PYICEBERG_CATALOG__<NAME>__<KEY>``), and the server is started with the CLI,
``python -m iceview.cli -c <name> serve --port <free port> ...``. :func:`start_server` returns once
``GET /v1/config`` answers; :meth:`ServerProcess.stop` sends SIGTERM and requires the server to exit
within :data:`STOP_TIMEOUT` seconds (uvicorn's graceful shutdown), else it is killed and the stop
fails. The server's output goes to a log file whose tail is in every failure message. A server
still running when the Python process that started it exits (an uncaught exception, a broken
pipe) is stopped then too, so no server outlives its test or benchmark.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

__all__ = [
    "STOP_TIMEOUT",
    "ServerProcess",
    "ServerProcessError",
    "free_port",
    "postgres_catalog_properties",
    "serve_catalog",
    "sqlite_catalog_properties",
    "start_server",
]

CATALOG_NAME = "served"
"""The name the catalog is configured under (also its REST prefix when several are served)."""
START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
_CONFIG_ENV_PREFIX = "PYICEBERG_CATALOG__"
_LIVE: set[ServerProcess] = set()


class ServerProcessError(RuntimeError):
    """The server did not start, or did not stop in time (the message has its log's tail)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (another process may take it before it is used: callers
    retry, see :func:`start_server`)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sqlite_catalog_properties(root: Path) -> dict[str, str]:
    """Catalog properties of a SQL catalog on a SQLite file and a warehouse folder under ``root``."""
    root = Path(root).absolute()
    (root / "warehouse").mkdir(parents=True, exist_ok=True)
    return {
        "type": "sql",
        "uri": f"sqlite:///{root / 'catalog.db'}",
        "warehouse": f"file://{root / 'warehouse'}",
    }


def postgres_catalog_properties(database_url: str, warehouse: Path) -> dict[str, str]:
    """Catalog properties of a SQL catalog on a PostgreSQL database (a SQLAlchemy URL, as
    ``fixtures.postgres`` hands out) with its files under ``warehouse``."""
    warehouse = Path(warehouse).absolute()
    warehouse.mkdir(parents=True, exist_ok=True)
    return {"type": "sql", "uri": database_url, "warehouse": f"file://{warehouse}"}


@dataclass(eq=False)
class ServerProcess:
    """A running ``iceview serve``."""

    url: str
    """The base URL, with a trailing slash: ``http://127.0.0.1:PORT/``."""
    catalog_properties: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)
    _log: IO[bytes] | None = field(default=None, repr=False)

    @property
    def port(self) -> int:
        return int(self.url.rstrip("/").rsplit(":", 1)[1])

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def log_text(self, lines: int = 60) -> str:
        """The last ``lines`` lines of the server's output."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> int:
        """SIGTERM, then wait up to :data:`STOP_TIMEOUT` s; return the exit status. A server that
        does not exit in time is killed and :class:`ServerProcessError` raised."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    return self.process.wait(timeout=STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
                    raise ServerProcessError(
                        f"iceview serve did not exit within {STOP_TIMEOUT:g} s of SIGTERM"
                        f"\n--- {self.log_path} ---\n{self.log_text()}"
                    ) from None
            return self.process.returncode
        finally:
            _LIVE.discard(self)
            if self._log is not None:
                self._log.close()
                self._log = None


def _environment(properties: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_CONFIG_ENV_PREFIX)}
    for key, value in properties.items():
        env[f"{_CONFIG_ENV_PREFIX}{CATALOG_NAME.upper()}__{key.upper().replace('-', '_')}"] = value
    # the child must import this checkout's iceview even when the package is not installed
    source = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH")) if p)
    return env


def _answers(url: str) -> bool:
    try:
        urllib.request.urlopen(url + "v1/config", timeout=2).close()
    except urllib.error.HTTPError:
        return True  # any HTTP status is an answer (with authentication, 401)
    except OSError:
        return False
    return True


def start_server(
    catalog_properties: Mapping[str, str],
    *,
    workers: int = 1,
    args: Sequence[str] = (),
    log_dir: Path | None = None,
    attempts: int = 3,
) -> ServerProcess:
    """Start ``iceview serve`` on a free port of 127.0.0.1 for the catalog ``catalog_properties``
    (PyIceberg catalog properties: ``type``, ``uri``, ``warehouse``, ...), with ``workers`` worker
    processes and the extra CLI ``args``; return once ``GET /v1/config`` answers.

    A start that fails because the port was taken meanwhile is retried on another port, up to
    ``attempts`` times. Raises :class:`ServerProcessError` with the server's log otherwise.
    """
    log_dir = Path(log_dir) if log_dir is not None else Path(tempfile.mkdtemp(prefix="iceview-serve-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    env = _environment(catalog_properties)
    last = ""
    for attempt in range(attempts):
        port = free_port()
        log_path = log_dir / f"serve-{port}.log"
        log = open(log_path, "wb")  # noqa: SIM115 - closed by ServerProcess.stop
        command = [sys.executable, "-m", "iceview.cli", "-c", CATALOG_NAME, "serve", "--port", str(port)]
        command += ["--workers", str(workers), *args]
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
        )
        server = ServerProcess(f"http://127.0.0.1:{port}/", dict(catalog_properties), log_path, process, log)
        _LIVE.add(server)
        deadline = time.monotonic() + START_TIMEOUT
        while process.poll() is None and time.monotonic() < deadline:
            if _answers(server.url):
                return server
            time.sleep(0.05)
        if process.poll() is None:
            with contextlib.suppress(ServerProcessError):
                server.stop()
            raise ServerProcessError(
                f"iceview serve did not answer GET /v1/config within {START_TIMEOUT:g} s"
                f"\n--- {log_path} ---\n{server.log_text()}"
            )
        server.stop()
        last = server.log_text()
        if "address already in use" not in last.lower() or attempt == attempts - 1:
            break
    raise ServerProcessError(f"iceview serve exited while starting\n--- log ---\n{last}")


@contextlib.contextmanager
def serve_catalog(
    catalog_properties: Mapping[str, str],
    *,
    workers: int = 1,
    args: Sequence[str] = (),
    log_dir: Path | None = None,
) -> Iterator[ServerProcess]:
    """:func:`start_server`, yield it, then stop it with SIGTERM; the stop must succeed (exit
    within :data:`STOP_TIMEOUT` s with status 0)."""
    server = start_server(catalog_properties, workers=workers, args=args, log_dir=log_dir)
    try:
        yield server
    except BaseException:
        with contextlib.suppress(ServerProcessError):
            server.stop()  # the body's failure is the one to report
        raise
    status = server.stop()
    if status != 0:
        raise ServerProcessError(
            f"iceview serve exited with {status} after SIGTERM\n--- {server.log_path} ---\n{server.log_text()}"
        )


@atexit.register
def _stop_all() -> None:
    for server in list(_LIVE):
        with contextlib.suppress(ServerProcessError):
            server.stop()
