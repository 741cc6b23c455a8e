"""Defaults shared by the command line, the window and the benchmarks: one place to change each."""

from __future__ import annotations

# Tickets per forward pass for a whole file (classify, bench, a cluster worker): 32 measured best per
# ticket on 2 cores (16-128 tried); bigger batches only add latency.
BATCH_SIZE = 32
# Tickets per micro-batch while the window streams labels: half of BATCH_SIZE, so a Stop or a new
# prompt takes effect within ~0.7 s of engine time, at ~5% lower throughput than 32.
STREAM_BATCH_SIZE = 16
# Longest ticket scored whole, in tokens; longer ones are cut and flagged (✂).
MAX_TICKET_TOKENS = 1024
# Below this confidence a row is marked ⚠ and the low-confidence filter shows it.
LOW_CONFIDENCE = 0.5
