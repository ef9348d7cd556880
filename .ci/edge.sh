#!/usr/bin/env bash
# Edge CI: builds cmd/grlgq-edge (pure Go, -tags purego, static) for
# linux/amd64, linux/arm64 and linux/arm (GOARM=7), writes a tiny trained
# model and inputs (go test -run TestFixture, no network), runs the amd64
# binary natively and the ARM binaries under qemu user-mode emulation, and
# fails unless every output is byte-for-byte identical. Reports binary sizes
# and the peak memory of one prediction.
#
# Usage: bash .ci/edge.sh [OUTDIR]   (default: a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-$(mktemp -d /tmp/grlgq-edge.XXXXXX)}"
mkdir -p "$out"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
export CGO_ENABLED=0
step() { printf '\n==> %s\n' "$*"; }

step "qemu user-mode emulators"
find_qemu() { # find_qemu aarch64 -> path of qemu-aarch64-static or qemu-aarch64
	command -v "qemu-$1-static" || command -v "qemu-$1" || true
}
if [ -z "$(find_qemu aarch64)" ] || [ -z "$(find_qemu arm)" ]; then
	sudo=""
	if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null ||
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
fi
qemu_arm64="$(find_qemu aarch64)"
qemu_arm="$(find_qemu arm)"
[ -n "$qemu_arm64" ] || { echo "no qemu-aarch64 after installing"; exit 1; }
[ -n "$qemu_arm" ] || { echo "no qemu-arm after installing"; exit 1; }
echo "$qemu_arm64"; echo "$qemu_arm"

step "build (CGO_ENABLED=0, -tags purego)"
targets="amd64 arm64 arm"
for arch in $targets; do
	goarm=""
	if [ "$arch" = arm ]; then goarm=7; fi
	GOOS=linux GOARCH=$arch GOARM=$goarm go build -tags purego -trimpath -o "$out/grlgq-edge-$arch.debug" ./cmd/grlgq-edge
	GOOS=linux GOARCH=$arch GOARM=$goarm go build -tags purego -trimpath -ldflags='-s -w' -o "$out/grlgq-edge-$arch" ./cmd/grlgq-edge
	if file "$out/grlgq-edge-$arch" 2>/dev/null | grep -q "dynamically linked"; then
		echo "grlgq-edge-$arch is dynamically linked"; exit 1
	fi
done
printf '%-24s %12s %12s\n' binary "stripped" "not stripped"
for arch in $targets; do
	printf '%-24s %12d %12d\n' "linux/$arch" "$(stat -c %s "$out/grlgq-edge-$arch")" "$(stat -c %s "$out/grlgq-edge-$arch.debug")"
done

step "fixture: a tiny trained model and inputs"
fx="$out/fixture"
rm -rf "$fx"
go test -count=1 -run '^TestFixture$' ./cmd/grlgq-edge -args -fixture "$fx" >/dev/null
ls "$fx"

run_arch() { # run_arch ARCH ARGS... (stdin passed through)
	local arch=$1; shift
	case $arch in
	amd64) "$out/grlgq-edge-amd64" "$@" ;;
	arm64) "$qemu_arm64" "$out/grlgq-edge-arm64" "$@" ;;
	arm) "$qemu_arm" "$out/grlgq-edge-arm" "$@" ;;
	esac
}

step "compare amd64 (native) with arm64 and arm v7 (qemu)"
fail=0
cases="dir dir-json resize bin bin-json txt one one-json multi multi-json"
for c in $cases; do
	for arch in $targets; do
		o="$out/out-$c-$arch"
		case $c in
		dir) run_arch "$arch" -model "$fx/model.grlgq" "$fx/set" >"$o" ;;
		dir-json) run_arch "$arch" -model "$fx/model.grlgq" -json "$fx/set" >"$o" ;;
		resize) run_arch "$arch" -model "$fx/model.grlgq" -json "$fx/set-resize" >"$o" ;;
		bin) run_arch "$arch" -model "$fx/model.grlgq" - <"$fx/set.bin" >"$o" ;;
		bin-json) run_arch "$arch" -model "$fx/model.grlgq" -json - <"$fx/set.bin" >"$o" ;;
		txt) run_arch "$arch" -model "$fx/model.grlgq" - <"$fx/set.txt" >"$o" ;;
		one) run_arch "$arch" -model "$fx/model.grlgq" - <"$fx/one.txt" >"$o" ;;
		one-json) run_arch "$arch" -model "$fx/model.grlgq" -json - <"$fx/one.txt" >"$o" ;;
		multi) cat "$fx/set.txt" <(echo ---) "$fx/one.txt" | run_arch "$arch" -model "$fx/model.grlgq" "$fx/set" "$fx/set-resize" - >"$o" ;;
		multi-json) cat "$fx/set.bin" "$fx/set.bin" | run_arch "$arch" -model "$fx/model.grlgq" -json - "$fx/set-resize" >"$o" ;;
		esac
	done
	for arch in arm64 arm; do
		if cmp -s "$out/out-$c-amd64" "$out/out-$c-$arch"; then
			echo "ok   $c: $arch == amd64 ($(wc -c <"$out/out-$c-amd64") bytes)"
		else
			echo "FAIL $c: $arch differs from amd64"; diff "$out/out-$c-amd64" "$out/out-$c-$arch" || true
			fail=1
		fi
	done
done
echo "--- amd64 output (folder input):"; cat "$out/out-dir-amd64"

step "peak memory of one prediction (folder input, native amd64)"
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v "$out/grlgq-edge-amd64" -model "$fx/model.grlgq" "$fx/set" 2>&1 >/dev/null | grep -E "Maximum resident set size"
fi
"$out/grlgq-edge-amd64" -model "$fx/model.grlgq" -memstats "$fx/set" 2>&1 >/dev/null | grep memstats

if [ "$fail" != 0 ]; then
	echo "edge: outputs differ across architectures"; exit 1
fi
echo "edge: all outputs identical on amd64, arm64 and arm v7"
