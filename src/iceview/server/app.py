"""The ASGI application: routing, bounded bodies, time limits, auth, idempotent mutations,
metrics, and every failure as an ``IcebergErrorResponse``.

The handlers (:mod:`iceview.server.views`, ``namespaces``, ``tables``) are synchronous calls into
the catalog interface; they run on a thread pool, except an answer a route can give without waiting
(``Route.at_once``: a view load from an embedded SQLite catalog's metadata cache), which is given on
the event loop. The app keeps no state of its own
beyond caches: pointers live in the catalog's store, so instances on one PostgreSQL scale out.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route as StarletteRoute

from iceview.identifiers import ViewIdentifier
from iceview.server.access_log import PRINCIPAL_KEY, AccessLog
from iceview.server.auth import Authenticator, Principal, parse_token_form
from iceview.server.context import REFERENCED_BY_KEY, Reply, ServedCatalog, ServerSettings
from iceview.server.errors import (
    ApiError,
    bad_request,
    clipped,
    error_body,
    error_response,
    from_exception,
)
from iceview.server.idempotency import IdempotencyStore, StoredReply
from iceview.server.limits import HeaderLimits
from iceview.server.metrics import Metrics
from iceview.server.protocol import REFERENCED_BY, decode_json, parse_referenced_by
from iceview.server.ratelimit import RateLimiter
from iceview.server.routes import ROUTES, Call, Route

__all__ = ["create_app", "endpoints"]

log = logging.getLogger("iceview.server")

_RESERVED_PREFIXES = {"namespaces", "tables", "views", "transactions", "oauth", "config"}


def endpoints(functions: bool = True) -> list[str]:
    """Every endpoint the server serves, as ``/v1/config`` advertises them; the SQL UDF endpoints
    only with ``functions`` (a catalog that keeps them)."""
    return [route.endpoint for route in ROUTES if functions or not route.functions]


def _iso_duration(seconds: int) -> str:
    return f"PT{seconds // 60}M" if seconds % 60 == 0 else f"PT{seconds}S"


class _App:
    def __init__(
        self,
        catalogs: Sequence[ServedCatalog],
        settings: ServerSettings,
        authenticator: Authenticator | None,
        idempotency: IdempotencyStore | None,
        metrics: Metrics,
    ) -> None:
        if not catalogs:
            raise ValueError("A server needs at least one catalog")
        for served in catalogs:
            if served.name in _RESERVED_PREFIXES:
                raise ValueError(f"Cannot serve a catalog named {served.name!r}: the name is a path segment")
        self.catalogs = {c.name: c for c in catalogs}
        self.default = catalogs[0]
        self.settings = settings
        for served in catalogs:
            served.confine(settings.allow_external_locations)
        self.auth = authenticator
        self.idempotency = idempotency
        self.metrics = metrics
        # the catalog calls are blocking (database, files): they run here, off the event loop
        # (asyncio's executor: measured ~0.1 ms a request less than anyio's thread pool)
        self.stopped = False
        self.executor = self._new_executor()
        # slow checks (scrypt: client secrets, scrypt-stored static tokens) run on a few threads of
        # their own, rate-limited per client address, with a bounded queue: they can neither
        # stall the event loop nor take the catalog's threads
        self.limiter = RateLimiter(settings.token_rate_per_s, settings.token_burst)
        self.slow_executor = self._new_slow_executor()
        self.slow_pending = 0

    def _new_executor(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=self.settings.threads, thread_name_prefix="iceview-serve")

    def _new_slow_executor(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(max_workers=self.settings.auth_threads, thread_name_prefix="iceview-auth")

    def start(self) -> None:
        """A new thread pool if a lifespan's end closed it (an app may be started again, or
        called without a lifespan, as test clients do)."""
        if self.stopped:
            self.executor = self._new_executor()
            self.slow_executor = self._new_slow_executor()
            self.stopped = False

    def stop(self) -> None:
        """Lifespan end: requests in flight finish on their threads; the pool takes no more."""
        self.executor.shutdown(wait=False)
        self.slow_executor.shutdown(wait=False)
        self.stopped = True

    # -- helpers ---------------------------------------------------------------------------------
    def served(self, prefix: str | None) -> ServedCatalog:
        if prefix is None:
            return self.default
        served = self.catalogs.get(prefix)
        if served is None:
            raise ApiError(
                404,
                "NotFoundException",
                f"Not found: no catalog is served under the prefix {clipped(prefix)}",
            )
        return served

    async def principal(self, request: Request) -> Principal | None:
        if self.auth is None:
            return None
        authorization = request.headers.get("authorization")
        found = self.auth.authenticate_quickly(authorization)
        if found is None:  # only a scrypt-stored static token could match it
            found = await self.slow(request, self.auth.authenticate, authorization)
        request.scope[PRINCIPAL_KEY] = found.name
        return found

    async def refused(self, status: int) -> None:
        """Hold back the answer to a request refused for its credentials (401) or its rate (429):
        a timer, no work, so a client that keeps failing slows down itself, not the server."""
        if status in (401, 429) and self.settings.auth_failure_delay_s > 0:
            await asyncio.sleep(self.settings.auth_failure_delay_s)

    def limit_rate(self, request: Request) -> None:
        """Refuse with 429 when the client's address has used its share of slow checks."""
        address = request.client.host if request.client else "-"
        wait = self.limiter.take(address)
        if wait:
            raise ApiError(
                429,
                "TooManyRequestsException",
                f"Too many requests: retry after {wait} s",
                headers={"Retry-After": str(wait)},
            )

    async def slow(self, request: Request, check: Callable[..., Any], *args: Any) -> Any:
        """``check(*args)``, a slow check (scrypt), rate-limited per client address (429), on
        the slow checks' threads."""
        self.limit_rate(request)
        return await self.run_slow(check, *args)

    async def run_slow(self, check: Callable[..., Any], *args: Any) -> Any:
        """``check(*args)`` on the slow checks' threads; refused at once (503) when too many
        already wait for one."""
        if self.slow_pending >= self.settings.auth_threads + self.settings.auth_queue:
            raise ApiError(
                503,
                "ServiceUnavailableException",
                "Service unavailable: too many credential checks in progress, retry after 1 s",
                headers={"Retry-After": "1"},
            )
        self.start()
        self.slow_pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.slow_executor, functools.partial(check, *args)
            )
        finally:
            self.slow_pending -= 1

    async def body(self, request: Request) -> bytes:
        limit = self.settings.max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise ApiError(413, "RequestTooLargeException", f"Request body larger than {limit} bytes")
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, "RequestTooLargeException", f"Request body larger than {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    async def run(self, handler: Any, *args: Any, mutation: bool) -> Any:
        self.start()
        work = asyncio.get_running_loop().run_in_executor(self.executor, functools.partial(handler, *args))
        try:
            # abandoned on time-out (shielded: a thread cannot be stopped, so a mutation's outcome
            # is unknown, and the thread goes on to finish it)
            return await asyncio.wait_for(asyncio.shield(work), self.settings.request_timeout_s)
        except asyncio.TimeoutError:
            if mutation:
                raise ApiError(
                    500,
                    "CommitStateUnknownException",
                    f"Commit state unknown: the request ran longer than {self.settings.request_timeout_s:g} s; "
                    "reload to see whether the change was applied",
                ) from None
            raise ApiError(
                503,
                "ServiceUnavailableException",
                f"Service unavailable: the request ran longer than {self.settings.request_timeout_s:g} s",
            ) from None

    # -- endpoints -------------------------------------------------------------------------------
    async def _observed(
        self,
        request: Request,
        endpoint: str,
        answer: Callable[[], Awaitable[Response]],
        *,
        mutation: bool = False,
    ) -> Response:
        """``answer()``, with any failure as an ``IcebergErrorResponse`` (no body for HEAD), counted
        in the metrics under ``endpoint``."""
        started = time.perf_counter()
        status = 500
        try:
            response = await answer()
            status = response.status_code
            return response
        except Exception as e:
            err = from_exception(e, mutation=mutation)
            status = err.status
            await self.refused(status)
            if request.method == "HEAD":
                return Response(status_code=err.status, media_type="application/json")
            return error_response(err)
        finally:
            self.metrics.observe(request.method, endpoint, status, time.perf_counter() - started)

    async def config(self, request: Request) -> Response:
        return await self._observed(request, "/v1/config", lambda: self._config(request))

    async def _config(self, request: Request) -> Response:
        await self.principal(request)
        warehouse = request.query_params.get("warehouse")
        served = self.default
        if warehouse:
            served = self._by_warehouse(warehouse)
        overrides: dict[str, str] = {}
        if len(self.catalogs) > 1:
            overrides["prefix"] = served.name
        body: dict[str, Any] = {
            "defaults": {},
            "overrides": overrides,
            "endpoints": endpoints(served.catalog.supports_functions()),
        }
        if self.idempotency is not None:
            body["idempotency-key-lifetime"] = _iso_duration(self.settings.idempotency_lifetime_s)
        return _json(200, body)

    def _by_warehouse(self, warehouse: str) -> ServedCatalog:
        for served in self.catalogs.values():
            if warehouse in (served.name, served.catalog.properties.get("warehouse")):
                return served
        if len(self.catalogs) == 1:
            # one catalog: clients configured with any warehouse reach it (Java's servers ignore it)
            return self.default
        raise ApiError(
            404,
            "NotFoundException",
            f"Not found: warehouse {clipped(warehouse)} is not served here (served: {', '.join(self.catalogs)})",
        )

    async def tokens(self, request: Request) -> Response:
        return await self._observed(request, "/v1/oauth/tokens", lambda: self._tokens(request))

    async def _tokens(self, request: Request) -> Response:
        if self.auth is None:
            raise ApiError(
                404, "NotFoundException", "Not found: this server has no authentication configured"
            )
        # checking a secret is deliberately slow (scrypt): rate-limited, off the event loop
        self.limit_rate(request)
        form = parse_token_form(await self.body(request))
        status, body = await self.run_slow(self.auth.issue_token, form)
        await self.refused(status)
        return _json(status, body)

    async def dispatch(self, request: Request, routes: Mapping[str, Route]) -> Response:
        route = routes.get(request.method)
        if route is None:
            method_not_allowed = ApiError(
                405, "MethodNotAllowedException", f"Method {request.method} is not allowed here"
            )

            async def refuse() -> Response:
                raise method_not_allowed

            return await self._observed(request, "-", refuse)
        return await self._observed(
            request, route.endpoint, lambda: self._serve(request, route), mutation=route.mutation
        )

    async def _serve(self, request: Request, route: Route) -> Response:
        principal = await self.principal(request)
        if route.mutation and principal is not None and not principal.can_write:
            raise ApiError(
                403,
                "ForbiddenException",
                f"{principal.name} may only read: this token cannot change the catalog",
            )
        served = self.served(request.path_params.get("prefix"))
        body = None
        raw = b""
        if route.body is not None:
            raw = await self.body(request)
            body = decode_json(raw, route.body)
        key = request.headers.get("idempotency-key") if route.mutation else None
        store = self.idempotency if key is not None else None
        # a key guards one exact request: the path names the view or table, the query its options
        target = f"{request.method} {request.url.path}?{request.url.query}"
        if key is not None and store is not None:
            stored = await run_in_threadpool(store.get, key, target, raw)
            if stored is not None:
                return Response(stored.body, status_code=stored.status, media_type="application/json")
        params = {k: v for k, v in request.path_params.items() if k != "prefix"}
        chain = self._referenced_by(request) if route.referenced_by else ()
        call = Call(served, params, dict(request.query_params), body, self.settings, chain)

        def work() -> tuple[Reply, bytes]:
            # runs in a worker thread and finalizes the key there: a request abandoned at the time
            # limit still records its real outcome when it ends, and a retry replays that outcome
            try:
                reply = route.handler(call)
            except Exception as e:
                err = from_exception(e, mutation=route.mutation)
                if key is not None and store is not None:
                    if err.status < 500:
                        answer = error_body(err.status, err.error_type, err.message)
                        store.put(key, target, raw, StoredReply(err.status, answer))
                    else:  # a 5xx is not final: a retry with the key runs again
                        store.release(key, target, raw)
                raise err from e
            payload = b"" if reply.body is None else orjson.dumps(reply.body)
            if key is not None and store is not None:
                store.put(key, target, raw, StoredReply(reply.status, payload))
            return reply, payload

        quick = route.at_once(call) if route.at_once is not None and key is None else None
        if quick is not None:
            # answered on the loop: cheaper than the hand-off to a thread and back
            reply, payload = quick, b"" if quick.body is None else orjson.dumps(quick.body)
        else:
            reply, payload = await self.run(work, mutation=route.mutation)
        self.metrics.reply(route, reply.status)
        if reply.body is None or request.method == "HEAD":
            return Response(status_code=reply.status, headers=reply.headers)
        return Response(
            payload, status_code=reply.status, media_type="application/json", headers=reply.headers
        )

    @staticmethod
    def _referenced_by(request: Request) -> tuple[ViewIdentifier, ...]:
        """The parsed ``referenced-by`` chain, also left in the request's scope for middleware."""
        values = request.query_params.getlist(REFERENCED_BY)
        if not values:
            return ()
        if len(values) > 1:
            raise bad_request(f"Invalid {REFERENCED_BY}: the parameter is given {len(values)} times")
        chain = parse_referenced_by(values[0])
        request.scope[REFERENCED_BY_KEY] = chain
        return chain

    async def healthz(self, request: Request) -> Response:
        try:
            await self.run(self.default.catalog.namespace_exists, ("iceview-healthz",), mutation=False)
        except Exception as e:
            # the detail is for the operator's log, not for an unauthenticated prober: the body
            # says only that the database does not answer (a URL's user and password are masked)
            detail = _USERINFO.sub("://***@", from_exception(e).message)
            log.warning("healthz: the catalog's database does not answer: %s", detail[:500])
            return _json(503, {"status": "unavailable", "reason": "the catalog's database does not answer"})
        return _json(200, {"status": "ok"})

    async def metrics_endpoint(self, request: Request) -> Response:
        if self.settings.metrics_auth:
            try:
                await self.principal(request)
            except Exception as e:
                err = from_exception(e)
                await self.refused(err.status)
                return error_response(err)
        data, content_type = self.metrics.exposition()
        return Response(data, media_type=content_type)


