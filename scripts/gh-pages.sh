#!/usr/bin/env bash
# Usage: gh-pages.sh DIR   (DIR: a checkout of the repository with push credentials)
# Puts DIR on the newest gh-pages commit of origin; on the first night, when the branch does not
# exist yet, creates it (empty, with .nojekyll) and pushes it, so the trend-chart action finds it.
set -euo pipefail
cd "${1:?usage: gh-pages.sh DIR}"
if git fetch --quiet origin gh-pages 2>/dev/null; then
  git checkout --quiet -B gh-pages FETCH_HEAD
  exit 0
fi
echo "gh-pages.sh: no gh-pages branch yet: creating it"
git checkout --quiet --orphan gh-pages
git rm -rfq --ignore-unmatch .
git clean -fdxq
touch .nojekyll
git add .nojekyll
git -c user.name="github-actions[bot]" -c user.email="41898282+github-actions[bot]@users.noreply.github.com" \
  commit --quiet -m "gh-pages: created by the kcliff nightly"
git push --quiet origin HEAD:gh-pages
