// Command testapp is the program inside the container images that the
// docker driver's tests build: a static binary on an empty file system,
// whose arguments are a script of steps run in order, such as
//
//	print hello  eprint oops  trap SIGTERM 3  sleep 100s
//
// Steps:
//
//	print TEXT         write TEXT and a newline to stdout
//	eprint TEXT        write TEXT and a newline to stderr
//	lines N            write the lines "line 1" ... "line N" to stdout
//	env                write the environment to stdout, one VAR=value a line
//	write PATH TEXT    create PATH holding TEXT
//	cat PATH           copy PATH to stdout
//	symlink TARGET PATH  make PATH a symbolic link to TARGET, replacing what was there
//	rename OLD NEW     rename OLD to NEW
//	await PATH         wait until PATH exists
//	sleep DURATION     sleep (a Go duration)
//	ticks DURATION     print tick-1, tick-2, ... on stdout, one every DURATION, forever
//	exit CODE          exit with CODE
//	trap SIGNAL CODE   from now on, exit with CODE on SIGNAL, printing "trapped SIGNAL"
//	ignore SIGNAL      from now on, ignore SIGNAL (printing "ignored SIGNAL")
//	alloc MIB          allocate and touch MIB mebibytes, then keep them
//	serve PORT TEXT    from now on, answer each TCP connection to PORT with TEXT and close it
//	ttysize            write the size of the terminal on stdin, "ROWS COLS", or "no tty"
//	winch              print "ready", wait for SIGWINCH, then do ttysize
//
// It exits 0 after the last step. A bad script exits 100.
package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var kept [][]byte

func main() {
	args := os.Args[1:]
	for len(args) > 0 {
		n, err := step(args)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testapp: %s: %v\n", args[0], err)
			os.Exit(100)
		}
		args = args[n:]
	}
}

// step runs the step at the start of args and returns how many
// arguments it took.
func step(args []string) (int, error) {
	need := func(n int) error {
		if len(args) < n+1 {
			return fmt.Errorf("needs %d argument(s)", n)
		}
		return nil
	}
	switch args[0] {
	case "print", "eprint":
		if err := need(1); err != nil {
			return 0, err
		}
		out := os.Stdout
		if args[0] == "eprint" {
			out = os.Stderr
		}
		fmt.Fprintln(out, args[1])
		return 2, nil
	case "lines":
		if err := need(1); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		os.Stdout.WriteString(b.String())
		return 2, nil
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		return 1, nil
	case "write":
		if err := need(2); err != nil {
			return 0, err
		}
		return 3, os.WriteFile(args[1], []byte(args[2]), 0o644)
	case "symlink":
		if err := need(2); err != nil {
			return 0, err
		}
		if err := os.RemoveAll(args[2]); err != nil {
			return 0, err
		}
		return 3, os.Symlink(args[1], args[2])
	case "rename":
		if err := need(2); err != nil {
			return 0, err
		}
		return 3, os.Rename(args[1], args[2])
	case "await":
		if err := need(1); err != nil {
			return 0, err
		}
		for {
			if _, err := os.Lstat(args[1]); err == nil {
				return 2, nil
			}
			time.Sleep(10 * time.Millisecond)
		}
	case "cat":
		if err := need(1); err != nil {
			return 0, err
		}
		b, err := os.ReadFile(args[1])
		if err != nil {
			return 0, err
		}
		os.Stdout.Write(b)
		return 2, nil
	case "sleep":
		if err := need(1); err != nil {
			return 0, err
		}
		d, err := time.ParseDuration(args[1])
		if err != nil {
			return 0, err
		}
		time.Sleep(d)
		return 2, nil
	case "ticks":
		if err := need(1); err != nil {
			return 0, err
		}
		d, err := time.ParseDuration(args[1])
		if err != nil {
			return 0, err
		}
		for i := 1; ; i++ {
			fmt.Printf("tick-%d\n", i)
			time.Sleep(d)
		}
	case "exit":
		if err := need(1); err != nil {
			return 0, err
		}
		code, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		os.Exit(code)
	case "trap":
		if err := need(2); err != nil {
			return 0, err
		}
		sig, err := parseSignal(args[1])
		if err != nil {
			return 0, err
		}
		code, err := strconv.Atoi(args[2])
		if err != nil {
			return 0, err
		}
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, sig)
		go func() {
			<-ch
			fmt.Println("trapped " + args[1])
			os.Exit(code)
		}()
		return 3, nil
	case "ignore":
		if err := need(1); err != nil {
			return 0, err
		}
		sig, err := parseSignal(args[1])
		if err != nil {
			return 0, err
		}
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, sig)
		go func() {
			for range ch {
				fmt.Println("ignored " + args[1])
			}
		}()
		return 2, nil
	case "serve":
		if err := need(2); err != nil {
			return 0, err
		}
		return 3, serve(args[1], args[2])
	case "ttysize":
		printTTYSize()
		return 1, nil
	case "winch":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGWINCH)
		fmt.Println("ready")
		<-ch
		printTTYSize()
		return 1, nil
	case "alloc":
		if err := need(1); err != nil {
			return 0, err
		}
		mib, err := strconv.Atoi(args[1])
		if err != nil {
			return 0, err
		}
		for range mib {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			kept = append(kept, b)
		}
		return 2, nil
	}
	return 0, fmt.Errorf("unknown step")
}

// printTTYSize writes the size of the terminal on stdin.
func printTTYSize() {
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil {
		fmt.Println("no tty")
		return
	}
	fmt.Printf("%d %d\n", ws.Row, ws.Col)
}

var signals = map[string]syscall.Signal{
	"SIGHUP": syscall.SIGHUP, "SIGINT": syscall.SIGINT, "SIGQUIT": syscall.SIGQUIT,
	"SIGTERM": syscall.SIGTERM, "SIGUSR1": syscall.SIGUSR1, "SIGUSR2": syscall.SIGUSR2,
}

func parseSignal(name string) (syscall.Signal, error) {
	if s, ok := signals[name]; ok {
		return s, nil
	}
	return 0, fmt.Errorf("unknown signal %q", name)
}

// serve answers connections to port with text, in the background.
func serve(port, text string) error {
	l, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return err
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte(text))
			_ = c.Close()
		}
	}()
	return nil
}
