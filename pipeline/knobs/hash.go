package knobs

// FNV-1a, 32-bit, with the parameters the seed gives for ptxas's
// per-function override table (IsPassDisabledFull, 001:40031-40035) and for
// its CFG hash maps (001:42378-42398): offset basis 0x811C9DC5, prime
// 16777619. The same function is Go's hash/fnv New32a; it is written out
// here because the WHEN= hashes are part of orilab's user-visible contract
// and must not change if a library does.
const (
	fnvOffset32 = 0x811C9DC5
	fnvPrime32  = 16777619
)

// FNV1a returns the 32-bit FNV-1a hash of b.
func FNV1a(b []byte) uint32 {
	h := uint32(fnvOffset32)
	for _, c := range b {
		h = (h ^ uint32(c)) * fnvPrime32
	}
	return h
}

func fnv1aString(h uint32, s string) uint32 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnvPrime32
	}
	return h
}

// ShaderHash is the SH= hash of a function: FNV-1a over the bytes of its
// name as the PTX writes it (".entry _Z3addPi" hashes "_Z3addPi").
//
// Decision: the seed says WHEN=SH= matches a "shader hash" but not what is
// hashed; its only hash of a function is IsPassDisabledFull's FNV-1a of the
// "function identifier" (001:40029), the table that gives a function its
// own DisablePhases string. orilab makes the two the same thing: a
// per-function DisablePhases is "WHEN=SH=<ShaderHash(f)>;DisablePhases=...".
// The name, not the PTX text, is hashed so that the hash survives edits to
// the kernel while it is being bisected. The result is 32 bits because the
// seed's FNV parameters are the 32-bit ones and its example hash,
// SH=0xDEADBEEF, is 32 bits.
func ShaderHash(function string) uint32 {
	return fnv1aString(fnvOffset32, function)
}

// InstrHash is the IH= hash of one instruction: FNV-1a over the function's
// name and then the four little-endian bytes of the instruction's Ori ID
// (ori.Inst.ID), the byte order of the seed's fnv1a_hash_u32
// (001:42382-42389).
//
// Decision: the seed says IH= matches an "instruction hash" and nothing
// more. The project keys every change site on phase + function +
// instruction ID (STYLE.md, x/tools/cmd/bisect), and Ori IDs stay with an
// instruction for its whole life in the pipeline, so an IH computed here is
// the same in every phase and from run to run for the same PTX. Hashing the
// PTX instruction text instead would make identical instructions collide
// and would not name instructions that phases create.
func InstrHash(function string, id int32) uint32 {
	h := fnv1aString(fnvOffset32, function)
	u := uint32(id)
	for k := 0; k < 4; k++ {
		h = (h ^ (u & 0xFF)) * fnvPrime32
		u >>= 8
	}
	return h
}
