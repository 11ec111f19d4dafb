package main

import (
	"fmt"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
)

type level string

const (
	levelError   level = "error"
	levelWarning level = "warning"
)

// finding is one thing wrong with a dashboard, at a path of its JSON document (or, for a
// document that is no JSON, at a byte offset: offset is then that offset plus one).
type finding struct {
	path    string
	level   level
	rule    string
	message string
	offset  int
}

func errorAt(path, rule, format string, args ...any) finding {
	return finding{path: path, level: levelError, rule: rule, message: fmt.Sprintf(format, args...)}
}

// The templated data source every panel, query and query variable must use: a dashboard that
// names one data source by its uid works only on the Grafana it was exported from.
const datasourceVariable = "datasource"

// Panel types that show numbers, whose unit must be set (or the numbers mapped to words).
var numericPanels = map[string]bool{"stat": true, "timeseries": true, "gauge": true, "bargauge": true, "table": true}

func lint(raw []byte, requiredLabels []string) []finding {
	d, findings := decode(raw)
	if d == nil {
		return findings
	}
	findings = append(findings, dashboardRules(d)...)
	findings = append(findings, variableRules(d, requiredLabels)...)
	findings = append(findings, layoutRules(d)...)
	seenIds := map[uint32]string{}
	eachPanel(d, func(path string, p panelOrRow) {
		findings = append(findings, panelRules(path, p, seenIds, requiredLabels)...)
	})
	return findings
}

func dashboardRules(d *dashboard.Dashboard) []finding {
	var findings []finding
	// Grafana migrates an older schema on load, so what the types say is true only of the current one.
	if want := dashboard.NewDashboard().SchemaVersion; d.SchemaVersion != want {
		findings = append(findings, errorAt("schemaVersion", "schema-version",
			"schemaVersion is %d; the dashboard schema these types describe is %d", d.SchemaVersion, want))
	}
	if d.Uid == nil || *d.Uid == "" {
		findings = append(findings, errorAt("uid", "dashboard-identity", "no uid: every import would make another copy, and links to it break"))
	}
	if d.Title == nil || strings.TrimSpace(*d.Title) == "" {
		findings = append(findings, errorAt("title", "dashboard-identity", "no title"))
	}
	// A dashboard kept as code is changed in its file: an edit saved in Grafana is lost on the next import.
	if d.Editable == nil || *d.Editable {
		findings = append(findings, finding{path: "editable", level: levelWarning, rule: "dashboard-uneditable",
			message: "the dashboard is editable in Grafana; set editable to false when it is kept as code"})
	}
	return findings
}

func variableRules(d *dashboard.Dashboard, requiredLabels []string) []finding {
	var findings []finding
	var datasources []int
	byName := map[string]int{}
	for i, v := range d.Templating.List {
		path := fmt.Sprintf("templating.list[%d]", i)
		byName[v.Name] = i
		switch v.Type {
		case dashboard.VariableTypeDatasource:
			datasources = append(datasources, i)
			if v.Name != datasourceVariable {
				findings = append(findings, errorAt(path+".name", "template-datasource",
					"the data source variable is named %q; name it %q", v.Name, datasourceVariable))
			}
			if q := queryText(v.Query); q != "prometheus" {
				findings = append(findings, errorAt(path+".query", "template-datasource",
					"the data source variable offers %q data sources; it must offer prometheus", q))
			}
		case dashboard.VariableTypeQuery:
			if !usesDatasourceVariable(v.Datasource) {
				findings = append(findings, errorAt(path+".datasource", "template-query-datasource",
					"variable %q does not query the ${%s} data source", v.Name, datasourceVariable))
			}
			if v.Refresh == nil || *v.Refresh != dashboard.VariableRefreshOnTimeRangeChanged {
				findings = append(findings, errorAt(path+".refresh", "template-on-time-change-reload",
					"variable %q is not reloaded when the time range changes (refresh: 2): its values go stale", v.Name))
			}
			if msg := variableQueryProblem(queryText(v.Query)); msg != "" {
				findings = append(findings, errorAt(path+".query", "template-label-promql", "variable %q: %s", v.Name, msg))
			}
		}
	}
	if len(datasources) != 1 {
		findings = append(findings, errorAt("templating.list", "template-datasource",
			"%d data source variables; a dashboard needs exactly one, %q", len(datasources), datasourceVariable))
	}
	for _, label := range requiredLabels {
		i, ok := byName[label]
		if !ok {
			findings = append(findings, errorAt("templating.list", "template-label", "no variable %q", label))
			continue
		}
		v := d.Templating.List[i]
		path := fmt.Sprintf("templating.list[%d]", i)
		if v.Type != dashboard.VariableTypeQuery {
			findings = append(findings, errorAt(path+".type", "template-label", "variable %q must be a query variable", label))
		}
		// All of a fleet at once, or any few of it: multi-value, with an All that matches every value.
		if v.Multi == nil || !*v.Multi || v.IncludeAll == nil || !*v.IncludeAll {
			findings = append(findings, errorAt(path, "template-label", "variable %q must be multi-value and include All", label))
		}
		if v.AllValue == nil || *v.AllValue != ".+" {
			findings = append(findings, errorAt(path+".allValue", "template-label",
				"variable %q: All must be the regular expression .+ (not the list of values the variable saw)", label))
		}
	}
	return findings
}

