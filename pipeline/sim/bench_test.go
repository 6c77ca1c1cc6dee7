package sim

import (
	"encoding/binary"
	"testing"

	"orilab/pipeline/ori"
)

func benchModule(b *testing.B, body string) *ori.Module {
	m, err := ori.ParseModule("b.ori", []byte(header+body+"}\n"))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func runBench(b *testing.B, m *ori.Module, threads int) {
	var total int64
	for b.Loop() {
		g := NewGlobal()
		out := g.Alloc("out", 4*threads)
		p := make([]byte, 8)
		binary.LittleEndian.PutUint64(p, out.Base)
		st, err := Run(m, "k", Launch{Grid: [3]int{threads / 256, 1, 1}, Block: [3]int{256, 1, 1}, Params: [][]byte{p}}, g, Options{})
		if err != nil {
			b.Fatal(err)
		}
		total += st.ThreadInsts
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds()/1e6, "Mthreadinst/s")
}

// BenchmarkALU runs a loop of integer ALU instructions (IADD3, LOP3, IMAD,
// SHF, ISETP, BRA) 1000 times in 1024 threads.
func BenchmarkALU(b *testing.B) {
	m := benchModule(b, `BB0:
`+storeAddr+`	#1 MOV %r20 = 0x3e8 ;
	#2 MOV %r21 = %r2 ;
BB1:
	#3 IADD3 %r21 = %r21, 0x7, %r2 ;
	#4 LOP3.LUT %r22 = %r21, %r2, 0xff, 0x96, !PT ;
	#5 IMAD %r21 = %r22, 0x3, %r21 ;
	#6 SHF.R.U32.HI %r23 = RZ, 0x3, %r21 ;
	#7 IADD3 %r21 = %r21, %r23, RZ ;
	#8 IADD3 %r20 = %r20, -0x1, RZ ;
	#9 ISETP.NE.AND %p0, PT = %r20, RZ, PT ;
	#10 @%p0 BRA BB1 ;
BB2:
	#11 STG.E [%r10.64], %r21 ;
	#12 EXIT ;
`)
	runBench(b, m, 1024)
}

// BenchmarkMemory runs a loop of global loads and stores.
func BenchmarkMemory(b *testing.B) {
	m := benchModule(b, `BB0:
`+storeAddr+`	#1 MOV %r20 = 0x3e8 ;
	#2 MOV %r21 = %r2 ;
BB1:
	#3 STG.E [%r10.64], %r21 ;
	#4 LDG.E %r22 = [%r10.64] ;
	#5 IADD3 %r21 = %r22, 0x1, RZ ;
	#6 IADD3 %r20 = %r20, -0x1, RZ ;
	#7 ISETP.NE.AND %p0, PT = %r20, RZ, PT ;
	#8 @%p0 BRA BB1 ;
BB2:
	#9 EXIT ;
`)
	runBench(b, m, 1024)
}
