#!/bin/sh
# Install what the widget browser test needs on a fresh Debian machine, as root:
# Debian's Chromium at /usr/bin/chromium (Playwright drives it via executable_path; never `playwright install`).
# Idempotent: does nothing when Chromium is already there.
set -eu

if [ -x /usr/bin/chromium ]; then
    echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) already installed"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-browser: must run as root (apt-get install chromium)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-liberation
echo "install-browser: $(/usr/bin/chromium --version)"
