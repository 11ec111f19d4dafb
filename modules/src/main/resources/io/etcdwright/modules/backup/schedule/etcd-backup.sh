#!/bin/bash
# Managed by etcdwright: edits here are reverted by the next apply.
#
# One scheduled backup of the etcd member on this host, run by etcdwright-backup.service at each
# tick of etcdwright-backup.timer. Only the member that leads takes the snapshot; the others exit 0
# with one journal line. The leader saves a snapshot (etcdctl checks its hash), compresses it,
# encrypts it when recipients are configured, uploads it in etcd-manager's layout with the meta
# files LAST (a backup without them is incomplete and never counts), then prunes with
# etcd-manager's retention rules, deleting meta files first.
#
# Its only inputs are files, all root-only, in the directory given as $1 (default
# /etc/etcdwright/backup): backup.conf (KEY=VALUE lines, read as data, never evaluated),
# credentials (S3: AWS_* lines, read as data; SFTP: a private key), recipients.pem, known_hosts.
# No secret is ever put on a command line (curl reads them from a 0600 config file).
set -euo pipefail
umask 077

CONF_DIR=${1:-/etc/etcdwright/backup}
STATE_DIR=${ETCDWRIGHT_BACKUP_STATE:-/var/lib/etcdwright/backup}

log() { printf 'etcd-backup: %s\n' "$*" >&2; }

# @include timer-job-lib.sh

# The settings backup.conf may hold (read_conf makes each a CONF_ variable; others are ignored).
CONF_KEYS=(CLUSTER MEMBER MEMBER_COUNT ENDPOINT CACERT CERT KEY ETCD_BIN_DIR STORE_TYPE STORE_PATH
  SFTP_HOST SFTP_PORT SFTP_USER S3_ENDPOINT S3_REGION S3_BUCKET S3_PREFIX S3_PATH_STYLE S3_PART_SIZE ENCRYPT
  KEEP_ALL_FOR_HOURS HOURLY_FOR_DAYS DAILY_FOR_DAYS STORE_NAME INTERVAL_SECONDS TEXTFILE_DIR)

# S3: an object larger than a part goes up as a multipart upload (one PUT holds 5 GiB at most, and
# etcd's quota allows 8 GiB), in parts of 64 MiB as the workstation's client sends them: 128 parts
# for 8 GiB, far below S3's 10000, each part staged in the run's directory. S3_PART_SIZE in
# backup.conf (bytes; S3's minimum is 5 MiB) changes it: tests use it for small backups.
DEFAULT_S3_PART_SIZE=$((64 * 1024 * 1024))

# Values used as numbers or to pick code are checked first: bash arithmetic would evaluate an
# expression (and run $(...) in an array index), and the store type names the functions called.
check_conf() {
  local k v
  case ${CONF_STORE_TYPE:-} in directory | sftp | s3) ;; *) log "unknown store type '${CONF_STORE_TYPE:-}'"; return 1 ;; esac
  for k in MEMBER_COUNT KEEP_ALL_FOR_HOURS HOURLY_FOR_DAYS DAILY_FOR_DAYS; do
    v=CONF_$k
    [[ ${!v:-} =~ ^[0-9]{1,6}$ ]] || { log "$k must be a number, not '${!v:-}'"; return 1; }
  done
  [ "$CONF_STORE_TYPE" != sftp ] || [[ ${CONF_SFTP_PORT:-} =~ ^[0-9]{1,5}$ ]] || { log "SFTP_PORT must be a number"; return 1; }
  [ -z "${CONF_S3_PART_SIZE:-}" ] || [[ $CONF_S3_PART_SIZE =~ ^[0-9]{1,12}$ ]] && [ "${CONF_S3_PART_SIZE:-1}" -gt 0 ] ||
    { log "S3_PART_SIZE must be a number of bytes"; return 1; }
  # Metrics (docs/monitoring.md): the interval is written as a sample's value.
  [ -z "${CONF_TEXTFILE_DIR:-}" ] || [[ ${CONF_INTERVAL_SECONDS:-} =~ ^[0-9]{1,9}$ ]] ||
    { log "INTERVAL_SECONDS must be a number, not '${CONF_INTERVAL_SECONDS:-}'"; return 1; }
}

