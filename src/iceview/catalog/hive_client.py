"""Connections to a Hive Metastore (HMS) over Thrift, through PyIceberg's HMS bindings.

PyIceberg ships the HMS Thrift client (the ``hive_metastore`` package, with ``thrift`` from its
``hive`` extra) and configures it with the catalog properties ``uri`` (one or more
``thrift://host:port``, comma-separated, tried in turn), ``ugi`` (``user:group``),
``hive.kerberos-authentication`` and ``hive.kerberos-service-name``; :class:`MetastoreClients` reads
the same properties. Unlike PyIceberg, which opens a socket per call, a connection is kept per
thread and opened again after a failure, as Java's client pool does; ``hive.metastore.client.socket.timeout``
(seconds, Java's name and default of 600) bounds every call, so a metastore that stops answering
gives an error, not a hang.

Errors: :meth:`MetastoreClients.run` turns a failure to reach or hear the metastore into
:class:`MetastoreUnreachableError`, with ``sent`` telling whether the request may have reached it
(a commit then checks what the metastore holds before it decides). The metastore's own answers
(``NoSuchObjectException``, ``MetaException``...) pass through for the caller to map.
"""

from __future__ import annotations

import contextlib
import getpass
import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

from iceview.catalog.properties import property_as_bool
from iceview.errors import CatalogError, InvalidArgumentError

if TYPE_CHECKING:
    from hive_metastore.ThriftHiveMetastore import Client

__all__ = ["MetastoreClients", "MetastoreUnreachableError", "current_user", "describe_thrift_error"]

log = logging.getLogger(__name__)

T = TypeVar("T")

SOCKET_TIMEOUT = "hive.metastore.client.socket.timeout"
SOCKET_TIMEOUT_DEFAULT_S = 600.0
KERBEROS_AUTH = "hive.kerberos-authentication"
KERBEROS_SERVICE_NAME = "hive.kerberos-service-name"


class MetastoreUnreachableError(CatalogError):
    """The metastore could not be reached, or stopped answering. ``sent``: the request may have
    reached it (the connection failed after it was written)."""

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


def current_user() -> str:
    """Java's ``HiveHadoopUtil.currentUser``: the operating-system user."""
    try:
        return getpass.getuser()
    except Exception:  # no user name in the environment or the password database
        return "iceview"


def describe_thrift_error(e: BaseException) -> str:
    """A Thrift exception in words: the metastore's message, without a stack or the request."""
    message = getattr(e, "message", None) or str(e) or type(e).__name__
    return f"{type(e).__name__}: {message}"


def _seconds(properties: Mapping[str, str], key: str, default: float) -> float:
    raw = properties.get(key)
    if raw is None:
        return default
    text = raw.strip().lower()
    scale = 1.0
    for suffix, factor in (("ms", 0.001), ("s", 1.0), ("min", 60.0)):
        if text.endswith(suffix) and text[: -len(suffix)].strip().replace(".", "", 1).isdigit():
            text, scale = text[: -len(suffix)].strip(), factor
            break
    try:
        value = float(text) * scale
    except ValueError:
        raise InvalidArgumentError(f"Invalid {key} {raw!r}: not a number of seconds") from None
    if value <= 0:
        raise InvalidArgumentError(f"Invalid {key} {raw!r}: must be positive")
    return value


class _Connection:
    def __init__(self, transport: Any, client: Client) -> None:
        self.transport = transport
        self.client = client

    def close(self) -> None:
        with contextlib.suppress(Exception):  # already broken
            self.transport.close()


