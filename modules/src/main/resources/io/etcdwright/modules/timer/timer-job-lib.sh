# --- shared by etcdwright's timer jobs (modules/timer/timer-job-lib.sh, put in by HostScripts) ---

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

# --- end of the shared part ---
