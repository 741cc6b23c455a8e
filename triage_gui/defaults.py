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
# A ticket is labelled from its first LABEL_CHARS characters, by every reader of its text (the sentence
# encoder, the word and character n-grams, the language model), each cutting in one place so the cached,
# batched and full paths see the same text; the text itself stays whole in the table and the output. The
# encoder reads 256 tokens and the model 1,024 (~5,000 characters of English), so ordinary tickets never
# reach it. Uncut, one 20 MB ticket with ``classify --fast`` peaked at 5.6-6.3 GB (tokenizing it whole:
# +2.8 GB; its character 3-5-grams: 4.3 GB) and 50-500 MB lines passed 9 GB.
LABEL_CHARS = 20_000
# Below this confidence a row is marked ⚠ and the low-confidence filter shows it.
LOW_CONFIDENCE = 0.5
SUGGESTIONS = 50  # "Teach next" rows kept per field after each fit, the first field's and each further one's
