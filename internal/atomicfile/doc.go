// Package atomicfile is the one way orilab writes an output file: SASS,
// DUMPIR text, traces, reduced cases, findings and JSON reports all go
// through Write, or WriteUnsynced for compiler output (the same rules
// without the fsyncs that make a regular file's new contents survive a
// system crash: ptxas does not sync its output either).
//
// What Write does depends on what the path names, because the atomic
// write that is right for a regular file (a temporary file in the same
// directory, synced, then renamed over the destination) destroys anything
// else it is renamed over: `-o /dev/null` run as root would replace the
// device with a regular file, a FIFO's reader would never see the output,
// and a symbolic link would be replaced instead of its target written.
//
//   - "-" is standard output.
//   - A regular file or a path that does not exist yet is written
//     atomically: a reader never sees a partial file, a failed write leaves
//     the old contents, and the replaced file's permission bits are kept.
//   - A symbolic link is followed (a chain of them too, and a link to a
//     file that does not exist yet), and its target is written by these
//     same rules; the link stays.
//   - A character or block device or a FIFO is opened and written in
//     place; a Unix socket is connected to and written.
//   - A directory is an error.
package atomicfile
