#!/usr/bin/env bash
# Installs the Debian packages that a project command needs and a new machine lacks (a suite that
# passes only where someone installed a browser by hand is red for every newcomer). Each argument
# is COMMAND:PACKAGE, or python3.MODULE:PACKAGE for a module python3 must import (python3.ensurepip:
# python3-venv, which has no command of its own); what is already there is left alone. Root with apt-get installs the
# missing packages; anywhere else it fails, naming the packages and the command that installs them.
#   bash scripts/ensure-debian-tools.sh prometheus:prometheus chromium:chromium
# APT_GET names the installer (default apt-get; the unit test points it at a missing one).
set -euo pipefail

apt_get="${APT_GET:-apt-get}"
# A command on PATH, or (python3.MODULE) a module python3 imports.
there() {
  case "$1" in
    python3.*) command -v python3 >/dev/null 2>&1 && python3 -c "import ${1#python3.}" >/dev/null 2>&1 ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}
missing_packages=()
missing_commands=()
for pair in "$@"; do
  command_name="${pair%%:*}"
  package="${pair#*:}"
  there "$command_name" && continue
  missing_commands+=("$command_name")
  case " ${missing_packages[*]} " in *" $package "*) ;; *) missing_packages+=("$package") ;; esac
done
[ ${#missing_packages[@]} -eq 0 ] && exit 0

say() { printf 'ensure-debian-tools: %s\n' "$*" >&2; }
how="apt-get update && apt-get install -y ${missing_packages[*]}"
if [ "$(id -u)" -ne 0 ] || ! command -v "$apt_get" >/dev/null 2>&1; then
  say "missing ${missing_commands[*]}: install the Debian packages yourself, then run again: sudo $how"
  exit 1
fi
say "installing the Debian packages ${missing_packages[*]} (for ${missing_commands[*]})"
if ! { "$apt_get" update -qq && DEBIAN_FRONTEND=noninteractive "$apt_get" install -y -qq --no-install-recommends "${missing_packages[@]}" >/dev/null; }; then
  say "could not install ${missing_packages[*]}; install them and run again: $how"
  exit 1
fi
for command_name in "${missing_commands[@]}"; do
  there "$command_name" || {
    say "installed ${missing_packages[*]}, yet $command_name is still not on PATH"
    exit 1
  }
done
