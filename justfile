# The streams-vs-blocking lab. Every recipe is a thin wrapper: `cargo run --release -p lab -- ...` works without just.
set positional-arguments

smoke_dir := "target/smoke-reports"

# List the recipes.
default:
    @just --list

# Run a scenario (`just lab chain`), `all`, `list`, `report`, or `compare`; arguments pass through. Builds the standalone programs beside the lab (handoff and chain run them as contestants outside the trial process).
lab *args:
    cargo build --release -p lab -p standalone
    cargo run --release -q -p lab -- "$@"

# Formatting, lints, every test, the release build (with cargo's progress), then a quick smoke run of every scenario that must write every report (and the index), re-render them byte for byte, and pass the report lint (every sentence whole).
test:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    cargo test --workspace
    cargo build --release -p lab -p standalone
    rm -rf {{smoke_dir}}
    # overload declares `stream-congestion-limiter` expected to fail, with its cause (the crate admits above a limit it has just lowered, which overload's bound checks catch; its report shows it): the run exits 0 only when it failed so and every other contestant passed, so any other failure, or it passing, fails the smoke run.
    cargo run --release -q -p lab -- all --quick --out {{smoke_dir}}
    cargo run --release -q -p lab -- report {{smoke_dir}}/raw/*.jsonl --out {{smoke_dir}}/rerendered
    for f in {{smoke_dir}}/*.md {{smoke_dir}}/*.json; do cmp "$f" "{{smoke_dir}}/rerendered/$(basename "$f")"; done
    LAB_LINT_DIR={{justfile_directory()}}/{{smoke_dir}} cargo test -q -p lab --test report_lint the_reports_of_a_run_read_whole_when_asked
    @echo "smoke run: every report written, re-rendered byte for byte, and every sentence rendered whole"

# Criterion benches of the chain's contestants at a smaller size (`just bench blocking-crossbeam`); criterion's HTML report lands in target/criterion/report/index.html.
bench *args:
    cargo bench -p chain --bench chain -- "$@"

# Criterion benches of every primitive, one operation per criterion iteration (`just bench-primitives stream-tokio-oneshot`); HTML in target/criterion/report/index.html.
bench-primitives *args:
    cargo bench -p costs --bench primitives -- "$@"

# Re-render reports from raw records (`just report reports/raw/chain-*.jsonl`).
report *args:
    cargo build --release -p lab
    cargo run --release -q -p lab -- report "$@"

# The fidelity check: the handoff's bare reference pairs (the smallest correct program of each channel) and standalone programs (the same pairs outside the lab's trial process) beside the lab contestants they calibrate, in one run; the report's "lab against bare programs" table gives lab ÷ bare and its "lab against standalone programs" table lab ÷ standalone, per capacity. Writes to target/fidelity-reports; other options pass through (`just fidelity --capacity 256 --forks 5`).
fidelity *args:
    cargo build --release -p lab -p standalone
    cargo run --release -q -p lab -- handoff --only blocking-crossbeam,blocking-crossbeam-bare,blocking-crossbeam-standalone,blocking-flume,blocking-flume-bare,stream-flume,stream-flume-bare,stream-flume-standalone,stream-tokio,stream-tokio-bare,stream-tokio-standalone --out target/fidelity-reports "$@"

# A/B of the release profile on evidence: builds the lab with cargo's default release profile (A: no LTO, 16 codegen units, `CARGO_PROFILE_RELEASE_*` overrides, its own target folder) and with the workspace's [profile.release] (B: thin LTO, one codegen unit), then runs them interleaved A B A B ... one process each, `rounds` times: handoff per item at capacity 256 (crossbeam, flume async, tokio and their bare pairs) and chain at work 0 (per-item crossbeam, flume, tokio tasks). Prints every process median of `ms_per_million` per build. Run it on a quiet machine.
ab-profile rounds="5":
    #!/usr/bin/env bash
    set -euo pipefail
    out=target/ab-profile
    rm -rf "$out" && mkdir -p "$out"
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo build --release -p lab --target-dir target/ab-default
    cp target/ab-default/release/lab "$out/lab-A"
    cargo build --release -p lab
    cp target/release/lab "$out/lab-B"
    handoff=blocking-crossbeam,blocking-crossbeam-bare,stream-flume,stream-flume-bare,stream-tokio,stream-tokio-bare
    chain=blocking-crossbeam,blocking-flume,stream-tokio-tasks
    for round in $(seq 1 {{rounds}}); do
        for build in A B; do
            "$out/lab-$build" handoff --only "$handoff" --capacity 256 --forks 1 --out "$out/$build-handoff-$round" >/dev/null
            "$out/lab-$build" chain --only "$chain" --work 0 --forks 1 --out "$out/$build-chain-$round" >/dev/null
        done
    done
    for scenario in handoff chain; do
        for build in A B; do
            echo "== $scenario, build $build: $(jq -r .environment.build_profile "$out/$build-$scenario-1/$scenario.json")"
            jq -rs 'map(.contestants[] | {name, m: (.metrics | to_entries[] | select(.key | test("(^|\\.)ms_per_million$")) | .value.median)}) | group_by(.name)[] | "\(.[0].name): \(map(.m * 10 | round / 10) | join(" / ")) ms per million; median \(map(.m) | sort | .[length / 2 | floor] * 10 | round / 10)"' "$out"/$build-$scenario-*/$scenario.json
        done
    done

