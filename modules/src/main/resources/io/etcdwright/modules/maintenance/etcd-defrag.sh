#!/bin/bash
# Managed by etcdwright: edits here are reverted by the next apply.
#
# One scheduled defragmentation of the etcd member on THIS host only, run by
# etcdwright-defrag.service at each tick of etcdwright-defrag.timer (the members' timers are
# staggered). In order, each step stopping the run (recorded in last-run.json) when it says no:
#   1. worth it? the database file at least MIN_DB_SIZE_BYTES and at least
#      MIN_FRAGMENTATION_PERCENT of it free pages; otherwise "not-worth-it", nothing written.
#   2. the cluster's lock (/etcdwright/lock/CLUSTER, the key apply and etcdwright defrag hold),
#      created only if absent, on a 15 s lease kept alive while this runs: never two members at
#      once, and never during an apply; held by another: "skipped".
#   3. every member healthy (a defragmenting member serves nothing: with another one down, that
#      may be the quorum); otherwise "skipped".
#   4. the member leads: leadership is handed to another voting member first (move-leader), so
#      the cluster's writes never wait on a defragmenting leader.
#   5. defragment, wait until the member is healthy again, record the sizes before and after.
#
# Its only input is defrag.conf in the directory given as $1 (default
# /etc/etcdwright/defrag): KEY=VALUE lines, read as data, never evaluated. It asks etcd with the
# member's own healthcheck client certificate (plain HTTP when the cluster's clients use it).
set -euo pipefail
umask 077

CONF_DIR=${1:-/etc/etcdwright/defrag}
STATE_DIR=${ETCDWRIGHT_DEFRAG_STATE:-/var/lib/etcdwright/defrag}
LOCK_TTL=15

log() { printf 'etcd-defrag: %s\n' "$*" >&2; }

# @include timer-job-lib.sh

# The settings defrag.conf may hold (read_conf makes each a CONF_ variable; others are ignored).
CONF_KEYS=(CLUSTER MEMBER ENDPOINT ENDPOINTS TLS CACERT CERT KEY ETCD_BIN_DIR LOCK_KEY
  MIN_FRAGMENTATION_PERCENT MIN_DB_SIZE_BYTES TEXTFILE_DIR)

# A quoted argument of etcdctl txn's input (Go's strconv.Unquote): '\' and '"' escaped.
txn_quote() {
  local s=${1//\\/\\\\}
  printf '"%s"' "${s//\"/\\\"}"
}

# Numbers are checked before any arithmetic sees them (bash arithmetic evaluates expressions).
check_conf() {
  [[ ${CONF_MIN_FRAGMENTATION_PERCENT:-} =~ ^[0-9]{1,3}$ ]] && [ "$CONF_MIN_FRAGMENTATION_PERCENT" -le 100 ] ||
    { log "MIN_FRAGMENTATION_PERCENT must be 0 to 100, not '${CONF_MIN_FRAGMENTATION_PERCENT:-}'"; return 1; }
  [[ ${CONF_MIN_DB_SIZE_BYTES:-} =~ ^[0-9]{1,15}$ ]] ||
    { log "MIN_DB_SIZE_BYTES must be a number, not '${CONF_MIN_DB_SIZE_BYTES:-}'"; return 1; }
  case ${CONF_TLS:-} in true | false) ;; *) log "TLS must be true or false"; return 1 ;; esac
  [ -n "${CONF_ENDPOINT:-}" ] && [ -n "${CONF_ENDPOINTS:-}" ] && [ -n "${CONF_LOCK_KEY:-}" ] ||
    { log "ENDPOINT, ENDPOINTS and LOCK_KEY must be set"; return 1; }
}

mib() { # bytes: "12.3 MiB"
  printf '%d.%d MiB' $(($1 / 1048576)) $((($1 % 1048576) * 10 / 1048576))
}

# Whether a database of $1 bytes, $2 of them in use, is worth defragmenting with at least $3
# percent free and at least $4 bytes; says why not on stdout (and returns 1) when it is not.
worth_it() {
  local size=$1 used=$2 percent=$3 min=$4 free
  free=$((size - used))
  [ "$free" -ge 0 ] || free=0
  if [ "$size" -lt "$min" ]; then
    printf 'its database is %s, under the minimum of %s' "$(mib "$size")" "$(mib "$min")"
    return 1
  fi
  if [ $((free * 100)) -lt $((percent * size)) ]; then
    printf 'its database is %s with %s in use: %d%% free, under %d%%' "$(mib "$size")" "$(mib "$used")" \
      $((size > 0 ? free * 100 / size : 0)) "$percent"
    return 1
  fi
}

# etcdctl against $2 (one endpoint or a comma-separated list) with a command timeout of $1.
etcdctl_to() {
  local timeout=$1 endpoints=$2
  shift 2
  if [ "$CONF_TLS" = true ]; then
    "$CONF_ETCD_BIN_DIR/etcdctl" --endpoints="$endpoints" --cacert="$CONF_CACERT" --cert="$CONF_CERT" \
      --key="$CONF_KEY" --dial-timeout=5s --command-timeout="$timeout" "$@"
  else
    "$CONF_ETCD_BIN_DIR/etcdctl" --endpoints="$endpoints" --dial-timeout=5s --command-timeout="$timeout" "$@"
  fi
}

