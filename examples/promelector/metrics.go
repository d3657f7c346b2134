// Package promelector feeds an s3lease elector's Metrics to Prometheus, and
// serves its health at /healthz: the production wiring, next to client-go's
// leaderelection metrics and HealthzAdaptor. It is a module of its own so
// that the s3lease module does not depend on client_golang.
package promelector

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/s3lease/s3lease/protocol"
)

// Collectors are the elector's Prometheus metrics.
type Collectors struct {
	// Leader is 1 while this elector leads (client-go's
	// leader_election_master_status).
	Leader prometheus.Gauge
	// Requests counts S3 requests by operation, purpose and kind of
	// answer: attempts, successes, conflicts (409, 412) and ambiguous
	// outcomes (5xx, no-answer) are label selections.
	Requests *prometheus.CounterVec
	// RequestSeconds is the latency of S3 requests by operation.
	RequestSeconds *prometheus.HistogramVec
	// Transitions counts every step of the phase machine by from, cause
	// and to; protocol.Transitions() lists the label sets that can occur,
	// all of them pre-created at 0 so that a dashboard shows the ones
	// never taken.
	Transitions *prometheus.CounterVec
	// TermSeconds is how long terms were held, by why they ended.
	TermSeconds *prometheus.HistogramVec
}

// New registers the collectors with reg, labelled with the lock's name.
func New(reg prometheus.Registerer, name string) *Collectors {
	labels := prometheus.Labels{"name": name}
	c := &Collectors{
		Leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "s3lease_leader", Help: "1 while this elector leads.", ConstLabels: labels,
		}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "s3lease_requests_total", Help: "S3 requests by operation, purpose and kind of answer.", ConstLabels: labels,
		}, []string{"op", "purpose", "answer"}),
		RequestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "s3lease_request_seconds", Help: "Latency of S3 requests.", ConstLabels: labels,
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
		}, []string{"op"}),
		Transitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "s3lease_transitions_total", Help: "Transitions of the elector's phase machine.", ConstLabels: labels,
		}, []string{"from", "cause", "to"}),
		TermSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "s3lease_term_seconds", Help: "How long terms were held, by why they ended.", ConstLabels: labels,
			Buckets: prometheus.ExponentialBuckets(1, 4, 10),
		}, []string{"ended"}),
	}
	reg.MustRegister(c.Leader, c.Requests, c.RequestSeconds, c.Transitions, c.TermSeconds)
	for _, t := range protocol.Transitions() {
		c.Transitions.WithLabelValues(t.From.String(), t.Cause.String(), t.To.String())
	}
	return c
}

// Metrics returns the hooks to put in protocol.Config.Metrics.
func (c *Collectors) Metrics() protocol.Metrics {
	return protocol.Metrics{
		Transition: func(t protocol.Transition) {
			c.Transitions.WithLabelValues(t.From.String(), t.Cause.String(), t.To.String()).Inc()
		},
		Request: func(r protocol.Request) {
			c.Requests.WithLabelValues(r.Op, r.Purpose.String(), r.Answer.String()).Inc()
			c.RequestSeconds.WithLabelValues(r.Op).Observe(r.Latency.Seconds())
		},
		TermStarted: func(protocol.Lease) { c.Leader.Set(1) },
		TermEnded: func(end protocol.TermEnd) {
			c.Leader.Set(0)
			c.TermSeconds.WithLabelValues(end.Cause.String()).Observe(end.Held.Seconds())
		},
	}
}
