/*
Package fingerprint describes the machine a client runs on: the node
attributes that constraints and interpolation read (kernel.name,
cpu.arch, cpu.numcores, memory.totalbytes, unique.hostname, os.name, ...)
and the capacity the scheduler may fill.

# What it owns, and what it must not import

It owns the attributes' names and how each is read from the machine. It
imports structs and version only; it must not import the client, whose
node it describes, nor the drivers, which fingerprint themselves.
*/
package fingerprint
