package speechgateway_test

// The suite runs against a real gateway: SPEECH_GATEWAY_URL and SPEECH_GATEWAY_ADMIN_KEY name one
// already running (it needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true for the webhook test, whose
// receiver listens on loopback); when they are unset, TestMain starts the repository's built
// gateway (dist/gateway/main.js, built with `npm run build` when missing) on a free loopback port
// with a temporary DATA_DIR, and stops it afterwards.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	speechgateway "speechgateway"
)

var (
	gatewayURL string
	adminKey   string
)

const startedAdminKey = "go-client-admin-key-0123456789abcdef"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	gatewayURL, adminKey = os.Getenv("SPEECH_GATEWAY_URL"), os.Getenv("SPEECH_GATEWAY_ADMIN_KEY")
	if gatewayURL != "" {
		if adminKey == "" {
			fmt.Fprintln(os.Stderr, "SPEECH_GATEWAY_URL is set but SPEECH_GATEWAY_ADMIN_KEY is not: the suite needs the gateway's admin key")
			return 2
		}
		return m.Run()
	}
	stop, err := startGateway()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer stop()
	return m.Run()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startGateway starts dist/gateway/main.js and waits until it answers /api/v1/health/live.
func startGateway() (stop func(), err error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return nil, err
	}
	main := filepath.Join(root, "dist", "gateway", "main.js")
	if _, err := os.Stat(main); err != nil {
		build := exec.Command("npm", "run", "build")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("npm run build: %v\n%s", err, out)
		}
	}
	dataDir, err := os.MkdirTemp("", "gw-go-")
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dataDir, "gateway.log"))
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command("node", main)
		cmd.Dir = root
		cmd.Stdout, cmd.Stderr = logFile, logFile
		for _, kv := range os.Environ() {
			switch name, _, _ := strings.Cut(kv, "="); name {
			case "DATABASE_URL", "REDIS_URL", "API_KEY", "NODE_ENV", "PORT", "HOST", "DATA_DIR", "ADMIN_API_KEY":
			default:
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env,
			fmt.Sprintf("PORT=%d", port), "HOST=127.0.0.1", "DATA_DIR="+dataDir, "ADMIN_API_KEY="+startedAdminKey,
			"LOG_LEVEL=warn", "API_RATE_LIMIT=100000", "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		url := fmt.Sprintf("http://127.0.0.1:%d", port)
		if waitLive(url, exited, 90*time.Second) {
			gatewayURL, adminKey = url, startedAdminKey
			return func() {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-exited:
				case <-time.After(20 * time.Second):
					_ = cmd.Process.Kill()
					<-exited
				}
				logFile.Close()
				os.RemoveAll(dataDir)
			}, nil
		}
		_ = cmd.Process.Kill()
		<-exited
	}
	log, _ := os.ReadFile(filepath.Join(dataDir, "gateway.log"))
	os.RemoveAll(dataDir)
	if len(log) > 4000 {
		log = log[len(log)-4000:]
	}
	return nil, fmt.Errorf("the gateway did not start:\n%s", log)
}

func waitLive(url string, exited <-chan struct{}, within time.Duration) bool {
	deadline := time.Now().Add(within)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		default:
		}
		if res, err := client.Get(url + "/api/v1/health/live"); err == nil {
			var body struct {
				Live bool `json:"live"`
			}
			_ = json.NewDecoder(res.Body).Decode(&body)
			res.Body.Close()
			if res.StatusCode == 200 && body.Live {
				return true
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// admin is a client with the admin key.
func admin(t *testing.T) *speechgateway.Client {
	t.Helper()
	return clientWithKey(t, adminKey)
}

func clientWithKey(t *testing.T, key string) *speechgateway.Client {
	t.Helper()
	c, err := speechgateway.New(speechgateway.Options{BaseURL: gatewayURL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// unique makes titles that other runs against the same gateway do not share.
func unique(prefix string) string {
	return fmt.Sprintf("%s %d", prefix, time.Now().UnixNano())
}
