#!/bin/sh
# Sets up one etcd member by hand, as kubeadm's external-etcd guide, etcdadm or a distribution
# package would leave it (not as etcdwright would): used by AdoptIT on a test host.
#   $1 layout: kubeadm | etcdadm | package | plain (a unit with flags, plain HTTP on both sides)
#   $2 member name  $3 this host's address  $4 initial cluster (name=https://addr:2380,...)
#   $5 release tarball URL  $6 version  $7 cluster token
#   $8 (optional) no-ca-key: the CA key is removed once the leaf certificates are signed (kept elsewhere)
#   stdin: the CA certificate, then the CA key (PEM, one after the other)
#   EXTRA_FLAGS (environment, kubeadm layout): more flags for the unit, as a guide of an older minor left them
set -eu
layout=$1 name=$2 ip=$3 initial=$4 url=$5 version=$6 token=$7 cakey=${8:-keep}
case $layout in
  kubeadm) pki=/etc/kubernetes/pki/etcd; data=/var/lib/etcd ;;
  etcdadm) pki=/etc/etcd/pki; data=/var/lib/etcd ;;
  package) pki=/etc/ssl/etcd; data=/var/lib/etcd/default ;;
  plain) pki=; data=/var/lib/etcd ;;
  *) echo "unknown layout $layout" >&2; exit 1 ;;
esac
pem=$(cat)
if [ -n "$pki" ]; then
mkdir -p "$pki"
printf '%s\n' "$pem" | sed -n '/BEGIN CERTIFICATE/,/END CERTIFICATE/p' >"$pki/ca.crt"
printf '%s\n' "$pem" | sed -n '/BEGIN .*PRIVATE KEY/,/END .*PRIVATE KEY/p' >"$pki/ca.key"
chmod 600 "$pki/ca.key"

# Leaf certificates signed here with the CA, as kubeadm certs / etcdadm do on each member.
leaf() { # file-stem CN usages san
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$pki/$1.key" \
    -subj "/CN=$2" -out "$pki/$1.csr" 2>/dev/null
  printf 'extendedKeyUsage=%s\n%s' "$3" "${4:+subjectAltName=$4
}" >"$pki/$1.ext"
  openssl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 365 \
    -extfile "$pki/$1.ext" -out "$pki/$1.crt" 2>/dev/null
  rm -f "$pki/$1.csr" "$pki/$1.ext"
  chmod 600 "$pki/$1.key"
}
leaf server "$name" serverAuth,clientAuth "DNS:$name,DNS:localhost,IP:$ip,IP:127.0.0.1"
leaf peer "$name" serverAuth,clientAuth "DNS:$name,IP:$ip"
leaf healthcheck-client kube-etcd-healthcheck-client clientAuth ""
[ "$cakey" = no-ca-key ] && rm -f "$pki/ca.key" "$pki/ca.srl"
fi

t=$(mktemp -d)
curl -fsS "$url" | tar -xz -C "$t"
src=$t/etcd-v$version-linux-amd64
case $layout in
  kubeadm|plain)
    install -m 755 "$src/etcd" "$src/etcdctl" /usr/local/bin/
    bin=/usr/local/bin/etcd ;;
  etcdadm)
    mkdir -p "/opt/bin/etcd-v$version"
    install -m 755 "$src/etcd" "$src/etcdctl" "/opt/bin/etcd-v$version/"
    ln -sfn "/opt/bin/etcd-v$version/etcd" /opt/bin/etcd
    ln -sfn "/opt/bin/etcd-v$version/etcdctl" /opt/bin/etcdctl
    bin=/opt/bin/etcd ;;
  package)
    # A package's binary in /usr/bin (here a link to the release's, as the testbed has no package of it).
    mkdir -p /usr/lib/etcd-release
    install -m 755 "$src/etcd" "$src/etcdctl" /usr/lib/etcd-release/
    ln -sfn /usr/lib/etcd-release/etcd /usr/bin/etcd
    ln -sfn /usr/lib/etcd-release/etcdctl /usr/bin/etcdctl
    bin=/usr/bin/etcd ;;
esac
rm -rf "$t"

case $layout in
  kubeadm)
    # Flags in the unit, across continuation lines, some quoted: the CA key stays beside the CA (kubeadm's layout).
    mkdir -p "$data"
    cat >/etc/systemd/system/etcd.service <<UNIT
[Unit]
Description=etcd (kubeadm external etcd, run by systemd)

[Service]
Type=notify
ExecStart=$bin \\
  --name=$name \\
  --data-dir="$data" \\
  --listen-client-urls=https://127.0.0.1:2379,https://$ip:2379 \\
  --advertise-client-urls=https://$ip:2379 \\
  --listen-peer-urls=https://$ip:2380 \\
  --initial-advertise-peer-urls https://$ip:2380 \\
  --initial-cluster=$initial \\
  --initial-cluster-state=new \\
  --initial-cluster-token '$token' \\
  --listen-metrics-urls=http://127.0.0.1:2381 \\
  --cert-file=$pki/server.crt --key-file=$pki/server.key \\
  --peer-cert-file=$pki/peer.crt --peer-key-file=$pki/peer.key \\
  --trusted-ca-file=$pki/ca.crt --peer-trusted-ca-file=$pki/ca.crt \\
  --client-cert-auth=true --peer-client-cert-auth=true \\
  --snapshot-count=10000 --heartbeat-interval 100 --election-timeout=1000${EXTRA_FLAGS:+ $EXTRA_FLAGS}
