package main

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// positions maps each value of a JSON document to where it starts, by its path in the form the
// findings use ("panels[3].targets[0].expr"; the document itself is ""), so that every finding can
// say file:line:col. A key's position is its value's: an unexpected field is shown where it is.
type positions struct {
	raw    []byte
	offset map[string]int
}

func locate(raw []byte) positions {
	p := positions{raw: raw, offset: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	p.value(dec, "")
	return p
}

// value reads one value at path, recording where it starts, and everything inside it.
func (p positions) value(dec *json.Decoder, path string) bool {
	p.offset[path] = p.skipSpace(int(dec.InputOffset()))
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return false
			}
			name, _ := key.(string)
			child := name
			if path != "" {
				child = path + "." + name
			}
			if !p.value(dec, child) {
				return false
			}
		}
		_, err = dec.Token()
		return err == nil
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if !p.value(dec, path+"["+strconv.Itoa(i)+"]") {
				return false
			}
		}
		_, err = dec.Token()
		return err == nil
	}
	return true
}

// skipSpace moves past what separates two tokens (the decoder's offset is the end of the last one).
func (p positions) skipSpace(at int) int {
	for at < len(p.raw) {
		switch p.raw[at] {
		case ' ', '\t', '\r', '\n', ':', ',':
			at++
		default:
			return at
		}
	}
	return at
}

// lineCol is where path's value starts, 1-based; a path not in the document (a field that is
// missing) is shown at the nearest enclosing value that is.
func (p positions) lineCol(path string) (int, int) {
	at, ok := p.offset[path]
	for !ok && path != "" {
		path = parent(path)
		at, ok = p.offset[path]
	}
	return p.lineColAt(at)
}

// lineColAt is where the byte at offset at is, 1-based.
func (p positions) lineColAt(at int) (int, int) {
	if at > len(p.raw) {
		at = len(p.raw)
	}
	line, col := 1, 1
	for _, b := range p.raw[:at] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// parent drops the last step of a path: "a.b[2]" -> "a.b", "a.b" -> "a".
func parent(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i] {
		case '.':
			return path[:i]
		case '[':
			return path[:i]
		}
	}
	return ""
}
