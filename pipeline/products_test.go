package pipeline

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestProductsLeftOut checks that a compilation asked for one output
// (PhaseOptions.NoSASSText, NoCubin) makes the other not at all, makes the
// one asked for exactly as a compilation of both does, and says so in the
// skipped phase's snapshot; that a release compilation asked for no cubin
// encodes nothing; and that a release compilation, which encodes without
// the round trip, writes the same cubin.
func TestProductsLeftOut(t *testing.T) {
	const file = "../testdata/sample/sample.ptx"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	compile := func(po PhaseOptions) *Session {
		t.Helper()
		po.OptLevel = 3
		s, err := NewSession(file, src, Options{Arch: 80}, po)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RunAll(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	status := func(s *Session, phase string) (Status, string) {
		for _, snap := range s.Snapshots {
			if snap.Name == phase {
				return snap.Status, snap.Reason
			}
		}
		t.Fatalf("no snapshot of %s", phase)
		return 0, ""
	}
	both := compile(PhaseOptions{}).Backend()
	if both.SASS == "" || len(both.Cubin) == 0 {
		t.Fatalf("the default compilation made SASS text of %d bytes and a cubin of %d bytes", len(both.SASS), len(both.Cubin))
	}

	s := compile(PhaseOptions{NoSASSText: true})
	if b := s.Backend(); b.SASS != "" || !bytes.Equal(b.Cubin, both.Cubin) {
		t.Errorf("NoSASSText: SASS text of %d bytes (want none), cubin same as the default's: %v", len(b.SASS), bytes.Equal(b.Cubin, both.Cubin))
	}
	if st, why := status(s, "DumpNVuCodeText"); st != StatusNoOp || why != "no SASS text was asked for (the output is a cubin, IR or lowered code)" {
		t.Errorf("NoSASSText: DumpNVuCodeText is %v (%q)", st, why)
	}

	s = compile(PhaseOptions{NoCubin: true})
	if b := s.Backend(); b.Cubin != nil || b.SASS != both.SASS {
		t.Errorf("NoCubin: a cubin of %d bytes (want none), SASS same as the default's: %v", len(b.Cubin), b.SASS == both.SASS)
	}
	if st, why := status(s, "FormatCodeList"); st != StatusNoOp || why != "no cubin was asked for (the output is SASS text, IR or lowered code)" {
		t.Errorf("NoCubin: FormatCodeList is %v (%q)", st, why)
	}

	if b := s.Backend(); b.Code == nil {
		t.Errorf("NoCubin without Release: no words (the round trip checks them)")
	}
	s = compile(PhaseOptions{NoCubin: true, Release: true})
	if b := s.Backend(); b.Code != nil || b.Cubin != nil || b.SASS != both.SASS {
		t.Errorf("NoCubin in a release compilation: words %v, a cubin %v (want neither), SASS same as the default's: %v", b.Code != nil, b.Cubin != nil, b.SASS == both.SASS)
	}
	for _, phase := range []string{"MercEncodeAndDecode", "MercGenerateSassUCode"} {
		if st, why := status(s, phase); st != StatusNoOp || !strings.HasPrefix(why, "no cubin was asked for, and a release compilation") {
			t.Errorf("NoCubin in a release compilation: %s is %v (%q)", phase, st, why)
		}
	}

	rel := compile(PhaseOptions{Release: true, NoSnapshots: true}).Backend()
	if !bytes.Equal(rel.Cubin, both.Cubin) || rel.SASS != both.SASS {
		t.Errorf("a release compilation (no encoding round trip) wrote another cubin (%v) or SASS text (%v)", !bytes.Equal(rel.Cubin, both.Cubin), rel.SASS != both.SASS)
	}
}
