#!/usr/bin/env bash
# Runs every fuzz target for FUZZ_SECONDS (default 60) each, with corpora
# seeded from the sample and a generated log. cargo-fuzz needs nightly
# flags: RUSTC_BOOTSTRAP lets the one stable toolchain accept them.
# Any crash fails the run; its input is left in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH" RUSTC_BOOTSTRAP=1
seconds="${FUZZ_SECONDS:-60}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2

for target in log_loader cursor folds store_ops; do
  mkdir -p "fuzz/corpus/$target"
done
# Seeds: every sample line, the whole sample, a generated log, cursors.
i=0
while IFS= read -r line; do
  i=$((i + 1))
  for target in log_loader folds; do printf '%s\n' "$line" > "fuzz/corpus/$target/sample-$i"; done
done < data/sample-session.jsonl
for target in log_loader folds; do cp data/sample-session.jsonl "fuzz/corpus/$target/sample-all"; done
cargo run -q --release --example generate -- 7 20000 > fuzz/corpus/folds/generated
cp fuzz/corpus/folds/generated fuzz/corpus/log_loader/generated
printf '{"a":[12345678901234567890,-9007199254740993,1.5e300,"99999999999999999",{"k\\"9":9007199254740992}]}' > fuzz/corpus/folds/big-integers
printf 'arc1:inc:12:34:tenant:a:session' > fuzz/corpus/cursor/seed-1
printf 'arc1:a-b_c.d~9:0:0:s' > fuzz/corpus/cursor/seed-2
printf '\x00aa\x00\x05b\x04\x01c\x05\x02\x00\x06\x00\x01\x02\x10\x03' > fuzz/corpus/store_ops/seed-1

for target in log_loader cursor folds store_ops; do
  echo "fuzz: $target for ${seconds}s" >&2
  cargo fuzz run --release "$target" "fuzz/corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=4096 2>&1 \
    | tee "fuzz/$target.log" | grep -E "^(#[0-9]+ +DONE|Done|==[0-9]+==ERROR|SUMMARY)" || true
  grep -q "^Done" "fuzz/$target.log"
done
echo "fuzz: no findings"
