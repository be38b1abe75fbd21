#!/usr/bin/env bash
# Installs the Debian packages forgekit's tests need when they are missing: git (repositories), gnupg and
# openssh-client (key fixtures are checked against them), chromium (the markup XSS suite runs in a real browser).
set -euo pipefail
need=()
command -v git >/dev/null 2>&1 || need+=(git)
command -v gpg >/dev/null 2>&1 || need+=(gnupg)
command -v ssh-keygen >/dev/null 2>&1 || need+=(openssh-client)
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "installing: ${need[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
