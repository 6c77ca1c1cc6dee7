// Package nvtools finds NVIDIA's command-line tools (ptxas, nvdisasm,
// cuobjdump) for the tests and commands that measure orilab against them.
//
// The tools come from NVIDIA's PyPI wheels (nvidia-cuda-nvcc==13.0.88,
// nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump) and are never committed.
// `.ci/run` downloads and unpacks them into DefaultDir; a developer can do
// the same, put the tools on PATH, or point ORILAB_NVTOOLS at a directory
// holding them (either the unpacked wheels' root or their bin directory).
// ORILAB_PTXAS, ORILAB_NVDISASM and ORILAB_CUOBJDUMP name one tool each.
//
// Require is the test helper: it skips with a printed reason when a tool
// is missing, except in CI (CI=true or ORILAB_REQUIRE_NVTOOLS set), where a
// missing tool fails the test, so a green CI run always means the
// comparison ran.
package nvtools
