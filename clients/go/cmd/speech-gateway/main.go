// Command speech-gateway asks the gateway's release gate:
//
//	speech-gateway gate --framework soc2 --min-score 80 --max-open-findings 0
//
// Exit 0 on pass, 1 on fail, 2 when the gate could not be asked. See speechgateway.GateCommand.
package main

import (
	"context"
	"os"
	"os/signal"

	speechgateway "speechgateway"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := speechgateway.GateCommand(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
