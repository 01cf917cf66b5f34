"""Assembles the gRPC server (our services, health, reflection, auth, TLS) and shuts it down
gently."""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl

import grpc
from grpc_health.v1 import health, health_pb2_grpc

from outrider.server.core.cluster.failover import FailoverSweeper
from outrider.server.core.cluster.presence import PresenceKeeper, keeper_period
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.retention import RetentionSweeper, retention_policy
from outrider.server.core.secrets.log_redaction import SecretLogFilter
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.core.shutdown import longest_shutdown
from outrider.server.core.storage import open_store
from outrider.server.grpc_edge.auth import AuthInterceptor
from outrider.server.grpc_edge.browser_control_servicer import BrowserControlServicer
from outrider.server.grpc_edge.credential_servicer import CredentialServicer
from outrider.server.grpc_edge.decoding import DecodingInterceptor
from outrider.server.grpc_edge.health import HealthServicer
from outrider.server.grpc_edge.interaction_servicer import InteractionServicer
from outrider.server.grpc_edge.observe import ObservingInterceptor
from outrider.server.grpc_edge.profile_servicer import ProfileServicer
from outrider.server.grpc_edge.readiness import HealthStatuses
from outrider.server.grpc_edge.reflection import enable_reflection
from outrider.server.grpc_edge.relay_client import GrpcRelay
from outrider.server.grpc_edge.run_servicer import RunServicer
from outrider.server.grpc_edge.session_servicer import SessionServicer
from outrider.server.grpc_edge.webhook_servicer import WebhookServicer
from outrider.server.net.deliveries import GuardedDeliveries
from outrider.server.ports import PortInUse, check_free
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings
from outrider.v1 import (
    browser_control_service_pb2,
    browser_control_service_pb2_grpc,
    credential_service_pb2,
    credential_service_pb2_grpc,
    interaction_service_pb2,
    interaction_service_pb2_grpc,
    profile_service_pb2,
    profile_service_pb2_grpc,
    run_service_pb2,
    run_service_pb2_grpc,
    session_service_pb2,
    session_service_pb2_grpc,
    webhook_service_pb2,
    webhook_service_pb2_grpc,
)

log = logging.getLogger(__name__)

RUN_SERVICE = run_service_pb2.DESCRIPTOR.services_by_name["RunService"].full_name
SERVICE_NAMES = (
    RUN_SERVICE,
    interaction_service_pb2.DESCRIPTOR.services_by_name["InteractionService"].full_name,
    browser_control_service_pb2.DESCRIPTOR.services_by_name["BrowserControlService"].full_name,
    session_service_pb2.DESCRIPTOR.services_by_name["SessionService"].full_name,
    profile_service_pb2.DESCRIPTOR.services_by_name["ProfileService"].full_name,
    credential_service_pb2.DESCRIPTOR.services_by_name["CredentialService"].full_name,
    webhook_service_pb2.DESCRIPTOR.services_by_name["WebhookService"].full_name,
)
# Keepalive that tolerates clients idling through a two-minute wait for a human.
_CHANNEL_OPTIONS = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.so_reuseport", 0),  # a port held by another server is an error, not shared
)


