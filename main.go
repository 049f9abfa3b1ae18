// Command perfstitch reads perf.data files, stitches deferred user
// callchains back onto their samples, symbolizes them and prints them the
// way perf script and perf report do.
package main

import (
	"os"

	"github.com/perfstitch/perfstitch/cmd"
)

func main() {
	os.Exit(int(cmd.Main()))
}
