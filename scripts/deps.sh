#!/usr/bin/env bash
# Installs the system packages franz and its tests need, when they are missing (Debian/Ubuntu).
# With arguments, installs those packages instead (scripts/windows.sh uses it for its own).
set -euo pipefail
pkgs=(xvfb x11-apps x11-utils x11-xserver-utils xdotool xterm zenity fonts-dejavu-core chromium chromium-driver)
[ $# -gt 0 ] && pkgs=("$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
