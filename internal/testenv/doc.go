// Package testenv locates the repository and the ../shared directory that
// CI places beside the checkout, for tests that read the corpus, the seeds
// or the ISA pages, and finds clang-19 for the tests that compile CUDA.
package testenv
