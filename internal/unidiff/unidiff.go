// Package unidiff renders the difference between two texts as a unified
// diff, the format `diff -u` and `git diff` print, so a dry run shows
// exactly what a write would change.
package unidiff

import (
	"fmt"
	"strings"
)

// Diff returns a unified diff of a → b with the given labels and three
// lines of context, or "" when the texts are equal.
func Diff(labelA, labelB string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(string(a)), splitLines(string(b))
	ops := myers(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", labelA, labelB)
	for _, h := range hunks(ops, 3) {
		writeHunk(&out, h, x, y)
	}
	return out.String()
}

// splitLines keeps line endings, so a missing final newline shows.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type opKind byte

const (
	opEqual opKind = ' '
	opDel   opKind = '-'
	opIns   opKind = '+'
)

// op is one edit: a line of x (delete, equal) or of y (insert).
type op struct {
	kind opKind
	x, y int // index into x and y before this op
}

// myers computes a shortest edit script with Myers' O((N+M)D) algorithm.
// Config files are small, and the changes between runs smaller still.
func myers(x, y []string) []op {
	n, m := len(x), len(y)
	max := n + m
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[max+k-1] < v[max+k+1] {
				i = v[max+k+1]
			} else {
				i = v[max+k-1] + 1
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[max+k] = i
			if i >= n && j >= m {
				return backtrack(trace, x, y, d, max)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, x, y []string, d, max int) []op {
	var ops []op
	i, j := len(x), len(y)
	for ; d > 0; d-- {
		v := trace[d]
		k := i - j
		var prevK int
		if k == -d || k != d && v[max+k-1] < v[max+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevI := v[max+prevK]
		prevJ := prevI - prevK
		for i > prevI && j > prevJ {
			i, j = i-1, j-1
			ops = append(ops, op{opEqual, i, j})
		}
		if i == prevI {
			j--
			ops = append(ops, op{opIns, i, j})
		} else {
			i--
			ops = append(ops, op{opDel, i, j})
		}
	}
	for i > 0 && j > 0 {
		i, j = i-1, j-1
		ops = append(ops, op{opEqual, i, j})
	}
	for l, r := 0, len(ops)-1; l < r; l, r = l+1, r-1 {
		ops[l], ops[r] = ops[r], ops[l]
	}
	return ops
}

// hunks groups the edit script into changes with up to context equal
// lines around them; changes closer than twice that share a hunk.
func hunks(ops []op, context int) [][]op {
	var out [][]op
	first, last := -1, -1
	flush := func() {
		if first >= 0 {
			out = append(out, ops[max(first-context, 0):min(last+context+1, len(ops))])
		}
	}
	for i, o := range ops {
		if o.kind == opEqual {
			continue
		}
		if first >= 0 && i-last > 2*context {
			flush()
			first = -1
		}
		if first < 0 {
			first = i
		}
		last = i
	}
	flush()
	return out
}

func writeHunk(out *strings.Builder, h []op, x, y []string) {
	var ax, ay, cx, cy int
	ax, ay = h[0].x, h[0].y
	for _, o := range h {
		switch o.kind {
		case opEqual:
			cx++
			cy++
		case opDel:
			cx++
		case opIns:
			cy++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", rangeSpec(ax, cx), rangeSpec(ay, cy))
	for _, o := range h {
		var line string
		switch o.kind {
		case opEqual, opDel:
			line = x[o.x]
		case opIns:
			line = y[o.y]
		}
		out.WriteByte(byte(o.kind))
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// rangeSpec formats a hunk range as diff does: start is 1-based, and an
// empty range names the line before it.
func rangeSpec(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
