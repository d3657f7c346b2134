package promelector_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/s3lease/s3lease/protocol"

	"example.com/promelector"
)

// The production wiring: metrics to Prometheus at /metrics, health at
// /healthz, who leads at /leader, the elector's Run until the process is
// told to stop. The README shows this function.
func Example() {
	ctx := context.Background()
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	hostname, _ := os.Hostname()
	metrics := promelector.New(prometheus.DefaultRegisterer, "orders-consumer")
	health := protocol.NewHealthzAdaptor(20 * time.Second) // client-go: leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
	elector, err := protocol.NewElector(protocol.Config{
		Store:           s3.NewFromConfig(awsCfg),
		Bucket:          "my-bucket",
		Key:             "leader/orders-consumer.json",
		Identity:        hostname,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,
		ReleaseOnCancel: true,
		Metrics:         metrics.Metrics(), // requests, terms, every transition of the phase machine
		Callbacks: protocol.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context, lease protocol.Lease) {
				// Lead until ctx is done. Send lease.Token with every write to the
				// resources you guard; each admits it with a protocol.Fence.
				<-ctx.Done()
			},
			OnNewLeader: func(identity string) { log.Printf("leader is %s", identity) },
		},
	})
	if err != nil {
		log.Fatal(err) // a *protocol.ConfigError naming the bad field
	}
	health.SetElector(elector)
	http.Handle("/metrics", promhttp.Handler())
	http.Handle("/healthz", health) // 500 once the elector is stuck past its deadline
	http.HandleFunc("/leader", func(w http.ResponseWriter, r *http.Request) {
		info := elector.Leader() // who leads as last observed, and how long ago (monotonic)
		fmt.Fprintf(w, "%s (token %d, seen %s ago)\n", info.Identity, info.Token, info.Age)
	})
	go func() { log.Print(http.ListenAndServe(":8080", nil)) }()
	if err := elector.Run(ctx); err != nil { // campaigns, leads, campaigns again; nil once ctx ends
		log.Fatal(err)
	}
}
