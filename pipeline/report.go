package pipeline

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// formatBytes follows ptxas's thresholds: bytes below 1 KiB, KB with three
// decimals up to 10 MiB, MB above.
func formatBytes(n uint64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n <= 10<<20:
		return fmt.Sprintf("%.3f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.3f MB", float64(n)/(1<<20))
}

// WritePhaseStats prints --stat=phase-wise: one line per phase that ran,
// in the spirit of ptxas's "<phase>  ::  [Total N KB] ..." lines, then the
// "All Phases Summary". orilab reports what it measures: the bytes
// allocated while the phase ran and its wall time. ptxas's Freeable and
// Freeable Leaked columns describe its pool allocator, which Go does not
// have, so they are printed as n/a rather than invented.
func WritePhaseStats(w io.Writer, snaps []*Snapshot) {
	var total uint64
	var dur time.Duration
	for _, s := range snaps {
		if s.Status != StatusChanged && s.Status != StatusUnchanged {
			continue
		}
		total += s.AllocBytes
		dur += s.Duration
		fmt.Fprintf(w, "  %s  ::  [Total %s]  [Freeable n/a]  [Freeable Leaked n/a]  [Time %.3f ms]\n", s.Name, formatBytes(s.AllocBytes), float64(s.Duration)/1e6)
	}
	fmt.Fprintf(w, "  All Phases Summary  ::  [Total %s]  [Freeable n/a]  [Freeable Leaked n/a]  [Time %.3f ms]\n", formatBytes(total), float64(dur)/1e6)
}

// traceEvent is one Chrome trace "complete" event.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`  // microseconds
	Dur  float64        `json:"dur"` // microseconds
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteTrace writes the phases that ran as Chrome trace JSON, which
// Perfetto and chrome://tracing open. Phases are laid end to end; no-op
// phases appear as zero-length instants so the whole order is visible.
func WriteTrace(w io.Writer, snaps []*Snapshot) error {
	var evs []traceEvent
	ts := 0.0
	for _, s := range snaps {
		dur := float64(s.Duration) / 1e3
		e := traceEvent{Name: s.Name, Cat: s.Status.String(), Ph: "X", Ts: ts, Dur: dur, Pid: 1, Tid: 1,
			Args: map[string]any{"index": s.Index, "insts": s.Insts, "alloc_bytes": s.AllocBytes}}
		if s.Reason != "" {
			e.Args["reason"] = s.Reason
		}
		if s.Status == StatusNoOp || s.Status == StatusDisabled {
			e.Ph, e.Dur = "i", 0
		}
		evs = append(evs, e)
		ts += dur
	}
	enc := json.NewEncoder(w)
	return enc.Encode(map[string]any{"traceEvents": evs, "displayTimeUnit": "ms"})
}
