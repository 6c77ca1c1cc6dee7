// Command orilab is the command line of the orilab workbench: a PTX-to-SASS
// compiler built phase by phase after NVIDIA's ptxas, with tools to step,
// bisect and fault-inject it. main.go only dispatches subcommands; the
// work lives in the packages under pipeline/, bisect/, faultinject/ and tui/.
package main
