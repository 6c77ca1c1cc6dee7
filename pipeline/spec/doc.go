// Package spec reads kernel specs: the JSON files that say how a PTX kernel
// is launched and how its output buffers are checked (the contract is
// ../shared/KERNEL-SPEC.md beside the repository).
//
// It owns the spec format and everything derived from it without running a
// kernel: the strict reader (Load, Parse), the initial contents of buffers
// (Param.InitBytes, including the lcg:SEED fill) and scalar parameters
// (Param.ScalarBytes), element types and their bit-exact float conversions
// (f16 and bf16 rounding is implemented here, to nearest even), and the
// comparison of a buffer with its expectation (Expect.Check, Spec.Check,
// FormatResults). It imports nothing else of orilab's.
//
// The reader is strict: unknown or duplicate fields, wrong JSON types,
// missing required fields, unknown names, out-of-range numbers, missing
// files and inconsistent combinations are errors. Each is an *Error that
// names the spec file and the field path:
//
//	vecadd.json: params[2].init: unknown init "lcg" (want zero, index, const:V, lcg:SEED, init_hex_le or same_as)
//	vecadd.json:8:63: params[1].count: want an integer, got string "512"
//	vecadd.json:11:3: malformed JSON: invalid character ']' looking for beginning of value
//
// Errors in the JSON text itself (malformed JSON, a value of the wrong JSON
// type, an unknown or duplicate field) carry the line and column; errors in
// a well-formed value carry the path only. TestDocumentedErrors pins these
// three.
//
// Decisions the contract leaves open, fixed here:
//   - "name" is optional (default: the file name without extension); "ptx"
//     and "kernel" are required; "params" is optional (no parameters);
//     "launch" is required unless the spec is compile-only.
//   - Grid and block dimensions must be within CUDA's launch limits (grid
//     x < 2^31, y and z <= 65535; block x, y <= 1024, z <= 64, at most
//     1024 threads). One buffer holds at most 1 GiB.
//   - A buffer has exactly one of init, init_hex_le, same_as. A same_as
//     buffer names an earlier buffer and has no elem or count of its own.
//   - A scalar's value is always a JSON string ("512", "0x200", "1.5").
//     Integer values: decimal (negative only for signed types) or 0x bits;
//     float values: a decimal literal, rounded once to nearest even (a
//     literal that rounds beyond the largest finite value is an error), or
//     0x bits. "inf" and "nan" are written as bits.
//   - "index" truncates i to the width of integer elements; float elements
//     hold i rounded to nearest even (f16 reaches +Inf at 65520).
//   - "lcg:SEED": SEED is decimal or 0x hex below 2^32. Element i takes
//     x_{i+1}; 64-bit integers take x zero-extended; f16 and bf16 round
//     (x>>8)/2^24 to nearest even, so an element may be 1.0.
//   - An expectation's elem and count default to the buffer's element type
//     and to as many elements as fit in its allocation; count may be less
//     (a prefix is compared) and elem may differ from the buffer's (the
//     bytes are reinterpreted). values_hex must have exactly count entries.
//   - Bit patterns are hex strings with an optional 0x prefix whose value
//     fits the element width. values_hex_file holds one per line; blank
//     lines and lines starting with # are skipped.
//   - "compile_only": true stands alone: no other field in its object and
//     no other expectation. compile_only false is the same as leaving it
//     out.
//   - Tolerances apply to float elements only and are either rel and/or abs
//     (non-negative, finite) or ulp (a non-negative integer), not both.
//     NaN matches any NaN only under a tolerance; the default comparison is
//     bit-exact. See Expect.Check for the exact rules.
//   - ignore_indices entries must be in [0, count) and distinct.
//   - Textures (texture.go; the README documents the fields) extend the
//     format: an optional top-level "textures" list and parameters of kind
//     "texture". A spec without them reads as before. The reader applies
//     CUDA's rules for texture descriptors: linear filtering only for
//     float results, normalized_float only for 8- and 16-bit integer
//     channels, wrap and mirror only with normalized coordinates, no
//     layered 3D textures; a buffer-backed texture must fit its buffer.
package spec
