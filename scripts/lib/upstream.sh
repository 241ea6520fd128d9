# Sourced by scripts/bench (--upstream) and scripts/upstream-titles: the upstream Karpenter release
# the project follows, fetched as a Go module through the Go module proxy (never vendored here).
#
# sigs.k8s.io/karpenter v1.15.0 declares `go 1.26.9`, so a `go` command older than that switches to
# the toolchain below, which it also fetches through the module proxy (GOTOOLCHAIN, Go >= 1.21).
UPSTREAM_MODULE=sigs.k8s.io/karpenter
UPSTREAM_VERSION=v1.15.0
UPSTREAM_GOTOOLCHAIN=go1.27.3

# Runs the go command with the upstream toolchain, outside any workspace.
upstream_go() {
  command -v go >/dev/null 2>&1 \
    || { echo "${0##*/}: ERROR: no 'go' on PATH: Go >= 1.21 is needed to fetch $UPSTREAM_MODULE@$UPSTREAM_VERSION and its toolchain $UPSTREAM_GOTOOLCHAIN through the Go module proxy (https://go.dev/dl/)" >&2; exit 1; }
  GOTOOLCHAIN=$UPSTREAM_GOTOOLCHAIN GOWORK=off GOFLAGS=-mod=mod go "$@"
}

# Prints the directory of the upstream module's source in the Go module cache, downloading it first
# if needed.
upstream_module_dir() {
  local json dir
  json=$(upstream_go mod download -json "$UPSTREAM_MODULE@$UPSTREAM_VERSION") \
    || { echo "${0##*/}: ERROR: 'go mod download $UPSTREAM_MODULE@$UPSTREAM_VERSION' failed (GOTOOLCHAIN=$UPSTREAM_GOTOOLCHAIN): $json" >&2; exit 1; }
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
  [ -d "$dir" ] || { echo "${0##*/}: ERROR: no module directory in the answer of 'go mod download': $json" >&2; exit 1; }
  echo "$dir"
}