class MetastoreClients:
    """One Thrift connection per thread to the metastore(s) of ``properties['uri']``."""

    def __init__(self, properties: Mapping[str, str]) -> None:
        self._properties = dict(properties)
        uri = properties.get("uri") or ""
        self.uris = [u.strip() for u in uri.split(",") if u.strip()]
        if not self.uris:
            raise InvalidArgumentError("Hive catalog has no 'uri' (e.g. thrift://localhost:9083)")
        for one in self.uris:
            parsed = urlparse(one)
            if parsed.scheme != "thrift" or not parsed.hostname:
                raise InvalidArgumentError(f"Invalid Hive Metastore uri {one!r}: expected thrift://host:port")
        self.timeout_s = _seconds(properties, SOCKET_TIMEOUT, SOCKET_TIMEOUT_DEFAULT_S)
        ugi = properties.get("ugi")
        self.ugi = ugi.split(":") if ugi else None
        self.kerberos = property_as_bool(properties, KERBEROS_AUTH, False)
        self.kerberos_service = properties.get(KERBEROS_SERVICE_NAME, "hive")
        self._local = threading.local()
        self._all: set[_Connection] = set()
        self._lock = threading.Lock()

    def fresh(self) -> MetastoreClients:
        """New connections with the same settings (for another thread's long-lived use)."""
        return MetastoreClients(self._properties)

    @property
    def display_uri(self) -> str:
        return ",".join(self.uris)

    def _open(self) -> _Connection:
        from hive_metastore.ThriftHiveMetastore import Client
        from thrift.protocol import TBinaryProtocol
        from thrift.transport import TSocket, TTransport

        last: BaseException | None = None
        for uri in self.uris:
            parsed = urlparse(uri)
            sock = TSocket.TSocket(parsed.hostname, parsed.port or 9083)
            sock.setTimeout(self.timeout_s * 1000)
            transport: Any
            if self.kerberos:
                transport = TTransport.TSaslClientTransport(
                    sock, host=parsed.hostname, service=self.kerberos_service
                )
            else:
                transport = TTransport.TBufferedTransport(sock)
            try:
                transport.open()
            except Exception as e:
                last = e
                log.debug("Cannot connect to the Hive Metastore at %s: %s", uri, e)
                continue
            client = Client(TBinaryProtocol.TBinaryProtocolAccelerated(transport))
            connection = _Connection(transport, client)
            if self.ugi:
                try:
                    client.set_ugi(*self.ugi)
                except Exception as e:
                    connection.close()
                    last = e
                    continue
            return connection
        raise MetastoreUnreachableError(
            f"Cannot connect to the Hive Metastore at {self.display_uri}: "
            f"{describe_thrift_error(last) if last else 'no uri'}",
            sent=False,
        )

    def _connection(self) -> _Connection:
        connection: _Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._open()
            self._local.connection = connection
            with self._lock:
                self._all.add(connection)
        return connection

    def _discard(self, connection: _Connection) -> None:
        connection.close()
        self._local.connection = None
        with self._lock:
            self._all.discard(connection)

    def run(
        self,
        what: str,
        call: Callable[[Client], T],
        *,
        idempotent: bool = True,
        expected: tuple[type[BaseException], ...] = (),
    ) -> T:
        """``call(client)`` on this thread's connection. A broken connection is opened again and an
        ``idempotent`` call sent again once; otherwise (or if it fails again)
        :class:`MetastoreUnreachableError` says whether the request may have been sent. The
        metastore's own answers (``NoSuchObjectException``, ``MetaException``, ...) pass through if
        ``expected`` names them, for the caller to map; any other is a :class:`CatalogError` that
        says what failed."""
        from thrift.Thrift import TApplicationException, TException
        from thrift.transport.TTransport import TTransportException

        attempts = 2 if idempotent else 1
        for attempt in range(attempts):
            connection = self._connection()
            try:
                return call(connection.client)
            except (TimeoutError, TTransportException, OSError, EOFError) as e:
                self._discard(connection)
                if attempt + 1 < attempts:
                    log.debug("Hive Metastore connection failed during %s, reconnecting: %s", what, e)
                    continue
                raise MetastoreUnreachableError(
                    f"Hive Metastore at {self.display_uri} failed during {what}: {describe_thrift_error(e)}",
                    sent=True,
                ) from e
            except TApplicationException as e:
                # the server could not run the call (an unknown method, an internal error): the
                # connection stays usable
                raise CatalogError(f"Hive Metastore cannot {what}: {describe_thrift_error(e)}") from e
            except TException as e:
                if isinstance(e, expected):
                    raise
                raise CatalogError(f"Hive Metastore cannot {what}: {describe_thrift_error(e)}") from e
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            connections = list(self._all)
            self._all.clear()
        for connection in connections:
            connection.close()
        self._local = threading.local()
