package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxBody bounds the bodies the proxy holds in memory, each way. Lock
// records are under 64 KiB.
const maxBody = 16 << 20

// FaultCounts counts what the proxy did, by fault.
type FaultCounts struct {
	// Latency counts requests held before being forwarded or answered.
	Latency int `json:"latency"`
	// Conflict, InternalError and Unavailable count the 409, 500 and 503
	// answers the proxy gave without forwarding.
	Conflict      int `json:"conflict409"`
	InternalError int `json:"internalError500"`
	Unavailable   int `json:"unavailable503"`
	// InternalErrorAfter counts requests forwarded and then answered 500.
	InternalErrorAfter int `json:"internalError500After"`
	// DroppedAnswers counts requests forwarded whose answer was discarded
	// and whose connection was closed.
	DroppedAnswers int `json:"droppedAnswers"`
	// CutBefore counts connections cut before the request was forwarded;
	// CutMidBody those cut after the headers and part of a GET's body.
	CutBefore  int `json:"cutBefore"`
	CutMidBody int `json:"cutMidBody"`
	// Stripped counts requests whose If-Match or If-None-Match the proxy
	// removed (Faults.StripConditions).
	Stripped int `json:"stripped"`
	// Aligned counts conditional writes held so as to reach the store
	// together with the others of their batch (the rounds of simultaneous
	// starts).
	Aligned int `json:"aligned"`
}

// minus is c less the counts of before.
func (c FaultCounts) minus(before FaultCounts) FaultCounts {
	return FaultCounts{
		Latency: c.Latency - before.Latency, Conflict: c.Conflict - before.Conflict, InternalError: c.InternalError - before.InternalError,
		Unavailable: c.Unavailable - before.Unavailable, InternalErrorAfter: c.InternalErrorAfter - before.InternalErrorAfter,
		DroppedAnswers: c.DroppedAnswers - before.DroppedAnswers, CutBefore: c.CutBefore - before.CutBefore,
		CutMidBody: c.CutMidBody - before.CutMidBody, Stripped: c.Stripped - before.Stripped, Aligned: c.Aligned - before.Aligned,
	}
}

// Total is the number of requests that met a fault other than latency.
func (c FaultCounts) Total() int {
	return c.Conflict + c.InternalError + c.Unavailable + c.InternalErrorAfter + c.DroppedAnswers + c.CutBefore + c.CutMidBody
}

// ProxyStats is what passed through the proxy during the run.
type ProxyStats struct {
	// Requests is the number of HTTP requests the proxy received during
	// the run; Forwarded how many of them it sent to the store;
	// UpstreamErrors how many of those got no answer from the store (the
	// client was answered 502).
	Requests       int `json:"requests"`
	Forwarded      int `json:"forwarded"`
	UpstreamErrors int `json:"upstreamErrors"`
	// RequestsPerSecond is Requests over the run's duration.
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	// Faults counts the faults injected.
	Faults FaultCounts `json:"faults"`
}

// faultKind is the one fault, other than latency, drawn for a request.
type faultKind uint8

const (
	noFault faultKind = iota
	faultConflict
	faultInternal
	faultUnavailable
	faultInternalAfter
	faultDrop
	faultCut
)

// fate is what the proxy does to one request.
type fate struct {
	latency time.Duration
	kind    faultKind
}

// proxy is the fault-injecting HTTP proxy on loopback. Every node's
// transport sends its requests here (keeping the Host header it signed);
// the proxy forwards them to the store over its own connections.
type proxy struct {
	upstreams []*url.URL
	faults    Faults
	client    *http.Client
	log       *slog.Logger
	srv       *http.Server
	ln        net.Listener
	started   time.Time

	mu     sync.Mutex
	rng    *rand.Rand
	stats  ProxyStats
	frozen bool // stats are no longer counted: the run is over
	reqID  uint64
	// quiet suspends the faults (not StripConditions, a broken setup):
	// requests are still drawn for, and pass untouched.
	quiet bool
	// align, if positive, holds every conditional write until align after
	// the first of its batch arrived (the last byte of its body: see
	// heldBody), and then lets the batch go on at once: writes that race in
	// the electors race at the store. batch is the batch being gathered,
	// nil if none is.
	align time.Duration
	batch chan struct{}
}

