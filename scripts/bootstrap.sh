#!/usr/bin/env bash
# Installs what Outrider needs on Debian 12 (bookworm) with Python 3.11, and nothing else.
# The README's commands, CI and the Dockerfile all go through this one script.
#
#   scripts/bootstrap.sh system [--test]   Debian packages: chromium, libatomic1 (+ nodejs/npm and
#                                          postgresql for tests)
#   scripts/bootstrap.sh python [--test]   virtualenv + Python packages (+ test tools, npm tools)
#   scripts/bootstrap.sh all    [--test]   both
#   ... --demo                             also grpcurl and curl, which `outrider demo --serve`
#                                          prints commands for (the test tools include them)
#
# Re-running is cheap: each step is skipped when its inputs have not changed, and a virtualenv
# installed with more extras (the test tools) serves the commands that need fewer.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${OUTRIDER_VENV:-$ROOT/.venv}"
PYTHON="${OUTRIDER_PYTHON:-python3}"

log() { printf 'bootstrap: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else log "need root to run: $*"; exit 1
  fi
}

apt_install() {
  log "installing Debian packages: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

install_system() {
  local want="$1" missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  "$PYTHON" -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
  # Playwright's bundled Node.js driver links libatomic.so.1, which chromium does not pull in and
  # a minimal Debian (debootstrap minbase, the container's base) lacks: without it every browser
  # run fails at launch while the server still reports SERVING.
  [ "$(dpkg-query -W -f='${db:Status-Status}' libatomic1 2>/dev/null)" = installed ] || missing+=(libatomic1)
  # The demo prints curl commands (grpcurl comes with the Python packages of --demo).
  if [ "$want" != server ]; then command -v curl >/dev/null 2>&1 || missing+=(curl); fi
  if [ "$want" = tests ]; then
    command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
    # `ip`, for the test that probes the renderer in a private network namespace (10.x, metadata).
    command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || missing+=(iproute2)
    # The store tests start a private PostgreSQL cluster with Debian's initdb and pg_ctl.
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
  fi
  if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
}

# A hash of everything that decides what gets installed, so unchanged inputs skip pip.
inputs_hash() {
  cat "$ROOT/pyproject.toml" "$ROOT/constraints.txt" 2>/dev/null | sha256sum | cut -d' ' -f1
}

# Whether an install with these inputs already covered every wanted extra (comma-separated).
installed_with() {
  local wanted="$1" hash="$2" stamp have extra covered
  for stamp in "$VENV"/.outrider-*-"$hash"; do
    [ -e "$stamp" ] || continue
    have="${stamp##*/.outrider-}"
    have=",${have%-"$hash"},"
    covered=yes
    for extra in ${wanted//,/ }; do
      case "$have" in *",$extra,"*) ;; *) covered=no ;; esac
    done
    [ "$covered" = yes ] && return 0
  done
  return 1
}

install_python() {
  local want="$1" extras="server,cli" stamp hash
  [ "$want" = demo ] && extras="server,cli,demo"
  [ "$want" = tests ] && extras="server,cli,demo,test"
  [ -x "$VENV/bin/python" ] || { log "creating virtualenv $VENV"; "$PYTHON" -m venv "$VENV"; }
  hash="$(inputs_hash)"
  stamp="$VENV/.outrider-$extras-$hash"
  if ! installed_with "$extras" "$hash"; then
    log "installing Python packages [$extras]"
    "$VENV/bin/pip" install -q --disable-pip-version-check --upgrade pip
    "$VENV/bin/pip" install -q --disable-pip-version-check -c "$ROOT/constraints.txt" -e "$ROOT[$extras]"
    rm -f "$VENV"/.outrider-*
    touch "$stamp"
  fi
  if [ "$want" = tests ]; then install_node_tools; fi
}

install_node_tools() {
  local stamp="$ROOT/node_modules/.outrider-$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)"
  if [ ! -e "$stamp" ]; then
    log "installing npm tools (buf)"
    (cd "$ROOT" && npm install --no-audit --no-fund --loglevel=error)
    touch "$stamp"
  fi
  install_node_package "$ROOT/examples/node"
  install_node_package "$ROOT/clients/typescript"
  install_node_package "$ROOT/tests/mcp/node"
  install_node_package "$ROOT/tests/webhooks/node"
  install_node_package "$ROOT/tests/identity/idp"
}

# The Node.js example, the TypeScript client package, the MCP clients of tests/mcp/node, which
# the tests run against a live server (the client package also holds protoc-gen-es, which
# scripts/gen-proto uses), the webhook receiver of tests/webhooks/node, and the OpenID Provider of
# tests/identity/idp the identity tests start.
install_node_package() {
  local dir="$1" stamp
  stamp="$dir/node_modules/.outrider-$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [ ! -e "$stamp" ]; then
    log "installing the npm packages of ${dir#"$ROOT"/}"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    touch "$stamp"
  fi
}

main() {
  local what="${1:-all}" want=server
  case "${2:-}" in
    --test) want=tests ;;
    --demo) want=demo ;;
    "") ;;
    *) log "usage: $0 system|python|all [--test|--demo]"; exit 2 ;;
  esac
  case "$what" in
    system) install_system "$want" ;;
    python) install_python "$want" ;;
    all) install_system "$want"; install_python "$want" ;;
    *) log "usage: $0 system|python|all [--test|--demo]"; exit 2 ;;
  esac
}

main "$@"
