// gospin.go - two goroutines spin (record-go-roots): their chains run from
// runtime.goexit, the runtime's threads' from runtime.mstart and rt0_go.
package main

import (
	"fmt"
	"sync"
)

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

func main() {
	var wg sync.WaitGroup
	total := 0
	var mu sync.Mutex
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := work(100000000)
			mu.Lock()
			total += s
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(total > 0)
}
