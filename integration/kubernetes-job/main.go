// Command etcdwright-kubernetes-job reads YAML documents on stdin, each a batch/v1 Job, and judges
// each one as the Kubernetes apiserver judges a Job it is asked to create, with the apiserver's own
// code from k8s.io/kubernetes: strict decoding (an unknown or duplicate field is an error, as with
// kubectl's --validate=strict), the batch/v1 defaults, conversion to the internal type, then the
// create path of the Job registry (rest.BeforeCreate with the Job strategy: the generated selector
// and labels, the handwritten ValidateJobCreate, the object meta checks and the declarative
// validation) and its warnings, which count as findings. It prints one line a Job and exits 0, or
// prints every finding and exits 1.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
)

func main() {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(os.Stdin))
	strict := serializer.NewCodecFactory(legacyscheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var findings []string
	jobs := 0
	for n := 1; ; n++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail("document %d: %v", n, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		jobs++
		line, problems := judge(strict, doc)
		if len(problems) > 0 {
			for _, p := range problems {
				findings = append(findings, fmt.Sprintf("document %d: %s", n, p))
			}
			continue
		}
		fmt.Println(line)
	}
	if jobs == 0 {
		findings = append(findings, "no document")
	}
	if len(findings) > 0 {
		fail("%s", strings.Join(findings, "\n"))
	}
}

// judge decodes one document and runs the apiserver's create path over it.
func judge(strict runtime.Decoder, doc []byte) (string, []string) {
	obj, gvk, err := strict.Decode(doc, nil, nil)
	if err != nil {
		// Strict decoding errors (unknown, duplicate fields) come with the object: they are findings all the same.
		return "", []string{"decoding: " + err.Error()}
	}
	if gvk.GroupVersion() != batchv1.SchemeGroupVersion || gvk.Kind != "Job" {
		return "", []string{fmt.Sprintf("%s is not a batch/v1 Job", gvk)}
	}
	versioned := obj.(*batchv1.Job)
	legacyscheme.Scheme.Default(versioned)
	job := &batch.Job{}
	if err := legacyscheme.Scheme.Convert(versioned, job, nil); err != nil {
		return "", []string{"conversion: " + err.Error()}
	}
	namespace := job.Namespace
	if namespace == "" {
		namespace = "default"
	}
	ctx := genericapirequest.WithNamespace(genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: "batch", APIVersion: "v1", Resource: "jobs", Namespace: namespace,
	}), namespace)
	// What the generic store does before BeforeCreate: a UID and creation time (the selector is made of the UID).
	rest.FillObjectMetaSystemFields(job)
	if err := rest.BeforeCreate(jobregistry.Strategy, ctx, job); err != nil {
		return "", []string{err.Error()}
	}
	var problems []string
	for _, w := range jobregistry.Strategy.WarningsOnCreate(ctx, job) {
		problems = append(problems, "warning: "+w)
	}
	if len(problems) > 0 {
		return "", problems
	}
	return fmt.Sprintf("ok: batch/v1 Job %s: completionMode=%s completions=%d parallelism=%d suspend=%t",
		job.Name, value(job.Spec.CompletionMode), value(job.Spec.Completions), value(job.Spec.Parallelism), value(job.Spec.Suspend)), nil
}

func value[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// stripComments drops whole-line comments, so a document of comments alone counts as empty.
func stripComments(doc []byte) []byte {
	var kept [][]byte
	for _, l := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("#")) {
			kept = append(kept, l)
		}
	}
	return bytes.Join(kept, []byte("\n"))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kubernetes-job: "+format+"\n", args...)
	os.Exit(1)
}
