package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// initBudget bounds the bytes that package initialisation allocates in
// every kesoku process, before main runs: 1.52 MB on 2026-12-01 (a third
// of it google.golang.org/genai's dependencies, 0.21 MB blackfriday's, for
// gen-man), 1.59 MB with OpenTelemetry's exporter linked (the OTLP
// protobuf descriptors and what its module graph moved up: 91 kB, though
// traces are off and nothing of the SDK is built), with headroom for a
// dependency's next version. A JSON Schema library that compiled its
// meta-schemas at init added 1.7 MB and 6 ms to every command; OpenCensus,
// which an older cloud.google.com/go/auth linked, 0.83 MB.
const initBudget = 1_800_000

// ownInitBudget bounds what each of kesoku's own packages allocates at
// init: registering the built-in tools takes 13 kB, the other packages'
// small tables a few; a regexp with a counted repetition compiled at
// package level took 41 kB.
const ownInitBudget = 32 << 10

// TestStartupInitBudget builds kesoku, runs `kesoku version` with
// GODEBUG=inittrace=1, and holds the bytes allocated by package
// initialisers to a budget. Bytes rather than time: they are the same on
// every run and machine, where the milliseconds are not.
func TestStartupInitBudget(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "kesoku")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := exec.Command(bin, "version")
	godebug := "inittrace=1"
	if v := os.Getenv("GODEBUG"); v != "" {
		godebug = v + "," + godebug
	}
	run.Env = append(os.Environ(), "GODEBUG="+godebug)
	var stderr bytes.Buffer
	run.Stderr = &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("kesoku version: %v\n%s", err, stderr.String())
	}
	inits, err := parseInitTrace(stderr.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(inits) == 0 {
		t.Fatalf("GODEBUG=inittrace=1 kesoku version printed no init lines:\n%s", stderr.String())
	}
	total := 0
	for _, in := range inits {
		total += in.bytes
	}
	slices.SortFunc(inits, func(a, b pkgInit) int { return b.bytes - a.bytes })
	const how = "see each package's with `go build -o /tmp/kesoku . && GODEBUG=inittrace=1 /tmp/kesoku version`; " +
		"move work out of init (build it on first use, sync.OnceValue), or, where a dependency's own init grew, " +
		"say so with the numbers in bench/RESULTS.md and raise the budget in startup_test.go"
	if total > initBudget {
		t.Errorf("package initialisation allocates %d bytes in every kesoku process, over the budget of %d; the largest:\n%s%s",
			total, initBudget, worst(inits, 10), how)
	}
	for _, in := range inits {
		if strings.HasPrefix(in.pkg, module+"/") || in.pkg == module {
			if in.bytes > ownInitBudget {
				t.Errorf("%s allocates %d bytes at init, over the %d a package of kesoku's may; %s", in.pkg, in.bytes, ownInitBudget, how)
			}
		}
	}
	t.Logf("package initialisation: %d bytes in %d packages; the largest:\n%s", total, len(inits), worst(inits, 5))
}

// pkgInit is one line of GODEBUG=inittrace=1:
//
//	init github.com/x/y @2.1 ms, 0.05 ms clock, 41696 bytes, 548 allocs
type pkgInit struct {
	pkg   string
	bytes int
}

func parseInitTrace(out []byte) ([]pkgInit, error) {
	var inits []pkgInit
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			return nil, fmt.Errorf("inittrace line %q: %v", sc.Text(), err)
		}
		inits = append(inits, pkgInit{pkg: f[1], bytes: n})
	}
	return inits, sc.Err()
}

func worst(inits []pkgInit, n int) string {
	var b strings.Builder
	for _, in := range inits[:min(n, len(inits))] {
		fmt.Fprintf(&b, "  %9d bytes  %s\n", in.bytes, in.pkg)
	}
	return b.String()
}
