# Sourced first by every script of the project (scripts/*, bin/*, .ci/run): strict mode, and an ERR
# trap that names the command, file, line and exit status a script stops on, so that no failure
# under `set -e` ends a script silently. A script may set ERR_CONTEXT to say what it was doing
# (e.g. "build_etcd"); the message then starts with it.
#
# Pipelines: under pipefail, never end one in a reader that stops early (`| head`, `| grep -q`,
# `| sed ...q`): the writer may die of SIGPIPE and fail the pipeline. Read everything instead
# (`sed -n 1p`, `grep -c`), or capture the output in a variable first.
set -Eeuo pipefail
shopt -s inherit_errexit
ERR_CONTEXT=
STRICT_ERR_REPORTED=
strict_on_err() { # <exit status> <line> <command>
  # Once per shell: each enclosing function call fails with the same status after the command did.
  [ -z "$STRICT_ERR_REPORTED" ] || return 0
  STRICT_ERR_REPORTED=1
  printf '%s: ERROR: %sexit status %s from `%s` (%s line %s, %ss into the run)\n' \
    "${0##*/}" "${ERR_CONTEXT:+$ERR_CONTEXT: }" "$1" "$3" "${BASH_SOURCE[1]:-$0}" "$2" "$SECONDS" >&2
}
trap 'strict_on_err $? $LINENO "$BASH_COMMAND"' ERR
