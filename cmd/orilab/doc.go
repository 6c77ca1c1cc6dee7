// Command orilab is the command line of the orilab workbench: a PTX-to-SASS
// compiler built phase by phase after NVIDIA's ptxas, with tools to step,
// bisect and fault-inject it. main.go only dispatches subcommands; the
// work lives in the packages under pipeline/, bisect/, faultinject/ and tui/.
// The process itself is tuned for short compiles: main.go sets the garbage
// collector's target for orilab compile, and heap.go backs the heap of a
// large compile with transparent huge pages.
package main