func queryText(q *dashboard.StringOrMap) string {
	switch {
	case q == nil:
		return ""
	case q.String != nil:
		return *q.String
	default:
		s, _ := q.Map["query"].(string)
		return s
	}
}

// usesDatasourceVariable: the reference names the data source variable, not one data source by its uid.
func usesDatasourceVariable(ref *common.DataSourceRef) bool {
	return ref != nil && ref.Uid != nil && (*ref.Uid == "${"+datasourceVariable+"}" || *ref.Uid == "$"+datasourceVariable)
}

// panelOrRow is one entry of a panels list: a panel, or a row (whose panels, when collapsed, are its own).
type panelOrRow = dashboard.PanelOrRowPanel

func eachPanel(d *dashboard.Dashboard, visit func(path string, p panelOrRow)) {
	for i, p := range d.Panels {
		path := fmt.Sprintf("panels[%d]", i)
		visit(path, p)
		if p.RowPanel != nil {
			for j := range p.RowPanel.Panels {
				visit(fmt.Sprintf("%s.panels[%d]", path, j), panelOrRow{Panel: &p.RowPanel.Panels[j]})
			}
		}
	}
}

func panelRules(path string, p panelOrRow, seenIds map[uint32]string, requiredLabels []string) []finding {
	var findings []finding
	id := func(panelId *uint32) {
		switch {
		case panelId == nil || *panelId == 0:
			findings = append(findings, errorAt(path+".id", "panel-id", "no id: Grafana's links to a panel name it by id"))
		case seenIds[*panelId] != "":
			findings = append(findings, errorAt(path+".id", "panel-id", "id %d is %s's too", *panelId, seenIds[*panelId]))
		default:
			seenIds[*panelId] = path
		}
	}
	if r := p.RowPanel; r != nil {
		id(&r.Id)
		if r.Title == nil || strings.TrimSpace(*r.Title) == "" {
			findings = append(findings, errorAt(path+".title", "panel-title-description", "a row without a title"))
		}
		if r.GridPos == nil {
			findings = append(findings, errorAt(path+".gridPos", "panel-gridpos", "no gridPos: Grafana stacks the panel anywhere"))
		}
		return findings
	}
	panel := p.Panel
	if panel == nil {
		return findings // it did not decode: the schema findings say why
	}
	id(panel.Id)
	if panel.GridPos == nil {
		findings = append(findings, errorAt(path+".gridPos", "panel-gridpos", "no gridPos: Grafana stacks the panel anywhere"))
	}
	if panel.Title == nil || strings.TrimSpace(*panel.Title) == "" {
		findings = append(findings, errorAt(path+".title", "panel-title-description", "no title"))
	}
	if panel.Description == nil || strings.TrimSpace(*panel.Description) == "" {
		findings = append(findings, errorAt(path+".description", "panel-title-description",
			"no description: the panel's tooltip is where it says what it shows and where the numbers come from"))
	}
	if panel.Type == "text" || panel.Type == "row" {
		return findings
	}
	if !usesDatasourceVariable(panel.Datasource) {
		findings = append(findings, errorAt(path+".datasource", "panel-datasource", "the panel does not use the ${%s} data source", datasourceVariable))
	}
	if numericPanels[panel.Type] {
		findings = append(findings, unitRule(path, panel)...)
	}
	if len(panel.Targets) == 0 {
		findings = append(findings, errorAt(path+".targets", "panel-no-targets", "a %s panel with no query", panel.Type))
	}
	refIds := map[string]bool{}
	for i, t := range panel.Targets {
		tpath := fmt.Sprintf("%s.targets[%d]", path, i)
		q, ok := t.(*prometheus.Dataquery)
		if !ok {
			findings = append(findings, errorAt(tpath, "target-prometheus", "not a Prometheus query (its datasource is not of type prometheus)"))
			continue
		}
		// A query without a data source of its own uses its panel's.
		if q.Datasource != nil && !usesDatasourceVariable(q.Datasource) {
			findings = append(findings, errorAt(tpath+".datasource", "panel-datasource", "the query does not use the ${%s} data source", datasourceVariable))
		}
		switch {
		case q.RefId == nil || *q.RefId == "":
			findings = append(findings, errorAt(tpath, "target-refid", "no refId"))
		case refIds[*q.RefId]:
			findings = append(findings, errorAt(tpath+".refId", "target-refid", "refId %q twice in one panel", *q.RefId))
		default:
			refIds[*q.RefId] = true
		}
		findings = append(findings, promqlRules(tpath+".expr", q.Expr, requiredLabels)...)
	}
	return findings
}

func unitRule(path string, panel *dashboard.Panel) []finding {
	if panel.FieldConfig == nil {
		return []finding{errorAt(path+".fieldConfig", "panel-units", "no fieldConfig, so no unit")}
	}
	defaults := panel.FieldConfig.Defaults
	if len(defaults.Mappings) > 0 {
		return nil // the numbers are shown as words
	}
	switch {
	case defaults.Unit == nil || *defaults.Unit == "":
		return []finding{errorAt(path+".fieldConfig.defaults", "panel-units", "no unit (fieldConfig.defaults.unit)")}
	case !knownUnit(*defaults.Unit):
		return []finding{errorAt(path+".fieldConfig.defaults.unit", "panel-units", "%q is not one of Grafana's units", *defaults.Unit)}
	}
	return nil
}
