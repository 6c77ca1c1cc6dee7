package knobs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed's example file (000:347-354), verbatim.
const seedFile = `; Comments or metadata can appear before the header.
; ReadKnobsFile ignores everything until [knobs] is found.
[knobs]
SchedNumBB_Limit=100
DisableCSE=1
RegAllocBudget=5000
; WHEN= syntax is also supported inside the file:
WHEN=SH=0xDEADBEEF;SchedNumBB_Limit=200
`

func TestSeedKnobsFile(t *testing.T) {
	s, w := load(t, Sources{File: kfile(seedFile)})
	if len(w) != 0 || s.Int("SchedNumBB_Limit") != 100 || !s.Bool("DisableCSE") || s.Int("RegAllocBudget") != 5000 {
		t.Errorf("values:\n%s", s)
	}
	if o := s.Origin("RegAllocBudget"); o != "knobs.txt:6" {
		t.Errorf("origin %q", o)
	}
	// The WHEN= line applies to the function whose SH is 0xDEADBEEF.
	s.l.when[0].conds[0] = hashCond{lo: ShaderHash("f"), hi: ShaderHash("f")}
	if s.ForFunction("f").Int("SchedNumBB_Limit") != 200 || s.ForFunction("g").Int("SchedNumBB_Limit") != 100 {
		t.Error("WHEN= in the file")
	}
}

func TestKnobsFileFormat(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		check      func(*Set) bool
	}{
		// strstr: the marker may be anywhere, even mid-line; what precedes
		// it (other INI sections, bogus knob lines) is ignored.
		{"marker mid-line", "DisableCSE=1\n[other]\nx=[knobs]SchedNumBB_Limit=3\n",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 3 && !s.IsSet("DisableCSE") }},
		{"only the first marker counts", "[knobs]\nSchedNumBB_Limit=1\n",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 1 }},
		{"CRLF", "[knobs]\r\nSchedNumBB_Limit=4\r\nDUMPIR=Foo\r\n",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 4 && s.DumpIR() == "Foo" }},
		{"no trailing newline", "[knobs]\nSchedNumBB_Limit=5",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 5 }},
		{"tilde inside a line", "[knobs]\nSchedNumBB_Limit=6~DisableCSE\n",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 6 && s.Bool("DisableCSE") }},
		{"comments and blanks", "[knobs]\n  ; x~DisableCSE\n# DisableCSE\n\n   \nSchedNumBB_Limit=7\n",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 7 && !s.IsSet("DisableCSE") }},
		{"later line wins", "[knobs]\nSchedNumBB_Limit=1\nSchedNumBB_Limit=2\n",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 2 }},
		{"a marker in a comment line is not the header", "# see [knobs] below\nDisableCSE\n  ; [knobs]\n[knobs]\nSchedNumBB_Limit=8\n",
			func(s *Set) bool { return s.Int("SchedNumBB_Limit") == 8 && !s.IsSet("DisableCSE") }},
		{"header only", "[knobs]",
			func(s *Set) bool { return !s.IsSet("SchedNumBB_Limit") }},
		{"string value keeps inner blanks and ';'", "[knobs]\nSchedResBusyOp= a;b c \n",
			func(s *Set) bool { return s.Str("SchedResBusyOp") == "a;b c" }},
	} {
		s, _ := load(t, Sources{File: kfile(tc.text)})
		if !tc.check(s) {
			t.Errorf("%s:\n%s", tc.name, s)
		}
	}
}

func TestKnobsFileLineNumbers(t *testing.T) {
	text := "a\nb\n[knobs]\nDisableCSE\n; c\nINJECTSTRING=x\ny;;\nSchedNumBB_Limit=q~RegAllocBudget=\n"
	got := loadErr(t, Sources{File: kfile(text)})
	want := "knobs.txt:8: SchedNumBB_Limit=q: Invalid integer value\nknobs.txt:8: RegAllocBudget=: Empty integer value"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	_, w, _ := Load(testRegistry(), Sources{File: kfile("[knobs]\n\nINJECTSTRING=x;;\n")})
	if len(w) != 1 || w[0].Source != "knobs.txt:3" {
		t.Errorf("warning %v", w)
	}
	// The marker's own line.
	got = loadErr(t, Sources{File: kfile("\n\n[knobs]Bogus=1\n")})
	if got != `knobs.txt:3: unknown knob "Bogus"` {
		t.Errorf("got %s", got)
	}
}

