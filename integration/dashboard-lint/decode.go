package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// decode reads the document strictly into Grafana's dashboard types: every field the types do
// not know, every value of the wrong type and every missing required field is an error, and so is
// any violation of the types' own constraints. It returns nil when the document is no dashboard
// at all (no JSON object).
//
// The SDK's strict decoders (v0.0.22) end with "return errs", a list that is empty but, as an
// error, not nil: a strict decoder that checks a nested one's error takes that for a failure and
// drops what it decoded (every panel, every query). Their errors are complete and right, so the
// findings come from the strict decoder and the dashboard the rules read from the ordinary one,
// which decodes the same types with the same plugins.
func decode(raw []byte) (*dashboard.Dashboard, []finding) {
	var findings []finding
	var buildErrs cog.BuildErrors
	var syntax *json.SyntaxError
	var notAnObject *json.UnmarshalTypeError
	err := (&dashboard.Dashboard{}).UnmarshalJSONStrict(raw)
	switch {
	case err == nil:
	case errors.As(err, &buildErrs):
		for _, e := range buildErrs {
			findings = append(findings, schemaFinding(e.Path, e.Message))
		}
	case errors.As(err, &syntax):
		f := errorAt("", "schema", "not JSON: %v", syntax)
		f.offset = int(syntax.Offset)
		return nil, []finding{f}
	case errors.As(err, &notAnObject) && notAnObject.Field == "":
		return nil, []finding{errorAt("", "schema", "not a dashboard: the document is a JSON %s, not an object", notAnObject.Value)}
	default:
		findings = append(findings, errorAt("", "schema", "%v", err))
	}
	findings = append(findings, strictFieldConfigs(raw)...)
	d := &dashboard.Dashboard{}
	if err := json.Unmarshal(raw, d); err != nil && len(findings) == 0 {
		findings = append(findings, errorAt("", "schema", "%v", err))
	}
	// Else a value of the wrong type, which the strict decoder has named: the rules judge the rest,
	// as far as it decoded.
	if err := d.Validate(); err != nil {
		if errors.As(err, &buildErrs) {
			for _, e := range buildErrs {
				findings = append(findings, schemaFinding(e.Path, e.Message))
			}
		} else {
			findings = append(findings, errorAt("", "schema", "%v", err))
		}
	}
	return d, findings
}

// strictFieldConfigs decodes each panel's fieldConfig strictly too: the SDK's panel decoder reads
// it loosely (only its custom part strictly, by the panel's plugin), so a misspelt unit or
// threshold would go unseen.
func strictFieldConfigs(raw []byte) []finding {
	type rawPanel struct {
		FieldConfig json.RawMessage   `json:"fieldConfig"`
		Panels      []json.RawMessage `json:"panels"`
	}
	var doc struct {
		Panels []json.RawMessage `json:"panels"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return nil // the strict decoder has said what is wrong with it
	}
	var findings []finding
	var check func(path string, panels []json.RawMessage)
	check = func(path string, panels []json.RawMessage) {
		for i, one := range panels {
			var p rawPanel
			if json.Unmarshal(one, &p) != nil {
				continue
			}
			at := fmt.Sprintf("%spanels[%d]", path, i)
			if len(p.FieldConfig) > 0 && string(p.FieldConfig) != "null" {
				err := (&dashboard.FieldConfigSource{}).UnmarshalJSONStrict(p.FieldConfig)
				var buildErrs cog.BuildErrors
				if errors.As(err, &buildErrs) {
					for _, e := range buildErrs {
						findings = append(findings, schemaFinding(at+".fieldConfig."+e.Path, e.Message))
					}
				} else if err != nil {
					findings = append(findings, errorAt(at+".fieldConfig", "schema", "%v", err))
				}
			}
			check(at+".", p.Panels)
		}
	}
	check("", doc.Panels)
	return findings
}

var unexpectedField = regexp.MustCompile(`^unexpected field '(.*)'$`)

// schemaFinding turns the SDK's error path ("panels[2].Panel" with "unexpected field 'x'") into a
// path of the document ("panels[2].x"): a step that starts with a capital is the name of a Go
// type, not a field of the JSON (every Grafana field starts with a small letter).
func schemaFinding(sdkPath, message string) finding {
	var steps []string
	for _, step := range strings.Split(sdkPath, ".") {
		if step != "" && step[0] >= 'A' && step[0] <= 'Z' {
			continue
		}
		steps = append(steps, step)
	}
	if m := unexpectedField.FindStringSubmatch(message); m != nil {
		steps = append(steps, m[1])
		message = "unknown field '" + m[1] + "' (not in Grafana's dashboard schema)"
	}
	return errorAt(strings.Join(steps, "."), "schema", "%s", message)
}