// startProxy starts the proxy on a free loopback port, forwarding to
// upstreams (scheme and host of each endpoint of the store).
func startProxy(upstreams []*url.URL, f Faults, seed uint64, log *slog.Logger) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("live: proxy listen on loopback: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &proxy{
		upstreams: upstreams,
		faults:    f,
		log:       log,
		ln:        ln,
		rng:       rand.New(rand.NewPCG(seed, 0x5133a5e)),
		client: &http.Client{
			Transport: &http.Transport{
				Proxy:               http.ProxyFromEnvironment,
				DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
				MaxIdleConnsPerHost: 32,
				IdleConnTimeout:     30 * time.Second,
				DisableCompression:  true,
				ForceAttemptHTTP2:   false,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		started: time.Now(),
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(slog.DiscardHandler, slog.LevelError),
	}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// addr is the proxy's host:port.
func (p *proxy) addr() string { return p.ln.Addr().String() }

// freeze stops counting: the stats are those of the run.
func (p *proxy) freeze(elapsed time.Duration) ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frozen = true
	s := p.stats
	if elapsed > 0 {
		s.RequestsPerSecond = float64(s.Requests) / elapsed.Seconds()
	}
	return s
}

// inject turns the faults on or off, from the next request on, and sets
// the window in which conditional writes are gathered (0: none).
func (p *proxy) inject(on bool, align time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.quiet, p.align = !on, align
}

// gather adds a conditional write to the batch being gathered, opening one
// if none is, and returns the channel closed when the batch is released;
// nil for a request that is not held.
func (p *proxy) gather(r *http.Request) <-chan struct{} {
	if r.Method != http.MethodPut || (r.Header.Get("If-Match") == "" && r.Header.Get("If-None-Match") == "") {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.align <= 0 {
		return nil
	}
	if p.batch == nil {
		ch := make(chan struct{})
		p.batch = ch
		time.AfterFunc(p.align, func() {
			p.mu.Lock()
			if p.batch == ch {
				p.batch = nil
			}
			p.mu.Unlock()
			close(ch)
		})
	}
	if !p.frozen {
		p.stats.Faults.Aligned++
	}
	return p.batch
}

// heldBody is the body of a held write: everything but its last byte at
// once, the last byte once the batch is released (or the client gave up).
// The store has then received the held writes' headers and nearly all of
// their bodies, and every one of them goes on at the same instant.
type heldBody struct {
	rest    []byte
	release <-chan struct{}
	done    <-chan struct{}
}

func (b *heldBody) Read(p []byte) (int, error) {
	switch {
	case len(b.rest) == 0:
		return 0, io.EOF
	case len(b.rest) == 1:
		select {
		case <-b.release:
		case <-b.done:
			return 0, context.Canceled
		}
	case len(p) >= len(b.rest):
		p = p[:len(b.rest)-1]
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

// faultCounts returns the faults counted so far.
func (p *proxy) faultCounts() FaultCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats.Faults
}

// close stops the proxy, waiting a little for requests in flight.
func (p *proxy) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		_ = p.srv.Close()
	}
	p.client.CloseIdleConnections()
}

// count adds to the stats under the lock, unless the run is over.
func (p *proxy) count(f func(s *ProxyStats)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.frozen {
		f(&p.stats)
	}
}

// draw decides a request's fate. It always draws three numbers, so that the
// sequence of draws depends on the number of requests only.
func (p *proxy) draw() (fate, uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqID++
	f := p.faults
	var out fate
	uLat, span, uKind := p.rng.Float64(), p.rng.Int64N(int64(f.MaxLatency-f.MinLatency)+1), p.rng.Float64()
	if p.quiet {
		return fate{}, p.reqID
	}
	if uLat < f.Latency {
		out.latency = f.MinLatency + time.Duration(span)
	}
	for _, c := range [...]struct {
		p float64
		k faultKind
	}{
		{f.Conflict, faultConflict}, {f.InternalError, faultInternal}, {f.Unavailable, faultUnavailable},
		{f.InternalErrorAfter, faultInternalAfter}, {f.DropAnswer, faultDrop}, {f.Cut, faultCut},
	} {
		if uKind < c.p {
			out.kind = c.k
			break
		}
		uKind -= c.p
	}
	return out, p.reqID
}

// ServeHTTP handles one request from a node.
func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.count(func(s *ProxyStats) { s.Requests++ })
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		cut(w) // the client is gone or sent a broken body
		return
	}
	f, id := p.draw()
	if f.latency > 0 {
		p.count(func(s *ProxyStats) { s.Faults.Latency++ })
		t := time.NewTimer(f.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the client gave up waiting
		}
	}
	switch {
	case f.kind == faultConflict:
		p.count(func(s *ProxyStats) { s.Faults.Conflict++ })
		s3Error(w, r, id, http.StatusConflict, "ConditionalRequestConflict",
			"A conflicting conditional operation is currently in progress against this resource. Please try again.")
		return
	case f.kind == faultInternal:
		p.count(func(s *ProxyStats) { s.Faults.InternalError++ })
		s3Error(w, r, id, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
		return
	case f.kind == faultUnavailable:
		p.count(func(s *ProxyStats) { s.Faults.Unavailable++ })
		s3Error(w, r, id, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
		return
	case f.kind == faultCut && r.Method != http.MethodGet:
		p.count(func(s *ProxyStats) { s.Faults.CutBefore++ })
		cut(w)
		return
	}
	resp, respBody, err := p.forward(r, body, p.gather(r))
	if err != nil {
		if r.Context().Err() != nil {
			return // the client is gone; nobody reads an answer
		}
		p.count(func(s *ProxyStats) { s.UpstreamErrors++ })
		p.log.Warn("live proxy: no answer from the store", "method", r.Method, "err", err)
		s3Error(w, r, id, http.StatusBadGateway, "BadGateway", "The proxy got no answer from the store.")
		return
	}
	switch f.kind {
	case faultInternalAfter:
		p.count(func(s *ProxyStats) { s.Faults.InternalErrorAfter++ })
		s3Error(w, r, id, http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
		return
	case faultDrop:
		p.count(func(s *ProxyStats) { s.Faults.DroppedAnswers++ })
		cut(w)
		return
	case faultCut: // a GET
		if resp.StatusCode != http.StatusOK || len(respBody) < 2 {
			p.count(func(s *ProxyStats) { s.Faults.CutBefore++ })
			cut(w)
			return
		}
		p.count(func(s *ProxyStats) { s.Faults.CutMidBody++ })
		copyHeader(w.Header(), resp.Header)
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(respBody[:len(respBody)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		cut(w)
		return
	}
	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	if r.Method != http.MethodHead {
		_, _ = w.Write(respBody)
	}
}

// forward sends the request to the store, to the host the client signed for
// (which must be an endpoint's, or a bucket under it), and reads the whole
// answer. A request held for a batch (release not nil) sends the last byte
// of its body once release is closed.
func (p *proxy) forward(r *http.Request, body []byte, release <-chan struct{}) (*http.Response, []byte, error) {
	host := r.Host
	var up *url.URL
	for _, u := range p.upstreams {
		if host == u.Host || strings.HasSuffix(host, "."+u.Host) {
			up = u
			break
		}
	}
	if up == nil {
		return nil, nil, fmt.Errorf("live proxy: host %q is no endpoint's", host)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, up.Scheme+"://"+host+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("live proxy: %w", err)
	}
	copyHeader(out.Header, r.Header)
	if p.faults.StripConditions {
		if out.Header.Get("If-Match") != "" || out.Header.Get("If-None-Match") != "" {
			p.count(func(s *ProxyStats) { s.Faults.Stripped++ })
		}
		out.Header.Del("If-Match")
		out.Header.Del("If-None-Match")
	}
	out.Host = host
	out.ContentLength = int64(len(body))
	switch {
	case len(body) == 0:
		out.Body = http.NoBody
	case release != nil:
		out.Body = io.NopCloser(&heldBody{rest: body, release: release, done: r.Context().Done()})
	}
	p.count(func(s *ProxyStats) { s.Forwarded++ })
	resp, err := p.client.Do(out)
	if err != nil {
		return nil, nil, fmt.Errorf("live proxy: forward: %w", err)
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, nil, fmt.Errorf("live proxy: read the store's answer: %w", err)
	}
	return resp, respBody, nil
}

// hopHeaders are the hop-by-hop headers a proxy does not pass on.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true, "Proxy-Authorization": true,
	"Proxy-Connection": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		if hopHeaders[k] {
			continue
		}
		dst[k] = append([]string(nil), vs...)
	}
}

// s3Error answers with an S3 error document (no body for a HEAD).
func s3Error(w http.ResponseWriter, r *http.Request, id uint64, status int, code, msg string) {
	rid := "live-" + strconv.FormatUint(id, 10)
	w.Header().Set("x-amz-request-id", rid)
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>")
	b.WriteString(code)
	b.WriteString("</Code><Message>")
	b.WriteString(msg)
	b.WriteString("</Message><RequestId>")
	b.WriteString(rid)
	b.WriteString("</RequestId></Error>")
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// cut closes the client's connection at once, with a reset, whatever was
// sent on it so far.
func cut(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// viaProxy is a node's HTTP transport: it sends every request to the proxy
// instead of the host in its URL, keeping that host in the Host header (the
// one the request was signed for).
type viaProxy struct {
	base  http.RoundTripper
	proxy string
	// down severs the node from the store: every request fails at once,
	// before it is sent.
	down atomic.Bool
}

// errDown is the error of a request made while the node is cut off.
var errDown = errors.New("live: node is down")

func (t *viaProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.down.Load() {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, errDown
	}
	out := r.Clone(r.Context())
	if out.Host == "" {
		out.Host = r.URL.Host
	}
	out.URL.Scheme, out.URL.Host = "http", t.proxy
	return t.base.RoundTrip(out)
}

// nodeHTTPClient is the HTTP client of one node's *s3.Client: each node
// has its own connections to the proxy.
func nodeHTTPClient(proxyAddr string) *http.Client {
	return &http.Client{
		Transport: &viaProxy{
			base: &http.Transport{
				Proxy:               nil, // loopback, never through an environment proxy
				DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
				MaxIdleConnsPerHost: 8,
				IdleConnTimeout:     30 * time.Second,
				DisableCompression:  true,
			},
			proxy: proxyAddr,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