# The per-cause A/B behind the fidelity table: `blocking-crossbeam`, `blocking-flume` and `stream-flume`, their bare pairs, and each bare pair's variants on request (`*-bare-<cause>`, one difference from the lab's pair put back each: control, started-before, lab-spawn, lab-message, lab-loops, and consumer-spawned for the thread pairs, into-stream for `stream-flume`; see `lab list`), plus `stream-tokio`, its bare pair and their A/A control `stream-tokio-bare-control`, in one run at capacity 1, 256 and 4096, `forks` processes each, into target/fidelity-ab (never reports/). Prints each contestant's process medians of ms per million, their median, and its ratio to the bare pair. Run it on a quiet machine; `just fidelity-ab 1 --quick` only shows it works. Other options pass through.
fidelity-ab forks="5" *args:
    #!/usr/bin/env bash
    set -euo pipefail
    shift
    out=target/fidelity-ab
    names=()
    for twin in blocking-crossbeam blocking-flume; do
        names+=("$twin" "$twin-bare")
        for cause in control started-before lab-spawn lab-message lab-loops consumer-spawned; do
            names+=("$twin-bare-$cause")
        done
    done
    names+=(stream-flume stream-flume-bare)
    for cause in control started-before lab-spawn lab-message lab-loops into-stream; do
        names+=("stream-flume-bare-$cause")
    done
    names+=(stream-tokio stream-tokio-bare stream-tokio-bare-control)
    only=$(IFS=,; echo "${names[*]}")
    cargo build --release -p lab
    rm -rf "$out" && mkdir -p "$out"
    status=0
    ./target/release/lab handoff --only "$only" --capacity 1,256,4096 --forks {{forks}} --out "$out" "$@" >"$out/lab.log" || status=$?
    echo "lab handoff exited $status (its output: $out/lab.log; report: $out/handoff.md)"
    jq -r --arg only "$only" '
        def med: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
        def r: if . == null then "—" elif . >= 100 then round else . * 10 | round / 10 end;
        (.contestants | map({key: .name, value: .}) | from_entries) as $c
        | ($only | split(",")) as $names
        | (.phases[]) as $phase
        | "== \($phase): ms per million, process medians",
          "contestant\tmedian\t÷ bare\tstatus\tprocess medians",
          ($names[] as $n
           | ($n | if test("-bare") then sub("-bare.*$"; "-bare") else . + "-bare" end) as $bare
           | ($c[$n].metrics["\($phase).ms_per_million"].fork_medians // []) as $f
           | ($c[$bare].metrics["\($phase).ms_per_million"].fork_medians // []) as $b
           | "\($n)\t\($f | med | r)\t\(if ($f | length) > 0 and ($b | length) > 0 then "\(($f | med) / ($b | med) * 100 | round / 100)×" else "—" end)\t\($c[$n].status // "not run")\t\($f | map(r) | join(" / "))")
    ' "$out/handoff.json" | column -t -s $'\t'
    exit "$status"

# The scenarios the across-core page sets at 1 and 2 cores.
cores_1_scenarios := "chain handoff device tcp service"

# Every committed file in one sitting at one clean revision, on a quiet machine (no builds, no other runs): the calibration (`lab calibrate`, about 6 minutes), every scenario and the index (`lab all`, 5 processes, judged with that calibration), the fidelity A/B and the three advice shapes, into reports/, after the machine's floor (`lab floor`, under a minute) that every report cites. Refuses a dirty tree. As root it raises vm.max_map_count to 262,144 for the run (100,000 `may` coroutines need it) and puts the old value back afterwards. Then the 1-core runs of the scenarios the across-core page covers and that page. Prints each step's start (UTC). About 70 minutes on 2 cores before the 1-core runs.
sitting:
    #!/usr/bin/env bash
    set -euo pipefail
    if [ -n "$(git status --porcelain)" ]; then echo "sitting: the tree is dirty; commit first, so every file names one clean revision" >&2; exit 2; fi
    cargo build --release -p lab -p standalone
    # What this sitting measures with (its revision and every file on a timed or judging path), which the staleness test of `just test` compares the tree with from now on.
    LAB_WRITE_SOURCES=1 cargo test -q -p lab --test staleness the_committed_reports_were_measured_by_the_code_at_head
    old_maps=$(cat /proc/sys/vm/max_map_count)
    if [ "$(id -u)" = 0 ]; then
        trap 'sysctl -q -w vm.max_map_count="$old_maps"; echo "sitting: vm.max_map_count back to $old_maps"' EXIT
        sysctl -q -w vm.max_map_count=262144
    fi
    step() { echo "sitting: $(date -u +%H:%M:%S) $*"; }
    rm -rf reports/raw reports/advice reports/fidelity-ab reports/calibration-runs reports/cores-1
    # First the machine's floor, which every report of this sitting cites in its testbed (reports/floor.json).
    step "floor (rev $(git rev-parse --short HEAD))"
    ./target/release/lab floor --out reports
    # Then the calibration, so that every report of this sitting is judged with this testbed's own ratios.
    step "calibrate (rev $(git rev-parse --short HEAD))"
    ./target/release/lab calibrate --out reports
    step "lab all (rev $(git rev-parse --short HEAD))"
    ./target/release/lab all --out reports
    # Then the scenarios the across-core page covers, pinned to one core, citing this sitting's floor and
    # calibration, and the page that sets their answers beside the 2-core runs; both folders are re-rendered with it.
    step "1-core runs: {{cores_1_scenarios}}"
    for s in {{cores_1_scenarios}}; do
        ./target/release/lab "$s" --cores 1 --out reports/cores-1 --floor reports/floor.json --calibration reports/calibration.json
    done
    step "answers by core count"
    ./target/release/lab by-cores $(for s in {{cores_1_scenarios}}; do echo "reports/$s.json reports/cores-1/$s.json"; done) --out reports
    ./target/release/lab report reports/raw/*.jsonl --by-cores reports/by-cores.json --out reports
    ./target/release/lab report reports/cores-1/raw/*.jsonl --by-cores reports/by-cores.json --out reports/cores-1
    step "fidelity A/B"
    just fidelity-ab 5 --floor reports/floor.json > target/fidelity-ab.txt
    mkdir -p reports/fidelity-ab
    cp -r target/fidelity-ab/handoff.md target/fidelity-ab/handoff-details.md target/fidelity-ab/handoff.json target/fidelity-ab/img target/fidelity-ab/raw reports/fidelity-ab/
    cp target/fidelity-ab.txt reports/fidelity-ab/ab.txt
    step "advice: a CPU-bound shape"
    ./target/release/lab advise --cpu-us-per-item 20 --items 10000 --cores 2 --forks 5 --budget 300 --seed 1 --out reports/advice
    step "advice: I/O in flight"
    ./target/release/lab advise --cpu-us-per-item 0.1 --items 100000 --io-calls-per-item 1 --io-latency-ms 10 --in-flight 10000 --cores 2 --forks 5 --budget 300 --seed 1 --out reports/advice
    step "advice: a dependency that loses capacity"
    ./target/release/lab advise --cpu-us-per-item 0.1 --items 10000 --io-calls-per-item 1 --io-latency-ms 5 --in-flight 500 --dependency-loses-capacity --capacity-after 100 --cores 2 --forks 5 --budget 900 --seed 1 --out reports/advice
    step "done"
