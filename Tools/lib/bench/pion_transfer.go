// Data-channel transfer benchmark for Pion (github.com/pion/webrtc/v3, as
// Debian 12 packages it): the same measurements as chatcli-bench
// (Sources/chatcli-bench) and aiortc_transfer.py, for comparison.
//
// Two PeerConnections in one process on 127.0.0.1 (host candidates on
// loopback only, no STUN server, SDP and trickled candidates handed over
// directly):
//
//	setup   median over 5 fresh pairs, from creating the offerer to the
//	        channel open on both sides (ms);
//	bulk    16 KiB text messages for DURATION s, the sender pausing while
//	        more than 1 MiB is buffered and resuming below 256 KiB
//	        (OnBufferedAmountLow); bytes received / window (MB/s, MB = 10^6
//	        bytes);
//	small   the same with 100-byte messages (messages/s);
//	rtt     1,000 sequential 100-byte ping-pongs after 20 warm-ups (µs);
//	cpu     process CPU time (getrusage) during bulk per MB received (ms/MB).
//
// Its UDP sockets ask for 4 MiB kernel buffers, as chatcli's do
// (--socket-buffer 0: the kernel default, about 208 KiB, which overflows on
// loopback and leaves Pion waiting for retransmission timeouts).
// Prints one JSON line ({"stack":"pion",...}); progress goes to stderr.
// Pion runs on goroutines, so unlike the other two stacks it may use both
// CPUs at once: compare CPU per MB, not only throughput.
// Tools/bench transfer builds it in GOPATH mode against /usr/share/gocode.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pion/ice/v2"
	"github.com/pion/transport/v2"
	"github.com/pion/transport/v2/stdnet"
	"github.com/pion/webrtc/v3"
)

const (
	highWater = 1 << 20
	lowWater  = 256 << 10
	timeout   = 10 * time.Second
)

var api *webrtc.API

func newAPI(socketBuffer int) (*webrtc.API, error) {
	var settings webrtc.SettingEngine
	if socketBuffer > 0 {
		std, err := stdnet.NewNet()
		if err != nil {
			return nil, err
		}
		settings.SetNet(bufferedNet{std, socketBuffer})
	}
	settings.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	settings.SetIncludeLoopbackCandidate(true)
	settings.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	settings.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	return webrtc.NewAPI(webrtc.WithSettingEngine(settings)), nil
}

// bufferedNet: the standard network whose UDP sockets ask for larger kernel
// buffers (ICE gathers its host candidates through ListenUDP).
type bufferedNet struct {
	*stdnet.Net
	size int
}

func (n bufferedNet) ListenUDP(network string, address *net.UDPAddr) (transport.UDPConn, error) {
	conn, err := n.Net.ListenUDP(network, address)
	if err == nil {
		_ = conn.SetReadBuffer(n.size)
		_ = conn.SetWriteBuffer(n.size)
	}
	return conn, err
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return math.NaN()
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
}

// trickle hands a peer's candidates to the other one, holding them until the
// other has its remote description (what signaling would do).
type trickle struct {
	mu      sync.Mutex
	to      *webrtc.PeerConnection
	ready   bool
	pending []webrtc.ICECandidateInit
}

func (t *trickle) add(candidate *webrtc.ICECandidate) {
	if candidate == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ready {
		t.pending = append(t.pending, candidate.ToJSON())
		return
	}
	_ = t.to.AddICECandidate(candidate.ToJSON())
}

func (t *trickle) open() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ready = true
	for _, candidate := range t.pending {
		if err := t.to.AddICECandidate(candidate); err != nil {
			return err
		}
	}
	t.pending = nil
	return nil
}

type pair struct {
	offerer, answerer *webrtc.PeerConnection
	sender, receiver  *webrtc.DataChannel
	setup             time.Duration
}

func (p *pair) close() {
	_ = p.offerer.Close()
	_ = p.answerer.Close()
}

