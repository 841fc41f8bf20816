#!/usr/bin/env bash
# The Python clients the OTLP tests run: a venv in the cache (outside the repo), made once per pin
# file and reused by every later run. Prints the venv's python on stdout.
#   python="$(bash scripts/ensure-otlp-python.sh)"            # the OTLP/HTTP exporter alone
#   python="$(bash scripts/ensure-otlp-python.sh pipecat)"    # Pipecat 1.7.0 with tracing
#   python="$(bash scripts/ensure-otlp-python.sh livekit)"    # LiveKit Agents 1.7.1
# Each name has its pin file, test/otlp/clients/requirements-<name>.txt, with every package at an
# exact version (the frameworks need different OpenTelemetry SDKs, hence one venv each). Without
# python3 or its venv module, or when pip cannot install the pins, it fails naming the fix: a test
# that needs this never skips.
# VA_CACHE_DIR: the cache (default ~/.cache/voice-analytics); PYTHON: the interpreter (default python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
client="${1:-exporter}"
pins="$here/../test/otlp/clients/requirements-$client.txt"
cache="${VA_CACHE_DIR:-$HOME/.cache/voice-analytics}"
python="${PYTHON:-python3}"
say() { printf 'ensure-otlp-python: %s\n' "$*" >&2; }

if [ ! -f "$pins" ]; then
  say "no pin file for '$client' (test/otlp/clients/requirements-$client.txt); known: exporter, pipecat, livekit"
  exit 2
fi
if ! command -v "$python" >/dev/null 2>&1; then
  say "$python is not on PATH: install Python 3.10+ with its venv module, e.g. sudo apt-get install -y python3 python3-venv"
  exit 1
fi
# The exporter's venv keeps its first name (otlp-python-<digest>); the frameworks' are named after them.
prefix="otlp-python"
[ "$client" = exporter ] || prefix="otlp-$client"
digest="$(sha256sum "$pins" | cut -c1-12)"
venv="$cache/$prefix-$digest"
if [ -x "$venv/bin/python" ] && [ -f "$venv/.installed" ]; then
  echo "$venv/bin/python"
  exit 0
fi
# One installer at a time per venv: two test files may ask for the same one at once.
mkdir -p "$cache"
exec 9>"$venv.lock"
flock 9
if [ -x "$venv/bin/python" ] && [ -f "$venv/.installed" ]; then
  echo "$venv/bin/python"
  exit 0
fi
rm -rf "$venv"
if ! "$python" -m venv "$venv" >&2; then
  rm -rf "$venv"
  say "$python cannot make a venv: install its venv module, e.g. sudo apt-get install -y python3-venv"
  exit 1
fi
say "installing $client's pinned packages ($(grep -cv '^#' "$pins") from $(basename "$pins")) into $venv"
started=$SECONDS
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$pins" >&2; then
  rm -rf "$venv"
  say "pip could not install $pins (is PyPI reachable? is this Python supported by the pins?); run again once it is"
  exit 1
fi
# Every dependency is pinned: --no-deps keeps pip from resolving anything else, and check says so.
if ! "$venv/bin/pip" check >&2; then
  rm -rf "$venv"
  say "the pins in $pins do not satisfy their own requirements (pip check above); fix the pin file"
  exit 1
fi
say "installed $client in $((SECONDS - started)) s"
touch "$venv/.installed"
echo "$venv/bin/python"