json_number() { # key json: the first number of "key":N (none: empty, and no failure)
  printf '%s' "$2" | grep -o "\"$1\":[0-9]*" | head -n1 | cut -d: -f2 || true
}
json_text() { # key json: the first string of "key":"..." (none: empty)
  printf '%s' "$2" | grep -o "\"$1\":\"[^\"]*\"" | head -n1 | cut -d'"' -f4 || true
}

# --- run records -----------------------------------------------------------------------------

# result (defragmented, not-worth-it, skipped, failed), message, size before, size after
write_status() {
  local kind=other
  case $1 in defragmented) kind=success ;; not-worth-it) kind=fine ;; failed) kind=failed ;; esac
  # The member is fine as it is (not-worth-it): earlier failures are over.
  record_run "$(printf '{"result":%s,"time":%s,"member":%s,"message":%s,"name":"","objectSize":%s,"dbSizeBefore":%s}' \
    "$(json_string "$1")" "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$(json_string "${CONF_MEMBER:-}")" \
    "$(json_string "$2")" "${4:-0}" "${3:-0}")" "$kind"
  defrag_metrics "$1" "${3:-0}" "${4:-0}" || log "could not write the metrics to ${CONF_TEXTFILE_DIR:-}"
}

# The run's metrics (with TEXTFILE_DIR): the lib's run metrics as etcdwright_defrag_*, and the
# database's size before the run and, when it defragmented, after.
defrag_metrics() { # result before after
  {
    if [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ]; then
      metric_family etcdwright_defrag_last_run_db_size_before_bytes gauge "The member's database file when the last run looked at it."
      metric etcdwright_defrag_last_run_db_size_before_bytes "" "$2"
    fi
    if [ "$1" = defragmented ] && [[ $3 =~ ^[0-9]+$ ]]; then
      metric_family etcdwright_defrag_last_run_db_size_after_bytes gauge "The member's database file after the last run defragmented it."
      metric etcdwright_defrag_last_run_db_size_after_bytes "" "$3"
    fi
  } | record_metrics etcdwright_defrag.prom etcdwright_defrag "$1" defragmented not-worth-it skipped failed
}

skip() { # result message [before]
  log "$2"
  write_status "$1" "$2" "${3:-0}" 0
}

# --- the cluster's lock ----------------------------------------------------------------------

LEASE=
KEEPALIVE=
WHY=
# Takes the lock, or says in WHY (and returns 1) who holds it or why it could not be taken.
# Not in a subshell: LEASE and KEEPALIVE are what the exit releases.
take_lock() {
  local out token now value txn_out holder lease
  if ! out=$(etcdctl_to 10s "$CONF_ENDPOINTS" lease grant "$LOCK_TTL" 2>&1); then
    WHY="the cluster did not grant a lease for its lock ($(printf '%s' "$out" | tail -n1))"
    return 1
  fi
  lease=$(printf '%s' "$out" | sed -n 's/^lease \([0-9a-f]*\) granted.*/\1/p')
  [ -n "$lease" ] || { WHY="unexpected answer to a lease grant: $out"; return 1; }
  LEASE=$lease
  token=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  value=$(printf '{"user":"root","host":%s,"pid":%d,"command":%s,"since":"%s","token":"%s","process_space":""}' \
    "$(json_string "$CONF_MEMBER")" "$$" "$(json_string "scheduled defrag of member $CONF_MEMBER")" "$now" "$token")
  txn_out=$(printf 'create(%s) = "0"\n\nput --lease=%s %s %s\n\nget %s\n\n' "$(txn_quote "$CONF_LOCK_KEY")" "$LEASE" \
    "$(txn_quote "$CONF_LOCK_KEY")" "$(txn_quote "$value")" "$(txn_quote "$CONF_LOCK_KEY")" |
    etcdctl_to 10s "$CONF_ENDPOINTS" txn 2>&1) || {
    WHY="the lock transaction failed ($(printf '%s' "$txn_out" | tail -n1))"
    return 1
  }
  if [ "$(printf '%s\n' "$txn_out" | head -n1)" != SUCCESS ]; then
    holder=$(printf '%s\n' "$txn_out" | tail -n1)
    WHY="the cluster's lock $CONF_LOCK_KEY is held by $(json_text user "$holder")@$(json_text host "$holder")"
    WHY+=" ($(json_text command "$holder")) since $(json_text since "$holder")"
    return 1
  fi
  etcdctl_to 10s "$CONF_ENDPOINTS" lease keep-alive "$LEASE" >/dev/null 2>&1 &
  KEEPALIVE=$!
}

release_lock() {
  [ -z "$KEEPALIVE" ] || kill "$KEEPALIVE" 2>/dev/null || true
  # Revoking the lease deletes the key attached to it, and only that one.
  [ -z "$LEASE" ] || etcdctl_to 10s "$CONF_ENDPOINTS" lease revoke "$LEASE" >/dev/null 2>&1 ||
    log "could not revoke lease $LEASE: the lock ends with it within ${LOCK_TTL} s"
  LEASE= KEEPALIVE=
}

