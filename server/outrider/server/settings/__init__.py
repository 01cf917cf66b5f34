"""All configuration in one typed object, read from OUTRIDER_* environment variables."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from outrider.server.settings import model_choices
from outrider.server.settings.browser import BrowserSettings
from outrider.server.settings.identity import OidcSettings
from outrider.server.settings.providers import ProviderSettings
from outrider.server.settings.research import ResearchSettings
from outrider.server.settings.sessions import SessionSettings
from outrider.server.settings.vault import VaultSettings
from outrider.server.settings.webhooks import WebhookSettings
from outrider.server.units import parse_duration, parse_size


class Settings(BaseSettings):
    """Server settings. Every field is set by the environment variable OUTRIDER_<FIELD>."""

    model_config = SettingsConfigDict(env_prefix="OUTRIDER_", frozen=True)

    host: str = Field("127.0.0.1", description="Address the gRPC server binds to.")
    port: int = Field(50051, ge=0, le=65535, description="gRPC port; 0 picks a free one.")
    rest_enabled: bool = Field(True, description="Serve the REST/SSE (Tabstack) edge too.")
    rest_host: str = Field("127.0.0.1", description="Address the REST/SSE server binds to.")
    rest_port: int = Field(8080, ge=0, le=65535, description="REST/SSE port; 0 picks a free one.")
    rest_retry_ms: int = Field(
        3000, ge=0, description="The SSE `retry:` reconnection delay sent to clients, in ms."
    )
    cors_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated web origins (scheme://host[:port]) whose pages may call the "
        "REST edge from a browser, or `*` for any; empty: CORS closed (no CORS headers, "
        "preflights and cross-origin POST/DELETE refused). Credentials are never allowed.",
    )
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated host names the REST port answers while authentication is "
        "off, besides loopback names, IP addresses, OUTRIDER_PUBLIC_URL's host and "
        "OUTRIDER_REST_HOST (a guard against DNS rebinding); `*`: any. Ignored with keys set.",
    )
    console: bool = Field(
        True,
        description="Serve the console (web pages to watch runs and answer their questions) at "
        "/console on the REST port, with the REST edge's TLS and principals.",
    )
    a2a: bool = Field(
        True,
        description="Serve the A2A agent on the REST port: its agent card at "
        "/.well-known/agent-card.json and JSON-RPC at /a2a, with the REST edge's TLS, keys and "
        "tenants.",
    )
    public_url: str | None = Field(
        None,
        description="Where people reach the REST port, e.g. https://outrider.example.com: "
        "one-time answer links are made absolute with it, console cookies are Secure when it is "
        "https, and the A2A card and task links use it. A path prefix "
        "(https://example.com/outrider) is for a proxy that strips it: requests arrive without it "
        "and every link, redirect and cookie carries it. Unset: answer links are paths "
        "(/console/answer/…), A2A links the address the caller reached.",
    )
    console_session: float = Field(
        "8h",
        gt=0,
        validate_default=True,
        description="How long a console sign-in lasts (seconds, or 90m, 8h): the session cookie "
        "expires then, or as soon as its key leaves the key file.",
    )
    mcp: bool = Field(
        True, description="Serve the MCP edge (streamable HTTP) at /mcp on the REST port."
    )
    mcp_allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated Host header values /mcp answers (`host` for any port, or "
        "`host:port`), against DNS rebinding; empty: the loopback names (localhost, 127.0.0.1, "
        "[::1]) and OUTRIDER_PUBLIC_URL's host when the REST edge binds a loopback address, any "
        "host otherwise. Pages of "
        "other origins than these hosts and OUTRIDER_CORS_ORIGINS are refused (403).",
    )
    data_dir: Path = Field(
        Path("data"), description="Directory of the SQLite file and (on SQLite) the artifact files."
    )
    recipes: bool = Field(
        False,
        description="Keep recipes of successful browser runs (in the run store, shared by every "
        "replica using it) so runs that ask for it (RunOptions.recipes) replay them without the "
        "model.",
    )
    page_token_secret: SecretStr | None = Field(
        None,
        description="Key that signs page tokens (answer links and console sessions use keys "
        "derived from it). Unset: a random key made once, in the database on PostgreSQL (every "
        "replica reads the same), else in data_dir/page-token.key (0600).",
    )
    database_url: str | None = Field(
        None,
        description="postgresql://user:password@host:port/db: keep runs, events, interactions, "
        "artifacts (their bytes too) and recipes in PostgreSQL (shared by replicas) instead of "
        "the SQLite file and artifact files of data_dir. Several hosts for failover: "
        "postgresql://user@h1:5432,h2:5432/db?target_session_attrs=read-write (every "
        "reconnection finds the current primary).",
    )
    database_replay_window: float = Field(
        10.0,
        ge=0,
        description="With a PostgreSQL store: seconds of its own committed writes (at most "
        "16 MiB) a replica sends again when it finds a different server after a failover, so "
        "what an asynchronous standby had not received yet is written again. 0 turns it off "
        "(synchronous replication loses nothing to replay).",
    )
    failover_interval: float = Field(
        4.0,
        ge=0,
        description="With a PostgreSQL store: seconds between checks for runs a dead replica "
        "left active; one found at two checks in a row is taken over (resumed or ended), its "
        "part of an even spread over the live replicas. Relayed answers, cancels and api-role "
        "starts wait up to twice this for their executor's presence. 0 turns the checks off.",
    )
    store_unready_after: float = Field(
        10.0,
        gt=0,
        description="With a PostgreSQL store: seconds it may be unreachable before this replica "
        "reports not ready (grpc.health outrider.v1.RunService, InteractionService and "
        "BrowserControlService NOT_SERVING, /healthz 503 STORE_UNREACHABLE) and ends its open "
        "event streams with UNAVAILABLE (clients resume on a ready replica); the process "
        '(grpc.health "", liveness) stays SERVING.',
    )
    role: Literal["all", "api", "worker"] = Field(
        "all",
        description="all: serve calls and execute runs. api: serve calls but execute no run "
        "(no browser on this replica): each start goes to the live worker replica with the "
        "fewest active runs (needs a PostgreSQL store and the cluster secret). worker: execute "
        "runs (and serve calls, for the api replicas' relays).",
    )
    failover_resumes: int = Field(
        1,
        ge=0,
        description="With a PostgreSQL store: how many times a run whose replica was lost is "
        "resumed on another replica (a browser run from its start URL, research from its last "
        "checkpoint, the phase it was in) before it is ended instead. Runs with secret data are "
        "always ended (the secrets lived only in the lost replica's memory). 0 ends every lost "
        "run.",
    )
    cluster_secret: SecretStr | None = Field(
        None,
        description="With a PostgreSQL store: a secret every replica shares (32+ characters). "
        "A replica relays cancels and answers for runs another replica executes to it over "
        "gRPC, signed with this key; unset, such calls are refused (UNIMPLEMENTED).",
        min_length=32,
    )
    advertise_address: str | None = Field(
        None,
        description="host:port at which the other replicas reach this one's gRPC port for "
        "relayed calls. Unset: host:port of the gRPC listener (the machine's hostname when "
        "it binds every address).",
    )
    relay_ca: Path | None = Field(
        None,
        description="PEM CA that signs the other replicas' certificates, for relayed calls "
        "when the gRPC edge speaks TLS; unset: the system's trusted roots.",
    )
    api_keys: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Comma-separated API keys; empty disables authentication."
    )
    keys_file: Path | None = Field(
        None,
        description="TOML or YAML file of principals (id, tenant, scopes, limits, key hash); "
        "re-read on SIGHUP. See the Security section.",
    )
    oidc: OidcSettings = Field(
        default_factory=OidcSettings,
        description="Access tokens from the company's IdP and the console's SSO sign-in "
        "(OUTRIDER_OIDC_*; docs/identity.md).",
    )
    tls_cert: Path | None = Field(
        None, description="PEM server certificate (chain); with tls_key, both edges speak TLS only."
    )
    tls_key: Path | None = Field(None, description="PEM private key of tls_cert.")
    tls_client_ca: Path | None = Field(
        None,
        description="PEM CA bundle: clients must present a certificate it signed (mutual TLS).",
    )
    health_port: int | None = Field(
        None,
        ge=0,
        le=65535,
        description="Also serve grpc.health alone, in plaintext, on this port (for probes that "
        "cannot speak TLS); unset: no such listener.",
    )
    open_health: bool = Field(
        True, description="grpc.health and /healthz answer without a key (probes)."
    )
    open_reflection: bool = Field(True, description="gRPC server reflection answers without a key.")
    principal_max_concurrent_runs: int = Field(
        0, ge=0, description="Active runs per principal unless its entry says; 0 = no limit."
    )
    principal_starts_per_minute: float = Field(
        0.0, ge=0, description="Run starts per minute per principal (token bucket); 0 = no limit."
    )
    principal_start_burst: int = Field(
        5, ge=1, description="Starts a principal may make at once before the rate applies."
    )
    cluster_max_active_runs: int = Field(
        0,
        ge=0,
        description="Active runs (executing or waiting for a slot) allowed at once across every "
        "replica sharing the store; beyond, new runs are refused with RESOURCE_EXHAUSTED "
        "(reason CLUSTER_BUSY). 0 = no limit beyond each replica's own.",
    )
    tenant_max_active_runs: int = Field(
        0,
        ge=0,
        description="Active runs one tenant may have at once across every replica sharing the "
        "store; beyond, its new runs are refused with RESOURCE_EXHAUSTED (reason TENANT_BUSY). "
        "0 = no limit.",
    )
    max_concurrent_runs: int = Field(
        4, ge=1, description="Runs executing at once; more wait in line (max_queued_runs)."
    )
    max_queued_runs: int = Field(
        64,
        ge=0,
        description="Runs that may wait for a free slot, told their place in `run_queued` "
        "events; beyond them new runs are refused with RESOURCE_EXHAUSTED.",
    )
    busy_retry_after: float = Field(
        5.0, gt=0, description="Seconds a refused caller is told to wait when the server is full."
    )
    interaction_ttl: float = Field(
        120.0,
        gt=0,
        description="Seconds a form-data request, approval or request for a person "
        "(request_human) waits for an answer.",
    )
    takeover_ttl: float = Field(
        300.0,
        gt=0,
        description="Seconds a person who took over a run's browser keeps control without "
        "sending input; then the agent has the browser again (the takeover expires).",
    )
    takeover_grace: float = Field(
        10.0,
        gt=0,
        description="Seconds a person's control of a run's browser outlives the last screen of "
        "theirs that showed it (the console tab closed, the connection lost); a page reloaded "
        "within it keeps control. Applies to people who watch the screen while in control.",
    )
    body_read_timeout: float = Field(
        30.0,
        gt=0,
        description="Seconds a request body on the REST port may stall (no byte arriving) "
        "before the request is refused with 408; bodies still arriving when the server stops "
        "are refused with 503 at once.",
    )
    shutdown_grace: float = Field(
        30.0, ge=0, description="Seconds runs may finish after SIGTERM before they are cancelled."
    )
    heartbeat_interval: float = Field(
        15.0, gt=0, description="Seconds of silence after which streams send a heartbeat."
    )
    watcher_buffer: int = Field(
        1024, ge=1, description="Events buffered per watcher before it falls back to the store."
    )
    retention: float = Field(
        "30d",
        ge=0,
        validate_default=True,
        description="Finished runs older than this are purged with their events, interactions and "
        "artifacts, and ended sessions with their own events: seconds, or 90m, 36h, 30d; 0 keeps "
        "them forever.",
    )
    retention_artifact_bytes: int = Field(
        "5GiB",
        ge=0,
        validate_default=True,
        description="Cap on the bytes of all artifacts: past it, the oldest finished runs are "
        "purged until under it. Bytes, or 500MB, 5GiB; 0 means no cap.",
    )
    retention_interval: float = Field(
        60.0, gt=0, description="Seconds between two retention sweeps (the first runs at start)."
    )
    idempotency_ttl: float = Field(
        "24h",
        gt=0,
        validate_default=True,
        description="How long a start's request id (gRPC request_id, REST Idempotency-Key) "
        "keeps naming its run: a retry with the same id within this time after the run was "
        "created (or while it is still active) gets that run instead of a new one. Seconds, "
        "or 90m, 36h, 7d. A session create's request id likewise names its session (while it "
        "is live, or within this time after its creation). Expired ids are freed by the "
        "retention sweep; deleting a run frees its id at once.",
    )
    model: str = Field(
        "", description='Default model of every role, e.g. "scripted:/path/to/scenario.yaml".'
    )
    role_models: dict[str, str] = Field(
        default_factory=dict,
        description='Per-role model overrides as JSON, e.g. {"writer": "scripted:/w.yaml"}.',
    )
    models: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        description="The models callers may choose with options.model (anything else is "
        "refused): comma-separated `name=provider:model` (callers name it `name`) or "
        "`provider:model` (named by itself), or a JSON object of name -> spec, e.g. "
        "`fast=openai:gpt-4.1-mini,deep=anthropic:claude-sonnet-4-5`. A tenant's `models` in "
        "the key file replace this list for its keys. Empty: callers get the server's model.",
    )
    scripted_model_dirs: Annotated[tuple[Path, ...], NoDecode] = Field(
        (),
        description="Comma-separated absolute folders whose scenario files callers may name as "
        "options.model `scripted:<file>` (demos and tests; never `..` or a symbolic link out "
        "of the folder). Empty: callers may not choose scripted models.",
    )
    providers: ProviderSettings = Field(
        default_factory=ProviderSettings,
        description="Model provider keys, base URLs, timeout and retries (OPENAI_API_KEY, "
        "ANTHROPIC_API_KEY, GEMINI_API_KEY, OUTRIDER_PROVIDER_*).",
    )
    network_allow: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated networks the network guard lets through despite being "
        'private or loopback, optionally with a port: "127.0.0.1:8123,10.0.0.0/8".',
    )
    chromium_path: Path = Field(
        Path("/usr/bin/chromium"), description="Chromium binary (Debian's chromium package)."
    )
    log_level: str = Field("INFO", description="Python logging level.")
    metrics_port: int | None = Field(
        None,
        ge=0,
        le=65535,
        description="Also serve Prometheus /metrics on this port, without API key; unset: only "
        "on the REST port (behind the API key when keys are set).",
    )
    metrics_host: str = Field("127.0.0.1", description="Address the metrics port binds to.")
    log_format: Literal["text", "json"] = Field(
        "text",
        description="Log lines as text or one JSON object per line (with run_id, trace_id, "
        "span_id and principal where known).",
    )
    browser: BrowserSettings = Field(
        default_factory=BrowserSettings, description="Browser-agent settings (OUTRIDER_BROWSER_*)."
    )
    research: ResearchSettings = Field(
        default_factory=ResearchSettings, description="Research settings (OUTRIDER_RESEARCH_*)."
    )
    sessions: SessionSettings = Field(
        default_factory=SessionSettings, description="Session settings (OUTRIDER_SESSION_*)."
    )
    vault: VaultSettings = Field(
        default_factory=VaultSettings,
        description="Profiles and credentials: master keys and limits (OUTRIDER_VAULT_*).",
    )
    webhooks: WebhookSettings = Field(
        default_factory=WebhookSettings,
        description="Webhook and A2A push delivery (OUTRIDER_WEBHOOKS_*).",
    )

    @field_validator(
        "api_keys",
        "network_allow",
        "cors_origins",
        "allowed_hosts",
        "mcp_allowed_hosts",
        mode="before",
    )
    @classmethod
    def _split_keys(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(key.strip() for key in value.split(",") if key.strip())
        return value

    @field_validator("models", mode="before")
    @classmethod
    def _offered_models(cls, value: object) -> object:
        return model_choices.offer(value, "OUTRIDER_MODELS")

    @field_validator("scripted_model_dirs", mode="before")
    @classmethod
    def _scenario_dirs(cls, value: object) -> object:
        return model_choices.folders(value)

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for origin in value:
            if origin != "*" and not re.fullmatch(r"https?://[^/\s?#]+", origin.rstrip("/")):
                raise ValueError(f"{origin!r} is not an origin such as https://app.example.com")
        return value

    @field_validator("database_url")
    @classmethod
    def _postgres_only(cls, value: str | None) -> str | None:
        if value and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("OUTRIDER_DATABASE_URL must be a postgresql:// URL")
        return value or None

    @property
    def public_path(self) -> str:
        """The path prefix of OUTRIDER_PUBLIC_URL ("" for none): a proxy in front that strips it
        forwards /console/... here, and pages must link to /prefix/console/..."""
        return urlsplit(self.public_url).path.rstrip("/") if self.public_url else ""

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value and not re.fullmatch(r"https?://[^/\s?#]+(/[^\s?#]*)?", value):
            raise ValueError(f"{value!r} is not a URL such as https://outrider.example.com")
        return value.rstrip("/") if value else None

    @field_validator("retention", "console_session", "idempotency_ttl", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        return parse_duration(value)

    @field_validator("retention_artifact_bytes", mode="before")
    @classmethod
    def _size(cls, value: object) -> object:
        return parse_size(value)

    @model_validator(mode="after")
    def _api_role_needs_a_cluster(self) -> Settings:
        if self.role == "api" and not (self.database_url and self.cluster_secret):
            raise ValueError(
                "OUTRIDER_ROLE=api hands runs to worker replicas: set OUTRIDER_DATABASE_URL "
                "(the store they share) and OUTRIDER_CLUSTER_SECRET"
            )
        return self

    @model_validator(mode="after")
    def _tls_pair(self) -> Settings:
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("set both OUTRIDER_TLS_CERT and OUTRIDER_TLS_KEY, or neither")
        if self.tls_client_ca is not None and self.tls_cert is None:
            raise ValueError("OUTRIDER_TLS_CLIENT_CA needs OUTRIDER_TLS_CERT and OUTRIDER_TLS_KEY")
        return self

    @property
    def database_path(self) -> Path:
        return self.data_dir / "outrider.sqlite3"

    @property
    def artifacts_dir(self) -> Path:
        return self.data_dir / "artifacts"