# Reads the S3 credentials file (AWS_ACCESS_KEY_ID=..., AWS_SECRET_ACCESS_KEY=..., optional
# AWS_SESSION_TOKEN=...; 'export ' and surrounding quotes allowed) as data.
read_credentials() {
  local file=$1 k v
  [ -f "$file" ] || { log "no credentials at $file"; return 1; }
  while IFS='=' read -r k v || [ -n "$k" ]; do
    k=${k#export }
    k=${k//[[:space:]]/}
    v=${v%$'\r'}
    case $v in \"*\") v=${v#\"}; v=${v%\"} ;; \'*\') v=${v#\'}; v=${v%\'} ;; esac
    case $k in
      AWS_ACCESS_KEY_ID) S3_ID=$v ;;
      AWS_SECRET_ACCESS_KEY) S3_SECRET=$v ;;
      AWS_SESSION_TOKEN) S3_TOKEN=$v ;;
    esac
  done <"$file"
  [ -n "${S3_ID:-}" ] && [ -n "${S3_SECRET:-}" ] || {
    log "$file must set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
    return 1
  }
}

# The seconds since the epoch of a backup name (2026-11-24T20:15:03Z-000001); fails on other names.
name_epoch() {
  local n=$1
  [[ $n =~ ^([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}:[0-9]{2})Z-[0-9]*$ ]] || return 1
  date -u -d "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" +%s
}

# etcd-manager's retention (etcdadm etcd-manager/pkg/controller/backupcleanup.go): from the backup
# names on stdin (sorted, oldest first), prints those to delete. Kept: every backup younger than
# keep-all; the oldest of each hour younger than hourly; the oldest of each UTC day younger than
# daily; always the newest complete backup ($5); names that are not backup names.
retention_drops() {
  local now=$1 keep_all=$(($2 * 3600)) hourly=$(($3 * 86400)) daily=$(($4 * 86400)) newest=$5
  local name t age bucket
  local -A first_of_bucket=() keep=()
  local -a names=()
  while IFS= read -r name; do
    [ -n "$name" ] || continue
    names+=("$name")
    t=$(name_epoch "$name") || { keep[$name]=1; continue; }
    age=$((now - t))
    if [ "$age" -lt "$keep_all" ]; then
      keep[$name]=1
    elif [ "$age" -lt "$hourly" ]; then
      bucket=$((t - t % 3600))
      [ -n "${first_of_bucket[$bucket]:-}" ] || first_of_bucket[$bucket]=$name
    elif [ "$age" -lt "$daily" ]; then
      bucket=$((t - t % 86400))
      [ -n "${first_of_bucket[$bucket]:-}" ] || first_of_bucket[$bucket]=$name
    fi
  done
  for bucket in "${!first_of_bucket[@]}"; do keep[${first_of_bucket[$bucket]}]=1; done
  [ -z "$newest" ] || keep[$newest]=1
  for name in "${names[@]}"; do
    [ -n "${keep[$name]:-}" ] || printf '%s\n' "$name"
  done
}

# The complete backups of a store listing (object keys on stdin), oldest first: a name with a data
# file and etcd-manager's meta, as the workstation's catalog and etcd-manager count them. What a
# failed run could not remove (the store went down before its cleanup) is no backup: retention
# must never keep such a leftover as the oldest of its hour or day in place of a good backup.
# Leftovers stay for 'etcdwright backups prune', which shows and removes them.
complete_backups() {
  awk -F/ 'NF == 2 && $2 == "_etcd_backup.meta" { meta[$1] = 1 }
           NF == 2 && ($2 == "etcd.backup.gz" || $2 == "etcd.backup.gz.p7m") { data[$1] = 1 }
           END { for (n in meta) if (n in data) print n }' | sort
}

# From a store listing (object keys on stdin), the backups retention deletes; the arguments are
# retention_drops' (now, keep-all hours, hourly days, daily days, newest).
listing_drops() { complete_backups | retention_drops "$@"; }

# --- stores: list (object keys relative to the root, one a line), put FILE KEY, delete KEY ----

META_FILES=(_etcd_backup.meta etcdwright-backup.json)

