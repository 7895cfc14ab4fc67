#!/usr/bin/env bash
# Puts seed 004's three trained gain networks back where this folder's
# commands expect them:
#   card-gpu/gen1.safetensors, generations-gpu/gen2.safetensors,
#   generations-gpu/gen3.safetensors
# Each is 4.8 MB of f32 (three times what docs/results/ may hold) and was
# trained on a lent GPU, so retraining would give other weights (and other
# figures). The exact bytes stay in the repository's history, in the commit
# that added each network: this script writes them out of it and checks
# each file's SHA-256, so every figure here can be redrawn from the very
# networks that made it. Needs the full history (`git fetch --unshallow` in
# a shallow clone). Files already in place with the right hash are left.
set -euo pipefail
cd "$(dirname "$0")"

# path, the commit that added it, its SHA-256
networks=(
    "card-gpu/gen1.safetensors 18f8a2a2b78caeddf38deefeba9bce1e386142bd 86c6144bd1d971ac6ed1a6ca2821b4b4d65eb091c97366e2f2181592f6175247"
    "generations-gpu/gen2.safetensors 120e30732db2cbc1089c5a26b64cd32bdfa0c955 a6d20563905505ae9623691a4f8097471d159c5f52d2fe47e1168252af124b6b"
    "generations-gpu/gen3.safetensors 54af166fc7b2e4765278481394c444b1450840e4 b71a86389a2965bdb85bb42f7e1d24f7b621ceabb7f0469c117f82a5b8e77c21"
)

sha() { sha256sum "$1" | cut -d' ' -f1; }

for entry in "${networks[@]}"; do
    read -r path commit hash <<<"$entry"
    if [ -f "$path" ] && [ "$(sha "$path")" = "$hash" ]; then
        echo "$path: already in place"
        continue
    fi
    if [ -e "$path" ]; then
        echo "$path exists with other contents; move it away and run this again" >&2
        exit 1
    fi
    if ! git cat-file -e "$commit:docs/results/holdem/$path" 2>/dev/null; then
        echo "$path: commit $commit is not in this clone (a shallow clone? git fetch --unshallow)" >&2
        exit 1
    fi
    tmp="$path.tmp.$$"
    git show "$commit:docs/results/holdem/$path" >"$tmp"
    if [ "$(sha "$tmp")" != "$hash" ]; then
        rm -f "$tmp"
        echo "$path: the bytes in $commit do not have the recorded SHA-256 $hash" >&2
        exit 1
    fi
    mv "$tmp" "$path"
    echo "$path: restored from $commit"
done
