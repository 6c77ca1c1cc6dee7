package ptx

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"orilab/internal/testenv"
)

// corpusInvalid lists the corpus files that are not valid PTX, with the
// exact first diagnostic each must produce. Paths are relative to
// shared/corpus. Why each one is invalid:
//
//   - ZLUDA/ptx/src/pass/test/...: ZLUDA's pass tests append ZLUDA's own
//     intermediate form after a "// %%% output %%%" marker; that part is not
//     PTX, and the first error points into it.
//   - ZLUDA spirv_fail: inputs ZLUDA itself expects to reject (shared_ptr2 is
//     rejected for its non-.extern unsized .shared array; shared_ptr.ptx
//     writes "extern" without the dot).
//   - fold_denormal.ptx: add.f16 needs sm_53; the file targets sm_30.
//   - gpuocelot optix: no .target directive, which the ISA requires.
//   - gpuocelot shifts.ptx: shf needs PTX 3.1 and sm_32; the file declares
//     2.3 and sm_20 (a hand-written Ocelot test).
//   - gpuocelot texture.ptx: .3d surface access needs PTX 3.0; the file
//     declares 2.1.
//   - ZLUDA test/operands.ptx: mov.u32 from a vector {0, %reg_16} (ptxas:
//     "Argument vector size mismatch"); spirv_run/noreturn.ptx: .noreturn
//     on a kernel (ptxas: "Parsing error near '.noreturn'").
//   - gpuocelot TestEmulator.ptx: .address_size with .version 2.1 (ptxas:
//     "Feature '.address_size directive' requires PTX ISA .version 2.3").
//   - gpuocelot register-calling-convention.ptx: Ocelot's internal
//     intrinsic-call syntax (a call whose target is a prototype label, and
//     the same label defined twice).
var corpusInvalid = map[string]string{
	"ZLUDA/ptx/src/pass/instruction_mode_to_global_mode/fold_denormal.ptx":               "ZLUDA/ptx/src/pass/instruction_mode_to_global_mode/fold_denormal.ptx:9:5: error: add.f16 requires sm_53 or higher, but the module targets sm_30",
	"ZLUDA/ptx/src/pass/test/expand_operands/immediate_conversion.ptx":                   "ZLUDA/ptx/src/pass/test/expand_operands/immediate_conversion.ptx:24:33: error: expected ',' or ';' after a declared name, found directive or modifier '.b64'",
	"ZLUDA/ptx/src/pass/test/expand_operands/immediates.ptx":                             "ZLUDA/ptx/src/pass/test/expand_operands/immediates.ptx:28:33: error: expected ',' or ';' after a declared name, found directive or modifier '.u64'",
	"ZLUDA/ptx/src/pass/test/expand_operands/vector_extract.ptx":                         "ZLUDA/ptx/src/pass/test/expand_operands/vector_extract.ptx:19:29: error: expected ',' or ';' after a declared name, found identifier '%4'",
	"ZLUDA/ptx/src/pass/test/expand_operands/vector_operand.ptx":                         "ZLUDA/ptx/src/pass/test/expand_operands/vector_operand.ptx:19:33: error: expected ',' or ';' after a declared name, found directive or modifier '.b16'",
	"ZLUDA/ptx/src/pass/test/expand_operands/vector_operand_convert.ptx":                 "ZLUDA/ptx/src/pass/test/expand_operands/vector_operand_convert.ptx:19:33: error: expected ',' or ';' after a declared name, found directive or modifier '.b16'",
	"ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default.ptx":                    "ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default.ptx:19:41: error: expected ',' or ';' after a declared name, found directive or modifier '.default'",
	"ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default_reg_b32_reg_f16x2.ptx":  "ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default_reg_b32_reg_f16x2.ptx:19:41: error: expected ',' or ';' after a declared name, found directive or modifier '.default'",
	"ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default_reg_b32_reg_v2_b16.ptx": "ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default_reg_b32_reg_v2_b16.ptx:19:41: error: expected ',' or ';' after a declared name, found directive or modifier '.default'",
	"ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default_relaxed.ptx":            "ZLUDA/ptx/src/pass/test/insert_implicit_conversions/default_relaxed.ptx:29:5: error: unexpected directive '.generic' inside a function body",
	"ZLUDA/ptx/src/pass/test/instruction_mode_to_global_mode/mode_conflict.ptx":          "ZLUDA/ptx/src/pass/test/instruction_mode_to_global_mode/mode_conflict.ptx:36:91: error: expected ';' after .pragma, found '('",
	"ZLUDA/ptx/src/pass/test/normalize_basic_blocks/trap.ptx":                            "ZLUDA/ptx/src/pass/test/normalize_basic_blocks/trap.ptx:21:5: error: expected an instruction, declaration or label, found '<'",
	"ZLUDA/ptx/src/test/spirv_fail/const_ptr.ptx":                                        "ZLUDA/ptx/src/test/spirv_fail/const_ptr.ptx:5:13: error: array foobar has no size: only .extern arrays and arrays with an initializer may omit it",
	"ZLUDA/ptx/src/test/spirv_fail/global_ptr.ptx":                                       "ZLUDA/ptx/src/test/spirv_fail/global_ptr.ptx:5:14: error: array foobar has no size: only .extern arrays and arrays with an initializer may omit it",
	"ZLUDA/ptx/src/test/spirv_fail/param_entry_array_0.ptx":                              "ZLUDA/ptx/src/test/spirv_fail/param_entry_array_0.ptx:6:14: error: kernel parameter foobar is an array without a size",
	"ZLUDA/ptx/src/test/spirv_fail/param_vector.ptx":                                     "ZLUDA/ptx/src/test/spirv_fail/param_vector.ptx:6:14: error: vector modifier .v2 must come before the type .b32",
	"ZLUDA/ptx/src/test/spirv_fail/shared_ptr.ptx":                                       "ZLUDA/ptx/src/test/spirv_fail/shared_ptr.ptx:5:1: error: expected a directive at top level, found identifier 'extern'",
	"ZLUDA/ptx/src/test/spirv_fail/shared_ptr2.ptx":                                      "ZLUDA/ptx/src/test/spirv_fail/shared_ptr2.ptx:11:14: error: array foobar2 has no size: only .extern arrays and arrays with an initializer may omit it",
	"ZLUDA/ptx/src/test/operands.ptx":                                                    "ZLUDA/ptx/src/test/operands.ptx:36:20: error: operand 2 of mov.u32: a vector operand of mov needs 2 or 4 registers that together are 32 bits wide",
	"ZLUDA/ptx/src/test/spirv_run/noreturn.ptx":                                          "ZLUDA/ptx/src/test/spirv_run/noreturn.ptx:6:3: error: .noreturn applies only to .func functions",
	"gpuocelot/ocelot/src/executive/test/TestEmulator.ptx":                               "gpuocelot/ocelot/src/executive/test/TestEmulator.ptx:6:2: error: .address_size requires PTX ISA 2.3 or later, but the module declares .version 2.1",
	"gpuocelot/tests/ptx/optix/closest_hit_radiance_CPU_INPUT.ptx":                       "gpuocelot/tests/ptx/optix/closest_hit_radiance_CPU_INPUT.ptx:3:1: error: missing .target directive",
	"gpuocelot/tests/ptx/optix/closest_hit_radiance_CPU_INPUT_immediate.ptx":             "gpuocelot/tests/ptx/optix/closest_hit_radiance_CPU_INPUT_immediate.ptx:3:1: error: missing .target directive",
	"gpuocelot/tests/ptx/shifts/shifts.ptx":                                              "gpuocelot/tests/ptx/shifts/shifts.ptx:24:5: error: shf requires PTX ISA 3.1 or later, but the module declares .version 2.3",
	"gpuocelot/tests/ptx/synthetic/register-calling-convention.ptx":                      "gpuocelot/tests/ptx/synthetic/register-calling-convention.ptx:37:19: error: call target must be a function or a register, found prototype _Z_intrinsic_ldwseq_global_f64",
	"gpuocelot/tests/ptx/synthetic/texture.ptx":                                          "gpuocelot/tests/ptx/synthetic/texture.ptx:37:2: error: sust.3d requires PTX ISA 3.0 or later, but the module declares .version 2.1",
}

