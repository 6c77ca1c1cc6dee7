// Package pipeline ties orilab's compiler together: Compile takes PTX
// source through the front end (pipeline/ptx) and the lowering
// (pipeline/lower) to verified Ori, and Execute and RunSpec run a kernel
// spec (pipeline/spec) on the simulator (pipeline/sim) and check its
// buffers.
//
// The phase manager, which will run ptxas's 159 phases between the
// lowering and SASS emission, is not here yet; Compile stops after the
// lowering and says so in its result.
package pipeline
