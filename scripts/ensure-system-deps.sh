#!/usr/bin/env bash
# Installs the system packages the app and its tests need on a Debian-like machine:
# an X server for a real Kivy window without a screen (Xvfb), and Mesa's software OpenGL;
# with --browser also Chromium and its WebDriver (the live view's page is tested in a real
# headless browser). Does nothing when they are already there; says what to install when
# it cannot.
set -euo pipefail
PKGS="xvfb xauth libgl1 libgl1-mesa-dri libegl1 libmtdev1"
missing=""
command -v Xvfb >/dev/null 2>&1 || missing="yes"
command -v xvfb-run >/dev/null 2>&1 || missing="yes"
if [ "${1:-}" = "--browser" ]; then
  PKGS="$PKGS chromium chromium-driver"
  command -v chromedriver >/dev/null 2>&1 || missing="yes"
fi
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="yes"
  done
fi
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "Please install Xvfb and Mesa OpenGL (packages: $PKGS) with your system's package manager." >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "Xvfb/OpenGL packages are missing and this user cannot install them." >&2
    echo "Run: sudo apt-get install -y $PKGS" >&2
    exit 1
  fi
fi
echo "Installing system packages: $PKGS"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $PKGS >/dev/null
