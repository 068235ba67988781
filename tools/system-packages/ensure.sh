#!/usr/bin/env bash
# What the test suite needs from the machine besides npm, checked by what it does rather than by
# package name, and installed from Debian where missing. `npm test` runs this first, so the README's
# two commands work on a fresh machine:
#   - fonts for the OCR pages the tests draw themselves, never for the service (its text layers draw
#     with the fonts npm installs: docs/fonts.md): DejaVu for the Latin, Greek, Cyrillic and Hebrew
#     pages and the receipts (test/support/ocr-corpus.ts, ocr-world-corpus.ts, a4-text-document.ts,
#     document-fixtures.ts), Noto Sans CJK for the Chinese, Japanese and Korean pages (ocr-corpus.ts,
#     ocr-world-corpus.ts), Noto Naskh or Sans Arabic for the Arabic pages (ocr-corpus.ts);
#     fontconfig's fc-list answers the checks;
#   - chromium, which runs the console's browser tests (driven by playwright-core);
#   - the tesseract CLI with English, OSD, traditional Chinese, Hindi and Arabic: the native baseline
#     the held-out and mixed-script OCR pages are compared with;
#   - docker-compose, which validates the compose file;
#   - promtool (in prometheus), which checks a scrape of the metrics endpoint;
#   - pdftotext, pdftoppm and pdfinfo (poppler-utils), which read back the searchable PDFs OCR makes.
# Each run says what it found. Missing ones are installed when this user may (root, or sudo without
# a password); otherwise the script names them and stops, since the suite would fail on them later
# and less clearly.
set -euo pipefail

has() { command -v "$1" >/dev/null 2>&1; }
font() { has fc-list && fc-list ":family=$1" family | grep -q .; }
tesseract_reads() { has tesseract && tesseract --list-langs 2>/dev/null | grep -qx "$1"; }
chromium_found() { has chromium || has chromium-browser; }
# Debian names its Arabic Noto family either way, depending on the release.
arabic_font() { font 'Noto Sans Arabic' || font 'Noto Naskh Arabic'; }

# "what it is|check|Debian packages": '|' separates the fields, so a check is one command, never a
# shell '||' (that was split into empty fields and named as packages on a fresh machine).
needs=(
  "fonts (DejaVu Sans)|font 'DejaVu Sans'|fontconfig fonts-dejavu-core"
  "fonts (Noto Sans CJK)|font 'Noto Sans CJK JP'|fontconfig fonts-noto-cjk"
  "fonts (Noto Arabic)|arabic_font|fontconfig fonts-noto-core"
  "chromium|chromium_found|chromium"
  "tesseract CLI with eng|tesseract_reads eng|tesseract-ocr tesseract-ocr-eng"
  "tesseract CLI with osd|tesseract_reads osd|tesseract-ocr tesseract-ocr-osd"
  "tesseract CLI with chi_tra|tesseract_reads chi_tra|tesseract-ocr tesseract-ocr-chi-tra"
  "tesseract CLI with hin|tesseract_reads hin|tesseract-ocr tesseract-ocr-hin"
  "tesseract CLI with ara|tesseract_reads ara|tesseract-ocr tesseract-ocr-ara"
  "docker-compose|has docker-compose|docker-compose"
  "promtool|has promtool|prometheus"
  "pdftotext|has pdftotext|poppler-utils"
  "pdftoppm|has pdftoppm|poppler-utils"
  "pdfinfo|has pdfinfo|poppler-utils"
)

check() {
  missing_what=()
  missing_packages=()
  for need in "${needs[@]}"; do
    IFS='|' read -r what test packages <<<"$need"
    if ! eval "$test"; then
      missing_what+=("$what")
      for package in $packages; do [[ " ${missing_packages[*]} " == *" $package "* ]] || missing_packages+=("$package"); done
    fi
  done
}

check
if [ ${#missing_what[@]} -eq 0 ]; then
  echo "system-packages: present: fonts for the OCR pages (Latin, CJK, Arabic), chromium, tesseract CLI (eng, osd, chi_tra, hin, ara), docker-compose, promtool, poppler-utils"
  exit 0
fi

echo "system-packages: missing: $(IFS=,; echo "${missing_what[*]}" | sed 's/,/, /g')"
if ! has apt-get; then
  echo "system-packages: the tests need these Debian packages, and this machine has no apt-get: ${missing_packages[*]}" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "system-packages: the tests need these Debian packages; install them as root, then run npm test again:" >&2
  echo "  apt-get install --no-install-recommends ${missing_packages[*]}" >&2
  exit 1
fi
installing=("${missing_packages[@]}")
echo "system-packages: installing from Debian: ${installing[*]}"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${installing[@]}" >/dev/null
check
if [ ${#missing_what[@]} -gt 0 ]; then
  echo "system-packages: still missing after installing: ${missing_what[*]}" >&2
  exit 1
fi
echo "system-packages: installed ${installing[*]}; everything the tests need is present"
