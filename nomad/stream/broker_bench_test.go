package stream

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkPublish measures what one Publish costs the FSM with idle,
// filtering and reading subscribers, each looping as the HTTP stream does:
// wait, read what is ready, pause 10 ms.
func BenchmarkPublish(b *testing.B) {
	for _, tc := range []struct {
		name   string
		subs   int
		topics map[Topic][]string
	}{
		{"no subscribers", 0, nil},
		{"100 filtering", 100, map[Topic][]string{TopicJob: {"nothing"}}},
		{"100 reading all", 100, nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			br := NewBroker(100, 0)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range tc.subs {
				sub, err := br.Subscribe(SubscribeRequest{Topics: tc.topics})
				if err != nil {
					b.Fatal(err)
				}
				wg.Go(func() {
					for sub.Wait(ctx) == nil {
						for {
							batch, err := sub.TryNext()
							if batch == nil || err != nil {
								break
							}
						}
						select {
						case <-time.After(10 * time.Millisecond):
						case <-ctx.Done():
							return
						}
					}
				})
			}
			b.ResetTimer()
			for i := range b.N {
				br.Publish(uint64(i+1), []*Event{{Topic: TopicJob, Type: TypeJobRegistered, Key: fmt.Sprint(i), Namespace: "default"}})
			}
			b.StopTimer()
			cancel()
			wg.Wait()
		})
	}
}
