// Package shard splits a campaign (the programs of a fuzz run, the trials
// of a fault campaign) into N deterministic parts that a cluster runs as N
// copies of the same command, with no coordinator: each copy learns its
// index from a flag or from the job engine's environment (Slurm job
// arrays, Kubernetes Indexed Jobs), does the items it owns, and writes its
// results into a shared directory; `orilab merge` combines them.
//
// Item i of a campaign belongs to shard i mod N. Interleaving, rather than
// N contiguous blocks, keeps the shards' loads even when the cost of the
// items drifts along the seed space, and a stopped shard (--time) still
// leaves a sample of the whole range. The union of the N shards is exactly
// the items of the single-process run, so the merged result is that run's.
package shard
