#!/usr/bin/env bash
# Debian packages Helena uses beside her pip wheels (called by `make install`, so by `make run`,
# `make test` and .ci/run): Tesseract with German data for scanned documents, pango/harfbuzz and
# fonts for WeasyPrint's PDFs (Liberation Sans: the metric twin of the DOCX's Arial). Installed when
# missing and this user may (root, or sudo without a
# password); otherwise a hint: Helena still runs, a scan then says "OCR nicht verfügbar".
# `config/system-packages.sh test` (from `make test`) adds Debian's Chromium for the browser tests.
set -u
PACKAGES="tesseract-ocr tesseract-ocr-deu libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0
  fonts-dejavu-core fonts-liberation"
[ "${1:-}" = "test" ] && PACKAGES="$PACKAGES chromium"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[helena] Not a Debian system: please install the equivalents of:$missing" >&2
  exit 0
fi
if [ "$(id -u)" = "0" ]; then SUDO=""
elif sudo -n true 2>/dev/null; then SUDO="sudo -n"
else
  echo "[helena] Missing Debian packages (OCR, PDF, browser tests): sudo apt-get install$missing" >&2
  exit 0
fi
echo "[helena] installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -qq $missing >/dev/null 2>&1 || {
  $SUDO apt-get update -qq >/dev/null 2>&1
  $SUDO apt-get install -y -qq $missing >/dev/null 2>&1 || echo "[helena] apt-get failed for:$missing" >&2
}
exit 0
