// etcdwright-linearizability checks a client history recorded by the integration tests' write-load
// harness (integration/src/test/java/io/etcdwright/it/WriteLoad.java) against a model of etcd's
// key-value API, with porcupine (github.com/anishathalye/porcupine), the checker etcd's own
// robustness tests use.
//
// Usage: etcdwright-linearizability [-timeout 20s] [-visualize FILE.html] HISTORY.jsonl
//
// Exit status: 0 linearizable, 1 not linearizable (or another consistency violation, listed),
// 2 unknown (the time bound ran out: not a pass), 3 bad input. One summary line goes to stdout.
//
// The history is JSON lines, one operation each (see the op type): puts, compare-and-swap
// transactions and gets of a few keys, every written value unique, each with its invocation and
// return times on one monotonic clock (ns), the member it went to and its result, or "ok": false
// when it failed or timed out: then it is indeterminate (it may or may not have taken effect).
//
// What is checked, and why it is sound:
//
//  1. Porcupine, partitioned by key, on puts, transactions and linearizable gets. etcd's revision
//     is global, so a model whose per-key state held "the store's revision" would depend on the
//     other keys and partitioning would be unsound (etcd's robustness model does not partition for
//     that reason). The per-key state here holds only what is a property of the key alone: whether
//     it exists, its value, and its mod_revision, which is exactly the revision the put or
//     transaction that wrote it was answered with. Successive writes of one key get strictly
//     increasing revisions, so a write's revision must exceed the key's mod_revision. A get must
//     return the key's value and mod_revision. Nothing depends on another key, so a history is
//     linearizable under this model iff each key's sub-history is (porcupine's partition rule).
//  2. The global revision, checked outside porcupine by a property every linearizable etcd history
//     has: revisions follow real time. An operation invoked after another returned sees a revision
//     at least as high (a write: strictly higher), and no two acknowledged writes share one.
//  3. Every get (serializable ones included, which are kept out of 1 because a member may serve
//     them from behind), against the writes with known revisions: a get answered at revision H
//     (its header) that returns key K at mod_revision M must see the state of K at revision H:
//     M <= H, the value was written at M (by the acknowledged write answered with M, if there is
//     one; or by an indeterminate write of that value), and no acknowledged write of K has a
//     revision in (M, H]; a get that finds no K must have no acknowledged write of K at or below H.
//     That is "a prefix of the history", sound because only the history's clients write its keys
//     (a prefix of their own) and nothing deletes them. Each client's reads from one member
//     (by member ID, which changes when a member is replaced) never go back in revision.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

const (
	exitLinearizable = 0
	exitViolation    = 1
	exitUnknown      = 2
	exitBadInput     = 3
)

// op is one line of the history.
type op struct {
	Client int    `json:"client"`
	Kind   string `json:"op"` // put, cas, get
	Key    string `json:"key"`
	// put and cas: the value written (unique in the history).
	Value string `json:"value,omitempty"`
	// get: served by the member alone (not checked by porcupine, see 3).
	Serializable bool   `json:"serializable,omitempty"`
	Member       string `json:"member"`
	Call         int64  `json:"call"`
	Return       int64  `json:"return"`
	// false: failed or timed out, the outcome is unknown.
	Ok    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// The response header: the store's revision, and the member that answered.
	Revision int64  `json:"revision,omitempty"`
	MemberID string `json:"memberId,omitempty"`
	// get: what was found.
	Found       bool   `json:"found,omitempty"`
	Got         string `json:"got,omitempty"`
	ModRevision int64  `json:"modRevision,omitempty"`
	// cas: the comparison ("mod": mod_revision == ExpectMod, 0 meaning absent; "value": value ==
	// ExpectValue, false for an absent key as in etcd) and whether the transaction took its then branch.
	Compare     string `json:"compare,omitempty"`
	ExpectMod   int64  `json:"expectMod,omitempty"`
	ExpectValue string `json:"expectValue,omitempty"`
	Succeeded   bool   `json:"succeeded,omitempty"`

	line int
}

func (o op) writes() bool { return o.Kind == "put" || o.Kind == "cas" }

// acknowledgedWrite: a write that certainly took effect, at o.Revision.
func (o op) acknowledgedWrite() bool {
	return o.Ok && (o.Kind == "put" || (o.Kind == "cas" && o.Succeeded))
}

