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
# failed (the count goes up), anything else (the count stays).
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
      echo $((n + 1)) >"$STATE_DIR/failed-runs" ;;
  esac
}

# --- end of the shared part ---
