// Command etcdwright-kube-apiserver is kube-apiserver itself, built from k8s.io/kubernetes at the
// version go.mod pins: the same main as cmd/kube-apiserver (app.NewAPIServerCommand run by
// component-base's cli, with the same blank imports), so the integration tests can run a real API
// server, as a cluster's control plane would, against an etcd etcdwright set up, with exactly the
// client flags `etcdwright kube-apiserver-flags` prints (KubeApiServer.java).
package main

import (
	"os"
	_ "time/tzdata" // as cmd/kube-apiserver: time zones for CronJob without the host's zoneinfo

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json, as upstream's binary
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go's metrics, as upstream's binary
	_ "k8s.io/component-base/metrics/prometheus/version"  // the version metric, as upstream's binary
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
