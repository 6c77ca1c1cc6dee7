// Package gpu runs a kernel spec on an NVIDIA GPU three ways and compares
// them: orilab's simulator on orilab's final IR, orilab's cubin loaded
// through the CUDA driver, and the same PTX compiled by the driver's own
// JIT (NVIDIA's ptxas inside libcuda). It is the code behind
// `orilab gpu run SPEC.json`.
//
// The parameters reach the GPU as one packed buffer (internal/cuda):
// each argument at the offset the cubin's EIATTR_KPARAM_INFO gives it
// (KParamLayout reads the ELF), the JIT's module at the offsets of the
// kernel's own parameter list (the PTX ABI's natural alignment, which is
// also what orilab's KPARAM_INFO holds; a test checks that they agree).
// Buffers are allocated with their initial contents; a same_as parameter
// shares its owner's allocation, as in the simulator.
//
// Known limits: only 64-bit-address modules run (a device pointer is 64
// bits); the target is the device's compute capability, so a GPU orilab
// has no encoding for (sm_100 and later) is an error. Not run on
// hardware yet: no GPU was lent to the session that wrote it.
package gpu