// corpusFiles returns every .ptx under shared/corpus/ZLUDA and
// shared/corpus/gpuocelot, relative to shared/corpus, sorted.
func corpusFiles(tb testing.TB) (root string, files []string) {
	root = filepath.Join(testenv.Shared(tb), "corpus")
	for _, sub := range []string{"ZLUDA", "gpuocelot"} {
		err := filepath.WalkDir(filepath.Join(root, sub), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".ptx") {
				rel, _ := filepath.Rel(root, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	sort.Strings(files)
	if len(files) < 300 {
		tb.Fatalf("found only %d corpus files under %s; the corpus is incomplete", len(files), root)
	}
	return root, files
}

// firstLine is the header line of the first diagnostic of err.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func TestCorpusParses(t *testing.T) {
	root, files := corpusFiles(t)
	seen := map[string]bool{}
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(rel, src)
			want, invalid := corpusInvalid[rel]
			seen[rel] = true
			switch {
			case !invalid && err != nil:
				t.Fatalf("valid corpus file rejected:\n%v", err)
			case invalid && err == nil:
				t.Fatalf("invalid corpus file accepted; want %q", want)
			case invalid && firstLine(err) != want:
				t.Fatalf("wrong diagnostic:\n got %q\nwant %q", firstLine(err), want)
			}
		})
	}
	for rel := range corpusInvalid {
		if !seen[rel] {
			t.Errorf("corpusInvalid lists %s, which is not in the corpus", rel)
		}
	}
}

// roundTrip prints m, parses the printout and prints again; the two
// printouts must be equal.
func roundTrip(t *testing.T, name string, m *Module) {
	t.Helper()
	out1 := Print(m)
	m2, err := Parse(name+" (printed)", []byte(out1))
	if err != nil {
		t.Fatalf("printed module does not parse:\n%v", err)
	}
	out2 := Print(m2)
	if out1 != out2 {
		a, b := strings.Split(out1, "\n"), strings.Split(out2, "\n")
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				t.Fatalf("print is not a fixed point at line %d:\nfirst:  %q\nsecond: %q", i+1, a[i], b[i])
			}
		}
		t.Fatalf("print is not a fixed point: %d lines vs %d", len(a), len(b))
	}
}

func TestCorpusRoundTrip(t *testing.T) {
	root, files := corpusFiles(t)
	for _, rel := range files {
		if _, invalid := corpusInvalid[rel]; invalid {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(rel, src)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, rel, m)
		})
	}
}
