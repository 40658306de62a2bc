#!/usr/bin/env bash
# Lists the public API of the two library crates, sandkeep-shell and
# sandkeep, as rustdoc documents it: one line per public item page
# (`kind path`), so a reviewer sees the surface and a diff of this output
# shows what a change adds to or removes from it.
#
#   scripts/public-api.sh                  # both crates, default features
#   scripts/public-api.sh sandkeep-shell   # one crate
#   scripts/public-api.sh --check ...      # also fail if either crate has a
#                                          # public module (their internals are
#                                          # private; the surface is `pub use`)
#                                          # other than those in `public_mods`
#
# Runs `cargo doc --no-deps` (release profile, so the warm target/ is used);
# rustdoc writes one page per public item, named `KIND.NAME.html` inside the
# directory of its module, plus redirect pages at the private paths of
# re-exported items, which are skipped. `#[doc(hidden)]` items (the
# `testing` modules for each crate's own tests, the runtime's `cli_support`
# for its binary) have no page.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
if [[ ${1:-} == --check ]]; then
    check=1
    shift
fi
crates=("$@")
((${#crates[@]})) || crates=(sandkeep-shell sandkeep)

doc="${CARGO_TARGET_DIR:-target}/doc"
# Pages of items that no longer exist would stay behind.
for package in "${crates[@]}"; do
    rm -rf "${doc:?}/${package//-/_}"
done
cargo doc --release --no-deps "${crates[@]/#/-p=}" >&2

list() {
    local crate=$1
    (cd "$doc" && find "$crate" -name '*.html' ! -name 'all.html' ! -name 'sidebar-items*' \
        -exec grep -L 'http-equiv="refresh"' {} +) |
        sed -E \
            -e 's#/index\.html$# mod#' \
            -e 's#^(.*)/([a-z]+)\.([A-Za-z0-9_]+)\.html$#\1::\3 \2#' |
        sed -E -e 's#/#::#g' |
        awk '$2 == "mod" { print "mod " $1; next } { print $2 " " $1 }' |
        sort -k2
}

# Modules public on purpose, each with the reason at its declaration:
# sandkeep_shell::bytes is the escape form the runtime's stores translate.
public_mods='^mod (sandkeep_shell::bytes)$'

status=0
for package in "${crates[@]}"; do
    crate=${package//-/_}
    echo "# $crate"
    items=$(list "$crate")
    echo "$items"
    echo "# $crate: $(grep -c . <<<"$items") public items"
    if ((check)); then
        mods=$(grep "^mod $crate::" <<<"$items" | grep -Ev "$public_mods" || true)
        if [[ -n $mods ]]; then
            echo "public modules in $crate (internals should be private):" >&2
            echo "$mods" >&2
            status=1
        fi
    fi
done
exit $status