// fakeFile fails at the steps named in fail.
type fakeFile struct {
	r    *strings.Reader
	fail string
}

func (f *fakeFile) Seek(off int64, whence int) (int64, error) {
	if (whence == io.SeekEnd && strings.Contains(f.fail, "end")) || (whence == io.SeekStart && strings.Contains(f.fail, "start")) {
		return 0, errors.New("seek failed")
	}
	return f.r.Seek(off, whence)
}

func (f *fakeFile) Read(p []byte) (int, error) {
	if strings.Contains(f.fail, "read") {
		return 0, errors.New("read failed")
	}
	return f.r.Read(p)
}

func (f *fakeFile) Close() error {
	if strings.Contains(f.fail, "close") {
		return errors.New("close failed")
	}
	return nil
}

// TestKnobsFileErrors produces each of ReadKnobsFile's five texts
// (001:39906-39910), and shows they are chained like ptxas's.
func TestKnobsFileErrors(t *testing.T) {
	for _, tc := range []struct {
		content, fail, want string
	}{
		{"[knobs]\nDisableCSE\n", "end", "fseek() error knobsfile k.txt"},
		{"[knobs]\nDisableCSE\n", "start", "fseek() error for knobsfile k.txt"},
		{"[knobs]\nDisableCSE\n", "read", "fread() error knobsfile k.txt"},
		{"", "", "fread() error knobsfile k.txt"},
		{"DisableCSE\n", "", "Knobs header not found in k.txt"},
		{"[knobs]\nDisableCSE\n", "close", "fclose() error for knobsfile k.txt"},
		{"[knobs]\nDisableCSE\n", "read close", "fread() error knobsfile k.txt\nfclose() error for knobsfile k.txt"},
		{"[knobs]\nDisableCSE\n", "end close", "fseek() error knobsfile k.txt\nfclose() error for knobsfile k.txt"},
		{"[Knobs]\n", "", "Knobs header not found in k.txt"},   // strstr is case-sensitive
		{"; [knobs]\n", "", "Knobs header not found in k.txt"}, // only in a comment
	} {
		l := Loader{Registry: testRegistry(), open: func(string) (knobsFile, error) {
			return &fakeFile{strings.NewReader(tc.content), tc.fail}, nil
		}}
		_, _, err := l.Load(Sources{File: &File{Path: "k.txt"}})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q failing %q: %v, want %q", tc.content, tc.fail, err, tc.want)
		}
	}
	// The same texts for Content given in memory.
	for content, want := range map[string]string{"": "fread() error knobsfile k.txt", "x": "Knobs header not found in k.txt"} {
		_, _, err := Load(testRegistry(), Sources{File: &File{Path: "k.txt", Content: []byte(content)}})
		if err == nil || err.Error() != want {
			t.Errorf("content %q: %v", content, err)
		}
	}
	_, _, err := Load(testRegistry(), Sources{File: &File{Content: []byte("x")}})
	if err == nil || err.Error() != "Knobs header not found in knobs file" {
		t.Errorf("unnamed: %v", err)
	}
}

func TestKnobsFileOnDisk(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "k.knobs")
	if err := os.WriteFile(p, []byte(seedFile), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := load(t, Sources{File: &File{Path: p}})
	if s.Int("RegAllocBudget") != 5000 || s.Origin("DisableCSE") != p+":5" {
		t.Errorf("disk file:\n%s", s)
	}
	missing := filepath.Join(dir, "missing")
	got := loadErr(t, Sources{File: &File{Path: missing}})
	if !strings.HasPrefix(got, "fopen() error knobsfile "+missing+": ") || !errors.Is(errors.Unwrap(errors.Unwrap(joinedFirst(t, missing))), os.ErrNotExist) {
		t.Errorf("missing file: %s", got)
	}
}

// joinedFirst returns the first *Error of loading a missing file.
func joinedFirst(t *testing.T, path string) error {
	_, _, err := Load(testRegistry(), Sources{File: &File{Path: path}})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *Error: %v", err)
	}
	return e
}
