package faultinject

import "strconv"

// Category is one of the six bug categories of a bug specification, in the
// order of its six fields.
type Category uint8

const (
	CatRegister  Category = iota // field 0: R/UR (and P/UP) register operands
	CatPredicate                 // field 1: guard predicates of predicated instructions
	CatSpill                     // field 2: offsets (and values) of spill and refill instructions
	CatRemat                     // field 3: values of rematerialized instructions
	CatP2R                       // field 4: register operands of P2R/R2P
	CatBitSpill                  // field 5: single-bit P2R/R2P spills of one predicate
	NumCategories
)

var categoryNames = [NumCategories]string{
	CatRegister:  "register",
	CatPredicate: "predicate",
	CatSpill:     "offset/spill",
	CatRemat:     "remat",
	CatP2R:       "R2P/P2R",
	CatBitSpill:  "bit-spill",
}

func (c Category) String() string {
	if c < NumCategories {
		return categoryNames[c]
	}
	return "category" + strconv.Itoa(int(c))
}

// Kind is the kind code (1-10) carried by each injected fault, as in
// ptxas's fault records. The category decides which kinds it produces
// (see doc.go); kinds 3 and 5 are in ptxas's table but no category of
// orilab (nor, as far as the wiki shows, of ptxas) produces them.
type Kind uint8

const (
	KindRUR       Kind = 1  // a general or uniform register replaced with another
	KindPUP       Kind = 2  // a predicate or uniform predicate operand replaced with another
	KindAnyReg    Kind = 3  // any register class operand corrupted (unused)
	KindOffset    Kind = 4  // a memory offset shifted by +16 bytes
	KindRegular   Kind = 5  // generic operand value replacement (unused)
	KindPredicate Kind = 6  // the guard predicate corrupted
	KindRemat     Kind = 7  // a rematerialized value corrupted
	KindSpill     Kind = 8  // the value of a spill or refill corrupted
	KindP2R       Kind = 9  // the register of a P2R/R2P conversion corrupted
	KindBitSpill  Kind = 10 // the bit of a single-bit predicate spill moved
	NumKinds           = 10
)

// kindNames are the strings of ptxas's kind table, typos included
// ("spill-regill bug" is what the binary says).
var kindNames = [NumKinds + 1]string{
	KindRUR:       "r-ur register",
	KindPUP:       "p-up register",
	KindAnyReg:    "any reg",
	KindOffset:    "offset",
	KindRegular:   "regular bug",
	KindPredicate: "predicated bug",
	KindRemat:     "remat bug",
	KindSpill:     "spill-regill bug",
	KindP2R:       "r2p-p2r bug",
	KindBitSpill:  "bit-spill bug",
}

// String returns the kind's string from ptxas's table.
func (k Kind) String() string {
	if k >= 1 && k <= NumKinds {
		return kindNames[k]
	}
	return "kind" + strconv.Itoa(int(k))
}

// Kinds returns the ten kind codes in order.
func Kinds() []Kind {
	ks := make([]Kind, NumKinds)
	for i := range ks {
		ks[i] = Kind(i + 1)
	}
	return ks
}
