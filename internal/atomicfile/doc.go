// Package atomicfile writes output files so that a reader never sees a
// partial file and a failed write never destroys what was there before:
// the data goes to a temporary file in the same directory, which is synced
// and then renamed over the destination.
package atomicfile
