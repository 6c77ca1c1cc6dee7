package sched_test

import (
	"fmt"
	"os"
	"testing"

	"orilab/pipeline"
)

func TestScratch(t *testing.T) {
	f := os.Getenv("F")
	src, _ := os.ReadFile(f)
	s, err := pipeline.NewSession(f, src, pipeline.Options{Arch: 75}, pipeline.PhaseOptions{OptLevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunTo(113); err != nil {
		t.Fatal(err)
	}
	fmt.Println(s.Module())
}
