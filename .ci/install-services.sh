#!/bin/sh
# Install the services the tests start themselves on 127.0.0.1, on a fresh Debian machine, as root:
#   - redis-server (Debian's package): tests/http/test_workers_replicas.py starts one to check that replicas of
#     `dqkit serve --rate-store redis://...` share one rate limit. Debian may start its own service on port 6379;
#     the tests never use it (they start theirs on a free port).
# Idempotent: installs only what is missing.
set -eu

if command -v redis-server >/dev/null 2>&1; then
    echo "install-services: redis-server already installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-services: must run as root to apt-get install redis-server" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends redis-server
redis-server --version
