#!/usr/bin/env bash
# Makes a cluster CA and a certificate per task (or client) for TLS mode, with the openssl
# command line:
#   bash bootstrap/make-cluster-certs.sh DIR NAME...
# writes DIR/ca.pem (the cluster CA's certificate: everyone's --tls-ca), DIR/ca.key (the
# CA's key: keep it off the cluster; run again with the same DIR to add names), and for each
# NAME, DIR/NAME.pem and DIR/NAME.key (that process's --tls-cert and --tls-key). Keys are
# EC P-256; certificates are valid for 365 days and for both ends of a connection.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 DIR NAME..." >&2
  exit 2
fi
dir=$1
shift
mkdir -p "$dir"
umask 077
if [ ! -f "$dir/ca.key" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 365 \
      -subj "/CN=tensoract cluster CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
fi
extensions=$(mktemp)
trap 'rm -f "$extensions"' EXIT
printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n' >"$extensions"
for name in "$@"; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$name" \
      -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 365 \
      -extfile "$extensions" -out "$dir/$name.pem" 2>/dev/null
  rm -f "$dir/$name.csr"
done
chmod 644 "$dir/ca.pem"
for name in "$@"; do chmod 644 "$dir/$name.pem"; done
echo "make-cluster-certs: $dir/ca.pem and $(printf '%s ' "${@/%/.pem}")in $dir"