directory_list() {
  local root=$CONF_STORE_PATH d f
  [ -d "$root" ] || return 0
  for d in "$root"/*/; do
    [ -d "$d" ] || continue
    for f in "$d"*; do
      [ -f "$f" ] && printf '%s\n' "${f#"$root"/}"
    done
  done
}
directory_put() {
  local src=$1 key=$2 dest="$CONF_STORE_PATH/$2"
  mkdir -p -- "$(dirname -- "$dest")"
  cp -- "$src" "$dest.part"
  sync -- "$dest.part" 2>/dev/null || true
  mv -f -- "$dest.part" "$dest"
}
directory_delete() {
  rm -f -- "$CONF_STORE_PATH/$1" "$CONF_STORE_PATH/$1.part"
  rmdir -- "$(dirname -- "$CONF_STORE_PATH/$1")" 2>/dev/null || true
}

sftp_batch() {
  sftp -b - -q -i "$CONF_DIR/credentials" -P "$CONF_SFTP_PORT" -o BatchMode=yes -o StrictHostKeyChecking=yes \
    -o UserKnownHostsFile="$CONF_DIR/known_hosts" -o ConnectTimeout=30 -- "$CONF_SFTP_USER@$CONF_SFTP_HOST"
}
# sftp batch commands take arguments in double quotes, with '\' and '"' escaped.
sftp_quote() {
  local s=${1//\\/\\\\}
  printf '"%s"' "${s//\"/\\\"}"
}
sftp_list() {
  local out d
  out=$(printf 'ls -1 %s\n' "$(sftp_quote "$CONF_STORE_PATH/")" | sftp_batch 2>/dev/null) || return 0
  while IFS= read -r d; do
    d=${d%/}
    d=${d##*/}
    name_epoch "$d" >/dev/null 2>&1 || continue
    printf 'ls -1 %s\n' "$(sftp_quote "$CONF_STORE_PATH/$d/")" | sftp_batch 2>/dev/null | while IFS= read -r f; do
      case $f in sftp\>*) continue ;; esac
      printf '%s/%s\n' "$d" "${f##*/}"
    done
  done <<<"$(printf '%s\n' "$out" | grep -v '^sftp>')"
}
sftp_put() {
  local src=$1 key=$2 dest="$CONF_STORE_PATH/$2"
  {
    printf -- '-mkdir %s\n' "$(sftp_quote "$CONF_STORE_PATH")"
    printf -- '-mkdir %s\n' "$(sftp_quote "$(dirname -- "$dest")")"
    printf -- '-rm %s\n' "$(sftp_quote "$dest.part")"
    printf 'put %s %s\n' "$(sftp_quote "$src")" "$(sftp_quote "$dest.part")"
    printf -- '-rm %s\n' "$(sftp_quote "$dest")"
    printf 'rename %s %s\n' "$(sftp_quote "$dest.part")" "$(sftp_quote "$dest")"
  } | sftp_batch >/dev/null
}
sftp_delete() {
  {
    printf -- '-rm %s\n' "$(sftp_quote "$CONF_STORE_PATH/$1")"
    printf -- '-rm %s\n' "$(sftp_quote "$CONF_STORE_PATH/$1.part")"
    printf -- '-rmdir %s\n' "$(sftp_quote "$(dirname -- "$CONF_STORE_PATH/$1")")"
  } | sftp_batch >/dev/null 2>&1 || true
}

# SigV4 URI encoding: everything but unreserved characters (and '/' in a path) as %XX.
uri_encode() {
  local s=$1 keep_slash=$2 out='' c i LC_ALL=C
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9._~-]) out+=$c ;;
      /) if [ "$keep_slash" = 1 ]; then out+=/; else out+=%2F; fi ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}
