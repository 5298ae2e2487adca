# The streams-vs-blocking lab. Every recipe is a thin wrapper: `cargo run --release -p lab -- ...` works without just.
set positional-arguments

smoke_dir := "target/smoke-reports"

# List the recipes.
default:
    @just --list

# Run a scenario (`just lab chain`), `all`, `list`, `report`, or `compare`; arguments pass through.
lab *args:
    cargo build --release -p lab
    cargo run --release -q -p lab -- "$@"

# Formatting, lints, every test, the release build (with cargo's progress), then a quick smoke run of every scenario that must write every report (and the index) and re-render them byte for byte.
test:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings
    cargo test --workspace
    cargo build --release -p lab
    rm -rf {{smoke_dir}}
    cargo run --release -q -p lab -- all --quick --out {{smoke_dir}}
    cargo run --release -q -p lab -- report {{smoke_dir}}/raw/*.jsonl --out {{smoke_dir}}/rerendered
    for f in {{smoke_dir}}/*.md {{smoke_dir}}/*.json; do cmp "$f" "{{smoke_dir}}/rerendered/$(basename "$f")"; done
    @echo "smoke run: every report written and re-rendered byte for byte"

# Criterion benches of the chain's contestants at a smaller size (`just bench blocking-crossbeam`).
bench *args:
    cargo bench -p pipelines --bench chain -- "$@"

# Re-render reports from raw records (`just report reports/raw/chain-*.jsonl`).
report *args:
    cargo build --release -p lab
    cargo run --release -q -p lab -- report "$@"
