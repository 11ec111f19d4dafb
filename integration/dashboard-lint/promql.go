package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

var labelValuesQuery = regexp.MustCompile(`^\s*label_values\(\s*(?:(.*?)\s*,\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*$`)
var queryResultQuery = regexp.MustCompile(`^\s*query_result\((.*)\)\s*$`)

// variableQueryProblem says what is wrong with a Prometheus variable query, "" when nothing is:
// label_values(SELECTOR, LABEL) and query_result(EXPR) must hold valid PromQL.
func variableQueryProblem(query string) string {
	if m := labelValuesQuery.FindStringSubmatch(query); m != nil {
		if m[1] == "" {
			return ""
		}
		if _, err := parsePromQL(m[1]); err != nil {
			return "label_values: " + err.Error()
		}
		return ""
	}
	if m := queryResultQuery.FindStringSubmatch(query); m != nil {
		if _, err := parsePromQL(m[1]); err != nil {
			return "query_result: " + err.Error()
		}
		return ""
	}
	return fmt.Sprintf("%q is neither label_values(...) nor query_result(...)", query)
}

// Grafana's variables in a query, and what each stands for while the query is parsed. The range
// variables stand for durations no one would write, so that the parsed query still tells which
// range was which.
var (
	rateIntervalStandIn = 4321 * time.Second // $__rate_interval: at least four scrapes, whatever the step
	rangeStandIn        = 8642 * time.Second // $__range: the dashboard's whole time range
	intervalStandIn     = 4322 * time.Second // $__interval: the step, which rate() can fall short of
	grafanaVariable     = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[^}]*)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)(?::[^\]]*)?\]\]`)
)

func standIn(name string) string {
	switch name {
	case "__rate_interval":
		return strconv.Itoa(int(rateIntervalStandIn.Seconds())) + "s"
	case "__range":
		return strconv.Itoa(int(rangeStandIn.Seconds())) + "s"
	case "__interval":
		return strconv.Itoa(int(intervalStandIn.Seconds())) + "s"
	}
	return "grafana_variable_" + name
}

// parsePromQL parses a query as Prometheus would once Grafana has put in its variables.
func parsePromQL(query string) (parser.Expr, error) {
	expanded := grafanaVariable.ReplaceAllStringFunc(query, func(v string) string {
		m := grafanaVariable.FindStringSubmatch(v)
		return standIn(m[1] + m[2] + m[3])
	})
	return parser.NewParser(parser.Options{}).ParseExpr(expanded)
}

func promqlRules(path, query string, requiredLabels []string) []finding {
	if strings.TrimSpace(query) == "" {
		return []finding{errorAt(path, "target-promql", "an empty query")}
	}
	expr, err := parsePromQL(query)
	if err != nil {
		return []finding{errorAt(path, "target-promql", "not valid PromQL: %v", err)}
	}
	var findings []finding
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.Call:
			switch n.Func.Name {
			case "rate", "irate", "increase":
				// The range must hold enough scrapes whatever the dashboard's step: $__rate_interval;
				// or, for a total over what the dashboard shows, $__range.
				for _, arg := range n.Args {
					if m, ok := arg.(*parser.MatrixSelector); ok && m.Range != rateIntervalStandIn && m.Range != rangeStandIn {
						findings = append(findings, errorAt(path, "target-rate-interval",
							"%s() over %s: use [$__rate_interval] (or [$__range] for a total over the dashboard's range)", n.Func.Name, rangeText(m.Range)))
					}
				}
			}
		case *parser.VectorSelector:
			for _, label := range requiredLabels {
				if !filtersBy(n, label) {
					findings = append(findings, errorAt(path, "target-label",
						"%s does not filter %s by the variable: add %s=~\"$%s\"", selectorName(n), label, label, label))
				}
			}
		}
		return nil
	})
	return findings
}

func filtersBy(s *parser.VectorSelector, label string) bool {
	for _, m := range s.LabelMatchers {
		if m.Name == label && (m.Type == labels.MatchRegexp || m.Type == labels.MatchEqual) && m.Value == standIn(label) {
			return true
		}
	}
	return false
}

func selectorName(s *parser.VectorSelector) string {
	if s.Name != "" {
		return s.Name
	}
	return s.String()
}

func rangeText(d time.Duration) string {
	switch d {
	case intervalStandIn:
		return "$__interval"
	}
	return "[" + model.Duration(d).String() + "]"
}

// metricNames: the metric names the panels' and the variables' queries select.
func metricNames(raw []byte) ([]string, []finding) {
	d, findings := decode(raw)
	if d == nil {
		return nil, findings
	}
	seen := map[string]bool{}
	collect := func(path, query string) {
		expr, err := parsePromQL(query)
		if err != nil {
			findings = append(findings, errorAt(path, "target-promql", "not valid PromQL: %v", err))
			return
		}
		parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
			if s, ok := node.(*parser.VectorSelector); ok && s.Name != "" {
				seen[s.Name] = true
			}
			return nil
		})
	}
	eachPanel(d, func(path string, p panelOrRow) {
		if p.Panel == nil {
			return
		}
		for i, t := range p.Panel.Targets {
			if q, ok := t.(*prometheus.Dataquery); ok {
				collect(fmt.Sprintf("%s.targets[%d].expr", path, i), q.Expr)
			}
		}
	})
	for i, v := range d.Templating.List {
		if v.Type != dashboard.VariableTypeQuery {
			continue
		}
		q := queryText(v.Query)
		path := fmt.Sprintf("templating.list[%d].query", i)
		if m := labelValuesQuery.FindStringSubmatch(q); m != nil && m[1] != "" {
			collect(path, m[1])
		} else if m := queryResultQuery.FindStringSubmatch(q); m != nil {
			collect(path, m[1])
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	return names, findings
}