// connect makes a fresh pair with one open channel "chat" from offerer to answerer.
func connect() (*pair, error) {
	start := time.Now()
	config := webrtc.Configuration{}
	pc1, err := api.NewPeerConnection(config)
	if err != nil {
		return nil, err
	}
	pc2, err := api.NewPeerConnection(config)
	if err != nil {
		_ = pc1.Close()
		return nil, err
	}
	p := &pair{offerer: pc1, answerer: pc2}
	fail := func(err error) (*pair, error) {
		p.close()
		return nil, err
	}
	to2, to1 := &trickle{to: pc2}, &trickle{to: pc1}
	pc1.OnICECandidate(to2.add)
	pc2.OnICECandidate(to1.add)
	opened := make(chan struct{}, 1)
	remote := make(chan *webrtc.DataChannel, 1)
	sender, err := pc1.CreateDataChannel("chat", nil)
	if err != nil {
		return fail(err)
	}
	sender.OnOpen(func() { opened <- struct{}{} })
	pc2.OnDataChannel(func(channel *webrtc.DataChannel) {
		channel.OnOpen(func() { remote <- channel })
	})
	offer, err := pc1.CreateOffer(nil)
	if err == nil {
		err = pc1.SetLocalDescription(offer)
	}
	if err == nil {
		err = pc2.SetRemoteDescription(offer)
	}
	if err == nil {
		err = to2.open()
	}
	var answer webrtc.SessionDescription
	if err == nil {
		answer, err = pc2.CreateAnswer(nil)
	}
	if err == nil {
		err = pc2.SetLocalDescription(answer)
	}
	if err == nil {
		err = pc1.SetRemoteDescription(answer)
	}
	if err == nil {
		err = to1.open()
	}
	if err != nil {
		return fail(err)
	}
	deadline := time.After(timeout)
	for p.sender == nil || p.receiver == nil {
		select {
		case <-opened:
			p.sender = sender
		case channel := <-remote:
			p.receiver = channel
		case <-deadline:
			return fail(errors.New("the data channel did not open within 10 s"))
		}
	}
	p.setup = time.Since(start)
	return p, nil
}

func measureSetup(pairs int) (float64, error) {
	samples := make([]float64, 0, pairs)
	for i := 0; i < pairs; i++ {
		p, err := connect()
		if err != nil {
			return 0, err
		}
		samples = append(samples, float64(p.setup.Microseconds())/1000)
		p.close()
	}
	return median(samples), nil
}

type stream struct {
	bytes, messages int64
	elapsed, cpu    float64
}

// measureStream sends size-byte messages for the given time with the
// back-pressure of a browser application (bufferedAmountLowThreshold).
func measureStream(size int, seconds float64) (stream, error) {
	p, err := connect()
	if err != nil {
		return stream{}, err
	}
	defer p.close()
	payload := strings.Repeat("x", size)
	var bytes, messages int64
	var counting atomic.Bool
	counting.Store(true)
	p.receiver.OnMessage(func(msg webrtc.DataChannelMessage) {
		if counting.Load() {
			atomic.AddInt64(&bytes, int64(len(msg.Data)))
			atomic.AddInt64(&messages, 1)
		}
	})
	low := make(chan struct{}, 1)
	p.sender.SetBufferedAmountLowThreshold(lowWater)
	p.sender.OnBufferedAmountLow(func() {
		select {
		case low <- struct{}{}:
		default:
		}
	})
	stop := make(chan struct{})
	failed := make(chan error, 1)
	go func() {
		for {
			for p.sender.BufferedAmount() <= highWater {
				if err := p.sender.SendText(payload); err != nil {
					failed <- err
					return
				}
			}
			// The callback fires when the amount crosses the threshold
			// downwards; a signal left from an earlier crossing is harmless
			// (the loop re-checks the amount).
			select {
			case <-low:
			case <-stop:
				return
			}
		}
	}()
	cpu0, t0 := cpuSeconds(), time.Now()
	select {
	case <-time.After(time.Duration(seconds * float64(time.Second))):
	case err := <-failed:
		close(stop)
		return stream{}, fmt.Errorf("stream of %d-byte messages: %w", size, err)
	}
	counting.Store(false)
	result := stream{
		bytes:    atomic.LoadInt64(&bytes),
		messages: atomic.LoadInt64(&messages),
		elapsed:  time.Since(t0).Seconds(),
		cpu:      cpuSeconds() - cpu0,
	}
	close(stop)
	return result, nil
}

