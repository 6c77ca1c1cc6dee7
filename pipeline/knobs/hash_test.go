package knobs

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

func TestFNV1a(t *testing.T) {
	// Published FNV-1a 32-bit test vectors.
	for in, want := range map[string]uint32{
		"":       0x811C9DC5,
		"a":      0xE40C292C,
		"foobar": 0xBF9CF968,
	} {
		if got := FNV1a([]byte(in)); got != want {
			t.Errorf("FNV1a(%q) = %#x, want %#x", in, got, want)
		}
	}
	for _, in := range []string{"", "_Z3addPi", "kernel", "\x00\xff"} {
		h := fnv.New32a()
		h.Write([]byte(in))
		if FNV1a([]byte(in)) != h.Sum32() || ShaderHash(in) != h.Sum32() {
			t.Errorf("%q disagrees with hash/fnv", in)
		}
	}
}

func TestInstrHash(t *testing.T) {
	// Name bytes, then the ID's four little-endian bytes.
	for _, id := range []int32{0, 1, 42, -1, 0x01020304} {
		b := append([]byte("kern"), 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(b[4:], uint32(id))
		if got, want := InstrHash("kern", id), FNV1a(b); got != want {
			t.Errorf("InstrHash(kern, %d) = %#x, want %#x", id, got, want)
		}
	}
	if InstrHash("a", 1) == InstrHash("a", 2) || InstrHash("a", 1) == InstrHash("b", 1) {
		t.Error("collision in trivial cases")
	}
	// The seed's u32 hash (001:42382-42389) is this with an empty name.
	k := uint32(0xDEADBEEF)
	h := uint32(0x811C9DC5)
	for i := 0; i < 4; i++ {
		h = 16777619 * (h ^ (k >> (8 * i) & 0xFF))
	}
	if InstrHash("", int32(k)) != h {
		t.Error("fnv1a_hash_u32")
	}
}
