"""Running the server: uvicorn with N worker processes, each building the same app from the
same settings (passed through the environment, so that workers need no state from the parent).

Safe by default: without authentication the server binds to loopback only, and a non-loopback
``--host`` is refused unless authentication is configured or ``insecure`` is set.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import signal
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import uvicorn

from iceview.errors import InvalidArgumentError

if TYPE_CHECKING:
    from iceview.server.context import ServedCatalog

__all__ = ["ServeOptions", "app_from_environment", "check_host", "serve"]

log = logging.getLogger("iceview.server")

ENV = "ICEVIEW_SERVE_OPTIONS"
"""The environment variable that carries :class:`ServeOptions` (as JSON) to worker processes."""


@dataclass(frozen=True)
class ServeOptions:
    """What ``iceview serve`` was asked to serve, and how."""

    catalogs: tuple[str | None, ...] = (None,)
    """Catalog names from the configuration (None: the default catalog)."""
    host: str = "127.0.0.1"
    port: int = 8181
    workers: int = 1
    insecure: bool = False
    auth_file: str | None = None
    """A YAML or JSON file with the clients, tokens and signing key (``docs/server.md``)."""
    max_body_bytes: int = 8 * 1024 * 1024
    request_timeout_s: float = 60.0
    allow_external_locations: bool = False
    idempotency: bool = True
    access_log: bool = False
    metrics_auth: bool | None = None
    """Whether ``/metrics`` needs a token; None: only when ``host`` is not loopback."""
    max_header_bytes: int = 64 * 1024
    max_headers: int = 100
    header_timeout_s: float = 10.0
    """Seconds a request head may take to arrive; then 408 and the connection is closed."""
    max_connections_per_client: int = 64
    """Connections one client address may hold open at once, per worker process (0: no limit)."""
    token_rate_per_s: float = 2.0
    auth_failure_delay_s: float = 0.1
    properties: dict[str, str] = field(default_factory=dict)
    """Extra catalog properties (tests and embedding: the same for every served catalog)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_host(options: ServeOptions) -> None:
    """Refuse to listen beyond loopback without authentication, unless told to."""
    if is_loopback(options.host) or options.auth_file or options.insecure:
        return
    raise InvalidArgumentError(
        f"Refusing to serve on {options.host} without authentication: anyone who reaches it could "
        "change the catalog. Configure --auth-file, or pass --insecure to serve without it"
    )


def app_from_environment() -> Any:
    """The ASGI app of a worker, built from :data:`ENV` (uvicorn's app factory)."""
    raw = os.environ.get(ENV)
    if not raw:
        raise InvalidArgumentError(f"{ENV} is not set: start the server with `iceview serve`")
    data = json.loads(raw)
    data["catalogs"] = tuple(data["catalogs"])
    return build_app(ServeOptions(**data))


def _served(options: ServeOptions) -> list[ServedCatalog]:
    """The catalogs of ``options``, loaded from the configuration."""
    from iceview.catalog import load_catalog
    from iceview.catalog.operations import METADATA_CACHE_SIZE
    from iceview.server.context import ServedCatalog

    served = []
    for name in options.catalogs:
        # metadata files never change once written: keep parsed ones (the pointer is still read)
        catalog = load_catalog(name, **{METADATA_CACHE_SIZE: "1000", **options.properties})
        served.append(ServedCatalog(catalog.name, catalog))
    return served


def build_app(options: ServeOptions, served: list[ServedCatalog] | None = None) -> Any:
    """The app for ``options`` (on ``served``, else on its catalogs loaded now)."""
    from iceview.server.app import create_app
    from iceview.server.auth import load_authenticator
    from iceview.server.context import ServerSettings
    from iceview.server.idempotency import store_for

    if served is None:
        served = _served(options)
    metrics_auth = options.metrics_auth
    if metrics_auth is None:
        metrics_auth = not is_loopback(options.host)
    settings = ServerSettings(
        max_body_bytes=options.max_body_bytes,
        request_timeout_s=options.request_timeout_s,
        allow_external_locations=options.allow_external_locations,
        metrics_auth=metrics_auth,
        max_header_bytes=options.max_header_bytes,
        max_headers=options.max_headers,
        token_rate_per_s=options.token_rate_per_s,
        auth_failure_delay_s=options.auth_failure_delay_s,
        access_log=options.access_log,
    )
    if options.access_log:
        from iceview.server.access_log import configure_access_log

        configure_access_log()
    authenticator = load_authenticator(options.auth_file) if options.auth_file else None
    idempotency = store_for(served[0].catalog, settings) if options.idempotency else None
    return create_app(served, settings, authenticator=authenticator, idempotency=idempotency)


