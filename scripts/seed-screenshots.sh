#!/usr/bin/env bash
# Pastes seeds 000, 002 and 004 into a fresh database through the upload
# form, as a new reader would, and a made-up post of 14 configurations
# named in Chinese, Japanese and Korean (docs/seeds/cjk-14-series.txt), then
# takes a screenshot of the home page and of each comparison it offers
# (page and PNG) with headless chromium.
#
#   scripts/seed-screenshots.sh BINARY OUT_DIR [SEEDS_DIR]
#
# SEEDS_DIR defaults to ../shared/seeds; the fixtures hold the same posts
# verbatim when it is absent.
set -euo pipefail

binary=${1:?usage: seed-screenshots.sh BINARY OUT_DIR [SEEDS_DIR]}
out=${2:?usage: seed-screenshots.sh BINARY OUT_DIR [SEEDS_DIR]}
seeds=${3:-../shared/seeds}
mkdir -p "$out"
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"

"$binary" serve --db "$work/seeds.db" --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
    curl -sf "$base/healthz" >/dev/null && break
    sleep 0.2
done

for seed in 000 002 004; do
    file=$(ls "$seeds"/"$seed"_*.txt)
    curl -sf -o /dev/null -w "seed $seed: %{http_code} %{redirect_url}\n" \
        --data-urlencode "text@$file" "$base/upload"
done

curl -sf -o /dev/null -w "14 CJK-named series: %{http_code} %{redirect_url}\n" \
    --data-urlencode "text@$(dirname "$0")/../docs/seeds/cjk-14-series.txt" \
    --data-urlencode "title=14 configurations named in CJK" "$base/upload"

index="$out/README.md"
printf '# Seeds 000, 002 and 004, and 14 series named in CJK, pasted into a fresh database\n\nMade by `scripts/seed-screenshots.sh`: the home page, then each comparison it offers, as its page and as the PNG its link gives. The fourth post, [cjk-14-series.txt](cjk-14-series.txt), is made up (it says so in its first line): 14 configurations named in Chinese, Japanese and Korean, three runs each at 10 and 100 clients, configuration k a fixed percentage off the first (0, +3, -2, +8, -6, +1, +12, -10, +5, +0.5, -4, +7, -1, +15) and its runs spread -0.4%%, 0, +0.4%%, to show a crowded chart with CJK names.\n\n' >"$index"

shot() {
    chromium --headless --no-sandbox --hide-scrollbars \
        --window-size="${3:-1280},${4:-2000}" --screenshot="$out/$2" "$base$1" 2>/dev/null
    echo "$out/$2  <- $1"
    printf -- '- [%s](%s): `%s`\n' "$2" "$2" "$1" >>"$index"
}

shot / home.png 1280 2400
n=0
curl -sf "$base/" | grep -o 'class="ready-compare" href="[^"]*"' | sed 's/.*href="//; s/"$//; s/&#38;/\&/g' |
    awk '!seen[$0]++' | while read -r link; do
        n=$((n + 1))
        shot "$link" "ready-$n-page.png" 1280 2400
        png="${link/\/compare?//compare.png?}"
        curl -sf -o "$out/ready-$n.png" "$base$png"
        echo "$out/ready-$n.png  <- $png"
        printf -- '- [ready-%s.png](ready-%s.png): `%s`\n' "$n" "$n" "$png" >>"$index"
    done

# The crowded one: 14 series (more than a home card holds), from its
# submission page's ready comparison of select_index.
link=$(curl -sf "$base/submissions/4" | grep -o 'class="ready-compare" href="[^"]*item=select_index[^"]*"' | head -1 |
    sed 's/.*href="//; s/"$//; s/&#38;/\&/g')
shot "$link" "cjk-14-series-page.png" 1280 2600
png="${link/\/compare?//compare.png?}"
curl -sf -o "$out/cjk-14-series.png" "$base$png"
echo "$out/cjk-14-series.png  <- $png"
printf -- '- [cjk-14-series.png](cjk-14-series.png): `%s`\n' "$png" >>"$index"
