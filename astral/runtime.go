package astral

import (
	"github.com/astral-engine/astral/internal/pool"
)

// ThreadsAuto asks for the default worker count: usable CPUs - 1, where
// usable respects the affinity mask and the cgroup CPU quota.
const ThreadsAuto = -1

// Runtime owns the worker threads. Its thread count is the number of
// runtime workers and does not count the calling thread, which always scans
// a share of each query itself: on 4 spare cores use 3 workers.
type Runtime struct {
	pool *pool.Pool
}

type runtimeConfig struct {
	threads int
	pin     bool
	cpus    []int
}

// RuntimeOption configures NewRuntime.
type RuntimeOption func(*runtimeConfig)

// WithThreads sets the number of runtime workers (the caller not counted);
// 0 is serial, ThreadsAuto the default.
func WithThreads(n int) RuntimeOption { return func(c *runtimeConfig) { c.threads = n } }

// WithPinning pins each worker's OS thread to one CPU, taken in turn from
// cpus (all usable CPUs when empty). Linux only.
func WithPinning(cpus ...int) RuntimeOption {
	return func(c *runtimeConfig) { c.pin, c.cpus = true, cpus }
}

// MaxThreads bounds the worker count.
const MaxThreads = 256

// NewRuntime starts the workers. They spin ~20 µs for the next job and then
// park, so an idle engine costs the game no CPU.
func NewRuntime(opts ...RuntimeOption) (*Runtime, error) {
	c := runtimeConfig{threads: ThreadsAuto}
	for _, o := range opts {
		o(&c)
	}
	if c.threads == ThreadsAuto {
		c.threads = pool.DefaultWorkers()
	}
	if c.threads < 0 || c.threads > MaxThreads {
		return nil, errorf(ErrInvalidArgument, "thread count %d: want 0 to %d or ThreadsAuto", c.threads, MaxThreads)
	}
	p, err := pool.New(pool.Options{Workers: c.threads, Pin: c.pin, CPUs: c.cpus})
	if err != nil {
		return nil, errorf(ErrInvalidArgument, "starting workers: %v", err)
	}
	return &Runtime{pool: p}, nil
}

// Threads is the number of runtime workers (the caller not counted).
func (r *Runtime) Threads() int {
	if r == nil {
		return 0
	}
	return r.pool.Workers()
}

// Close stops the workers. Indexes using the runtime keep working, serially.
func (r *Runtime) Close() {
	if r != nil {
		r.pool.Close()
	}
}

func (r *Runtime) workers() *pool.Pool {
	if r == nil {
		return nil
	}
	return r.pool
}

// Version is the library version.
const Version = "0.2.0"