s3_base() {
  local endpoint=${CONF_S3_ENDPOINT:-https://s3.$CONF_S3_REGION.amazonaws.com}
  endpoint=${endpoint%/}
  if [ "$CONF_S3_PATH_STYLE" = true ]; then
    printf '%s/%s' "$endpoint" "$CONF_S3_BUCKET"
  else
    printf '%s://%s.%s' "${endpoint%%://*}" "$CONF_S3_BUCKET" "${endpoint#*://}"
  fi
}
# curl with the secret in a 0600 config file, never in argv; prints the body, fails on HTTP >= 300.
s3_curl() {
  local out=$WORK/s3-response code
  # curl's own message (connection refused, reset, timed out) is the run's reason: its first line
  # names the endpoint and what failed, never a credential (those are in the config file).
  code=$(curl -sS -K "$WORK/curl.conf" -o "$out" -w '%{http_code}' "$@" 2>"$WORK/curl-error") || {
    S3_ERROR=$(head -n1 -- "$WORK/curl-error" | tr -d '\r')
    S3_ERROR=${S3_ERROR:-curl could not complete the request}
    log "S3 request failed: $S3_ERROR"
    return 1
  }
  if [ "$code" -ge 300 ] || [ "$code" -lt 200 ]; then
    S3_ERROR="HTTP $code $(sed -n 's:.*<Code>\([^<]*\)</Code>.*:\1:p' "$out" | head -n1)"
    log "S3 request failed: $S3_ERROR"
    return 1
  fi
  cat -- "$out"
}
s3_write_curl_config() {
  local q_user q_token
  q_user=${S3_ID}:${S3_SECRET}
  q_user=${q_user//\\/\\\\}
  q_user=${q_user//\"/\\\"}
  {
    printf 'aws-sigv4 = "aws:amz:%s:s3"\n' "$CONF_S3_REGION"
    printf 'user = "%s"\n' "$q_user"
    printf 'header = "x-amz-content-sha256: UNSIGNED-PAYLOAD"\n'
    if [ -n "${S3_TOKEN:-}" ]; then
      q_token=${S3_TOKEN//\\/\\\\}
      printf 'header = "x-amz-security-token: %s"\n' "${q_token//\"/\\\"}"
    fi
    printf 'connect-timeout = 30\n'
    printf 'retry = 2\n'
  } >"$WORK/curl.conf"
}
s3_list() {
  local token='' body query
  while :; do
    # Query parameters in sorted order: SigV4 signs them sorted, and curl sends them as given.
    query=''
    [ -z "$token" ] || query="continuation-token=$(uri_encode "$token" 0)&"
    query+="list-type=2&prefix=$(uri_encode "$CONF_S3_PREFIX" 0)"
    body=$(s3_curl "$(s3_base)/?$query") || return 1
    printf '%s' "$body" | grep -o '<Key>[^<]*</Key>' | sed -e 's:<Key>::' -e 's:</Key>::' \
      -e 's/&amp;/\&/g' -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e "s/&apos;/'/g" |
      while IFS= read -r k; do printf '%s\n' "${k#"$CONF_S3_PREFIX"}"; done
    printf '%s' "$body" | grep -q '<IsTruncated>true</IsTruncated>' || break
    token=$(printf '%s' "$body" | sed -n 's:.*<NextContinuationToken>\([^<]*\)</NextContinuationToken>.*:\1:p')
    [ -n "$token" ] || break
  done
}
s3_put() {
  local size part_size
  size=$(stat -c %s -- "$1")
  part_size=$((10#${CONF_S3_PART_SIZE:-$DEFAULT_S3_PART_SIZE}))
  if [ "$size" -le "$part_size" ]; then
    s3_curl -T "$1" "$(s3_base)/$(uri_encode "$CONF_S3_PREFIX$2" 1)" >/dev/null
  else
    s3_multipart_put "$1" "$2" "$size" "$part_size"
  fi
}

# A multipart upload (S3's CreateMultipartUpload, UploadPart, CompleteMultipartUpload): the object
# appears whole when completed, or never. A failure aborts it (on_exit, from MULTIPART), so no
# stored part is left behind to be paid for. Query parameters are written sorted, with '=' even
# when empty: SigV4 signs the canonical query and curl sends it as given.
MULTIPART=()
s3_multipart_put() {
  local src=$1 key=$2 size=$3 part_size=$4 url body upload_id number=1 offset=0 etag parts=$WORK/parts.xml
  url="$(s3_base)/$(uri_encode "$CONF_S3_PREFIX$key" 1)"
  body=$(s3_curl -X POST "$url?uploads=") || return 1
  upload_id=$(printf '%s' "$body" | sed -n 's:.*<UploadId>\([^<]*\)</UploadId>.*:\1:p' | head -n1)
  [ -n "$upload_id" ] || { S3_ERROR="no UploadId in the answer to CreateMultipartUpload"; log "$S3_ERROR"; return 1; }
  MULTIPART=("$key" "$upload_id")
  printf '<CompleteMultipartUpload>' >"$parts"
  while [ "$offset" -lt "$size" ]; do
    # One part at a time from the file (a pipe has no length, which S3 needs), then removed.
    dd if="$src" of="$WORK/part" bs=1M iflag=skip_bytes,count_bytes skip="$offset" count="$part_size" status=none
    s3_curl -D "$WORK/part-headers" -T "$WORK/part" \
      "$url?partNumber=$number&uploadId=$(uri_encode "$upload_id" 0)" >/dev/null || return 1
    etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)$/\1/p' "$WORK/part-headers" | tr -d '\r' | tail -n1)
    # An ETag is a quoted hex digest: nothing in it needs escaping in XML, and one that is not is refused.
    [[ $etag =~ ^\"?[0-9A-Za-z-]+\"?$ ]] || { S3_ERROR="no usable ETag in the answer to part $number"; log "$S3_ERROR"; return 1; }
    printf '<Part><PartNumber>%s</PartNumber><ETag>%s</ETag></Part>' "$number" "$etag" >>"$parts"
    offset=$((offset + part_size))
    number=$((number + 1))
  done
  rm -f -- "$WORK/part" "$WORK/part-headers"
  printf '</CompleteMultipartUpload>' >>"$parts"
  body=$(s3_curl -X POST -H 'Content-Type: application/xml' --data-binary "@$parts" \
    "$url?uploadId=$(uri_encode "$upload_id" 0)") || return 1
  # S3 may answer 200 and still fail the completion, with an <Error> in the body.
  if printf '%s' "$body" | grep -q '<Error>'; then
    S3_ERROR="CompleteMultipartUpload: $(printf '%s' "$body" | sed -n 's:.*<Code>\([^<]*\)</Code>.*:\1:p' | head -n1)"
    log "S3 request failed: $S3_ERROR"
    return 1
  fi
  MULTIPART=()
  log "uploaded $key in $((number - 1)) parts of at most $part_size bytes"
}
s3_multipart_abort() {
  [ "${#MULTIPART[@]}" -eq 2 ] || return 0
  s3_curl -X DELETE "$(s3_base)/$(uri_encode "$CONF_S3_PREFIX${MULTIPART[0]}" 1)?uploadId=$(uri_encode "${MULTIPART[1]}" 0)" \
    >/dev/null || log "could not abort the multipart upload of ${MULTIPART[0]} (${MULTIPART[1]}): its parts stay in the bucket until a lifecycle rule removes them"
  MULTIPART=()
}
s3_delete() {
  s3_curl -X DELETE "$(s3_base)/$(uri_encode "$CONF_S3_PREFIX$1" 1)" >/dev/null
}

store_list() { "${CONF_STORE_TYPE}_list" | sort; }
store_put() { "${CONF_STORE_TYPE}_put" "$@"; }
store_delete() { "${CONF_STORE_TYPE}_delete" "$@"; }

# Deletes one backup: its meta files first, so a backup is never complete without its data.
delete_backup() {
  local name=$1 key
  for key in "${META_FILES[@]}"; do
    if grep -qxF -- "$name/$key" "$WORK/listing"; then store_delete "$name/$key"; fi
  done
  while IFS= read -r key; do
    case $key in "$name"/_etcd_backup.meta | "$name"/etcdwright-backup.json) ;; "$name"/*) store_delete "$key" ;; esac
  done <"$WORK/listing"
}

# --- status files --------------------------------------------------------------------------

write_status() { # result message [name size]
  local kind=other
  case $1 in success) kind=success ;; not-leader) kind=fine ;; failed) kind=failed ;; esac
  # A follower did its part (not-leader): its earlier failures (etcd down during a restart) are over.
  record_run "$(printf '{"result":%s,"time":%s,"member":%s,"message":%s,"name":%s,"objectSize":%s}' \
    "$(json_string "$1")" "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$(json_string "${CONF_MEMBER:-}")" \
    "$(json_string "$2")" "$(json_string "${3:-}")" "${4:-0}")" "$kind"
  backup_metrics "$1" || log "could not write the metrics to ${CONF_TEXTFILE_DIR:-}"
}

# The run's metrics (with TEXTFILE_DIR): the lib's run metrics as etcdwright_backup_*, the schedule's
# interval, the size of this member's last backup, and the newest complete backup it saw in the
# store (newest-backup, written by its last successful run; the followers keep what they saw when
# they led, so the cluster's newest is the maximum over the members).
backup_metrics() {
  local newest t last
  {
    metric_family etcdwright_backup_interval_seconds gauge "The schedule's interval between backups."
    metric etcdwright_backup_interval_seconds "" "${CONF_INTERVAL_SECONDS:-0}"
    if [ -f "$STATE_DIR/last-success.json" ]; then
      last=$(head -c 4096 -- "$STATE_DIR/last-success.json")
      metric_family etcdwright_backup_last_size_bytes gauge \
        "The size of the last backup this member stored (compressed; encrypted when recipients are configured)."
      metric etcdwright_backup_last_size_bytes "" "$(json_number objectSize "$last" || echo 0)"
    fi
    newest=$(head -n1 -- "$STATE_DIR/newest-backup" 2>/dev/null || true)
    if [ -n "$newest" ] && t=$(name_epoch "$newest"); then
      metric_family etcdwright_backup_newest_timestamp_seconds gauge \
        "The time of the newest complete backup in the store (from its name) when this member last stored one."
      metric etcdwright_backup_newest_timestamp_seconds "" "$t"
    fi
  } | record_metrics etcdwright_backup.prom etcdwright_backup "$1" success failed not-leader
}

STAGE=starting
UPLOADED=()
on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    # Nothing of this run may look like a backup: its uploads go, metas first (they are last
    # in UPLOADED, so deleting in reverse order removes them first).
    local i
    local reason=${S3_ERROR:-}
    [ "${CONF_STORE_TYPE:-}" != s3 ] || s3_multipart_abort 2>/dev/null || true
    S3_ERROR=$reason
    for ((i = ${#UPLOADED[@]} - 1; i >= 0; i--)); do
      store_delete "${UPLOADED[i]}" 2>/dev/null || log "could not remove the partial upload ${UPLOADED[i]}"
    done
    log "FAILED while $STAGE${S3_ERROR:+ ($S3_ERROR)}"
    write_status failed "failed while $STAGE${S3_ERROR:+ ($S3_ERROR)}" "${NAME:-}" 0 2>/dev/null || true
  fi
  [ -z "${WORK:-}" ] || rm -rf -- "$WORK"
  exit "$rc"
}

etcdctl_local() {
  "$CONF_ETCD_BIN_DIR/etcdctl" --endpoints="$CONF_ENDPOINT" --cacert="$CONF_CACERT" \
    --cert="$CONF_CERT" --key="$CONF_KEY" --command-timeout=30s "$@"
}

json_number() { # key json: the first number of "key":N
  printf '%s' "$2" | grep -o "\"$1\":[0-9]*" | head -n1 | cut -d: -f2
}
json_text() { # key json: the first string of "key":"..."
  printf '%s' "$2" | grep -o "\"$1\":\"[^\"]*\"" | head -n1 | cut -d'"' -f4
}

main() {
  mkdir -p -- "$STATE_DIR"
  chmod 700 "$STATE_DIR"
  read_conf "$CONF_DIR/backup.conf" "${CONF_KEYS[@]}"
  check_conf
  metric_labels store "${CONF_STORE_NAME:-}" store_type "$CONF_STORE_TYPE"
  trap on_exit EXIT
  WORK=$(mktemp -d "$STATE_DIR/run.XXXXXX")

  STAGE="asking the local member whether it leads"
  local status member_id leader_id version
  status=$(etcdctl_local endpoint status -w json)
  member_id=$(json_number member_id "$status")
  leader_id=$(json_number leader "$status")
  version=$(json_text version "$status")
  if [ -z "$member_id" ] || [ "$member_id" != "$leader_id" ]; then
    log "member $CONF_MEMBER does not lead (leader ${leader_id:-unknown}): no backup from this host"
    write_status not-leader "member $CONF_MEMBER did not lead" "" 0
    return 0
  fi

  if [ "$CONF_STORE_TYPE" = s3 ]; then
    STAGE="reading the S3 credentials"
    read_credentials "$CONF_DIR/credentials"
    s3_write_curl_config
  fi

  # Write-only credentials (the safest for S3) cannot list: the backup is still taken, with
  # sequence 000000, and retention is left to the workstation or a lifecycle rule.
  STAGE="listing the $CONF_STORE_TYPE store"
  local listed=true
  if ! store_list >"$WORK/listing"; then
    listed=false
    : >"$WORK/listing"
    log "cannot list the $CONF_STORE_TYPE store${S3_ERROR:+ ($S3_ERROR)}: retention is skipped this run and the backup" \
      "takes sequence 000000 (write-only credentials cannot list; otherwise the upload below fails too)"
  fi
  S3_ERROR=

  STAGE="taking the snapshot"
  local snap=$WORK/snapshot.db taken_at epoch seq highest
  taken_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  epoch=$(date -u -d "${taken_at%Z}" +%s)
  etcdctl_local snapshot save "$snap" >/dev/null

  # etcd-manager's name: time and a sequence; one more than the highest in the store, so two
  # backups in one second stay apart and in order.
  highest=$(sed -n 's:^[^/]*Z-\([0-9]\{6\}\)/.*:\1:p' "$WORK/listing" | sort -n | tail -n1)
  seq=$((10#${highest:-0} + 1))
  [ "$seq" -le 999999 ] || seq=0
  [ "$listed" = true ] || seq=0
  NAME=$(printf '%s-%06d' "$taken_at" "$seq")

  STAGE="checking the snapshot"
  local size db_size db_sha trailer snap_status revision keys
  size=$(stat -c %s -- "$snap")
  db_size=$((size - 32))
  db_sha=$(head -c "$db_size" -- "$snap" | sha256sum | cut -d' ' -f1)
  trailer=$(tail -c 32 -- "$snap" | od -An -tx1 | tr -d ' \n')
  if [ "$db_sha" != "$trailer" ]; then
    log "the snapshot's sha256 trailer does not match its content"
    return 1
  fi
  if [ -x "$CONF_ETCD_BIN_DIR/etcdutl" ]; then
    snap_status=$("$CONF_ETCD_BIN_DIR/etcdutl" snapshot status -w json "$snap")
  else
    snap_status=$("$CONF_ETCD_BIN_DIR/etcdctl" snapshot status -w json "$snap")
  fi
  revision=$(json_number revision "$snap_status")
  # The keys a client sees at the snapshot's revision (etcdutl's totalKey counts every revision
  # of every key); -1 when that revision was compacted meanwhile, and the meta says unknown.
  local counted
  # (a range's count is the whole range's, whatever --limit returns; --count-only needs -w fields)
  if counted=$(etcdctl_local get "" --prefix --keys-only --limit=1 --rev="$revision" -w json 2>/dev/null); then
    # protobuf's JSON leaves a zero count out (and grep finding nothing must not end the run)
    keys=$(json_number count "$counted" || true)
    keys=${keys:-0}
  else
    keys=-1
    log "cannot count the keys at revision $revision (compacted meanwhile?); the backup records them as unknown"
  fi

  STAGE="compressing the snapshot"
  local object=etcd.backup.gz data=$WORK/etcd.backup.gz encrypted=false recipients=''
  gzip -c -6 -- "$snap" >"$data"
  rm -f -- "$snap"
  if [ "$CONF_ENCRYPT" = true ]; then
    STAGE="encrypting the backup"
    local -a certs=()
    local c
    awk -v dir="$WORK" '/-----BEGIN CERTIFICATE-----/ { n++; f = dir "/recipient-" n ".pem" } f { print > f } /-----END CERTIFICATE-----/ { f = "" }' \
      "$CONF_DIR/recipients.pem"
    for c in "$WORK"/recipient-*.pem; do
      [ -f "$c" ] || continue
      certs+=("$c")
      # The sha256 of the public key (SubjectPublicKeyInfo), as the workstation writes it.
      recipients+="${recipients:+,}$(json_string "sha256:$(openssl x509 -in "$c" -noout -pubkey | openssl pkey -pubin -outform DER | sha256sum | cut -d' ' -f1)")"
    done
    [ "${#certs[@]}" -gt 0 ] || { log "no recipient certificate in $CONF_DIR/recipients.pem"; return 1; }
    openssl cms -encrypt -aes-256-gcm -binary -stream -outform DER -in "$data" -out "$data.p7m" "${certs[@]}"
    rm -f -- "$data"
    data=$data.p7m object=etcd.backup.gz.p7m encrypted=true
  fi
  local object_size
  object_size=$(stat -c %s -- "$data")

  STAGE="writing the meta files"
  printf '{\n  "etcdVersion": %s,\n  "timestamp": "%s",\n  "clusterSpec": {\n    "memberCount": %s,\n    "etcdVersion": %s\n  }\n}' \
    "$(json_string "$version")" "$epoch" "$CONF_MEMBER_COUNT" "$(json_string "$version")" >"$WORK/_etcd_backup.meta"
  # The workstation's reader (EtcdwrightBackupMeta) reads these names; takenBy and object are
  # extra, for people reading the file.
  printf '{"formatVersion":1,"clusterName":%s,"takenAt":%s,"takenBy":"schedule","takenFrom":%s,"etcdVersion":%s,"memberCount":%s,"revision":%s,"keyCount":%s,"dbSize":%s,"dbSha256":"%s","compressedSize":%s,"object":"%s","encrypted":%s,"recipients":[%s]}\n' \
    "$(json_string "$CONF_CLUSTER")" "$(json_string "$taken_at")" "$(json_string "$CONF_MEMBER")" \
    "$(json_string "$version")" "$CONF_MEMBER_COUNT" "${revision:-0}" "${keys:--1}" "$db_size" "$db_sha" "$object_size" \
    "$object" "$encrypted" "$recipients" >"$WORK/etcdwright-backup.json"

  STAGE="uploading $NAME/$object to the $CONF_STORE_TYPE store"
  UPLOADED+=("$NAME/$object")
  store_put "$data" "$NAME/$object"
  STAGE="uploading the meta files of $NAME"
  # etcd-manager's meta last: it is what makes a backup complete, for both tools.
  UPLOADED+=("$NAME/etcdwright-backup.json")
  store_put "$WORK/etcdwright-backup.json" "$NAME/etcdwright-backup.json"
  UPLOADED+=("$NAME/_etcd_backup.meta")
  store_put "$WORK/_etcd_backup.meta" "$NAME/_etcd_backup.meta"
  UPLOADED=() # complete: a failure from here on must not remove it
  # The store's newest complete backup: this one, unless a member whose clock runs ahead wrote a later one.
  { printf '%s\n' "$NAME"; complete_backups <"$WORK/listing"; } | sort | tail -n1 >"$STATE_DIR/newest-backup"
  log "backup $NAME ($object_size bytes, revision ${revision:-?}) written to the $CONF_STORE_TYPE store"
  write_status success "backup $NAME written" "$NAME" "$object_size"

  if [ "$listed" = false ]; then
    write_status success "backup $NAME written; retention skipped: the store could not be listed" "$NAME" "$object_size"
    return 0
  fi
  STAGE="applying retention"
  local drops name
  printf '%s/%s\n%s/_etcd_backup.meta\n' "$NAME" "$object" "$NAME" >>"$WORK/listing"
  drops=$(listing_drops "$(date -u +%s)" "$CONF_KEEP_ALL_FOR_HOURS" "$CONF_HOURLY_FOR_DAYS" "$CONF_DAILY_FOR_DAYS" "$NAME" \
    <"$WORK/listing")
  while IFS= read -r name; do
    [ -n "$name" ] || continue
    delete_backup "$name"
    log "retention: removed backup $name"
  done <<<"$drops"
  write_status success "backup $NAME written${drops:+; retention removed $(printf '%s\n' "$drops" | grep -c .)}" "$NAME" "$object_size"
}

# Run, unless sourced (the unit tests source it to call its functions).
if ! (return 0 2>/dev/null); then
  main "$@"
fi
