// Command etcdwright-kubeadm-config reads one kubeadm ClusterConfiguration document on stdin and
// judges it with kubeadm's own code, as `kubeadm init --config` would: the document must be
// kubeadm.k8s.io/v1beta4 ClusterConfiguration, decode strictly (no unknown or duplicate field:
// kubeadm's strict.VerifyUnmarshalStrict, which kubeadm itself only warns with), convert and
// default through kubeadm's scheme, and pass validation.ValidateClusterConfiguration. It prints
// the etcd.external block as kubeadm read it and exits 0, or prints every error and exits 1.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	kubeadmapi "k8s.io/kubernetes/cmd/kubeadm/app/apis/kubeadm"
	kubeadmscheme "k8s.io/kubernetes/cmd/kubeadm/app/apis/kubeadm/scheme"
	"k8s.io/kubernetes/cmd/kubeadm/app/apis/kubeadm/v1beta4"
	"k8s.io/kubernetes/cmd/kubeadm/app/apis/kubeadm/validation"
	"k8s.io/kubernetes/cmd/kubeadm/app/componentconfigs"
	"k8s.io/kubernetes/cmd/kubeadm/app/constants"
	kubeadmutil "k8s.io/kubernetes/cmd/kubeadm/app/util"
	"k8s.io/kubernetes/cmd/kubeadm/app/util/config/strict"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin: %v", err)
	}
	docs, err := kubeadmutil.SplitConfigDocuments(in)
	if err != nil {
		fail("%v", err)
	}
	if len(docs) != 1 {
		fail("want exactly one document, got %d", len(docs))
	}
	for gvk, doc := range docs {
		want := v1beta4.SchemeGroupVersion.WithKind(constants.ClusterConfigurationKind)
		if gvk != want {
			fail("document is %s, want %s", gvk, want)
		}
		if err := strict.VerifyUnmarshalStrict([]*runtime.Scheme{kubeadmscheme.Scheme, componentconfigs.Scheme}, gvk, doc); err != nil {
			fail("strict decoding: %v", err)
		}
		cfg := &kubeadmapi.ClusterConfiguration{}
		if err := runtime.DecodeInto(kubeadmscheme.Codecs.UniversalDecoder(), doc, cfg); err != nil {
			fail("decoding: %v", err)
		}
		if errs := validation.ValidateClusterConfiguration(cfg); len(errs) > 0 {
			lines := make([]string, 0, len(errs))
			for _, e := range errs {
				lines = append(lines, e.Error())
			}
			fail("invalid:\n%s", strings.Join(lines, "\n"))
		}
		if cfg.Etcd.External == nil {
			fail("no etcd.external: kubeadm would run its own etcd")
		}
		e := cfg.Etcd.External
		fmt.Printf("ok: etcd.external endpoints=%s caFile=%s certFile=%s keyFile=%s\n",
			strings.Join(e.Endpoints, ","), e.CAFile, e.CertFile, e.KeyFile)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kubeadm-config: "+format+"\n", args...)
	os.Exit(1)
}
