// Command etcdwright-dashboard-lint checks Grafana dashboards (JSON, the classic schema Grafana
// exports and imports) for a Prometheus data source, in the manner of Grafana's own
// dashboard-linter (github.com/grafana/dashboard-linter), which the Go module proxy here does not
// serve: its rules are written anew below, on Grafana's own dashboard types from
// github.com/grafana/grafana-foundation-sdk/go and Prometheus' own PromQL parser.
//
//	etcdwright-dashboard-lint [-label NAME]... FILE...
//	etcdwright-dashboard-lint -print-metric-names FILE
//
// First the document is decoded strictly into the SDK's dashboard types, with every panel
// plugin's options and every Prometheus query's fields typed too: an unknown or misspelt field, a
// value of the wrong type or a missing required one is an error, as is any of the types' own
// validation constraints. Then the rules (rules.go) judge what decoded. Each finding is printed as
// FILE:LINE:COL: LEVEL: PATH: message (rule); the exit code is 1 when any is an error, 0 when
// there are only warnings or none, 2 when a file cannot be read at all.
//
// -label NAME (repeatable): the dashboard must have a multi-value query variable NAME, and every
// series selector of every panel's query must filter NAME by it (NAME=~"$NAME"), so that no panel
// mixes series the variable was meant to keep apart.
//
// -print-metric-names: the metric names the panels' queries and the variables' queries select,
// one a line, sorted, as Prometheus' parser reads them (for a test that checks each is exported).
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
)

type labelFlags []string

func (l *labelFlags) String() string     { return strings.Join(*l, ",") }
func (l *labelFlags) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	var labels labelFlags
	flag.Var(&labels, "label", "a variable every series selector must filter by (repeatable)")
	printNames := flag.Bool("print-metric-names", false, "print the metric names the queries select")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: etcdwright-dashboard-lint [-label NAME]... FILE...\n       etcdwright-dashboard-lint -print-metric-names FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || (*printNames && flag.NArg() != 1) {
		flag.Usage()
		os.Exit(2)
	}
	// Panel options and queries are typed by their plugin only once the plugins are registered.
	plugins.RegisterDefaultPlugins()

	failed := false
	for _, file := range flag.Args() {
		raw, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: error: %v\n", file, err)
			os.Exit(2)
		}
		if *printNames {
			names, findings := metricNames(raw)
			if report(file, raw, findings) {
				os.Exit(1)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Println(n)
			}
			continue
		}
		if report(file, raw, lint(raw, labels)) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// report prints the findings in document order and says whether any is an error.
func report(file string, raw []byte, findings []finding) bool {
	where := locate(raw)
	type placed struct {
		line, col int
		f         finding
	}
	var all []placed
	for _, f := range findings {
		line, col := where.lineCol(f.path)
		if f.offset > 0 {
			line, col = where.lineColAt(f.offset - 1)
		}
		all = append(all, placed{line, col, f})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].line != all[j].line {
			return all[i].line < all[j].line
		}
		return all[i].col < all[j].col
	})
	anyError := false
	for _, p := range all {
		path := p.f.path
		if path == "" {
			path = "(dashboard)"
		}
		fmt.Printf("%s:%d:%d: %s: %s: %s (%s)\n", file, p.line, p.col, p.f.level, path, p.f.message, p.f.rule)
		anyError = anyError || p.f.level == levelError
	}
	return anyError
}
