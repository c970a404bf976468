#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring Secret Service, so keychain code
# is tested against the real thing. Private XDG dirs keep the developer's own keyring untouched.
# Falls back to running the command directly where there is no dbus-run-session (macOS, Windows).
set -euo pipefail
if [ -n "${QK_IN_SECRET_SERVICE:-}" ] || ! command -v dbus-run-session >/dev/null 2>&1 \
  || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  exec "$@"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -m 700 "$tmp/data" "$tmp/runtime"
export XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/runtime" QK_IN_SECRET_SERVICE=1
# shellcheck disable=SC2016
dbus-run-session -- sh -c 'echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh "$@"
