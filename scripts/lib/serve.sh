# Starting a Plinth binary for the scripts that judge it from outside
# (scripts/fuzz, scripts/judges): sourced, not run.
#
#   plinth_binary           the binary: $PLINTH_JUDGE_BINARY when set (CI: the
#                           test build's own), else `cargo build --profile
#                           ${PLINTH_JUDGE_PROFILE:-release}`; sets `binary`
#   free_port               prints a free local port
#   start_plinth WORK PORT KEY [NAME=VALUE...]
#                           starts it on 127.0.0.1:PORT with a fresh SQLite
#                           database and data directory under WORK and KEY as
#                           its Master key, the extra environment given, its
#                           log in WORK/server.log; sets `server_pid` and waits
#                           until it answers /health
#   server_survived WORK    fails when it died or panicked meanwhile

plinth_binary() {
  if [ -n "${PLINTH_JUDGE_BINARY:-}" ]; then
    binary=$PLINTH_JUDGE_BINARY
    return
  fi
  local profile=${PLINTH_JUDGE_PROFILE:-release}
  echo "== cargo build --profile $profile"
  cargo build --profile "$profile" --locked --bin plinth
  binary="${CARGO_TARGET_DIR:-$(pwd)/target}/$([ "$profile" = dev ] && echo debug || echo "$profile")/plinth"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_plinth() {
  local work=$1 port=$2 key=$3
  shift 3
  echo "== starting plinth on 127.0.0.1:$port (data in $work)"
  # From the work directory, so no ./config/plinth.toml of a checkout applies.
  (
    cd "$work"
    unset PLINTH_CONFIG
    exec env PLINTH_BIND="127.0.0.1:$port" \
      PLINTH_DATABASE_URL="sqlite://$work/plinth.db?mode=rwc" \
      PLINTH_DATA_DIR="$work/data" \
      PLINTH_BOOTSTRAP_API_KEY="$key" \
      PLINTH_LOG="${PLINTH_LOG:-warn}" \
      "$@" \
      "$binary" serve
  ) >"$work/server.log" 2>&1 &
  server_pid=$!
  local _
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/api/v1/health" >/dev/null 2>&1; then return 0; fi
    kill -0 "$server_pid" 2>/dev/null || { echo "plinth exited during start" >&2; return 1; }
    sleep 0.5
  done
  curl -fsS "http://127.0.0.1:$port/api/v1/health" >/dev/null
}

server_survived() {
  local work=$1
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "plinth died during the run" >&2
    return 1
  fi
  if grep -q "panicked" "$work/server.log"; then
    echo "plinth panicked during the run:" >&2
    grep -A3 "panicked" "$work/server.log" | head -n 40 >&2
    return 1
  fi
}
