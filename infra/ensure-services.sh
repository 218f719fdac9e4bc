#!/usr/bin/env bash
# Starts the local servers the integration tests talk to, if they are not already up.
# Idempotent: on a machine where they run (developer box, CI) it only checks.
set -u

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if ! up 5432; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
if ! up 4222 && [ -x /usr/sbin/nats-server ]; then
  echo "starting NATS (JetStream)"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log || true
fi

for i in $(seq 1 30); do
  up 5432 && break
  sleep 1
done
up 5432 && echo "PostgreSQL: up" || echo "PostgreSQL: DOWN"
up 4222 && echo "NATS: up" || echo "NATS: down"
