"""``iceview serve``: the catalog as an Iceberg REST catalog server."""

from __future__ import annotations

import click

from iceview.cli.context import State, command, common_options, pass_state


@command("serve", "Serve a catalog over the Iceberg REST protocol.", progress=False)
@click.option(
    "--serve-catalog",
    "serve_catalogs",
    multiple=True,
    metavar="NAME",
    help="A catalog to serve (repeatable; more than one are served under prefixes). Default: --catalog, "
    "else the default catalog.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", default=8181, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on."
)
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="Worker processes.")
@click.option(
    "--auth-file",
    type=click.Path(exists=True, dir_okay=False),
    help="OAuth2 clients, static tokens and the signing key (YAML or JSON; see docs/server.md).",
)
@click.option("--insecure", is_flag=True, help="Allow a non-loopback --host without authentication.")
@click.option(
    "--allow-external-locations",
    is_flag=True,
    help="Allow view and table locations outside the catalog's warehouse.",
)
@click.option(
    "--max-body",
    default=8 * 1024 * 1024,
    show_default=True,
    type=click.IntRange(1024),
    help="Largest request body, in bytes.",
)
@click.option(
    "--timeout",
    default=60.0,
    show_default=True,
    type=click.FloatRange(0.1),
    help="Seconds a request may run.",
)
@click.option(
    "--max-header-bytes",
    default=64 * 1024,
    show_default=True,
    type=click.IntRange(1024),
    help="Largest request head (request line and headers), in bytes; larger ones get 431.",
)
@click.option(
    "--max-headers",
    default=100,
    show_default=True,
    type=click.IntRange(8),
    help="Most header fields in a request; more get 431.",
)
@click.option(
    "--header-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(0.1),
    help="Seconds a request head may take to arrive (from the connection, or the previous answer); "
    "then 408 and the connection is closed.",
)
@click.option(
    "--max-connections-per-client",
    default=64,
    show_default=True,
    type=click.IntRange(0),
    help="Connections one client address may hold open at once, per worker (0: no limit); more are "
    "closed at once with 503.",
)
@click.option(
    "--token-rate",
    default=2.0,
    show_default=True,
    type=click.FloatRange(0.01),
    help="Token requests per second and client address (after a burst of 20); more get 429.",
)
@click.option(
    "--auth-failure-delay",
    default=0.1,
    show_default=True,
    type=click.FloatRange(0.0, 10.0),
    help="Seconds a 401 or 429 answer is held back (costs the server nothing; slows down guessing).",
)
@click.option(
    "--metrics-auth/--no-metrics-auth",
    default=None,
    help="Whether /metrics needs a token (with --auth-file). Default: only when --host is not loopback.",
)
@click.option(
    "--access-log",
    is_flag=True,
    help="Log one line per request to stderr (client, method, path, status, duration, principal).",
)
@click.option(
    "--hash-secret",
    is_flag=True,
    help="Print the hash of a client secret or token (read from the prompt or stdin) for --auth-file, and exit.",
)
@click.option(
    "--hash-token",
    is_flag=True,
    help="Print the stored form of a static token (read from the prompt or stdin) for --auth-file, and exit.",
)
@common_options
@pass_state
def serve(
    state: State,
    serve_catalogs: tuple[str, ...],
    host: str,
    port: int,
    workers: int,
    auth_file: str | None,
    insecure: bool,
    allow_external_locations: bool,
    max_body: int,
    timeout: float,
    max_header_bytes: int,
    max_headers: int,
    header_timeout: float,
    max_connections_per_client: int,
    token_rate: float,
    auth_failure_delay: float,
    metrics_auth: bool | None,
    access_log: bool,
    hash_secret: bool,
    hash_token: bool,
) -> None:
    """Serve the catalog (by default the embedded SQLite one) as an Iceberg REST catalog that
    Spark, Trino, PyIceberg and Java reach with type=rest. Prints the URL once it answers; stops
    on Ctrl-C or SIGTERM. Without --auth-file it listens on loopback only."""
    if hash_secret or hash_token:
        _print_hash(token=hash_token)
        return
    from iceview.errors import InvalidArgumentError
    from iceview.server.run import ServeOptions, check_host, parse_catalogs
    from iceview.server.run import serve as run

    names = serve_catalogs or ((state.catalog_name,) if state.catalog_name else ())
    options = ServeOptions(
        catalogs=parse_catalogs(names),
        host=host,
        port=port,
        workers=workers,
        insecure=insecure,
        auth_file=auth_file,
        max_body_bytes=max_body,
        request_timeout_s=timeout,
        allow_external_locations=allow_external_locations,
        access_log=access_log,
        metrics_auth=metrics_auth,
        max_header_bytes=max_header_bytes,
        max_headers=max_headers,
        header_timeout_s=header_timeout,
        max_connections_per_client=max_connections_per_client,
        token_rate_per_s=token_rate,
        auth_failure_delay_s=auth_failure_delay,
    )
    try:
        check_host(options)
    except InvalidArgumentError as e:  # an option combination that is refused: a usage error
        raise click.UsageError(str(e)) from None
    run(options, say=lambda line: click.echo(line, err=False))


def _print_hash(token: bool = False) -> None:
    """The salted scrypt hash of a secret (with ``token``: the SHA-256 form of a static token):
    prompted for (twice, hidden) on a terminal, else the first line of stdin. Only the hash is
    printed."""
    import sys

    from iceview.server.auth import hash_secret, hash_token

    if sys.stdin.isatty():
        secret = click.prompt("Secret", hide_input=True, confirmation_prompt=True)
    else:
        secret = sys.stdin.readline().rstrip("\r\n")
    if not secret:
        raise click.UsageError("the secret is empty")
    click.echo(hash_token(secret) if token else hash_secret(secret))
