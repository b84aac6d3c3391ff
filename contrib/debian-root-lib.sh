# Helpers for the scripts that make Debian roots with mmdebstrap (sourced).
# No mirror host is written here: archive URIs come from this machine's own
# apt sources.

# URI of the machine's deb stanza (deb822 or one-line) that serves suite $1
# (e.g. bookworm, bookworm-security).
machine_uri() {
  local suite=$1 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v want="$suite" '
      /^[[:space:]]*$/ { if (deb && hit && uri) { print uri; exit } deb = hit = 0; uri = ""; next }
      /^Types:/ { deb = ($0 ~ /[[:space:]]deb([[:space:]]|$)/) }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == want) hit = 1 }
      END { if (deb && hit && uri) print uri }' "$f" | head -n1
  done | head -n1
  if [ -f /etc/apt/sources.list ]; then
    awk -v want="$suite" '$1 == "deb" && $3 == want { print $2; exit }' /etc/apt/sources.list
  fi
}

# Bind the host's /proc, /sys and /dev into root $1 (once).  /sys with its
# submounts: slurmd 22.05 needs /sys/fs/cgroup.
mount_binds() {
  local root=$1 d
  for d in proc sys dev dev/pts; do
    mountpoint -q "$root/$d" && continue
    if [ "$d" = sys ]; then mount --rbind /sys "$root/sys"; else mount --bind "/$d" "$root/$d"; fi
  done
}
