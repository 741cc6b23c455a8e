#!/usr/bin/env bash
# Build the one-folder desktop bundle into dist/ticket-triage/ from a clean checkout.
#   bash packaging/build_bundle.sh            # build
#   dist/ticket-triage/ticket-triage          # run the window
#   dist/ticket-triage/ticket-triage classify resources/sample_tickets.csv --out labelled.csv
set -euo pipefail
cd "$(dirname "$0")/.."
python3 packaging/dev.py setup
.venv/bin/python -m pip install --disable-pip-version-check -q "pyinstaller>=6.22,<7"
.venv/bin/python -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/ticket_triage.spec
# The CPU build of torch carries no CUDA libraries; refuse a bundle that picked some up.
if find dist/ticket-triage -name 'libcudart*' -o -name 'libcublas*' -o -name 'libcudnn*' | grep -q .; then
    echo "CUDA libraries found in the bundle: build from a CPU torch" >&2
    exit 1
fi
du -sh dist/ticket-triage
