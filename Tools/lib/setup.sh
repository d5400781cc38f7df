# Shared set-up for Tools/test, Tools/demo and Tools/bench. Sourced, not run.

# Debian packages the build and the tests need.
CHATCLI_APT_PACKAGES=(
  libssl-dev libsodium-dev libreadline-dev libsqlite3-dev pkg-config
  openssl ca-certificates python3 python3-venv python3-pip
  tmux iproute2 iptables nftables coturn miniupnpd-nftables prometheus
  groff-base zsh
  chromium firefox-esr libnss3-tools
  redis-server haproxy
  avahi-daemon avahi-utils dbus
  libqrencode-dev zbar-tools
  libkeyutils-dev keyutils
  dpkg-dev lintian mmdebstrap
  eslint lua-check
)
# PyPI packages for the independent interop peers.
CHATCLI_PIP_PACKAGES=(websockets aiortc)

ensure_system_packages() {
  local missing=()
  for p in "${CHATCLI_APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "==> installing system packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
  # coturn, miniupnpd and prometheus start daemons on some systems; tests start their own.
  if command -v systemctl >/dev/null 2>&1; then "${sudo[@]}" systemctl disable --now coturn miniupnpd prometheus >/dev/null 2>&1 || true; fi
}

ensure_python_venv() {
  local venv=.build/venv
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import websockets, aiortc, aioice' 2>/dev/null; then
    echo "==> preparing Python venv in $venv (${CHATCLI_PIP_PACKAGES[*]})"
    mkdir -p .build
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "${CHATCLI_PIP_PACKAGES[@]}"
  fi
}

# Everything a run puts in the temp dir (servers' databases, received test
# files of up to 2 GB, browser profiles, the compiler's scratch files) goes
# into one directory of its own, removed when the run ends, however it ends.
# A run killed outright (SIGKILL) leaves its directory: the next run removes
# every one whose run is gone. Without this, a day of runs filled the disk.
use_private_tmpdir() {
  local base=${TMPDIR:-/tmp} dir pid
  base=${base%/}
  for dir in "$base"/chatcli-run.*; do
    [ -d "$dir" ] || continue
    pid=${dir##*.}
    [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && continue
    rm -rf "$dir"
  done
  CHATCLI_RUN_TMPDIR="$base/chatcli-run.$$"
  mkdir -p "$CHATCLI_RUN_TMPDIR"
  trap 'rm -rf "$CHATCLI_RUN_TMPDIR"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  export TMPDIR="$CHATCLI_RUN_TMPDIR"
}

# free_port tcp|udp|udp2: a free port on 127.0.0.1 (udp2: it and the next are free).
free_port() {
  python3 - "$1" <<'PY'
import socket, sys
kind = sys.argv[1]
while True:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if kind.startswith("udp") else socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    if kind == "udp2":
        t = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            t.bind(("127.0.0.1", port + 1))
        except OSError:
            s.close(); continue
        t.close()
    s.close()
    print(port)
    break
PY
}

# wait_for_http URL: until it answers (10 s at most).
wait_for_http() {
  for _ in $(seq 100); do
    python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "no answer from $1" >&2
  return 1
}
