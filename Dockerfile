# Outrider server image: `docker build -t outrider .` (or `docker compose up --build`) on the public
# Debian image; `make image` builds with podman on the local base `make base-image` makes, for
# machines that reach no image registry (see the Makefile for the flags this machine needs). Both
# stages install through scripts/bootstrap.sh, the same script the README, CI and scripts/serve
# use, so there is one list of what Outrider needs.
ARG BASE_IMAGE=debian:bookworm-slim

# --- builder: the virtualenv with the `server` extra -------------------------------------------------
FROM ${BASE_IMAGE} AS builder
# Debian's python3 (3.11) with venv support is all bootstrap.sh needs to create the virtualenv.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
# bootstrap.sh installs the project editable (-e), so the venv points at this path: the runtime
# stage keeps the source at the very same place.
WORKDIR /opt/outrider/src
COPY . .
# pip reaches PyPI through this machine's CA: `make image` mounts it and passes PIP_CERT. An ARG,
# not `podman build --env`, which would leave PIP_CERT (naming a file absent there) in the image.
ARG PIP_CERT
RUN OUTRIDER_VENV=/opt/outrider/venv scripts/bootstrap.sh python \
 && /opt/outrider/venv/bin/python -m compileall -q client server

# --- runtime: Debian chromium + python3, the venv and the source, a non-root user --------------------
FROM ${BASE_IMAGE}
COPY scripts/bootstrap.sh /opt/outrider/src/scripts/bootstrap.sh
# `bootstrap.sh system` installs chromium, libatomic1 (Playwright's Node.js driver needs it and
# this bare base lacks it: without it every browser run fails while health says SERVING), and
# python3-venv when `python3 -c 'import ensurepip'` fails, which on this bare base also brings
# python3 itself (the venv's interpreter). The check after it fails the build if that ever stops
# being true; `make image-smoke` proves a browser run and a research run work in the image.
RUN /opt/outrider/src/scripts/bootstrap.sh system \
 && python3 -c 'import sys; assert sys.version_info[:2] == (3, 11), sys.version' \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 outrider \
 && useradd --uid 10001 --gid 10001 --create-home --shell /usr/sbin/nologin outrider \
 && install -d -o outrider -g outrider -m 0750 /var/lib/outrider
# Root-owned code: the server user can run it but not change it.
COPY --from=builder /opt/outrider/venv /opt/outrider/venv
COPY --from=builder /opt/outrider/src /opt/outrider/src

USER outrider
WORKDIR /var/lib/outrider
ENV OUTRIDER_HOST=0.0.0.0 \
    OUTRIDER_REST_HOST=0.0.0.0 \
    OUTRIDER_DATA_DIR=/var/lib/outrider
# gRPC, then the Tabstack-compatible REST/SSE edge.
EXPOSE 50051 8080
# grpc.health.v1 Check on the overall service (""); prints the status, exits 0 only for SERVING.
# Under TLS, set OUTRIDER_HEALTH_PORT: the check then asks the plaintext health-only listener.
HEALTHCHECK --interval=30s --timeout=10s --start-period=15s --retries=3 \
  CMD ["/opt/outrider/venv/bin/python", "-c", "import os, sys, grpc; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as hg; ch = grpc.insecure_channel('127.0.0.1:' + (os.environ.get('OUTRIDER_HEALTH_PORT') or os.environ.get('OUTRIDER_PORT', '50051'))); s = hg.HealthStub(ch).Check(h.HealthCheckRequest(), timeout=5).status; print(h.HealthCheckResponse.ServingStatus.Name(s)); sys.exit(s != h.HealthCheckResponse.SERVING)"]
ENTRYPOINT ["/opt/outrider/venv/bin/python", "-m", "outrider.server"]
