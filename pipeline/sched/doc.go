// Package sched is orilab's instruction scheduler and its companions: the
// machine's latency model, the control words of Volta-and-later SASS, and
// a static checker that proves those control words are enough.
//
// It owns, one file per algorithm:
//
//   - latency.go: the per-SM latency and functional-unit model for sm_75,
//     sm_80, sm_86 and sm_89 (Latency, Info, Pipe, Class), after the wiki's
//     per-SM table (seed 002:872-907) and Latency Model page;
//   - regs.go, mem.go, dag.go: the dependency DAG of a basic block over
//     register words (RAW, WAR, WAW, virtual or physical, predicates and
//     guards included), memory ordering and ordering points;
//     floatcalls.go: which instructions may sink below a CALL before
//     allocation;
//   - schedule.go, priority.go, dynbatch.go, pressure.go: the list
//     scheduler with ptxas's three modes, ReduceReg, ILP and DynBatch
//     (Schedule, Options, Mode, Stats), for ScheduleInstructions before
//     register allocation and PostSchedule after it; the pressure
//     tracker counts a multi-word register whole, as the allocator does;
//     capfallback.go: which order a capped pass keeps when it had to run
//     without its cap;
//   - ctrlwords.go: control words for physical code at -O1 and above
//     (AssignControlWords, the AdvancedScoreboardsAndOpexes phase): the six
//     dependency barriers, stall counts, yield hints and operand reuse;
//   - conservative.go: the -O0 form (AssignConservativeControlWords,
//     ProcessO0WaitsAndSBs);
//   - cpasync.go: barrier 0 as the scoreboard LDGDEPBAR counts cp.async
//     groups on, which DEPBAR.LE waits for;
//   - hazard.go: CheckHazards, which simulates issue timing and barrier
//     state over the CFG and reports the first hazard the control words
//     leave open;
//   - knobs.go: the Sched* knobs the scheduler reads;
//   - wordtable.go, kept.go: dense per-region numbering of register words,
//     and the working memory Schedule and the control-word passes keep
//     from one call to the next.
//
// The hazard model that ctrlwords.go, conservative.go and hazard.go share
// is spelled out in hazard.go. Everything here works on one ori.Func at a
// time; the phase manager (package pipeline) calls it.
package sched
