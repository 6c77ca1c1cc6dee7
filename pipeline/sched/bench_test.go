package sched_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"orilab/internal/testenv"
	"orilab/pipeline"
	"orilab/pipeline/ori"
	"orilab/pipeline/regalloc"
	"orilab/pipeline/sched"
)

// largestKernel returns the largest function of the largest gpuocelot
// module that compiles up to ScheduleInstructions, as it enters the
// scheduler: mcx_core.ptx's main loop, about 2,500 instructions in 200-odd
// blocks (the count moves with the optimizer).
func largestKernel(b *testing.B) *ori.Func {
	b.Helper()
	var files []string
	filepath.Walk(filepath.Join(testenv.Shared(b), "corpus", "gpuocelot"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".ptx") {
			files = append(files, p)
		}
		return nil
	})
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	sort.Slice(files, func(i, j int) bool { return size(files[i]) > size(files[j]) })
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		s, err := pipeline.NewSession(p, src, pipeline.Options{Arch: 75}, pipeline.PhaseOptions{OptLevel: 3})
		if err != nil || s.RunTo(preSchedPhase) != nil {
			continue
		}
		var best *ori.Func
		for _, f := range s.Module().Funcs {
			if best == nil || f.NumInsts() > best.NumInsts() {
				best = f
			}
		}
		b.Logf("%s: %s, %d instructions in %d blocks", filepath.Base(p), best.Name, best.NumInsts(), len(best.Blocks))
		return best
	}
	b.Fatal("no gpuocelot module compiles")
	return nil
}

// cpuTime returns the process's user and system CPU time: wall time
// means little on a machine shared with other jobs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkScheduleLargest runs ScheduleInstructions as -O3 does
// (ReduceReg, then ILP, without the Stats' measurements, as the compile
// pipeline asks) on the largest corpus kernel. cpu-ns/op counts the
// process's CPU time (garbage collection included) while scheduling, not
// while cloning the input, which is done in batches outside it.
func BenchmarkScheduleLargest(b *testing.B) {
	f := largestKernel(b)
	const batch = 8
	var copies []*ori.Func
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(copies) == 0 {
			b.StopTimer()
			for range batch {
				copies = append(copies, f.Clone())
			}
			b.StartTimer()
		}
		c := copies[len(copies)-1]
		copies = copies[:len(copies)-1]
		t0 := cpuTime()
		if _, err := sched.Schedule(c, sched.Options{Arch: 75, OptLevel: 3, NoMeasure: true}); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - t0
	}
	b.ReportMetric(float64(f.NumInsts()), "insts")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkControlWords assigns the control words of the largest corpus
// kernel after allocation, and checks them.
func BenchmarkControlWords(b *testing.B) {
	f := largestKernel(b).Clone()
	if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3}); err != nil {
		b.Fatal(err)
	}
	if _, err := regalloc.Allocate(f, regalloc.Options{Arch: 75, OptLevel: 3}); err != nil {
		b.Skipf("the allocator does not handle the kernel yet: %v", err)
	}
	if _, err := sched.Schedule(f, sched.Options{Arch: 75, OptLevel: 3, PostRA: true}); err != nil {
		b.Fatal(err)
	}
	b.Run("assign", func(b *testing.B) {
		cpu0 := cpuTime()
		for b.Loop() {
			if err := sched.AssignControlWords(f, 75); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(f.NumInsts()), "insts")
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := sched.CheckHazards(f, 75); err != nil {
				b.Fatal(err)
			}
		}
	})
}
