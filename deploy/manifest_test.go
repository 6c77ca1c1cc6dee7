package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// job is the part of a batch/v1 Job that an orilab shard depends on.
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						ValueFrom *struct {
							FieldRef *struct {
								FieldPath string `yaml:"fieldPath"`
							} `yaml:"fieldRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestFuzzJobManifest checks k8s/fuzz-job.yaml: an Indexed Job whose pods
// learn their index from JOB_COMPLETION_INDEX, with --shards equal to the
// completions, writing results and findings into a mounted shared volume
// that a claim in the same file provides (ReadWriteMany).
func TestFuzzJobManifest(t *testing.T) {
	f, err := os.Open("k8s/fuzz-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var jobs []job
	claims := map[string][]string{}
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("k8s/fuzz-job.yaml: %v", err)
		}
		raw, _ := yaml.Marshal(doc)
		switch doc["kind"] {
		case "Job":
			var j job
			if err := yaml.Unmarshal(raw, &j); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, j)
		case "PersistentVolumeClaim":
			var c struct {
				Metadata struct{ Name string } `yaml:"metadata"`
				Spec     struct {
					AccessModes []string `yaml:"accessModes"`
				} `yaml:"spec"`
			}
			yaml.Unmarshal(raw, &c)
			claims[c.Metadata.Name] = c.Spec.AccessModes
		default:
			t.Errorf("unexpected document kind %v", doc["kind"])
		}
	}
	if len(jobs) != 1 {
		t.Fatalf("%d Jobs in the manifest, want 1", len(jobs))
	}
	j := jobs[0]
	if j.APIVersion != "batch/v1" || j.Spec.CompletionMode != "Indexed" {
		t.Errorf("apiVersion %q completionMode %q: want batch/v1, Indexed", j.APIVersion, j.Spec.CompletionMode)
	}
	if j.Spec.Completions == nil || j.Spec.Parallelism == nil || *j.Spec.Completions < 2 {
		t.Fatalf("completions/parallelism missing or < 2")
	}
	ps := j.Spec.Template.Spec
	if ps.RestartPolicy != "Never" && ps.RestartPolicy != "OnFailure" {
		t.Errorf("restartPolicy %q is not allowed for a Job", ps.RestartPolicy)
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(ps.Containers))
	}
	c := ps.Containers[0]
	args := strings.Join(append(c.Command, c.Args...), " ")
	if !strings.HasPrefix(args, "orilab fuzz ") {
		t.Errorf("the container runs %q, want orilab fuzz", args)
	}
	flags := map[string]string{}
	for _, a := range c.Args {
		if k, v, ok := strings.Cut(a, "="); ok {
			flags[k] = v
		}
	}
	if n, err := strconv.Atoi(flags["--shards"]); err != nil || n != *j.Spec.Completions {
		t.Errorf("--shards=%q, want the completions, %d", flags["--shards"], *j.Spec.Completions)
	}
	if flags["--seed"] == "" {
		t.Error("no --seed: every pod must draw from the same seed")
	}
	// The index: JOB_COMPLETION_INDEX from the completion-index annotation.
	index := false
	for _, e := range c.Env {
		if e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil &&
			e.ValueFrom.FieldRef.FieldPath == "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			index = true
		}
	}
	if !index {
		t.Error("JOB_COMPLETION_INDEX does not come from the job-completion-index annotation")
	}
	// Results and findings on a mounted volume backed by a shared claim.
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	onVolume := func(path string) string {
		for name, dir := range mounts {
			if path == dir || strings.HasPrefix(path, dir+"/") {
				return name
			}
		}
		return ""
	}
	vol := onVolume(flags["--results"])
	if vol == "" || onVolume(flags["--findings"]) != vol {
		t.Fatalf("--results=%q and --findings=%q are not on one mounted volume (mounts %v)", flags["--results"], flags["--findings"], mounts)
	}
	found := false
	for _, v := range ps.Volumes {
		if v.Name == vol && v.PersistentVolumeClaim != nil {
			found = true
			modes := claims[v.PersistentVolumeClaim.ClaimName]
			if strings.Join(modes, ",") != "ReadWriteMany" {
				t.Errorf("claim %q has access modes %v, want ReadWriteMany (every pod writes)", v.PersistentVolumeClaim.ClaimName, modes)
			}
		}
	}
	if !found {
		t.Errorf("volume %q is not a persistentVolumeClaim of the pod", vol)
	}
}

// TestSbatchScriptsParse runs bash -n over the Slurm job files, and checks
// that each passes the shard's results directory to orilab.
func TestSbatchScriptsParse(t *testing.T) {
	for _, f := range []string{"slurm/fuzz.sbatch", "slurm/inject.sbatch", "slurm/test_cluster.sh"} {
		var stderr bytes.Buffer
		cmd := exec.Command("bash", "-n", f)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", f, err, stderr.String())
		}
		b, _ := os.ReadFile(f)
		if strings.HasSuffix(f, ".sbatch") && (!strings.Contains(string(b), `--results "$RESULTS"`) || !strings.Contains(string(b), "#SBATCH --job-name=")) {
			t.Errorf("%s lacks --results or its #SBATCH header", f)
		}
	}
}
