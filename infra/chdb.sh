#!/usr/bin/env bash
# Installs chDB (ClickHouse's engine in-process, ~546 MB) into node_modules without adding it to
# package.json: the default `npm ci` and `npm start` stay lean, and ANALYTICS=chdb loads it on first
# use. Idempotent; run again after each `npm ci` (which empties node_modules). CI runs it.
set -eu
cd "$(dirname "$0")/.."
VERSION=3.4.0
if node -e "process.exit(require('chdb/package.json').version === '$VERSION' ? 0 : 1)" 2>/dev/null; then
  echo "chDB: $VERSION installed"
  exit 0
fi
npm install --no-save --no-audit --no-fund "chdb@$VERSION"
node -e "const { Session } = require('chdb'); const s = new Session(); console.log('chDB: ClickHouse ' + s.query('SELECT version()', 'TSV').trim()); s.close()"
