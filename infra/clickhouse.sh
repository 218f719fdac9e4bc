#!/usr/bin/env bash
# Installs Debian's clickhouse-server (18.16) if missing and starts it on 127.0.0.1:8123 (HTTP).
# Idempotent. Used by CI and by developers who want the ClickHouse suites to run locally.
set -eu

up() { (exec 3<>"/dev/tcp/127.0.0.1/8123") 2>/dev/null; }
if up; then echo "ClickHouse: up"; exit 0; fi

if ! command -v clickhouse-server >/dev/null 2>&1; then
  echo "installing clickhouse-server from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq clickhouse-server clickhouse-client >/dev/null
fi

dir=${CLICKHOUSE_DIR:-/var/lib/clickhouse-ci}
mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas" "$dir/log"
cat > "$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/log/server.log</log><errorlog>$dir/log/error.log</errorlog></logger>
  <http_port>8123</http_port>
  <tcp_port>9000</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <format_schema_path>$dir/format_schemas/</format_schema_path>
  <users_config>/etc/clickhouse-server/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
</yandex>
XML
nohup clickhouse-server --config-file="$dir/config.xml" >"$dir/log/stdout.log" 2>&1 &
for i in $(seq 1 60); do
  up && { echo "ClickHouse: up"; exit 0; }
  sleep 1
done
echo "ClickHouse: DOWN"; tail -20 "$dir/log/error.log" 2>/dev/null || true
exit 1
