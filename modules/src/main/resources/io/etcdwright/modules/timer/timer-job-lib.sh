# --- shared by etcdwright's timer jobs (modules/timer/timer-job-lib.sh, put in by HostScripts) ---
# The job defines log() and STATE_DIR (where its runs are recorded) before it calls these.

# etcdctl speaks the v3 API by default from 3.4 on, and from 3.6 on it warns on stderr about an
# ETCDCTL_API it no longer knows, which these jobs read with the answer (a 3.6 lock transaction
# read as refused): no ETCDCTL_API at all, whatever the environment brought.
unset ETCDCTL_API

# A JSON string: the characters JSON requires escaped, escaped; control characters dropped.
json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=$(printf '%s' "$s" | tr -d '\000-\037')
  printf '"%s"' "$s"
}

# read_conf FILE KEY...: reads FILE's KEY=VALUE lines into CONF_KEY for the KEYs named, and says
# which others it ignores. The value is everything after the first '=', taken literally: no quotes
# removed, nothing expanded, nothing evaluated. Only a name of the list becomes a variable name.
read_conf() {
  local file=$1 line key value known k
  shift
  [ -f "$file" ] || { log "no configuration at $file"; return 1; }
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in '' | '#'*) continue ;; esac
    key=${line%%=*}
    value=${line#*=}
    known=false
    for k in "$@"; do
      if [ "$k" = "$key" ]; then known=true; break; fi
    done
    if $known; then
      printf -v "CONF_$key" '%s' "$value"
    else
      log "ignoring unknown setting '$key' in $file"
    fi
  done <"$file"
}

# record_run JSON KIND: JSON (one line) becomes STATE_DIR/last-run.json, replaced whole; KIND says
# what the run means for what plan and status read: success (it is also last-success.json, and
# the count of failed runs starts again), fine (nothing to do this time: the count starts again),
# failed (the count goes up), anything else (the count stays). The metrics keep one more record:
# failed-total (every failed run, never reset).
record_run() {
  local tmp n=0
  tmp=$(mktemp "$STATE_DIR/.last-run.XXXXXX")
  printf '%s\n' "$1" >"$tmp"
  mv -f -- "$tmp" "$STATE_DIR/last-run.json"
  case $2 in
    success)
      cp -- "$STATE_DIR/last-run.json" "$STATE_DIR/.last-success.tmp"
      mv -f -- "$STATE_DIR/.last-success.tmp" "$STATE_DIR/last-success.json"
      echo 0 >"$STATE_DIR/failed-runs" ;;
    fine)
      echo 0 >"$STATE_DIR/failed-runs" ;;
    failed)
      [ ! -f "$STATE_DIR/failed-runs" ] || n=$(cat -- "$STATE_DIR/failed-runs")
      [[ $n =~ ^[0-9]+$ ]] || n=0
      echo $((n + 1)) >"$STATE_DIR/failed-runs"
      n=0
      [ ! -f "$STATE_DIR/failed-total" ] || n=$(cat -- "$STATE_DIR/failed-total")
      [[ $n =~ ^[0-9]+$ ]] || n=0
      echo $((n + 1)) >"$STATE_DIR/failed-total" ;;
  esac
}

# --- metrics for node_exporter's textfile collector (docs/monitoring.md) ---------------------
# A job whose configuration names TEXTFILE_DIR describes every run there, in Prometheus' text
# format, in a file of its own (etcdwright_<job>.prom) replaced whole. Every sample carries the
# labels in METRIC_LABELS (cluster and member, set by metric_labels once the configuration is read).

JOB_STARTED_AT=$(date +%s.%N)
METRIC_LABELS=

# A label value as the text format writes it: '\', '"' and line feeds escaped.
metric_label() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '%s' "${s//$'\n'/\\n}"
}

# metric_labels NAME VALUE...: METRIC_LABELS from the pairs, always cluster and member first.
metric_labels() {
  METRIC_LABELS="cluster=\"$(metric_label "${CONF_CLUSTER:-}")\",member=\"$(metric_label "${CONF_MEMBER:-}")\""
  while [ "$#" -ge 2 ]; do
    METRIC_LABELS+=",$1=\"$(metric_label "$2")\""
    shift 2
  done
}

