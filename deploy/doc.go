// Package deploy holds no code: it is the home of the job files that run
// orilab's campaigns on a cluster (slurm/fuzz.sbatch, slurm/inject.sbatch,
// k8s/fuzz-job.yaml) and of the tests that keep them valid. The Slurm
// files are exercised end to end by slurm/test_cluster.sh, which .ci/run
// runs on a private one-node cluster; the Kubernetes manifest is checked
// against the parts of the Job schema that sharding relies on.
package deploy
