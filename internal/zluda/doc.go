// Package zluda turns the ZLUDA conformance expectations in the shared
// corpus (../shared/corpus/ZLUDA: expect/*.json, expect_index.json; format
// in ../shared/corpus/README.md) into kernel specs (package pipeline/spec)
// that the runner can execute and check.
//
// It owns the mapping from ZLUDA's run_cuda() harness to the spec format:
//
//   - kernel = test name, launch = the recorded launch (grid 1×1×1; block
//     1×1×1, or 64×1×1 for test_ptx_warp!; 1024 bytes of dynamic shared
//     memory);
//   - parameters = what the harness passes, cut to as many as the kernel
//     declares (counted with a simple scan of the .entry's parameter list):
//     (input, output) for test_ptx! and test_ptx_with_32!, (output, output)
//     for test_ptx_warp!, where the second is a same_as alias of the first;
//   - the input buffer holds input.bytes_hex_le; the output buffer is
//     output.count elements of output.type, zeroed, and must equal
//     output.bytes_hex_le bit for bit (a kernel listed in overrun, which
//     stores past the buffer's end as the GPU tolerates, gets a larger
//     buffer whose prefix is compared);
//   - Rust element types map to spec element types (i8→s8, i16→s16,
//     i32→s32, i64→s64; u8…u64, f16, bf16, f32, f64 keep their names).
//
// A test_ptx_with_32! test gives a second case for its .address_size 32
// copy under ptx/src/test/spirv_run/32/, named TEST/32. Tests that the index
// lists without recorded data become compile-only cases. A test that cannot
// be represented is returned with a Skip reason instead of failing Load.
package zluda
