#!/usr/bin/env bash
# The Python OpenTelemetry OTLP/HTTP exporter the OTLP receiver's tests send with: a venv in the
# cache (outside the repo), made once per pin file (test/otlp/clients/requirements-exporter.txt:
# opentelemetry-exporter-otlp-proto-http and opentelemetry-sdk with every dependency pinned).
# Prints the venv's python on stdout. Without python3 or its venv module it fails, naming the
# command that installs them: a test that needs this never skips.
#   python="$(bash scripts/ensure-otlp-python.sh)"
# VA_CACHE_DIR: the cache (default ~/.cache/voice-analytics); PYTHON: the interpreter (default python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pins="$here/../test/otlp/clients/requirements-exporter.txt"
cache="${VA_CACHE_DIR:-$HOME/.cache/voice-analytics}"
python="${PYTHON:-python3}"
say() { printf 'ensure-otlp-python: %s\n' "$*" >&2; }

if ! command -v "$python" >/dev/null 2>&1; then
  say "$python is not on PATH: install Python 3.9+ with its venv module, e.g. sudo apt-get install -y python3 python3-venv"
  exit 1
fi
digest="$(sha256sum "$pins" | cut -c1-12)"
venv="$cache/otlp-python-$digest"
if [ -x "$venv/bin/python" ] && [ -f "$venv/.installed" ]; then
  echo "$venv/bin/python"
  exit 0
fi
rm -rf "$venv"
mkdir -p "$cache"
if ! "$python" -m venv "$venv" >&2; then
  rm -rf "$venv"
  say "$python cannot make a venv: install its venv module, e.g. sudo apt-get install -y python3-venv"
  exit 1
fi
say "installing the pinned OpenTelemetry exporter into $venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$pins" >&2; then
  rm -rf "$venv"
  say "pip could not install $pins (is PyPI reachable?); run again once it is"
  exit 1
fi
touch "$venv/.installed"
echo "$venv/bin/python"
