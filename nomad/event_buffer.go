package nomad

// DefaultEventBufferSize is how many events a server holds for its event
// stream unless configured otherwise, as Nomad's event_buffer_size.
const DefaultEventBufferSize = 100
