package api

// MetricsSummary is the JSON form of GET /v1/metrics: the agent's in-memory
// metrics for the last complete interval, as go-metrics' in-memory sink
// writes them.
type MetricsSummary struct {
	// Timestamp is the start of the interval, formatted by the agent.
	Timestamp       string
	Gauges          []GaugeValue
	PrecisionGauges []PrecisionGaugeValue
	Points          []PointValue
	Counters        []SampledValue
	Samples         []SampledValue
}

// GaugeValue is the last value a gauge was set to in the interval.
type GaugeValue struct {
	Name          string
	Value         float32
	DisplayLabels map[string]string `json:"Labels"`
}

// PrecisionGaugeValue is a gauge kept in double precision.
type PrecisionGaugeValue struct {
	Name          string
	Value         float64
	DisplayLabels map[string]string `json:"Labels"`
}

// PointValue is the list of raw values emitted under one name.
type PointValue struct {
	Name   string
	Points []float32
}

// SampledValue aggregates a counter or a timing sample over the interval.
type SampledValue struct {
	Name string
	AggregateSample
	Mean          float64
	Stddev        float64
	DisplayLabels map[string]string `json:"Labels"`
}

// AggregateSample is the running aggregate of the values of a counter or
// sample.
type AggregateSample struct {
	Count int     // values emitted
	Rate  float64 // Sum per second of the interval
	Sum   float64
	Min   float64
	Max   float64
}
