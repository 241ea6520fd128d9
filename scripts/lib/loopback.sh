# Sourced by scripts that start servers for tests (scripts/control-plane, scripts/aws-emulator):
# loopback ports. The sourcing script defines die().

# A free loopback port below the kernel's ephemeral range (32768+), so outgoing connections of other
# processes cannot take it between this check and the bind. Ports handed out by earlier calls in
# this shell are not handed out again.
USED_PORTS=" "
free_port() { # <variable to set>
  local port tries=0
  while ((tries++ < 200)); do
    port=$((20000 + RANDOM % 12000))
    [[ $USED_PORTS == *" $port "* ]] && continue
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue # something listens there
    USED_PORTS+="$port "
    printf -v "$1" '%s' "$port"; return
  done
  die "no free loopback port found"
}
