// Package keep holds a pass's working memory between its calls, across
// garbage collections.
//
// A sync.Pool is emptied at every other collection, and a compilation
// collects many times between two runs of one pass, so a pass whose dense
// tables sat in a sync.Pool found them gone most of the time: tables
// allocated again, zeroed, and faulted in page by page. A Pool keeps what
// it is given until it holds MaxIdle values; a process compiles one
// module, so what stays allocated is bounded by the largest functions'
// tables, and a caller can decline to keep a value that grew too large.
package keep