Restart=always
RestartSec=5s

[Install]
WantedBy=multi-user.target
UNIT
    ;;
  plain)
    # No TLS at all: http:// URLs, no certificate flags (a cluster on a trusted network, as some run).
    mkdir -p "$data"
    cat >/etc/systemd/system/etcd.service <<UNIT
[Unit]
Description=etcd (plain HTTP, run by systemd)

[Service]
Type=notify
ExecStart=$bin --name $name --data-dir $data \\
  --listen-client-urls http://127.0.0.1:2379,http://$ip:2379 --advertise-client-urls http://$ip:2379 \\
  --listen-peer-urls http://$ip:2380 --initial-advertise-peer-urls http://$ip:2380 \\
  --initial-cluster $initial --initial-cluster-state new --initial-cluster-token '$token'
Restart=always

[Install]
WantedBy=multi-user.target
UNIT
    ;;
  etcdadm)
    mkdir -p "$data"
    cat >/etc/etcd/etcd.env <<ENV
ETCD_NAME=$name
ETCD_DATA_DIR=$data
ETCD_ADVERTISE_CLIENT_URLS=https://$ip:2379
ETCD_LISTEN_CLIENT_URLS=https://$ip:2379,https://127.0.0.1:2379
ETCD_INITIAL_ADVERTISE_PEER_URLS=https://$ip:2380
ETCD_LISTEN_PEER_URLS=https://$ip:2380
ETCD_INITIAL_CLUSTER="$initial"
ETCD_INITIAL_CLUSTER_STATE=new
ETCD_INITIAL_CLUSTER_TOKEN=$token
ETCD_CERT_FILE=$pki/server.crt
ETCD_KEY_FILE=$pki/server.key
ETCD_CLIENT_CERT_AUTH=true
ETCD_TRUSTED_CA_FILE=$pki/ca.crt
ETCD_PEER_CERT_FILE=$pki/peer.crt
ETCD_PEER_KEY_FILE=$pki/peer.key
ETCD_PEER_CLIENT_CERT_AUTH=true
ETCD_PEER_TRUSTED_CA_FILE=$pki/ca.crt
ETCD_STRICT_RECONFIG_CHECK=true
ENV
    cat >/etc/systemd/system/etcd.service <<UNIT
[Unit]
Description=etcd (etcdadm)
Documentation=https://github.com/coreos/etcd

[Service]
EnvironmentFile=/etc/etcd/etcd.env
ExecStart=$bin
Type=notify
Restart=always
RestartSec=10s
LimitNOFILE=40000

[Install]
WantedBy=multi-user.target
UNIT
    ;;
  package)
    # The CA key is kept off the hosts here: the operator gives it to import with --ca-key.
    rm -f "$pki/ca.key" "$pki/ca.srl"
    getent group etcd >/dev/null || groupadd --system etcd
    id -u etcd >/dev/null 2>&1 || useradd --system --gid etcd --home-dir /var/lib/etcd --shell /usr/sbin/nologin etcd
    mkdir -p "$data"
    chown -R etcd:etcd /var/lib/etcd "$pki"
    chmod 700 "$data"
    cat >/etc/default/etcd <<ENV
## etcd(1) daemon options, as Debian's etcd-server package reads them.
# ETCD_NAME="hostname"
ETCD_NAME="$name"
ETCD_DATA_DIR="$data"
ETCD_LISTEN_PEER_URLS="https://$ip:2380"
ETCD_LISTEN_CLIENT_URLS="https://$ip:2379,https://127.0.0.1:2379"
ETCD_INITIAL_ADVERTISE_PEER_URLS="https://$ip:2380"
ETCD_INITIAL_CLUSTER="$initial"
ETCD_INITIAL_CLUSTER_STATE="new"
ETCD_INITIAL_CLUSTER_TOKEN='$token'
ETCD_ADVERTISE_CLIENT_URLS="https://$ip:2379"
ETCD_CERT_FILE="$pki/server.crt"
ETCD_KEY_FILE="$pki/server.key"
ETCD_CLIENT_CERT_AUTH="true"
ETCD_TRUSTED_CA_FILE="$pki/ca.crt"
ETCD_PEER_CERT_FILE="$pki/peer.crt"
ETCD_PEER_KEY_FILE="$pki/peer.key"
ETCD_PEER_CLIENT_CERT_AUTH="true"
ETCD_PEER_TRUSTED_CA_FILE="$pki/ca.crt"
DAEMON_ARGS="--heartbeat-interval=100 --election-timeout=1000"
ENV
    cat >/lib/systemd/system/etcd.service <<UNIT
[Unit]
Description=etcd - highly-available key value store
Documentation=man:etcd
After=network.target
Wants=network-online.target

[Service]
Environment=DAEMON_ARGS=
Environment=ETCD_NAME=%H
Environment=ETCD_DATA_DIR=/var/lib/etcd/default
EnvironmentFile=-/etc/default/%p
Type=notify
User=etcd
PermissionsStartOnly=true
ExecStart=$bin \$DAEMON_ARGS
Restart=on-abnormal
LimitNOFILE=65536

[Install]
WantedBy=multi-user.target
Alias=etcd2.service
UNIT
    ;;
esac
systemctl daemon-reload
systemctl enable etcd.service 2>/dev/null
# Members of a new cluster become ready only together: start without waiting.
systemctl start --no-block etcd.service