_USERINFO = re.compile(r"://[^/@\s]*@")


def _json(status: int, body: Any) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


async def _not_found(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status == 404:
        err = ApiError(
            404, "NotFoundException", f"Not found: no endpoint {request.method} {clipped(request.url.path)}"
        )
    elif status == 405:
        err = ApiError(
            405,
            "MethodNotAllowedException",
            f"Method {request.method} is not allowed on {clipped(request.url.path)}",
        )
    else:
        err = ApiError(status, "BadRequestException", str(getattr(exc, "detail", "")) or "Bad request")
    return error_response(err)


def create_app(
    catalogs: Sequence[ServedCatalog],
    settings: ServerSettings | None = None,
    *,
    authenticator: Authenticator | None = None,
    idempotency: IdempotencyStore | None = None,
    metrics: Metrics | None = None,
) -> Starlette:
    """The REST catalog server for ``catalogs`` (the first is served without a prefix; with more
    than one, ``/v1/config?warehouse=NAME`` hands out ``prefix=NAME``)."""
    app = _App(catalogs, settings or ServerSettings(), authenticator, idempotency, metrics or Metrics())
    by_path: dict[str, dict[str, Route]] = {}
    for route in ROUTES:
        by_path.setdefault(route.path, {})[route.method] = route
    routes: list[StarletteRoute] = [
        StarletteRoute("/v1/config", app.config, methods=["GET"]),
        StarletteRoute("/v1/oauth/tokens", app.tokens, methods=["POST"]),
        StarletteRoute("/healthz", app.healthz, methods=["GET"]),
        StarletteRoute("/metrics", app.metrics_endpoint, methods=["GET"]),
    ]
    for prefixed in (False, True):
        for path, methods in by_path.items():
            full = ("/v1/{prefix}" if prefixed else "/v1") + path

            async def endpoint(request: Request, _methods: Mapping[str, Route] = methods) -> Response:
                return await app.dispatch(request, _methods)

            verbs = sorted(set(methods) | {"GET", "HEAD", "POST", "DELETE", "PUT"})
            routes.append(StarletteRoute(full, endpoint, methods=verbs))

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        app.start()
        try:
            yield
        finally:
            app.stop()
            for served in catalogs:
                with contextlib.suppress(Exception):
                    served.close()

    # outermost first: the access log sees every answer, a head over the limits never reaches auth
    middleware = [Middleware(AccessLog)] if app.settings.access_log else []
    middleware.append(
        Middleware(HeaderLimits, max_bytes=app.settings.max_header_bytes, max_count=app.settings.max_headers)
    )
    starlette = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={404: _not_found, 405: _not_found, 400: _not_found},
        lifespan=lifespan,
    )
    # no 307 from `/path/` to `/path`: Starlette builds its Location from the client's Host header,
    # before authentication (an open redirect); a path with a trailing slash is a 404 like any other
    starlette.router.redirect_slashes = False
    return starlette