STAGE=starting
BEFORE=0
on_exit() {
  local rc=$?
  release_lock
  if [ "$rc" -ne 0 ]; then
    log "FAILED while $STAGE"
    write_status failed "failed while $STAGE" "$BEFORE" 0 2>/dev/null || true
  fi
  exit "$rc"
}

# Prints a reason and returns 1 when a member does not answer healthy.
all_healthy() {
  local e out
  local -a endpoints
  IFS=, read -r -a endpoints <<<"$CONF_ENDPOINTS"
  for e in "${endpoints[@]}"; do
    if ! out=$(etcdctl_to 10s "$e" endpoint health 2>&1); then
      printf 'the member at %s is not healthy (%s)' "$e" "$(printf '%s' "$out" | tail -n1)"
      return 1
    fi
  done
}

# The id (hex) of a started voting member other than this one, from 'member list' (simple format:
# ID, status, name, peer URLs, client URLs, is learner).
transferee() {
  local list id status name learner
  list=$(etcdctl_to 10s "$CONF_ENDPOINT" member list)
  local -a f
  while IFS=', ' read -r -a f; do
    [ "${#f[@]}" -ge 4 ] || continue
    id=${f[0]} status=${f[1]} name=${f[2]} learner=${f[${#f[@]} - 1]}
    if [ "$status" = started ] && [ "$name" != "$CONF_MEMBER" ] && [ "${learner:-false}" = false ]; then
      printf '%s\n' "$id"
      return 0
    fi
  done <<<"$list"
}

main() {
  mkdir -p -- "$STATE_DIR"
  chmod 700 "$STATE_DIR"
  read_conf "$CONF_DIR/defrag.conf" "${CONF_KEYS[@]}"
  check_conf
  metric_labels
  trap on_exit EXIT

  STAGE="asking the local member for its database size"
  local status size used member_id leader_id why
  status=$(etcdctl_to 10s "$CONF_ENDPOINT" endpoint status -w json)
  size=$(json_number dbSize "$status")
  used=$(json_number dbSizeInUse "$status")
  [ -n "$size" ] && [ -n "$used" ] || { log "endpoint status gave no dbSize/dbSizeInUse: $status"; return 1; }
  BEFORE=$size
  if ! why=$(worth_it "$size" "$used" "$CONF_MIN_FRAGMENTATION_PERCENT" "$CONF_MIN_DB_SIZE_BYTES"); then
    skip not-worth-it "member $CONF_MEMBER not worth defragmenting: $why" "$size"
    return 0
  fi

  STAGE="taking the cluster's lock"
  if ! take_lock; then
    skip skipped "member $CONF_MEMBER not defragmented: $WHY" "$size"
    return 0
  fi

  STAGE="checking that every member is healthy"
  if ! why=$(all_healthy); then
    skip skipped "member $CONF_MEMBER not defragmented: $why" "$size"
    return 0
  fi

  STAGE="asking the local member whether it leads"
  status=$(etcdctl_to 10s "$CONF_ENDPOINT" endpoint status -w json)
  member_id=$(json_number member_id "$status")
  leader_id=$(json_number leader "$status")
  local handed=''
  if [ -n "$member_id" ] && [ "$member_id" = "$leader_id" ]; then
    STAGE="handing the leadership to another member"
    local to
    to=$(transferee)
    if [ -n "$to" ]; then
      etcdctl_to 30s "$CONF_ENDPOINT" move-leader "$to" >/dev/null
      status=$(etcdctl_to 10s "$CONF_ENDPOINT" endpoint status -w json)
      if [ "$(json_number leader "$status")" = "$member_id" ]; then
        skip skipped "member $CONF_MEMBER not defragmented: it still leads after handing the leadership to $to" "$size"
        return 0
      fi
      handed="; leadership handed to $to first"
    fi
  fi

  STAGE="defragmenting"
  log "defragmenting member $CONF_MEMBER ($(mib "$size"), $(mib "$used") in use)$handed"
  etcdctl_to 10m "$CONF_ENDPOINT" defrag >/dev/null

  STAGE="waiting for the member to be healthy again"
  local i
  for ((i = 0; i < 60; i++)); do
    etcdctl_to 5s "$CONF_ENDPOINT" endpoint health >/dev/null 2>&1 && break
    sleep 1
  done
  [ "$i" -lt 60 ] || { log "member $CONF_MEMBER not healthy 60 s after its defragmentation"; return 1; }
  status=$(etcdctl_to 10s "$CONF_ENDPOINT" endpoint status -w json)
  local after
  after=$(json_number dbSize "$status")
  release_lock
  log "member $CONF_MEMBER defragmented: $(mib "$size") -> $(mib "${after:-0}")"
  write_status defragmented "member $CONF_MEMBER defragmented: $(mib "$size") -> $(mib "${after:-0}")$handed" "$size" "${after:-0}"
}

# Run, unless sourced (the unit tests source it to call its functions).
if ! (return 0 2>/dev/null); then
  main "$@"
fi
