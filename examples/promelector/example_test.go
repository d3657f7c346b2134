package promelector_test

import (
	"context"
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
// /healthz, the elector's Run until the process is told to stop.
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
		LeaseDuration:   protocol.DefaultLeaseDuration,
		RenewDeadline:   protocol.DefaultRenewDeadline,
		RetryPeriod:     protocol.DefaultRetryPeriod,
		ReleaseOnCancel: true,
		Metrics:         metrics.Metrics(),
		Callbacks: protocol.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context, lease protocol.Lease) { <-ctx.Done() },
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	health.SetElector(elector)
	http.Handle("/metrics", promhttp.Handler())
	http.Handle("/healthz", health)
	go func() { log.Print(http.ListenAndServe(":8080", nil)) }()
	if err := elector.Run(ctx); err != nil {
		log.Fatal(err)
	}
}