class OutriderServer:
    """The gRPC server with its run manager. `start()`, then `stop()` (idempotent)."""

    def __init__(self, settings: Settings, agents: AgentRegistry) -> None:
        self.settings = settings
        self.store = open_store(settings)
        # Replicas sharing a store relay cancels and answers to the one executing the run.
        shared = self.store.event_feed() is not None
        self.relay = GrpcRelay(settings) if shared and settings.cluster_secret else None
        self.deliveries = GuardedDeliveries(settings.webhooks)
        self.runs = RunManager(settings, self.store, agents, self.relay, self.deliveries)
        self.sessions = SessionManager(settings, self.store, self.runs, agents, self.relay)
        self.retention = RetentionSweeper(self.runs, self.store, retention_policy(settings))
        # Only replicas sharing a store can outlive each other's runs.
        # Workers take lost runs over; an API-only replica could only end them.
        sweeps = shared and settings.failover_interval > 0 and settings.role != "api"
        self.failover = (
            FailoverSweeper(self.sessions.sweep, settings.failover_interval) if sweeps else None
        )
        period = keeper_period(settings.failover_interval)
        self.presence = PresenceKeeper(self.store, period) if shared else None
        self._agents = agents
        self.health = HealthServicer()
        self.statuses = HealthStatuses(
            self.health, RUN_SERVICE, SERVICE_NAMES[1:], self.runs.not_serving
        )
        self.keyring = Keyring(settings)
        self._auth = AuthInterceptor(self.keyring, settings)
        interceptors = [
            ObservingInterceptor(),
            self._auth,
            DecodingInterceptor(),  # innermost: it sees the servicers' own deserializers
        ]
        self._server = grpc.aio.server(interceptors=interceptors, options=_CHANNEL_OPTIONS)
        self._stopping: asyncio.Task[None] | None = None
        self._probe: grpc.aio.Server | None = None
        # OUTRIDER_TLS_CERT/_KEY: TLS only; with OUTRIDER_TLS_CLIENT_CA, client certificates
        # signed by that CA are required (mutual TLS).
        self.certificates = Certificates(settings) if settings.tls_cert else None
        self._log_filter = SecretLogFilter(self.runs.redactors)
        self.port = 0
        self.health_port = 0

    async def start(self) -> int:
        """Binds the port (PortInUse if taken, before touching any run), recovers, serves."""
        self._log_filter.attach()
        try:
            self._add_services_and_port()
        except BaseException:
            self.close_unstarted()
            raise
        address = advertised_address(self.settings, self.port)
        self._auth.relay_audience = address  # relay tokens must be made for this address
        capacity = self.settings.max_concurrent_runs + self.settings.max_queued_runs
        self.store.announce(address, self.settings.role, capacity)
        recovered = self.runs.recover()
        if recovered:
            log.warning("closed %d runs left active by a previous process", recovered)
        lost = self.sessions.recover()
        if lost:
            log.warning("ended %d sessions left live by a previous process", lost)
        self.retention.start()
        self.runs.webhooks.start()
        if self.presence is not None:
            self.presence.start()
        if self.failover is not None:
            self.failover.start()
        await self._server.start()
        await self._start_probe_listener()
        await self._set_health()
        self.statuses.start()
        log.info("outrider listening on %s:%d", self.settings.host, self.port)
        return self.port

    async def _set_health(self) -> None:
        """The process ("") and interactions serve; RunService ("accepting runs") only when at
        least one kind of run can start here (core/runs/readiness.py), and later only while the
        store is reachable (readiness.HealthStatuses follows that)."""
        readiness = await self.runs.check_readiness()
        if readiness.problems:
            log.warning("%s", readiness.summary())
        await self.statuses.show()

    def close_unstarted(self) -> None:
        """Releases what __init__ opened when the server is never started (or failed to)."""
        self.store.close()
        self._log_filter.detach()

    def _add_services_and_port(self) -> None:
        run_service_pb2_grpc.add_RunServiceServicer_to_server(RunServicer(self.runs), self._server)
        interaction_service_pb2_grpc.add_InteractionServiceServicer_to_server(
            InteractionServicer(self.runs), self._server
        )
        browser_control_service_pb2_grpc.add_BrowserControlServiceServicer_to_server(
            BrowserControlServicer(self.runs.browsers), self._server
        )
        session_service_pb2_grpc.add_SessionServiceServicer_to_server(
            SessionServicer(self.sessions), self._server
        )
        profile_service_pb2_grpc.add_ProfileServiceServicer_to_server(
            ProfileServicer(self.runs), self._server
        )
        credential_service_pb2_grpc.add_CredentialServiceServicer_to_server(
            CredentialServicer(self.runs), self._server
        )
        webhook_service_pb2_grpc.add_WebhookServiceServicer_to_server(
            WebhookServicer(self.runs.webhooks.endpoints), self._server
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
        enable_reflection((*SERVICE_NAMES, health.SERVICE_NAME), self._server)
        credentials = self.certificates.credentials() if self.certificates else None
        self.port = _bind(self._server, "gRPC", self.settings.host, self.settings.port, credentials)
        if self.settings.health_port is not None:  # taken: fail now, before any run is touched
            check_free("gRPC health", self.settings.host, self.settings.health_port, _HEALTH_PORT)

    async def _start_probe_listener(self) -> None:
        """OUTRIDER_HEALTH_PORT: grpc.health alone on a plaintext port, for probes that cannot
        speak (mutual) TLS, such as the image's HEALTHCHECK and Kubernetes' gRPC probes."""
        if self.settings.health_port is None:
            return
        self._probe = grpc.aio.server(options=(("grpc.so_reuseport", 0),))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._probe)
        self.health_port = _bind(
            self._probe, "gRPC health", self.settings.host, self.settings.health_port, None
        )
        await self._probe.start()

    async def stop(self) -> None:
        """NOT_SERVING, refuse new calls, let runs end (then cancel them), close. Idempotent."""
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop())
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        grace = self.settings.shutdown_grace
        await self.retention.stop()
        await self.statuses.stop()
        if self.failover is not None:
            await self.failover.stop()
        self.runs.stop_accepting()
        await self.health.enter_graceful_shutdown()
        await asyncio.sleep(0.1)  # let health watchers see NOT_SERVING before streams close
        # New calls are refused now; open streams stay until the runs and their watchers ended.
        refusing = asyncio.create_task(self._server.stop(longest_shutdown(grace) + 10))
        await self.runs.shutdown(grace)
        await self.sessions.shutdown()
        await self.runs.webhooks.stop()  # after the runs' last notices were written
        await self.deliveries.aclose()
        for agent in {id(a): a for a in self._agents.values()}.values():
            await agent.aclose()
        await self._server.stop(1.0)
        await refusing
        if self._probe is not None:
            await self._probe.stop(1.0)
        if self.relay is not None:
            await self.relay.close()
        if self.presence is not None:  # kept while runs were finishing
            await self.presence.stop()
        self.store.close()
        log.info("outrider stopped")
        self._log_filter.detach()

    async def wait_for_termination(self) -> None:
        await self._server.wait_for_termination()


