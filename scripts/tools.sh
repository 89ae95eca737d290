#!/usr/bin/env bash
# Installs the Debian tools the tests use besides the clients (scripts/clients/install.sh): Prometheus and promtool
# (AlertRulesTest, OperatorViewsIT), Chromium and its WebDriver (OperatorViewsIT's browser). Only what is missing;
# without recommended packages.
set -euo pipefail
missing=()
[ -x /usr/bin/promtool ] && [ -x /usr/bin/prometheus ] || missing+=(prometheus)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (Debian)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
fi
