#!/bin/sh
# Runs one download command of the image build with the build argument EXTRA_CA_CERTS (PEM text, the CA
# certificates of a TLS-intercepting proxy) trusted, then removes them again before the RUN step ends,
# so no layer keeps them. Empty EXTRA_CA_CERTS: the command runs with the system's CAs only.
set -eu
extra=/usr/local/share/ca-certificates/skill-be-build-extra.crt
if [ -n "${EXTRA_CA_CERTS:-}" ]; then
  printf '%s\n' "$EXTRA_CA_CERTS" > "$extra"
  update-ca-certificates >/dev/null
  # npm, pip and Python's ssl each read their own variable.
  export NODE_EXTRA_CA_CERTS="$extra" PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
fi
status=0
"$@" || status=$?
if [ -n "${EXTRA_CA_CERTS:-}" ]; then
  rm -f "$extra"
  update-ca-certificates --fresh >/dev/null
fi
exit "$status"