func readHistory(r io.Reader) ([]op, error) {
	var ops []op
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	values := map[string]int{}
	n := 0
	for scanner.Scan() {
		n++
		text := strings.TrimSpace(scanner.Text())
		if text == "" {
			continue
		}
		var o op
		decoder := json.NewDecoder(strings.NewReader(text))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(&o); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		o.line = n
		if err := validate(o); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if o.writes() {
			// The model tells writes apart by value: a value written twice would make a read ambiguous.
			if first, seen := values[o.Key+"\x00"+o.Value]; seen {
				return nil, fmt.Errorf("line %d: value %q of %s already written on line %d (values must be unique)", n, o.Value, o.Key, first)
			}
			values[o.Key+"\x00"+o.Value] = n
		}
		ops = append(ops, o)
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	return ops, nil
}

func validate(o op) error {
	switch o.Kind {
	case "put":
	case "get":
	case "cas":
		if o.Compare != "mod" && o.Compare != "value" {
			return fmt.Errorf("cas with compare %q (mod or value)", o.Compare)
		}
	default:
		return fmt.Errorf("unknown op %q", o.Kind)
	}
	if o.Key == "" || o.Member == "" || o.Client < 0 {
		return errors.New("key, member and client are required")
	}
	if o.writes() && o.Value == "" {
		return errors.New("a write needs a value")
	}
	if o.Call < 0 || (o.Ok && o.Return < o.Call) {
		return fmt.Errorf("return %d before call %d", o.Return, o.Call)
	}
	if o.Ok && o.Revision <= 0 {
		return errors.New("an answered operation needs its header revision")
	}
	if o.Ok && o.Kind == "get" && o.Found && o.ModRevision <= 0 {
		return errors.New("a found key needs its mod revision")
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// 1. The per-key model for porcupine.
// ---------------------------------------------------------------------------------------------

// keyState is one key: absent, or a value with its mod_revision. Known is false after an
// indeterminate write was linearized: the value is then certain in that branch, its revision only
// bounded from below (Floor: the revision it must exceed), until a get reads it.
type keyState struct {
	Exists bool
	Value  string
	Rev    int64
	Known  bool
	Floor  int64
}

type input struct {
	Kind        string
	Value       string
	Compare     string
	ExpectMod   int64
	ExpectValue string
}

// output: Indeterminate for a write that failed or timed out.
type output struct {
	Indeterminate bool
	Revision      int64
	Found         bool
	Got           string
	ModRevision   int64
	Succeeded     bool
}

func initial() keyState { return keyState{Known: true} }

func (s keyState) atLeast() int64 {
	if s.Known && s.Rev > s.Floor {
		return s.Rev
	}
	return s.Floor
}

// compare says whether the transaction's comparison can be true and can be false in state s.
func compare(s keyState, in input) (canBeTrue, canBeFalse bool) {
	if in.Compare == "value" {
		// etcd: a value comparison on an absent key is false.
		t := s.Exists && s.Value == in.ExpectValue
		return t, !t
	}
	if !s.Known {
		// Written by an indeterminate write: its revision is some R > Floor.
		return in.ExpectMod > s.Floor, true
	}
	rev := int64(0)
	if s.Exists {
		rev = s.Rev
	}
	return rev == in.ExpectMod, rev != in.ExpectMod
}

func step(state interface{}, in0 interface{}, out0 interface{}) []interface{} {
	s := state.(keyState)
	in := in0.(input)
	out := out0.(output)
	written := func(rev int64, known bool) keyState {
		if known {
			return keyState{Exists: true, Value: in.Value, Rev: rev, Known: true, Floor: rev}
		}
		return keyState{Exists: true, Value: in.Value, Known: false, Floor: s.atLeast()}
	}
	switch in.Kind {
	case "put":
		if out.Indeterminate {
			return []interface{}{written(0, false)}
		}
		if out.Revision <= s.atLeast() {
			return nil
		}
		return []interface{}{written(out.Revision, true)}
	case "cas":
		canBeTrue, canBeFalse := compare(s, in)
		if out.Indeterminate {
			var next []interface{}
			if canBeTrue {
				next = append(next, written(0, false))
			}
			if canBeFalse {
				next = append(next, s)
			}
			return next
		}
		if out.Succeeded {
			if !canBeTrue || out.Revision <= s.atLeast() {
				return nil
			}
			return []interface{}{written(out.Revision, true)}
		}
		// Not applied: the store's revision is at least the key's.
		if !canBeFalse || (s.Known && out.Revision < s.Rev) {
			return nil
		}
		// With an unknown revision a failed mod comparison says it is not ExpectMod; the state
		// need not keep that (a later get pins the revision down and is checked then).
		return []interface{}{s}
	case "get":
		if out.Found != s.Exists {
			return nil
		}
		if !out.Found {
			return []interface{}{s}
		}
		if out.Got != s.Value {
			return nil
		}
		if s.Known {
			if out.ModRevision != s.Rev {
				return nil
			}
			return []interface{}{s}
		}
		if out.ModRevision <= s.Floor {
			return nil
		}
		return []interface{}{keyState{Exists: true, Value: s.Value, Rev: out.ModRevision, Known: true, Floor: out.ModRevision}}
	}
	return nil
}

func model() porcupine.Model {
	m := porcupine.NondeterministicModel{
		Init: func() []interface{} { return []interface{}{initial()} },
		Step: step,
		Hash: func(state interface{}) uint64 {
			s := state.(keyState)
			h := fnv.New64a()
			fmt.Fprintf(h, "%t|%s|%d|%t|%d", s.Exists, s.Value, s.Rev, s.Known, s.Floor)
			return h.Sum64()
		},
		DescribeOperation: func(in0, out0 interface{}) string {
			in, out := in0.(input), out0.(output)
			var call string
			switch in.Kind {
			case "put":
				call = fmt.Sprintf("put(%q)", in.Value)
			case "cas":
				if in.Compare == "mod" {
					call = fmt.Sprintf("if mod==%d then put(%q)", in.ExpectMod, in.Value)
				} else {
					call = fmt.Sprintf("if value==%q then put(%q)", in.ExpectValue, in.Value)
				}
			default:
				call = "get()"
			}
			switch {
			case out.Indeterminate:
				return call + " -> unknown (failed or timed out)"
			case in.Kind == "get" && !out.Found:
				return fmt.Sprintf("%s -> absent @%d", call, out.Revision)
			case in.Kind == "get":
				return fmt.Sprintf("%s -> %q mod %d @%d", call, out.Got, out.ModRevision, out.Revision)
			case in.Kind == "cas":
				return fmt.Sprintf("%s -> succeeded=%t @%d", call, out.Succeeded, out.Revision)
			default:
				return fmt.Sprintf("%s -> @%d", call, out.Revision)
			}
		},
		DescribeState: func(state interface{}) string {
			s := state.(keyState)
			switch {
			case !s.Exists:
				return "absent"
			case s.Known:
				return fmt.Sprintf("%q mod %d", s.Value, s.Rev)
			default:
				return fmt.Sprintf("%q mod >%d", s.Value, s.Floor)
			}
		},
	}
	return m.ToModel()
}

// porcupineOperations: writes and linearizable gets, by key. A failed read changed nothing and is
// left out; a failed write may have taken effect at any time after its call, so it never returns
// (its return is after everything else), as porcupine models an operation that crashed.
func porcupineOperations(ops []op) map[string][]porcupine.Operation {
	var end int64
	for _, o := range ops {
		if o.Return > end {
			end = o.Return
		}
		if o.Call > end {
			end = o.Call
		}
	}
	byKey := map[string][]porcupine.Operation{}
	for _, o := range ops {
		if o.Kind == "get" && (o.Serializable || !o.Ok) {
			continue
		}
		in := input{Kind: o.Kind, Value: o.Value, Compare: o.Compare, ExpectMod: o.ExpectMod, ExpectValue: o.ExpectValue}
		out := output{Indeterminate: !o.Ok, Revision: o.Revision, Found: o.Found, Got: o.Got, ModRevision: o.ModRevision,
			Succeeded: o.Succeeded}
		ret := o.Return
		if !o.Ok {
			ret = end + 1
		}
		byKey[o.Key] = append(byKey[o.Key], porcupine.Operation{ClientId: o.Client, Input: in, Call: o.Call, Output: out,
			Return: ret, Metadata: fmt.Sprintf("%s line %d", o.Member, o.line)})
	}
	return byKey
}

// ---------------------------------------------------------------------------------------------
// 2. Revisions follow real time.
// ---------------------------------------------------------------------------------------------

func revisionOrderViolations(ops []op) []string {
	var answered []op
	for _, o := range ops {
		if o.Ok && !(o.Kind == "get" && o.Serializable) {
			answered = append(answered, o)
		}
	}
	var problems []string
	byRevision := map[int64]op{}
	for _, o := range answered {
		if o.acknowledgedWrite() {
			if other, dup := byRevision[o.Revision]; dup {
				problems = append(problems, fmt.Sprintf("lines %d and %d: two acknowledged writes at revision %d", other.line, o.line, o.Revision))
			}
			byRevision[o.Revision] = o
		}
	}
	byReturn := append([]op(nil), answered...)
	sort.Slice(byReturn, func(i, j int) bool { return byReturn[i].Return < byReturn[j].Return })
	byCall := append([]op(nil), answered...)
	sort.Slice(byCall, func(i, j int) bool { return byCall[i].Call < byCall[j].Call })
	var highest op
	next := 0
	for _, o := range byCall {
		// Every operation that returned before o was invoked (closed intervals: strictly before).
		for next < len(byReturn) && byReturn[next].Return < o.Call {
			if byReturn[next].Revision > highest.Revision {
				highest = byReturn[next]
			}
			next++
		}
		if highest.line == 0 {
			continue
		}
		if o.Revision < highest.Revision || (o.acknowledgedWrite() && o.Revision == highest.Revision) {
			problems = append(problems, fmt.Sprintf("line %d: %s of %s via %s answered at revision %d, invoked after line %d returned revision %d",
				o.line, o.Kind, o.Key, o.Member, o.Revision, highest.line, highest.Revision))
		}
	}
	return problems
}

// ---------------------------------------------------------------------------------------------
// 3. Every get sees the history's state at its revision; a client's reads from a member never go back.
// ---------------------------------------------------------------------------------------------

func readViolations(ops []op) []string {
	acked := map[string][]op{}       // key -> acknowledged writes
	ackedValue := map[string]op{}    // key, value -> acknowledged write
	indeterminate := map[string]op{} // key, value -> indeterminate write
	learned := map[string]op{}       // key, value -> the first read of an indeterminate write
	for _, o := range ops {
		switch {
		case o.acknowledgedWrite():
			acked[o.Key] = append(acked[o.Key], o)
			ackedValue[o.Key+"\x00"+o.Value] = o
		case o.writes() && !o.Ok:
			indeterminate[o.Key+"\x00"+o.Value] = o
		}
	}
	var problems []string
	last := map[string]op{} // client, member ID -> its previous read there
	byCall := append([]op(nil), ops...)
	sort.SliceStable(byCall, func(i, j int) bool { return byCall[i].Call < byCall[j].Call })
	for _, o := range byCall {
		if o.Kind != "get" || !o.Ok {
			continue
		}
		kind := "linearizable"
		if o.Serializable {
			kind = "serializable"
		}
		where := fmt.Sprintf("line %d: %s get of %s via %s at revision %d", o.line, kind, o.Key, o.Member, o.Revision)
		if o.MemberID != "" {
			id := fmt.Sprintf("%d\x00%s", o.Client, o.MemberID)
			if before, seen := last[id]; seen && o.Revision < before.Revision {
				problems = append(problems, fmt.Sprintf("%s: went back from revision %d (line %d) on member %s", where, before.Revision, before.line, o.MemberID))
			}
			last[id] = o
		}
		if o.Found {
			if o.ModRevision > o.Revision {
				problems = append(problems, fmt.Sprintf("%s: mod revision %d above the revision it was read at", where, o.ModRevision))
			}
			writer, isAcked := ackedValue[o.Key+"\x00"+o.Got]
			switch {
			case isAcked && writer.Revision != o.ModRevision:
				problems = append(problems, fmt.Sprintf("%s: %q at mod revision %d, written at revision %d (line %d)", where, o.Got, o.ModRevision, writer.Revision, writer.line))
			case !isAcked:
				w, ok := indeterminate[o.Key+"\x00"+o.Got]
				if !ok {
					problems = append(problems, fmt.Sprintf("%s: %q was never written", where, o.Got))
				} else if o.Return < w.Call {
					problems = append(problems, fmt.Sprintf("%s: %q read, and returned, before its write (line %d) was invoked", where, o.Got, w.line))
				} else if first, seen := learned[o.Key+"\x00"+o.Got]; seen && first.ModRevision != o.ModRevision {
					problems = append(problems, fmt.Sprintf("%s: %q at mod revision %d, line %d read it at %d", where, o.Got, o.ModRevision, first.line, first.ModRevision))
				} else if !seen {
					learned[o.Key+"\x00"+o.Got] = o
				}
			}
		}
		floor := int64(0)
		if o.Found {
			floor = o.ModRevision
		}
		for _, w := range acked[o.Key] {
			if w.Revision > floor && w.Revision <= o.Revision {
				problems = append(problems, fmt.Sprintf("%s: missed %q written at revision %d (line %d)", where, w.Value, w.Revision, w.line))
				break
			}
		}
	}
	return problems
}

// ---------------------------------------------------------------------------------------------

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("etcdwright-linearizability", flag.ContinueOnError)
	flags.SetOutput(stderr)
	timeout := flags.Duration("timeout", 20*time.Second, "bound on porcupine's search; past it the result is unknown (exit 2)")
	visualize := flags.String("visualize", "", "on a violation, write porcupine's visualization of the smallest failing key's history here")
	if err := flags.Parse(args); err != nil || flags.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: etcdwright-linearizability [-timeout 20s] [-visualize FILE.html] HISTORY.jsonl")
		return exitBadInput
	}
	started := time.Now()
	file, err := os.Open(flags.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitBadInput
	}
	ops, err := readHistory(file)
	file.Close()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", flags.Arg(0), err)
		return exitBadInput
	}
	counts := map[string]int{}
	for _, o := range ops {
		switch {
		case !o.Ok:
			counts["indeterminate"]++
		case o.Kind == "get" && o.Serializable:
			counts["serializable"]++
		}
	}

	byKey := porcupineOperations(ops)
	keys := make([]string, 0, len(byKey))
	var all []porcupine.Operation
	for k, kops := range byKey {
		keys = append(keys, k)
		all = append(all, kops...)
	}
	sort.Strings(keys)
	m := model()
	m.Partition = func(history []porcupine.Operation) [][]porcupine.Operation {
		parts := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, byKey[k])
		}
		return parts
	}
	result := porcupine.CheckOperationsTimeout(m, all, *timeout)

	var problems []string
	if result == porcupine.Illegal {
		problems = append(problems, failingKeys(byKey, keys, *timeout, *visualize, stderr)...)
	}
	problems = append(problems, revisionOrderViolations(ops)...)
	problems = append(problems, readViolations(ops)...)

	verdict := "linearizable"
	code := exitLinearizable
	switch {
	case len(problems) > 0:
		verdict = "NOT linearizable"
		code = exitViolation
	case result == porcupine.Unknown:
		verdict = fmt.Sprintf("unknown (porcupine did not finish within %s)", *timeout)
		code = exitUnknown
	}
	fmt.Fprintf(stdout, "linearizability: %d operations (%d checked by porcupine, %d serializable reads, %d indeterminate), %d partitions: %s in %.2f s\n",
		len(ops), len(all), counts["serializable"], counts["indeterminate"], len(keys), verdict, time.Since(started).Seconds())
	for i, p := range problems {
		if i == 20 {
			fmt.Fprintf(stdout, "  ... and %d more\n", len(problems)-20)
			break
		}
		fmt.Fprintln(stdout, "  "+p)
	}
	return code
}

// failingKeys checks each key on its own to name those that are not linearizable, and writes the
// visualization of the smallest of them (the quickest to read).
func failingKeys(byKey map[string][]porcupine.Operation, keys []string, timeout time.Duration, visualize string, stderr io.Writer) []string {
	var failing []string
	for _, k := range keys {
		if porcupine.CheckOperationsTimeout(model(), byKey[k], timeout) == porcupine.Illegal {
			failing = append(failing, k)
		}
	}
	sort.SliceStable(failing, func(i, j int) bool { return len(byKey[failing[i]]) < len(byKey[failing[j]]) })
	var problems []string
	for _, k := range failing {
		problems = append(problems, fmt.Sprintf("key %s: its %d operations are not linearizable", k, len(byKey[k])))
	}
	if visualize != "" && len(failing) > 0 {
		_, info := porcupine.CheckOperationsVerbose(model(), byKey[failing[0]], timeout)
		if err := porcupine.VisualizePath(model(), info, visualize); err != nil {
			fmt.Fprintf(stderr, "cannot write the visualization %s: %v\n", visualize, err)
		} else {
			problems = append(problems, fmt.Sprintf("key %s: visualization in %s", failing[0], visualize))
		}
	}
	return problems
}
