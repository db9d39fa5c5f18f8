/*
Package lazylog is an hclog.Logger that is made from its parent on its
first use.

hclog's Named and With each copy the logger (a few hundred bytes). A
client makes a logger per allocation, per task and per hook, by the
thousand, and most of them never log a line above the agent's level.

It pays: BenchmarkAllocRunner_Memory (1,000 running allocations of one
task, the agent's logger at its default level) keeps 9.36 KB of heap per
allocation with it, 10.07 KB with hclog's Named and With (+7.6%, medians
of 6, p=0.002; measured on 01f6819). A logger that is not an hclog
logger of the agent's, or a client of a few allocations, gains nothing
from it.

# What it owns, and what it must not import

It owns nothing but the deferral: every line goes to the logger its
parent would have made. It imports go-hclog and the standard library
only; it must not import a package of Drover's.
*/
package lazylog
