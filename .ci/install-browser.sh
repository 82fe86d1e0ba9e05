#!/bin/sh
# Install what the widget tests need on a fresh Debian machine, as root:
#   - Debian's Chromium at /usr/bin/chromium, driven by Playwright through executable_path (never
#     `playwright install`: it downloads its own browser);
#   - node (Debian's nodejs) when absent, for the front end's unit tests (`node --test widgets/test`).
# Idempotent: installs only what is missing.
set -eu

need=""
[ -x /usr/bin/chromium ] || need="chromium fonts-liberation"
command -v node >/dev/null 2>&1 || need="$need nodejs"

if [ -z "$need" ]; then
    echo "install-browser: chromium and node already installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-browser: must run as root to apt-get install:$need" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
# shellcheck disable=SC2086  # $need is a list of package names
apt-get install -y --no-install-recommends $need
/usr/bin/chromium --version 2>/dev/null || true
node --version
