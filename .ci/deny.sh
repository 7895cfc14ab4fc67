#!/usr/bin/env bash
# cargo deny check (deny.toml), offline. The RustSec advisory database is
# the snapshot in .ci/advisory-db.tar.xz (its crates/ folder, CC0), which
# this script unpacks into the folder cargo-deny 0.20 reads for
# github.com/rustsec/advisory-db, as a git repository whose one commit
# bears the snapshot's date (cargo-deny reads HEAD's date). cargo-deny is
# installed from crates.io when missing.
#
#   bash .ci/deny.sh                    # the check
#   bash .ci/deny.sh --refresh CLONE    # replace the snapshot with CLONE's
#                                       # (a clone of the advisory database)
set -euo pipefail
cd "$(dirname "$0")/.."
snapshot=.ci/advisory-db.tar.xz
# The snapshot's date: the advisory database's last commit it holds.
snapshot_date=2026-08-21T08:28:40+02:00
version=0.20.2
# cargo-deny's folder name for the database's URL (a hash of it).
db=target/advisory-db/advisory-db-3157b0e258782691

if [ "${1:-}" = --refresh ]; then
    clone=${2:?give the path of a clone of github.com/rustsec/advisory-db}
    date=$(git -C "$clone" log -1 --format=%cI)
    git -C "$clone" archive HEAD crates | xz -9 > "$snapshot"
    sed -i "s/^snapshot_date=.*/snapshot_date=$date/" "$0"
    echo "snapshot of $date written to $snapshot"
    exit 0
fi

if ! cargo deny --version 2>/dev/null | grep -q " $version"; then
    echo "== cargo install cargo-deny $version"
    cargo install --quiet --locked cargo-deny --version "$version"
fi

rm -rf "$db"
mkdir -p "$db"
tar -xJf "$snapshot" -C "$db"
(
    cd "$db"
    git init --quiet
    git add --all
    GIT_AUTHOR_DATE=$snapshot_date GIT_COMMITTER_DATE=$snapshot_date \
        git -c user.name=snapshot -c user.email=snapshot@localhost commit --quiet -m "RustSec advisory database snapshot"
    # cargo-deny takes the later of HEAD's commit date and this file's
    # modification time as the database's age.
    touch -d "$snapshot_date" .git/HEAD
)
age_days=$(( ($(date +%s) - $(date -d "$snapshot_date" +%s)) / 86400 ))
echo "== cargo deny check (advisories from the snapshot of $snapshot_date, $age_days days old)"
if [ "$age_days" -gt 90 ]; then
    echo "warning: the advisory snapshot is $age_days days old: refresh it (bash .ci/deny.sh --refresh CLONE)" >&2
fi
# cargo-deny reads the metadata of every target's dependencies, which a
# build on this platform does not download (Windows-only crates, say).
cargo fetch --locked --quiet
cargo deny --offline check
