package faultinject

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestParseSpecValid(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  [NumCategories]int
		canon string
		total int
	}{
		{"3,2,1,0 0 1", [6]int{3, 2, 1, 0, 0, 1}, "3,2,1,0 0 1", 7},
		{"3,2,1,0 0 1\n", [6]int{3, 2, 1, 0, 0, 1}, "3,2,1,0 0 1", 7},
		{"3,2,1,0 0 1\r\n", [6]int{3, 2, 1, 0, 0, 1}, "3,2,1,0 0 1", 7},
		{"  1, 2,\t3, 4\t5  6  ", [6]int{1, 2, 3, 4, 5, 6}, "1,2,3,4 5 6", 21},
		{"-1,+2,0,0 0 -7", [6]int{-1, 2, 0, 0, 0, -7}, "-1,2,0,0 0 -7", 2},
		{"0,0,0,0 0 0", [6]int{}, "0,0,0,0 0 0", 0},
		{"2147483647,-2147483648,0,0 0 0", [6]int{2147483647, -2147483648, 0, 0, 0, 0}, "2147483647,-2147483648,0,0 0 0", 2147483647},
	} {
		sp, err := ParseSpec(tc.in)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tc.in, err)
			continue
		}
		if sp.Counts != tc.want || sp.String() != tc.canon || sp.Total() != tc.total {
			t.Errorf("ParseSpec(%q) = %v (%q, total %d), want %v (%q, total %d)", tc.in, sp.Counts, sp.String(), sp.Total(), tc.want, tc.canon, tc.total)
		}
	}
	sp, _ := ParseSpec("-1,2,0,0 0 0")
	if sp.Count(CatRegister) != 0 || sp.Count(CatPredicate) != 2 {
		t.Errorf("Count: negative must disable: %d %d", sp.Count(CatRegister), sp.Count(CatPredicate))
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `bugspec: field 1: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"   ", `bugspec: field 1: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"1", `bugspec: field 2: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"1,2,3", `bugspec: field 4: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"1,2,3,", `bugspec: field 4: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"1,2,3,4", `bugspec: field 5: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"1,2,3,4 5", `bugspec: field 6: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"1,2,3,4 5 ", `bugspec: field 6: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`},
		{"1,2,x,4 5 6", `bugspec: field 3 ("x"): not an integer`},
		{"1,2,3,4 5 6x", `bugspec: field 6 ("6x"): not an integer`},
		{"+-1,2,3,4 5 6", `bugspec: field 1 ("+-1"): not an integer`},
		{"1,2,3,4 5 -", `bugspec: field 6 ("-"): not an integer`},
		{"0x1,2,3,4 5 6", `bugspec: field 1 ("0x1"): not an integer`},
		{"1,2,3,4-5 6", `bugspec: field 4 ("4-5"): not an integer`},
		{"1,2,3,4 5 99999999999", `bugspec: field 6 ("99999999999"): out of range (the counts are 32-bit integers)`},
		{"1,2,3,-2147483649 5 6", `bugspec: field 4 ("-2147483649"): out of range (the counts are 32-bit integers)`},
		{"1,,3,4 5 6", `bugspec: field 2: empty (found "," where a number should be)`},
		{",1,2,3,4 5 6", `bugspec: field 1: empty (found "," where a number should be)`},
		{"1,2,3 4 5 6", `bugspec: column 6: expected ',' after field 3, found " "`},
		{"1 ,2,3,4 5 6", `bugspec: column 2: expected ',' after field 1, found " "`},
		{"1,2,3,4,5,6", `bugspec: column 8: expected a blank after field 4, found ","`},
		{"1,2,3,4 5,6", `bugspec: column 10: expected a blank after field 5, found ","`},
		{"1,2,3,4 5 6 7", `bugspec: column 13: unexpected text after field 6: "7"`},
		{"1,2,3,4 5 6\n7", `bugspec: column 12: line break inside the specification (it is one line)`},
	} {
		_, err := ParseSpec(tc.in)
		if err == nil {
			t.Errorf("ParseSpec(%q): no error, want %s", tc.in, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("ParseSpec(%q):\n got %s\nwant %s", tc.in, err, tc.want)
		}
		if _, ok := err.(*SpecError); !ok {
			t.Errorf("ParseSpec(%q): error is %T, want *SpecError", tc.in, err)
		}
	}
}

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := write("ok.txt", "\n  \n3,2,1,0 0 1\r\n\n")
	sp, err := ParseFile(p)
	if err != nil || sp.String() != "3,2,1,0 0 1" {
		t.Fatalf("ParseFile: %v, %v", sp, err)
	}
	for _, tc := range []struct{ text, want string }{
		{"\n1,2,x,4 5 6\n", ":2:5: field 3 (\"x\"): not an integer"},
		{"  1,2,3 4 5 6", ":1:8: expected ',' after field 3, found \" \""},
		{"1,2,3,4 5 6\n\n  7,7,7,7 7 7\n", ":3:3: unexpected second line (the specification is the single line on line 1)"},
		{"", ":1:1: no bug specification (want one line \"C0,C1,C2,C3 C4 C5\")"},
		{"\n \n", ":1:1: no bug specification (want one line \"C0,C1,C2,C3 C4 C5\")"},
		{"1,2", ":1:4: field 3: missing (want 6 fields: \"C0,C1,C2,C3 C4 C5\")"},
	} {
		p := write("bad.txt", tc.text)
		_, err := ParseFile(p)
		if err == nil || err.Error() != p+tc.want {
			t.Errorf("ParseFile(%q):\n got %v\nwant %s", tc.text, err, p+tc.want)
		}
	}
	if _, err := ParseFile(filepath.Join(dir, "absent.txt")); err == nil {
		t.Error("ParseFile of a missing file: no error")
	}
}

func TestSpecJSON(t *testing.T) {
	sp, _ := ParseSpec("3,2,1,0 0 1")
	b, err := json.Marshal(struct{ S Spec }{sp})
	if err != nil || string(b) != `{"S":"3,2,1,0 0 1"}` {
		t.Fatalf("json: %s %v", b, err)
	}
	var back struct{ S Spec }
	if err := json.Unmarshal(b, &back); err != nil || back.S != sp {
		t.Fatalf("unmarshal: %v %v", back.S, err)
	}
	if err := json.Unmarshal([]byte(`{"S":"1,2"}`), &back); err == nil {
		t.Fatal("unmarshal of a bad spec: no error")
	}
}

func TestReadCompatSpec(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	sp, ok, err := ReadCompatSpec(dir, &out)
	if ok || err != nil || out.String() != "Cannot open file with bug specification\n" {
		t.Fatalf("absent file: %v %v %v %q", sp, ok, err, out.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "bugspec.txt"), []byte("0,1,0,0 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	sp, ok, err = ReadCompatSpec(dir, &out)
	if !ok || err != nil || sp.String() != "0,1,0,0 0 0" || out.Len() != 0 {
		t.Fatalf("present file: %v %v %v %q", sp, ok, err, out.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "bugspec.txt"), []byte("0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ok, err = ReadCompatSpec(dir, &out)
	want := filepath.Join(dir, "bugspec.txt") + `:1:4: field 3: missing (want 6 fields: "C0,C1,C2,C3 C4 C5")`
	if ok || err == nil || err.Error() != want {
		t.Fatalf("bad file: %v %v, want %s", ok, err, want)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"3,2,1,0 0 1", " 1, 2,3,4\t5 6\r\n", "1,2,3 4 5 6", "-1,+2,0,0 0 0", "1,2,3,4 5 99999999999", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			e, ok := err.(*SpecError)
			if !ok {
				t.Fatalf("error of type %T", err)
			}
			if e.Col < 1 || e.Col > len(s)+1 {
				t.Fatalf("column %d outside the %d-byte input: %v", e.Col, len(s), err)
			}
			return
		}
		canon := sp.String()
		back, err := ParseSpec(canon)
		if err != nil || back != sp || back.String() != canon {
			t.Fatalf("%q parsed as %q, which reparses as %v (%v)", s, canon, back, err)
		}
	})
}
