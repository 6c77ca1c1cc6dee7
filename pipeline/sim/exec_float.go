package sim

import "fmt"

// floatAtomicAdd returns the read-modify-write for a floating-point
// atomic add, or nil when the type is not supported.
func floatAtomicAdd(t string) atomOp {
	return nil
}

func errUnsupportedAtomic(d *dinst) error {
	return fmt.Errorf("the simulator does not implement the atomic %s", d.in.Name())
}
