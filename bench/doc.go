// Package bench holds Drover's benchmarks. They measure whole subsystems
// in process (an in-memory server, simulated client nodes) and report
// their figures with b.ReportMetric; `make bench` runs each once.
package bench