// measureRTT: sequential ping-pongs of size bytes; returns round trips in µs.
func measureRTT(count, warmUp, size int) ([]float64, error) {
	p, err := connect()
	if err != nil {
		return nil, err
	}
	defer p.close()
	payload := strings.Repeat("p", size)
	p.receiver.OnMessage(func(msg webrtc.DataChannelMessage) { _ = p.receiver.SendText(string(msg.Data)) })
	pong := make(chan time.Time, 1)
	p.sender.OnMessage(func(webrtc.DataChannelMessage) { pong <- time.Now() })
	samples := make([]float64, 0, count)
	for i := 0; i < warmUp+count; i++ {
		sent := time.Now()
		if err := p.sender.SendText(payload); err != nil {
			return nil, fmt.Errorf("ping-pong: %w", err)
		}
		select {
		case received := <-pong:
			if i >= warmUp {
				samples = append(samples, float64(received.Sub(sent).Nanoseconds())/1000)
			}
		case <-time.After(timeout):
			return nil, fmt.Errorf("ping-pong: no answer within 10 s after %d round trips", i)
		}
	}
	return samples, nil
}

func median(values []float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	if len(sorted) == 0 {
		return 0
	}
	mid := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[mid]
	}
	return (sorted[mid-1] + sorted[mid]) / 2
}

// percentile: nearest rank, p in 0...100.
func percentile(values []float64, p float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(sorted) {
		rank = len(sorted)
	}
	return sorted[rank-1]
}

func round(value float64, digits int) float64 {
	scale := math.Pow(10, float64(digits))
	return math.Round(value*scale) / scale
}

func main() {
	duration := flag.Float64("duration", 5, "length of the bulk and small-message runs in seconds")
	socketBuffer := flag.Int("socket-buffer", 4<<20, "kernel buffer size of each UDP socket in bytes (0: the kernel default)")
	flag.Parse()
	if flag.NArg() > 0 || !(*duration > 0) || *socketBuffer < 0 {
		fmt.Fprintln(os.Stderr, "usage: pion-transfer [--duration SECONDS] [--socket-buffer BYTES]")
		os.Exit(2)
	}
	var err error
	if api, err = newAPI(*socketBuffer); err == nil {
		err = run(*duration)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pion-transfer:", err)
		os.Exit(1)
	}
}

func run(seconds float64) error {
	fmt.Fprintln(os.Stderr, "pion: setup")
	setup, err := measureSetup(5)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "pion: bulk")
	bulk, err := measureStream(16*1024, seconds)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "pion: small")
	small, err := measureStream(100, seconds)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "pion: rtt")
	rtt, err := measureRTT(1000, 20, 100)
	if err != nil {
		return err
	}
	megabytes := float64(bulk.bytes) / 1e6
	var cpu interface{}
	if megabytes > 0 {
		cpu = round(bulk.cpu*1000/megabytes, 2)
	}
	// Field order as the other stacks print it.
	line, err := json.Marshal(struct {
		Stack     string      `json:"stack"`
		Setup     float64     `json:"setup_ms"`
		Bulk      float64     `json:"bulk_MBps"`
		Small     float64     `json:"small_msgs_per_s"`
		RTTMedian float64     `json:"rtt_us_median"`
		RTTP99    float64     `json:"rtt_us_p99"`
		CPUPerMB  interface{} `json:"cpu_ms_per_MB"`
	}{"pion", round(setup, 2), round(megabytes/bulk.elapsed, 1), math.Round(float64(small.messages) / small.elapsed),
		round(median(rtt), 1), round(percentile(rtt, 99), 1), cpu})
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}