_HEALTH_PORT = "OUTRIDER_HEALTH_PORT"
_PORT_SETTINGS = {"gRPC": "OUTRIDER_PORT", "gRPC health": _HEALTH_PORT}


def advertised_address(settings: Settings, port: int) -> str:
    """host:port at which other replicas reach this gRPC edge (OUTRIDER_ADVERTISE_ADDRESS, or
    the bound host, with the machine's name for a wildcard)."""
    if settings.advertise_address:
        return settings.advertise_address
    host = settings.host
    if host in ("0.0.0.0", "::", "[::]", ""):
        host = socket.gethostname()
    return f"{host}:{port}"


def _bind(
    server: grpc.aio.Server,
    what: str,
    host: str,
    port: int,
    credentials: grpc.ServerCredentials | None,
) -> int:
    """Binds exclusively: PortInUse when the port (on any address of `host`) is taken."""
    setting = _PORT_SETTINGS[what]
    check_free(what, host.strip("[]"), port, setting)
    address = f"{host}:{port}"
    try:
        if credentials is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, credentials)
    except RuntimeError:  # grpc: "Failed to bind to address"
        raise PortInUse(what, host, port, setting, "the port is in use") from None
    if port not in (0, bound):
        raise PortInUse(what, host, port, setting, f"gRPC bound port {bound} instead")
    return bound


class Certificates:
    """The server's TLS files, re-read on `reload()`; gRPC asks `fetch` at every new handshake,
    so connections made after a reload use the new certificate (open ones keep theirs)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self.initial = self._read()
        self._pending: grpc.ServerCertificateConfiguration | None = None

    def _read(self) -> grpc.ServerCertificateConfiguration:
        settings = self._settings
        assert settings.tls_cert is not None and settings.tls_key is not None
        client_ca = settings.tls_client_ca.read_bytes() if settings.tls_client_ca else None
        return grpc.ssl_server_certificate_configuration(
            [(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())], client_ca
        )

    def reload(self) -> None:
        """Raises (OSError, ssl.SSLError) for files that don't load, keeping the current ones."""
        settings = self._settings
        assert settings.tls_cert is not None and settings.tls_key is not None
        check = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        check.load_cert_chain(settings.tls_cert, settings.tls_key)  # a key that doesn't match
        self._pending = self._read()

    def fetch(self) -> grpc.ServerCertificateConfiguration | None:
        pending, self._pending = self._pending, None
        return pending

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.dynamic_ssl_server_credentials(
            self.initial,
            self.fetch,  # type: ignore[arg-type]  # grpc documents None as "no change"
            self._settings.tls_client_ca is not None,
        )
