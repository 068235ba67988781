#!/usr/bin/env bash
# The Debian packages the test suite renders with and validates against. `npm test` runs this first,
# so the README's two commands work on a fresh machine: fonts for the generated OCR corpus (Latin, CJK,
# Arabic); docker-compose validates the compose file; chromium runs the console's browser tests (driven
# by playwright-core); prometheus carries promtool, which checks a scrape of the metrics endpoint; the
# native tesseract CLI (English, OSD, traditional Chinese) is the baseline the held-out OCR pages are
# compared with. Missing ones are installed when this user may (root, or sudo without a password);
# otherwise the script names them and stops, since the suite would fail on them later and less clearly.
set -euo pipefail

packages=(fontconfig fonts-dejavu-core fonts-noto-cjk fonts-noto-core docker-compose chromium prometheus tesseract-ocr tesseract-ocr-chi-tra)
missing=()
for package in "${packages[@]}"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-packages: the tests need these Debian packages, and this machine has no apt-get: ${missing[*]}" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "system-packages: the tests need these Debian packages; install them as root, then run npm test again:" >&2
  echo "  apt-get install --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "system-packages: installing what the tests need from Debian: ${missing[*]}"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "system-packages: installed ${missing[*]}"
