#!/bin/bash
# Managed by etcdwright: edits here are reverted by the next apply.
#
# The expiry times of the certificates on this etcd member's host, for node_exporter's textfile
# collector: every certificate in PKI_DIR (*.crt; each one of a bundle, as the CA file is during a
# CA rotation) as etcdwright_certificate_expiry_timestamp_seconds, written to
# TEXTFILE_DIR/etcdwright_certificates.prom in one rename. Run by etcdwright-cert-metrics.timer
# once a day and by every apply that changes a certificate here. Prints "changed" when the
# metrics differ from the file it replaced.
#
# Its only input is cert-metrics.conf in the directory given as $1 (default
# /etc/etcdwright/cert-metrics): KEY=VALUE lines, read as data, never evaluated.
set -euo pipefail
umask 077

CONF_DIR=${1:-/etc/etcdwright/cert-metrics}
STATE_DIR=${ETCDWRIGHT_CERT_METRICS_STATE:-/var/lib/etcdwright/cert-metrics}

log() { printf 'etcd-cert-metrics: %s\n' "$*" >&2; }

# @include timer-job-lib.sh

CONF_KEYS=(CLUSTER MEMBER PKI_DIR TEXTFILE_DIR)

# The samples of one PEM file: each certificate in it, labelled with the file's name, the
# certificate's role (the file's name without .crt) and its serial number (a bundle holds several).
# Returns 1 when a certificate in it cannot be read.
certificate_samples() {
  local file=$1 role work c end serial t bad=0
  role=${file##*/}
  role=${role%.crt}
  work=$(mktemp -d)
  awk -v dir="$work" '/-----BEGIN CERTIFICATE-----/ { n++; f = sprintf("%s/%04d.pem", dir, n) } f { print > f }
    /-----END CERTIFICATE-----/ { f = "" }' "$file"
  for c in "$work"/*.pem; do
    [ -f "$c" ] || continue
    if end=$(openssl x509 -in "$c" -noout -enddate 2>/dev/null) && serial=$(openssl x509 -in "$c" -noout -serial 2>/dev/null) &&
      t=$(date -u -d "${end#notAfter=}" +%s 2>/dev/null); then
      metric etcdwright_certificate_expiry_timestamp_seconds \
        "certificate=\"$(metric_label "$role")\",file=\"$(metric_label "$file")\",serial=\"$(metric_label "${serial#serial=}")\"" "$t"
    else
      bad=1
    fi
  done
  rm -rf -- "$work"
  return "$bad"
}

main() {
  mkdir -p -- "$STATE_DIR"
  chmod 700 "$STATE_DIR"
  read_conf "$CONF_DIR/cert-metrics.conf" "${CONF_KEYS[@]}"
  case ${CONF_TEXTFILE_DIR:-} in /*) ;; *) log "TEXTFILE_DIR must be an absolute path"; return 1 ;; esac
  case ${CONF_PKI_DIR:-} in /*) ;; *) log "PKI_DIR must be an absolute path"; return 1 ;; esac
  metric_labels
  local f unreadable=0 samples='' count=0
  for f in "$CONF_PKI_DIR"/*.crt; do
    [ -f "$f" ] || continue
    count=$((count + 1))
    samples+=$(certificate_samples "$f") || { unreadable=$((unreadable + 1)); log "cannot read every certificate in $f"; }
    samples+=$'\n'
  done
  {
    metric_family etcdwright_certificate_expiry_timestamp_seconds gauge \
      "When a certificate on this member's host expires (its notAfter, seconds since the epoch)."
    printf '%s' "$samples" | grep -v '^$' || true
    metric_family etcdwright_certificate_files_unreadable gauge "Certificate files on this host that could not be read whole."
    metric etcdwright_certificate_files_unreadable "" "$unreadable"
  } | write_textfile "$CONF_TEXTFILE_DIR" etcdwright_certificates.prom
  if [ "$unreadable" -gt 0 ]; then
    record_run "$(printf '{"result":"failed","time":%s,"member":%s,"message":%s,"name":"","objectSize":0}' \
      "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$(json_string "${CONF_MEMBER:-}")" \
      "$(json_string "$unreadable of $count certificate files could not be read")")" failed
    return 1
  fi
  record_run "$(printf '{"result":"success","time":%s,"member":%s,"message":%s,"name":"","objectSize":0}' \
    "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$(json_string "${CONF_MEMBER:-}")" \
    "$(json_string "$count certificate files read")")" success
}

# Run, unless sourced (the unit tests source it to call its functions).
if ! (return 0 2>/dev/null); then
  main "$@"
fi
