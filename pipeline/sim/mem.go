package sim

import (
	"fmt"
	"sort"
)

// Alloc is one global-memory allocation.
type Alloc struct {
	Name string // buffer or variable name, for messages
	Base uint64
	Data []byte
}

// Global is device memory: a set of allocations at fixed addresses.
type Global struct {
	allocs []*Alloc // sorted by Base
	next   uint64
	last   *Alloc // lookup cache
}

// Addresses: allocations start at 1 MiB and are aligned to 256 bytes (as
// cudaMalloc does) with a 256-byte gap between them, so that off-by-a-few
// accesses fault instead of landing in a neighbour. Everything stays
// below the generic windows, and below 3 GiB so that 32-bit address modules
// work too.
const (
	globalStart = 1 << 20
	allocAlign  = 256
	allocGap    = 256
)

// NewGlobal returns empty device memory.
func NewGlobal() *Global { return &Global{next: globalStart} }

// Alloc reserves size bytes (zeroed) and returns the allocation.
func (g *Global) Alloc(name string, size int) *Alloc {
	base := (g.next + allocAlign - 1) / allocAlign * allocAlign
	if size == 0 {
		size = 1 // a distinct, valid address even for empty buffers
	}
	a := &Alloc{Name: name, Base: base, Data: make([]byte, size)}
	g.next = base + uint64(size) + allocGap
	g.allocs = append(g.allocs, a)
	return a
}

// Allocs returns the allocations in address order.
func (g *Global) Allocs() []*Alloc { return g.allocs }

// find returns the allocation holding [addr, addr+n).
func (g *Global) find(addr uint64, n int) (*Alloc, int, bool) {
	if a := g.last; a != nil && addr >= a.Base && addr+uint64(n) <= a.Base+uint64(len(a.Data)) {
		return a, int(addr - a.Base), true
	}
	i := sort.Search(len(g.allocs), func(i int) bool { return g.allocs[i].Base > addr }) - 1
	if i < 0 {
		return nil, 0, false
	}
	a := g.allocs[i]
	if addr+uint64(n) > a.Base+uint64(len(a.Data)) || addr+uint64(n) < addr {
		return nil, 0, false
	}
	g.last = a
	return a, int(addr - a.Base), true
}

// describe names the nearest allocation for an out-of-bounds message.
func (g *Global) describe(addr uint64) string {
	i := sort.Search(len(g.allocs), func(i int) bool { return g.allocs[i].Base > addr }) - 1
	if i >= 0 {
		a := g.allocs[i]
		end := a.Base + uint64(len(a.Data))
		if addr >= end {
			return fmt.Sprintf("%d bytes past the end of %s [0x%x, 0x%x)", addr-end, a.Name, a.Base, end)
		}
	}
	if i+1 < len(g.allocs) {
		a := g.allocs[i+1]
		return fmt.Sprintf("%d bytes before %s [0x%x, 0x%x)", a.Base-addr, a.Name, a.Base, a.Base+uint64(len(a.Data)))
	}
	return "not in any allocation"
}

// clusterRank is every CTA's rank in its cluster (SR_CgaCtaId): the
// simulator launches no clusters, so each CTA is alone in its own, as in
// a launch without cluster dimensions on an H100.
const clusterRank = 0

// Generic address windows (see ori/SEMANTICS.md): 4 GiB-aligned in 64-bit
// mode. With 32-bit addresses they sit at the top of the 32-bit space.
func windows(addrSize int) (shared, local, konst uint64) {
	if addrSize == 32 {
		return 0xC000_0000, 0xE000_0000, 0xD000_0000
	}
	return 1 << 32, 2 << 32, 3 << 32
}

func le(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func putLE(b []byte, v uint64, n int) {
	for i := 0; i < n; i++ {
		b[i] = byte(v >> (8 * i))
	}
}
