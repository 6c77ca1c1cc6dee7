package spec

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// doc builds a spec from a base with one or more fields replaced: top is
// spliced into the top-level object; params and expect replace the lists
// when non-empty.
func doc(top, params, expect string) string {
	if params == "" {
		params = `[{"name":"a","kind":"buffer","elem":"u32","count":4,"init":"zero"},` +
			`{"name":"n","kind":"scalar","type":"u32","value":"4"}]`
	}
	s := `{"ptx":"vecadd.ptx","kernel":"vecadd","launch":{"grid":[1],"block":[4]},"params":` + params
	if expect != "" {
		s += `,"expect":` + expect
	}
	if top != "" {
		s += "," + top
	}
	return s + "}"
}

func buf(fields string) string {
	return `[{"name":"a","kind":"buffer",` + fields + `},{"name":"n","kind":"scalar","type":"u32","value":"4"}]`
}

func scalar(fields string) string {
	return `[{"name":"a","kind":"buffer","elem":"u32","count":4,"init":"zero"},{"name":"n","kind":"scalar",` + fields + `}]`
}

func TestParseErrors(t *testing.T) {
	const okBuf = `"elem":"u32","count":4,"init":"zero"`
	tests := []struct {
		name, src, want string
	}{
		// The JSON text.
		{"syntax", `{"ptx": "vecadd.ptx",}`, `t.json:1:22: malformed JSON: invalid character '}' looking for beginning of object key string`},
		{"syntax line 2", "{\n  \"ptx\" \"x\"}", `t.json:2:9: malformed JSON: invalid character '"' after object key`},
		{"truncated", `{"ptx": "vecadd.ptx"`, `t.json:1:21: malformed JSON: unexpected end of JSON input`},
		{"empty", ``, `t.json:1:1: malformed JSON: unexpected end of JSON input`},
		{"trailing", `{} {}`, `t.json:1:4: malformed JSON: invalid character '{' after top-level value`},
		{"not object", `[]`, `t.json:1:1: want an object, got a list`},
		{"unknown field", `{"ptx":"vecadd.ptx","kernal":"x"}`, `t.json:1:21: unknown field "kernal" (want name, ptx, kernel, launch, params, expect, textures)`},
		{"duplicate field", `{"ptx":"vecadd.ptx","ptx":"x"}`, `t.json:1:21: duplicate field "ptx"`},
		{"too deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), `t.json:1:66: malformed JSON: nesting too deep`},

		// Top level.
		{"missing ptx", `{"kernel":"k"}`, `t.json: missing required field "ptx"`},
		{"ptx type", `{"ptx":5}`, `t.json:1:8: ptx: want a string, got number 5`},
		{"ptx empty", `{"ptx":""}`, `t.json: ptx: must not be empty`},
		{"ptx missing file", `{"ptx":"nope.ptx"}`, `t.json: ptx: testdata/nope.ptx: no such file`},
		{"ptx directory", `{"ptx":"."}`, `t.json: ptx: testdata: is a directory`},
		{"missing kernel", `{"ptx":"vecadd.ptx"}`, `t.json: missing required field "kernel"`},
		{"name empty", doc(`"name":""`, "", ""), `t.json: name: must not be empty`},
		{"name type", doc(`"name":["x"]`, "", ""), `t.json:1:211: name: want a string, got a list`},
		{"missing launch", `{"ptx":"vecadd.ptx","kernel":"k"}`, `t.json: missing required field "launch" (only a compile_only spec may omit it)`},

		// Launch.
		{"launch type", `{"ptx":"vecadd.ptx","kernel":"k","launch":[1]}`, `t.json:1:43: launch: want an object, got a list`},
		{"launch unknown", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1],"blocks":[1]}}`, `t.json:1:67: launch: unknown field "blocks" (want grid, block, dynamic_shared_bytes)`},
		{"grid missing", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"block":[1]}}`, `t.json: launch: missing required field "grid"`},
		{"block missing", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1]}}`, `t.json: launch: missing required field "block"`},
		{"grid not list", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":4,"block":[1]}}`, `t.json:1:51: launch.grid: want a list of 1 to 3 integers, got number 4`},
		{"grid empty", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[],"block":[1]}}`, `t.json: launch.grid: want 1 to 3 integers, got 0`},
		{"grid four", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1,1,1,1],"block":[1]}}`, `t.json: launch.grid: want 1 to 3 integers, got 4`},
		{"block zero", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[0]}}`, `t.json: launch.block[0]: must be positive, got 0`},
		{"block negative", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1,-2]}}`, `t.json: launch.block[1]: must be positive, got -2`},
		{"block fraction", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1.5]}}`, `t.json:1:64: launch.block[0]: want an integer, got number 1.5`},
		{"block string", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":["1"]}}`, `t.json:1:64: launch.block[0]: want an integer, got string "1"`},
		{"block x limit", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[2048]}}`, `t.json: launch.block[0]: 2048 exceeds the limit 1024`},
		{"block z limit", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1,1,65]}}`, `t.json: launch.block[2]: 65 exceeds the limit 64`},
		{"block threads", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[32,32,2]}}`, `t.json: launch.block: 2048 threads in a block exceed 1024`},
		{"grid y limit", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1,70000],"block":[1]}}`, `t.json: launch.grid[1]: 70000 exceeds the limit 65535`},
		{"grid huge", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[99999999999],"block":[1]}}`, `t.json: launch.grid[0]: 99999999999 is out of range`},
		{"grid exponent", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1e3],"block":[1]}}`, `t.json:1:52: launch.grid[0]: want an integer, got number 1e3`},
		{"shared negative", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1],"dynamic_shared_bytes":-1}}`, `t.json: launch.dynamic_shared_bytes: must not be negative, got -1`},
		{"shared string", `{"ptx":"vecadd.ptx","kernel":"k","launch":{"grid":[1],"block":[1],"dynamic_shared_bytes":"0"}}`, `t.json:1:90: launch.dynamic_shared_bytes: want an integer, got string "0"`},

		// Params.
		{"params type", doc("", `{}`, ""), `t.json:1:82: params: want a list, got an object`},
		{"param type", doc("", `[5]`, ""), `t.json:1:83: params[0]: want an object, got number 5`},
		{"param unknown", doc("", `[{"name":"a","kind":"buffer","size":4}]`, ""), `t.json:1:111: params[0]: unknown field "size" (want name, kind, elem, count, init, init_hex_le, same_as, type, value, texture)`},
		{"param no name", doc("", `[{"kind":"buffer"}]`, ""), `t.json: params[0]: missing required field "name"`},
		{"param empty name", doc("", `[{"name":""}]`, ""), `t.json: params[0].name: must not be empty`},
		{"param dup name", doc("", buf(okBuf)[:len(buf(okBuf))-1]+`,{"name":"a","kind":"scalar","type":"u8","value":"1"}]`, ""), `t.json: params[2].name: duplicate name "a" (also params[0])`},
		{"param no kind", doc("", `[{"name":"a"}]`, ""), `t.json: params[0]: missing required field "kind"`},
		{"param bad kind", doc("", `[{"name":"a","kind":"buf"}]`, ""), `t.json: params[0].kind: unknown kind "buf" (want buffer, scalar or texture)`},
		{"param kind type", doc("", `[{"name":"a","kind":1}]`, ""), `t.json:1:102: params[0].kind: want a string, got number 1`},

		// Buffers.
		{"buffer type", doc("", buf(okBuf+`,"type":"u32"`), ""), `t.json: params[0].type: not allowed for a buffer (use elem)`},
		{"buffer value", doc("", buf(okBuf+`,"value":"1"`), ""), `t.json: params[0].value: not allowed for a buffer (use init)`},
		{"buffer no init", doc("", buf(`"elem":"u32","count":4`), ""), `t.json: params[0]: missing init (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)`},
		{"buffer two inits", doc("", buf(`"elem":"u32","count":4,"init":"zero","init_hex_le":"00"`), ""), `t.json: params[0]: init and init_hex_le are exclusive (want exactly one of init, init_hex_le, same_as)`},
		{"buffer no elem", doc("", buf(`"count":4,"init":"zero"`), ""), `t.json: params[0]: missing required field "elem"`},
		{"buffer bad elem", doc("", buf(`"elem":"float","count":4,"init":"zero"`), ""), `t.json: params[0].elem: unknown element type "float" (want one of u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64)`},
		{"buffer no count", doc("", buf(`"elem":"u32","init":"zero"`), ""), `t.json: params[0]: missing required field "count"`},
		{"buffer count zero", doc("", buf(`"elem":"u32","count":0,"init":"zero"`), ""), `t.json: params[0].count: must be positive, got 0`},
		{"buffer count negative", doc("", buf(`"elem":"u32","count":-4,"init":"zero"`), ""), `t.json: params[0].count: must be positive, got -4`},
		{"buffer count string", doc("", buf(`"elem":"u32","count":"4","init":"zero"`), ""), `t.json:1:132: params[0].count: want an integer, got string "4"`},
		{"buffer too big", doc("", buf(`"elem":"f64","count":200000000,"init":"zero"`), ""), `t.json: params[0].count: 200000000 f64 elements exceed the buffer limit of 1073741824 bytes`},
		{"init lcg no seed", doc("", buf(`"elem":"u32","count":4,"init":"lcg"`), ""), `t.json: params[0].init: unknown init "lcg" (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)`},
		{"init unknown", doc("", buf(`"elem":"u32","count":4,"init":"random"`), ""), `t.json: params[0].init: unknown init "random" (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)`},
		{"init type", doc("", buf(`"elem":"u32","count":4,"init":0`), ""), `t.json:1:141: params[0].init: want a string, got number 0`},
		{"lcg bad seed", doc("", buf(`"elem":"u32","count":4,"init":"lcg:x"`), ""), `t.json: params[0].init: lcg seed "x" is not a decimal or 0x hex number below 2^32`},
		{"lcg big seed", doc("", buf(`"elem":"u32","count":4,"init":"lcg:4294967296"`), ""), `t.json: params[0].init: lcg seed "4294967296" is not a decimal or 0x hex number below 2^32`},
		{"lcg negative seed", doc("", buf(`"elem":"u32","count":4,"init":"lcg:-1"`), ""), `t.json: params[0].init: lcg seed "-1" is not a decimal or 0x hex number below 2^32`},
		{"const bad float", doc("", buf(`"elem":"f32","count":4,"init":"const:abc"`), ""), `t.json: params[0].init: "abc" is not a valid f32 (want a decimal literal or 0x bits)`},
		{"const inf", doc("", buf(`"elem":"f32","count":4,"init":"const:inf"`), ""), `t.json: params[0].init: "inf" is not a valid f32 (want a decimal literal or 0x bits)`},
		{"const bad int", doc("", buf(`"elem":"u32","count":4,"init":"const:1.5"`), ""), `t.json: params[0].init: "1.5" is not a valid u32 (want a decimal or 0x hex number)`},
		{"const u8 range", doc("", buf(`"elem":"u8","count":4,"init":"const:300"`), ""), `t.json: params[0].init: 300 is out of range for u8 (0 to 255)`},
		{"const u32 negative", doc("", buf(`"elem":"u32","count":4,"init":"const:-1"`), ""), `t.json: params[0].init: -1 is out of range for u32 (0 to 4294967295)`},
		{"const s8 range", doc("", buf(`"elem":"s8","count":4,"init":"const:-129"`), ""), `t.json: params[0].init: -129 is out of range for s8 (-128 to 127)`},
		{"const f32 overflow", doc("", buf(`"elem":"f32","count":4,"init":"const:1e40"`), ""), `t.json: params[0].init: 1e40 overflows f32`},
		{"const f16 overflow", doc("", buf(`"elem":"f16","count":4,"init":"const:65520"`), ""), `t.json: params[0].init: 65520 overflows f16`},
		{"const bits width", doc("", buf(`"elem":"u8","count":4,"init":"const:0x1ff"`), ""), `t.json: params[0].init: 0x1ff does not fit in u8 (8 bits)`},
		{"const empty hex", doc("", buf(`"elem":"u8","count":4,"init":"const:0x"`), ""), `t.json: params[0].init: "0x" is not a hex bit pattern`},
		{"hex odd", doc("", buf(`"elem":"u32","count":1,"init_hex_le":"000"`), ""), `t.json: params[0].init_hex_le: odd number of hex digits (3)`},
		{"hex digit", doc("", buf(`"elem":"u32","count":1,"init_hex_le":"00g0"`), ""), `t.json: params[0].init_hex_le: invalid hex digit 'g' at offset 2`},
		{"hex long", doc("", buf(`"elem":"u32","count":1,"init_hex_le":"0000000000"`), ""), `t.json: params[0].init_hex_le: 5 bytes exceed the buffer (1 u32 elements, 4 bytes)`},
		{"hex prefix", doc("", buf(`"elem":"u32","count":1,"init_hex_le":"0x00"`), ""), `t.json: params[0].init_hex_le: invalid hex digit 'x' at offset 1`},
		{"same_as unknown", doc("", `[{"name":"a","kind":"buffer","same_as":"b"}]`, ""), `t.json: params[0].same_as: "b" does not name an earlier parameter`},
		{"same_as forward", doc("", `[{"name":"a","kind":"buffer","same_as":"b"},{"name":"b","kind":"buffer",`+okBuf+`}]`, ""), `t.json: params[0].same_as: "b" does not name an earlier parameter`},
		{"same_as self", doc("", `[{"name":"a","kind":"buffer","same_as":"a"}]`, ""), `t.json: params[0].same_as: "a" does not name an earlier parameter`},
		{"same_as scalar", doc("", `[{"name":"n","kind":"scalar","type":"u32","value":"1"},{"name":"a","kind":"buffer","same_as":"n"}]`, ""), `t.json: params[1].same_as: "n" is a scalar, not a buffer`},
		{"same_as elem", doc("", `[{"name":"a","kind":"buffer",`+okBuf+`},{"name":"b","kind":"buffer","same_as":"a","elem":"u32"}]`, ""), `t.json: params[1].elem: not allowed with same_as (the buffer is "a"'s)`},
		{"same_as count", doc("", `[{"name":"a","kind":"buffer",`+okBuf+`},{"name":"b","kind":"buffer","same_as":"a","count":4}]`, ""), `t.json: params[1].count: not allowed with same_as (the buffer is "a"'s)`},
		{"same_as and init", doc("", `[{"name":"a","kind":"buffer",`+okBuf+`},{"name":"b","kind":"buffer","same_as":"a","init":"zero"}]`, ""), `t.json: params[1]: init and same_as are exclusive (want exactly one of init, init_hex_le, same_as)`},

		// Scalars.
		{"scalar elem", doc("", scalar(`"type":"u32","value":"1","elem":"u32"`), ""), `t.json: params[1].elem: not allowed for a scalar (use type)`},
		{"scalar count", doc("", scalar(`"type":"u32","value":"1","count":1`), ""), `t.json: params[1].count: not allowed for a scalar`},
		{"scalar init", doc("", scalar(`"type":"u32","value":"1","init":"zero"`), ""), `t.json: params[1].init: not allowed for a scalar (use value)`},
		{"scalar init_hex_le", doc("", scalar(`"type":"u32","value":"1","init_hex_le":"00"`), ""), `t.json: params[1].init_hex_le: not allowed for a scalar (use value)`},
		{"scalar same_as", doc("", scalar(`"type":"u32","value":"1","same_as":"a"`), ""), `t.json: params[1].same_as: not allowed for a scalar`},
		{"scalar no type", doc("", scalar(`"value":"1"`), ""), `t.json: params[1]: missing required field "type"`},
		{"scalar no value", doc("", scalar(`"type":"u32"`), ""), `t.json: params[1]: missing required field "value"`},
		{"scalar bad type", doc("", scalar(`"type":"int","value":"1"`), ""), `t.json: params[1].type: unknown element type "int" (want one of u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64)`},
		{"scalar value number", doc("", scalar(`"type":"u32","value":512`), ""), `t.json:1:198: params[1].value: want a string, got number 512`},
		{"scalar value bad", doc("", scalar(`"type":"u32","value":"abc"`), ""), `t.json: params[1].value: "abc" is not a valid u32 (want a decimal or 0x hex number)`},
		{"scalar value range", doc("", scalar(`"type":"s8","value":"-129"`), ""), `t.json: params[1].value: -129 is out of range for s8 (-128 to 127)`},
		{"scalar value s64 range", doc("", scalar(`"type":"s64","value":"9223372036854775808"`), ""), `t.json: params[1].value: 9223372036854775808 is out of range for s64 (-9223372036854775808 to 9223372036854775807)`},
		{"scalar value hex width", doc("", scalar(`"type":"u16","value":"0x10000"`), ""), `t.json: params[1].value: 0x10000 does not fit in u16 (16 bits)`},
		{"scalar float bad", doc("", scalar(`"type":"f64","value":"1.5f"`), ""), `t.json: params[1].value: "1.5f" is not a valid f64 (want a decimal literal or 0x bits)`},
		{"scalar float overflow", doc("", scalar(`"type":"f64","value":"1e309"`), ""), `t.json: params[1].value: 1e309 overflows f64`},
		{"scalar bf16 overflow", doc("", scalar(`"type":"bf16","value":"-3.4e39"`), ""), `t.json: params[1].value: -3.4e39 overflows bf16`},

		// Expectations.
		{"expect type", doc("", "", `"c"`), `t.json:1:213: expect: want an object or a list of objects, got string "c"`},
		{"expect entry type", doc("", "", `[1]`), `t.json:1:214: expect[0]: want an object, got number 1`},
		{"expect unknown", doc("", "", `{"param":"a","all_equal":"0","values":[]}`), `t.json:1:242: expect: unknown field "values" (want param, elem, count, values_hex, values_hex_file, all_equal, tolerance, ignore_indices, compile_only)`},
		{"expect no values", doc("", "", `{"param":"a"}`), `t.json: expect: missing expected values (want exactly one of values_hex, values_hex_file, all_equal, compile_only)`},
		{"expect two values", doc("", "", `[{"param":"a","values_hex":["0","0","0","0"],"all_equal":"0"}]`), `t.json: expect[0]: values_hex and all_equal are exclusive (want exactly one of values_hex, values_hex_file, all_equal, compile_only)`},
		{"expect values and compile_only", doc("", "", `{"all_equal":"0","compile_only":true}`), `t.json: expect: all_equal and compile_only are exclusive (want exactly one of values_hex, values_hex_file, all_equal, compile_only)`},
		{"expect compile_only false", doc("", "", `{"param":"a","compile_only":false}`), `t.json: expect: missing expected values (want exactly one of values_hex, values_hex_file, all_equal, compile_only)`},
		{"compile_only type", doc("", "", `{"compile_only":"yes"}`), `t.json:1:229: expect.compile_only: want true or false, got string "yes"`},
		{"compile_only param", doc("", "", `{"compile_only":true,"param":"a"}`), `t.json: expect.param: not allowed with compile_only`},
		{"compile_only first", doc("", "", `[{"compile_only":true},{"param":"a","all_equal":"0"}]`), `t.json: expect[1]: compile_only must be the only expectation`},
		{"compile_only second", doc("", "", `[{"param":"a","all_equal":"0"},{"compile_only":true}]`), `t.json: expect[1]: compile_only must be the only expectation`},
		{"expect no param", doc("", "", `{"all_equal":"0"}`), `t.json: expect: missing required field "param"`},
		{"expect unknown param", doc("", "", `{"param":"c","all_equal":"0"}`), `t.json: expect.param: unknown parameter "c"`},
		{"expect param index", doc("", "", `{"param":2,"all_equal":"0"}`), `t.json: expect.param: index 2 out of range (2 parameters)`},
		{"expect param negative", doc("", "", `{"param":-1,"all_equal":"0"}`), `t.json: expect.param: index -1 out of range (2 parameters)`},
		{"expect param scalar", doc("", "", `{"param":"n","all_equal":"0"}`), `t.json: expect.param: "n" is a scalar, not a buffer`},
		{"expect param scalar index", doc("", "", `{"param":1,"all_equal":"0"}`), `t.json: expect.param: "n" is a scalar, not a buffer`},
		{"expect param bool", doc("", "", `{"param":true,"all_equal":"0"}`), `t.json:1:222: expect.param: want a parameter name or index, got true`},
		{"expect bad elem", doc("", "", `{"param":"a","elem":"i32","all_equal":"0"}`), `t.json: expect.elem: unknown element type "i32" (want one of u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64)`},
		{"expect count zero", doc("", "", `{"param":"a","count":0,"all_equal":"0"}`), `t.json: expect.count: must be positive, got 0`},
		{"expect count big", doc("", "", `{"param":"a","count":5,"all_equal":"0"}`), `t.json: expect.count: 5 u32 elements (20 bytes) exceed buffer "a" (4 u32 elements, 16 bytes)`},
		{"expect count big elem", doc("", "", `{"param":"a","elem":"f64","count":3,"all_equal":"0"}`), `t.json: expect.count: 3 f64 elements (24 bytes) exceed buffer "a" (4 u32 elements, 16 bytes)`},
		{"expect elem no count", doc("", buf(`"elem":"u8","count":6,"init":"zero"`), `{"param":"a","elem":"u32","all_equal":"0"}`), `t.json: expect.elem: buffer "a" (6 bytes) is not a whole number of u32 elements; give count`},
		{"values_hex type", doc("", "", `{"param":"a","values_hex":"0"}`), `t.json:1:239: expect.values_hex: want a list of bit patterns, got string "0"`},
		{"values_hex number", doc("", "", `{"param":"a","values_hex":[0,0,0,0]}`), `t.json:1:240: expect.values_hex[0]: want a bit pattern string such as "0x3f800000", got number 0`},
		{"values_hex bad", doc("", "", `{"param":"a","values_hex":["0","1","zz","3"]}`), `t.json: expect.values_hex[2]: "zz" is not a hex bit pattern`},
		{"values_hex negative", doc("", "", `{"param":"a","values_hex":["0","1","-1","3"]}`), `t.json: expect.values_hex[2]: "-1" is not a hex bit pattern`},
		{"values_hex width", doc("", "", `{"param":"a","values_hex":["0","1","0x100000000","3"]}`), `t.json: expect.values_hex[2]: 0x100000000 does not fit in u32 (32 bits)`},
		{"values_hex too long", doc("", "", `{"param":"a","values_hex":["0","1","0x10000000000000000","3"]}`), `t.json: expect.values_hex[2]: "0x10000000000000000" is not a hex bit pattern`},
		{"values_hex few", doc("", "", `{"param":"a","values_hex":["0","1","2"]}`), `t.json: expect.values_hex: 3 values, want 4 (count)`},
		{"values_hex count", doc("", "", `{"param":"a","count":2,"values_hex":["0","1","2"]}`), `t.json: expect.values_hex: 3 values, want 2 (count)`},
		{"values_hex_file missing", doc("", "", `{"param":"a","values_hex_file":"nope.hex"}`), `t.json: expect.values_hex_file: testdata/nope.hex: no such file`},
		{"values_hex_file type", doc("", "", `{"param":"a","values_hex_file":["x"]}`), `t.json:1:244: expect.values_hex_file: want a string, got a list`},
		{"values_hex_file line", doc("", "", `{"param":"a","values_hex_file":"bad_line.hex"}`), `t.json: expect.values_hex_file: bad_line.hex:4: "zz" is not a hex bit pattern`},
		{"values_hex_file few", doc("", "", `{"param":"a","values_hex_file":"two.hex"}`), `t.json: expect.values_hex_file: two.hex has 2 values, want 4 (count)`},
		{"values_hex_file many", doc("", "", `{"param":"a","values_hex_file":"five.hex"}`), `t.json: expect.values_hex_file: five.hex has more than 4 values (count)`},
		{"values_hex_file width", doc("", "", `{"param":"a","elem":"u8","count":2,"values_hex_file":"five.hex"}`), `t.json: expect.values_hex_file: five.hex has more than 2 values (count)`},
		{"all_equal type", doc("", "", `{"param":"a","all_equal":1}`), `t.json:1:238: expect.all_equal: want a bit pattern string such as "0x3f800000", got number 1`},
		{"all_equal width", doc("", "", `{"param":"a","elem":"u16","all_equal":"0x10000"}`), `t.json: expect.all_equal: 0x10000 does not fit in u16 (16 bits)`},
		{"tolerance int", doc("", "", `{"param":"a","all_equal":"0","tolerance":{"abs":1}}`), `t.json: expect.tolerance: only for float elements, elem is u32`},
		{"tolerance type", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":1}`), `t.json:1:267: expect.tolerance: want an object, got number 1`},
		{"tolerance unknown", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{"rtol":1}}`), `t.json:1:268: expect.tolerance: unknown field "rtol" (want rel, abs, ulp)`},
		{"tolerance empty", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{}}`), `t.json: expect.tolerance: empty (want rel and/or abs, or ulp)`},
		{"tolerance mixed", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{"ulp":1,"rel":0}}`), `t.json: expect.tolerance: ulp excludes rel and abs`},
		{"tolerance rel negative", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{"rel":-1e-6}}`), `t.json: expect.tolerance.rel: must be a finite non-negative number, got -1e-6`},
		{"tolerance abs huge", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{"abs":1e999}}`), `t.json: expect.tolerance.abs: must be a finite non-negative number, got 1e999`},
		{"tolerance rel string", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{"rel":"1e-6"}}`), `t.json:1:274: expect.tolerance.rel: want a number, got string "1e-6"`},
		{"tolerance ulp fraction", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{"ulp":1.5}}`), `t.json:1:274: expect.tolerance.ulp: want an integer, got number 1.5`},
		{"tolerance ulp negative", doc("", "", `{"param":"a","elem":"f32","all_equal":"0","tolerance":{"ulp":-1}}`), `t.json: expect.tolerance.ulp: must not be negative, got -1`},
		{"ignore type", doc("", "", `{"param":"a","all_equal":"0","ignore_indices":1}`), `t.json:1:259: expect.ignore_indices: want a list of element indices, got number 1`},
		{"ignore range", doc("", "", `{"param":"a","all_equal":"0","ignore_indices":[0,4]}`), `t.json: expect.ignore_indices[1]: index 4 out of range (count 4)`},
		{"ignore negative", doc("", "", `{"param":"a","all_equal":"0","ignore_indices":[-1]}`), `t.json: expect.ignore_indices[0]: index -1 out of range (count 4)`},
		{"ignore duplicate", doc("", "", `{"param":"a","all_equal":"0","ignore_indices":[1,2,1]}`), `t.json: expect.ignore_indices[2]: duplicate index 1`},
		{"ignore string", doc("", "", `{"param":"a","all_equal":"0","ignore_indices":["1"]}`), `t.json:1:260: expect.ignore_indices[0]: want an integer, got string "1"`},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate test name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("t.json", []byte(tt.src), "testdata")
			if err == nil {
				t.Fatalf("no error; got spec %+v", s)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got  %s\n want %s\nsource %s", err, tt.want, tt.src)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("testdata/does-not-exist.json"); err == nil || !strings.Contains(err.Error(), "does-not-exist.json") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

// TestDocumentedErrors pins the messages quoted in doc.go and the brief,
// made from testdata/vecadd.json with one edit each.
func TestDocumentedErrors(t *testing.T) {
	orig, err := os.ReadFile("testdata/vecadd.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ old, new, want string }{
		{`"init": "zero"`, `"init": "lcg"`,
			`vecadd.json: params[2].init: unknown init "lcg" (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)`},
		{`"count": 512, "init": "index"`, `"count": "512", "init": "index"`,
			`vecadd.json:8:63: params[1].count: want an integer, got string "512"`},
		{`"value": "512"}`, `"value": "512"},`,
			`vecadd.json:11:3: malformed JSON: invalid character ']' looking for beginning of value`},
	} {
		src := strings.Replace(string(orig), tt.old, tt.new, 1)
		if src == string(orig) {
			t.Fatalf("%q not in vecadd.json", tt.old)
		}
		_, err := Parse("vecadd.json", []byte(src), "testdata")
		if err == nil || err.Error() != tt.want {
			t.Errorf("got  %v\nwant %s", err, tt.want)
		}
	}
}
