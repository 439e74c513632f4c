package speechgateway

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Gate asks the release gate (GET /v1/compliance/gate; the key needs read:compliance): whether the
// framework's score reaches minScore and its open findings stay within maxOpenFindings (nil: the
// gateway's defaults). The answer's Passed is the verdict; Checks say why.
func (c *Client) Gate(ctx context.Context, framework string, minScore *float64, maxOpenFindings *int64) (*ComplianceGateResponse, error) {
	return c.ComplianceGate(ctx, &ComplianceGateQuery{Framework: framework, MinScore: minScore, MaxOpenFindings: maxOpenFindings})
}

const gateUsage = `Usage: speech-gateway gate --framework <%s> [--min-score N] [--max-open-findings N]
                          [--url URL] [--api-key KEY] [--json]

Asks the gateway's release gate (GET /v1/compliance/gate) and exits 0 on pass, 1 on fail,
2 when the gate could not be asked (bad arguments, key, network).
URL defaults to $GATEWAY_URL or http://localhost:3000; the key to $GATEWAY_API_KEY (needs read:compliance).
`

// GateCommand is the speech-gateway command (cmd/speech-gateway): args without the program name,
// getenv for GATEWAY_URL and GATEWAY_API_KEY. It returns the exit code: 0 pass, 1 fail, 2 when the
// gate could not be asked.
func GateCommand(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	usage := fmt.Sprintf(gateUsage, strings.Join(Frameworks, "|"))
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] != "gate" {
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	flags := flag.NewFlagSet("gate", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	framework := flags.String("framework", "", "")
	minScore := flags.String("min-score", "", "")
	maxOpen := flags.String("max-open-findings", "", "")
	baseURL := flags.String("url", "", "")
	apiKey := flags.String("api-key", "", "")
	asJSON := flags.Bool("json", false, "")
	if err := flags.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "%v\n\n%s", err, usage)
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected argument %q\n\n%s", flags.Arg(0), usage)
		return 2
	}
	if *framework == "" {
		fmt.Fprintf(stderr, "--framework is required\n\n%s", usage)
		return 2
	}
	query := &ComplianceGateQuery{Framework: *framework}
	if *minScore != "" {
		v, err := strconv.ParseFloat(*minScore, 64)
		if err != nil {
			fmt.Fprintf(stderr, "--min-score must be a number, got %q\n\n%s", *minScore, usage)
			return 2
		}
		query.MinScore = &v
	}
	if *maxOpen != "" {
		v, err := strconv.ParseInt(*maxOpen, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "--max-open-findings must be a whole number, got %q\n\n%s", *maxOpen, usage)
			return 2
		}
		query.MaxOpenFindings = &v
	}
	if *baseURL == "" {
		*baseURL = getenv("GATEWAY_URL")
	}
	if *baseURL == "" {
		*baseURL = "http://localhost:3000"
	}
	if *apiKey == "" {
		*apiKey = getenv("GATEWAY_API_KEY")
	}
	client, err := New(Options{BaseURL: *baseURL, APIKey: *apiKey})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	answer, err := client.ComplianceGate(ctx, query)
	if err != nil {
		var gw *Error
		if errors.As(err, &gw) {
			fields := make([]string, 0, len(gw.Fields))
			for _, f := range gw.Fields {
				fields = append(fields, f.Field+": "+f.Message)
			}
			extra := ""
			if len(fields) > 0 {
				extra = " (" + strings.Join(fields, "; ") + ")"
			}
			fmt.Fprintf(stderr, "gateway refused: %s: %s%s\n", gw.Code, gw.Message, extra)
		} else {
			fmt.Fprintf(stderr, "could not ask the gate: %v\n", err)
		}
		return 2
	}
	if *asJSON {
		out, _ := json.MarshalIndent(answer, "", "  ")
		fmt.Fprintln(stdout, string(out))
	} else {
		verdict := "FAIL"
		if answer.Passed {
			verdict = "PASS"
		}
		fmt.Fprintf(stdout, "%s %s: score %s (%s)\n", verdict, answer.Framework, strconv.FormatFloat(answer.Score, 'f', -1, 64), answer.Status)
		for _, check := range answer.Checks {
			mark := "FAIL"
			if check.Passed {
				mark = "ok  "
			}
			fmt.Fprintf(stdout, "  %s %s\n", mark, check.Message)
		}
	}
	if answer.Passed {
		return 0
	}
	return 1
}