def url_of(options: ServeOptions) -> str:
    """The base URL clients use."""
    host = f"[{options.host}]" if ":" in options.host else options.host
    if options.host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"http://{host}:{options.port}/"


def _announce(url: str, say: Callable[[str], None], stop: threading.Event) -> None:
    """Print the URL once ``/v1/config`` answers (any HTTP status counts: it answered)."""
    while not stop.is_set():
        try:
            urllib.request.urlopen(url + "v1/config", timeout=2).close()
        except urllib.error.HTTPError:
            pass
        except OSError:
            stop.wait(0.1)
            continue
        say(f"iceview serve: listening on {url}")
        return


def _tcp_socket(sock: socket.socket) -> socket.socket:
    """The listening socket as an explicit TCP socket. uvicorn binds the socket its worker
    processes share with protocol 0, and asyncio sets TCP_NODELAY only on connections of sockets
    whose protocol is IPPROTO_TCP: without it every keep-alive answer waits ~40 ms for the client's
    delayed ACK (Nagle's algorithm; uvicorn issue #3149)."""
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.proto != socket.IPPROTO_TCP:
        tcp = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
        tcp.set_inheritable(True)
        return tcp
    return sock


class _Config(uvicorn.Config):
    """uvicorn's configuration, binding the shared socket as TCP (module level: worker processes
    are spawned and get it pickled), with the limits on request heads that
    :class:`~iceview.server.http_protocol.LimitedHttpToolsProtocol` reads."""

    iceview_max_header_bytes: int = 64 * 1024
    iceview_max_headers: int = 100
    iceview_header_timeout_s: float = 10.0
    iceview_max_connections_per_client: int = 64

    def bind_socket(self) -> socket.socket:
        return _tcp_socket(super().bind_socket())


def serve(options: ServeOptions, say: Callable[[str], None] = print) -> None:
    """Serve until SIGTERM or Ctrl-C (uvicorn shuts down gracefully on both)."""
    check_host(options)
    if options.workers < 1:
        raise InvalidArgumentError(f"--workers must be at least 1, not {options.workers}")
    if options.auth_file:
        from iceview.server.auth import ensure_signing_key, load_authenticator

        ensure_signing_key(options.auth_file)  # before workers start: they all sign with one key
        load_authenticator(options.auth_file)  # fail here, once, not in every worker
    data = asdict(options)
    data["catalogs"] = list(options.catalogs)
    os.environ[ENV] = json.dumps(data)
    # the catalogs are loaded here first: a bad configuration fails before uvicorn starts. One
    # worker serves this process's app; several build their own (from ENV) and these are closed.
    served = _served(options)
    if options.workers == 1:
        target: Any = build_app(options, served)
    else:
        for each in served:
            each.close()
        target = "iceview.server.run:app_from_environment"
    stop = threading.Event()
    announcer = threading.Thread(target=_announce, args=(url_of(options), say, stop), daemon=True)
    announcer.start()
    started = time.monotonic()

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # uvicorn shuts down gracefully on SIGTERM and SIGINT, then raises the signal again to the
    # handler it found: this one ends `serve` normally instead of killing the process
    previous = signal.signal(signal.SIGTERM, interrupted)
    try:
        from iceview.server.http_protocol import LimitedHttpToolsProtocol

        config = _Config(
            target,
            factory=options.workers > 1,
            host=options.host,
            port=options.port,
            workers=options.workers,
            http=LimitedHttpToolsProtocol,
            # uvicorn's own access lines would carry query strings: iceview.access logs requests
            access_log=False,
            log_level="warning",
            timeout_graceful_shutdown=10,
            # an idle keep-alive connection is closed after 5 s (uvicorn's default, made explicit).
            # No limit_concurrency: over it, uvicorn answers 503 to every client's requests, which
            # is the lock-out a flood of connections aims at; the per-address cap and the head
            # timeout bound what one client holds instead
            timeout_keep_alive=5,
            limit_concurrency=None,
        )
        config.iceview_max_header_bytes = options.max_header_bytes
        config.iceview_max_headers = options.max_headers
        config.iceview_header_timeout_s = options.header_timeout_s
        config.iceview_max_connections_per_client = options.max_connections_per_client
        if options.workers > 1:
            from uvicorn.supervisors import Multiprocess

            Multiprocess(config, sockets=[config.bind_socket()]).run()
        else:
            uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop.set()
        log.info("iceview serve stopped after %.1f s", time.monotonic() - started)


def parse_catalogs(names: Sequence[str]) -> tuple[str | None, ...]:
    """The ``--catalog`` options: none means the default catalog."""
    return tuple(names) if names else (None,)
