#!/usr/bin/env bash
# A bare repository of one commit holding <ref>'s tree of <mirror git dir>, for the import benches
# (bench/import.bench.ts, bench/import-server.bench.ts): the mirrors `fetch` brings may lack a few
# blobs, which are replaced by a placeholder so that the tree stays whole.
#
#   bench/bare-snapshot.sh /work/.mirror/carlospolop+hacktricks/repo HEAD /tmp/ht
#   npm run build && npx tsx bench/import-server.bench.ts /tmp/ht refs/heads/master
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 <mirror git dir> <ref> <output bare repository>" >&2; exit 2; }
mirror=$(cd "$1" && pwd); ref=$2; out=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
git init -q -b master "$work/repo"
cd "$work/repo"
echo "$mirror/objects" > .git/objects/info/alternates
placeholder=$(echo "placeholder" | git hash-object -w --stdin)
missing=$(git -C "$mirror" ls-tree -r "$ref" | awk '{print $3}' | git -C "$mirror" cat-file --batch-check | awk '$2=="missing"{print $1}' | paste -sd'|')
git -C "$mirror" ls-tree -r "$ref" |
  if [ -n "$missing" ]; then sed -E "s/($missing)/$placeholder/"; else cat; fi |
  GIT_INDEX_FILE="$work/index" git update-index --add --index-info
tree=$(GIT_INDEX_FILE="$work/index" git write-tree)
commit=$(git -c user.name=bench -c user.email=bench@example.invalid commit-tree "$tree" -m snapshot)
git update-ref refs/heads/master "$commit"
git repack -a -d -q
rm .git/objects/info/alternates
rm -rf "$out"
git clone -q --bare "$work/repo" "$out"
echo "$out: $(git -C "$out" ls-tree -r master | wc -l) files, $(printf '%s' "$missing" | tr '|' '\n' | grep -c . || true) placeholder(s)"