# metric_family NAME TYPE HELP: the HELP and TYPE lines that come before a family's samples.
metric_family() { printf '# HELP %s %s\n# TYPE %s %s\n' "$1" "$3" "$1" "$2"; }

# metric NAME EXTRA_LABELS VALUE: one sample, with METRIC_LABELS and EXTRA_LABELS (k="v",... or empty).
metric() { printf '%s{%s%s} %s\n' "$1" "$METRIC_LABELS" "${2:+,$2}" "$3"; }

# write_textfile DIR NAME: stdin becomes DIR/NAME, readable by node_exporter's user, replaced in one
# rename: it is written first beside it under a name the collector skips (it reads only *.prom), so
# a scrape reads the old file or the new one, never half of one. Prints "changed" when the
# metrics differ from what was there.
write_textfile() {
  local dir=$1 name=$2 tmp changed=changed
  [ -d "$dir" ] || (umask 022 && mkdir -p -- "$dir")
  tmp=$(mktemp "$dir/.$name.XXXXXX")
  cat >"$tmp"
  chmod 0644 -- "$tmp"
  ! cmp -s -- "$tmp" "$dir/$name" || changed=
  mv -f -- "$tmp" "$dir/$name"
  [ -z "$changed" ] || echo changed
}

# A whole number from a record file, 0 when absent or damaged.
state_number() {
  local n=0
  [ ! -f "$STATE_DIR/$1" ] || n=$(head -c 20 -- "$STATE_DIR/$1")
  [[ $n =~ ^[0-9]+$ ]] || n=0
  printf '%s' "$n"
}

# record_metrics FILE PREFIX RESULT RESULTS...: after record_run, the run's metrics and then the
# job's own families (stdin, written with metric_family and metric) go to TEXTFILE_DIR/FILE; with
# no TEXTFILE_DIR nothing is written. RESULTS are every result the job knows: each gets a series
# of PREFIX_last_run_result, 1 for this run's and 0 for the others, so a query never misses one.
record_metrics() {
  local file=$1 prefix=$2 result=$3 now r success
  shift 3
  if [ -z "${CONF_TEXTFILE_DIR:-}" ]; then
    cat >/dev/null
    return 0
  fi
  now=$(date +%s.%N)
  {
    metric_family "${prefix}_last_run_timestamp_seconds" gauge "When the last run ended (seconds since the epoch)."
    metric "${prefix}_last_run_timestamp_seconds" "" "$(awk -v t="$now" 'BEGIN { printf "%.3f", t }')"
    metric_family "${prefix}_last_run_duration_seconds" gauge "How long the last run took."
    metric "${prefix}_last_run_duration_seconds" "" "$(awk -v a="$JOB_STARTED_AT" -v b="$now" 'BEGIN { printf "%.3f", b - a }')"
    metric_family "${prefix}_last_run_result" gauge "The last run's result: 1 for the result it had, 0 for the others."
    for r in "$@"; do
      metric "${prefix}_last_run_result" "result=\"$r\"" "$([ "$r" = "$result" ] && echo 1 || echo 0)"
    done
    # The time last-success.json records: what status and plan read too.
    success=$(sed -n 's/.*"time":"\([^"]*\)".*/\1/p' -- "$STATE_DIR/last-success.json" 2>/dev/null | head -n1)
    if [ -n "$success" ] && success=$(date -u -d "$success" +%s 2>/dev/null); then
      metric_family "${prefix}_last_success_timestamp_seconds" gauge "When the last successful run ended (seconds since the epoch)."
      metric "${prefix}_last_success_timestamp_seconds" "" "$success"
    fi
    metric_family "${prefix}_consecutive_failures" gauge "Runs that failed in a row since the last one that did not."
    metric "${prefix}_consecutive_failures" "" "$(state_number failed-runs)"
    metric_family "${prefix}_failures_total" counter "Runs that failed, ever (kept in the job's state directory)."
    metric "${prefix}_failures_total" "" "$(state_number failed-total)"
    cat
  } | write_textfile "$CONF_TEXTFILE_DIR" "$file" >/dev/null
}

# --- end of the shared part ---
