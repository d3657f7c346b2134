package pgbackend

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// connFaults are the probabilities of what the proxy does to each chunk of
// bytes it relays (a chunk is what one read returned: usually one or a few
// protocol messages, a query or its answer).
type connFaults struct {
	// Delay holds a chunk for up to MaxDelay before relaying it.
	Delay    float64
	MaxDelay time.Duration
	// Stall holds a chunk for up to MaxStall: a query or answer that
	// hangs, longer than the managers' request timeouts.
	Stall    float64
	MaxStall time.Duration
	// Cut relays a random prefix of a chunk the client sent, then closes
	// both sides: a query cut in the middle, never applied.
	Cut float64
	// Drop discards a chunk the server sent and closes both sides: the
	// query was applied, its answer lost.
	Drop float64
}

// proxyCounts counts what the proxy did.
type proxyCounts struct {
	Conns, Chunks, Delayed, Stalled, Cut, Dropped, Severed, Held int
}

func (c proxyCounts) String() string {
	return fmt.Sprintf("%d connections, %d chunks relayed; delayed %d, stalled %d, cut mid-query %d, answers dropped %d, connections severed %d, chunks held by a hang %d",
		c.Conns, c.Chunks, c.Delayed, c.Stalled, c.Cut, c.Dropped, c.Severed, c.Held)
}

// faultProxy is a TCP proxy on loopback between one node and the server,
// injecting faults at the connection.
type faultProxy struct {
	ln       net.Listener
	upstream string
	faults   connFaults

	// hang holds every chunk, both ways, while set: the node's link
	// hangs, as a partition that drops packets does.
	hang atomic.Bool

	mu     sync.Mutex
	rng    *rand.Rand
	counts proxyCounts
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// newFaultProxy listens on a free loopback port and relays to upstream.
func newFaultProxy(upstream string, f connFaults, seed uint64) (*faultProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listen: %w", err)
	}
	p := &faultProxy{ln: ln, upstream: upstream, faults: f, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

func (p *faultProxy) addr() string { return p.ln.Addr().String() }

func (p *faultProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.DialTimeout("tcp", p.upstream, 2*time.Second)
		if err != nil {
			_ = c.Close()
			continue
		}
		if !p.track(c, up) {
			return
		}
		p.wg.Add(2)
		go p.pump(c, up, true)
		go p.pump(up, c, false)
	}
}

// track registers a connection pair; false once the proxy is closed.
func (p *faultProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	p.counts.Conns++
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

// fate is what happens to one chunk.
type fate struct {
	hold      time.Duration
	stalled   bool
	cut, drop bool
	prefix    float64
}

func (p *faultProxy) draw(fromClient bool) fate {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.faults
	var ft fate
	// A fixed number of draws per chunk.
	d, dd, s, sd, c, pre := p.rng.Float64(), p.rng.Float64(), p.rng.Float64(), p.rng.Float64(), p.rng.Float64(), p.rng.Float64()
	p.counts.Chunks++
	switch {
	case fromClient && c < f.Cut:
		ft.cut, ft.prefix = true, pre
		p.counts.Cut++
	case !fromClient && c < f.Drop:
		ft.drop = true
		p.counts.Dropped++
	case s < f.Stall:
		ft.hold, ft.stalled = time.Duration(sd*float64(f.MaxStall)), true
		p.counts.Stalled++
	case d < f.Delay:
		ft.hold = time.Duration(dd * float64(f.MaxDelay))
		p.counts.Delayed++
	}
	return ft
}

// pump relays src to dst chunk by chunk until either side closes.
func (p *faultProxy) pump(src, dst net.Conn, fromClient bool) {
	defer p.wg.Done()
	defer func() {
		_ = src.Close()
		_ = dst.Close()
		p.mu.Lock()
		delete(p.conns, src)
		delete(p.conns, dst)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			held := false
			for p.hang.Load() && !p.isClosed() {
				if !held {
					held = true
					p.count(func(c *proxyCounts) { c.Held++ })
				}
				time.Sleep(5 * time.Millisecond)
			}
			ft := p.draw(fromClient)
			if ft.hold > 0 {
				time.Sleep(ft.hold)
			}
			switch {
			case ft.drop:
				return
			case ft.cut:
				_, _ = dst.Write(buf[:int(ft.prefix*float64(n))])
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *faultProxy) count(f func(*proxyCounts)) {
	p.mu.Lock()
	f(&p.counts)
	p.mu.Unlock()
}

func (p *faultProxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// sever closes every open connection: the node's connections drop.
func (p *faultProxy) sever() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
	p.counts.Severed++
}

// stats returns the counts so far.
func (p *faultProxy) stats() proxyCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// close stops the proxy and waits, up to timeout, for its goroutines.
func (p *faultProxy) close(timeout time.Duration) error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		return errors.New("proxy goroutines did not stop")
	}
}
