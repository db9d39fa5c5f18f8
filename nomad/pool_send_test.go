package nomad

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

func TestPooledClient_SendGivesUpAWriteNobodyReads(t *testing.T) {
	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"the deadline passes", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Second)
		}},
		{"the caller cancels", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Second, cancel)
			return ctx, cancel
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The receiver never reads: a stopped process.
				local, remote := net.Pipe()
				defer remote.Close()
				c := &nomadrpc.PooledClient{Client: nomadrpc.NewClient(local), Conn: local}
				defer c.Close()
				ctx, cancel := tc.ctx()
				defer cancel()

				start := time.Now()
				call := c.Send(ctx, "Job.Register", &JobRegisterRequest{Job: testJob("x")}, &JobRegisterResponse{})
				must.Eq(t, time.Second, time.Since(start), must.Sprint("the write ends with the caller's context"))
				done := <-call.Done
				must.ErrorIs(t, done.Error, os.ErrDeadlineExceeded)
				_, err := local.Write([]byte("{}"))
				must.ErrorIs(t, err, io.ErrClosedPipe, must.Sprint("a connection left with half a call is closed"))
			})
		})
	}
}

func TestPooledClient_SendLeavesAHealthyConnectionAsItWas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		local, remote := net.Pipe()
		defer remote.Close()
		lines := make(chan string, 2)
		go func() {
			r := bufio.NewScanner(remote)
			for r.Scan() {
				lines <- r.Text()
			}
		}()
		c := &nomadrpc.PooledClient{Client: nomadrpc.NewClient(local), Conn: local}
		defer c.Close()

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		call := c.Send(ctx, "Job.Register", &JobRegisterRequest{Job: testJob("first")}, &JobRegisterResponse{})
		must.StrContains(t, <-lines, `"first"`)
		cancel()
		time.Sleep(2 * time.Second)
		select {
		case <-call.Done:
			t.Fatal("a call written whole was given up although no answer came")
		default:
		}

		// The first call's deadline, long past, does not cut the next.
		call = c.Send(context.Background(), "Job.Register", &JobRegisterRequest{Job: testJob("second")}, &JobRegisterResponse{})
		must.StrContains(t, <-lines, `"second"`)
		select {
		case done := <-call.Done:
			t.Fatalf("the second call ended: %v", done.Error)
		default:
		}
	})
}
