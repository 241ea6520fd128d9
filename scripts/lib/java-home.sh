# Finds a JDK >= 21 for building and running the project: `java_home` exports JAVA_HOME and sets
# JAVA_MAJOR (its feature release, e.g. 25), or says why not and returns 1. Sourced by
# scripts/java-home and by bin/karpenter, which so pays for no process on a launch whose $JAVA_HOME is
# new enough.
# Order: $JAVA_HOME if it is new enough, then the JDK of `javac` on PATH, then any JDK under /usr/lib/jvm
# (the build machines keep a Temurin 25 JDK beside the default JDK 17), /opt/java and /opt/jdk*.

# Sets REPLY to the feature release of the JDK in $1 (25 for 25.0.3, 8 for 1.8), empty when unknown.
# A JDK's `release` file names its version (JAVA_VERSION="25.0.3"), read without starting a JVM or
# any other process; without one, ask java (the property occurs once, and `sed` reads all of java's
# output: no `| head` or `sed q` under pipefail).
jdk_major() {
  local line v=
  if [ -f "$1/release" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      if [[ $line == JAVA_VERSION=* ]]; then
        v=${line#JAVA_VERSION=}
        v=${v//\"/}
        break
      fi
    done <"$1/release"
  fi
  if [ -z "$v" ] && [ -x "$1/bin/java" ]; then
    v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  fi
  v=${v%%[!0-9.]*} # 26-ea -> 26
  v=${v#1.}        # 1.8 -> 8
  REPLY=${v%%.*}
}

# Whether $1 is a JDK (java and javac) of release 21 or newer; sets JAVA_MAJOR when it is.
jdk_usable() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  jdk_major "$1"
  [[ $REPLY =~ ^[0-9]+$ ]] && [ "$REPLY" -ge 21 ] || return 1
  JAVA_MAJOR=$REPLY
}

java_home() {
  local c javac
  if [ -n "${JAVA_HOME:-}" ] && jdk_usable "$JAVA_HOME"; then
    export JAVA_HOME
    return 0
  fi
  local cands=()
  if javac=$(command -v javac 2>/dev/null) && javac=$(readlink -f "$javac"); then
    javac=${javac%/*}       # .../bin
    cands+=("${javac%/*}")  # the JDK
  fi
  for c in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25* /usr/lib/jvm/*21* /usr/lib/jvm/* /opt/java/* /opt/jdk*; do
    if [ -d "$c" ]; then cands+=("$c"); fi
  done
  for c in "${cands[@]}"; do
    if jdk_usable "$c"; then
      export JAVA_HOME=$c
      return 0
    fi
  done
  echo "${0##*/}: no JDK >= 21 found (looked at JAVA_HOME, PATH and /usr/lib/jvm); install one, e.g. apt-get install openjdk-21-jdk-headless" >&2
  return 1
}
