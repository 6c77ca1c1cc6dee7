package sim

import (
	"strings"
	"testing"
)

// cpAsyncText fills out[0..3] with the bytes 0x01..0x10 and shared
// 0x0-0x3f with ones, then runs copy (LDGSTS instructions reading from
// out, %r3.64) and stores shared 0x0-0x27 to out[4..13].
func cpAsyncText(copy string) string {
	return header + `BB0:
	#1 MOV %r3 = c[0x0][0x160] ;
	#2 MOV %r3[1] = c[0x0][0x164] ;
	#3 MOV %r4 = 0x4030201 ;
	#4 MOV %r4[1] = 0x8070605 ;
	#5 MOV %r4[2] = 0xc0b0a09 ;
	#6 MOV %r4[3] = 0x100f0e0d ;
	#7 STG.E.128 [%r3.64], %r4.128 ;
	#8 MOV %r5 = 0xffffffff ;
	#9 MOV %r5[1] = 0xffffffff ;
	#10 MOV %r5[2] = 0xffffffff ;
	#11 MOV %r5[3] = 0xffffffff ;
	#12 STS.128 [0x0], %r5.128 ;
	#13 STS.128 [0x10], %r5.128 ;
	#14 STS.128 [0x20], %r5.128 ;
	#15 STS.128 [0x30], %r5.128 ;
` + copy + `	#40 LDGDEPBAR ;
	#41 DEPBAR.LE 0x0, 0x0 ;
	#42 LDS.128 %r6.128 = [0x0] ;
	#43 STG.E.128 [%r3.64+0x10], %r6.128 ;
	#44 LDS.128 %r7.128 = [0x10] ;
	#45 STG.E.128 [%r3.64+0x20], %r7.128 ;
	#46 LDS.64 %r8.64 = [0x20] ;
	#47 STG.E.64 [%r3.64+0x30], %r8.64 ;
	#48 EXIT ;
}
`
}

// TestLDGSTS: the copy with a zero-fill count in the address (.ZFILL:
// g%16 = 5 zeroes the last 5 bytes and reads 11 from g-5), with a false
// source predicate (zeros, nothing read), and a plain word; the bytes
// around them keep their ones.
func TestLDGSTS(t *testing.T) {
	got, err := runText(t, cpAsyncText(`	#20 LDGSTS.E.128.ZFILL [0x0], [%r3.64+0x5] ;
	#21 LDGSTS.E.64 [0x10], [%r3.64], !PT ;
	#22 LDGSTS.E [0x20], [%r3.64+0x4], PT ;
`), [3]int{1, 1, 1}, [3]int{1, 1, 1}, 14)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint32{0x4030201, 0x8070605, 0xc0b0a09, 0x100f0e0d,
		0x4030201, 0x8070605, 0x0b0a09, 0,
		0, 0, 0xffffffff, 0xffffffff,
		0x8070605, 0xffffffff}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("out[%d] = %#x, want %#x", i, got[i], w)
		}
	}
}

// TestLDGSTSMisaligned: a 16-byte copy to a shared address that is not a
// multiple of 16 faults, as any 16-byte shared access does.
func TestLDGSTSMisaligned(t *testing.T) {
	_, err := runText(t, cpAsyncText("\t#20 LDGSTS.E.128 [0x8], [%r3.64] ;\n"), [3]int{1, 1, 1}, [3]int{1, 1, 1}, 14)
	if err == nil || !strings.Contains(err.Error(), "misaligned shared store of 16 bytes at address 0x8") {
		t.Fatalf("error %v, want a misaligned shared store", err)
	}
}
