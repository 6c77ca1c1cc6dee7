// Package testenv locates the repository and the ../shared directory that
// CI places beside the checkout, for tests that read the corpus, the seeds
// or the ISA pages.
package testenv
