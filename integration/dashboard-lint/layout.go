package main

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// Grafana's grid is 24 columns wide.
const gridColumns = 24

// layoutRules: every panel of the dashboard's grid fits in its 24 columns and no two overlap.
// Grafana takes either in silence and moves panels where it finds room, so the dashboard no
// longer looks as its file says. (The panels of a collapsed row are laid out when it opens, and
// are not checked against the rest.)
func layoutRules(d *dashboard.Dashboard) []finding {
	var findings []finding
	type placed struct {
		path string
		pos  dashboard.GridPos
	}
	var seen []placed
	for i, p := range d.Panels {
		var pos *dashboard.GridPos
		switch {
		case p.Panel != nil:
			pos = p.Panel.GridPos
		case p.RowPanel != nil:
			pos = p.RowPanel.GridPos
		}
		if pos == nil {
			continue // panelRules says so
		}
		path := fmt.Sprintf("panels[%d]", i)
		if pos.X+pos.W > gridColumns {
			findings = append(findings, errorAt(path+".gridPos", "panel-gridpos",
				"x %d + w %d is past the grid's %d columns", pos.X, pos.W, gridColumns))
		}
		for _, other := range seen {
			if overlap(*pos, other.pos) {
				findings = append(findings, errorAt(path+".gridPos", "panel-gridpos", "overlaps %s", other.path))
			}
		}
		seen = append(seen, placed{path, *pos})
	}
	return findings
}

func overlap(a, b dashboard.GridPos) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}
